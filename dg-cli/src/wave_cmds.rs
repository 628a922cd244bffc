//! `dg run` and `dg convergence` for the 3D wave cases (tetrahedra, nodal formulation, seed 002).

use super::convergence::{print_study, study_bar, study_progress, ConvergenceArgs};
use super::mesh_args::BackendArgs;
use super::run::RunArgs;
use anyhow::{bail, Context};
use dg_cases::waves::WaveCase;
use dg_core::mesh3d::{refine_uniform_tet, TetMesh};
use dg_parallel::comm::Communicator;
use dg_run::formulations::FormulationId;
use dg_run::partitioned_tet::run_tet_partitioned;
use dg_run::wave_run::{run_wave, wave_convergence, WaveOptions, WaveOutcome};
use dg_runtime::backend::Device;

/// Options shared by `run` and `convergence` of a wave case.
fn options(
    case: &dyn WaveCase,
    args: &super::mesh_args::SolverArgs,
    order: usize,
    t_end: Option<f64>,
    backend: &BackendArgs,
) -> anyhow::Result<WaveOptions> {
    if args.flux.is_some() || args.limiter || args.no_limiter {
        bail!("--flux and --limiter apply to Euler cases only (wave cases use the upwind flux of seed 002)");
    }
    super::exact_domain::ensure_exact_conditions(case.name(), &case.boundary_conditions(), &args.bc)?;
    Ok(WaveOptions {
        order,
        scheme: args.scheme.unwrap_or(dg_runtime::time::Scheme::Lsrk45),
        common: args.common(t_end, backend),
    })
}

/// The case's box with `--nx` hexahedra along its shortest side, or a Gmsh tetrahedral mesh (`--mesh`), refined
/// `--refine` times.
fn mesh(args: &super::mesh_args::MeshArgs, case: &dyn WaveCase) -> anyhow::Result<TetMesh> {
    if args.ny.is_some() || args.perturb.is_some() {
        bail!("wave cases take --nx (hexahedra along the box's shortest side) or --mesh, and --refine");
    }
    if args.refine > 4 {
        bail!("--refine {} would multiply the element count by 8^{}; use at most 4", args.refine, args.refine);
    }
    let tetrahedra = crate::memory::ElementKind::Tetrahedron;
    let mut mesh = match &args.mesh {
        Some(path) => {
            let mesh = dg_core::mesh3d::read_gmsh_tet(path)
                .with_context(|| format!("cannot use tetrahedral mesh {}", path.display()))?;
            let own = case.box_spec(1);
            super::exact_domain::ensure_tetrahedra(case.name(), path, &mesh, (own.lower, own.upper, own.periodic))?;
            let asked = format!("--mesh {}", path.display());
            args.ensure_refined_kind_fits(tetrahedra, 8, mesh.elements.len() as u128, &asked)?;
            mesh
        }
        None => {
            let n = args.nx.unwrap_or(case.default_cells());
            if n == 0 || n > 512 {
                bail!("--nx must be between 1 and 512 (got {n})");
            }
            // at least n³ hexahedra of five tetrahedra each (n along the box's shortest side)
            args.ensure_refined_kind_fits(tetrahedra, 8, 5 * (n as u128).pow(3), &format!("--nx {n}"))?;
            case.mesh(n).with_context(|| format!("cannot mesh the box of {}", case.name()))?
        }
    };
    for _ in 0..args.refine {
        mesh = refine_uniform_tet(&mesh)?;
    }
    Ok(mesh)
}

/// `dg run` of a wave case.
pub fn run(args: RunArgs, case: Box<dyn WaveCase>) -> anyhow::Result<()> {
    if args.png.is_some() {
        bail!("--png does not apply to wave cases (--out writes a VTU file)");
    }
    args.backend.formulation(case.name(), &[FormulationId::NodalTet])?;
    args.backend.warm_up("auto");
    let order = args.order.unwrap_or(3);
    let mut opts = options(case.as_ref(), &args.solver, order, args.t_end, &args.backend)?;
    opts.common.output = args.output(case.name());
    let mesh = mesh(&args.mesh, case.as_ref())?;
    dg_runtime::startup::mark("mesh");
    let mut device = args.backend.open("auto")?;
    let device = device.as_deref_mut().map(|d| -> &mut dyn Device { d });
    let bar = super::run::time_bar(format!("{} N={order} K={}", case.name(), mesh.num_elements()));
    let mut progress = |t: f64, t_end: f64| super::run::advance(&bar, t, t_end);
    let outcome = run_wave(args.precision().into(), case.as_ref(), mesh, &opts, device, &mut progress)?;
    bar.finish_and_clear();
    print_report(&outcome, args.json)?;
    args.print_outputs(outcome.report.steps);
    Ok(())
}

