//! `dg run` and `dg convergence` for the elliptic cases (seed 004, hybridizable DG on triangles): on a device, the
//! generated kernels (each element's condensed matrix by one work group, ELLPACK assembly without atomics,
//! preconditioned conjugate gradients, batched recovery); on the native CPU path, the trace system solved by a
//! sparse Cholesky factorisation.

use super::convergence::ConvergenceArgs;
use super::run::{Precision, RunArgs};
use anyhow::{bail, Context};
use dg_cases::elliptic::EllipticCase;
use dg_hdg::DeviceOptions;
use dg_run::elliptic_run::{elliptic_study, run_elliptic};

/// The device of `--device` (`auto` when not given: the first GPU, else the native CPU path) and the HDG options of
/// `--variant` (a preconditioner, the element solve, a local width and/or `no-refine`, e.g.
/// `block-jacobi/cublas-lu/w128`).
fn open_elliptic_device(
    b: &super::mesh_args::BackendArgs,
) -> anyhow::Result<Option<(Box<dyn dg_runtime::backend::Device>, DeviceOptions)>> {
    let device = b.open("auto")?;
    let mut options = match &b.variant {
        Some(spec) => DeviceOptions::from_variant(spec)?,
        None => DeviceOptions::default(),
    };
    options.baseline_only = b.no_tune;
    match device {
        Some(d) => Ok(Some((d, options))),
        None if b.variant.is_some() => bail!("--variant chooses the device path's kernels: give a --device"),
        None => Ok(None),
    }
}

/// `dg run` of an elliptic case.
pub fn run(args: RunArgs, case: Box<dyn EllipticCase>) -> anyhow::Result<()> {
    let (m, s, b) = (&args.mesh, &args.solver, &args.backend);
    if m.mesh.is_some() || m.ny.is_some() || m.refine > 0 || m.perturb.is_some() {
        bail!("{} runs on n × n squares cut in two: give --nx (squares per side) only", case.name());
    }
    let timed = s.scheme.is_some() || s.dt.is_some() || s.cfl.is_some() || args.t_end.is_some();
    if timed || s.flux.is_some() || s.limiter || s.no_limiter || !s.bc.is_empty() || s.no_cleaning {
        bail!("{} is a steady elliptic problem: it takes --order and --nx; time-stepping, flux, limiter and --bc options do not apply", case.name());
    }
    if args.out_every.is_some() || args.png.is_some() || args.checkpoint_every.is_some() || args.checkpoint.is_some() {
        bail!(
            "{} is steady: it prints its report (--json) and writes the solution u with --out FILE.vtu; --out-every, \
             --png and restart files do not apply",
            case.name()
        );
    }
    if b.formulation.is_some() || args.schedule.is_some() || args.exchange.is_some() {
        bail!("{} runs with hybridizable DG: --formulation, --schedule and --exchange do not apply", case.name());
    }
    if matches!(args.precision(), Precision::F32) {
        bail!("{} solves in f64 only", case.name());
    }
    let squares = m.nx.unwrap_or(case.default_cells());
    // checked before a device opens (a device, a CUDA note, then the refusal)
    let order = args.order.unwrap_or(3);
    let max = dg_core::triangle::MAX_ORDER;
    if !(1..=max).contains(&order) || squares == 0 {
        bail!("{} takes --order 1..={max} and --nx at least 1 (got --order {order}, --nx {squares})", case.name());
    }
    if let Some(spec) = &b.variant {
        DeviceOptions::from_variant(spec)?;
    }
    crate::memory::ensure_fits(
        crate::memory::ElementKind::HdgTriangle,
        2 * squares as u128 * squares as u128,
        &format!("--nx {squares}"),
    )?;
    let mut device = open_elliptic_device(b)?;
    let on = device.as_mut().map(|(d, o)| (d.as_mut(), &*o));
    let report = run_elliptic(case.as_ref(), order, squares, on, args.out.as_deref())
        .with_context(|| format!("solving {} at P = {order}", case.name()))?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(());
    }
    print_report(&report);
    args.print_outputs(0);
    Ok(())
}

