//! Maxwell cases on nodal triangles (seed 000), and any law run with a case's initial and exact states: one run
//! on the native CPU path or on a device through the shared time loop, and convergence studies.

use crate::energy_growth;
use crate::error::RunError;
use crate::formulations::FormulationId;
use crate::output::{named, per_variable, run_stepper, RunOutput};
use crate::run_options::CommonRunOptions;
use crate::winners::{given_or_chosen, DeviceRunInfo};
use crate::Precision;
use dg_cases::MaxwellCase;
use dg_codegen::LawInput;
use dg_core::law::ConservationLaw;
use dg_core::mesh::{refine_uniform, TriMesh};
use dg_core::space::DgSpace2d;
use dg_core::Real;
use dg_laws::MaxwellTm;
use dg_nodal_tri::device::DeviceOperator;
use dg_nodal_tri::device_system::DeviceSystem;
use dg_nodal_tri::variant::Variant;
use dg_nodal_tri::NodalOperator2d;
use dg_runtime::backend::{BackendError, BufferId, Device};
use dg_runtime::cpu::BoundaryBinding;
use dg_runtime::formulation::{law_ir, target_of};
use dg_runtime::run_loop::{non_finite, Integrated, LoopStats, StepRule};
use dg_runtime::stability::StabilityLimit;
use dg_runtime::startup::mark;
use dg_runtime::study::{convergence_study, time_accuracy_factor, ConvergenceStudy, LevelRun, StudyPlan};
use dg_runtime::time::Scheme;
use serde::Serialize;
use std::time::Instant;

/// How to run a Maxwell case. `common.cfl` is the Courant number relative to the LSRK45 limit (the step is scaled
/// for other schemes); `None`: 0.75, or the scheme's stability limit on the problem when that is smaller.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Time integrator.
    pub scheme: Scheme,
    /// The largest wave speed the CFL rule divides by (1 for Maxwell in these units).
    pub wave_speed: f64,
    /// Flux parameter α (1 upwind, 0 central).
    pub alpha: f64,
    /// Record the energy after every step (else only at the start and the end).
    pub energy_history: bool,
    /// The options every time-dependent run takes (step, final time, boundary bindings, kernel choice, output,
    /// partition).
    pub common: crate::run_options::CommonRunOptions,
}

impl Default for RunOptions {
    fn default() -> Self {
        Self { scheme: Scheme::Lsrk45, wave_speed: 1.0, alpha: 1.0, energy_history: false, common: Default::default() }
    }
}

/// What a run measured.
#[derive(Debug, Clone, Serialize)]
pub struct RunReport {
    /// Case name.
    pub case: String,
    /// Law name.
    pub law: String,
    /// Polynomial order.
    pub order: usize,
    /// Precision (`f32` or `f64`).
    pub precision: &'static str,
    /// Number of elements.
    pub elements: usize,
    /// Degrees of freedom: elements × nodes × variables.
    pub dofs: usize,
    /// Mesh size h (longest edge).
    pub h: f64,
    /// Time integrator.
    pub scheme: &'static str,
    /// The scheme's stability limit on this problem, the step the run could take at most.
    pub stability_limit: StabilityLimit,
    /// Steps taken.
    pub steps: u64,
    /// Time step.
    pub dt: f64,
    /// Final time.
    pub t_end: f64,
    /// L2 error against the exact solution at `t_end` (all variables), when the case has one.
    pub l2_error: Option<f64>,
    /// Energy ½∫|q|² at the start.
    pub energy_initial: f64,
    /// Energy at the end.
    pub energy_final: f64,
    /// Energy after each step, if requested.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub energy_history: Vec<f64>,
    /// Right-hand-side evaluations.
    pub rhs_evaluations: u64,
    /// Wall time of the time loop, seconds.
    pub wall_seconds: f64,
    /// DOF × RHS evaluations per second.
    pub throughput: f64,
}

/// A finished run: its report, final state (converted to f64, layout of the CPU operator) and, on a device,
/// the device, the kernel variant and where it came from.
pub struct RunOutcome {
    /// The report.
    pub report: RunReport,
    /// Final state.
    pub state: Vec<f64>,
    /// Device runs: what the device took and spent.
    pub device: Option<DeviceRunInfo>,
}

/// The default Courant number of the CFL rule.
pub const DEFAULT_CFL: f64 = 0.75;

