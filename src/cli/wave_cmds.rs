//! `dg run` and `dg convergence` for the 3D wave cases (tetrahedra, nodal formulation, seed 002).

use super::convergence::{print_study, ConvergenceArgs};
use super::run::{Precision, RunArgs};
use anyhow::{bail, Context};
use dg::cases::waves::WaveCase;
use dg::dg_core::mesh3d::{refine_uniform_tet, TetMesh};
use dg::dg_core::vtu::{write_vtu_tet, Field};
use dg::wave_run::{wave_convergence, WaveOptions, WaveReport};
use indicatif::{ProgressBar, ProgressStyle};

/// Options shared by `run` and `convergence` of a wave case.
fn options(args: &super::mesh_args::SolverArgs, order: usize, t_end: Option<f64>) -> anyhow::Result<WaveOptions> {
    if args.flux.is_some() || args.limiter || args.no_limiter {
        bail!("--flux and --limiter apply to Euler cases only (wave cases use the upwind flux of seed 002)");
    }
    Ok(WaveOptions {
        order,
        scheme: args.scheme.unwrap_or(dg::prelude::Scheme::Lsrk45),
        cfl: args.cfl.unwrap_or(WaveOptions::default().cfl),
        t_end,
        dt: args.dt,
        no_tune: false,
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
    let mut mesh = match &args.mesh {
        Some(path) => dg::dg_core::mesh3d::read_gmsh_tet(path)
            .with_context(|| format!("cannot use tetrahedral mesh {}", path.display()))?,
        None => {
            let n = args.nx.unwrap_or(case.default_cells());
            if n == 0 || n > 512 {
                bail!("--nx must be between 1 and 512 (got {n})");
            }
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
    let mut device = super::run::pick_device(&args.device)?;
    let variant: Option<dg::dg_nodal_tet::TetVariant> = args.variant.as_deref().map(str::parse).transpose()?;
    let order = args.order.unwrap_or(3);
    let opts = WaveOptions { no_tune: args.no_tune, ..options(&args.solver, order, args.t_end)? };
    let mesh = mesh(&args.mesh, case.as_ref())?;
    let bar = ProgressBar::new(1000);
    bar.set_style(
        ProgressStyle::with_template("{spinner} {msg} [{bar:40}] t = {prefix}, {eta} left")
            .expect("valid template")
            .progress_chars("=> "),
    );
    bar.set_message(format!("{} N={order} K={}", case.name(), mesh.num_elements()));
    let mut progress = |t: f64, t_end: f64| {
        bar.set_prefix(format!("{t:.4}"));
        bar.set_position((1000.0 * t / t_end) as u64);
    };
    let out = args.out.clone();
    if let Some(device) = device.as_deref_mut() {
        if out.is_some() {
            bail!("--out is written from the native CPU path; drop --device or --out");
        }
        let (report, why) = match args.precision {
            Precision::F32 => {
                dg::wave_run::run_wave_on_device::<f32>(device, case.as_ref(), mesh, &opts, variant, &mut progress)?
            }
            Precision::F64 => {
                dg::wave_run::run_wave_on_device::<f64>(device, case.as_ref(), mesh, &opts, variant, &mut progress)?
            }
        };
        bar.finish_and_clear();
        eprintln!("kernels: {why}");
        return print_report(&report, args.json);
    }
    if variant.is_some() {
        bail!("--variant needs a device (--device cuda:0 or opencl)");
    }
    let (report, fields) = match args.precision {
        Precision::F32 => run_and_keep::<f32>(case.as_ref(), mesh, &opts, out.is_some(), &mut progress)?,
        Precision::F64 => run_and_keep::<f64>(case.as_ref(), mesh, &opts, out.is_some(), &mut progress)?,
    };
    bar.finish_and_clear();
    if let (Some(path), Some((space, names, values))) = (&out, fields) {
        let fields: Vec<Field<'_>> = names.iter().zip(&values).map(|(name, values)| Field { name, values }).collect();
        write_vtu_tet(path, &space, &fields).with_context(|| format!("cannot write {}", path.display()))?;
    }
    print_report(&report, args.json)
}

type KeptFields = Option<(dg::dg_core::space3d::DgSpace3d, Vec<String>, Vec<Vec<f64>>)>;

fn run_and_keep<T: dg::prelude::Real>(
    case: &dyn WaveCase,
    mesh: TetMesh,
    opts: &WaveOptions,
    keep: bool,
    progress: &mut dyn FnMut(f64, f64),
) -> anyhow::Result<(WaveReport, KeptFields)> {
    let (report, state) = dg::wave_run::run_wave_keeping::<T>(case, mesh, opts, keep, progress)?;
    Ok((report, state))
}

fn print_report(r: &WaveReport, json: bool) -> anyhow::Result<()> {
    if json {
        println!("{}", serde_json::to_string_pretty(r)?);
        return Ok(());
    }
    println!("case        {} ({}, nodal, upwind flux, {})", r.case, r.law, r.device);
    println!("mesh        {} tetrahedra, h = {:.4}, N = {}, {} nodes", r.elements, r.h, r.order, r.nodes);
    println!("time        t = {} in {} steps of {:.3e} ({})", r.t_end, r.steps, r.dt, r.scheme);
    println!("L2 error    {:.6e} (relative {:.3e})", r.l2_error, r.relative_l2_error);
    if let Some(c) = &r.coefficients {
        println!(
            "interface   R = {:.6} (analytic {:.6}), T = {:.6} (analytic {:.6})",
            c.reflection, c.reflection_exact, c.transmission, c.transmission_exact
        );
    }
    println!(
        "wall        {:.3} s, {:.3e} s per node per step",
        r.wall_seconds,
        r.wall_seconds / (r.nodes as f64 * r.steps as f64)
    );
    Ok(())
}

/// `dg convergence` of a wave case.
pub fn convergence(args: ConvergenceArgs, case: Box<dyn WaveCase>) -> anyhow::Result<()> {
    let mut device = super::run::pick_device(&args.device)?;
    if !(2..=6).contains(&args.levels) {
        bail!("--levels must be between 2 and 6 for 3D cases (got {})", args.levels);
    }
    if args.mesh.mesh.is_some() || args.mesh.ny.is_some() || args.mesh.perturb.is_some() || args.mesh.refine > 0 {
        bail!("wave convergence studies use the case's box: give --nx (base hexahedra along the shortest side) only");
    }
    let base = args.mesh.nx.unwrap_or(case.default_cells());
    let opts = options(&args.solver, *args.orders.start(), args.t_end)?;
    let bar = super::convergence::study_bar(&args);
    let (first, levels) = (*args.orders.start(), args.levels);
    let study = wave_convergence(
        case.as_ref(),
        base,
        args.orders.clone(),
        levels,
        &opts,
        device.as_deref_mut().map(|d| -> &mut dyn dg::dg_runtime::backend::Device { d }),
        &mut |order, level| {
            bar.set_message(format!("N={order} level {level}"));
            bar.set_position(((order - first) * levels + level) as u64);
        },
    )
    .context("convergence study failed")?;
    bar.finish_and_clear();
    print_study(&study, args.json, "L2 error (all fields)")
}
