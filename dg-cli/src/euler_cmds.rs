//! `dg run` and `dg convergence` for Euler cases (modal triangles, or nodal ones for comparison; CPU or device).

use super::convergence::{print_study, study_bar, study_progress, ConvergenceArgs};
use super::run::RunArgs;
use anyhow::{bail, Context};
use dg_cases::euler::EulerCase;
use dg_parallel::comm::Communicator;
use dg_run::euler_run::{run_euler, EulerOutcome};
use dg_run::euler_study::{euler_convergence, run_nodal_euler};
use dg_run::formulations::FormulationId;
use dg_run::partitioned_euler::run_euler_partitioned;
use dg_run::picture::{render_png, ModalField};
use dg_runtime::backend::Device;

/// `dg run` of an Euler case.
pub fn run(args: RunArgs, case: Box<dyn EulerCase>) -> anyhow::Result<()> {
    let formulation = args.backend.formulation(case.name(), &[FormulationId::ModalTri, FormulationId::NodalTri])?;
    refuse_nodal_limiter(formulation, args.solver.limiter)?;
    ensure_euler_bindings(case.as_ref(), &args.solver.bc)?;
    args.backend.warm_up("auto");
    let mesh = args.mesh.build_euler(case.as_ref())?;
    dg_runtime::startup::mark("mesh");
    let mut device = args.backend.open("auto")?;
    let device = device.as_deref_mut().map(|d| -> &mut dyn Device { d });
    let mut opts = args.solver.euler_options(args.order, args.t_end, &args.backend);
    opts.common.output = args.output(case.name());
    let bar = super::run::time_bar(format!("{} K={}", case.name(), mesh.num_elements()));
    let mut progress = |t: f64, t_end: f64| super::run::advance(&bar, t, t_end);
    if formulation == FormulationId::NodalTri {
        if args.png.is_some() {
            bail!("--png draws the modal solution; drop it with --formulation nodal-tri");
        }
        let (outcome, density) =
            run_nodal_euler(args.precision().into(), case.as_ref(), mesh, &opts, device, &mut progress)?;
        bar.finish_and_clear();
        let flux = format!("{} flux", opts.flux.as_deref().unwrap_or(case.default_flux()));
        super::run::print_run(&outcome, args.json, &flux, &[format!("density L2  {density:.6e}")])?;
        args.print_outputs(outcome.report.steps);
        return Ok(());
    }
    let outcome: EulerOutcome = run_euler(args.precision().into(), case.as_ref(), mesh, &opts, device, &mut progress)?;
    bar.finish_and_clear();
    let r = &outcome.report;
    let picture = match &args.png {
        Some(path) => {
            let field = ModalField {
                order: r.order,
                vertices: &outcome.vertices,
                coefficients: &outcome.density_modes,
                modes: outcome.modes,
            };
            let range = render_png(path, &field, args.png_width).with_context(|| "cannot draw the density")?;
            Some((path, range))
        }
        None => None,
    };
    if args.json {
        let mut doc = serde_json::to_value(r)?;
        doc["device"] = serde_json::to_value(&outcome.device)?;
        doc["startup"] = super::run::startup_json();
        println!("{}", serde_json::to_string_pretty(&doc)?);
        return Ok(());
    }
    print_report(r);
    let how = format!("{} RHS evaluations in {:.3} s", r.rhs_evaluations, r.wall_seconds);
    match &outcome.device {
        None => println!("throughput  {:.3e} DOF·RHS/s ({how}, native CPU)", r.throughput),
        Some(info) => {
            println!("throughput  {:.3e} DOF·RHS/s ({how})", r.throughput);
            super::run::print_device(info);
        }
    }
    if let Some((path, (lo, hi))) = picture {
        println!("picture     {} (density {lo:.4} .. {hi:.4})", path.display());
    }
    args.print_outputs(outcome.report.steps);
    Ok(())
}

