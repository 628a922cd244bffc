//! The one time loop of every run, on any formulation and backend.
//!
//! A formulation's run builds a [`Stepper`] (its discrete system and state on the CPU or a device; most are an
//! [`Integrated`] system) and hands it to [`run`] with the final time and a [`StepRule`]. The loop chooses each
//! step (uniform steps that end exactly at the final time, or the stepper's stable step at the current state),
//! refuses step counts no run can finish, asks the stepper to inspect its state after every step (it decides
//! what that costs: a finite-value check on the CPU, a read-back every few steps on a device) and stops with the
//! step, time and reason when the state is no longer admissible. Its [`LoopStats`] feed every report.

use crate::restart::{LoopPosition, LoopState, Schedule, Snapshot};
use crate::time::{Integrator, IntegratorState, OdeSystem, Scheme};
use std::time::Instant;

/// The most steps a run may take: a step rule that needs more is refused before the first step.
pub const MAX_STEPS: u64 = 1_000_000_000;

/// Where the loop stands when it asks a stepper to inspect its state.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepPoint {
    /// Steps taken so far (1 after the first step).
    pub step: u64,
    /// Time reached.
    pub t: f64,
    /// Whether this is the last step of the run.
    pub last: bool,
    /// Whether the loop hands this step's state out after the inspection (a checkpoint or an output is due).
    pub hands_out: bool,
}

/// Beyond step 32, the steps [`StepPoint::sampled`] picks are the multiples of this.
pub const SAMPLE_EVERY: u64 = 64;

impl StepPoint {
    /// The steps where an expensive inspection looks (a device read-back) and where the last good state is kept:
    /// after steps 1, 2, 4, … 32 (a step beyond the stability limit blows up within a few steps), then every
    /// [`SAMPLE_EVERY`] steps, and after the last (inspected only: nothing follows it that a kept state could
    /// serve).
    pub fn sampled(&self) -> bool {
        self.last || self.step.is_power_of_two() || self.step.is_multiple_of(SAMPLE_EVERY)
    }
}

/// A discrete problem advancing in time: a formulation's system and its state, on some backend.
pub trait Stepper {
    /// What a step or an inspection can fail with (a kernel launch, a read-back).
    type Error;

    /// Advances the state from `t` to `t + dt`.
    fn step(&mut self, t: f64, dt: f64) -> Result<(), Self::Error>;

    /// The largest stable step at the current state, for [`StepRule::Adaptive`]; `None` when there is none (the
    /// state is no longer admissible, or the stepper has no rule of its own).
    fn stable_dt(&mut self) -> Result<Option<f64>, Self::Error> {
        Ok(None)
    }

    /// Inspects the state after a step: `Some(reason)` stops the run as not admissible. Called after every step;
    /// a stepper whose check is expensive may look only every few steps, but must look when `at.last` is set.
    fn inspect(&mut self, at: StepPoint) -> Result<Option<String>, Self::Error> {
        let _ = at;
        Ok(None)
    }

    /// Right-hand-side evaluations so far.
    fn rhs_evaluations(&self) -> u64;

    /// The whole state the stepper needs to continue (solution, stored right-hand sides, counters); `None` when
    /// it cannot save it.
    fn save(&mut self) -> Result<Option<Snapshot>, Self::Error> {
        Ok(None)
    }

    /// Keeps a copy of the whole state where the stepper holds it (a copy on the device), for
    /// [`Stepper::save_kept`] to read only if the run stops: the loop's last good state without a read-back.
    /// `false` when the stepper cannot (the loop then saves the state at once).
    fn keep(&mut self) -> Result<bool, Self::Error> {
        Ok(false)
    }

    /// The state last kept by [`Stepper::keep`], as [`Stepper::save`] would have given it then; `None` when
    /// nothing was kept.
    fn save_kept(&mut self) -> Result<Option<Snapshot>, Self::Error> {
        Ok(None)
    }

    /// Continues from a state [`Stepper::save`] gave; `Options` when the snapshot does not fit this stepper.
    fn restore(&mut self, snapshot: &Snapshot) -> Result<(), LoopError<Self::Error>> {
        let _ = snapshot;
        Err(LoopError::Options("this run cannot continue from a saved state".into()))
    }
}

/// How the loop chooses its steps.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum StepRule {
    /// Steps of at most this size, all equal, ending exactly at the final time (linear problems, constant
    /// coefficients, schemes that need a constant step).
    Uniform(f64),
    /// The stepper's [`Stepper::stable_dt`] at every step, the last ones evened out to end at the final time.
    Adaptive,
}

/// Why the loop stopped early or could not start.
#[derive(Debug, thiserror::Error)]
pub enum LoopError<E> {
    /// The final time or the step is not a positive finite number, or the run would need too many steps.
    #[error("{0}")]
    Options(String),
    /// The state stopped being admissible.
    #[error("the run stopped at step {step} (t = {time:.6e}): {reason}")]
    NotAdmissible {
        /// Steps taken.
        step: u64,
        /// Time reached.
        time: f64,
        /// What the inspection found.
        reason: String,
        /// The state of the last sampled inspection that passed, when [`Persistence::keep_last_good`] asked.
        last_good: Option<Box<LoopState>>,
    },
    /// Writing a checkpoint or an output failed.
    #[error("{0}")]
    Output(String),
    /// The system failed (a kernel launch, a device call).
    #[error(transparent)]
    System(E),
}

