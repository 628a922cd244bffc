//! `dg autotune`'s body, for every formulation: each (order, precision) of a law tuned, printed and stored as
//! soon as it is done.

use super::{open_tuner, PrecisionArg};
use crate::CommandError;
use dg_codegen::Precision;
use dg_run::formulations::FormulationId;
use dg_run::registry::LawCommands;
use dg_runtime::backend::Device;
use dg_runtime::formulation::{TimedOperation, TuneTarget};
use dg_runtime::pipeline::{speedup_over_fixed, tune, TuneEvent, TuneOptions, RELATED_SEEDS};
use dg_runtime::tuning_db;
use indicatif::{ProgressBar, ProgressStyle};
use std::collections::BTreeMap;

/// What one `dg autotune` covers.
pub struct AutotuneRun<'a> {
    /// The formulation.
    pub formulation: FormulationId,
    /// The numerical flux (the law's default when `None`).
    pub flux: Option<&'a str>,
    /// Orders.
    pub orders: &'a [usize],
    /// Precisions.
    pub precision: PrecisionArg,
    /// Strategy, budget, repeats, hysteresis.
    pub opts: TuneOptions,
    /// Smallest timing problem (DOFs; nodes for tetrahedra).
    pub timing_dofs: u64,
    /// The operation timed.
    pub operation: TimedOperation,
    /// The database directory written.
    pub dir: &'a std::path::Path,
    /// Print the entries as JSON.
    pub json: bool,
}

/// Tunes `law` as `run` says and stores each result in the database as soon as it is done (an interrupted run
/// keeps every finished order).
pub fn autotune_law(law: &dyn LawCommands, device: &mut dyn Device, run: &AutotuneRun<'_>) -> Result<(), CommandError> {
    let fp = device.fingerprint().clone();
    let mut sources = dg_run::shipped_db::sources();
    if run.dir != tuning_db::user_dir() {
        sources.push(tuning_db::DbSource::Dir(run.dir.to_path_buf()));
    }
    let stored = tuning_db::DeviceResults::load(sources, &fp);
    stored.own.warnings.iter().for_each(|w| eprintln!("{w}"));
    let db = &stored.own;
    let ceilings = Some(dg_runtime::ceilings::stored_or_measured(db.ceilings, device)?);
    let mut results = BTreeMap::new();
    let mut by_precision: BTreeMap<String, Vec<tuning_db::Entry>> = BTreeMap::new();
    for &order in run.orders {
        for p in run.precision.list() {
            if p == Precision::F64 && !device.supports_f64() {
                eprintln!("skipping f64: the device has no double precision");
                continue;
            }
            let target = TuneTarget { order, precision: p, timing_dofs: run.timing_dofs, operation: run.operation };
            let mut tuner = open_tuner(law, run.formulation, run.flux, device, target)?;
            let key = tuner.key();
            let bar = ProgressBar::new(0);
            bar.set_style(
                ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len} {wide_msg}")
                    .expect("template")
                    .progress_chars("=> "),
            );
            bar.set_message(format!("{} {} N={order} {p:?}", law.name(), run.formulation));
            // without a terminal (CI logs, remote runs) each candidate gets a line instead of the bar
            let lines = bar.is_hidden();
            let started = std::time::Instant::now();
            let mut progress = |e: TuneEvent<'_>| match e {
                TuneEvent::Start { candidates } => {
                    bar.set_length(candidates as u64);
                    if lines {
                        eprintln!("{} N={order} {p:?}: {candidates} candidates", law.name());
                    }
                }
                TuneEvent::Candidate(c) => {
                    bar.inc(1);
                    if lines {
                        let time = c
                            .median_s
                            .map_or_else(|| c.note.clone().unwrap_or_default(), |m| format!("{:.4} ms", m * 1e3));
                        eprintln!("  [{:6.1} s] {}: {time}", started.elapsed().as_secs_f64(), c.variant);
                    }
                }
            };
            // the stored winner of the same key is kept unless beaten by the hysteresis (both timed now)
            let double = p == Precision::F64;
            // a greedy search or random sample also takes what won for related keys on this device, then on the
            // other devices of its architecture
            let opts = TuneOptions { seeds: stored.seeds(&key, RELATED_SEEDS), ..run.opts.clone() };
            let entry = tune(tuner.as_mut(), device, &opts, db.get(&key), ceilings.as_ref(), double, &mut progress)?;
            bar.finish_and_clear();
            let timed = entry.candidates.iter().filter(|c| c.median_s.is_some()).count();
            println!(
                "{} {} N={order} {:?}: winner {} {:.3} ms, {:.1} GFLOP/s, {:.1} GB/s{} ({} candidates timed, {} not verified: failed, or refused by the device; tuned in {:.1} s)",
                law.name(),
                run.formulation,
                p,
                entry.winner,
                entry.median_s * 1e3,
                entry.gflops,
                entry.gbs,
                entry.roofline_percent.map(|r| format!(", {r:.1}% of roofline")).unwrap_or_default(),
                timed,
                entry.candidates.iter().filter(|c| !c.verified()).count(),
                started.elapsed().as_secs_f64()
            );
            if let Some(note) = kept_by_hysteresis(&entry, run.opts.hysteresis) {
                println!("  {note}");
            }
            if let (Some(c), Ok(cost)) = (ceilings.as_ref(), tuner.cost(&entry.winner)) {
                if let Some(raw) = c.exceeded_by(cost.flops, cost.bytes, entry.median_s, double, cost.units) {
                    eprintln!("{}", ceiling_warning(&entry.winner, raw));
                }
            }
            // stored at once: an interrupted run keeps every finished order and precision
            let path =
                tuning_db::merge_into(run.dir, &fp, BTreeMap::from([(key.to_string(), entry.clone())]), ceilings)?;
            eprintln!("stored {key} in {}", path.display());
            by_precision.entry(format!("{p:?}")).or_default().push(entry.clone());
            results.insert(key.to_string(), entry);
        }
    }
    for (precision, entries) in &by_precision {
        if entries.len() < 2 {
            continue;
        }
        let refs: Vec<&tuning_db::Entry> = entries.iter().collect();
        match speedup_over_fixed(&refs) {
            Some((fixed, speedup)) => println!(
                "{} {precision}: the tuned winners are {speedup:.2}× faster (geometric mean over orders {}) than the best single fixed variant, {fixed}",
                law.name(),
                run.orders.iter().map(|o| o.to_string()).collect::<Vec<_>>().join(",")
            ),
            None => println!("{} {precision}: no variant was timed at every order (no fixed-variant comparison)", law.name()),
        }
    }
    if run.json {
        println!("{}", serde_json::to_string_pretty(&results)?);
    }
    Ok(())
}

