//! The contract of a formulation: one discretisation on one element type (nodal triangles, modal triangles,
//! nodal tetrahedra; hexahedra, finite volumes and HDG next), as the runtime's verify, autotune and bench see it.
//!
//! A [`Formulation`] says which laws it handles, lists its variant space with the rules' reasons, renders a
//! variant's program, and opens a [`Tuner`] for one (law, order, precision) on a device. The tuner owns the
//! verification problem (a mesh on which every variant launches several work groups, perturbed elements, every
//! boundary kind, random materials), the timing problem, the CPU reference, the cost model and the tuning key;
//! variants cross this boundary as their SPEC strings, which is also what the database stores. The pipeline
//! ([`crate::pipeline`]) is written once over these two traits (as libParanumal's solvers share one `solver_t`
//! and CubeCL's tuner runs named candidates under a typed key).

use crate::backend::Device;
use crate::operator_error::DeviceOperatorError;
use crate::tuning_db::{KernelFamily, TuningKey};
use crate::verify::VerifyOutcome;
use dg_codegen::{DeviceLimits, Precision, Target};
use dg_core::law::ConservationLaw;
use dg_core::Real;
use dg_ir::LawIr;

/// Errors of a formulation or the pipeline.
#[derive(Debug, thiserror::Error)]
pub enum FormulationError {
    /// Building or running a device operator failed.
    #[error(transparent)]
    Operator(#[from] DeviceOperatorError),
    /// The formulation does not handle this law (with the reason).
    #[error("the {formulation} formulation cannot run law `{law}`: {reason}")]
    Unsupported {
        /// Formulation name.
        formulation: &'static str,
        /// Law name.
        law: String,
        /// Why.
        reason: String,
    },
    /// The law is not in the registry (no IR to generate kernels from).
    #[error("law `{0}` is not registered (declare it with #[dg::conservation_law] and link its crate)")]
    Unregistered(String),
    /// A verification or timing problem could not be built.
    #[error("{0}")]
    Problem(String),
    /// Nothing could be verified and timed.
    #[error("{0}")]
    NoWinner(String),
    /// The device became unusable (a kernel faulted and poisoned the context): nothing more can run on it in this
    /// process; the message names the first candidate that failed.
    #[error("{0}")]
    DeviceLost(String),
}

impl From<dg_codegen::VariantError> for FormulationError {
    fn from(e: dg_codegen::VariantError) -> Self {
        Self::Operator(e.into())
    }
}

impl From<crate::backend::BackendError> for FormulationError {
    fn from(e: crate::backend::BackendError) -> Self {
        Self::Operator(e.into())
    }
}

/// What one (law, order, precision) asks of a formulation.
#[derive(Debug, Clone, Copy)]
pub struct TuneTarget {
    /// Polynomial order (degree for modal bases).
    pub order: usize,
    /// Precision.
    pub precision: Precision,
    /// Smallest timing problem, in degrees of freedom (nodes for tetrahedra).
    pub timing_dofs: u64,
    /// The operation timed.
    pub operation: TimedOperation,
}

/// The operation a tuner times, and the role its results are stored under in the tuning database.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TimedOperation {
    /// The formulation's own unit: one right-hand side (nodal triangles, hexahedra, finite volumes), one
    /// Runge–Kutta stage with its update fused (modal triangles), one AB3 step (tetrahedra). What `dg bench`
    /// reports by default. Role `rhs` (`ab3-step` for tetrahedra).
    #[default]
    Unit,
    /// One stage of a two-register low-storage Runge–Kutta scheme as a run steps it — the right-hand side with
    /// r ← a·r + c·L and the new state x + b·r folded into its store where the variant can, else the right-hand
    /// side and two linear combinations. The layout that wins a bare right-hand side can lose the stage (its
    /// stores become three streams). Role `stage`; offered by the formulations whose runs step this way.
    LowStorageStage,
}

impl TimedOperation {
    /// The name on the command line (`--operation`).
    pub fn name(self) -> &'static str {
        match self {
            TimedOperation::Unit => "unit",
            TimedOperation::LowStorageStage => "stage",
        }
    }
}

/// Flops and bytes of one timed unit (a right-hand side, or an AB3 step), and the arithmetic units its flops run on.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct UnitCost {
    /// Floating-point operations.
    pub flops: f64,
    /// Bytes moved, as the variant moves them.
    pub bytes: f64,
    /// The units its flops run on (its roofline is against their measured ceiling).
    pub units: crate::tuning_db::ArithmeticUnits,
}

