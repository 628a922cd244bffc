//! `dg autotune`, `dg bench` and `dg db`: tuning, measuring and managing the tuning database.

use super::kernel_cmds::{open_device, parse_orders, PrecisionArg};
use anyhow::{bail, Context};
use clap::{Args, Subcommand};
use dg::dg_codegen::variant::{Precision, Variant};
use dg::dg_runtime::backend::DeviceSelector;
use dg::dg_runtime::tuning_db::{self, Entry, TuningKey};
use dg::tuning::{Strategy, TuneOptions};
use std::path::PathBuf;
use std::time::Duration;

/// What `dg autotune` tunes and `dg bench` reports: a law, orders, a device and precisions.
#[derive(Debug, Args)]
pub struct TunedSet {
    /// Law (a 2D law).
    pub law: String,
    /// Orders, A..B.
    #[arg(long, default_value = "1..8")]
    pub orders: String,
    /// Device.
    #[arg(long, default_value = "auto")]
    pub device: DeviceSelector,
    /// Precision.
    #[arg(long, value_enum, default_value_t = PrecisionArg::F32)]
    pub precision: PrecisionArg,
}

/// Arguments of `dg autotune`.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  dg autotune maxwell2d --orders 1..8\n  dg autotune euler2d --orders 2..4 --precision f64 --strategy greedy --budget 60\n  dg autotune maxwell2d --orders 1..8 --precision both --db tuning-db   (write the shipped database)"
)]
pub struct AutotuneArgs {
    /// Law, orders, device, precision.
    #[command(flatten)]
    pub what: TunedSet,
    /// exhaustive, random[:N] or greedy.
    #[arg(long, default_value = "exhaustive")]
    pub strategy: Strategy,
    /// Seconds of timing per order and precision before the remaining candidates are skipped.
    #[arg(long)]
    pub budget: Option<f64>,
    /// Smallest timing problem (degrees of freedom). Default: 16M on a GPU (state and right-hand side well
    /// above its L2 cache), 1M on a CPU device (whose kernels run ~100× slower; 1M DOFs in f32 is 8 MB of state
    /// and right-hand side, past the per-core caches).
    #[arg(long)]
    pub min_dofs: Option<u64>,
    /// Directory of the database to write (default: the user cache directory).
    #[arg(long)]
    pub db: Option<PathBuf>,
    /// Print the entries as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `dg bench`.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  dg bench maxwell2d --orders 1..8\n  dg bench maxwell2d --orders 4 --precision f64 --json"
)]
pub struct BenchArgs {
    /// Law, orders, device, precision.
    #[command(flatten)]
    pub what: TunedSet,
    /// Problem size for timing the winners again (default: the size each was tuned on).
    #[arg(long)]
    pub min_dofs: Option<u64>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// `dg db` subcommands.
#[derive(Debug, Subcommand)]
pub enum DbCommand {
    /// List the entries visible for every device file.
    List,
    /// Show one entry (every candidate) by key prefix.
    Show {
        /// The start of the key (law name, say).
        key: String,
    },
    /// Print the user database file of a device as JSON.
    Export {
        /// File name in the user directory (see `dg db list`).
        file: String,
    },
    /// Merge a database file into the user directory.
    Import {
        /// A file written by `dg db export` or `dg autotune`.
        path: PathBuf,
    },
    /// Delete the user database (shipped results stay).
    Clear,
}

/// Tunes and stores.
pub fn autotune(args: AutotuneArgs) -> anyhow::Result<()> {
    let orders = parse_orders(&args.what.orders)?;
    let mut device = open_device(&args.what.device)?;
    let opts = TuneOptions {
        strategy: args.strategy,
        budget: args.budget.map(Duration::from_secs_f64),
        min_dofs: args.min_dofs.unwrap_or(if device.fingerprint().is_gpu {
            dg::tuning::DEFAULT_MIN_DOFS
        } else {
            dg::tuning::CPU_DEVICE_MIN_DOFS
        }),
        ..TuneOptions::default()
    };
    let dir = args.db.clone().unwrap_or_else(tuning_db::user_dir);
    dg::registry::law(&args.what.law)?.autotune(device.as_mut(), &orders, args.what.precision, &opts, &dir, args.json)
}

/// Verifies and times the stored winners again and prints what was measured now.
pub fn bench(args: BenchArgs) -> anyhow::Result<()> {
    let orders = parse_orders(&args.what.orders)?;
    let mut device = open_device(&args.what.device)?;
    let fp = device.fingerprint().clone();
    let db = dg::shipped_db::load(&fp, &mut |w| eprintln!("{w}"));
    let ceilings = match db.ceilings {
        Some(c) => c,
        None => {
            eprintln!("measuring the device's ceilings (bandwidth, FMA throughput) for the roofline …");
            dg::dg_runtime::ceilings::measure(device.as_mut())?
        }
    };
    let precisions: Vec<&str> =
        args.what.precision.list().iter().map(|p| if *p == Precision::F32 { "f32" } else { "f64" }).collect();
    let family = dg::dg_codegen::KernelFamily::NodalTri;
    let wanted: Vec<(TuningKey, Entry)> = db
        .iter()
        .filter(|(k, _, _)| {
            k.law == args.what.law
                && k.code == family.code_hash()
                && k.element == "tri"
                && k.formulation == "nodal-strong"
                && orders.contains(&k.order)
                && precisions.contains(&k.precision.as_str())
        })
        .map(|(k, e, _)| (k.clone(), e.clone()))
        .collect();
    let mut rows = Vec::new();
    for (key, e) in &wanted {
        let winner: Variant = e.winner.parse()?;
        let dofs = args.min_dofs.unwrap_or(e.dofs);
        let now = dg::registry::law(&args.what.law)?
            .measure_winner(device.as_mut(), key.order, &winner, dofs, 20, &ceilings)
            .with_context(|| format!("measuring {} at N={}", e.winner, key.order))?;
        let baseline = e
            .candidates
            .iter()
            .find(|c| c.variant.starts_with("node/mb1/seq1/field-local/fused/elem-major"))
            .and_then(|c| c.median_s);
        let mut timed: Vec<f64> = e.candidates.iter().filter_map(|c| c.median_s).collect();
        timed.sort_by(f64::total_cmp);
        let median_valid = timed.get(timed.len() / 2).copied();
        rows.push(serde_json::json!({
            "key": key.to_string(), "order": key.order, "precision": key.precision, "winner": e.winner,
            "verified_now": now.verified, "relative_error": now.relative_error,
            "dofs": now.dofs, "ms_per_rhs": now.median_s * 1e3, "spread": now.spread,
            "gdofs": now.dofs as f64 / now.median_s * 1e-9, "gflops": now.gflops, "gbs": now.gbs,
            "roofline_percent": now.roofline_percent,
            "stored_ms_per_rhs": e.median_s * 1e3, "stored_date": e.date,
            "speedup_over_seed000_baseline_at_tuning": baseline.map(|b| b / e.median_s),
            "speedup_over_median_variant_at_tuning": median_valid.map(|m| m / e.median_s),
        }));
    }
    if rows.is_empty() {
        bail!(
            "no tuning results for `{}` on {} ({}) for this program's kernels; run `dg autotune {} --orders {}` first",
            args.what.law,
            fp.name,
            fp.selector,
            args.what.law,
            args.what.orders
        );
    }
    let failed = rows.iter().filter(|r| r["verified_now"] != serde_json::Value::Bool(true)).count();
    if args.json {
        println!("{}", serde_json::to_string_pretty(&rows)?);
    } else {
        println!(
            "{:>2} {:>3} {:<52} {:>9} {:>8} {:>9} {:>8} {:>9} {:>10} {:>8} {:>8}",
            "N",
            "",
            "winner (verified and timed now)",
            "ms/RHS",
            "GDOF/s",
            "GFLOP/s",
            "GB/s",
            "roofline",
            "stored ms",
            "×seed",
            "×median"
        );
        for r in &rows {
            let f = |k: &str| r[k].as_f64().map(|v| format!("{v:.2}")).unwrap_or_else(|| "-".into());
            let ms = |k: &str| r[k].as_f64().map(|v| format!("{v:.4}")).unwrap_or_else(|| "-".into());
            println!(
                "{:>2} {:>3} {:<52} {:>9} {:>8} {:>9} {:>8} {:>8}% {:>10} {:>8} {:>8}",
                r["order"],
                r["precision"].as_str().unwrap_or(""),
                r["winner"].as_str().unwrap_or(""),
                ms("ms_per_rhs"),
                f("gdofs"),
                f("gflops"),
                f("gbs"),
                f("roofline_percent"),
                ms("stored_ms_per_rhs"),
                f("speedup_over_seed000_baseline_at_tuning"),
                f("speedup_over_median_variant_at_tuning")
            );
        }
    }
    if failed > 0 {
        bail!("{failed} stored winner(s) failed verification now");
    }
    Ok(())
}

/// Manages the database.
pub fn db(command: DbCommand) -> anyhow::Result<()> {
    match command {
        DbCommand::List => {
            for source in dg::shipped_db::sources() {
                for (origin, file) in source.files() {
                    match file {
                        Ok(file) => {
                            println!(
                                "{origin} ({} {}, {} entries)",
                                file.device.name,
                                file.device.architecture,
                                file.entries.len()
                            );
                            for (key, e) in &file.entries {
                                let current = key.parse::<TuningKey>().is_ok_and(|k| {
                                    dg::dg_codegen::KernelFamily::ALL.iter().any(|f| f.code_hash() == k.code)
                                });
                                let stale = if current { "" } else { "  [other generated code: not used]" };
                                println!("  {key}: {} {:.3} ms{stale}", e.winner, e.median_s * 1e3);
                            }
                        }
                        Err(e) => eprintln!("warning: {e}; ignoring it"),
                    }
                }
            }
        }
        DbCommand::Show { key } => {
            let mut found = false;
            for source in dg::shipped_db::sources() {
                for (origin, file) in source.files() {
                    let Ok(file) = file else { continue };
                    for (k, e) in file.entries.iter().filter(|(k, _)| k.starts_with(&key)) {
                        found = true;
                        println!("{k} ({origin})\n{}", serde_json::to_string_pretty(e)?);
                    }
                }
            }
            if !found {
                bail!("no entry starts with `{key}` (see `dg db list`)");
            }
        }
        DbCommand::Export { file } => {
            let path = tuning_db::user_dir().join(&file);
            let data = tuning_db::read_file(&path)?.with_context(|| format!("{} does not exist", path.display()))?;
            println!("{}", serde_json::to_string_pretty(&data)?);
        }
        DbCommand::Import { path } => {
            let data = tuning_db::read_file(&path)?.with_context(|| format!("{} does not exist", path.display()))?;
            let n = data.entries.len();
            let out = tuning_db::merge_into(&tuning_db::user_dir(), &data.device, data.entries, data.ceilings)?;
            println!("imported {n} entries into {}", out.display());
        }
        DbCommand::Clear => {
            let dir = tuning_db::user_dir();
            if dir.exists() {
                std::fs::remove_dir_all(&dir).with_context(|| format!("cannot remove {}", dir.display()))?;
            }
            println!("cleared {}", dir.display());
        }
    }
    Ok(())
}