/// The warning of a kernel that beat the measured ceilings (its roofline figure is shown as 100%).
pub fn ceiling_warning(variant: &str, raw_percent: f64) -> String {
    format!(
        "warning: {variant} reached {raw_percent:.1}% of the roofline of the measured ceilings: they were measured \
         too low (the figure is shown as 100%); re-measure them with `dg devices --measure`"
    )
}

/// What a tuning that kept the stored winner measured faster: the fastest verified candidate when it is not the
/// winner (the stored winner stays unless the new fastest beats it by `hysteresis`, both timed now), as one line.
fn kept_by_hysteresis(entry: &tuning_db::Entry, hysteresis: f64) -> Option<String> {
    let fastest = entry
        .candidates
        .iter()
        .filter(|c| c.verified())
        .filter_map(|c| c.median_s.map(|t| (c, t)))
        .min_by(|a, b| a.1.total_cmp(&b.1))?;
    (fastest.0.variant != entry.winner && fastest.1 < entry.median_s).then(|| {
        format!(
            "kept the stored winner: {} timed {:.4} ms, {:.1} % faster, under the {:.0} % hysteresis",
            fastest.0.variant,
            fastest.1 * 1e3,
            100.0 * (1.0 - fastest.1 / entry.median_s),
            100.0 * hysteresis
        )
    })
}

#[cfg(test)]
mod tests {
    use super::kept_by_hysteresis;
    use dg_runtime::tuning_db::{Candidate, Entry};
    use dg_runtime::verify::VerifyOutcome;

    fn candidate(variant: &str, passed: bool, seconds: f64) -> Candidate {
        let check = VerifyOutcome::compared(variant.into(), if passed { 1e-9 } else { 1.0 }, 1e-6);
        Candidate::checked(&check, Some((seconds, 0.01)), None)
    }

    fn entry(winner: &str, seconds: f64, candidates: Vec<Candidate>) -> Entry {
        Entry {
            winner: winner.into(),
            median_s: seconds,
            dofs: 1 << 24,
            gflops: 1.0,
            gbs: 1.0,
            roofline_percent: None,
            candidates,
            date: "2026-12-07".into(),
            driver: None,
            strategy: "exhaustive".into(),
        }
    }

    #[test]
    fn a_faster_verified_candidate_than_the_kept_winner_is_reported() {
        let c = vec![candidate("old", true, 82.2e-6), candidate("new", true, 80.4e-6), candidate("bad", false, 1e-6)];
        let note = kept_by_hysteresis(&entry("old", 82.2e-6, c), 0.03).expect("a note");
        assert!(note.contains("new timed 0.0804 ms, 2.2 % faster, under the 3 % hysteresis"), "{note}");
        // the winner the fastest, or only a failed candidate faster: nothing to report
        let c = vec![candidate("old", true, 82.2e-6), candidate("bad", false, 1e-6)];
        assert_eq!(kept_by_hysteresis(&entry("old", 82.2e-6, c), 0.03), None);
    }
}
