//! `dg bench --per-kernel`: a formulation's per-kernel report (seed 002's for nodal tetrahedra: every kernel of
//! every strategy timed alone per order, each strategy's AB3 step) and its crossover plot (`dg tet-plot`).
//! Winners are tuned and stored by `dg autotune`.

use crate::{bail, CommandError, Context};
use dg_codegen::Precision;
use dg_run::formulations::FormulationId;
use dg_runtime::backend::Device;
use dg_runtime::tuning_db::Ceilings;
use indicatif::{ProgressBar, ProgressStyle};
use std::path::PathBuf;

/// What `dg bench --per-kernel` measures.
#[derive(Debug)]
pub struct KernelReportArgs {
    /// Laws.
    pub laws: Vec<String>,
    /// The formulation (the law's default when `None`).
    pub formulation: Option<FormulationId>,
    /// Orders.
    pub orders: Vec<usize>,
    /// Size of each problem (DOFs; nodes for tetrahedra; seed 002 used about 2 million nodes).
    pub size: usize,
    /// Precision (seed 002 ran single precision).
    pub precision: Precision,
    /// Timed repetitions per kernel (the median counts).
    pub repeats: usize,
    /// Write every measurement to this JSON file.
    pub json: Option<PathBuf>,
}

/// The measured ceilings of the device: from its tuning-database file, else measured now.
fn ceilings(device: &mut dyn Device) -> Result<Ceilings, CommandError> {
    let stored = dg_run::shipped_db::load(device.fingerprint(), &mut |w| eprintln!("{w}")).ceilings;
    Ok(dg_runtime::ceilings::stored_or_measured(stored, device)?)
}

/// Runs the per-kernel report of every law and order: each kernel timed alone at the problem size, through the
/// formulation's [`dg_runtime::formulation::Tuner::kernel_report`].
pub fn execute(args: KernelReportArgs, device: &mut dyn Device) -> Result<(), CommandError> {
    if !(1_000..=2_000_000_000).contains(&args.size) || args.repeats == 0 {
        bail!("--nodes must lie in 1e3..2e9 and --repeats be positive");
    }
    let ceilings = ceilings(device)?;
    let bar = ProgressBar::new((args.laws.len() * args.orders.len()) as u64);
    bar.set_style(ProgressStyle::with_template("{msg} [{bar:40}] {pos}/{len}").expect("valid template"));
    let mut results = Vec::new();
    for name in &args.laws {
        let law = dg_run::registry::law(name)?;
        let formulation = args.formulation.unwrap_or_else(|| FormulationId::default_for(law.dim()));
        for &order in &args.orders {
            bar.set_message(format!("{name} N={order}"));
            let size = args.size as u64;
            let mut tuner =
                super::open_tuner(law, formulation, None, device, super::unit_target(order, args.precision, size))?;
            let Some(report) = tuner.kernel_report(device, args.repeats, &ceilings) else {
                bail!("the {formulation} formulation has no per-kernel report (nodal-tet has one)");
            };
            let report = report?;
            bar.suspend(|| println!("{}", report.summary));
            results.push(report.detail);
            bar.inc(1);
        }
    }
    bar.finish_and_clear();
    // the library routine behind each GEMM shape (cuBLAS or a cublasLt algorithm, chosen on the device)
    let gemm_routines = device.gemm_routines();
    if !gemm_routines.is_empty() {
        println!("GEMM routines:");
        gemm_routines.iter().for_each(|line| println!("  {line}"));
    }
    let doc = serde_json::json!({
        "device": device.fingerprint(),
        "ceilings": ceilings,
        "gemm_routines": gemm_routines,
        "date": dg_runtime::pipeline::today(),
        "results": results,
    });
    if let Some(path) = &args.json {
        std::fs::write(path, serde_json::to_string_pretty(&doc)?)
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(())
}

/// Draws the crossover plot from a `dg bench --per-kernel --out` JSON file.
pub fn plot(
    input: &std::path::Path,
    png: &std::path::Path,
    font: Option<&std::path::Path>,
) -> Result<(), CommandError> {
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
                curves.push(dg_run::picture::Curve {
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
    dg_run::picture::render_line_chart(png, &font, &title, ("order N", "ns per node per step"), &curves)?;
    println!("wrote {}", png.display());
    Ok(())
}
