//! Which kernel variant a device run uses, for every formulation: the tuning database's entry for the run's key
//! (the nearest stored problem size when the exact one is missing), else a tuning run at the run's size stored in
//! the user database, else (`--no-tune`) a default; each says which, with the key and the file.

use crate::euler_run::{default_modal_variant, EulerDeviceError};
use crate::kernels::{law_ir, valid_variants};
use crate::modal_tuning::tune_modal;
use crate::tuning::{seed_baseline, tune, Strategy, TuneOptions};
use crate::wave_run::WaveDeviceError;
use anyhow::Context;
use dg_codegen::modal::ModalVariant;
use dg_codegen::variant::{DeviceLimits, LawShape, Precision, Variant};
use dg_codegen::KernelFamily;
use dg_core::law::ConservationLaw;
use dg_core::space::DgSpace2d;
use dg_core::Real;
use dg_laws::euler2d;
use dg_runtime::backend::Device;
use dg_runtime::tuning_db::{self, DeviceDb, Found, TuningKey};
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// How the variant was chosen.
#[derive(Debug, Clone, serde::Serialize)]
pub struct VariantChoice {
    /// The variant.
    pub variant: String,
    /// `database`, `database-nearest-size`, `tuned`, `default` or `given`.
    pub source: &'static str,
    /// One sentence: the key, the file it came from, the size and driver it was tuned at, or why the default.
    pub detail: String,
    /// Seconds spent choosing (tuning included).
    pub seconds: f64,
}

impl VariantChoice {
    /// The choice of a database entry.
    pub fn from_database(found: &Found<'_>, driver: &str, started: Instant) -> Self {
        Self {
            variant: found.entry.winner.clone(),
            source: if found.exact_size { "database" } else { "database-nearest-size" },
            detail: found.describe(driver),
            seconds: started.elapsed().as_secs_f64(),
        }
    }

    /// A variant the user gave.
    pub fn given(variant: String) -> Self {
        Self { variant, source: "given", detail: "given with --variant".into(), seconds: 0.0 }
    }
}

/// Why a key missed, for the log: results for other generated code are not reused.
pub fn miss_reason(db: &DeviceDb, key: &TuningKey) -> String {
    match db.stale_for(key) {
        0 => format!("no tuning result for {key}"),
        n => format!("no tuning result for {key} ({n} stored for other generated code: the templates or generator changed since)"),
    }
}

