//! Runs of the elliptic cases (seed 004, hybridizable DG on triangles): one solve with its report, on the native CPU
//! path (sparse Cholesky) or a device (generated kernels: batched local generation, ELLPACK assembly, conjugate
//! gradients), and the study over orders and meshes.

use crate::error::RunError;
use crate::winners::VariantChoice;
use dg_cases::elliptic::EllipticCase;
use dg_hdg::tuning::{entry_of, tuning_key, variant_name};
use dg_hdg::{
    solve_cpu, solve_device, DeviceOptions, GemmReference, LocalSolve, LocalTrial, Preconditioner, RefusedCandidate,
    StageSeconds,
};
use dg_runtime::backend::Device;
use dg_runtime::tuning_db;
use serde::Serialize;
use std::collections::BTreeMap;

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
    /// Conjugate-gradient iterations of the refinement step of the uncondensed system.
    pub refinement_iterations: usize,
    /// |r| / |r₀| of the refinement step's correction at the end (`null` without the step).
    pub refinement_relative_residual: Option<f64>,
    /// Device seconds of the refinement step (in the recovery stage's wall clock, not in `kernel_seconds`).
    pub refinement_seconds: f64,
    /// The preconditioner.
    pub preconditioner: Preconditioner,
    /// How the local generation's variant was chosen: `given` (`--variant` named the element solve or the width),
    /// `database` / `database-nearest-size` (the tuning database's winner, the only candidate run and checked),
    /// `tuned` (every candidate timed and checked on this run's mesh, the winner stored in the user database) or
    /// `default` (`--no-tune` without a stored result: the generated element solve at one width).
    pub local_choice: VariantChoice,
    /// The element solve kept (generated Cholesky, or cuBLAS's batched LU).
    pub local_solve: LocalSolve,
    /// The local generation's work-group width.
    pub local_width: usize,
    /// Each candidate timed and checked against the CPU's element solves.
    pub local_trials: Vec<LocalTrial>,
    /// The candidates set aside, with the reason.
    pub local_refused: Vec<RefusedCandidate>,
    /// The local generation's rate, GFLOP/s (`dg_hdg::device::local_flops` per element).
    pub local_gflops: f64,
    /// cuBLAS's batched DGEMM on the local problem's shapes (CUDA only).
    pub gemm_reference: Option<GemmReference>,
}

/// The options a device solve runs with, and how its local generation's variant is chosen: as given when
/// `--variant` names the element solve or the width; else the tuning database's winner for the key (when the device
/// can run it); else every candidate, timed and checked, the winner to be stored.
fn local_choice(
    device: &mut dyn Device,
    problem: &dg_hdg::HelmholtzProblem,
    order: usize,
    elements: usize,
    options: &DeviceOptions,
) -> (DeviceOptions, VariantChoice) {
    let started = std::time::Instant::now();
    if options.local_solve.is_some() || options.local_width.is_some() {
        return (*options, VariantChoice::given(String::new()));
    }
    let fp = device.fingerprint().clone();
    let key = tuning_key(problem, order, elements);
    // this device's result, else one of another device of its architecture
    let results = crate::shipped_db::results(&fp, &mut |w| eprintln!("{w}"));
    if let Some(found) = results.find(&key) {
        match DeviceOptions::from_variant(&found.entry.winner) {
            Ok(stored) if stored.local_solve != Some(LocalSolve::CublasLu) || device.supports_gemm() => {
                let choice = VariantChoice::from_database(&found, &fp.driver, started);
                eprintln!("tuning database: {} (the other candidates not timed)", choice.detail);
                let options =
                    DeviceOptions { local_solve: stored.local_solve, local_width: stored.local_width, ..*options };
                return (options, choice);
            }
            _ => eprintln!(
                "warning: the local variant `{}` stored in {} does not run here; timing every candidate",
                found.entry.winner, found.origin
            ),
        }
    }
    let miss = crate::winners::miss_reason(&results.own, &key);
    if options.baseline_only {
        let detail = format!("{miss}; --no-tune: the baseline (the generated element solve)");
        eprintln!("{detail}");
        return (*options, VariantChoice { variant: String::new(), source: "default", detail, seconds: 0.0 });
    }
    let detail = format!("{miss}: every local candidate timed and checked");
    let choice = VariantChoice { variant: String::new(), source: "tuned", detail, seconds: 0.0 };
    (*options, choice)
}

