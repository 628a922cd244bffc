//! Which kernel variant a device run uses, for every formulation: the tuning database's entry for the run's key
//! (the nearest stored problem size when the exact one is missing), else a tuning run at the run's size stored in
//! the user database, else (`--no-tune`) the formulation's baseline; each says which, with the key and the file.

use crate::formulations::FormulationId;
use dg_codegen::Precision;
use dg_core::law::ConservationLaw;
use dg_core::Real;
use dg_runtime::backend::Device;
use dg_runtime::formulation::{precision_of, TimedOperation, TuneTarget};
use dg_runtime::pipeline::{tune, Strategy, TuneOptions, RELATED_SEEDS};
use dg_runtime::tuning_db::{self, DeviceDb, Found, TuningKey};
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// Why no variant could be chosen.
#[derive(Debug, thiserror::Error)]
pub enum ChoiceError {
    /// The formulation could not open a tuner, or tuning found no winner.
    #[error(transparent)]
    Formulation(#[from] dg_runtime::formulation::FormulationError),
    /// The user database could not be written.
    #[error(transparent)]
    Database(#[from] tuning_db::DbError),
    /// The device can run no variant of the formulation.
    #[error("no valid {0} variant for this device")]
    NoVariant(FormulationId),
    /// A variant given with `--variant` is compiled in another precision than the run's.
    #[error("variant {variant} is in {theirs} but the run is in {ours}: pass --precision {theirs}, or a variant ending in /{ours}")]
    PrecisionMismatch {
        /// The given variant.
        variant: String,
        /// Its precision.
        theirs: String,
        /// The run's.
        ours: &'static str,
    },
}

/// How the variant was chosen.
#[derive(Debug, Clone, serde::Serialize)]
pub struct VariantChoice {
    /// The variant.
    pub variant: String,
    /// `database`, `database-nearest-size`, `database-same-architecture` (tuned on another device of this one's
    /// architecture), `tuned`, `default` or `given`.
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
            source: match (found.tuned_on, found.exact_size) {
                (Some(_), _) => "database-same-architecture",
                (None, true) => "database",
                (None, false) => "database-nearest-size",
            },
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

/// The variant of `formulation` for `law` at `order` and a problem of `size` DOFs (nodes for tetrahedra) on
/// `device`: the database's entry for the key of the operation the formulation's runs step
/// ([`dg_runtime::formulation::Formulation::run_operation`]), else for its unit's key (nearest size when the exact
/// one is missing) with no benchmarking, else the same from the results of another CUDA device of this one's
/// architecture (an H200's on an H100), else a tuning run of the run's operation at that size (exhaustive for small variant spaces, greedy for large ones
/// from the baseline and the winners stored for related keys, 60 s of timing at most) stored in the user database, else (with `no_tune`) the baseline.
pub fn choose<L: ConservationLaw + Clone + Send + Sync + 'static, T: Real>(
    formulation: FormulationId,
    device: &mut dyn Device,
    law: &L,
    order: usize,
    size: u64,
    no_tune: bool,
    log: &mut dyn FnMut(&str),
) -> Result<VariantChoice, ChoiceError> {
    let start = Instant::now();
    let precision: Precision = precision_of::<T>();
    // the operation runs spend their time in first (a nodal run's low-storage stage), then the formulation's unit
    let operation = formulation.get().run_operation();
    let target = TuneTarget { order, precision, timing_dofs: size, operation };
    let mut tuner = formulation.tuner::<L, T>(law, device, target)?;
    let key = tuner.key();
    let fp = device.fingerprint().clone();
    let results = crate::shipped_db::results(&fp, log);
    // this device's results first; where it has none for the run, those of another device of its architecture
    let mut unit_key: Option<TuningKey> = None;
    for own in [true, false] {
        let stored: &DeviceDb = if own { &results.own } else { results.same_architecture() };
        // the operation the run steps, then (only when it has no result: its tuner builds a verification
        // problem, once for both sources) the formulation's unit
        for (i, operation) in [operation, TimedOperation::Unit].into_iter().enumerate() {
            let key = match i {
                0 => key.clone(),
                _ if operation == target.operation => break,
                _ => match &unit_key {
                    Some(k) => k.clone(),
                    None => {
                        let k = formulation.tuner::<L, T>(law, device, TuneTarget { operation, ..target })?.key();
                        unit_key.insert(k).clone()
                    }
                },
            };
            let Some(found) = stored.find(&key) else { continue };
            // (a winner built on no library is accepted without loading one: cuBLAS costs start-up time)
            if tuner.accepts(device, &found.entry.winner) {
                let choice = VariantChoice::from_database(&found, &fp.driver, start);
                let instead = match i {
                    0 => String::new(),
                    _ => format!("; no entry for the run's {} yet", target.operation.name()),
                };
                log(&format!("tuning database: {}{instead} (no benchmarking)", choice.detail));
                return Ok(choice);
            }
            log(&format!(
                "warning: the winner `{}` stored in {} is not a valid variant here; ignoring it",
                found.entry.winner, found.origin
            ));
        }
    }
    let miss = miss_reason(&results.own, &key);
    let valid = tuner.searched(device);
    if no_tune {
        let v = tuner
            .baseline()
            .filter(|b| valid.contains(b))
            .or_else(|| valid.first().cloned())
            .ok_or(ChoiceError::NoVariant(formulation))?;
        let detail = format!("{miss}; --no-tune: the baseline {v}");
        log(&detail);
        return Ok(VariantChoice { variant: v, source: "default", detail, seconds: start.elapsed().as_secs_f64() });
    }
    let strategy = if valid.len() <= 48 { Strategy::Exhaustive } else { Strategy::Greedy };
    // a greedy search also starts from what won for related keys on this device (other orders, laws, operations),
    // then on the other devices of its architecture
    let seeds = results.seeds(&key, RELATED_SEEDS);
    let from = match strategy {
        Strategy::Greedy if !seeds.is_empty() => format!(" from the baseline and {} stored winners", seeds.len()),
        _ => String::new(),
    };
    log(&format!("{miss}: tuning ({strategy}{from}, 60 s budget) …"));
    let budget = Some(Duration::from_secs(60));
    let opts = TuneOptions { strategy, budget, repeats: 5, seeds, ..TuneOptions::default() };
    let double = precision == Precision::F64;
    let entry = tune(tuner.as_mut(), device, &opts, None, results.own.ceilings.as_ref(), double, &mut |_| {})?;
    let winner = entry.winner.clone();
    let path = tuning_db::merge_into(
        &tuning_db::user_dir(),
        &fp,
        BTreeMap::from([(key.to_string(), entry)]),
        results.own.ceilings,
    )?;
    let detail = format!("tuned on first use: {winner}, stored in {} ({key})", path.display());
    log(&detail);
    Ok(VariantChoice { variant: winner, source: "tuned", detail, seconds: start.elapsed().as_secs_f64() })
}

/// The variant a run uses: `given` (checked by the caller's parse) or [`choose`]'s; logged to standard error.
#[allow(clippy::too_many_arguments)]
pub fn given_or_chosen<L: ConservationLaw + Clone + Send + Sync + 'static, T: Real>(
    formulation: FormulationId,
    device: &mut dyn Device,
    law: &L,
    order: usize,
    size: u64,
    given: Option<&str>,
    no_tune: bool,
) -> Result<VariantChoice, ChoiceError> {
    match given {
        Some(v) => {
            let theirs = v.rsplit('/').next().unwrap_or_default();
            if (theirs == "f32" || theirs == "f64") && theirs != T::NAME {
                return Err(ChoiceError::PrecisionMismatch {
                    variant: v.to_string(),
                    theirs: theirs.to_string(),
                    ours: T::NAME,
                });
            }
            Ok(VariantChoice::given(v.to_string()))
        }
        None => choose::<L, T>(formulation, device, law, order, size, no_tune, &mut |m| eprintln!("{m}")),
    }
}

/// What a device run adds to its report, for every formulation.
#[derive(Debug, Clone, serde::Serialize)]
pub struct DeviceRunInfo {
    /// Device name and selector.
    pub device: String,
    /// The kernel variant and how it was chosen.
    pub choice: VariantChoice,
    /// Seconds from the start of the run (device open excluded) to the end of the first time step.
    pub first_step_seconds: f64,
    /// Device time in kernels, seconds (events).
    pub kernel_seconds: f64,
    /// Of `kernel_seconds`, the per-step state check's.
    pub state_check_seconds: f64,
    /// Where the time loop's wall time went on the host (enqueueing steps; inspecting, which waits for the
    /// device; saving states).
    pub loop_split: dg_runtime::run_loop::LoopSplit,
    /// Whether each low-storage Runge–Kutta stage was folded into the right-hand side's kernel (new state and
    /// register written in the pass that computes L); reported by the runs that can fold.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stages_folded: Option<bool>,
    /// The library routine behind each GEMM shape the run used (cuBLAS or a cublasLt algorithm, chosen on the
    /// device by timing and checked against cuBLAS); absent where the run used no GEMM.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub gemm_routines: Vec<String>,
}

impl DeviceRunInfo {
    /// The report of a run on `device` that started at `started`; `known_seconds` of kernel time were reported
    /// as the kernels were submitted, the rest is waited for here ([`Device::settle`]). The first step ended
    /// `stats.first_step_seconds` into the time loop.
    pub fn new(
        device: &mut dyn Device,
        choice: VariantChoice,
        started: Instant,
        loop_started: Instant,
        stats: &dg_runtime::run_loop::LoopStats,
        known_seconds: f64,
    ) -> Result<Self, dg_runtime::backend::BackendError> {
        let kernel_seconds = known_seconds + device.settle()?;
        let fp = device.fingerprint();
        let before_loop = loop_started.duration_since(started).as_secs_f64();
        Ok(Self {
            device: format!("{} ({})", fp.name, fp.selector),
            choice,
            first_step_seconds: before_loop + stats.first_step_seconds,
            kernel_seconds,
            state_check_seconds: 0.0,
            loop_split: stats.split,
            stages_folded: None,
            gemm_routines: device.gemm_routines(),
        })
    }

    /// The same report with the per-step state check's device seconds.
    pub fn with_state_checks(mut self, check: &crate::StepCheck) -> Self {
        self.state_check_seconds = check.seconds();
        self
    }

    /// Whether the run's stages were folded into its right-hand-side kernel.
    pub fn with_stages_folded(mut self, folded: bool) -> Self {
        self.stages_folded = Some(folded);
        self
    }
}