/// `dg run` of a tetrahedral wave case split over the MPI ranks of `comm` (the native CPU path on every rank);
/// rank 0 prints one report with each rank's elements, halo, compute and exchange seconds (`"ranks"` in `--json`).
pub fn run_over_ranks(args: RunArgs, case: Box<dyn WaveCase>, comm: &dyn Communicator) -> anyhow::Result<()> {
    let order = args.order.unwrap_or(3);
    let ready = || {
        if args.png.is_some() {
            bail!("--png does not apply to wave cases (--out writes a VTU file)");
        }
        super::ranks::refuse_devices(&args, "a tetrahedral")?;
        args.backend.formulation(case.name(), &[FormulationId::NodalTet])?;
        let mut opts = options(case.as_ref(), &args.solver, order, args.t_end, &args.backend)?;
        opts.common.output = args.output(case.name());
        opts.common.partition = args.partition.unwrap_or_default();
        Ok((opts, mesh(&args.mesh, case.as_ref())?))
    };
    let (opts, mesh) = super::ranks::agree(comm, args.json, ready())?;
    let bar = super::ranks::rank_bar(&args, comm, format!("{} N={order} K={}", case.name(), mesh.num_elements()));
    let mut progress = |t: f64, t_end: f64| super::run::advance(&bar, t, t_end);
    let outcome = run_tet_partitioned(args.precision().into(), case.as_ref(), &mesh, &opts, comm, &mut progress)?;
    bar.finish_and_clear();
    let Some(report) = outcome.report else { return Ok(()) };
    if args.json {
        return super::ranks::print_json(&report, &outcome.ranks, None, outcome.partition.as_ref());
    }
    print_report(&WaveOutcome { report, device: None }, false)?;
    super::ranks::print_ranks(&outcome.ranks, outcome.partition.as_ref(), args.out.as_deref(), comm.size());
    Ok(())
}

fn print_report(outcome: &WaveOutcome, json: bool) -> anyhow::Result<()> {
    let r = &outcome.report;
    if json {
        let mut doc = serde_json::to_value(r)?;
        doc["device"] = serde_json::to_value(&outcome.device)?;
        doc["startup"] = super::run::startup_json();
        println!("{}", serde_json::to_string_pretty(&doc)?);
        return Ok(());
    }
    println!("case        {} ({}, nodal-tet, upwind flux)", r.case, r.law);
    println!("mesh        {} tetrahedra, h = {:.4}, N = {}, {} nodes", r.elements, r.h, r.order, r.nodes);
    println!("time        t = {} in {} steps of {:.3e} ({})", r.t_end, r.steps, r.dt, r.scheme);
    println!("L2 error    {:.6e} (relative {:.3e})", r.l2_error, r.relative_l2_error);
    if let Some(c) = &r.coefficients {
        println!(
            "interface   R = {:.6} (analytic {:.6}), T = {:.6} (analytic {:.6})",
            c.reflection, c.reflection_exact, c.transmission, c.transmission_exact
        );
    }
    let per = r.wall_seconds / (r.nodes as f64 * r.steps as f64);
    let place = if outcome.device.is_some() { "" } else { " (native CPU)" };
    println!("wall        {:.3} s, {per:.3e} s per node per step{place}", r.wall_seconds);
    if let Some(info) = &outcome.device {
        super::run::print_device(info);
    }
    Ok(())
}

/// `dg convergence` of a wave case.
pub fn convergence(args: ConvergenceArgs, case: Box<dyn WaveCase>) -> anyhow::Result<()> {
    args.backend.formulation(case.name(), &[FormulationId::NodalTet])?;
    if args.levels > 6 {
        bail!("--levels must be between 2 and 6 for 3D cases (got {})", args.levels);
    }
    if args.mesh.mesh.is_some() || args.mesh.ny.is_some() || args.mesh.perturb.is_some() || args.mesh.refine > 0 {
        bail!("wave convergence studies use the case's box: give --nx (base hexahedra along the shortest side) only");
    }
    let base = args.mesh.nx.unwrap_or(case.default_cells());
    let opts = options(case.as_ref(), &args.solver, *args.orders.start(), args.t_end, &args.backend)?;
    let mut device = args.backend.open("cpu")?;
    let device = device.as_deref_mut().map(|d| -> &mut dyn Device { d });
    let bar = study_bar(&args);
    let mut progress = |order, level| study_progress(&bar, &args, order, level);
    let (orders, levels) = (args.orders.clone(), args.levels as usize);
    let study = wave_convergence(case.as_ref(), base, orders, levels, &opts, device, &mut progress)
        .context("convergence study failed")?;
    bar.finish_and_clear();
    print_study(&study, args.json)
}
