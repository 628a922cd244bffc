//! Runs of the elliptic cases (seed 004, hybridizable DG on triangles) on the native CPU path: one solve with its
//! report, and the study over orders and meshes. The batched device path is not built yet.

use crate::error::RunError;
use dg_cases::elliptic::EllipticCase;
use dg_hdg::solve_cpu;
use serde::Serialize;

/// What one solve reports.
#[derive(Debug, Clone, Serialize)]
pub struct EllipticReport {
    /// Case name.
    pub case: &'static str,
    /// The discretisation.
    pub formulation: &'static str,
    /// Where it ran.
    pub device: &'static str,
    /// Degree P.
    pub order: usize,
    /// Squares per side.
    pub squares: usize,
    /// Triangles.
    pub elements: usize,
    /// Edges (P + 1 trace unknowns each).
    pub edges: usize,
    /// Trace unknowns solved for (Dirichlet traces excluded).
    pub trace_unknowns: usize,
    /// Stored non-zeros of K.
    pub nonzeros: usize,
    /// The most non-zeros of a row of K (at most 5(P + 1) on triangles).
    pub row_width: usize,
    /// L2 error against the exact solution.
    pub l2_error: Option<f64>,
    /// Largest pointwise error found.
    pub max_error: Option<f64>,
    /// Stage seconds.
    pub seconds: EllipticStages,
}

/// Seconds of each stage of a solve.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct EllipticStages {
    /// Local matrices, their factorisation and condensation.
    pub local: f64,
    /// Assembly of K and the load.
    pub assembly: f64,
    /// The trace system's solve.
    pub solve: f64,
    /// Recovery of u and the errors.
    pub recovery: f64,
    /// The four together.
    pub total: f64,
}

/// One row of a convergence study: the solve and its rates (L2, L∞) against the previous, coarser mesh.
pub type StudyRow = (EllipticReport, Option<(f64, f64)>);

/// Solves `case` at degree `order` on `n` × `n` squares cut in two.
pub fn run_elliptic(case: &dyn EllipticCase, order: usize, n: usize) -> Result<EllipticReport, RunError> {
    if n == 0 {
        return Err(RunError::InvalidOption("--nx must be at least 1 (squares per side)".into()));
    }
    let mesh = case.mesh(n).map_err(dg_core::space::SpaceError::from)?;
    let s = solve_cpu(&mesh, order, &case.problem())?;
    let t = s.seconds;
    Ok(EllipticReport {
        case: case.name(),
        formulation: "hdg (modal Dubiner, Legendre traces, τ = 1)",
        device: "cpu",
        order,
        squares: n,
        elements: mesh.num_elements(),
        edges: s.traces.len() / (order + 1),
        trace_unknowns: s.unknowns,
        nonzeros: s.nonzeros,
        row_width: s.row_width,
        l2_error: s.l2_error,
        max_error: s.max_error,
        seconds: EllipticStages {
            local: t.local,
            assembly: t.assembly,
            solve: t.solve,
            recovery: t.recovery,
            total: t.local + t.assembly + t.solve + t.recovery,
        },
    })
}

/// Every order of `orders` on `levels` meshes from `base` squares per side, each with twice the squares of the last.
pub fn elliptic_study(
    case: &dyn EllipticCase,
    orders: std::ops::RangeInclusive<usize>,
    levels: u32,
    base: usize,
) -> Result<Vec<StudyRow>, RunError> {
    let mut rows = Vec::new();
    for order in orders {
        let mut last: Option<(f64, f64)> = None;
        for level in 0..levels {
            let n = 1usize
                .checked_shl(level)
                .and_then(|f| base.checked_mul(f))
                .ok_or_else(|| RunError::InvalidOption("the finest mesh is too large".into()))?;
            let r = run_elliptic(case, order, n)?;
            let (l2, max) = (r.l2_error.unwrap_or(f64::NAN), r.max_error.unwrap_or(f64::NAN));
            let rates = last.map(|(a, b)| ((a / l2).log2(), (b / max).log2()));
            last = Some((l2, max));
            rows.push((r, rates));
        }
    }
    Ok(rows)
}
