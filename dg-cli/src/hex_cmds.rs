//! `dg run` and `dg convergence` for the hexahedral cases (seed 003): on a device with the generated hexahedral
//! kernels, or on the native CPU path with the CPU reference operator.

use super::convergence::{print_study, study_bar, study_progress, ConvergenceArgs};
use super::mesh_args::{BackendArgs, MeshArgs, SolverArgs};
use super::run::RunArgs;
use anyhow::{bail, Context};
use dg_cases::hex::HexCase;
use dg_core::hexmesh::HexMesh;
use dg_parallel::comm::Communicator;
use dg_run::formulations::FormulationId;
use dg_run::hex_run::{hex_convergence, run_hex, HexOptions, HexOutcome};
use dg_run::partitioned_hex::run_hex_partitioned;
use dg_runtime::backend::Device;

/// Options shared by `run` and `convergence`.
fn options(args: &SolverArgs, backend: &BackendArgs, order: usize, t_end: Option<f64>) -> anyhow::Result<HexOptions> {
    if args.limiter || args.no_limiter {
        bail!("--limiter does not apply to hexahedral cases (no limiter is implemented on hexahedra)");
    }
    Ok(HexOptions {
        order,
        scheme: args.scheme.unwrap_or(dg_runtime::time::Scheme::Lsrk45),
        flux: args.flux.clone(),
        common: args.common(t_end, backend),
    })
}

/// The vertex displacement of `--perturb` (a fraction of the cell size, at most 0.25).
fn distortion(args: &MeshArgs) -> anyhow::Result<f64> {
    let d = args.perturb.unwrap_or(0.0);
    if !(0.0..=0.25).contains(&d) {
        bail!("--perturb for hexahedral boxes moves vertices by a fraction of the cell size in [0, 0.25] (got {d})");
    }
    Ok(d)
}

/// A Gmsh hexahedral mesh (`--mesh`), or the case's box with `--nx` cells per direction, refined `--refine` times
/// (each refinement doubles the cells per direction), with vertices moved by `--perturb`.
fn mesh(args: &MeshArgs, case: &dyn HexCase, order: usize) -> anyhow::Result<HexMesh> {
    if let Some(path) = &args.mesh {
        if args.refine > 0 || args.perturb.is_some() {
            bail!("--refine and --perturb apply to the case's box, not to a Gmsh mesh (--mesh)");
        }
        let mesh = dg_core::hexmesh::read_gmsh_hex(path)
            .with_context(|| format!("cannot use hexahedral mesh {}", path.display()))?;
        let own = case.box_spec(1);
        super::exact_domain::ensure_hexahedra(case.name(), path, &mesh, (own.lower, own.upper, own.periodic))?;
        return Ok(mesh);
    }
    if args.ny.is_some() {
        bail!("hexahedral cases take --nx (cells per direction of the case's box), --refine and --perturb");
    }
    let n = args.nx.unwrap_or(case.default_cells());
    if n == 0 || args.refine > 6 || (n << args.refine) > 256 {
        bail!("--nx {n} with --refine {} gives {} cells per direction; use 1 to 256", args.refine, n << args.refine);
    }
    let per_side = n << args.refine;
    // the least of any run (an MPI run's rank 0); the run itself checks its own once it knows where it runs
    let (values_of, least) = (dg_run::hex_run::case_variables(case), dg_run::hex_run::WHOLE_MESH_LEAST_BYTES_PER_VALUE);
    dg_run::hex_run::check_state_size(per_side.pow(3), order, values_of, least)?;
    case.mesh(n << args.refine, distortion(args)?).with_context(|| format!("cannot mesh the box of {}", case.name()))
}

/// `dg run` of a hexahedral case.
pub fn run(args: RunArgs, case: Box<dyn HexCase>) -> anyhow::Result<()> {
    if args.png.is_some() {
        bail!("--png does not apply to hexahedral cases (--out writes a VTU file with Lagrange hexahedra)");
    }
    args.backend.formulation(case.name(), &[FormulationId::Hex])?;
    args.backend.warm_up("auto");
    let order = args.order.unwrap_or(3);
    let mut opts = options(&args.solver, &args.backend, order, args.t_end)?;
    opts.common.output = args.output(case.name());
    let mesh = mesh(&args.mesh, case.as_ref(), order)?;
    dg_runtime::startup::mark("mesh");
    let mut device = args.backend.open("auto")?;
    let device = device.as_deref_mut().map(|d| -> &mut dyn Device { d });
    let bar = super::run::time_bar(format!("{} D={order} K={}", case.name(), mesh.num_elements()));
    let mut progress = |t: f64, t_end: f64| super::run::advance(&bar, t, t_end);
    let outcome = run_hex(args.precision().into(), case.as_ref(), mesh, &opts, device, &mut progress)?;
    bar.finish_and_clear();
    print_report(&outcome, args.json, None)?;
    args.print_outputs(outcome.report.steps);
    Ok(())
}

