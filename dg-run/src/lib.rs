//! Running dg cases, for every formulation, through the shared time loop ([`dg_runtime::run_loop`]) and the
//! shared convergence study ([`dg_runtime::study`]).
//!
//! - [`formulations`]: the formulations this program offers — the one place a formulation is registered.
//! - [`winners`]: the kernel variant a device run uses (tuning database, exact or nearest size; tuned on first
//!   use; or the baseline), with where it came from; [`shipped_db`]: the shipped database compiled in.
//! - Runs of each family of cases, on the native CPU path or a device: [`maxwell_run`] (nodal triangles),
//!   [`euler_run`] and [`euler_study`] (modal triangles, or nodal ones for comparison), [`wave_run`]
//!   (tetrahedra), [`hex_run`] (hexahedra). Each prepares its problem, builds a stepper, hands it to the shared loop and reports.
//! - [`output`]: what a run writes (VTU, `.pvd` series, restart files) and the state it continues from.
//! - [`error`]: the one error type of every run; [`picture`]: PNG pictures of modal fields and line charts.
//! - [`registry`]: every law linked into the program, each able to open a tuner of any formulation.

/// What the law-registration macro's expansion names (not part of the API).
#[doc(hidden)]
pub mod __private {
    pub use dg_ir::inventory;
}

pub mod elliptic_run;
pub mod error;
pub mod euler_run;
pub mod euler_study;
pub mod formulations;
pub mod fv_run;
pub mod hex_run;
pub mod maxwell_run;
pub mod output;
pub mod partitioned;
pub mod partitioned_euler;
pub mod partitioned_fv;
pub mod partitioned_hex;
pub mod partitioned_tet;
pub mod picture;
pub mod registry;
pub mod run_options;
pub mod shipped_db;
mod split_device;
pub mod wave_run;
pub mod winners;

pub use dg_codegen::Precision;
pub use error::RunError;

/// f64 values in the CPU layout narrowed to a run's precision (exact for values widened from it).
pub fn narrowed<T: dg_core::Real>(values: &[f64]) -> Vec<T> {
    values.iter().map(|&v| T::from_f64(v)).collect()
}

/// A state widened to f64 (in parallel: states reach hundreds of millions of values).
pub fn widened<T: dg_core::Real>(q: &[T]) -> Vec<f64> {
    use rayon::prelude::*;
    q.par_iter().map(|v| v.as_f64()).collect()
}

/// The initial state as f64 values where the stability limit is estimated (at most
/// [`StabilityLimit::MAX_VALUES`](dg_runtime::stability::StabilityLimit::MAX_VALUES) values); `None` above it, where
/// the estimate is skipped and the loop's save before the first step reads the device's state instead (the same
/// values): a large state's widened copy would cost its memory and time for nothing.
pub fn initial_values_if_estimated<T: dg_core::Real>(q: &[T]) -> Option<Vec<f64>> {
    (q.len() <= dg_runtime::stability::StabilityLimit::MAX_VALUES).then(|| widened(q))
}

/// The name of where a run goes: the device's name and selector, or `cpu` for the native CPU path.
pub fn device_name(device: Option<&dyn dg_runtime::backend::Device>) -> String {
    match device {
        Some(d) => format!("{} ({})", d.fingerprint().name, d.fingerprint().selector),
        None => "cpu".into(),
    }
}

/// How far the energy of a linear law may grow over its initial value before a run counts as blown up: upwind
/// and central fluxes with the laws' boundary conditions never let it grow, so anything near this is instability.
pub const ENERGY_GROWTH_LIMIT: f64 = 100.0;

/// How far the largest |value| of a linear law's state may grow over the initial state's in the device runs'
/// per-step check ([`dg_runtime::state_check`]) before the run counts as blown up: ten times the L2 norm's
/// allowance under [`ENERGY_GROWTH_LIMIT`], since a pointwise maximum may grow where the energy does not.
pub const MAX_VALUE_GROWTH: f64 = 100.0;