/// One row of a convergence study: the solve and its rates (L2, L∞) against the previous, coarser mesh.
pub type StudyRow = (EllipticReport, Option<(f64, f64)>);

/// Solves `case` at degree `order` on `n` × `n` squares cut in two: on `device` with `options` where one is given,
/// else on the native CPU path; writes the solution u to `vtu` (Lagrange triangles of degree `order`) if given.
pub fn run_elliptic(
    case: &dyn EllipticCase,
    order: usize,
    n: usize,
    device: Option<(&mut (dyn Device + 'static), &DeviceOptions)>,
    vtu: Option<&std::path::Path>,
) -> Result<EllipticReport, RunError> {
    if n == 0 {
        return Err(RunError::InvalidOption("--nx must be at least 1 (squares per side)".into()));
    }
    let mesh = case.mesh(n).map_err(dg_core::space::SpaceError::from)?;
    let problem = case.problem();
    let (s, where_, device_run) = match device {
        None => (solve_cpu(&mesh, order, &problem)?, "cpu".to_string(), None),
        Some((device, options)) => {
            let fp = device.fingerprint().clone();
            let name = format!("{} {}", fp.selector, fp.name);
            let started = std::time::Instant::now();
            let (options, mut choice) = local_choice(device, &problem, order, mesh.num_elements(), options);
            let d = solve_device(device, &mesh, order, &problem, &options)?;
            if choice.source == "tuned" {
                let key = tuning_key(&problem, order, mesh.num_elements());
                let entry = entry_of(&d, mesh.num_elements(), &fp.driver);
                let stored = tuning_db::merge_into(
                    &tuning_db::user_dir(),
                    &fp,
                    BTreeMap::from([(key.to_string(), entry)]),
                    None,
                );
                choice.detail = match stored {
                    Ok(path) => format!("{}; the winner stored in {}", choice.detail, path.display()),
                    Err(e) => format!("{}: not stored ({e})", choice.detail),
                };
                eprintln!("{}", choice.detail);
            }
            choice.variant = variant_name(d.local_solve, d.local_width);
            choice.seconds = started.elapsed().as_secs_f64();
            let run = EllipticDeviceRun {
                setup_seconds: d.setup_seconds,
                kernel_seconds: d.device_seconds,
                iterations: d.iterations,
                relative_residual: d.relative_residual,
                refinement_iterations: d.refinement_iterations,
                refinement_relative_residual: d.refinement_relative_residual,
                refinement_seconds: d.refinement_seconds,
                preconditioner: d.preconditioner,
                local_choice: choice,
                local_solve: d.local_solve,
                local_width: d.local_width,
                local_trials: d.local_trials,
                local_refused: d.local_refused,
                local_gflops: d.local_gflops,
                gemm_reference: d.gemm_reference,
            };
            (d.solution, name, Some(run))
        }
    };
    if let Some(path) = vtu {
        // u in each element's orthonormal Dubiner basis, the basis `write_vtu_modal` evaluates
        let u: Vec<f64> = s.u.iter().flatten().copied().collect();
        dg_core::vtu::write_vtu_modal(path, &mesh, order, &[dg_core::vtu::Field { name: "u", values: &u }])?;
    }
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
            let r = run_elliptic(case, order, n, on, None)?;
            let (l2, max) = (r.l2_error.unwrap_or(f64::NAN), r.max_error.unwrap_or(f64::NAN));
            let rates = last.map(|(a, b)| ((a / l2).log2(), (b / max).log2()));
            last = Some((l2, max));
            rows.push((r, rates));
        }
    }
    Ok(rows)
}
