//! `dg modal-bench`: the autotuner of the modal formulation (seed 001). Per degree and precision it verifies every
//! modal variant of euler2d against the CPU operator, times the ones that pass on a periodic mesh, reports the
//! fastest per surface strategy, GDOF/s and the share of the copy bandwidth, and stores the winner in the
//! tuning database (where `dg run` on that device finds it).

use super::kernel_cmds::{open_device, PrecisionArg};
use anyhow::{bail, Context};
use clap::Args;
use dg::dg_codegen::modal::{ModalSurface, ModalVariant};
use dg::dg_codegen::variant::Precision;
use dg::dg_core::mesh::{rectangle, Diagonal, RectangleSpec};
use dg::dg_core::space::DgSpace2d;
use dg::dg_core::triangle::ModalTriangle;
use dg::dg_runtime::backend::{Device, DeviceSelector};
use dg::dg_runtime::cpu::{BoundaryBinding, ModalOperator2d};
use dg::dg_runtime::modal_device::ModalDeviceOperator;
use dg::dg_runtime::modal_verify::random_modal_state;
use dg::dg_runtime::tuning_db;
use dg::kernels::{law_ir, target_of};
use dg::prelude::*;
use std::collections::HashMap;

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
            let row = match p {
                Precision::F32 => bench_order::<f32>(device.as_mut(), order, &args, ceilings.bandwidth_gbs)?,
                Precision::F64 => bench_order::<f64>(device.as_mut(), order, &args, ceilings.bandwidth_gbs)?,
            };
            if !args.json {
                print_row(&row);
            }
            rows.push(row);
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
        "p={} {}: K={} best {} {:.3} ms/RHS, {:.1} GDOF/s, {:.0} GB/s ({:.1}% of copy); edge {:.3} / element {:.3} / atomic {:.3} ms",
        row["order"], row["precision"].as_str().unwrap_or("?"), row["elements"], row["best"].as_str().unwrap_or("?"), row["best_ms"].as_f64().unwrap_or(f64::NAN),
        row["gdofs"].as_f64().unwrap_or(f64::NAN), row["gbs"].as_f64().unwrap_or(f64::NAN),
        row["roofline_percent"].as_f64().unwrap_or(f64::NAN), row["edge_ms"].as_f64().unwrap_or(f64::NAN),
        row["element_ms"].as_f64().unwrap_or(f64::NAN), row["atomic_ms"].as_f64().unwrap_or(f64::NAN)
    );
}

