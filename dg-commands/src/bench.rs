//! `dg bench`'s body, for every formulation: each stored winner of a law verified (verification problem and
//! timing size) and timed now, with fresh GDOF/s, GFLOP/s, GB/s and roofline figures.

use super::{open_tuner, KernelInputs, PrecisionArg};
use crate::{bail, CommandError};
use dg_codegen::{Precision, VariantError};
use dg_run::formulations::FormulationId;
use dg_run::registry::LawCommands;
use dg_runtime::backend::Device;
use dg_runtime::formulation::{FormulationError, TimedOperation, TuneTarget};
use dg_runtime::pipeline::measure;
use dg_runtime::DeviceOperatorError;

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
    /// Time this variant (SPEC) instead of the stored winner; its precision is the SPEC's.
    pub variant: Option<&'a str>,
}

/// The precision a variant SPEC names (every formulation's SPEC has an `f32` or `f64` component).
pub fn precision_of_spec(spec: &str) -> Option<Precision> {
    spec.split('/').find_map(|part| match part {
        "f32" => Some(Precision::F32),
        "f64" => Some(Precision::F64),
        _ => None,
    })
}

/// Whether the variant named on the command line can be timed for the law at `order` on `device`: `Ok(None)` when
/// the generator (which applies the rules: a valid SPEC need not be one a search visits) emits it, `Ok(Some(why))`
/// when it refuses it at this order, an error when the SPEC does not parse (at no order would it).
fn named_variant_refusal(
    inputs: &KernelInputs,
    formulation: FormulationId,
    order: usize,
    spec: &str,
    device: &dyn Device,
) -> Result<Option<String>, CommandError> {
    match formulation.get().emit(&inputs.call(), order, spec, dg_runtime::formulation::target_of(device)) {
        Ok(_) => Ok(None),
        Err(FormulationError::Operator(DeviceOperatorError::Variant(e @ VariantError::Parse { .. }))) => bail!("{e}"),
        Err(e) => Ok(Some(e.to_string())),
    }
}