impl<E> LoopError<E> {
    /// The same error with the system's error converted.
    pub fn map_system<F>(self, f: impl FnOnce(E) -> F) -> LoopError<F> {
        match self {
            LoopError::Options(m) => LoopError::Options(m),
            LoopError::NotAdmissible { step, time, reason, last_good } => {
                LoopError::NotAdmissible { step, time, reason, last_good }
            }
            LoopError::Output(m) => LoopError::Output(m),
            LoopError::System(e) => LoopError::System(f(e)),
        }
    }
}

/// What a time loop measured.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct LoopStats {
    /// Steps taken.
    pub steps: u64,
    /// Smallest and largest step taken.
    pub dt_range: [f64; 2],
    /// Final time reached.
    pub t_end: f64,
    /// Right-hand-side evaluations.
    pub rhs_evaluations: u64,
    /// Wall time of the loop, seconds.
    pub wall_seconds: f64,
    /// Wall time of the first step, seconds (kernel builds and first launches show here).
    pub first_step_seconds: f64,
    /// Where the loop's wall time went on the host.
    pub split: LoopSplit,
}

/// The loop's wall time by what the host was doing: stepping (enqueueing kernels, or computing on the CPU path),
/// inspecting states (per-step checks, read-backs), and saving them (the last good state, checkpoints, outputs).
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize)]
pub struct LoopSplit {
    /// Seconds in the stepper's steps.
    pub stepping_seconds: f64,
    /// Seconds in inspections.
    pub inspecting_seconds: f64,
    /// Seconds saving states.
    pub saving_seconds: f64,
}

/// Steps of at most `dt_max`, all equal, that end exactly at `t_end`: (steps, dt).
pub fn uniform_steps<E>(t_end: f64, dt_max: f64) -> Result<(u64, f64), LoopError<E>> {
    check_final_time(t_end)?;
    if !(dt_max.is_finite() && dt_max > 0.0) {
        return Err(LoopError::Options(format!("the time step must be a positive finite number (got {dt_max:e})")));
    }
    let steps = (t_end / dt_max).ceil().max(1.0);
    if steps > MAX_STEPS as f64 {
        // (a huge t_end over a tiny step overflows to infinity; a huge t_end prints as hundreds of digits with {})
        let needs = if steps.is_finite() { format!("{steps:.3e}") } else { "more than 1e308".to_string() };
        let t = if t_end < 1e6 { format!("{t_end}") } else { format!("{t_end:e}") };
        return Err(LoopError::Options(format!(
            "a step of {dt_max:e} needs {needs} steps to reach t = {t}; at most {MAX_STEPS} are allowed"
        )));
    }
    let steps = steps as u64;
    Ok((steps, t_end / steps as f64))
}

fn check_final_time<E>(t_end: f64) -> Result<(), LoopError<E>> {
    if t_end.is_finite() && t_end > 0.0 {
        Ok(())
    } else {
        Err(LoopError::Options(format!("the final time must be a positive finite number (got {t_end:e})")))
    }
}

/// The step to take from `t` under the rule's `dt_rule`, the last steps evened out to end at `t_end`: (dt, t + dt).
fn adaptive_step(t: f64, t_end: f64, dt_rule: f64) -> (f64, f64) {
    let remaining = t_end - t;
    if dt_rule >= remaining {
        (remaining, t_end)
    } else {
        let dt = remaining / (remaining / dt_rule).ceil();
        (dt, t + dt)
    }
}

/// Advances `stepper` from t = 0 to `t_end` under `rule`, inspecting the state after every step;
/// `progress(t, t_end)` after each.
pub fn run<S: Stepper>(
    stepper: &mut S,
    t_end: f64,
    rule: StepRule,
    progress: &mut dyn FnMut(f64, f64),
) -> Result<LoopStats, LoopError<S::Error>> {
    run_persisted(stepper, t_end, rule, &mut Persistence::default(), progress)
}

/// Why the loop hands its state to [`Persistence::sink`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StateEvent {
    /// A checkpoint is due ([`Persistence::checkpoint_every`]).
    Checkpoint,
    /// An output time was reached ([`Persistence::output_every`]).
    Output,
}

/// The receiver of a run's states: checkpoints and outputs. An error stops the run.
pub type StateSink<'a> = dyn FnMut(StateEvent, &LoopState) -> Result<(), String> + 'a;

