//! A Gaussian Ez pulse in a PEC domain of any shape (no exact solution): runs on any mesh.

use super::MaxwellCase;
use dg_core::mesh::{rectangle, RectangleSpec, TriMesh};
use dg_core::MeshError;

/// Gaussian pulse Ez = exp(−((x − x₀)² + (y − y₀)²)/w²) at rest, centred at (0.25, 0.25), w = 0.1.
#[derive(Debug, Clone, Copy)]
pub struct MaxwellPulse;

impl MaxwellCase for MaxwellPulse {
    fn name(&self) -> &'static str {
        "maxwell-pulse"
    }
    fn description(&self) -> &'static str {
        "Gaussian Ez pulse centred at (0.25, 0.25) in PEC walls; any mesh (no exact solution)"
    }
    fn default_mesh(&self, nx: usize, ny: usize) -> Result<TriMesh, MeshError> {
        rectangle(&RectangleSpec { nx, ny, ..RectangleSpec::unit_square(nx) })
    }
    fn default_t_end(&self) -> f64 {
        1.0
    }
    fn initial(&self, x: f64, y: f64, q: &mut [f64]) {
        let r2 = (x - 0.25).powi(2) + (y - 0.25).powi(2);
        q[0] = 0.0;
        q[1] = 0.0;
        q[2] = (-r2 / 0.01).exp();
    }
    fn has_exact(&self) -> bool {
        false
    }
}
