//! Named problems: a law, a default mesh, initial data, and an exact solution when one is known.

mod maxwell_cavity;
mod maxwell_pulse;

pub use maxwell_cavity::MaxwellCavity;
pub use maxwell_pulse::MaxwellPulse;

use dg_core::mesh::TriMesh;
use dg_core::MeshError;
use dg_laws::MaxwellTm;

/// A problem `dg run` and `dg convergence` can solve. All current cases solve Maxwell TM.
pub trait Case: Send + Sync {
    /// Command-line name.
    fn name(&self) -> &'static str;
    /// One-line description.
    fn description(&self) -> &'static str;
    /// The law with its parameters (α of the numerical flux).
    fn law(&self, alpha: f64) -> MaxwellTm {
        MaxwellTm { alpha, ..MaxwellTm::default() }
    }
    /// The mesh used when no mesh file is given, with `nx` × `ny` cells.
    fn default_mesh(&self, nx: usize, ny: usize) -> Result<TriMesh, MeshError>;
    /// Default final time.
    fn default_t_end(&self) -> f64;
    /// Initial state at (x, y).
    fn initial(&self, x: f64, y: f64, q: &mut [f64]);
    /// Exact state at (x, y, t), if the case has one.
    fn exact(&self, x: f64, y: f64, t: f64, q: &mut [f64]) -> bool {
        let _ = (x, y, t, q);
        false
    }
    /// Whether [`Case::exact`] is available.
    fn has_exact(&self) -> bool;
}

/// Every case, for listing.
pub fn all() -> Vec<Box<dyn Case>> {
    vec![Box::new(MaxwellCavity::default()), Box::new(MaxwellPulse)]
}

/// The case with this name.
pub fn find(name: &str) -> Option<Box<dyn Case>> {
    all().into_iter().find(|c| c.name() == name)
}

/// Names of all cases, for messages.
pub fn names() -> Vec<&'static str> {
    all().iter().map(|c| c.name()).collect()
}
