//! Named problems: a law, a default mesh, initial data, boundary bindings, and an exact solution when one is
//! known. Maxwell TM cases ([`MaxwellCase`], nodal triangles), Euler cases ([`euler::EulerCase`], modal or nodal
//! triangles) 3D wave cases ([`waves::WaveCase`], tetrahedra) and
//! hexahedral cases ([`hex::HexCase`]), finite-volume cases ([`fv::FvCase`]) and elliptic cases
//! ([`elliptic::EllipticCase`], hybridizable DG); [`AnyCase`] names any of them.

pub mod elliptic;
pub mod euler;
pub mod fv;
pub mod hex;
mod maxwell_cavity;
mod maxwell_pulse;
pub mod waves;

pub use maxwell_cavity::MaxwellCavity;
pub use maxwell_pulse::MaxwellPulse;

use dg_core::mesh::TriMesh;
use dg_core::MeshError;
use dg_laws::MaxwellTm;

/// A Maxwell TM problem `dg run` and `dg convergence` solve with the nodal formulation (seed 000); Euler
/// problems are [`euler::EulerCase`]s.
pub trait MaxwellCase: Send + Sync {
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
    /// Whether [`MaxwellCase::exact`] is available.
    fn has_exact(&self) -> bool;
}

/// Every Maxwell (nodal) case.
pub fn all() -> Vec<Box<dyn MaxwellCase>> {
    vec![Box::new(MaxwellCavity::default()), Box::new(MaxwellPulse)]
}

/// The Maxwell (nodal) case with this name.
pub fn find(name: &str) -> Option<Box<dyn MaxwellCase>> {
    all().into_iter().find(|c| c.name() == name)
}

/// A case of either formulation.
pub enum AnyCase {
    /// A Maxwell case, nodal formulation (seed 000).
    Maxwell(Box<dyn MaxwellCase>),
    /// An Euler case, modal formulation (seed 001).
    Euler(Box<dyn euler::EulerCase>),
    /// A 3D wave case on tetrahedra (seed 002).
    Wave(Box<dyn waves::WaveCase>),
    /// A 3D case on hexahedra (seed 003).
    Hex(Box<dyn hex::HexCase>),
    /// A finite-volume case on a regular 2D grid (seed 003).
    Fv(Box<dyn fv::FvCase>),
    /// A steady elliptic case, hybridizable DG on triangles (seed 004).
    Elliptic(Box<dyn elliptic::EllipticCase>),
}

/// The case of either formulation with this name.
pub fn find_any(name: &str) -> Option<AnyCase> {
    find(name)
        .map(AnyCase::Maxwell)
        .or_else(|| euler::all().into_iter().find(|c| c.name() == name).map(AnyCase::Euler))
        .or_else(|| waves::all().into_iter().find(|c| c.name() == name).map(AnyCase::Wave))
        .or_else(|| hex::all().into_iter().find(|c| c.name() == name).map(AnyCase::Hex))
        .or_else(|| fv::all().into_iter().find(|c| c.name() == name).map(AnyCase::Fv))
        .or_else(|| elliptic::all().into_iter().find(|c| c.name() == name).map(AnyCase::Elliptic))
}

/// Names of all cases, for messages.
pub fn names() -> Vec<&'static str> {
    all()
        .iter()
        .map(|c| c.name())
        .chain(euler::all().iter().map(|c| c.name()))
        .chain(waves::all().iter().map(|c| c.name()))
        .chain(hex::all().iter().map(|c| c.name()))
        .chain(fv::all().iter().map(|c| c.name()))
        .chain(elliptic::all().iter().map(|c| c.name()))
        .collect()
}