/// The variant for `law` at `space`'s order and size on `device`: the database's entry for the key (nearest size
/// when the exact one is missing) with no benchmarking, else a tuning run stored in the user database, else (with
/// `no_tune`) seed 000's baseline.
pub fn choose_variant<L: ConservationLaw + Clone, T: Real>(
    device: &mut dyn Device,
    law: &L,
    space: &DgSpace2d,
    no_tune: bool,
    log: &mut dyn FnMut(&str),
) -> anyhow::Result<VariantChoice> {
    let start = Instant::now();
    let ir = law_ir(law);
    crate::kernels::kernel_support(&ir)?;
    let order = space.element.order;
    let dofs = (space.num_nodes() * L::NVARS) as u64;
    let nflux = law.numerical_flux_name();
    let key = TuningKey::new(KernelFamily::NodalTri, law.name(), &ir.hash(), nflux, order, T::NAME, "rhs", dofs);
    let fp = device.fingerprint().clone();
    let db = crate::shipped_db::load(&fp, log);
    if let Some(found) = db.find(&key) {
        if found.entry.winner.parse::<Variant>().is_ok() {
            let choice = VariantChoice::from_database(&found, &fp.driver, start);
            log(&format!("tuning database: {} (no benchmarking)", choice.detail));
            return Ok(choice);
        }
        log(&format!(
            "warning: the winner `{}` stored in {} does not parse; ignoring it",
            found.entry.winner, found.origin
        ));
    }
    let miss = miss_reason(&db, &key);
    let precision = if T::NAME == "f32" { Precision::F32 } else { Precision::F64 };
    if no_tune {
        let limits = DeviceLimits { local_memory: device.local_memory(), max_work_group: device.max_work_group() };
        let (valid, _) = valid_variants(order, &LawShape::of(&law_ir(law)), precision, &limits);
        let base = seed_baseline(precision);
        let v = if valid.contains(&base) {
            base
        } else {
            *valid.first().context("no valid kernel variant for this device")?
        };
        let detail = format!("{miss}; --no-tune: seed 000's baseline {v}");
        log(&detail);
        return Ok(VariantChoice {
            variant: v.to_string(),
            source: "default",
            detail,
            seconds: start.elapsed().as_secs_f64(),
        });
    }
    log(&format!("{miss}: tuning (greedy, 30 s budget) …"));
    let opts = TuneOptions {
        strategy: Strategy::Greedy,
        budget: Some(Duration::from_secs(30)),
        min_dofs: dofs,
        ..TuneOptions::default()
    };
    let (key, entry) = tune::<L, T>(device, law, order, &opts, &db, db.ceilings.as_ref(), &mut |_| {})?;
    let winner = entry.winner.clone();
    let path =
        tuning_db::merge_into(&tuning_db::user_dir(), &fp, BTreeMap::from([(key.to_string(), entry)]), db.ceilings)?;
    let detail = format!("tuned on first use: {winner}, stored in {} ({key})", path.display());
    log(&detail);
    Ok(VariantChoice { variant: winner, source: "tuned", detail, seconds: start.elapsed().as_secs_f64() })
}

/// The modal variant of a device run: the database's entry for the key (nearest size when the exact one is
/// missing), else a tuning run at the run's size stored in the user database, else (with `no_tune`)
/// [`default_modal_variant`]; `eprintln`s which.
pub fn choose_modal_variant<T: Real>(
    device: &mut dyn Device,
    law: &euler2d::Law,
    order: usize,
    elements: usize,
    no_tune: bool,
) -> Result<VariantChoice, EulerDeviceError> {
    let started = Instant::now();
    let ir = law_ir(law);
    let flux = law.numerical_flux_name();
    let dofs = (elements * 4 * dg_core::triangle::num_nodes(order)) as u64;
    let key = TuningKey::new(KernelFamily::ModalTri, law.name(), &ir.hash(), flux, order, T::NAME, "rhs", dofs);
    let fp = device.fingerprint().clone();
    let db = crate::shipped_db::load(&fp, &mut |w| eprintln!("{w}"));
    if let Some(found) = db.find(&key) {
        if found.entry.winner.parse::<ModalVariant>().is_ok() {
            let choice = VariantChoice::from_database(&found, &fp.driver, started);
            eprintln!("tuning database: {} (no benchmarking)", choice.detail);
            return Ok(choice);
        }
        eprintln!(
            "warning: the winner `{}` stored in {} does not parse; ignoring it",
            found.entry.winner, found.origin
        );
    }
    let miss = miss_reason(&db, &key);
    let precision = if T::NAME == "f32" { Precision::F32 } else { Precision::F64 };
    if no_tune {
        let v = default_modal_variant(order, precision);
        let detail = format!("{miss}; --no-tune: the default {v}");
        eprintln!("{detail}");
        return Ok(VariantChoice { variant: v.to_string(), source: "default", detail, seconds: 0.0 });
    }
    eprintln!("{miss}: tuning the modal kernels at this size …");
    let tuning = tune_modal::<T>(device, law, order, elements, 5, &mut |_| {})
        .map_err(|e| EulerDeviceError::Tuning(format!("{e:#}")))?;
    let winner = tuning.entry.winner.clone();
    let path =
        tuning_db::merge_into(&tuning_db::user_dir(), &fp, [(tuning.key.to_string(), tuning.entry)].into(), None)
            .map_err(|e| EulerDeviceError::Tuning(e.to_string()))?;
    let detail = format!("tuned on first use: {winner}, stored in {} ({})", path.display(), tuning.key);
    eprintln!("{detail}");
    Ok(VariantChoice { variant: winner, source: "tuned", detail, seconds: started.elapsed().as_secs_f64() })
}