/// The largest step of a run and the stability limit behind it: the fixed step or the CFL rule (divided by
/// `opts.wave_speed`, scaled for the scheme), checked against the scheme's limit on the operator (refused above it
/// unless `opts.common.allow_unstable`); without either option, the rule's step at [`DEFAULT_CFL`] or the limit,
/// whichever is smaller.
pub fn step_limit(space: &DgSpace2d, opts: &RunOptions, limit: &StabilityLimit) -> Result<f64, RunError> {
    let rule = |cfl: f64| cfl * opts.scheme.relative_stability() * space.dt_length_scale() / opts.wave_speed;
    crate::uniform_step(&opts.common, opts.scheme, rule, DEFAULT_CFL, limit)
}

/// Runs `case` (its Maxwell law with `opts.alpha`) on `space` in `precision`, on the native CPU path or on
/// `device`; `progress(t, t_end)` after every step.
pub fn run(
    precision: Precision,
    space: &DgSpace2d,
    case: &dyn MaxwellCase,
    opts: &RunOptions,
    device: Option<&mut dyn Device>,
    progress: &mut dyn FnMut(f64, f64),
) -> Result<RunOutcome, RunError> {
    match precision {
        Precision::F32 => run_in::<f32>(space, case, opts, device, progress),
        Precision::F64 => run_in::<f64>(space, case, opts, device, progress),
    }
}

/// [`run`] in precision `T` (instantiated in this crate only, for both precisions).
pub(crate) fn run_in<T: Real>(
    space: &DgSpace2d,
    case: &dyn MaxwellCase,
    opts: &RunOptions,
    device: Option<&mut dyn Device>,
    progress: &mut dyn FnMut(f64, f64),
) -> Result<RunOutcome, RunError> {
    run_with_law::<MaxwellTm, T>(space, case.law(opts.alpha), case, opts, device, progress)
}

