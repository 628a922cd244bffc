//! `dg run`: one simulation with a progress bar, error, energy and throughput.

use super::kernel_cmds::open_device;
use super::mesh_args::{MeshArgs, SolverArgs};
use anyhow::Context;
use clap::{Args, ValueEnum};
use dg::cases::MaxwellCase;
use dg::device_run::{run_on_device, DeviceRunInfo};
use dg::dg_core::vtu::{write_vtu, Field};
use dg::dg_runtime::backend::{discover, Device, DeviceSelector};
use dg::prelude::*;
use dg::simulate::{run, RunOutcome};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::PathBuf;

/// Arguments of `dg run`.
#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  dg run maxwell-cavity                                  (order 4 on an 8 × 8 mesh, one period)
  dg run maxwell-cavity --order 6 --nx 16 --out cavity.vtu
  dg run maxwell-pulse --mesh examples/meshes/square_hole.msh --order 3 --t-end 0.5 --out pulse.vtu
  dg run maxwell-cavity --precision f32 --json
  dg run maxwell-cavity --device cuda:0 --order 6 --nx 64     (generated kernels, tuned on first use)
  dg run maxwell-cavity --device cpu                          (the native CPU path)
  dg run euler-isentropic-vortex --order 3 --nx 20
  dg run euler-double-mach --nx 24 --png double-mach.png       (p = 1, limiter, RK2, t = 0.2)
  dg run euler-supersonic-vortex --order 2 --refine 1 --flux hllc_flux --json
  dg run acoustic-cube --order 4 --nx 4 --out cube.vtu         (tetrahedra, seed 002)
  dg run acoustic-two-layer --order 4 --nx 16                  (measured R and T next to the analytic ones)")]
pub struct RunArgs {
    /// MaxwellCase to run (see `dg cases`).
    pub case: String,
    /// Polynomial order N (1..=10) [default: 4 for Maxwell, the case's for Euler]
    #[arg(long)]
    pub order: Option<usize>,
    #[command(flatten)]
    pub mesh: MeshArgs,
    #[command(flatten)]
    pub solver: SolverArgs,
    /// Final time (default: the case's, one period for the cavity).
    #[arg(long, value_name = "T")]
    pub t_end: Option<f64>,
    /// Write the final fields to this VTU file (open it in ParaView).
    #[arg(long, value_name = "FILE.vtu")]
    pub out: Option<PathBuf>,
    /// Arithmetic precision.
    #[arg(long, value_enum, default_value_t = Precision::F64)]
    pub precision: Precision,
    /// Euler cases: draw the final density into this PNG file.
    #[arg(long, value_name = "FILE.png")]
    pub png: Option<PathBuf>,
    /// Width of the PNG in pixels.
    #[arg(long, default_value_t = 1200, value_parser = clap::value_parser!(u32).range(16..=8192))]
    pub png_width: u32,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
    /// Where to run: auto (a CUDA or OpenCL GPU if there is one, else the native CPU), cpu, cuda:N, opencl,
    /// opencl:P:D.
    #[arg(long, default_value = "auto")]
    pub device: String,
    /// On a device without a tuning result for this problem, use the default variant instead of tuning.
    #[arg(long)]
    pub no_tune: bool,
    /// Euler cases on a device: the modal kernel variant (SPEC, see `dg modal-bench`) instead of the default.
    #[arg(long, value_name = "SPEC")]
    pub variant: Option<String>,
}

/// Floating-point precision of a run.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum Precision {
    /// Single precision.
    F32,
    /// Double precision.
    F64,
}

