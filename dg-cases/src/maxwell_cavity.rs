//! PEC unit-square cavity: Ez = sin(mπx) sin(nπy) cos(ωt), ω = π√(m² + n²) (seed 000).

use super::MaxwellCase;
use dg_core::mesh::{rectangle, RectangleSpec, TriMesh};
use dg_core::MeshError;
use std::f64::consts::PI;

/// The cavity eigenmode (m, n).
#[derive(Debug, Clone, Copy)]
pub struct MaxwellCavity {
    /// Mode number in x.
    pub m: u32,
    /// Mode number in y.
    pub n: u32,
}

impl Default for MaxwellCavity {
    fn default() -> Self {
        Self { m: 1, n: 1 }
    }
}

impl MaxwellCavity {
    /// Angular frequency ω = π√(m² + n²).
    pub fn omega(&self) -> f64 {
        PI * ((self.m * self.m + self.n * self.n) as f64).sqrt()
    }
}

impl MaxwellCase for MaxwellCavity {
    fn name(&self) -> &'static str {
        "maxwell-cavity"
    }
    fn description(&self) -> &'static str {
        "Maxwell TM eigenmode of the PEC unit square (exact solution)"
    }
    fn default_mesh(&self, nx: usize, ny: usize) -> Result<TriMesh, MeshError> {
        rectangle(&RectangleSpec { nx, ny, ..RectangleSpec::unit_square(nx) })
    }
    fn default_t_end(&self) -> f64 {
        // one period
        2.0 * PI / self.omega()
    }
    fn initial(&self, x: f64, y: f64, q: &mut [f64]) {
        self.exact(x, y, 0.0, q);
    }
    fn exact(&self, x: f64, y: f64, t: f64, q: &mut [f64]) -> bool {
        let (m, n, w) = (self.m as f64 * PI, self.n as f64 * PI, self.omega());
        q[0] = -(n / w) * (m * x).sin() * (n * y).cos() * (w * t).sin();
        q[1] = (m / w) * (m * x).cos() * (n * y).sin() * (w * t).sin();
        q[2] = (m * x).sin() * (n * y).sin() * (w * t).cos();
        true
    }
    fn has_exact(&self) -> bool {
        true
    }
}