/// Runs `case` with an explicitly given law (the case supplies the initial and exact states).
pub fn run_with_law<L: ConservationLaw + Clone + Send + Sync + 'static, T: Real>(
    space: &DgSpace2d,
    law: L,
    case: &dyn MaxwellCase,
    opts: &RunOptions,
    device: Option<&mut dyn Device>,
    progress: &mut dyn FnMut(f64, f64),
) -> Result<RunOutcome, RunError> {
    let started = Instant::now();
    let nv = L::NVARS;
    crate::check_bindings(&opts.common.boundary, &space.connectivity.tag_names)?;
    let binding = BoundaryBinding::for_law(&law, space, &opts.common.boundary)?;
    let t_end = opts.common.t_end.unwrap_or_else(|| case.default_t_end());
    let q0: Vec<T> = space.interpolate(nv, |x, y, q| case.initial(x, y, q));
    mark("initial state");
    let energy = |q: &[T]| 0.5 * space.square_norm(nv, q);
    let energy_initial = energy(&q0);
    // a linear law's energy cannot grow without forcing or inflow: growth beyond the bound is a blow-up
    let linear = energy_initial > 0.0 && crate::energy_cannot_grow(&law, &binding);
    let verdict =
        |q: &[T], e: f64| non_finite(q).or_else(|| linear.then(|| energy_growth(energy_initial, e)).flatten());
    let mut history = Vec::new();
    let names = law.variable_names();
    let np = space.element.np;
    let vtu = |path: &std::path::Path, q: &[f64]| -> Result<(), RunError> {
        let values = per_variable(q, nv, np);
        Ok(dg_core::vtu::write_vtu(path, space, &named(names, &values))?)
    };
    if let Some(spec) = &opts.common.variant {
        spec.parse::<Variant>()?;
    }
    let Some(device) = device else {
        if opts.common.variant.is_some() {
            return Err(RunError::InvalidOption("--variant needs a device (--device cuda:0 or opencl)".into()));
        }
        let q0_f64 = crate::widened(&q0);
        let op64 = || NodalOperator2d::<L, f64>::new(law.clone(), space, &binding);
        let Ok(limit) = StabilityLimit::of_built(op64, &q0_f64, 0.0, opts.scheme);
        crate::note_unestimated(&limit, q0_f64.len());
        let rule = StepRule::Uniform(step_limit(space, opts, &limit)? * opts.common.step_scale);
        let op = NodalOperator2d::<L, T>::new(law.clone(), space, &binding);
        let mut stepper =
            Integrated::new(op, q0.clone(), opts.scheme).with_host_values().with_inspect(|_, q: &Vec<T>, _| {
                let e = energy(q);
                if opts.energy_history {
                    history.push(e);
                }
                Ok(verdict(q, e))
            });
        let stats = run_stepper(&mut stepper, t_end, rule, &opts.common.output, &vtu, progress)?;
        let (_, q) = stepper.into_parts();
        let energies = (energy_initial, energy(&q));
        let outcome = finish(space, case, &law, &q, energies, (stats, opts.scheme, limit), history, None)?;
        opts.common.output.write_final(&vtu, &outcome.state)?;
        return Ok(outcome);
    };
    let dofs = (space.num_nodes() * nv) as u64;
    let order = space.element.order;
    let given = opts.common.variant.as_deref();
    let choice =
        given_or_chosen::<L, T>(FormulationId::NodalTri, device, &law, order, dofs, given, opts.common.no_tune)?;
    let variant: Variant = choice.variant.parse()?;
    let ir = law_ir(&law)?;
    let target = target_of(device);
    let nflux = law.numerical_flux_name();
    mark("kernel choice");
    let params = law.param_values();
    let law_input = LawInput { ir: &ir, params: &params, numerical_flux: nflux };
    let source = DeviceOperator::<T>::kernel_source(device, target, &law_input, &space.element, &variant)?;
    mark("kernel source");
    let program = DeviceOperator::<T>::compile(device, &source)?;
    mark("kernel program");
    let op = DeviceOperator::<T>::with_program(device, source, program, space, &binding, &[])?;
    mark("device operator");
    let q = op.new_state(device)?;
    op.write_state(device, q, &q0)?;
    mark("state upload");
    let step_check = crate::StepCheck::new(device, &q0, linear)?;
    mark("state check");
    let mut system = DeviceSystem { device, op: &op, device_seconds: 0.0 };
    let q0_f64 = crate::initial_values_if_estimated(&q0);
    let limit = StabilityLimit::of_device(
        &mut system,
        &q,
        q0_f64.as_deref(),
        opts.scheme,
        T::epsilon().as_f64(),
        &mut |sys, b, v| write_values(sys, b, v),
        &mut |sys, b| read_values(sys, b),
    )?;
    crate::note_unestimated(&limit, q0.len());
    mark("stability limit");
    let rule = StepRule::Uniform(step_limit(space, opts, &limit)? * opts.common.step_scale);
    let loop_started = Instant::now();
    // the last step's state and energy, read for its check: the report's final state
    let mut last_read: Option<(Vec<T>, f64)> = None;
    let stepper = Integrated::new(system, q, opts.scheme).with_values(read_values, write_values);
    let stepper = match q0_f64 {
        Some(q0_f64) => stepper.with_initial_values(q0_f64),
        None => stepper,
    };
    let mut stepper = stepper.with_inspect(|sys: &mut DeviceSystem<'_, T>, q: &_, at| {
        if let Some(reason) = step_check.after_step_pipelined(sys.device, *q, at, &mut sys.device_seconds)? {
            return Ok(Some(reason));
        }
        // the per-step check covers non-finite values and the largest value's growth; a linear law's energy is
        // checked at the sampled steps too, formed on the device (K terms read back, not the state: it was read
        // whole at steps 1, 2, 4 … 32 only); the whole state is read back at the end and when the energy's
        // history is asked for
        if !(opts.energy_history || at.last) {
            if !(linear && at.sampled()) {
                return Ok(None);
            }
            let (square_norm, seconds) = sys.op.square_norm(sys.device, *q)?;
            sys.device_seconds += seconds;
            return Ok(energy_growth(energy_initial, 0.5 * square_norm));
        }
        let state = sys.op.read_state(sys.device, *q)?;
        let e = energy(&state);
        if opts.energy_history {
            history.push(e);
        }
        let reason = verdict(&state, e);
        last_read = at.last.then_some((state, e));
        Ok(reason)
    });
    let stats = run_stepper(&mut stepper, t_end, rule, &opts.common.output, &vtu, progress)?;
    let (sys, q) = stepper.into_parts();
    let (final_state, energy_final) = match last_read {
        Some(read) => read,
        None => {
            let state = op.read_state(sys.device, q)?;
            let e = energy(&state);
            (state, e)
        }
    };
    let info = DeviceRunInfo::new(sys.device, choice, started, loop_started, &stats, sys.device_seconds)?
        .with_state_checks(&step_check)
        .with_stages_folded(opts.scheme == Scheme::Lsrk45 && op.folds_stages());
    sys.device.free_buffers();
    let energies = (energy_initial, energy_final);
    let outcome = finish(space, case, &law, &final_state, energies, (stats, opts.scheme, limit), history, Some(info))?;
    opts.common.output.write_final(&vtu, &outcome.state)?;
    Ok(outcome)
}