/// Runs a Maxwell case (Euler and wave cases: `euler_cmds::run`, `wave_cmds::run`).
pub fn maxwell(args: RunArgs, case: Box<dyn MaxwellCase>) -> anyhow::Result<()> {
    if args.png.is_some() || args.variant.is_some() {
        anyhow::bail!(
            "--png and --variant apply to Euler cases (Maxwell: --out writes a VTU file; variants are tuned)"
        );
    }
    let order = args.order.unwrap_or(4);
    let mesh = args.mesh.build(case.as_ref(), 8)?;
    let space = DgSpace2d::new(mesh, order).context("cannot build the DG space")?;
    let opts = args.solver.options(args.t_end)?;
    let bar = ProgressBar::new(0);
    bar.set_style(
        ProgressStyle::with_template("{spinner} {msg} [{bar:40}] {pos}/{len} steps, {eta} left")
            .expect("valid template")
            .progress_chars("=> "),
    );
    bar.set_message(format!("{} N={} K={}", case.name(), order, space.num_elements()));
    let mut progress = |step: u64, total: u64| {
        if step == 1 {
            bar.set_length(total);
        }
        bar.set_position(step);
    };
    let mut device = pick_device(&args.device)?;
    let mut log = |line: &str| bar.suspend(|| eprintln!("{line}"));
    let (outcome, device_info): (RunOutcome, Option<DeviceRunInfo>) = match device.as_deref_mut() {
        None => {
            let outcome = match args.precision {
                Precision::F32 => run::<f32>(&space, case.as_ref(), &opts, &mut progress)?,
                Precision::F64 => run::<f64>(&space, case.as_ref(), &opts, &mut progress)?,
            };
            (outcome, None)
        }
        Some(device) => {
            let law = case.law(opts.alpha);
            let (outcome, info) = match args.precision {
                Precision::F32 => run_on_device::<_, f32>(
                    device,
                    &space,
                    law,
                    case.as_ref(),
                    &opts,
                    args.no_tune,
                    &mut log,
                    &mut progress,
                )?,
                Precision::F64 => run_on_device::<_, f64>(
                    device,
                    &space,
                    law,
                    case.as_ref(),
                    &opts,
                    args.no_tune,
                    &mut log,
                    &mut progress,
                )?,
            };
            (outcome, Some(info))
        }
    };
    bar.finish_and_clear();
    let r = &outcome.report;
    if let Some(path) = &args.out {
        let np = space.element.np;
        let nv = 3;
        let names = ["Hx", "Hy", "Ez"];
        let fields: Vec<Vec<f64>> = (0..nv)
            .map(|v| {
                (0..space.num_elements())
                    .flat_map(|k| outcome.state[(k * nv + v) * np..(k * nv + v + 1) * np].iter().copied())
                    .collect()
            })
            .collect();
        let named: Vec<Field<'_>> = names.iter().zip(&fields).map(|(n, v)| Field { name: n, values: v }).collect();
        write_vtu(path, &space, &named).with_context(|| format!("cannot write {}", path.display()))?;
    }
    if args.json {
        let mut doc = serde_json::to_value(r)?;
        doc["device"] = serde_json::to_value(&device_info)?;
        println!("{}", serde_json::to_string_pretty(&doc)?);
        return Ok(());
    }
    println!(
        "case        {} ({} law, {} flux α = {})",
        r.case,
        r.law,
        if opts.alpha == 0.0 { "central" } else { "upwind" },
        opts.alpha
    );
    println!(
        "mesh        {} elements, h = {:.4}, order {}, {} DOF ({})",
        r.elements, r.h, r.order, r.dofs, r.precision
    );
    println!("time        t = {} in {} steps of {:.3e} ({})", r.t_end, r.steps, r.dt, r.scheme);
    if let Some(e) = r.l2_error {
        println!("L2 error    {e:.6e}");
    }
    println!(
        "energy      {:.10e} → {:.10e} (relative change {:+.3e})",
        r.energy_initial,
        r.energy_final,
        (r.energy_final - r.energy_initial) / r.energy_initial
    );
    match &device_info {
        None => println!(
            "throughput  {:.3e} DOF·RHS/s ({} RHS evaluations in {:.2} s, native CPU, {} threads)",
            r.throughput,
            r.rhs_evaluations,
            r.wall_seconds,
            rayon_threads()
        ),
        Some(info) => {
            println!(
                "throughput  {:.3e} DOF·RHS/s ({} RHS evaluations in {:.3} s on {}, {:.3} s in kernels)",
                r.throughput, r.rhs_evaluations, r.wall_seconds, info.device, info.kernel_seconds
            );
            println!(
                "kernels     {} (from the {}; chosen in {:.3} s); first step done {:.3} s after start",
                info.choice.variant, info.choice.source, info.choice.seconds, info.first_step_seconds
            );
        }
    }
    if let Some(path) = &args.out {
        println!("output      {}", path.display());
    }
    Ok(())
}

/// The device of `--device`: `None` for the native CPU path.
pub(super) fn pick_device(choice: &str) -> anyhow::Result<Option<Box<dyn Device>>> {
    if choice == "cpu" {
        return Ok(None);
    }
    if choice == "auto" {
        let found = discover();
        let gpu = found.devices.iter().find(|d| d.is_gpu);
        return match gpu {
            Some(d) => {
                let selector: DeviceSelector = d.selector.parse().map_err(|e: String| anyhow::anyhow!(e))?;
                Ok(Some(open_device(&selector)?))
            }
            None => {
                let why = if found.missing.is_empty() {
                    "only CPU OpenCL devices".to_string()
                } else {
                    found.missing.join("; ")
                };
                eprintln!("no GPU found ({why}); running on the native CPU path");
                Ok(None)
            }
        };
    }
    let selector: DeviceSelector = choice.parse().map_err(|e: String| anyhow::anyhow!(e))?;
    Ok(Some(open_device(&selector)?))
}

fn rayon_threads() -> usize {
    dg::dg_runtime::cpu::thread_count()
}