/// One discretisation on one element type.
pub trait Formulation: Sync {
    /// The name on the command line and in the registry (`nodal-tri`).
    fn name(&self) -> &'static str;
    /// One line: what it is and which paper it reproduces.
    fn summary(&self) -> &'static str;
    /// What its tuning keys carry (discretisation, element, code fingerprint).
    fn family(&self) -> KernelFamily;
    /// Whether it handles the law of `ir` (dimension, source terms …), with the reason when it does not.
    fn supports(&self, ir: &LawIr) -> Result<(), String>;
    /// The orders it discretises: polynomial orders of its elements (finite volumes: 1, first order, and 2,
    /// MUSCL–Hancock). The commands refuse any other before they open a device.
    fn orders(&self) -> std::ops::RangeInclusive<usize>;
    /// The variant space at `order` and `precision` on a device with `limits`: every SPEC, with the rules' reason
    /// when it is rejected.
    fn variants(
        &self,
        law: &LawCall<'_>,
        order: usize,
        precision: Precision,
        limits: &DeviceLimits,
    ) -> Vec<(String, Option<String>)>;
    /// Whether a tuning search at `order` visits the valid variant `spec` ([`Tuner::searched`]): every one by
    /// default; a formulation may leave out by measured rules what never wins (`dg autotune --every-variant` still
    /// searches it).
    fn searched_at(&self, _spec: &str, _order: usize) -> bool {
        true
    }
    /// A default SPEC (a variant valid everywhere), for `dg emit` without `--variant`.
    fn default_variant(&self, precision: Precision) -> String;
    /// The program text of `spec` for `law` at `order`.
    fn emit(&self, law: &LawCall<'_>, order: usize, spec: &str, target: Target) -> Result<String, FormulationError>;
    /// A tuner of `law` at `target` on `device`: its verification problem now, its timing problem when first
    /// needed.
    fn tuner<L: ConservationLaw + Clone + Send + Sync + 'static, T: Real>(
        &self,
        law: &L,
        device: &mut dyn Device,
        target: TuneTarget,
    ) -> Result<Box<dyn Tuner>, FormulationError>
    where
        Self: Sized;
    /// The operations its tuners can time ([`TuneTarget::operation`]); the first is its unit.
    fn timed_operations(&self) -> &'static [TimedOperation] {
        &[TimedOperation::Unit]
    }
    /// The operation its runs spend their time in: the tuning result a run looks for first.
    fn run_operation(&self) -> TimedOperation {
        TimedOperation::Unit
    }
    /// An error unless its tuners can time `operation`.
    fn check_operation(&self, operation: TimedOperation) -> Result<(), FormulationError> {
        if self.timed_operations().contains(&operation) {
            return Ok(());
        }
        let offered: Vec<&str> = self.timed_operations().iter().map(|o| o.name()).collect();
        Err(FormulationError::Problem(format!(
            "the {} formulation cannot time operation `{}` (it times: {})",
            self.name(),
            operation.name(),
            offered.join(", ")
        )))
    }
}

/// The law as the kernels see it: its IR, parameter values and selected numerical flux.
pub struct LawCall<'a> {
    /// The IR.
    pub ir: &'a LawIr,
    /// Parameter values (in the IR's order).
    pub params: &'a [f64],
    /// The numerical flux the kernels evaluate.
    pub numerical_flux: &'a str,
}

impl LawCall<'_> {
    /// As the renderers take it.
    pub fn input(&self) -> dg_codegen::LawInput<'_> {
        dg_codegen::LawInput { ir: self.ir, params: self.params, numerical_flux: self.numerical_flux }
    }
}