/// A device state read out as f64 values in the CPU layout.
fn read_values<T: Real>(sys: &mut DeviceSystem<'_, T>, q: &BufferId) -> Result<Vec<f64>, BackendError> {
    Ok(crate::widened(&sys.op.read_state(sys.device, *q)?))
}

/// f64 values in the CPU layout written into a device state.
fn write_values<T: Real>(sys: &mut DeviceSystem<'_, T>, q: &mut BufferId, v: &[f64]) -> Result<(), BackendError> {
    sys.op.write_state(sys.device, *q, &crate::narrowed::<T>(v))
}

/// The report of a finished run (error against the exact solution, energy, throughput), whichever backend
/// stepped it; `q` is the final state in the CPU layout, `energies` the initial state's and `q`'s.
#[allow(clippy::too_many_arguments)]
fn finish<L: ConservationLaw, T: Real>(
    space: &DgSpace2d,
    case: &dyn MaxwellCase,
    law: &L,
    q: &[T],
    (energy_initial, energy_final): (f64, f64),
    (stats, scheme, limit): (LoopStats, Scheme, StabilityLimit),
    energy_history: Vec<f64>,
    device: Option<DeviceRunInfo>,
) -> Result<RunOutcome, RunError> {
    let nv = L::NVARS;
    let l2_error = if case.has_exact() {
        Some(space.l2_error(nv, q, |x, y, out| {
            case.exact(x, y, stats.t_end, out);
        })?)
    } else {
        None
    };
    let dofs = space.num_nodes() * nv;
    let report = RunReport {
        case: case.name().to_string(),
        law: law.name().to_string(),
        order: space.element.order,
        precision: T::NAME,
        elements: space.num_elements(),
        dofs,
        h: space.mesh.max_edge_length(),
        scheme: scheme.name(),
        stability_limit: limit,
        steps: stats.steps,
        dt: stats.dt_range[1],
        t_end: stats.t_end,
        l2_error,
        energy_initial,
        energy_final,
        energy_history,
        rhs_evaluations: stats.rhs_evaluations,
        wall_seconds: stats.wall_seconds,
        throughput: dofs as f64 * stats.rhs_evaluations as f64 / stats.wall_seconds.max(1e-12),
    };
    Ok(RunOutcome { report, state: crate::widened(q), device })
}

/// Runs `case` for every order in `orders` on `levels` meshes: `base`, then uniformly refined `levels − 1`
/// times, on the native CPU path or on `device` (in f64). The time step shrinks with the mesh as the CFL rule
/// gives, and additionally like [`time_accuracy_factor`] so that the fourth-order time error stays below the
/// spatial error of order N + 1. `progress(order, level)` is called before each run.
pub fn convergence(
    case: &dyn MaxwellCase,
    base: &TriMesh,
    orders: std::ops::RangeInclusive<usize>,
    levels: usize,
    opts: &RunOptions,
    mut device: Option<&mut dyn Device>,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<ConvergenceStudy, RunError> {
    if !case.has_exact() {
        return Err(RunError::InvalidOption(format!("case `{}` has no exact solution to converge to", case.name())));
    }
    let mut meshes = vec![base.clone()];
    for _ in 1..levels {
        let next = refine_uniform(meshes.last().expect("at least one mesh"));
        meshes.push(next);
    }
    let plan = StudyPlan {
        case: case.name().into(),
        error: "L2 error".into(),
        formulation: FormulationId::NodalTri.name().into(),
        device: crate::device_name(device.as_deref()),
        orders,
        levels,
    };
    let mut one = |order: usize, level: usize| -> Result<LevelRun, RunError> {
        let space = DgSpace2d::new(meshes[level].clone(), order)?;
        let mut level_opts = RunOptions {
            common: CommonRunOptions { output: RunOutput::default(), ..opts.common.clone() },
            ..opts.clone()
        };
        if level_opts.common.dt.is_none() {
            level_opts.common.step_scale = time_accuracy_factor(order, level, opts.scheme.order());
        }
        let outcome = run_in::<f64>(
            &space,
            case,
            &level_opts,
            device.as_deref_mut().map(|d| -> &mut dyn Device { d }),
            &mut |_, _| {},
        )?;
        let error = outcome.report.l2_error.unwrap_or(f64::NAN);
        Ok(LevelRun { h: outcome.report.h, error, seconds: outcome.report.wall_seconds })
    };
    Ok(convergence_study(&plan, &mut one, progress)?)
}