/// The text report of an elliptic run.
fn print_report(report: &dg_run::elliptic_run::EllipticReport) {
    let r = report;
    println!("case        {} ({})", r.case, r.formulation);
    println!("mesh        {0} × {0} squares cut in two: {1} triangles, {2} edges", r.squares, r.elements, r.edges);
    println!(
        "traces      {} unknowns, {} non-zeros in K (at most {} a row)",
        r.trace_unknowns, r.nonzeros, r.row_width
    );
    if let (Some(l2), Some(max)) = (r.l2_error, r.max_error) {
        println!("errors      L2 {l2:.6e}, L∞ {max:.6e} at P = {}", r.order);
    }
    let t = &r.seconds;
    println!(
        "time        {:.3} s on {}: local {:.3} s, assembly {:.3} s, solve {:.3} s, recovery {:.3} s",
        r.total_seconds, r.device, t.local, t.assembly, t.solve, t.recovery
    );
    if let Some(d) = &r.device_run {
        let k = &d.kernel_seconds;
        println!(
            "kernels     local {:.4} s ({} width {}, {:.1} GFLOP/s), assembly {:.4} s, CG {:.4} s, recovery {:.4} s; set-up {:.3} s on the host",
            k.local, d.local_solve.name(), d.local_width, d.local_gflops, k.assembly, k.solve, k.recovery, d.setup_seconds
        );
        let trials: Vec<String> = d
            .local_trials
            .iter()
            .map(|t| format!("{}/w{} {:.4} s ({:.0e})", t.solve.name(), t.width, t.seconds, t.error))
            .collect();
        println!("local       candidates (device s, largest difference from the CPU's Kᵉ): {}", trials.join(", "));
        for r in &d.local_refused {
            println!("set aside   {}: {}", r.variant, r.reason);
        }
        println!("chosen      {} ({})", d.local_choice.source, d.local_choice.detail);
        if let Some(g) = &d.gemm_reference {
            println!(
                "cuBLAS      batched DGEMM on the element shapes ({}×{} · {}×{}, {} matrices): {:.1} GFLOP/s ({:.4} s)",
                g.m, g.k, g.k, g.n, g.batch, g.gflops, g.seconds
            );
        }
        println!(
            "solver      conjugate gradients, {} preconditioner: {} iterations to |r|/|r₀| = {:.2e}",
            d.preconditioner.name(),
            d.iterations,
            d.relative_residual
        );
        if let Some(relative) = d.refinement_relative_residual {
            println!(
                "refinement  one step of the uncondensed system: {} CG iterations to |r|/|r₀| = {:.2e}, {:.4} s in \
                 kernels",
                d.refinement_iterations, relative, d.refinement_seconds
            );
        } else {
            println!("refinement  none (the condensed solve alone)");
        }
    }
}

/// `dg convergence` of an elliptic case: every order on `levels` meshes, each with twice the squares per side.
pub fn convergence(args: ConvergenceArgs, case: Box<dyn EllipticCase>) -> anyhow::Result<()> {
    let m = &args.mesh;
    if m.mesh.is_some() || m.ny.is_some() || m.refine > 0 || m.perturb.is_some() || args.t_end.is_some() {
        bail!(
            "{} converges on n × n squares cut in two: give --nx (the coarsest mesh's squares per side) only",
            case.name()
        );
    }
    if args.backend.formulation.is_some() {
        bail!("{} runs with hybridizable DG: --formulation does not apply", case.name());
    }
    let mut device = open_elliptic_device(&args.backend)?;
    let on = device.as_mut().map(|(d, o)| (d.as_mut(), &*o));
    let base = m.nx.unwrap_or(4);
    let rows = elliptic_study(case.as_ref(), args.orders.clone(), u32::from(args.levels), base, on)
        .with_context(|| format!("the convergence study of {}", case.name()))?;
    if args.json {
        let doc: Vec<_> = rows
            .iter()
            .map(|(r, rates)| {
                serde_json::json!({"report": r, "l2_rate": rates.map(|x| x.0), "max_rate": rates.map(|x| x.1)})
            })
            .collect();
        println!("{}", serde_json::to_string_pretty(&serde_json::json!({ "case": case.name(), "runs": doc }))?);
        return Ok(());
    }
    let on = rows.first().map_or("cpu".to_string(), |r| r.0.device.clone());
    println!("{} (hybridizable DG, {on}): errors and rates per halving of h", case.name());
    println!("{:>3} {:>6} {:>9} {:>13} {:>6} {:>13} {:>6}", "P", "n", "triangles", "L2", "rate", "L∞", "rate");
    for (r, rates) in &rows {
        let rate = |x: Option<f64>| x.map_or("-".to_string(), |v| format!("{v:.2}"));
        println!(
            "{:>3} {:>6} {:>9} {:>13.4e} {:>6} {:>13.4e} {:>6}",
            r.order,
            r.squares,
            r.elements,
            r.l2_error.unwrap_or(f64::NAN),
            rate(rates.map(|x| x.0)),
            r.max_error.unwrap_or(f64::NAN),
            rate(rates.map(|x| x.1))
        );
    }
    Ok(())
}
