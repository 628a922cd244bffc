//! Maxwell cases on nodal triangles (seed 000), and any law run with a case's initial and exact states: one run
//! on the native CPU path or on a device through the shared time loop, and convergence studies.

use crate::error::RunError;
use crate::formulations::FormulationId;
use crate::winners::{given_or_chosen, DeviceRunInfo};
use dg_cases::MaxwellCase;
use dg_core::law::ConservationLaw;
use dg_core::mesh::{refine_uniform, TriMesh};
use dg_core::space::DgSpace2d;
use dg_core::Real;
use dg_laws::MaxwellTm;
use dg_nodal_tri::device::DeviceOperator;
use dg_nodal_tri::device_system::DeviceSystem;
use dg_nodal_tri::variant::Variant;
use dg_nodal_tri::NodalOperator2d;
use dg_runtime::backend::Device;
use dg_runtime::cpu::BoundaryBinding;
use dg_runtime::formulation::{law_ir, target_of};
use dg_runtime::run_loop::{self, non_finite, Integrated, LoopStats, StepRule};
use dg_runtime::study::{convergence_study, time_accuracy_factor, ConvergenceStudy, LevelRun, StudyPlan};
use dg_runtime::time::Scheme;
use serde::Serialize;
use std::collections::HashMap;
use std::time::Instant;

/// How to run a case.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Time integrator.
    pub scheme: Scheme,
    /// Courant number relative to the LSRK45 limit (the step is scaled for other schemes).
    pub cfl: f64,
    /// Final time (the case's default when `None`).
    pub t_end: Option<f64>,
    /// Fixed time step instead of the CFL rule (rounded down so that the run ends exactly at `t_end`).
    pub dt: Option<f64>,
    /// Flux parameter α (1 upwind, 0 central).
    pub alpha: f64,
    /// Boundary tag → boundary condition name; unlisted tags use the condition of the same name or the law's
    /// only condition.
    pub boundary: HashMap<String, String>,
    /// Record the energy after every step (else only at the start and the end).
    pub energy_history: bool,
    /// On a device: the kernel variant (SPEC) instead of the tuning database's.
    pub variant: Option<String>,
    /// On a device without a tuning result for the run's key: take the baseline variant instead of tuning.
    pub no_tune: bool,
}

impl Default for RunOptions {
    fn default() -> Self {
        Self {
            scheme: Scheme::Lsrk45,
            cfl: 0.75,
            t_end: None,
            dt: None,
            alpha: 1.0,
            boundary: HashMap::new(),
            energy_history: false,
            variant: None,
            no_tune: false,
        }
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

/// The largest step of a run: the fixed step, or the CFL limit scaled for the scheme (wave speed 1 in these
/// units).
pub fn step_limit(space: &DgSpace2d, opts: &RunOptions) -> Result<f64, RunError> {
    match opts.dt {
        Some(dt) => Ok(dt),
        None if opts.cfl.is_finite() && opts.cfl > 0.0 => {
            Ok(opts.cfl * opts.scheme.relative_stability() * space.dt_length_scale())
        }
        None => Err(RunError::InvalidOption(format!("the CFL number must be positive, got {}", opts.cfl))),
    }
}

/// Runs `case` (its Maxwell law with `opts.alpha`) on `space` in precision `T`, on the native CPU path or on
/// `device`; `progress(t, t_end)` after every step.
pub fn run<T: Real>(
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
    let binding = BoundaryBinding::for_law(&law, space, &opts.boundary)?;
    let t_end = opts.t_end.unwrap_or_else(|| case.default_t_end());
    let rule = StepRule::Uniform(step_limit(space, opts)?);
    let q0: Vec<T> = space.interpolate(nv, |x, y, q| case.initial(x, y, q));
    let energy = |q: &[T]| 0.5 * space.square_norm(nv, q);
    let mut history = Vec::new();
    if let Some(spec) = &opts.variant {
        spec.parse::<Variant>()?;
    }
    let Some(device) = device else {
        if opts.variant.is_some() {
            return Err(RunError::InvalidOption("--variant needs a device (--device cuda:0 or opencl)".into()));
        }
        let op = NodalOperator2d::<L, T>::new(law.clone(), space, &binding);
        let mut stepper = Integrated::new(op, q0.clone(), opts.scheme).with_inspect(|_, q: &Vec<T>, _| {
            if opts.energy_history {
                history.push(energy(q));
            }
            Ok(non_finite(q))
        });
        let stats = run_loop::run(&mut stepper, t_end, rule, progress)?;
        let (_, q) = stepper.into_parts();
        return finish(space, case, &law, &q0, &q, (stats, opts.scheme), history, None);
    };
    let dofs = (space.num_nodes() * nv) as u64;
    let order = space.element.order;
    let given = opts.variant.as_deref();
    let choice = given_or_chosen::<L, T>(FormulationId::NodalTri, device, &law, order, dofs, given, opts.no_tune)?;
    let variant: Variant = choice.variant.parse()?;
    let ir = law_ir(&law)?;
    let target = target_of(device);
    let nflux = law.numerical_flux_name();
    let op = DeviceOperator::<T>::new(device, target, &ir, &law.param_values(), nflux, space, &binding, &[], &variant)?;
    let q = op.new_state(device)?;
    op.write_state(device, q, &q0)?;
    let system = DeviceSystem { device, op: &op, device_seconds: 0.0 };
    let loop_started = Instant::now();
    let mut stepper =
        Integrated::new(system, q, opts.scheme).with_inspect(|sys: &mut DeviceSystem<'_, T>, q: &_, at| {
            if !(opts.energy_history || crate::device_inspects_at(at)) {
                return Ok(None);
            }
            let state = sys.op.read_state(sys.device, *q)?;
            if opts.energy_history {
                history.push(energy(&state));
            }
            Ok(non_finite(&state))
        });
    let stats = run_loop::run(&mut stepper, t_end, rule, progress)?;
    let (sys, q) = stepper.into_parts();
    let final_state = op.read_state(sys.device, q)?;
    let info = DeviceRunInfo::new(sys.device, choice, started, loop_started, &stats, sys.device_seconds);
    sys.device.free_buffers();
    finish(space, case, &law, &q0, &final_state, (stats, opts.scheme), history, Some(info))
}

/// The report of a finished run (error against the exact solution, energy, throughput), whichever backend
/// stepped it; `q` is the final state in the CPU layout.
#[allow(clippy::too_many_arguments)]
fn finish<L: ConservationLaw, T: Real>(
    space: &DgSpace2d,
    case: &dyn MaxwellCase,
    law: &L,
    q0: &[T],
    q: &[T],
    (stats, scheme): (LoopStats, Scheme),
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
        steps: stats.steps,
        dt: stats.dt_range[1],
        t_end: stats.t_end,
        l2_error,
        energy_initial: 0.5 * space.square_norm(nv, q0),
        energy_final: 0.5 * space.square_norm(nv, q),
        energy_history,
        rhs_evaluations: stats.rhs_evaluations,
        wall_seconds: stats.wall_seconds,
        throughput: dofs as f64 * stats.rhs_evaluations as f64 / stats.wall_seconds.max(1e-12),
    };
    Ok(RunOutcome { report, state: q.iter().map(|v| v.as_f64()).collect(), device })
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
        let mut level_opts = opts.clone();
        if level_opts.dt.is_none() {
            level_opts.cfl = opts.cfl * time_accuracy_factor(order, level);
        }
        let outcome = run::<f64>(
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