/// What a run keeps besides its result: where it continues from, when it hands its state out, whether it keeps
/// the last good state for a run that stops.
#[derive(Default)]
pub struct Persistence<'a> {
    /// Continue from this state (restored into the stepper, the loop's position and schedule taken from it).
    pub resume: Option<&'a LoopState>,
    /// Hand the state to `sink` as a [`StateEvent::Checkpoint`] after every this many steps.
    pub checkpoint_every: Option<u64>,
    /// Hand the state to `sink` as a [`StateEvent::Output`] at the start and after the first step at or past each
    /// multiple of this time.
    pub output_every: Option<f64>,
    /// Receives the states.
    pub sink: Option<&'a mut StateSink<'a>>,
    /// Keep the state of the last sampled inspection that passed ([`StepPoint::sampled`]; the start counts): it
    /// comes with [`LoopError::NotAdmissible`] when the run stops.
    pub keep_last_good: bool,
    /// Beyond step 32, keep the last good state at most once per this many seconds of wall time (saving a large
    /// device state means reading it back); 0 keeps it at every sampled step.
    pub last_good_interval: f64,
}

/// The state of `stepper` at `position`, or `Options` when it cannot save its state.
fn saved<S: Stepper + ?Sized>(stepper: &mut S, position: LoopPosition) -> Result<LoopState, LoopError<S::Error>> {
    match stepper.save().map_err(LoopError::System)? {
        Some(snapshot) => Ok(LoopState { position, snapshot }),
        None => Err(LoopError::Options("this run cannot save its state (checkpoints, outputs)".into())),
    }
}

/// [`run`], continuing from and handing out states as `persist` asks. The stepper is taken as a trait object:
/// the loop is compiled once per error type rather than once per stepper, and a step costs a kernel launch or a
/// pass over the mesh, next to which a call through the vtable is nothing.
pub fn run_persisted<E>(
    stepper: &mut dyn Stepper<Error = E>,
    t_end: f64,
    rule: StepRule,
    persist: &mut Persistence<'_>,
    progress: &mut dyn FnMut(f64, f64),
) -> Result<LoopStats, LoopError<E>> {
    check_final_time(t_end)?;
    if persist.checkpoint_every == Some(0) || persist.output_every.is_some_and(|t| !(t.is_finite() && t > 0.0)) {
        return Err(LoopError::Options("checkpoint and output intervals must be positive".into()));
    }
    let mut uniform = match rule {
        StepRule::Uniform(dt_max) => Some(uniform_steps(t_end, dt_max)?),
        StepRule::Adaptive => None,
    };
    let schedule = |uniform: Option<(u64, f64)>| match uniform {
        Some((steps, dt)) => Schedule::Uniform { steps, dt },
        None => Schedule::Adaptive,
    };
    let (mut t, mut step, mut dt_range, mut first_step_seconds) = (0.0f64, 0u64, [f64::INFINITY, 0.0f64], 0.0);
    if let Some(resume) = persist.resume {
        let p = resume.position;
        if p.t_end != t_end {
            return Err(LoopError::Options(format!(
                "the restart state runs to t = {}, this run to t = {t_end}",
                p.t_end
            )));
        }
        uniform = match (p.schedule, uniform) {
            (Schedule::Uniform { steps, dt }, Some(_)) => Some((steps, dt)),
            (Schedule::Adaptive, None) => None,
            _ => return Err(LoopError::Options("the restart state was stepped with another step rule".into())),
        };
        stepper.restore(&resume.snapshot)?;
        (t, step, dt_range) = (p.t, p.step, p.dt_range);
    }
    let position = |step, t, dt_range| LoopPosition { step, t, t_end, schedule: schedule(uniform), dt_range };
    let mut last_good = LastGood::None;
    if persist.keep_last_good {
        // a stepper that keeps copies where its state lives makes the first one now, before the loop's clock
        // starts: the copies are allocated here, and no saved copy of the whole state is dropped inside the loop
        // (freeing a 345 MB host copy takes about 21 ms, and a device waits behind the host meanwhile)
        last_good = if stepper.keep().map_err(LoopError::System)? {
            LastGood::Kept(position(step, t, dt_range))
        } else {
            LastGood::Saved(Box::new(saved(stepper, position(step, t, dt_range))?))
        };
    }
    let mut next_output = None;
    if let Some(every) = persist.output_every {
        let k = (t / every).floor();
        if persist.resume.is_none() {
            hand_out(stepper, persist, StateEvent::Output, position(step, t, dt_range))?;
        }
        next_output = Some((k + 1.0) * every);
    }
    let start = Instant::now();
    let mut last_saved = start;
    let mut split = LoopSplit::default();
    loop {
        let (dt, t_next, last) = match uniform {
            Some((steps, dt)) => {
                if step == steps {
                    break;
                }
                let t_next = if step + 1 == steps { t_end } else { (step + 1) as f64 * dt };
                (dt, t_next, step + 1 == steps)
            }
            None => {
                if t >= t_end * (1.0 - 1e-12) {
                    break;
                }
                let dt_rule = match stepper.stable_dt().map_err(LoopError::System)? {
                    Some(dt) if dt.is_finite() && dt > 0.0 => dt,
                    other => {
                        let reason = match other {
                            Some(dt) => format!("the stable time step is {dt:e}"),
                            None => "no stable time step at this state".to_string(),
                        };
                        return Err(stopped(stepper, step, t, reason, last_good));
                    }
                };
                if dt_rule < t_end * 1e-12 || (t_end - t) / dt_rule > MAX_STEPS as f64 {
                    let reason = format!("the stable time step fell to {dt_rule:e}, too small to reach t = {t_end}");
                    return Err(stopped(stepper, step, t, reason, last_good));
                }
                let (dt, t_next) = adaptive_step(t, t_end, dt_rule);
                (dt, t_next, t_next >= t_end)
            }
        };
        let started = Instant::now();
        stepper.step(t, dt).map_err(LoopError::System)?;
        split.stepping_seconds += started.elapsed().as_secs_f64();
        (t, step, dt_range) = (t_next, step + 1, [dt_range[0].min(dt), dt_range[1].max(dt)]);
        if first_step_seconds == 0.0 {
            first_step_seconds = started.elapsed().as_secs_f64();
            crate::startup::mark(crate::startup::FIRST_STEP);
        }
        let checkpoint_due = persist.checkpoint_every.is_some_and(|n| step.is_multiple_of(n));
        // `next_output` is set only when outputs are asked for
        let output_due = next_output.is_some_and(|due| t >= due * (1.0 - 1e-12) || last);
        let at = StepPoint { step, t, last, hands_out: checkpoint_due || output_due };
        let stepped = Instant::now();
        if let Some(reason) = stepper.inspect(at).map_err(LoopError::System)? {
            return Err(stopped(stepper, step, t, reason, last_good));
        }
        let inspected = Instant::now();
        split.inspecting_seconds += inspected.duration_since(stepped).as_secs_f64();
        let due = step <= 32 || last_saved.elapsed().as_secs_f64() >= persist.last_good_interval;
        if persist.keep_last_good && at.sampled() && !last {
            // a stepper that keeps a copy where its state lives does so at every sampled step but the last (whose
            // state passed and ends the run); otherwise the state is read out, after step 32 at most once per
            // `last_good_interval`
            if stepper.keep().map_err(LoopError::System)? {
                last_good = LastGood::Kept(position(step, t, dt_range));
            } else if due {
                last_good = LastGood::Saved(Box::new(saved(stepper, position(step, t, dt_range))?));
                last_saved = Instant::now();
            }
        }
        if checkpoint_due {
            hand_out(stepper, persist, StateEvent::Checkpoint, position(step, t, dt_range))?;
        }
        if let (true, Some(due), Some(every)) = (output_due, next_output, persist.output_every) {
            hand_out(stepper, persist, StateEvent::Output, position(step, t, dt_range))?;
            // the next multiple of `every` after `t`, with the same tolerance: a step that lands a hair short of a
            // multiple counts as reaching it, and must not make the next step write again
            let mut next = due + every;
            while next <= t * (1.0 + 1e-12) {
                next += every;
            }
            next_output = Some(next);
        }
        split.saving_seconds += inspected.elapsed().as_secs_f64();
        progress(t, t_end);
    }
    Ok(LoopStats {
        steps: step,
        dt_range,
        t_end,
        rhs_evaluations: stepper.rhs_evaluations(),
        wall_seconds: start.elapsed().as_secs_f64(),
        first_step_seconds,
        split,
    })
}