fn bench_order<T: Real>(
    device: &mut dyn Device,
    order: usize,
    args: &ModalBenchArgs,
    bandwidth_gbs: f64,
) -> anyhow::Result<serde_json::Value> {
    let law = dg::dg_laws::euler2d::Law::default();
    let ir = law_ir(&law);
    let element = ModalTriangle::new(order)?;
    let nm = element.nmodes;
    let target_elements = args.elements.unwrap_or(16_000_000 / (4 * nm));
    let n = ((target_elements as f64 / 2.0).sqrt().round() as usize).max(2);
    let mesh = rectangle(&RectangleSpec {
        lower: [0.0, 0.0],
        upper: [10.0, 10.0],
        nx: n,
        ny: n,
        diagonal: Diagonal::Alternating,
        periodic_x: true,
        periodic_y: true,
    })?;
    let space = DgSpace2d::new(mesh, 1)?;
    let binding = BoundaryBinding::for_law(&law, &space, &HashMap::new())?;
    let cpu = ModalOperator2d::<_, T>::new(law, element, &space, &binding, &[]);
    let q = random_modal_state(&cpu, 3);
    let k = cpu.num_elements();
    let precision = if T::NAME == "f32" { Precision::F32 } else { Precision::F64 };
    let target = target_of(device);
    let params = dg::dg_core::law::ConservationLaw::param_values(cpu.law());
    // only variants that match the CPU operator are timed (and may become winners)
    let all = ModalVariant::all(precision);
    let checked = dg::dg_runtime::modal_verify::verify_modal_variants::<_, T>(
        device,
        target,
        cpu.law(),
        &ir,
        order,
        &all,
        dg::dg_runtime::modal_device::EdgeOrder::BoundaryFirst,
        &mut |_| {},
    );
    let mut timings: Vec<(ModalVariant, f64)> = Vec::new();
    for (variant, check) in all.into_iter().zip(checked) {
        if !check.passed {
            eprintln!("  p={order} {variant}: not timed, verification failed ({:?})", check.error);
            continue;
        }
        let result = (|| -> anyhow::Result<f64> {
            let op = ModalDeviceOperator::<T>::new(device, target, (&ir, &params, "numerical_flux"), &cpu, &variant)?;
            op.upload_state(device, &q)?;
            op.apply(device, 0.0, 2)?; // warm-up
            let mut times = op.apply(device, 0.0, args.repeats)?;
            times.sort_by(f64::total_cmp);
            Ok(times[times.len() / 2])
        })();
        device.free_buffers();
        match result {
            Ok(t) => {
                if !std::io::IsTerminal::is_terminal(&std::io::stderr()) && !args.json {
                    eprintln!("  p={order} {variant} {:.4} ms", 1e3 * t);
                }
                timings.push((variant, t));
            }
            Err(e) => eprintln!("  p={order} {variant}: {e:#}"),
        }
    }
    let best_of = |surface: Option<ModalSurface>| {
        timings
            .iter()
            .filter(|(v, _)| surface.is_none_or(|s| v.surface == s))
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .copied()
    };
    let Some((best, best_t)) = best_of(None) else { bail!("no modal variant ran at p = {order}") };
    let dofs = (k * 4 * nm) as f64;
    // the minimum traffic: state read and right-hand side written, the metric (4) and face data (3 normals/scales
    // and 1 link per face) per element
    let real = std::mem::size_of::<T>() as f64;
    let bytes = 2.0 * dofs * real + k as f64 * (4.0 + 9.0) * real + k as f64 * 3.0 * 4.0;
    let gbs = bytes / best_t / 1e9;
    let ms = |s: ModalSurface| best_of(Some(s)).map(|(_, t)| 1e3 * t);
    let entry = tuning_db::Entry {
        winner: best.to_string(),
        median_s: best_t,
        dofs: dofs as u64,
        gflops: 0.0,
        gbs,
        roofline_percent: Some(100.0 * gbs / bandwidth_gbs),
        candidates: timings
            .iter()
            .map(|(v, t)| tuning_db::Candidate {
                variant: v.to_string(),
                verified: true,
                median_s: Some(*t),
                spread: None,
                note: None,
            })
            .collect(),
        date: dg::tuning::today(),
        strategy: "exhaustive (modal-bench)".into(),
    };
    let key = tuning_db::modal_key("euler2d", &ir.hash(), "numerical_flux", order, T::NAME, dofs as u64);
    let path = tuning_db::merge_into(&tuning_db::user_dir(), device.fingerprint(), [(key, entry)].into(), None)?;
    eprintln!("p={order} {}: winner {best} stored in {}", T::NAME, path.display());
    Ok(serde_json::json!({
        "order": order, "precision": T::NAME, "elements": k, "dofs": dofs,
        "best": best.to_string(), "best_ms": 1e3 * best_t, "gdofs": dofs / best_t / 1e9,
        "gbs": gbs, "roofline_percent": 100.0 * gbs / bandwidth_gbs,
        "bytes_per_element": (2.0 * 4.0 * nm as f64 * real) + 13.0 * real + 12.0,
        "edge_ms": ms(ModalSurface::Edge), "element_ms": ms(ModalSurface::Element), "atomic_ms": ms(ModalSurface::Atomic),
        "variants": timings.iter().map(|(v, t)| serde_json::json!({"variant": v.to_string(), "ms": 1e3 * t})).collect::<Vec<_>>(),
    }))
}
