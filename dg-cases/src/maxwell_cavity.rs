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
        // the exact mode at t = 0, where sin(ωt) = 0: two sines a node (the start-up samples every node of the mesh)
        let (m, n) = (self.m as f64 * PI, self.n as f64 * PI);
        q[0] = 0.0;
        q[1] = 0.0;
        q[2] = (m * x).sin() * (n * y).sin();
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

#[cfg(test)]
mod tests {
    use super::{MaxwellCase, MaxwellCavity};

    #[test]
    fn the_initial_state_is_the_exact_mode_at_t_zero() {
        for cavity in [MaxwellCavity::default(), MaxwellCavity { m: 2, n: 3 }, MaxwellCavity { m: 5, n: 1 }] {
            for i in 0..=20 {
                for j in 0..=20 {
                    let (x, y) = (i as f64 / 20.0 + 1e-3 * j as f64, j as f64 / 20.0);
                    let (mut initial, mut exact) = ([f64::NAN; 3], [f64::NAN; 3]);
                    cavity.initial(x, y, &mut initial);
                    assert!(cavity.exact(x, y, 0.0, &mut exact));
                    assert_eq!(initial, exact, "mode ({}, {}) at ({x}, {y})", cavity.m, cavity.n);
                }
            }
        }
    }
}
