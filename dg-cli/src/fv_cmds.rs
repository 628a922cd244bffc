//! `dg run` for the finite-volume cases (seed 003, MHD on a regular grid): on a device with the generated
//! finite-volume kernels, or on the native CPU path.

use super::run::RunArgs;
use anyhow::{bail, Context};
use dg_cases::fv::FvCase;
use dg_parallel::comm::Communicator;
use dg_run::formulations::FormulationId;
use dg_run::fv_run::{run_fv, FvOptions, FvReport};
use dg_run::partitioned_fv::{run_fv_over_ranks, FvRanks};
use dg_runtime::backend::Device;

/// `dg run` of a finite-volume case.
pub fn run(args: RunArgs, case: Box<dyn FvCase>) -> anyhow::Result<()> {
    check(&args, case.as_ref())?;
    let b = &args.backend;
    let opts = options(&args, case.as_ref());
    let mut device = b.open("auto")?;
    let device = device.as_deref_mut().map(|d| -> &mut dyn Device { d });
    let bar = super::run::time_bar(format!("{} order {}", case.name(), opts.order));
    let mut progress = |t: f64, t_end: f64| super::run::advance(&bar, t, t_end);
    let outcome = run_fv(args.precision().into(), case.as_ref(), &opts, device, &mut progress)?;
    bar.finish_and_clear();
    let picture = match &args.png {
        Some(path) => Some(picture(path, &outcome, args.png_width)?),
        None => None,
    };
    print_report(&outcome.report, args.json, picture, None)?;
    args.print_outputs(outcome.report.steps);
    Ok(())
}

/// `dg run` of a finite-volume case split over the ranks of `comm` (`mpirun -n P`): bands of whole rows, each
/// rank on its device (`--device cuda`: the rank's GPU on its node) or the native CPU path.
pub fn run_over_ranks(args: RunArgs, case: Box<dyn FvCase>, comm: &dyn Communicator) -> anyhow::Result<()> {
    let ready = || -> anyhow::Result<FvOptions> {
        check(&args, case.as_ref())?;
        if args.schedule.is_some() || args.exchange.is_some() {
            bail!("--schedule and --exchange apply to the DG formulations' split runs; finite volumes exchange ghost rows once a step");
        }
        if args.partition.is_some() {
            bail!("--partition: finite volumes split into bands of whole rows (no other partition applies)");
        }
        let opts = options(&args, case.as_ref());
        dg_run::partitioned_fv::check_split(case.as_ref(), &opts, comm.size())?;
        Ok(opts)
    };
    let opts = super::ranks::agree(comm, args.json, ready())?;
    let choice = super::ranks::rank_device(args.backend.device.as_deref().unwrap_or("auto"));
    dg_commands::devices::set_announced(comm.rank() == 0);
    let mut device =
        super::run::pick_device(&choice).with_context(|| format!("rank {}: opening {choice}", comm.rank()))?;
    let device = device.as_deref_mut().map(|d| -> &mut dyn Device { d });
    let bar = super::ranks::rank_bar(&args, comm, format!("{} order {}", case.name(), opts.order));
    let mut progress = |t: f64, t_end: f64| super::run::advance(&bar, t, t_end);
    let split = run_fv_over_ranks(args.precision().into(), case.as_ref(), &opts, comm, device, &mut progress)?;
    bar.finish_and_clear();
    let Some((outcome, ranks)) = split else { return Ok(()) };
    let picture = match &args.png {
        Some(path) => Some(picture(path, &outcome, args.png_width)?),
        None => None,
    };
    print_report(&outcome.report, args.json, picture, Some(&ranks))?;
    args.print_outputs(outcome.report.steps);
    Ok(())
}

/// Refuses what a finite-volume run does not take.
fn check(args: &RunArgs, case: &dyn FvCase) -> anyhow::Result<()> {
    let (m, s, b) = (&args.mesh, &args.solver, &args.backend);
    if m.mesh.is_some() || m.ny.is_some() || m.refine > 0 || m.perturb.is_some() {
        bail!("finite-volume cases run on the case's regular grid: give --nx (cells along x) only");
    }
    if s.scheme.is_some() || s.dt.is_some() || s.flux.is_some() || s.limiter || s.no_limiter || !s.bc.is_empty() {
        bail!(
            "finite-volume cases take --order 1|2 (first order or MUSCL–Hancock with minmod), --cfl, --t-end and \
             --no-cleaning; --scheme, --dt, --flux, --limiter and --bc do not apply"
        );
    }
    b.formulation(case.name(), &[FormulationId::Fv])?;
    Ok(())
}

