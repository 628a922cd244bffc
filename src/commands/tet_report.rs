//! `dg bench --formulation nodal-tet --per-kernel`: seed 002's report — every tetrahedral kernel of every
//! strategy timed alone per order, each strategy's AB3 step, the crossover plot (`dg tet-plot`). Winners are
//! tuned and stored by `dg autotune --formulation nodal-tet`.

use anyhow::{bail, Context};
use dg_codegen::Precision;
use dg_nodal_tet::bench::OrderBench;
use dg_runtime::backend::Device;
use dg_runtime::tuning_db::Ceilings;
use indicatif::{ProgressBar, ProgressStyle};
use std::path::PathBuf;

/// What `dg bench --formulation nodal-tet --per-kernel` measures.
#[derive(Debug)]
pub struct TetBenchArgs {
    /// Laws.
    pub laws: Vec<String>,
    /// Orders.
    pub orders: Vec<usize>,
    /// Nodes per mesh (seed 002 used about 2 million).
    pub nodes: usize,
    /// Precision (seed 002 ran single precision).
    pub precision: Precision,
    /// Timed repetitions per kernel (the median counts).
    pub repeats: usize,
    /// Write every measurement to this JSON file.
    pub json: Option<PathBuf>,
}

/// The measured ceilings of the device: from its tuning-database file, else measured now.
fn ceilings(device: &mut dyn Device) -> anyhow::Result<Ceilings> {
    let stored = crate::shipped_db::load(device.fingerprint(), &mut |w| eprintln!("{w}")).ceilings;
    if let Some(c) = stored.filter(|c| c.gemm_gflops_f32.is_some() || !device.supports_gemm()) {
        return Ok(c);
    }
    eprintln!("measuring the device's copy bandwidth and FMA peak …");
    Ok(crate::dg_runtime::ceilings::measure(device)?)
}

/// Runs the benchmark.
pub fn execute(args: TetBenchArgs, device: &mut dyn Device) -> anyhow::Result<()> {
    let orders = args.orders.clone();
    if !(1_000..=2_000_000_000).contains(&args.nodes) || args.repeats == 0 {
        bail!("--nodes must lie in 1e3..2e9 and --repeats be positive");
    }
    let ceilings = ceilings(device)?;
    let laws = &args.laws;
    let bar = ProgressBar::new((laws.len() * orders.len()) as u64);
    bar.set_style(ProgressStyle::with_template("{msg} [{bar:40}] {pos}/{len}").expect("valid template"));
    let mut results: Vec<OrderBench> = Vec::new();
    for law in laws {
        for &order in &orders {
            bar.set_message(format!("{law} N={order}"));
            let precision = args.precision;
            let one = crate::registry::law(law)?.tet_kernel_bench(
                device,
                order,
                args.nodes,
                precision,
                args.repeats,
                &ceilings,
            )?;
            bar.suspend(|| print_order(&one));
            results.push(one);
            bar.inc(1);
        }
    }
    bar.finish_and_clear();
    let doc = serde_json::json!({
        "device": device.fingerprint(),
        "ceilings": ceilings,
        "date": crate::dg_runtime::pipeline::today(),
        "results": results,
    });
    if let Some(path) = &args.json {
        std::fs::write(path, serde_json::to_string_pretty(&doc)?)
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(())
}

fn print_order(b: &OrderBench) {
    let per = |name: &str| {
        b.strategies
            .iter()
            .find(|s| s.strategy == name)
            .map_or("      -".to_string(), |s| format!("{:7.3}", s.ns_per_node_step))
    };
    println!(
        "{:<12} N={} {:>9} nodes  ns/node/step: node {} elem {} gemm {}  winner {} ({:.3} ms/step measured)",
        b.law,
        b.order,
        b.nodes,
        per("node"),
        per("elem"),
        per("gemm"),
        b.winner,
        b.winner_step_seconds * 1e3
    );
}

/// Draws the crossover plot from a `dg bench --per-kernel --out` JSON file.
pub fn plot(input: &std::path::Path, png: &std::path::Path, font: Option<&std::path::Path>) -> anyhow::Result<()> {
    let text = std::fs::read_to_string(input).with_context(|| format!("cannot read {}", input.display()))?;
    let doc: serde_json::Value =
        serde_json::from_str(&text).with_context(|| format!("{} is not JSON", input.display()))?;
    let results = doc["results"].as_array().context("no `results` array: not a `dg bench --per-kernel --out` file")?;
    let font_path = match &font {
        Some(p) => p.to_path_buf(),
        None => ["/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", "/usr/share/fonts/TTF/DejaVuSans.ttf"]
            .iter()
            .map(PathBuf::from)
            .find(|p| p.exists())
            .context("no DejaVu Sans font found; pass --font FILE.ttf")?,
    };
    let font = std::fs::read(&font_path).with_context(|| format!("cannot read {}", font_path.display()))?;
    let mut curves = Vec::new();
    let laws: Vec<String> = {
        let mut l: Vec<String> = results.iter().filter_map(|r| r["law"].as_str().map(String::from)).collect();
        l.dedup();
        l
    };
    for (li, law) in laws.iter().enumerate() {
        for (si, strategy) in ["node", "elem", "gemm"].iter().enumerate() {
            let points: Vec<(f64, f64)> = results
                .iter()
                .filter(|r| r["law"] == law.as_str())
                .filter_map(|r| {
                    let s = r["strategies"].as_array()?.iter().find(|s| s["strategy"] == *strategy)?;
                    Some((r["order"].as_f64()?, s["ns_per_node_step"].as_f64()?))
                })
                .collect();
            if !points.is_empty() {
                curves.push(crate::picture::Curve {
                    label: format!("{law} {strategy}{}", if li > 0 { " (dashed)" } else { "" }),
                    points,
                    colour: si,
                    dashed: li > 0,
                });
            }
        }
    }
    let device = doc["device"]["name"].as_str().unwrap_or("device");
    let date = doc["date"].as_str().unwrap_or("");
    let title = format!("time per node per AB3 step, {device}, {date}");
    crate::picture::render_line_chart(png, &font, &title, ("order N", "ns per node per step"), &curves)?;
    println!("wrote {}", png.display());
    Ok(())
}
