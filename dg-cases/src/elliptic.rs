//! Elliptic cases of the hybridizable DG formulation on triangles (seed 004): −∇·(κ∇u) + λu = f.

use dg_core::mesh::{rectangle, RectangleSpec, TriMesh};
use dg_core::MeshError;
use dg_hdg::HelmholtzProblem;

/// A steady problem `dg run` and `dg convergence` solve with hybridizable DG.
pub trait EllipticCase: Send + Sync {
    /// Command-line name.
    fn name(&self) -> &'static str;
    /// One-line description.
    fn description(&self) -> &'static str;
    /// The mesh of `n` × `n` squares, each cut in two.
    fn mesh(&self, n: usize) -> Result<TriMesh, MeshError>;
    /// Squares per side when none are given.
    fn default_cells(&self) -> usize;
    /// The equation, its boundary conditions and exact solution.
    fn problem(&self) -> HelmholtzProblem;
}

/// Every elliptic case.
pub fn all() -> Vec<Box<dyn EllipticCase>> {
    vec![Box::new(HelmholtzSquare)]
}

/// Seed 004's test: on [0, 1]², u = sin 2πx sin 2πy, λ = 1, u = 0 on the boundary.
pub struct HelmholtzSquare;

impl EllipticCase for HelmholtzSquare {
    fn name(&self) -> &'static str {
        "helmholtz-square"
    }
    fn description(&self) -> &'static str {
        "−Δu + u = f on [0,1]², u = sin 2πx sin 2πy, Dirichlet (seed 004, hybridizable DG; exact solution)"
    }
    fn mesh(&self, n: usize) -> Result<TriMesh, MeshError> {
        rectangle(&RectangleSpec::unit_square(n))
    }
    fn default_cells(&self) -> usize {
        40
    }
    fn problem(&self) -> HelmholtzProblem {
        HelmholtzProblem::helmholtz_square()
    }
}
