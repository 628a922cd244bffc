//! Hybridizable discontinuous Galerkin for elliptic problems on triangles (seed 004): −∇·(κ∇u) + λu = f with
//! Dirichlet and Neumann boundaries, the modal Dubiner basis in each element, a Legendre trace basis on each edge,
//! τ = 1.
//!
//! This crate holds the CPU reference: each element's matrices and its condensation onto its traces
//! ([`local`]), the global trace system assembled without atomics and solved by a sparse Cholesky factorisation,
//! and the recovery of u ([`global`]). The device path (batched local generation, ELLPACK assembly, conjugate
//! gradients) builds on it.

pub mod global;
pub mod local;

pub use global::{solve_cpu, HdgSolution, StageSeconds, TraceSpace, TraceSystem};

/// What can go wrong in an HDG solve.
#[derive(Debug, thiserror::Error)]
pub enum HdgError {
    /// Bad order or mesh.
    #[error(transparent)]
    Core(#[from] dg_core::CoreError),
    /// A mesh that does not connect.
    #[error(transparent)]
    Mesh(#[from] dg_core::MeshError),
    /// An element's local matrix A is singular (a degenerate element or κ ≤ 0).
    #[error("an element's local matrix A is singular (degenerate element, or κ not positive)")]
    SingularLocal,
    /// The trace system could not be factorised or solved.
    #[error("the trace system could not be solved: {0}")]
    Solver(String),
    /// Bad coefficients.
    #[error("{0}")]
    Problem(String),
}

/// A source, boundary value or exact solution: a function of (x, y).
pub type Field = Box<dyn Fn(f64, f64) -> f64 + Sync + Send>;

/// A Neumann flux κ∂u/∂n: a function of (x, y, nx, ny) with n the outward normal.
pub type Flux = Box<dyn Fn(f64, f64, f64, f64) -> f64 + Sync + Send>;

/// −∇·(κ∇u) + λu = f, u = g_D on the boundary but for the Neumann tags, where κ∂u/∂n = g_N.
pub struct HelmholtzProblem {
    /// κ > 0 (constant).
    pub kappa: f64,
    /// λ ≥ 0 (constant).
    pub lambda: f64,
    /// f.
    pub source: Field,
    /// g_D.
    pub dirichlet: Field,
    /// Boundary tags (indices into the mesh's tag names) with a Neumann condition.
    pub neumann_tags: Vec<usize>,
    /// g_N, needed where `neumann_tags` is not empty.
    pub neumann: Option<Flux>,
    /// The exact solution, where known.
    pub exact: Option<Field>,
}

impl HelmholtzProblem {
    /// Seed 004's test: on [0, 1]², u = sin 2πx sin 2πy, λ = 1, κ = 1, u = 0 on the boundary, so
    /// f = (8π² + 1) sin 2πx sin 2πy.
    pub fn helmholtz_square() -> Self {
        use std::f64::consts::PI;
        let u = |x: f64, y: f64| (2.0 * PI * x).sin() * (2.0 * PI * y).sin();
        Self {
            kappa: 1.0,
            lambda: 1.0,
            source: Box::new(move |x, y| (8.0 * PI * PI + 1.0) * u(x, y)),
            dirichlet: Box::new(|_, _| 0.0),
            neumann_tags: Vec::new(),
            neumann: None,
            exact: Some(Box::new(u)),
        }
    }

    /// Checks the coefficients.
    pub fn check(&self) -> Result<(), HdgError> {
        if !(self.kappa > 0.0 && self.kappa.is_finite()) {
            return Err(HdgError::Problem(format!("κ must be a positive number (got {})", self.kappa)));
        }
        if !(self.lambda >= 0.0 && self.lambda.is_finite()) {
            return Err(HdgError::Problem(format!("λ must be a non-negative number (got {})", self.lambda)));
        }
        if !self.neumann_tags.is_empty() && self.neumann.is_none() {
            return Err(HdgError::Problem("Neumann tags given without a Neumann flux".into()));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