/// One (law, order, precision) of a formulation on one device, with variants named by their SPEC strings.
pub trait Tuner {
    /// The key of results at the timing size.
    fn key(&self) -> TuningKey;
    /// Degrees of freedom (nodes for tetrahedra) of the timing problem.
    fn timing_dofs(&self) -> u64;
    /// Elements of the verification problem (for reports).
    fn verification_elements(&self) -> usize;
    /// The variants valid on `device`, in the order a search visits them (a tuner may ask the device here what
    /// costs time to find out, such as whether its GEMM library loads).
    fn candidates(&mut self, device: &mut dyn Device) -> Vec<String>;
    /// The candidates a search visits: [`Tuner::candidates`] less those the formulation's measured rules leave out
    /// of a search (still valid on request and verified by `dg verify`); all of them by default.
    fn searched(&mut self, device: &mut dyn Device) -> Vec<String> {
        self.candidates(device)
    }
    /// Whether `spec` is one of [`Tuner::candidates`]. A tuner answers for a variant built on no library without
    /// loading one: a run checks its stored winner this way at start-up.
    fn accepts(&mut self, device: &mut dyn Device, spec: &str) -> bool {
        self.candidates(device).iter().any(|c| c == spec)
    }
    /// Where a greedy search starts (the paper's baseline), if the formulation has one.
    fn baseline(&self) -> Option<String> {
        None
    }
    /// The variants one axis away from `spec` (a greedy search's neighbours); none by default.
    fn neighbours(&self, _spec: &str) -> Vec<String> {
        Vec::new()
    }
    /// Verifies `specs` on the verification problem against the CPU reference, outputs poisoned with NaN; the
    /// outcomes come in the order of `specs`, `progress` after each.
    fn verify(
        &mut self,
        device: &mut dyn Device,
        specs: &[String],
        progress: &mut dyn FnMut(&VerifyOutcome),
    ) -> Vec<VerifyOutcome>;
    /// Compiles the timing programs of `specs` ahead of timing (in parallel where the backend can); the default
    /// does nothing and each program is compiled when first timed.
    fn prepare(&mut self, device: &mut dyn Device, specs: &[String]) {
        let _ = (device, specs);
    }
    /// Median seconds of one timed unit of `spec` on the timing problem and the relative spread (p90 − p10) /
    /// median, measured as `plan` says ([`TimingPlan::measure`]).
    fn time(&mut self, device: &mut dyn Device, spec: &str, plan: &TimingPlan) -> Result<(f64, f64), FormulationError>;
    /// `spec` on the timing problem itself (random state and materials) against the CPU reference.
    fn check_at_size(&mut self, device: &mut dyn Device, spec: &str) -> VerifyOutcome;
    /// Cost of one timed unit of `spec` on the timing problem.
    fn cost(&self, spec: &str) -> Result<UnitCost, FormulationError>;
    /// A per-kernel report at the timing size (each kernel of each strategy timed alone; `dg bench
    /// --per-kernel`), for formulations that have one; `None` otherwise.
    fn kernel_report(
        &mut self,
        device: &mut dyn Device,
        repeats: usize,
        ceilings: &crate::tuning_db::Ceilings,
    ) -> Option<Result<KernelReport, FormulationError>> {
        let _ = (device, repeats, ceilings);
        None
    }
}

/// A formulation's per-kernel report of one (law, order, precision): a line for the terminal and the
/// measurements for a JSON file.
#[derive(Debug, Clone)]
pub struct KernelReport {
    /// One line: the per-strategy times and the winner.
    pub summary: String,
    /// Every measurement.
    pub detail: serde_json::Value,
}

/// The IR of a registered law that `formulation` handles, or why it cannot run it (the first step of every
/// formulation's `tuner`).
pub fn supported_ir<F: Formulation + ?Sized, L: ConservationLaw>(
    formulation: &F,
    law: &L,
) -> Result<LawIr, FormulationError> {
    let ir = law_ir(law)?;
    formulation.supports(&ir).map_err(|reason| FormulationError::Unsupported {
        formulation: formulation.name(),
        law: law.name().into(),
        reason,
    })?;
    Ok(ir)
}

/// The IR of a registered law.
pub fn law_ir<L: ConservationLaw>(law: &L) -> Result<LawIr, FormulationError> {
    dg_ir::registered_laws()
        .into_iter()
        .find(|r| r.name == law.name())
        .map(|r| (r.ir)())
        .ok_or_else(|| FormulationError::Unregistered(law.name().to_string()))
}

/// The kernel language of a device.
pub fn target_of(device: &dyn Device) -> Target {
    if device.fingerprint().backend == "cuda" {
        Target::Cuda
    } else {
        Target::OpenCl
    }
}

/// The precision of a [`Real`] type.
pub fn precision_of<T: Real>() -> Precision {
    if T::NAME == "f32" {
        Precision::F32
    } else {
        Precision::F64
    }
}

/// The outcomes of every valid variant, as a tuner keeps them after verifying them all at once: `verified`'s, or
/// when the verification problem could not be built or run, that error as every variant's failure.
pub fn outcomes_or_failure<T: Real, V: std::fmt::Display>(
    verified: Result<Vec<VerifyOutcome>, DeviceOperatorError>,
    valid: &[V],
) -> Vec<VerifyOutcome> {
    verified.unwrap_or_else(|e| {
        valid
            .iter()
            .map(|v| VerifyOutcome::of::<T>(v.to_string(), Err(DeviceOperatorError::Precision(e.to_string()))))
            .collect()
    })
}

