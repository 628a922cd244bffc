//! `dg modal-bench`: the autotuner of the modal formulation (seed 001). Per degree and precision it verifies every
//! modal variant of euler2d against the CPU operator, times the ones that pass on a periodic mesh, reports the
//! fastest per surface strategy, GDOF/s and the share of the copy bandwidth, and stores the winner in the
//! tuning database (where `dg run` on that device finds it).

use super::kernel_cmds::{open_device, PrecisionArg};
use anyhow::{bail, Context};
use clap::Args;
use dg::dg_codegen::modal::ModalSurface;
use dg::dg_codegen::variant::Precision;
use dg::dg_runtime::backend::{Device, DeviceSelector};
use dg::dg_runtime::tuning_db;
use dg::modal_tuning::{default_elements, tune_modal};
use dg::prelude::*;

/// Arguments of `dg modal-bench`.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  dg modal-bench --order 1..5 --device cuda:0 --json\n  dg modal-bench --order 2 --elements 20000 --device opencl"
)]
pub struct ModalBenchArgs {
    /// Degree or range A..B.
    #[arg(long, default_value = "1..5")]
    pub order: String,
    /// Elements of the periodic mesh (default: about 16M degrees of freedom).
    #[arg(long)]
    pub elements: Option<usize>,
    /// Device: auto, cuda:N, opencl, opencl:P:D.
    #[arg(long, default_value = "auto")]
    pub device: DeviceSelector,
    /// Precision.
    #[arg(long, value_enum, default_value_t = PrecisionArg::Both)]
    pub precision: PrecisionArg,
    /// Numerical fluxes to tune, comma-separated (each has its own winners; a run finds the one of its flux).
    #[arg(long, default_value = "numerical_flux,hll_flux,hllc_flux", value_delimiter = ',')]
    pub flux: Vec<String>,
    /// Timed repetitions per variant (the median is reported).
    #[arg(long, default_value_t = 10)]
    pub repeats: usize,
    /// Print one JSON document.
    #[arg(long)]
    pub json: bool,
}

/// Runs the benchmark.
pub fn execute(args: ModalBenchArgs) -> anyhow::Result<()> {
    let orders = super::kernel_cmds::parse_orders(&args.order)?;
    if orders.iter().any(|&p| p > 8) {
        bail!("modal degrees go up to 8 here");
    }
    if !(1..=1000).contains(&args.repeats) {
        bail!("--repeats must be between 1 and 1000");
    }
    let mut device = open_device(&args.device)?;
    let ceilings = dg::dg_runtime::ceilings::measure(device.as_mut()).context("measuring the copy bandwidth")?;
    eprintln!("copy bandwidth {:.0} GB/s", ceilings.bandwidth_gbs);
    let mut rows = Vec::new();
    for &order in &orders {
        for p in args.precision.list() {
            if p == Precision::F64 && !device.supports_f64() {
                continue;
            }
            for flux in &args.flux {
                let row = match p {
                    Precision::F32 => bench_order::<f32>(device.as_mut(), order, flux, &args, ceilings.bandwidth_gbs)?,
                    Precision::F64 => bench_order::<f64>(device.as_mut(), order, flux, &args, ceilings.bandwidth_gbs)?,
                };
                if !args.json {
                    print_row(&row);
                }
                rows.push(row);
            }
        }
    }
    if args.json {
        let doc =
            serde_json::json!({"device": device.fingerprint(), "bandwidth_gbs": ceilings.bandwidth_gbs, "rows": rows});
        println!("{}", serde_json::to_string_pretty(&doc)?);
    }
    Ok(())
}

fn print_row(row: &serde_json::Value) {
    println!(
        "p={} {} {}: K={} best {} {:.3} ms/RHS, {:.1} GDOF/s, {:.0} GB/s ({:.1}% of copy); edge {:.3} / element {:.3} / atomic {:.3} ms",
        row["order"], row["precision"].as_str().unwrap_or("?"), row["flux"].as_str().unwrap_or("?"), row["elements"], row["best"].as_str().unwrap_or("?"), row["best_ms"].as_f64().unwrap_or(f64::NAN),
        row["gdofs"].as_f64().unwrap_or(f64::NAN), row["gbs"].as_f64().unwrap_or(f64::NAN),
        row["roofline_percent"].as_f64().unwrap_or(f64::NAN), row["edge_ms"].as_f64().unwrap_or(f64::NAN),
        row["element_ms"].as_f64().unwrap_or(f64::NAN), row["atomic_ms"].as_f64().unwrap_or(f64::NAN)
    );
}

fn bench_order<T: Real>(
    device: &mut dyn Device,
    order: usize,
    flux: &str,
    args: &ModalBenchArgs,
    bandwidth_gbs: f64,
) -> anyhow::Result<serde_json::Value> {
    let mut law = dg::dg_laws::euler2d::Law::default();
    if !law.select_numerical_flux(flux) {
        bail!("euler2d has no numerical flux `{flux}` (it offers {})", law.numerical_flux_names().join(", "));
    }
    let elements = args.elements.unwrap_or_else(|| default_elements(order));
    let quiet = std::io::IsTerminal::is_terminal(&std::io::stderr()) || args.json;
    let tuning = tune_modal::<T>(device, &law, order, elements, args.repeats, &mut |line| {
        if !quiet {
            eprintln!("  {line}");
        }
    })?;
    let mut entry = tuning.entry.clone();
    let gbs = tuning.bytes / entry.median_s / 1e9;
    entry.roofline_percent = Some(100.0 * gbs / bandwidth_gbs);
    let path = tuning_db::merge_into(
        &tuning_db::user_dir(),
        device.fingerprint(),
        [(tuning.key.to_string(), entry.clone())].into(),
        None,
    )?;
    eprintln!("p={order} {} {flux}: winner {} stored in {}", T::NAME, entry.winner, path.display());
    let (k, nm) = (tuning.elements, dg::dg_core::triangle::num_nodes(order));
    let real = std::mem::size_of::<T>() as f64;
    Ok(serde_json::json!({
        "order": order, "precision": T::NAME, "flux": flux, "elements": k, "dofs": tuning.dofs,
        "best": entry.winner, "best_ms": 1e3 * entry.median_s, "gdofs": tuning.dofs / entry.median_s / 1e9,
        "gbs": gbs, "roofline_percent": 100.0 * gbs / bandwidth_gbs,
        "bytes_per_element": (2.0 * 4.0 * nm as f64 * real) + 13.0 * real + 12.0,
        "edge_ms": tuning.best_ms(ModalSurface::Edge), "element_ms": tuning.best_ms(ModalSurface::Element),
        "atomic_ms": tuning.best_ms(ModalSurface::Atomic),
        "variants": tuning.timings.iter().map(|(v, t)| serde_json::json!({"variant": v.to_string(), "ms": 1e3 * t})).collect::<Vec<_>>(),
    }))
}
