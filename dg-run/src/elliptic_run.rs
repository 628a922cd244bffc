//! Runs of the elliptic cases (seed 004, hybridizable DG on triangles): one solve with its report, on the native CPU
//! path (sparse Cholesky) or a device (generated kernels: batched local generation, ELLPACK assembly, conjugate
//! gradients), and the study over orders and meshes.

use crate::error::RunError;
use dg_cases::elliptic::EllipticCase;
use dg_hdg::{solve_cpu, solve_device, DeviceOptions, Preconditioner, StageSeconds};
use dg_runtime::backend::Device;
use serde::Serialize;

/// What one solve reports.
#[derive(Debug, Clone, Serialize)]
pub struct EllipticReport {
    /// Case name.
    pub case: &'static str,
    /// The discretisation.
    pub formulation: &'static str,
    /// Where it ran (`cpu`, or the device's selector and name).
    pub device: String,
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
    /// Stored non-zeros of K (on a device: the ELLPACK entries that are not padding).
    pub nonzeros: usize,
    /// The most non-zeros of a row of K (at most 5(P + 1) on triangles).
    pub row_width: usize,
    /// L2 error against the exact solution.
    pub l2_error: Option<f64>,
    /// Largest pointwise error found.
    pub max_error: Option<f64>,
    /// Stage seconds (host wall-clock around each stage; on a device, waiting for its kernels).
    pub seconds: StageSeconds,
    /// The four stages together.
    pub total_seconds: f64,
    /// What the device did, on a device.
    pub device_run: Option<EllipticDeviceRun>,
}

/// What a device solve did.
#[derive(Debug, Clone, Serialize)]
pub struct EllipticDeviceRun {
    /// Host seconds before the first kernel (tables, edge lists, loads, compilation, uploads).
    pub setup_seconds: f64,
    /// Device seconds of each stage's kernels (device events).
    pub kernel_seconds: StageSeconds,
    /// Conjugate-gradient iterations.
    pub iterations: usize,
    /// |r| / |r₀| at the end.
    pub relative_residual: f64,
    /// The preconditioner.
    pub preconditioner: Preconditioner,
    /// The local generation's work-group width.
    pub local_width: usize,
    /// Each width timed: (width, device seconds).
    pub local_trials: Vec<(usize, f64)>,
    /// The local generation's rate, GFLOP/s (`dg_hdg::device::local_flops` per element).
    pub local_gflops: f64,
}

/// One row of a convergence study: the solve and its rates (L2, L∞) against the previous, coarser mesh.
pub type StudyRow = (EllipticReport, Option<(f64, f64)>);

/// Solves `case` at degree `order` on `n` × `n` squares cut in two: on `device` with `options` where one is given,
/// else on the native CPU path.
pub fn run_elliptic(
    case: &dyn EllipticCase,
    order: usize,
    n: usize,
    device: Option<(&mut (dyn Device + 'static), &DeviceOptions)>,
) -> Result<EllipticReport, RunError> {
    if n == 0 {
        return Err(RunError::InvalidOption("--nx must be at least 1 (squares per side)".into()));
    }
    let mesh = case.mesh(n).map_err(dg_core::space::SpaceError::from)?;
    let problem = case.problem();
    let (s, where_, device_run) = match device {
        None => (solve_cpu(&mesh, order, &problem)?, "cpu".to_string(), None),
        Some((device, options)) => {
            let fp = device.fingerprint();
            let name = format!("{} {}", fp.selector, fp.name);
            let d = solve_device(device, &mesh, order, &problem, options)?;
            let run = EllipticDeviceRun {
                setup_seconds: d.setup_seconds,
                kernel_seconds: d.device_seconds,
                iterations: d.iterations,
                relative_residual: d.relative_residual,
                preconditioner: d.preconditioner,
                local_width: d.local_width,
                local_trials: d.local_trials,
                local_gflops: d.local_gflops,
            };
            (d.solution, name, Some(run))
        }
    };
    Ok(EllipticReport {
        case: case.name(),
        formulation: "hdg (modal Dubiner, Legendre traces, τ = 1)",
        device: where_,
        order,
        squares: n,
        elements: mesh.num_elements(),
        edges: s.traces.len() / (order + 1),
        trace_unknowns: s.unknowns,
        nonzeros: s.nonzeros,
        row_width: s.row_width,
        l2_error: s.l2_error,
        max_error: s.max_error,
        seconds: s.seconds,
        total_seconds: s.seconds.total(),
        device_run,
    })
}

/// Every order of `orders` on `levels` meshes from `base` squares per side, each with twice the squares of the last.
pub fn elliptic_study(
    case: &dyn EllipticCase,
    orders: std::ops::RangeInclusive<usize>,
    levels: u32,
    base: usize,
    mut device: Option<(&mut (dyn Device + 'static), &DeviceOptions)>,
) -> Result<Vec<StudyRow>, RunError> {
    let mut rows = Vec::new();
    for order in orders {
        let mut last: Option<(f64, f64)> = None;
        for level in 0..levels {
            let n = 1usize
                .checked_shl(level)
                .and_then(|f| base.checked_mul(f))
                .ok_or_else(|| RunError::InvalidOption("the finest mesh is too large".into()))?;
            let on = device.as_mut().map(|(d, o)| (&mut **d, *o));
            let r = run_elliptic(case, order, n, on)?;
            let (l2, max) = (r.l2_error.unwrap_or(f64::NAN), r.max_error.unwrap_or(f64::NAN));
            let rates = last.map(|(a, b)| ((a / l2).log2(), (b / max).log2()));
            last = Some((l2, max));
            rows.push((r, rates));
        }
    }
    Ok(rows)
}