/// The outcomes of `specs` from `checked` (every valid variant's, verified once): a SPEC that does not parse as
/// `V` fails with the parse error, one not among `checked` is rejected; `progress` after each.
pub fn outcomes_of_specs<T: Real, V>(
    checked: &[VerifyOutcome],
    specs: &[String],
    progress: &mut dyn FnMut(&VerifyOutcome),
) -> Vec<VerifyOutcome>
where
    V: std::str::FromStr<Err = dg_codegen::VariantError> + std::fmt::Display,
{
    let out: Vec<VerifyOutcome> =
        specs
            .iter()
            .map(|spec| match spec.parse::<V>() {
                Err(e) => VerifyOutcome::of::<T>(spec.clone(), Err(e.into())),
                Ok(v) => checked.iter().find(|c| c.variant == v.to_string()).cloned().unwrap_or_else(|| {
                    VerifyOutcome::rejected(spec.clone(), "not among this device's variants".into())
                }),
            })
            .collect();
    out.iter().for_each(progress);
    out
}

/// How a candidate is timed: warm-up runs, a short probe, then the full repetitions unless the probe already
/// shows the candidate clearly slower than the best so far (adaptive repetitions: a tuning spends its time on
/// the candidates that can win).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TimingPlan {
    /// Timed repetitions of a candidate that may win.
    pub repeats: usize,
    /// A probe median above this many seconds ends the timing after the probe.
    pub stop_above: Option<f64>,
}

impl TimingPlan {
    /// Untimed runs before any timing.
    pub const WARM_UP: usize = 2;
    /// Timed runs of the probe.
    pub const PROBE: usize = 5;

    /// Every candidate timed with `repeats` runs.
    pub fn full(repeats: usize) -> Self {
        Self { repeats, stop_above: None }
    }

    /// Whether a candidate timed at `median` seconds was stopped after the probe.
    pub fn stopped_early(&self, median: f64) -> bool {
        self.stop_above.is_some_and(|limit| median > limit) && self.repeats > Self::PROBE
    }

    /// Median and relative spread of `run(n)` (device seconds of each of `n` runs): [`Self::WARM_UP`] runs
    /// discarded, a probe of [`Self::PROBE`] runs, and `repeats` runs unless the probe's median is above
    /// `stop_above`.
    pub fn measure<E>(&self, mut run: impl FnMut(usize) -> Result<Vec<f64>, E>) -> Result<(f64, f64), E> {
        run(Self::WARM_UP)?;
        if self.repeats > Self::PROBE {
            if let Some(limit) = self.stop_above {
                let probe = median_and_spread(run(Self::PROBE)?);
                if probe.0 > limit || probe.0.is_nan() {
                    return Ok(probe);
                }
            }
        }
        Ok(median_and_spread(run(self.repeats.max(1))?))
    }
}

/// Median and relative spread (p90 − p10) / median of measured times (NaN for none).
pub fn median_and_spread(mut times: Vec<f64>) -> (f64, f64) {
    if times.is_empty() {
        return (f64::NAN, f64::NAN);
    }
    times.sort_by(f64::total_cmp);
    let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
    let m = at(0.5);
    (m, (at(0.9) - at(0.1)) / m)
}

#[cfg(test)]
mod tests {
    use super::TimingPlan;

    /// Runs recorded by count, each taking `seconds`.
    fn runs(seconds: f64, log: &mut Vec<usize>) -> impl FnMut(usize) -> Result<Vec<f64>, ()> + '_ {
        move |n| {
            log.push(n);
            Ok(vec![seconds; n])
        }
    }

    #[test]
    fn a_probe_slower_than_the_limit_ends_the_timing() {
        let mut log = Vec::new();
        let plan = TimingPlan { repeats: 20, stop_above: Some(1.0) };
        assert_eq!(plan.measure(runs(2.0, &mut log)), Ok((2.0, 0.0)));
        assert_eq!(log, [TimingPlan::WARM_UP, TimingPlan::PROBE]);
        assert!(plan.stopped_early(2.0));

        let mut log = Vec::new();
        assert_eq!(plan.measure(runs(0.5, &mut log)), Ok((0.5, 0.0)));
        assert_eq!(log, [TimingPlan::WARM_UP, TimingPlan::PROBE, 20], "a candidate that may win is timed in full");
        assert!(!plan.stopped_early(0.5));

        let mut log = Vec::new();
        assert_eq!(TimingPlan::full(20).measure(runs(3.0, &mut log)), Ok((3.0, 0.0)));
        assert_eq!(log, [TimingPlan::WARM_UP, 20], "no limit, no probe");

        let mut log = Vec::new();
        let (median, _) = plan.measure(runs(f64::NAN, &mut log)).expect("runs");
        assert!(median.is_nan(), "a NaN timing is reported, not hidden");
        assert_eq!(log, [TimingPlan::WARM_UP, TimingPlan::PROBE]);
    }
}
