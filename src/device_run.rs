//! Running a case on a compute device: the tuning database's winner for this device and key (tuning first if
//! the key is missing, unless asked not to), then the generic time integrator on device buffers.

use crate::cases::Case;
use crate::kernels::{law_ir, target_of, valid_variants};
use crate::simulate::{finish, time_step, LoopSummary, RunOptions, RunOutcome};
use crate::tuning::{seed_baseline, tune, Strategy, TuneOptions};
use anyhow::Context;
use dg_codegen::variant::LawShape;
use dg_codegen::variant::{DeviceLimits, Precision, Variant};
use dg_codegen::KernelFamily;
use dg_core::law::ConservationLaw;
use dg_core::space::DgSpace2d;
use dg_core::Real;
use dg_runtime::backend::Device;
use dg_runtime::cpu::BoundaryBinding;
use dg_runtime::device_operator::DeviceOperator;
use dg_runtime::device_system::DeviceSystem;
use dg_runtime::time::Integrator;
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

/// What a device run adds to the report.
#[derive(Debug, Clone, serde::Serialize)]
pub struct DeviceRunInfo {
    /// Device name and selector.
    pub device: String,
    /// The kernel variant and how it was chosen.
    pub choice: VariantChoice,
    /// Seconds from the start of the run (device open excluded) to the end of the first time step.
    pub first_step_seconds: f64,
    /// Device time in kernels, seconds.
    pub kernel_seconds: f64,
}

/// Runs `case` with `law` on `device` in precision `T`.
#[allow(clippy::too_many_arguments)]
pub fn run_on_device<L: ConservationLaw + Clone, T: Real>(
    device: &mut dyn Device,
    space: &DgSpace2d,
    law: L,
    case: &dyn Case,
    opts: &RunOptions,
    no_tune: bool,
    log: &mut dyn FnMut(&str),
    progress: &mut dyn FnMut(u64, u64),
) -> anyhow::Result<(RunOutcome, DeviceRunInfo)> {
    let started = Instant::now();
    let choice = choose_variant::<L, T>(device, &law, space, no_tune, log)?;
    let variant: Variant = choice.variant.parse()?;
    let ir = law_ir(&law);
    let binding = BoundaryBinding::for_law(&law, space, &opts.boundary)?;
    let target = target_of(device);
    let nflux = law.numerical_flux_name();
    let op = DeviceOperator::<T>::new(device, target, &ir, &law.param_values(), nflux, space, &binding, &[], &variant)?;
    let nv = L::NVARS;
    let t_end = opts.t_end.unwrap_or_else(|| case.default_t_end());
    let (steps, dt) = time_step(space, opts, t_end)?;
    let q0: Vec<T> = space.interpolate(nv, |x, y, q| case.initial(x, y, q));
    let energy = |q: &[T]| 0.5 * space.square_norm(nv, q);
    let energy_initial = energy(&q0);
    let mut q = op.new_state(device)?;
    op.write_state(device, q, &q0)?;
    let mut sys = DeviceSystem { device, op: &op, device_seconds: 0.0 };
    let mut integrator = Integrator::new(opts.scheme);
    let loop_start = Instant::now();
    let mut first_step_seconds = 0.0;
    for step in 0..steps {
        integrator.step(&mut sys, step as f64 * dt, dt, &mut q)?;
        if step == 0 {
            first_step_seconds = started.elapsed().as_secs_f64();
        }
        progress(step + 1, steps);
    }
    let kernel_seconds = sys.device_seconds;
    let final_state = op.read_state(sys.device, q)?;
    let wall_seconds = loop_start.elapsed().as_secs_f64();
    sys.device.free_buffers();
    if !final_state.iter().all(|v| v.is_finite()) {
        anyhow::bail!("the solution is no longer finite at t = {t_end}; reduce --cfl");
    }
    let summary = LoopSummary {
        law: law.name(),
        steps,
        dt,
        t_end,
        energy_initial,
        energy_history: Vec::new(),
        rhs_evaluations: integrator.rhs_evaluations(),
        wall_seconds,
    };
    let outcome = finish(space, case, opts, nv, &final_state, summary)?;
    let fp = sys.device.fingerprint();
    let info =
        DeviceRunInfo { device: format!("{} ({})", fp.name, fp.selector), choice, first_step_seconds, kernel_seconds };
    Ok((outcome, info))
}