/// `dg run` of an Euler case split over the MPI ranks of `comm` with the modal formulation (the native CPU path on
/// every rank); rank 0 prints one report with each rank's elements, halo, compute and exchange seconds (`"ranks"`
/// in `--json`).
pub fn run_over_ranks(args: RunArgs, case: Box<dyn EulerCase>, comm: &dyn Communicator) -> anyhow::Result<()> {
    let ready = || {
        if args.png.is_some() {
            bail!(
                "--png draws the density of a run in one process; over MPI ranks give --out FILE.vtu (pieces per rank)"
            );
        }
        let formulation = args.backend.formulation(case.name(), &[FormulationId::ModalTri, FormulationId::NodalTri])?;
        if formulation != FormulationId::ModalTri {
            bail!("an Euler run over MPI ranks takes the modal formulation (drop --formulation nodal-tri)");
        }
        super::ranks::refuse_devices(&args, "an Euler")?;
        ensure_euler_bindings(case.as_ref(), &args.solver.bc)?;
        let mesh = args.mesh.build_euler(case.as_ref())?;
        let mut opts = args.solver.euler_options(args.order, args.t_end, &args.backend);
        opts.common.output = args.output(case.name());
        opts.common.partition = args.partition.unwrap_or_default();
        Ok((mesh, opts))
    };
    let (mesh, opts) = super::ranks::agree(comm, args.json, ready())?;
    let bar = super::ranks::rank_bar(&args, comm, format!("{} K={}", case.name(), mesh.num_elements()));
    let mut progress = |t: f64, t_end: f64| super::run::advance(&bar, t, t_end);
    let outcome = run_euler_partitioned(args.precision().into(), case.as_ref(), &mesh, &opts, comm, &mut progress)?;
    bar.finish_and_clear();
    let Some(report) = outcome.report else { return Ok(()) };
    if args.json {
        return super::ranks::print_json(&report, &outcome.ranks, None, outcome.partition.as_ref());
    }
    print_report(&report);
    println!(
        "throughput  {:.3e} DOF·RHS/s ({} RHS evaluations in {:.3} s, native CPU)",
        report.throughput, report.rhs_evaluations, report.wall_seconds
    );
    super::ranks::print_ranks(&outcome.ranks, outcome.partition.as_ref(), args.out.as_deref(), comm.size());
    Ok(())
}

/// The lines of an Euler report up to its throughput.
fn print_report(r: &dg_run::euler_run::EulerReport) {
    println!(
        "case        {} (euler2d, modal-tri, {} flux{})",
        r.case,
        r.flux,
        if r.limiter { ", limiter" } else { "" }
    );
    println!("mesh        {} elements, h = {:.4}, p = {}, {} DOF ({})", r.elements, r.h, r.order, r.dofs, r.precision);
    println!(
        "time        t = {} in {} steps, dt {:.3e}..{:.3e} ({})",
        r.t_end, r.steps, r.dt_range[0], r.dt_range[1], r.scheme
    );
    if let Some(e) = r.density_l2_error {
        println!("density L2  {e:.6e}");
    }
    println!(
        "mass        {:.12e} → {:.12e} (relative change {:+.3e})",
        r.mass[0],
        r.mass[1],
        (r.mass[1] - r.mass[0]) / r.mass[0]
    );
    println!("minimum     density {:.4e}, pressure {:.4e}", r.min_density, r.min_pressure);
}

/// Refuses a `--bc` (`bc`) that a run of `case` would ignore — on a tag whose state the case prescribes — or that
/// changes a condition the case's exact solution assumes.
fn ensure_euler_bindings(case: &dyn EulerCase, bc: &[(String, String)]) -> anyhow::Result<()> {
    let prescribed = case.prescribed_tags();
    if let Some((tag, condition)) = bc.iter().find(|(tag, _)| prescribed.contains(tag)) {
        bail!(
            "--bc {tag}={condition}: {} prescribes the state on `{tag}` (its boundaries {prescribed:?} take the \
             case's own state, not a law condition), so the binding would be ignored",
            case.name()
        );
    }
    if case.has_exact() {
        super::exact_domain::ensure_exact_conditions(case.name(), &case.law_conditions(), bc)?;
    }
    Ok(())
}

/// `dg convergence` of an Euler case.
pub fn convergence(args: ConvergenceArgs, case: Box<dyn EulerCase>) -> anyhow::Result<()> {
    if !case.has_exact() {
        return Err(super::convergence::no_exact_solution(case.name()));
    }
    let formulation = args.backend.formulation(case.name(), &[FormulationId::ModalTri, FormulationId::NodalTri])?;
    refuse_nodal_limiter(formulation, args.solver.limiter)?;
    ensure_euler_bindings(case.as_ref(), &args.solver.bc)?;
    let base = args.mesh.build_euler(case.as_ref())?;
    super::convergence::finest_level_fits(&args, base.num_elements())?;
    let opts = args.solver.euler_options(None, args.t_end, &args.backend);
    let mut device = args.backend.open("cpu")?;
    let device = device.as_deref_mut().map(|d| -> &mut dyn Device { d });
    let (orders, levels) = (args.orders.clone(), args.levels as usize);
    let bar = study_bar(&args);
    let mut progress = |order, level| study_progress(&bar, &args, order, level);
    let study = euler_convergence(case.as_ref(), &base, orders, levels, formulation, &opts, device, &mut progress)
        .context("convergence study failed")?;
    bar.finish_and_clear();
    print_study(&study, args.json)
}

/// The limiter is the modal formulation's (seed 001's, at p = 1): a nodal Euler run asked for it ran without one and
/// said nothing.
fn refuse_nodal_limiter(formulation: FormulationId, limiter: bool) -> anyhow::Result<()> {
    if formulation == FormulationId::NodalTri && limiter {
        bail!("--limiter is the modal formulation's (seed 001, p = 1); the nodal Euler scheme has none: drop it");
    }
    Ok(())
}