/// Measures the stored winners of `law`; an error when none is stored or any fails verification now.
pub fn bench_law(law: &dyn LawCommands, device: &mut dyn Device, run: &BenchRun<'_>) -> Result<(), CommandError> {
    // a named variant is checked against the rules before any problem is built for it
    let inputs = run.variant.map(|_| KernelInputs::of(law, run.flux)).transpose()?;
    let precisions = match run.variant {
        Some(spec) => match precision_of_spec(spec) {
            Some(p) => vec![p],
            None => bail!(
                "variant `{spec}` names no precision (f32 or f64); `dg variants {}` lists the variants",
                law.name()
            ),
        },
        None => run.precision.list(),
    };
    // a SPEC that does not parse is refused before the ceilings are measured (seconds on a device without stored ones)
    if let (Some(spec), Some(inputs), Some(&first)) = (run.variant, &inputs, run.orders.first()) {
        named_variant_refusal(inputs, run.formulation, first, spec, device)?;
    }
    let fp = device.fingerprint().clone();
    let results = dg_run::shipped_db::results(&fp, &mut |w| eprintln!("{w}"));
    // measured when the first variant is timed: seconds on a device without stored ones, which a bench that finds no
    // stored winner (and so times nothing) need not spend
    let stored_ceilings = results.own.ceilings;
    let mut ceilings = None;
    let mut rows = Vec::new();
    let mut missing = Vec::new();
    // orders at which the rules refuse a named variant, with the reason
    let mut refused = Vec::new();
    for &order in run.orders {
        for p in precisions.iter().copied() {
            if p == Precision::F64 && !device.supports_f64() {
                eprintln!("skipping f64: the device has no double precision");
                continue;
            }
            if let (Some(spec), Some(inputs)) = (run.variant, &inputs) {
                if let Some(why) = named_variant_refusal(inputs, run.formulation, order, spec, device)? {
                    refused.push(format!("N={order}: {why}"));
                    continue;
                }
            }
            let target = |timing_dofs| TuneTarget { order, precision: p, timing_dofs, operation: run.operation };
            let probe =
                open_tuner(law, run.formulation, run.flux, device, target(run.timing_dofs.unwrap_or(16_000_000)))?;
            // this device's winner, else one tuned on another device of its architecture (what a run takes)
            let found = results.find(&probe.key());
            let (spec, stored) = match (run.variant, &found) {
                (Some(spec), _) => (spec.to_string(), found.as_ref().map(|f| f.entry.clone())),
                (None, Some(f)) => (f.entry.winner.clone(), Some(f.entry.clone())),
                (None, None) => {
                    missing.push(format!("N={order} {p:?}"));
                    continue;
                }
            };
            let exact = found.as_ref().map(|f| f.exact_size);
            let tuned_on = found.as_ref().and_then(|f| f.tuned_on.map(str::to_string));
            let dofs = match (run.timing_dofs, &stored, run.variant) {
                (Some(d), _, _) => d,
                (None, Some(s), None) => s.dofs,
                // a named variant without a stored search: the size a search on this device times
                (None, _, _) if device.fingerprint().is_gpu => dg_runtime::pipeline::DEFAULT_MIN_DOFS,
                (None, _, _) => dg_runtime::pipeline::CPU_DEVICE_MIN_DOFS,
            };
            let mut tuner = open_tuner(law, run.formulation, run.flux, device, target(dofs))?;
            eprintln!("{} {} N={order} {p:?}: {spec} …", law.name(), run.formulation);
            let current = match ceilings.take() {
                Some(c) => c,
                None => dg_runtime::ceilings::stored_or_measured(stored_ceilings, device)?,
            };
            let now = measure(tuner.as_mut(), device, &spec, run.repeats, &current, p == Precision::F64);
            ceilings = Some(current);
            let now = match now {
                Ok(now) => now,
                // a named variant the device refuses at this order (the rules with its limits), like one the
                // rules refuse everywhere: not timed here, the other orders are
                Err(FormulationError::Operator(DeviceOperatorError::Variant(VariantError::Rejected {
                    reason,
                    ..
                }))) if run.variant.is_some() => {
                    refused.push(format!("N={order}: refused by the device: {reason}"));
                    continue;
                }
                Err(e) => return Err(e.into()),
            };
            if let Some(raw) = now.ceiling_exceeded {
                eprintln!("{}", crate::autotune::ceiling_warning(&spec, raw));
            }
            let candidates = stored.as_ref().map(|s| s.candidates.as_slice()).unwrap_or_default();
            let stored_time = |v: &str| candidates.iter().find(|c| c.variant == v).and_then(|c| c.median_s);
            // the timed variant's own time in the stored search (the winner's is the entry's)
            let stored_s = match (run.variant, &stored) {
                (None, Some(s)) => Some(s.median_s),
                _ => stored_time(&spec),
            };
            let baseline = tuner.baseline().and_then(|b| stored_time(&b));
            let mut timed: Vec<f64> = candidates.iter().filter_map(|c| c.median_s).collect();
            timed.sort_by(f64::total_cmp);
            let median_valid = timed.get(timed.len() / 2).copied();
            let over = |other: Option<f64>| other.zip(stored_s).map(|(o, s)| o / s);
            rows.push(serde_json::json!({
                "key": tuner.key().to_string(), "formulation": run.formulation.name(), "order": order,
                "precision": p.name(), "winner": spec, "named_variant": run.variant.is_some(),
                "stored_winner": stored.as_ref().map(|s| s.winner.clone()),
                "stored_at_exact_size": exact, "tuned_on": tuned_on,
                "verified_now": now.verified, "relative_error": now.relative_error,
                "dofs": now.dofs, "ms": now.median_s * 1e3, "spread": now.spread,
                "gdofs": now.dofs as f64 / now.median_s * 1e-9, "gflops": now.gflops, "gbs": now.gbs,
                "roofline_percent": now.roofline_percent, "ceiling_exceeded_percent": now.ceiling_exceeded,
                "stored_ms": stored_s.map(|s| s * 1e3), "stored_date": stored.as_ref().map(|s| s.date.clone()),
                "speedup_over_baseline_at_tuning": over(baseline),
                "speedup_over_median_variant_at_tuning": over(median_valid),
            }));
        }
    }
    if let (true, Some(spec)) = (rows.is_empty(), run.variant) {
        let why = match refused.is_empty() {
            true => "the device has no double precision".to_string(),
            false => refused.join("; "),
        };
        bail!(
            "variant `{spec}` was timed at no order: {why}; `dg variants {} --formulation {} --order N` lists the \
             valid variants and why the others are rejected",
            law.name(),
            run.formulation
        );
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
    for r in &refused {
        eprintln!("not timed at {r}");
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
        print_table(&rows, run.formulation, run.operation, run.variant.is_some());
    }
    if failed > 0 {
        match run.variant {
            Some(spec) => bail!("variant `{spec}` failed verification at {failed} order(s)"),
            None => bail!("{failed} stored winner(s) failed verification now"),
        }
    }
    Ok(())
}

fn print_table(rows: &[serde_json::Value], formulation: FormulationId, operation: TimedOperation, named: bool) {
    let unit = match (formulation, operation) {
        (_, TimedOperation::LowStorageStage) | (FormulationId::ModalTri, _) => "ms/stage",
        (FormulationId::NodalTet, _) => "ms/step",
        _ => "ms/RHS",
    };
    println!(
        "{:>2} {:>3} {:<52} {:>9} {:>8} {:>9} {:>8} {:>9} {:>10} {:>8} {:>8}",
        "N",
        "",
        if named { "variant (verified and timed now)" } else { "winner (verified and timed now)" },
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
        // a row whose variant was not verified now (the command then fails) says so where it stands
        if r["verified_now"] != serde_json::Value::Bool(true) {
            println!(
                "   ^ NOT VERIFIED: N={} {} was refused or did not match the CPU reference now (relative difference {}); its time \
                 is not a result",
                r["order"],
                r["precision"].as_str().unwrap_or(""),
                r["relative_error"].as_f64().map_or("none: refused, or an output not written".to_string(), |e| format!("{e:.2e}"))
            );
        }
    }
}