/// The run's options from the command line.
fn options(args: &RunArgs, case: &dyn FvCase) -> FvOptions {
    let (m, s, b) = (&args.mesh, &args.solver, &args.backend);
    FvOptions {
        cells: m.nx,
        order: args.order.unwrap_or(2),
        cfl: s.cfl.unwrap_or(0.8),
        t_end: args.t_end,
        no_cleaning: s.no_cleaning,
        samples: 20,
        variant: b.variant.clone(),
        no_tune: b.no_tune,
        output: args.output(case.name()),
        allow_unstable: s.allow_unstable,
    }
}

/// Draws the density (a colour map on a 2D grid; on a one-row grid the profiles of ρ and By along x).
fn picture(path: &std::path::Path, outcome: &dg_run::fv_run::FvOutcome, width: u32) -> anyhow::Result<(f64, f64)> {
    let (grid, q) = (&outcome.grid, &outcome.q);
    let cells = grid.cells();
    Ok(if grid.ny == 1 {
        let profile = |v: usize| (0..grid.nx).map(|i| (grid.center(i, 0)[0], q[v * cells + i])).collect::<Vec<_>>();
        dg_run::picture::render_profile_png(path, &[profile(0), profile(6)], (width, width * 5 / 8))?
    } else {
        dg_run::picture::render_grid_png(path, grid.nx, grid.ny, &q[..cells], width)?
    })
}

fn print_report(r: &FvReport, json: bool, picture: Option<(f64, f64)>, ranks: Option<&FvRanks>) -> anyhow::Result<()> {
    if json {
        let mut doc = serde_json::to_value(r)?;
        doc["picture_range"] = serde_json::to_value(picture)?;
        if let Some(ranks) = ranks {
            doc["ranks"] = serde_json::to_value(ranks)?;
        }
        println!("{}", serde_json::to_string_pretty(&doc)?);
        return Ok(());
    }
    let cleaning = if r.cleaning { "GLM cleaning" } else { "no cleaning" };
    println!("case        {} ({}, finite volumes, {}, {cleaning})", r.case, r.law, r.scheme);
    println!("grid        {} × {} cells", r.nx, r.ny);
    println!("time        t = {} in {} steps of {:.3e}…{:.3e}", r.t_end, r.steps, r.dt_range[0], r.dt_range[1]);
    println!(
        "density     {:.6} … {:.6}, total mass changed by {:.2e}",
        r.density_range[0], r.density_range[1], r.mass_change
    );
    let worst = r.divergence.iter().map(|d| d.1).fold(0.0, dg_core::max_or_nan);
    let last = r.divergence.last().map_or(0.0, |d| d.1);
    println!("div B       max |∇·B| {worst:.3e} over the run, {last:.3e} at the end");
    let place = match (ranks.map(|r| r.bands.len()), r.device.is_some()) {
        (Some(n), true) => format!(" (on {n} devices)"),
        (Some(n), false) => format!(" (native CPU on {n} ranks)"),
        (None, true) => String::new(),
        (None, false) => " (native CPU)".into(),
    };
    println!(
        "wall        {:.3} s, {:.3e} cell updates per second{place}, {:.3e} s per step",
        r.wall_seconds,
        r.cell_updates_per_second,
        r.wall_seconds / r.steps.max(1) as f64
    );
    if let Some(d) = &r.device {
        println!("device      {} ({:.3} s in kernels, {} precision)", d.device, d.kernel_seconds, r.precision);
        println!("kernels     {} ({})", d.variant, d.choice);
    }
    if let Some((lo, hi)) = picture {
        println!("picture     values {lo:.4} … {hi:.4}");
    }
    if let Some(ranks) = ranks {
        for (band, device) in ranks.bands.iter().zip(&ranks.devices) {
            println!("rank {:<6} rows {}..{} of {} ({device})", band.rank, band.rows.start, band.rows.end, r.ny);
        }
    }
    Ok(())
}
