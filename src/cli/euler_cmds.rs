//! `dg run` and `dg convergence` for Euler cases (modal formulation, native CPU path).

use super::convergence::{print_study, ConvergenceArgs};
use super::run::{Precision, RunArgs};
use anyhow::{bail, Context};
use dg::cases::euler::EulerCase;
use dg::dg_modal_tri::ModalVariant;
use dg::euler_run::{run_euler, run_euler_on_device, EulerDeviceInfo, EulerOutcome};
use dg::euler_study::{euler_convergence, StudyPlan};
use dg::picture::{render_png, ModalField};
use indicatif::{ProgressBar, ProgressStyle};

/// `dg run` of an Euler case.
pub fn run(args: RunArgs, case: Box<dyn EulerCase>) -> anyhow::Result<()> {
    if args.out.is_some() {
        bail!("--out (VTU) writes nodal fields; for Euler cases use --png");
    }
    let variant: Option<ModalVariant> = args.variant.as_deref().map(str::parse).transpose()?;
    let mut device = super::run::pick_device(&args.device)?;
    if device.is_none() && variant.is_some() {
        bail!("--variant needs a device (--device cuda:0 or opencl)");
    }
    let mesh = args.mesh.build_euler(case.as_ref())?;
    let opts =
        dg::euler_run::EulerOptions { no_tune: args.no_tune, ..args.solver.euler_options(args.order, args.t_end) };
    let bar = ProgressBar::new(1000);
    bar.set_style(
        ProgressStyle::with_template("{spinner} {msg} [{bar:40}] t = {prefix}, {eta} left")
            .expect("valid template")
            .progress_chars("=> "),
    );
    bar.set_message(format!("{} K={}", case.name(), mesh.num_elements()));
    let mut progress = |t: f64, t_end: f64| {
        bar.set_prefix(format!("{t:.4}"));
        bar.set_position((1000.0 * t / t_end) as u64);
    };
    let (outcome, info): (EulerOutcome, Option<EulerDeviceInfo>) = match (device.as_deref_mut(), args.precision) {
        (None, Precision::F32) => (run_euler::<f32>(case.as_ref(), mesh, &opts, &mut progress)?, None),
        (None, Precision::F64) => (run_euler::<f64>(case.as_ref(), mesh, &opts, &mut progress)?, None),
        (Some(device), Precision::F32) => {
            let (o, i) = run_euler_on_device::<f32>(device, case.as_ref(), mesh, &opts, variant, &mut progress)?;
            (o, Some(i))
        }
        (Some(device), Precision::F64) => {
            let (o, i) = run_euler_on_device::<f64>(device, case.as_ref(), mesh, &opts, variant, &mut progress)?;
            (o, Some(i))
        }
    };
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
        doc["device"] = serde_json::to_value(&info)?;
        println!("{}", serde_json::to_string_pretty(&doc)?);
        return Ok(());
    }
    println!("case        {} (euler2d, modal, {} flux{})", r.case, r.flux, if r.limiter { ", limiter" } else { "" });
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
    match &info {
        None => println!(
            "throughput  {:.3e} DOF·RHS/s ({} RHS evaluations in {:.2} s, native CPU)",
            r.throughput, r.rhs_evaluations, r.wall_seconds
        ),
        Some(i) => println!(
            "throughput  {:.3e} DOF·RHS/s ({} RHS evaluations in {:.3} s on {}, {:.3} s in kernels, variant {}: {})",
            r.throughput, r.rhs_evaluations, r.wall_seconds, i.device, i.kernel_seconds, i.variant, i.variant_detail
        ),
    }
    if let Some((path, (lo, hi))) = picture {
        println!("picture     {} (density {lo:.4} .. {hi:.4})", path.display());
    }
    Ok(())
}

/// `dg convergence` of an Euler case.
pub fn convergence(args: ConvergenceArgs, case: Box<dyn EulerCase>) -> anyhow::Result<()> {
    if !case.has_exact() {
        bail!("case `{}` has no exact solution; choose one of the cases marked so in `dg cases`", case.name());
    }
    if !(2..=8).contains(&args.levels) {
        bail!("--levels must be between 2 and 8 (got {})", args.levels);
    }
    let base = args.mesh.build_euler(case.as_ref())?;
    let opts = args.solver.euler_options(None, args.t_end);
    let bar = super::convergence::study_bar(&args);
    let (first, levels) = (*args.orders.start(), args.levels);
    let mut device = super::run::pick_device(&args.device)?;
    let plan = StudyPlan { orders: args.orders.clone(), levels, formulation: args.formulation.into() };
    let study = euler_convergence(
        case.as_ref(),
        &base,
        &plan,
        &opts,
        device.as_deref_mut().map(|d| d as &mut dyn dg::dg_runtime::backend::Device),
        &mut |order, level| {
            bar.set_message(format!("p={order} level {level}"));
            bar.set_position(((order - first) * levels + level) as u64);
        },
    )
    .context("convergence study failed")?;
    bar.finish_and_clear();
    print_study(&study, args.json, "density L2 error")
}