/// The variant a device run uses: the tuning database's winner for this law, order and precision (nearest problem
/// size when the exact one is missing), else a tuning run at the run's size (every strategy timed and verified,
/// as `dg tet-bench` does) stored in the user database, else (with `no_tune`) node per thread with two elements
/// per volume block.
pub fn choose_tet_variant<L: ConservationLaw + Clone, T: Real>(
    device: &mut dyn dg_runtime::backend::Device,
    law: &L,
    order: usize,
    nodes: usize,
    no_tune: bool,
) -> Result<(dg_codegen::tet::TetVariant, VariantChoice), WaveDeviceError> {
    use dg_codegen::tet::{Strategy, TetVariant};
    use dg_runtime::tuning_db::{self, TuningKey};
    let started = std::time::Instant::now();
    let ir = crate::kernels::law_ir(law);
    crate::kernels::kernel_support(&ir).map_err(|e| WaveDeviceError::Tuning(e.to_string()))?;
    let flux = law.numerical_flux_name();
    let family = dg_codegen::KernelFamily::NodalTet;
    let key = TuningKey::new(family, law.name(), &ir.hash(), flux, order, T::NAME, "ab3-step", nodes as u64);
    let fp = device.fingerprint().clone();
    let db = crate::shipped_db::load(&fp, &mut |w| eprintln!("{w}"));
    if let Some(found) = db.find(&key) {
        if let Ok(v) = found.entry.winner.parse::<TetVariant>() {
            let choice = VariantChoice::from_database(&found, &fp.driver, started);
            eprintln!("tuning database: {} (no benchmarking)", choice.detail);
            return Ok((v, choice));
        }
        eprintln!(
            "warning: the winner `{}` stored in {} does not parse; ignoring it",
            found.entry.winner, found.origin
        );
    }
    let miss = miss_reason(&db, &key);
    if no_tune {
        let precision =
            if T::NAME == "f32" { dg_codegen::variant::Precision::F32 } else { dg_codegen::variant::Precision::F64 };
        let v = TetVariant { strategy: Strategy::Node { volume: 2, surface: 1 }, update: 2, precision };
        let detail = format!("{miss}; --no-tune: the default {v}");
        eprintln!("{detail}");
        return Ok((v, VariantChoice { variant: v.to_string(), source: "default", detail, seconds: 0.0 }));
    }
    eprintln!("{miss}: timing and verifying every tetrahedral strategy at this size …");
    let ceilings = match db.ceilings {
        Some(c) => c,
        None => dg_runtime::ceilings::measure(device)?,
    };
    let target = crate::kernels::target_of(device);
    let bench = crate::tet_bench::bench_order::<L, T>(device, target, law, &ir, order, nodes, &ceilings, 5);
    device.free_buffers();
    let bench = bench?;
    let entry =
        crate::tet_bench::winner_entry(&bench, &fp.driver).map_err(|e| WaveDeviceError::Tuning(e.to_string()))?;
    let winner: TetVariant =
        bench.winner.parse().map_err(|e: dg_codegen::VariantError| WaveDeviceError::Tuning(e.to_string()))?;
    let path = tuning_db::merge_into(&tuning_db::user_dir(), &fp, [(key.to_string(), entry)].into(), None)
        .map_err(|e| WaveDeviceError::Tuning(e.to_string()))?;
    let detail = format!("tuned on first use: {winner}, stored in {} ({key})", path.display());
    eprintln!("{detail}");
    Ok((
        winner,
        VariantChoice {
            variant: winner.to_string(),
            source: "tuned",
            detail,
            seconds: started.elapsed().as_secs_f64(),
        },
    ))
}