/// The native CPU path's per-step verdict, the twin of [`StepCheck`]: `Some(reason)` when a value of the state is
/// not finite, or, for a `linear` law (one whose energy cannot grow), when its largest |value| exceeds
/// [`MAX_VALUE_GROWTH`] times the largest of `q0` (a blow-up a few steps long stays finite and, without this, ended
/// with a normal report).
pub fn host_step_verdict<T: dg_core::Real>(q0: &[T], linear: bool) -> impl Fn(&[T]) -> Option<String> + use<T> {
    use rayon::prelude::*;
    let largest = |q: &[T]| q.par_iter().map(|v| v.as_f64().abs()).reduce(|| 0.0, dg_core::max_or_nan);
    let initial = largest(q0);
    let growth = (linear && initial > 0.0).then_some(MAX_VALUE_GROWTH);
    // (one pass over the state per step: the largest |value| is not finite exactly when some value is not, and
    // only then are they counted for the message)
    move |q: &[T]| match growth {
        None => dg_runtime::run_loop::non_finite(q),
        Some(_) => match largest(q) {
            l if l.is_finite() => dg_runtime::state_check::verdict(l, initial, growth),
            _ => dg_runtime::run_loop::non_finite(q),
        },
    }
}

/// The per-step state check of a device run: compiled for `device` in `T`, with the initial state's largest
/// |value| and the growth it allows (`linear` laws only).
pub struct StepCheck {
    check: dg_runtime::state_check::StateCheck,
    initial: f64,
    growth: Option<f64>,
    seconds: std::cell::Cell<f64>,
}

impl StepCheck {
    /// The check of a run from `q0`.
    pub fn new<T: dg_core::Real>(
        device: &mut dyn dg_runtime::backend::Device,
        q0: &[T],
        linear: bool,
    ) -> Result<Self, RunError> {
        let check = dg_runtime::state_check::StateCheck::new(device, std::mem::size_of::<T>() == 8)?;
        use rayon::prelude::*;
        let initial = q0.par_iter().map(|v| v.as_f64().abs()).reduce(|| 0.0, dg_core::max_or_nan);
        let growth = (linear && initial > 0.0).then_some(MAX_VALUE_GROWTH);
        Ok(Self { check, initial, growth, seconds: std::cell::Cell::new(0.0) })
    }

    /// Device seconds spent in the checks so far.
    pub fn seconds(&self) -> f64 {
        self.seconds.get()
    }

    /// Checks state buffer `q` after a step and waits for the verdict: `Some(reason)` stops the run; the kernel's
    /// seconds are added to `seconds`.
    pub fn after_step(
        &self,
        device: &mut dyn dg_runtime::backend::Device,
        q: dg_runtime::backend::BufferId,
        seconds: &mut f64,
    ) -> Result<Option<String>, dg_runtime::backend::BackendError> {
        Ok(self.check.max_abs(device, q)?.and_then(|(largest, s)| {
            *seconds += s;
            self.seconds.set(self.seconds.get() + s);
            dg_runtime::state_check::verdict(largest, self.initial, self.growth)
        }))
    }

    /// The per-step check of a time loop at `at`: first the verdict on the previous step's state, whose check was
    /// enqueued behind that step (a failure names that step); then, at the sampled steps, the last and those whose
    /// state the loop hands out (checkpoints, outputs), `q` is checked and waited for (a state kept as the last
    /// good one, written or ended with is judged first); at every other step its check is only enqueued, so that
    /// the host goes on to enqueue the next step while the device runs this one (waiting for every check had left
    /// the device idle between steps: 9–13 µs per right-hand side of the Euler vortex). Device seconds known at
    /// once are added to `seconds`; those of the enqueued checks arrive with the loop's other kernels (CUDA).
    pub fn after_step_pipelined(
        &self,
        device: &mut dyn dg_runtime::backend::Device,
        q: dg_runtime::backend::BufferId,
        at: dg_runtime::run_loop::StepPoint,
        seconds: &mut f64,
    ) -> Result<Option<String>, dg_runtime::backend::BackendError> {
        if let Some(largest) = self.check.collect(device)? {
            if let Some(reason) = dg_runtime::state_check::verdict(largest, self.initial, self.growth) {
                return Ok(Some(format!("{reason} (the state after step {})", at.step.saturating_sub(1))));
            }
        }
        if at.sampled() || at.last || at.hands_out {
            return self.after_step(device, q, seconds);
        }
        if let Some(s) = self.check.submit(device, q)? {
            *seconds += s;
            self.seconds.set(self.seconds.get() + s);
        }
        Ok(None)
    }
}

