//! `dg tet-bench`: the tetrahedral strategies of seed 002 timed per order on one device, with the crossover
//! plot (`dg tet-plot`) and the winners stored in the tuning database.

use super::kernel_cmds::{open_device, parse_orders};
use anyhow::{bail, Context};
use clap::Args;
use dg::dg_codegen::variant::Precision;
use dg::dg_codegen::KernelFamily;
use dg::dg_runtime::backend::{Device, DeviceSelector};
use dg::dg_runtime::tuning_db::{self, Ceilings, Entry, TuningKey};
use dg::tet_bench::{winner_entry, OrderBench};
use indicatif::{ProgressBar, ProgressStyle};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Arguments of `dg tet-bench`.
#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  dg tet-bench --device cuda:0 --json tet.json            (acoustics3d and elastic3d, N = 1..8, ~2M nodes, f32)
  dg tet-bench --laws acoustics3d --orders 3 --nodes 20000000 --device cuda:0
  dg tet-plot tet.json --png docs/img/tet-strategies.png")]
pub struct TetBenchArgs {
    /// Laws, comma-separated.
    #[arg(long, default_value = "acoustics3d,elastic3d")]
    pub laws: String,
    /// Orders, N or A..B.
    #[arg(long, default_value = "1..8")]
    pub orders: String,
    /// Nodes per mesh (seed 002 used about 2 million).
    #[arg(long, default_value_t = 2_000_000)]
    pub nodes: usize,
    /// Precision (seed 002 ran single precision).
    #[arg(long, value_enum, default_value_t = super::run::Precision::F32)]
    pub precision: super::run::Precision,
    /// Device: auto, cuda:N, opencl, opencl:P:D.
    #[arg(long, default_value = "auto")]
    pub device: DeviceSelector,
    /// Timed repetitions per kernel (the median counts).
    #[arg(long, default_value_t = 20)]
    pub repeats: usize,
    /// Write every measurement to this JSON file.
    #[arg(long, value_name = "FILE.json")]
    pub json: Option<PathBuf>,
    /// Store the winner per order in the device's tuning database.
    #[arg(long)]
    pub store: bool,
}

/// Arguments of `dg tet-plot`.
#[derive(Debug, Args)]
pub struct TetPlotArgs {
    /// A JSON file written by `dg tet-bench --json`.
    pub input: PathBuf,
    /// The PNG to draw.
    #[arg(long, value_name = "FILE.png")]
    pub png: PathBuf,
    /// A TrueType font for the labels [default: DejaVu Sans from the usual system places]
    #[arg(long, value_name = "FILE.ttf")]
    pub font: Option<PathBuf>,
}

/// The measured ceilings of the device: from its tuning-database file, else measured now.
fn ceilings(device: &mut dyn Device) -> anyhow::Result<Ceilings> {
    let stored = dg::shipped_db::load(device.fingerprint(), &mut |w| eprintln!("{w}")).ceilings;
    if let Some(c) = stored.filter(|c| c.gemm_gflops_f32.is_some() || !device.supports_gemm()) {
        return Ok(c);
    }
    eprintln!("measuring the device's copy bandwidth and FMA peak …");
    Ok(dg::dg_runtime::ceilings::measure(device)?)
}

/// Runs the benchmark.
pub fn execute(args: TetBenchArgs) -> anyhow::Result<()> {
    let orders = parse_orders(&args.orders)?;
    if !(1_000..=2_000_000_000).contains(&args.nodes) || args.repeats == 0 {
        bail!("--nodes must lie in 1e3..2e9 and --repeats be positive");
    }
    let mut device = open_device(&args.device)?;
    let ceilings = ceilings(device.as_mut())?;
    let laws: Vec<&str> = args.laws.split(',').map(str::trim).collect();
    let bar = ProgressBar::new((laws.len() * orders.len()) as u64);
    bar.set_style(ProgressStyle::with_template("{msg} [{bar:40}] {pos}/{len}").expect("valid template"));
    let mut results: Vec<OrderBench> = Vec::new();
    for law in &laws {
        for &order in &orders {
            bar.set_message(format!("{law} N={order}"));
            let precision = match args.precision {
                super::run::Precision::F32 => Precision::F32,
                super::run::Precision::F64 => Precision::F64,
            };
            let one = dg::registry::law(law)?.tet_bench(
                device.as_mut(),
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
        "date": dg::tuning::today(),
        "results": results,
    });
    if let Some(path) = &args.json {
        std::fs::write(path, serde_json::to_string_pretty(&doc)?)
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    if args.store {
        let path = tuning_db::merge_into(
            &tuning_db::user_dir(),
            device.fingerprint(),
            entries(&results, &device.fingerprint().driver)?,
            Some(ceilings),
        )?;
        eprintln!("winners stored in {}", path.display());
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

/// Tuning-database entries of the winners.
fn entries(results: &[OrderBench], driver: &str) -> anyhow::Result<BTreeMap<String, Entry>> {
    let mut out = BTreeMap::new();
    for b in results {
        let law = dg::dg_laws::all_ir().into_iter().find(|ir| ir.name == b.law).context("law IR")?;
        let key = TuningKey::new(
            KernelFamily::NodalTet,
            &b.law,
            &law.hash(),
            &b.flux,
            b.order,
            &b.precision,
            "ab3-step",
            b.nodes as u64,
        );
        out.insert(key.to_string(), winner_entry(b, driver)?);
    }
    Ok(out)
}

/// Draws the crossover plot from a `dg tet-bench` JSON file.
pub fn plot(args: TetPlotArgs) -> anyhow::Result<()> {
    let text = std::fs::read_to_string(&args.input).with_context(|| format!("cannot read {}", args.input.display()))?;
    let doc: serde_json::Value =
        serde_json::from_str(&text).with_context(|| format!("{} is not JSON", args.input.display()))?;
    let results = doc["results"].as_array().context("no `results` array: not a `dg tet-bench --json` file")?;
    let font_path = match &args.font {
        Some(p) => p.clone(),
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
                curves.push(dg::picture::Curve {
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
    dg::picture::render_line_chart(&args.png, &font, &title, ("order N", "ns per node per step"), &curves)?;
    println!("wrote {}", args.png.display());
    Ok(())
}