/// The loop's last good state: none, saved, or kept by the stepper at a position (read only if the run stops).
enum LastGood {
    None,
    Saved(Box<LoopState>),
    Kept(LoopPosition),
}

/// The error of a run that stops at `step`, `time` for `reason`, with its last good state read out if the stepper
/// kept it; a failure to read it is the error instead.
fn stopped<S: Stepper + ?Sized>(
    stepper: &mut S,
    step: u64,
    time: f64,
    reason: String,
    last_good: LastGood,
) -> LoopError<S::Error> {
    let last_good = match last_good {
        LastGood::None => None,
        LastGood::Saved(state) => Some(state),
        LastGood::Kept(position) => match stepper.save_kept() {
            Ok(snapshot) => snapshot.map(|snapshot| Box::new(LoopState { position, snapshot })),
            Err(e) => return LoopError::System(e),
        },
    };
    LoopError::NotAdmissible { step, time, reason, last_good }
}

/// Saves the stepper's state at `position` and hands it to the sink as `event`.
fn hand_out<S: Stepper + ?Sized>(
    stepper: &mut S,
    persist: &mut Persistence<'_>,
    event: StateEvent,
    position: LoopPosition,
) -> Result<(), LoopError<S::Error>> {
    let Some(sink) = persist.sink.as_mut() else {
        return Ok(());
    };
    let state = saved(stepper, position)?;
    sink(event, &state).map_err(LoopError::Output)
}

/// The stable-step rule of an [`Integrated`] stepper.
pub type StableDt<'a, S> =
    Box<dyn FnMut(&mut S, &<S as OdeSystem>::State) -> Result<Option<f64>, <S as OdeSystem>::Error> + 'a>;
/// The state inspection of an [`Integrated`] stepper.
pub type Inspect<'a, S> =
    Box<dyn FnMut(&mut S, &<S as OdeSystem>::State, StepPoint) -> Result<Option<String>, <S as OdeSystem>::Error> + 'a>;

/// Reads a state of an [`Integrated`] stepper out as f64 values in the CPU layout (checkpoints).
pub type ReadValues<'a, S> =
    Box<dyn FnMut(&mut S, &<S as OdeSystem>::State) -> Result<Vec<f64>, <S as OdeSystem>::Error> + 'a>;