/// `dg run` of a hexahedral case split over the MPI ranks of `comm`, each rank on the native CPU path or its device
/// (with `--device cuda` or `auto`, GPU rank mod GPUs per node); rank 0 prints one report with each rank's cells,
/// halo, compute, exchange and wait seconds (`"ranks"` in `--json`, and `"device"` with the schedule on devices).
pub fn run_over_ranks(args: RunArgs, case: Box<dyn HexCase>, comm: &dyn Communicator) -> anyhow::Result<()> {
    let order = args.order.unwrap_or(3);
    let ready = || {
        if args.png.is_some() {
            bail!("--png does not apply to hexahedral cases (--out writes a VTU file with Lagrange hexahedra)");
        }
        args.backend.formulation(case.name(), &[FormulationId::Hex])?;
        let mut opts = options(&args.solver, &args.backend, order, args.t_end)?;
        opts.common.output = args.output(case.name());
        opts.common.partition = args.partition.unwrap_or_default();
        Ok((opts, mesh(&args.mesh, case.as_ref(), order)?))
    };
    let (opts, mesh) = super::ranks::agree(comm, args.json, ready())?;
    let (mut device, pick) = super::ranks::open_rank_device(&args, comm)?;
    let on = device.as_deref_mut().map(|d| -> (&mut dyn Device, _, _) { (d, pick.0, pick.1) });
    let bar = super::ranks::rank_bar(&args, comm, format!("{} D={order} K={}", case.name(), mesh.num_elements()));
    let mut progress = |t: f64, t_end: f64| super::run::advance(&bar, t, t_end);
    let outcome = run_hex_partitioned(args.precision().into(), case.as_ref(), &mesh, &opts, comm, on, &mut progress)?;
    bar.finish_and_clear();
    let Some(report) = outcome.report else { return Ok(()) };
    if args.json {
        return super::ranks::print_json(&report, &outcome.ranks, outcome.device.as_ref(), outcome.partition.as_ref());
    }
    let place = match &outcome.device {
        Some(_) => format!(" (on {} devices)", comm.size()),
        None => format!(" (native CPU on {} ranks)", comm.size()),
    };
    print_report(&HexOutcome { report, device: None }, false, Some(place))?;
    if let Some(info) = &outcome.device {
        super::ranks::print_schedule(info);
    }
    super::ranks::print_ranks(&outcome.ranks, outcome.partition.as_ref(), args.out.as_deref(), comm.size());
    Ok(())
}

/// The report of a run (`place`: where it ran, when not the outcome's device or the native CPU path of one process).
fn print_report(outcome: &HexOutcome, json: bool, place: Option<String>) -> anyhow::Result<()> {
    let r = &outcome.report;
    if json {
        let mut doc = serde_json::to_value(r)?;
        doc["device"] = serde_json::to_value(&outcome.device)?;
        doc["startup"] = super::run::startup_json();
        println!("{}", serde_json::to_string_pretty(&doc)?);
        return Ok(());
    }
    println!("case        {} ({}, hexahedra, Gauss–Legendre nodes, {})", r.case, r.law, r.flux);
    println!(
        "mesh        {} hexahedra ({} boxes, {} general trilinear), h = {:.4}, D = {}, {} nodes",
        r.elements,
        r.box_cells,
        r.elements - r.box_cells,
        r.h,
        r.order,
        r.nodes
    );
    println!("time        t = {} in {} steps of {:.3e} ({})", r.t_end, r.steps, r.dt, r.scheme);
    println!("L2 error    {:.6e} (relative {:.3e})", r.l2_error, r.relative_l2_error);
    let per = r.wall_seconds / (r.nodes as f64 * r.steps as f64);
    let place = place.unwrap_or_else(|| if outcome.device.is_some() { "" } else { " (native CPU)" }.to_string());
    println!("wall        {:.3} s, {per:.3e} s per node per step{place}", r.wall_seconds);
    if let Some(info) = &outcome.device {
        super::run::print_device(info);
    }
    Ok(())
}

/// `dg convergence` of a hexahedral case.
pub fn convergence(args: ConvergenceArgs, case: Box<dyn HexCase>) -> anyhow::Result<()> {
    args.backend.formulation(case.name(), &[FormulationId::Hex])?;
    if !(2..=6).contains(&args.levels) {
        bail!("--levels must be between 2 and 6 for 3D cases (got {})", args.levels);
    }
    if args.mesh.mesh.is_some() || args.mesh.ny.is_some() || args.mesh.refine > 0 {
        bail!("hexahedral convergence studies use the case's box: give --nx (base cells per direction), --perturb");
    }
    let base = args.mesh.nx.unwrap_or(case.default_cells());
    if base == 0 || (base << (args.levels - 1)) > 256 {
        bail!(
            "--nx {base} over {} levels reaches {} cells per direction; use 1 to 256",
            args.levels,
            base << (args.levels - 1)
        );
    }
    let distortion = distortion(&args.mesh)?;
    let opts = options(&args.solver, &args.backend, *args.orders.start(), args.t_end)?;
    let mut device = args.backend.open("cpu")?;
    let device = device.as_deref_mut().map(|d| -> &mut dyn Device { d });
    let bar = study_bar(&args);
    let mut progress = |order, level| study_progress(&bar, &args, order, level);
    let (orders, levels) = (args.orders.clone(), args.levels as usize);
    let study = hex_convergence(case.as_ref(), base, distortion, orders, levels, &opts, device, &mut progress)
        .context("convergence study failed")?;
    bar.finish_and_clear();
    print_study(&study, args.json)
}
