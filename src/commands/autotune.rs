//! `dg autotune`'s body: every (order, precision) of a law tuned, printed and stored as soon as it is done.

use super::PrecisionArg;
use crate::tuning::{tune, TuneEvent, TuneOptions};
use dg_codegen::variant::Precision;
use dg_core::law::ConservationLaw;
use dg_runtime::backend::Device;
use dg_runtime::tuning_db;
use indicatif::{ProgressBar, ProgressStyle};
use std::collections::BTreeMap;

/// Tunes the nodal triangle kernels of `law` at `orders` and `precision` and stores each result in the database
/// in `dir` as soon as it is done (an interrupted run keeps every finished order).
pub fn autotune_law<L: ConservationLaw + Clone>(
    law: &L,
    device: &mut dyn Device,
    orders: &[usize],
    precision: PrecisionArg,
    opts: &TuneOptions,
    dir: &std::path::Path,
    json: bool,
) -> anyhow::Result<()> {
    let fp = device.fingerprint().clone();
    let mut sources = crate::shipped_db::sources();
    if dir != tuning_db::user_dir() {
        sources.push(tuning_db::DbSource::Dir(dir.to_path_buf()));
    }
    let db = tuning_db::DeviceDb::load(&sources, &fp);
    db.warnings.iter().for_each(|w| eprintln!("{w}"));
    let mut ceilings = db.ceilings;
    if ceilings.is_none() {
        eprintln!("measuring the device's ceilings (bandwidth, FMA throughput) for the roofline …");
        ceilings = Some(dg_runtime::ceilings::measure(device)?);
    }
    let mut results = BTreeMap::new();
    for &order in orders {
        for p in precision.list() {
            if p == Precision::F64 && !device.supports_f64() {
                eprintln!("skipping f64: the device has no double precision");
                continue;
            }
            let bar = ProgressBar::new(0);
            bar.set_style(
                ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len} {wide_msg}")
                    .expect("template")
                    .progress_chars("=> "),
            );
            bar.set_message(format!("{} N={order} {p:?}", law.name()));
            // without a terminal (CI logs, remote runs) each candidate gets a line instead of the bar
            let lines = bar.is_hidden();
            let started = std::time::Instant::now();
            let mut progress = |e: TuneEvent<'_>| match e {
                TuneEvent::Start { candidates, .. } => {
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
            let (key, entry) = match p {
                Precision::F32 => tune::<L, f32>(device, law, order, opts, &db, ceilings.as_ref(), &mut progress)?,
                Precision::F64 => tune::<L, f64>(device, law, order, opts, &db, ceilings.as_ref(), &mut progress)?,
            };
            bar.finish_and_clear();
            let timed = entry.candidates.iter().filter(|c| c.median_s.is_some()).count();
            println!(
                "{} N={order} {:?}: winner {} {:.3} ms/RHS, {:.1} GFLOP/s, {:.1} GB/s{} ({} candidates timed, {} not verified: failed, or refused by the device)",
                law.name(),
                p,
                entry.winner,
                entry.median_s * 1e3,
                entry.gflops,
                entry.gbs,
                entry.roofline_percent.map(|r| format!(", {r:.1}% of roofline")).unwrap_or_default(),
                timed,
                entry.candidates.iter().filter(|c| !c.verified()).count()
            );
            // stored at once: an interrupted run keeps every finished order and precision
            let path = tuning_db::merge_into(dir, &fp, BTreeMap::from([(key.to_string(), entry.clone())]), ceilings)?;
            eprintln!("stored {key} in {}", path.display());
            results.insert(key.to_string(), entry);
        }
    }
    if json {
        println!("{}", serde_json::to_string_pretty(&results)?);
    }
    Ok(())
}
