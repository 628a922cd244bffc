//! Cases of linear wave propagation in 3D on tetrahedra (seed 002): acoustics and isotropic elasticity with
//! per-element materials, solved with the nodal formulation.

mod acoustic_cube;
mod elastic_cube;
mod two_layer;

pub use acoustic_cube::AcousticCube;
pub use elastic_cube::ElasticCube;
pub use two_layer::AcousticTwoLayer;

use dg_core::mesh3d::{box_mesh, BoxSpec, CubeSplit, TetMesh};
use dg_core::MeshError;
use std::collections::HashMap;

/// Which law of the physics crate a case solves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WaveLaw {
    /// `acoustics3d`: p, v; materials ρ, c.
    Acoustic,
    /// `elastic3d`: v, σ; materials ρ, λ, μ.
    Elastic,
}

/// A 3D wave problem `dg run` and `dg convergence` can solve.
pub trait WaveCase: Send + Sync {
    /// Command-line name.
    fn name(&self) -> &'static str;
    /// One-line description.
    fn description(&self) -> &'static str;
    /// The law.
    fn law(&self) -> WaveLaw;
    /// The box the case lives in, with `n` hexahedra along its shortest side.
    fn box_spec(&self, n: usize) -> BoxSpec;
    /// Hexahedra along the shortest side when none are given.
    fn default_cells(&self) -> usize;
    /// The mesh with `n` hexahedra along the shortest side.
    fn mesh(&self, n: usize) -> Result<TetMesh, MeshError> {
        box_mesh(&self.box_spec(n))
    }
    /// Default final time.
    fn default_t_end(&self) -> f64;
    /// Material parameters of an element with centroid `x` (the law's order).
    fn material(&self, x: [f64; 3]) -> Vec<f64>;
    /// Boundary tag → law condition.
    fn boundary_conditions(&self) -> HashMap<String, String>;
    /// Initial state at x.
    fn initial(&self, x: [f64; 3], q: &mut [f64]) {
        self.exact(x, 0.0, q);
    }
    /// Exact state at (x, t).
    fn exact(&self, x: [f64; 3], t: f64, q: &mut [f64]);
    /// For interface problems: the analytic pressure reflection and transmission coefficients (R, T).
    fn analytic_coefficients(&self) -> Option<(f64, f64)> {
        None
    }
    /// For interface problems: the unit-amplitude reflected and transmitted pressure shapes at (x, t), which
    /// the computed pressure is projected on to measure R and T.
    fn interface_shapes(&self, x: [f64; 3], t: f64) -> Option<(f64, f64)> {
        let _ = (x, t);
        None
    }
}

/// Every 3D wave case.
pub fn all() -> Vec<Box<dyn WaveCase>> {
    vec![Box::new(AcousticCube), Box::new(ElasticCube), Box::new(AcousticTwoLayer::default())]
}

/// The unit cube with n³ hexahedra, six tetrahedra each.
fn unit_cube(n: usize, periodic: bool) -> BoxSpec {
    BoxSpec { lower: [0.0; 3], upper: [1.0; 3], cells: [n; 3], split: CubeSplit::Six, periodic: [periodic; 3] }
}

/// Every box side bound to one condition.
fn all_sides(condition: &str) -> HashMap<String, String> {
    dg_core::mesh3d::BOX_TAGS.iter().map(|t| (t.to_string(), condition.to_string())).collect()
}
