//! `dg bench`'s body, for every formulation: each stored winner of a law verified (verification problem and
//! timing size) and timed now, with fresh GDOF/s, GFLOP/s, GB/s and roofline figures.

use super::{open_tuner, PrecisionArg};
use crate::{bail, CommandError};
use dg_codegen::Precision;
use dg_run::formulations::FormulationId;
use dg_run::registry::LawCommands;
use dg_runtime::backend::Device;
use dg_runtime::formulation::{TimedOperation, TuneTarget};
use dg_runtime::pipeline::measure;

/// What one `dg bench` covers.
pub struct BenchRun<'a> {
    /// The formulation.
    pub formulation: FormulationId,
    /// The numerical flux (the law's default when `None`).
    pub flux: Option<&'a str>,
    /// Orders.
    pub orders: &'a [usize],
    /// Precisions.
    pub precision: PrecisionArg,
    /// Timing size instead of the one each winner was tuned at.
    pub timing_dofs: Option<u64>,
    /// The operation timed (and whose stored winners are read).
    pub operation: TimedOperation,
    /// Timed repetitions.
    pub repeats: usize,
    /// Print JSON.
    pub json: bool,
}

/// Measures the stored winners of `law`; an error when none is stored or any fails verification now.
pub fn bench_law(law: &dyn LawCommands, device: &mut dyn Device, run: &BenchRun<'_>) -> Result<(), CommandError> {
    let fp = device.fingerprint().clone();
    let results = dg_run::shipped_db::results(&fp, &mut |w| eprintln!("{w}"));
    let ceilings = dg_runtime::ceilings::stored_or_measured(results.own.ceilings, device)?;
    let mut rows = Vec::new();
    let mut missing = Vec::new();
    for &order in run.orders {
        for p in run.precision.list() {
            if p == Precision::F64 && !device.supports_f64() {
                eprintln!("skipping f64: the device has no double precision");
                continue;
            }
            let target = |timing_dofs| TuneTarget { order, precision: p, timing_dofs, operation: run.operation };
            let probe =
                open_tuner(law, run.formulation, run.flux, device, target(run.timing_dofs.unwrap_or(16_000_000)))?;
            // this device's winner, else one tuned on another device of its architecture (what a run takes)
            let Some(found) = results.find(&probe.key()) else {
                missing.push(format!("N={order} {p:?}"));
                continue;
            };
            let (stored, exact) = (found.entry.clone(), found.exact_size);
            let tuned_on = found.tuned_on.map(str::to_string);
            let dofs = run.timing_dofs.unwrap_or(stored.dofs);
            let mut tuner = open_tuner(law, run.formulation, run.flux, device, target(dofs))?;
            eprintln!("{} {} N={order} {p:?}: {} …", law.name(), run.formulation, stored.winner);
            let now = measure(tuner.as_mut(), device, &stored.winner, run.repeats, &ceilings, p == Precision::F64)?;
            if let Some(raw) = now.ceiling_exceeded {
                eprintln!("{}", crate::autotune::ceiling_warning(&stored.winner, raw));
            }
            let baseline = tuner
                .baseline()
                .and_then(|b| stored.candidates.iter().find(|c| c.variant == b))
                .and_then(|c| c.median_s);
            let mut timed: Vec<f64> = stored.candidates.iter().filter_map(|c| c.median_s).collect();
            timed.sort_by(f64::total_cmp);
            let median_valid = timed.get(timed.len() / 2).copied();
            rows.push(serde_json::json!({
                "key": tuner.key().to_string(), "formulation": run.formulation.name(), "order": order,
                "precision": p.name(), "winner": stored.winner, "stored_at_exact_size": exact, "tuned_on": tuned_on,
                "verified_now": now.verified, "relative_error": now.relative_error,
                "dofs": now.dofs, "ms": now.median_s * 1e3, "spread": now.spread,
                "gdofs": now.dofs as f64 / now.median_s * 1e-9, "gflops": now.gflops, "gbs": now.gbs,
                "roofline_percent": now.roofline_percent, "ceiling_exceeded_percent": now.ceiling_exceeded,
                "stored_ms": stored.median_s * 1e3, "stored_date": stored.date,
                "speedup_over_baseline_at_tuning": baseline.map(|b| b / stored.median_s),
                "speedup_over_median_variant_at_tuning": median_valid.map(|m| m / stored.median_s),
            }));
        }
    }
    if rows.is_empty() {
        let operation = match run.operation {
            TimedOperation::Unit => String::new(),
            other => format!(" --operation {}", other.name()),
        };
        bail!(
            "no tuning results for `{}` ({}{operation}) on {} ({}) for this program's kernels; run `dg autotune {} --formulation {}{operation}` first",
            law.name(),
            run.formulation,
            fp.name,
            fp.selector,
            law.name(),
            run.formulation
        );
    }
    for m in &missing {
        eprintln!("no stored winner for {} {} {m}", law.name(), run.formulation);
    }
    for r in rows.iter().filter(|r| r["tuned_on"].is_string()) {
        eprintln!(
            "N={} {}: the winner was tuned on {}, a device of this one's architecture, not here (its \"stored ms\" is \
             that device's); `dg autotune` tunes on this device",
            r["order"],
            r["precision"].as_str().unwrap_or(""),
            r["tuned_on"].as_str().unwrap_or("")
        );
    }
    let failed = rows.iter().filter(|r| r["verified_now"] != serde_json::Value::Bool(true)).count();
    if run.json {
        println!("{}", serde_json::to_string_pretty(&rows)?);
    } else {
        print_table(&rows, run.formulation, run.operation);
    }
    if failed > 0 {
        bail!("{failed} stored winner(s) failed verification now");
    }
    Ok(())
}

fn print_table(rows: &[serde_json::Value], formulation: FormulationId, operation: TimedOperation) {
    let unit = match (formulation, operation) {
        (_, TimedOperation::LowStorageStage) | (FormulationId::ModalTri, _) => "ms/stage",
        (FormulationId::NodalTet, _) => "ms/step",
        _ => "ms/RHS",
    };
    println!(
        "{:>2} {:>3} {:<52} {:>9} {:>8} {:>9} {:>8} {:>9} {:>10} {:>8} {:>8}",
        "N",
        "",
        "winner (verified and timed now)",
        unit,
        "GDOF/s",
        "GFLOP/s",
        "GB/s",
        "roofline",
        "stored ms",
        "×base",
        "×median"
    );
    for r in rows {
        let f = |k: &str| r[k].as_f64().map(|v| format!("{v:.2}")).unwrap_or_else(|| "-".into());
        let ms = |k: &str| r[k].as_f64().map(|v| format!("{v:.4}")).unwrap_or_else(|| "-".into());
        println!(
            "{:>2} {:>3} {:<52} {:>9} {:>8} {:>9} {:>8} {:>8}% {:>10} {:>8} {:>8}",
            r["order"],
            r["precision"].as_str().unwrap_or(""),
            r["winner"].as_str().unwrap_or(""),
            ms("ms"),
            f("gdofs"),
            f("gflops"),
            f("gbs"),
            f("roofline_percent"),
            ms("stored_ms"),
            f("speedup_over_baseline_at_tuning"),
            f("speedup_over_median_variant_at_tuning")
        );
    }
}