/// Whether a run of `law` whose boundary faces `binding` binds may take energy growth for a blow-up: a linear law
/// without a source whose every bound condition is homogeneous ([`dg_ir::LawIr::energy_cannot_grow`]; a prescribed
/// inflow may feed the energy).
pub fn energy_cannot_grow<L: dg_core::law::ConservationLaw>(
    law: &L,
    binding: &dg_runtime::cpu::BoundaryBinding,
) -> bool {
    let names = law.boundary_names();
    let bound = binding.condition_of_tag.iter().filter_map(|&c| names.get(c).copied());
    dg_runtime::formulation::law_ir(law).is_ok_and(|ir| ir.energy_cannot_grow(bound))
}

/// `Some(reason)` when `energy` exceeds [`ENERGY_GROWTH_LIMIT`] times `initial` (or is not a number).
pub fn energy_growth(initial: f64, energy: f64) -> Option<String> {
    let bound = ENERGY_GROWTH_LIMIT * initial.max(f64::MIN_POSITIVE);
    (energy.is_nan() || energy > bound).then(|| {
        format!(
            "the energy grew from {initial:.4e} to {energy:.4e}, more than {ENERGY_GROWTH_LIMIT}×: the scheme is \
             unstable at this step; reduce --cfl or --dt"
        )
    })
}

/// Checks that every tag of `bindings` (`--bc TAG=CONDITION`) is one of the mesh's boundary tags `tags`.
pub fn check_bindings(bindings: &std::collections::HashMap<String, String>, tags: &[String]) -> Result<(), RunError> {
    let mut unknown: Vec<&String> = bindings.keys().filter(|t| !tags.contains(t)).collect();
    unknown.sort();
    match unknown.first() {
        None => Ok(()),
        Some(tag) => Err(RunError::InvalidOption(format!(
            "--bc {tag}=…: the mesh has no boundary tag `{tag}`; its tags are {tags:?}"
        ))),
    }
}

/// Says once, on standard error, when a run's state was too large for the stability estimate.
pub fn note_unestimated(limit: &dg_runtime::stability::StabilityLimit, values: usize) {
    if !limit.is_estimated() {
        eprintln!(
            "note: the state has {values} values, above the {} the stability estimate handles: the CFL rule's step \
             is taken unchecked (a blow-up still stops the run)",
            dg_runtime::stability::StabilityLimit::MAX_VALUES
        );
    }
}

/// The step of a uniform-step run (the one choice every family makes): `opts.dt` or the CFL `rule` at `opts.cfl`,
/// checked against `scheme`'s stability `limit` (refused above it unless `opts.allow_unstable`; `--dt` with `--cfl`
/// refused); without either, the rule at `default_cfl` or the limit, whichever is smaller.
pub fn uniform_step(
    opts: &run_options::CommonRunOptions,
    scheme: dg_runtime::time::Scheme,
    rule: impl Fn(f64) -> f64,
    default_cfl: f64,
    limit: &dg_runtime::stability::StabilityLimit,
) -> Result<f64, RunError> {
    let refused = RunError::InvalidOption;
    let allow_unstable = opts.allow_unstable;
    match (opts.dt, opts.cfl) {
        (Some(_), Some(_)) => Err(refused("give --dt or --cfl, not both".into())),
        (Some(dt), None) => limit.check(dt, ("--dt", dt), scheme, allow_unstable).map_err(refused),
        (None, Some(cfl)) if !(cfl.is_finite() && cfl > 0.0) => {
            Err(refused(format!("the CFL number must be positive and finite, got {cfl}")))
        }
        (None, Some(cfl)) => limit.check(rule(cfl), ("--cfl", cfl), scheme, allow_unstable).map_err(refused),
        (None, None) => Ok(rule(default_cfl).min(limit.dt)),
    }
}