/// Writes f64 values in the CPU layout into a state of an [`Integrated`] stepper (restarts).
pub type WriteValues<'a, S> =
    Box<dyn FnMut(&mut S, &mut <S as OdeSystem>::State, &[f64]) -> Result<(), <S as OdeSystem>::Error> + 'a>;

/// A stepper made of an [`OdeSystem`], its state and one of the generic integrators; the formulation supplies
/// the stable-step rule, the inspection and the reading and writing of states as closures.
pub struct Integrated<'a, S: OdeSystem> {
    /// The system.
    pub system: S,
    /// The state.
    pub state: S::State,
    integrator: Integrator<S>,
    stable_dt: Option<StableDt<'a, S>>,
    inspect: Option<Inspect<'a, S>>,
    values: Option<(ReadValues<'a, S>, WriteValues<'a, S>)>,
    /// The state's values as the run starts, handed to the first save instead of reading the state back.
    initial: Option<Vec<f64>>,
    /// Copies of the state and the integrator's stored right-hand sides ([`Stepper::keep`]), and the
    /// integrator's state when they were made.
    kept: Vec<S::State>,
    kept_integrator: Option<IntegratorState>,
}

impl<'a, S: OdeSystem> Integrated<'a, S> {
    /// `system` and `state` stepped by `scheme`, with no stable-step rule, no inspection and no state access yet.
    pub fn new(system: S, state: S::State, scheme: Scheme) -> Self {
        Self {
            system,
            state,
            integrator: Integrator::new(scheme),
            stable_dt: None,
            inspect: None,
            values: None,
            initial: None,
            kept: Vec::new(),
            kept_integrator: None,
        }
    }

    /// The values the state was written from (what reading it would give, as f64 in the CPU layout): the loop's
    /// save before the first step takes them instead of reading a device state back.
    pub fn with_initial_values(mut self, values: Vec<f64>) -> Self {
        self.initial = Some(values);
        self
    }

    /// How states are read out and written back as f64 values (checkpoints and restarts need both).
    pub fn with_values(
        mut self,
        read: impl FnMut(&mut S, &S::State) -> Result<Vec<f64>, S::Error> + 'a,
        write: impl FnMut(&mut S, &mut S::State, &[f64]) -> Result<(), S::Error> + 'a,
    ) -> Self {
        self.values = Some((Box::new(read), Box::new(write)));
        self
    }

    /// The stable-step rule ([`StepRule::Adaptive`]).
    pub fn with_stable_dt(mut self, rule: impl FnMut(&mut S, &S::State) -> Result<Option<f64>, S::Error> + 'a) -> Self {
        self.stable_dt = Some(Box::new(rule));
        self
    }

    /// The inspection after each step.
    pub fn with_inspect(
        mut self,
        inspect: impl FnMut(&mut S, &S::State, StepPoint) -> Result<Option<String>, S::Error> + 'a,
    ) -> Self {
        self.inspect = Some(Box::new(inspect));
        self
    }

    /// The system and the state, once the loop is done.
    pub fn into_parts(self) -> (S, S::State) {
        (self.system, self.state)
    }
}

