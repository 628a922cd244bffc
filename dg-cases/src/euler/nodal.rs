//! An Euler case seen as a nodal [`MaxwellCase`], so that the nodal formulation (seed 000's strong form, its CPU
//! operator and generated kernels) can solve it too — for comparing the two formulations on the same problem.

use super::EulerCase;
use crate::MaxwellCase;
use dg_core::mesh::TriMesh;
use dg_core::MeshError;

/// The nodal view of an Euler case (periodic cases or law boundary conditions only: the nodal path has no curved
/// walls or prescribed states).
pub struct NodalEuler<'a>(pub &'a dyn EulerCase);

impl MaxwellCase for NodalEuler<'_> {
    fn name(&self) -> &'static str {
        self.0.name()
    }
    fn description(&self) -> &'static str {
        self.0.description()
    }
    fn default_mesh(&self, nx: usize, _ny: usize) -> Result<TriMesh, MeshError> {
        self.0.default_mesh(nx)
    }
    fn default_t_end(&self) -> f64 {
        self.0.default_t_end()
    }
    fn initial(&self, x: f64, y: f64, q: &mut [f64]) {
        self.0.initial(x, y, q);
    }
    fn exact(&self, x: f64, y: f64, t: f64, q: &mut [f64]) -> bool {
        self.0.exact(x, y, t, q)
    }
    fn has_exact(&self) -> bool {
        self.0.has_exact()
    }
}