impl<S: OdeSystem> Stepper for Integrated<'_, S> {
    type Error = S::Error;

    fn step(&mut self, t: f64, dt: f64) -> Result<(), S::Error> {
        self.integrator.step(&mut self.system, t, dt, &mut self.state)
    }

    fn stable_dt(&mut self) -> Result<Option<f64>, S::Error> {
        match self.stable_dt.as_mut() {
            Some(rule) => rule(&mut self.system, &self.state),
            None => Ok(None),
        }
    }

    fn inspect(&mut self, at: StepPoint) -> Result<Option<String>, S::Error> {
        match self.inspect.as_mut() {
            Some(inspect) => inspect(&mut self.system, &self.state, at),
            None => Ok(None),
        }
    }

    fn rhs_evaluations(&self) -> u64 {
        self.integrator.rhs_evaluations()
    }

    fn save(&mut self) -> Result<Option<Snapshot>, S::Error> {
        let Some((read, _)) = self.values.as_mut() else {
            return Ok(None);
        };
        let (state, history) = self.integrator.saved();
        let values = match self.initial.take() {
            Some(initial) if state.rhs_evaluations == 0 => initial,
            _ => read(&mut self.system, &self.state)?,
        };
        let mut arrays = vec![("state".to_string(), values)];
        for (i, h) in history.into_iter().enumerate() {
            arrays.push((format!("history.{i}"), read(&mut self.system, h)?));
        }
        let stepper = serde_json::to_value(state).unwrap_or_default();
        Ok(Some(Snapshot { stepper, arrays }))
    }

    /// Copies the state (and AB3's stored right-hand sides) into scratch states of the system's own with one
    /// update each: on a device, a copy on the device instead of a read-back.
    fn keep(&mut self) -> Result<bool, S::Error> {
        if self.values.is_none() {
            return Ok(false);
        }
        let (state, history) = self.integrator.saved();
        while self.kept.len() < 1 + history.len() {
            let copy = self.system.zeros_like(&self.state)?;
            self.kept.push(copy);
        }
        let (first, rest) = self.kept.split_at_mut(1);
        self.system.update(&mut first[0], 0.0, &[(1.0, &self.state)])?;
        for (copy, h) in rest.iter_mut().zip(history) {
            self.system.update(copy, 0.0, &[(1.0, h)])?;
        }
        self.kept_integrator = Some(state);
        Ok(true)
    }

    fn save_kept(&mut self) -> Result<Option<Snapshot>, S::Error> {
        let (Some((read, _)), Some(state)) = (self.values.as_mut(), self.kept_integrator.as_ref()) else {
            return Ok(None);
        };
        let mut arrays = Vec::new();
        for (i, copy) in self.kept.iter().take(1 + state.valid).enumerate() {
            let name = if i == 0 { "state".to_string() } else { format!("history.{}", i - 1) };
            arrays.push((name, read(&mut self.system, copy)?));
        }
        let stepper = serde_json::to_value(state).unwrap_or_default();
        Ok(Some(Snapshot { stepper, arrays }))
    }

    fn restore(&mut self, snapshot: &Snapshot) -> Result<(), LoopError<S::Error>> {
        let refuse = |m: String| LoopError::Options(format!("cannot continue from the saved state: {m}"));
        self.initial = None;
        let Some((read, write)) = self.values.as_mut() else {
            return Err(refuse("this run cannot write its state".into()));
        };
        let state: IntegratorState =
            serde_json::from_value(snapshot.stepper.clone()).map_err(|e| refuse(format!("integrator: {e}")))?;
        let len = read(&mut self.system, &self.state).map_err(LoopError::System)?.len();
        let array = |name: &str| match snapshot.array(name) {
            Some(v) if v.len() == len => Ok(v),
            Some(v) => Err(refuse(format!("`{name}` holds {} values, this run's state {len}", v.len()))),
            None => Err(refuse(format!("it has no `{name}`"))),
        };
        write(&mut self.system, &mut self.state, array("state")?).map_err(LoopError::System)?;
        let slots = self.integrator.restore_slots(&mut self.system, &self.state, &state).map_err(LoopError::System)?;
        for (i, slot) in slots.map_err(refuse)?.into_iter().enumerate() {
            write(&mut self.system, slot, array(&format!("history.{i}"))?).map_err(LoopError::System)?;
        }
        Ok(())
    }
}

impl<'a, S: OdeSystem<State = Vec<T>>, T: dg_core::Real> Integrated<'a, S> {
    /// [`Integrated::with_values`] for a state held on the host.
    pub fn with_host_values(self) -> Self {
        self.with_values(
            |_, q| Ok(q.iter().map(|v| v.as_f64()).collect()),
            |_, q, v| {
                write_host(q, v);
                Ok(())
            },
        )
    }
}

/// Writes f64 values into a host state (rounded to its precision; exact for values read from one).
pub fn write_host<T: dg_core::Real>(q: &mut [T], values: &[f64]) {
    for (x, v) in q.iter_mut().zip(values) {
        *x = T::from_f64(*v);
    }
}

/// `Some(reason)` when `values` holds a NaN or an infinity: the inspection every formulation starts with.
pub fn non_finite<T: dg_core::Real>(values: &[T]) -> Option<String> {
    use rayon::prelude::*;
    let bad = values.par_iter().filter(|v| !v.as_f64().is_finite()).count();
    (bad > 0).then(|| format!("{bad} of {} values are no longer finite; reduce --cfl or --dt", values.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// dq/dt = λq on one value.
    struct Decay {
        lambda: f64,
    }

    impl OdeSystem for Decay {
        type State = Vec<f64>;
        type Error = std::convert::Infallible;
        fn rhs(&mut self, _t: f64, q: &Vec<f64>, out: &mut Vec<f64>) -> Result<(), Self::Error> {
            out[0] = self.lambda * q[0];
            Ok(())
        }
        fn zeros_like(&mut self, like: &Vec<f64>) -> Result<Vec<f64>, Self::Error> {
            Ok(vec![0.0; like.len()])
        }
        fn update(&mut self, y: &mut Vec<f64>, a: f64, terms: &[(f64, &Vec<f64>)]) -> Result<(), Self::Error> {
            for (i, v) in y.iter_mut().enumerate() {
                *v = a * *v + terms.iter().map(|(c, x)| c * x[i]).sum::<f64>();
            }
            Ok(())
        }
    }

    fn decay(lambda: f64) -> Integrated<'static, Decay> {
        Integrated::new(Decay { lambda }, vec![1.0], Scheme::Rk4)
            .with_inspect(|_, q, _| Ok(non_finite(q)))
            .with_stable_dt(|sys, _| Ok(Some(1.0 / sys.lambda.abs())))
    }

    /// The decay from 1 with RK4, its state read and written as host values, every read counted in `reads`, and
    /// its initial values given.
    fn counting_reads(lambda: f64, reads: &std::cell::Cell<usize>) -> Integrated<'_, Decay> {
        Integrated::new(Decay { lambda }, vec![1.0], Scheme::Rk4)
            .with_values(
                |_, q: &Vec<f64>| {
                    reads.set(reads.get() + 1);
                    Ok(q.clone())
                },
                |_, q, v| {
                    q.copy_from_slice(v);
                    Ok(())
                },
            )
            .with_initial_values(vec![1.0])
    }

    #[test]
    fn the_first_save_takes_the_initial_values_and_later_ones_read_the_state() {
        let reads = std::cell::Cell::new(0);
        let mut s = counting_reads(-1.0, &reads);
        let first = s.save().unwrap().expect("a snapshot");
        assert_eq!((first.array("state"), reads.get()), (Some(&[1.0][..]), 0), "no read before the first step");
        let again = s.save().unwrap().expect("a snapshot");
        assert_eq!((again.array("state"), reads.get()), (Some(&[1.0][..]), 1), "given once, then read");
        let mut s = s.with_initial_values(vec![1.0]);
        s.step(0.0, 0.1).unwrap();
        let stepped = s.save().unwrap().expect("a snapshot");
        assert_eq!(stepped.array("state"), Some(&s.state[..]), "after a step the state is read, not the initial");
        assert!(s.state[0] < 1.0);
        let mut s = s.with_initial_values(vec![5.0]);
        s.restore(&stepped).unwrap();
        let restored = s.save().unwrap().expect("a snapshot");
        assert_eq!(restored.array("state"), stepped.array("state"), "a restored run never hands out the initial");
    }

    #[test]
    fn uniform_steps_end_exactly_and_solve_the_decay() {
        let mut s = decay(-1.0);
        let stats = run(&mut s, 1.0, StepRule::Uniform(0.03), &mut |_, _| {}).unwrap();
        assert_eq!(stats.steps, 34);
        assert_eq!(stats.t_end, 1.0);
        assert!((s.state[0] - (-1.0f64).exp()).abs() < 1e-7, "{}", s.state[0]);
        assert_eq!(stats.rhs_evaluations, 4 * 34);
    }

    #[test]
    fn adaptive_steps_follow_the_rule_and_end_at_the_final_time() {
        let mut s = decay(-4.0);
        let mut last = 0.0;
        let stats = run(&mut s, 1.0, StepRule::Adaptive, &mut |t, _| last = t).unwrap();
        assert_eq!(last, 1.0);
        assert_eq!(stats.steps, 4);
        assert!(stats.dt_range[1] <= 0.25 + 1e-15);
    }

    #[test]
    fn a_blow_up_stops_the_run_at_its_step() {
        // RK4 at λ·dt = −40 amplifies by ~1e4 per step: the state overflows after a few dozen steps.
        let mut s = decay(-4000.0);
        let err = run(&mut s, 1.0, StepRule::Uniform(0.01), &mut |_, _| {}).unwrap_err();
        match err {
            LoopError::NotAdmissible { step, reason, .. } => {
                assert!(step > 1 && step < 100, "{step}");
                assert!(reason.contains("no longer finite"), "{reason}");
            }
            other => panic!("expected NotAdmissible, got {other}"),
        }
    }

    #[test]
    fn impossible_step_counts_and_times_are_refused() {
        for (t_end, dt) in [(1.0, 1e-300), (1.0, 0.0), (1.0, f64::NAN), (f64::INFINITY, 0.1), (-1.0, 0.1)] {
            let mut s = decay(-1.0);
            let err = run(&mut s, t_end, StepRule::Uniform(dt), &mut |_, _| {}).unwrap_err();
            assert!(matches!(err, LoopError::Options(_)), "t_end {t_end}, dt {dt}: {err}");
        }
        // a count past f64's range, and a final time short enough to read
        let err = uniform_steps::<std::io::Error>(1e300, 1e-300).unwrap_err().to_string();
        assert!(err.contains("needs more than 1e308 steps to reach t = 1e300;"), "{err}");
        let mut s = Integrated::new(Decay { lambda: -1.0 }, vec![1.0], Scheme::Rk4);
        let err = run(&mut s, 1.0, StepRule::Adaptive, &mut |_, _| {}).unwrap_err();
        assert!(matches!(err, LoopError::NotAdmissible { step: 0, .. }), "{err}");
    }

    #[test]
    fn sampled_steps_are_early_then_every_64_and_the_last() {
        let at = |step, last| StepPoint { step, t: 0.0, last, hands_out: false }.sampled();
        let sampled: Vec<u64> = (1..=200).filter(|&s| at(s, false)).collect();
        assert_eq!(sampled, vec![1, 2, 4, 8, 16, 32, 64, 128, 192]);
        assert!(at(77, true));
    }

    #[test]
    fn a_stepper_that_keeps_copies_keeps_the_starting_state_too() {
        // RK4 at λ·dt = −1e300 overflows in the first step: the last good state is the start's, and it comes from
        // the stepper's own copy (one read, by `save_kept`), not from a saved copy made before the loop
        let reads = std::cell::Cell::new(0);
        let mut s = counting_reads(-1e302, &reads).with_inspect(|_, q, _| Ok(non_finite(q)));
        let mut persist = Persistence { keep_last_good: true, ..Default::default() };
        let err = run_persisted(&mut s, 1.0, StepRule::Uniform(0.01), &mut persist, &mut |_, _| {}).unwrap_err();
        let LoopError::NotAdmissible { step: 1, last_good: Some(good), .. } = err else { panic!("expected a stop") };
        assert_eq!((good.position.step, good.position.t), (0, 0.0));
        assert_eq!(good.snapshot.array("state"), Some(&[1.0][..]));
        assert_eq!(reads.get(), 1, "the kept copy read once; the initial values were not taken");
        assert!(s.initial.is_some(), "the initial values stay with the stepper, dropped after the loop");
    }

    /// Runs the decay with AB3 (stored right-hand sides) to t = 1, checkpointing every `every` steps; returns the
    /// final state and the checkpoints.
    fn checkpointed(every: u64, resume: Option<&LoopState>) -> (f64, Vec<LoopState>) {
        let mut s = Integrated::new(Decay { lambda: -1.0 }, vec![1.0], Scheme::Ab3).with_host_values();
        let mut saved = Vec::new();
        let mut sink = |event: StateEvent, state: &LoopState| {
            assert_eq!(event, StateEvent::Checkpoint);
            saved.push(state.clone());
            Ok(())
        };
        let mut persist =
            Persistence { resume, checkpoint_every: Some(every), sink: Some(&mut sink), ..Default::default() };
        run_persisted(&mut s, 1.0, StepRule::Uniform(0.03), &mut persist, &mut |_, _| {}).unwrap();
        (s.state[0], saved)
    }

    #[test]
    fn a_run_continued_from_a_checkpoint_ends_bit_for_bit_where_the_whole_run_ends() {
        let (whole, saved) = checkpointed(5, None);
        assert_eq!(saved.iter().map(|s| s.position.step).collect::<Vec<_>>(), vec![5, 10, 15, 20, 25, 30]);
        assert_eq!(saved[2].snapshot.arrays.len(), 4, "the state and AB3's three right-hand sides");
        for state in &saved {
            let (continued, _) = checkpointed(5, Some(state));
            assert_eq!(continued.to_bits(), whole.to_bits(), "from step {}", state.position.step);
        }
        // a state of another length, or of another scheme, is refused
        let mut other = saved[2].clone();
        other.snapshot.arrays[0].1.push(0.0);
        let mut s = Integrated::new(Decay { lambda: -1.0 }, vec![1.0], Scheme::Ab3).with_host_values();
        assert!(matches!(s.restore(&other.snapshot), Err(LoopError::Options(_))));
        let mut rk = Integrated::new(Decay { lambda: -1.0 }, vec![1.0], Scheme::Rk4).with_host_values();
        assert!(matches!(rk.restore(&saved[2].snapshot), Err(LoopError::Options(_))));
    }

    #[test]
    fn a_stopped_run_returns_its_last_good_state_and_outputs_arrive_on_time() {
        let mut s = decay(-4000.0).with_host_values();
        let mut persist = Persistence { keep_last_good: true, ..Default::default() };
        let err = run_persisted(&mut s, 1.0, StepRule::Uniform(0.01), &mut persist, &mut |_, _| {}).unwrap_err();
        let LoopError::NotAdmissible { step, last_good: Some(good), .. } = err else { panic!("expected a stop") };
        assert!(
            good.position.step < step
                && StepPoint { step: good.position.step, t: 0.0, last: false, hands_out: false }.sampled()
        );
        assert!(good.snapshot.arrays[0].1.iter().all(|v| v.is_finite()));
        let mut times = Vec::new();
        let mut sink = |_: StateEvent, state: &LoopState| {
            times.push(state.position.t);
            Ok(())
        };
        let mut s = decay(-1.0).with_host_values();
        let mut persist = Persistence { output_every: Some(0.25), sink: Some(&mut sink), ..Default::default() };
        run_persisted(&mut s, 1.0, StepRule::Uniform(0.1), &mut persist, &mut |_, _| {}).unwrap();
        let expected = [0.0, 0.3, 0.5, 0.8, 1.0];
        assert_eq!(times.len(), expected.len(), "{times:?}");
        assert!(times.iter().zip(expected).all(|(t, e)| (t - e).abs() < 1e-12), "{times:?}");
        // steps that land a hair short of each multiple (k · 0.1/3): one output per multiple, none twice
        for (dt, t_end) in [(0.1 / 3.0, 0.5), (1.0 / 30.0, 0.5), (0.5 / 3.0, 0.5)] {
            let mut times = Vec::new();
            let mut sink = |_: StateEvent, state: &LoopState| {
                times.push(state.position.t);
                Ok(())
            };
            let mut s = decay(-1.0).with_host_values();
            let mut persist = Persistence { output_every: Some(0.1), sink: Some(&mut sink), ..Default::default() };
            run_persisted(&mut s, t_end, StepRule::Uniform(dt), &mut persist, &mut |_, _| {}).unwrap();
            let multiples = (t_end / 0.1f64.max(dt)).round() as usize + 1;
            assert_eq!(times.len(), multiples, "dt {dt}: {times:?}");
        }
    }
}
