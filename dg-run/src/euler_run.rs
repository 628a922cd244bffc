//! Running an Euler case with the modal formulation of seed 001, on the native CPU path or a device, through the
//! shared time loop: seed 001's adaptive step, the limiter, the density error against the exact solution,
//! conservation.

use crate::error::RunError;
use crate::formulations::FormulationId;
use crate::output::{named, per_variable, run_stepper};
use crate::winners::{given_or_chosen, DeviceRunInfo};
use crate::Precision;
use dg_cases::euler::{pressure, EulerCase};
use dg_core::law::ConservationLaw;
use dg_core::mesh::TriMesh;
use dg_core::space::DgSpace2d;
use dg_core::triangle::ModalTriangle;
use dg_core::Real;
use dg_laws::euler2d;
use dg_modal_tri::device::{ModalDeviceOperator, ModalDeviceSystem};
use dg_modal_tri::ModalOperator2d;
use dg_modal_tri::ModalVariant;
use dg_runtime::backend::{BackendError, BufferId, Device};
use dg_runtime::cpu::BoundaryBinding;
use dg_runtime::formulation::law_ir;
use dg_runtime::run_loop::{non_finite, Integrated, LoopStats, StepRule};
use dg_runtime::stability::StabilityLimit;
use dg_runtime::startup::mark;
use dg_runtime::time::Scheme;
use serde::Serialize;
use std::time::Instant;

/// How to run an Euler case; `None` takes the case's default. The step rule of `common`: `cfl` is the Courant
/// number of dt = cfl · d_min / (λ_max (2p + 1)) (seed 001's rule, the case's number by default), `dt` a fixed step
/// instead of the adaptive rule, `allow_unstable` checked against the scheme's limit at the initial state, and
/// `step_scale` multiplies every step.
#[derive(Debug, Clone, Default)]
pub struct EulerOptions {
    /// Polynomial degree p.
    pub order: Option<usize>,
    /// Time integrator.
    pub scheme: Option<Scheme>,
    /// Numerical flux: `numerical_flux` (Rusanov), `hll_flux` or `hllc_flux`.
    pub flux: Option<String>,
    /// Barth–Jespersen limiter with the positivity guard (p = 1).
    pub limiter: Option<bool>,
    /// The options every time-dependent run takes (step, final time, boundary bindings, kernel choice, output,
    /// partition).
    pub common: crate::run_options::CommonRunOptions,
}

/// The step rule of a run with the case's own scheme and Courant number: seed 001's adaptive rule, from an
/// admissible initial state.
pub(crate) fn default_step_rule(dt0: Option<f64>, cfl: f64) -> Result<(StepRule, f64), RunError> {
    match dt0 {
        Some(_) => Ok((StepRule::Adaptive, cfl)),
        None => Err(RunError::Stopped {
            step: 0,
            time: 0.0,
            reason: "the initial state has no finite wave speed (negative density or pressure)".into(),
        }),
    }
}

/// The step rule of a run from the stability limit at the initial state: a fixed `--dt` checked against it, or
/// seed 001's adaptive rule with its Courant number (refused above the limit when given, lowered to it when the
/// case's default is above it). `dt0` is the adaptive rule's step at the initial state. Returns the rule and the
/// Courant number to use.
pub(crate) fn euler_step_rule(
    opts: &EulerOptions,
    scheme: Scheme,
    cfl: f64,
    dt0: Option<f64>,
    limit: &StabilityLimit,
) -> Result<(StepRule, f64), RunError> {
    let allow = opts.common.allow_unstable;
    match (opts.common.dt, opts.common.cfl) {
        (Some(_), Some(_)) => Err(RunError::InvalidOption("give --dt or --cfl, not both".into())),
        (Some(dt), None) => {
            let dt = limit.check(dt, ("--dt", dt), scheme, allow).map_err(RunError::InvalidOption)?;
            Ok((StepRule::Uniform(dt * opts.common.step_scale), cfl))
        }
        (None, given) => {
            let Some(dt0) = dt0 else {
                let reason = "the initial state has no finite wave speed (negative density or pressure)".to_string();
                return Err(RunError::Stopped { step: 0, time: 0.0, reason });
            };
            if dt0 <= limit.dt || allow {
                return Ok((StepRule::Adaptive, cfl));
            }
            if given.is_some() {
                limit.check(dt0, ("--cfl", cfl), scheme, false).map_err(RunError::InvalidOption)?;
            }
            Ok((StepRule::Adaptive, cfl * limit.dt / dt0))
        }
    }
}

/// What an Euler run measured.
#[derive(Debug, Clone, Serialize)]
pub struct EulerReport {
    /// Case name.
    pub case: String,
    /// Numerical flux.
    pub flux: String,
    /// Polynomial degree.
    pub order: usize,
    /// Precision.
    pub precision: &'static str,
    /// Elements.
    pub elements: usize,
    /// Degrees of freedom: elements × modes × 4.
    pub dofs: usize,
    /// Longest edge.
    pub h: f64,
    /// Time integrator.
    pub scheme: &'static str,
    /// Whether the limiter was on.
    pub limiter: bool,
    /// Steps taken.
    pub steps: u64,
    /// Smallest and largest step.
    pub dt_range: [f64; 2],
    /// Final time.
    pub t_end: f64,
    /// ‖ρ_h − ρ‖ in L2 at `t_end`, when the case has an exact solution.
    pub density_l2_error: Option<f64>,
    /// ∫ρ at the start and at the end.
    pub mass: [f64; 2],
    /// Smallest density and pressure over the volume cubature points at the end.
    pub min_density: f64,
    /// See `min_density`.
    pub min_pressure: f64,
    /// Right-hand-side evaluations.
    pub rhs_evaluations: u64,
    /// Wall time of the time loop.
    pub wall_seconds: f64,
    /// DOF × RHS evaluations per second.
    pub throughput: f64,
}

/// A finished run: the report and what a picture needs.
pub struct EulerOutcome {
    /// The report.
    pub report: EulerReport,
    /// Per element: its vertices.
    pub vertices: Vec<[[f64; 2]; 3]>,
    /// Density modes per element (`modes` each).
    pub density_modes: Vec<f64>,
    /// Modes per element.
    pub modes: usize,
    /// Device runs: what the device took and spent.
    pub device: Option<DeviceRunInfo>,
}

/// A run made ready: the CPU operator (the reference of the device path too), the initial state, the settings.
pub(crate) struct Prepared<T: Real> {
    pub op: ModalOperator2d<euler2d::Law, T>,
    pub q0: Vec<T>,
    pub order: usize,
    pub scheme: Scheme,
    pub cfl: f64,
    pub t_end: f64,
    pub flux: String,
    pub limiter: bool,
    pub h: f64,
    pub mesh: TriMesh,
}

fn prepare<T: Real>(case: &dyn EulerCase, mesh: TriMesh, opts: &EulerOptions) -> Result<Prepared<T>, RunError> {
    let space = DgSpace2d::new(mesh, 1)?;
    mark("space");
    prepare_on(case, space, opts)
}

/// [`prepare`] on a space already built (a rank's own elements and halo, whose faces to elements of no rank's
/// part are linked to themselves).
pub(crate) fn prepare_on<T: Real>(
    case: &dyn EulerCase,
    space: DgSpace2d,
    opts: &EulerOptions,
) -> Result<Prepared<T>, RunError> {
    let order = opts.order.unwrap_or_else(|| case.default_order());
    let (default_scheme, default_cfl) = case.default_scheme();
    let scheme = opts.scheme.unwrap_or(default_scheme);
    let cfl = opts.common.cfl.unwrap_or(default_cfl);
    let t_end = opts.common.t_end.unwrap_or_else(|| case.default_t_end());
    let invalid = |m: String| Err(RunError::InvalidOption(m));
    if !(t_end.is_finite() && t_end > 0.0) {
        return invalid(format!("final time must be positive, got {t_end}"));
    }
    if !(cfl.is_finite() && cfl > 0.0) {
        return invalid(format!("CFL number must be positive, got {cfl}"));
    }
    if let Some(dt) = opts.common.dt.filter(|dt| !(dt.is_finite() && *dt > 0.0)) {
        return invalid(format!("time step must be positive, got {dt}"));
    }
    let mut law = euler2d::Law::default();
    let flux = opts.flux.clone().unwrap_or_else(|| case.default_flux().to_string());
    if !law.select_numerical_flux(&flux) {
        return invalid(format!("unknown flux `{flux}`; the Euler law offers {:?}", law.numerical_flux_names()));
    }
    let rules = case.ghost_rules();
    let handled: Vec<&str> = rules
        .iter()
        .filter(|(_, r)| matches!(r, dg_modal_tri::cpu::GhostRule::Prescribed(_)))
        .map(|(t, _)| t.as_str())
        .collect();
    crate::check_bindings(&opts.common.boundary, &space.connectivity.tag_names)?;
    let mut bindings = case.law_conditions();
    bindings.extend(opts.common.boundary.clone());
    let binding = BoundaryBinding::for_law_except(&law, &space, &bindings, &handled)?;
    let element = ModalTriangle::new(order)?;
    let mut op = ModalOperator2d::<_, T>::with_rules(law, element, &space, &binding, &[], &rules);
    mark("operator");
    let limiter = opts.limiter.unwrap_or_else(|| case.default_limiter());
    if limiter {
        op.enable_limiter(true).map_err(|e| RunError::InvalidOption(e.to_string()))?;
    }
    let mut q0: Vec<T> = op.project(|x, y, out| case.initial(x, y, out));
    op.apply_limiter(&mut q0);
    mark("initial state");
    let h = space.mesh.max_edge_length();
    Ok(Prepared { op, q0, order, scheme, cfl, t_end, flux, limiter, h, mesh: space.mesh })
}

/// Runs `case` on `mesh` in `precision` on the native CPU path or, given `device`, with the generated modal
/// kernels (`opts.common.variant`, or the tuning database's winner, tuned on first use): right-hand sides, updates, the
/// limiter and the CFL step's wave speed on the device. `progress(t, t_end)` after every step.
pub fn run_euler(
    precision: Precision,
    case: &dyn EulerCase,
    mesh: TriMesh,
    opts: &EulerOptions,
    device: Option<&mut dyn Device>,
    progress: &mut dyn FnMut(f64, f64),
) -> Result<EulerOutcome, RunError> {
    match precision {
        Precision::F32 => run_euler_in::<f32>(case, mesh, opts, device, progress),
        Precision::F64 => run_euler_in::<f64>(case, mesh, opts, device, progress),
    }
}

/// [`run_euler`] in precision `T` (instantiated in this crate only, for both precisions).
pub(crate) fn run_euler_in<T: Real>(
    case: &dyn EulerCase,
    mesh: TriMesh,
    opts: &EulerOptions,
    device: Option<&mut dyn Device>,
    progress: &mut dyn FnMut(f64, f64),
) -> Result<EulerOutcome, RunError> {
    let started = Instant::now();
    let mut prepared = prepare::<T>(case, mesh, opts)?;
    let (scheme, cfl, t_end) = (prepared.scheme, prepared.cfl, prepared.t_end);
    let scale = opts.common.step_scale;
    // the case's own scheme and Courant number are seed 001's, stable for its cases: the limit is estimated
    // (and the step checked against it) only when the user changes the scheme, the Courant number or the step
    let needs_limit = opts.common.cfl.is_some() || opts.common.dt.is_some() || scheme != case.default_scheme().0;
    let (mesh, order, nm) = (prepared.mesh.clone(), prepared.order, prepared.op.element().nmodes);
    let names = euler2d::Law::default().variable_names();
    let vtu = |path: &std::path::Path, q: &[f64]| -> Result<(), RunError> {
        let values = per_variable(q, 4, nm);
        Ok(dg_core::vtu::write_vtu_modal(path, &mesh, order, &named(names, &values))?)
    };
    if let Some(spec) = &opts.common.variant {
        spec.parse::<ModalVariant>()?;
    }
    let Some(device) = device else {
        if opts.common.variant.is_some() {
            return Err(RunError::InvalidOption("--variant needs a device (--device cuda:0 or opencl)".into()));
        }
        let dt0 = prepared.op.stable_time_step(&prepared.q0, cfl);
        let (rule, cfl) = if needs_limit {
            let Ok(limit) = StabilityLimit::of(&mut prepared.op, &crate::widened(&prepared.q0), 0.0, scheme);
            euler_step_rule(opts, scheme, cfl, dt0, &limit)?
        } else {
            default_step_rule(dt0, cfl)?
        };
        let q0 = prepared.q0.clone();
        let mut stepper = Integrated::new(&mut prepared.op, q0, scheme)
            .with_host_values()
            .with_stable_dt(|op, q| Ok(op.stable_time_step(q, cfl).map(|dt| dt * scale)))
            .with_inspect(|op, q: &Vec<T>, _| Ok(non_finite(q).or_else(|| inadmissible_means(op, q))));
        let stats = run_stepper(&mut stepper, t_end, rule, &opts.common.output, &vtu, progress)?;
        let (_, q) = stepper.into_parts();
        opts.common.output.write_final(&vtu, &crate::widened(&q))?;
        return finish(case, &prepared, &q, stats, None);
    };
    let cpu = &prepared.op;
    let law = cpu.law();
    let ir = law_ir(law)?;
    let dofs = (cpu.num_elements() * 4 * dg_core::triangle::num_nodes(prepared.order)) as u64;
    let given = opts.common.variant.as_deref();
    let formulation = FormulationId::ModalTri;
    let choice =
        given_or_chosen::<euler2d::Law, T>(formulation, device, law, prepared.order, dofs, given, opts.common.no_tune)?;
    let variant: ModalVariant = choice.variant.parse()?;
    mark("kernel choice");
    let params = law.param_values();
    let target = dg_runtime::formulation::target_of(device);
    let op = ModalDeviceOperator::<T>::new(device, target, (&ir, &params, &prepared.flux), cpu, &variant)?;
    mark("device operator");
    let q = op.new_state(device)?;
    op.write_state(device, q, &prepared.q0)?;
    mark("state upload");
    let step_check = crate::StepCheck::new(device, &prepared.q0, false)?;
    mark("state check");
    let mut system = ModalDeviceSystem { device, op: &op, cpu, limiter: prepared.limiter, device_seconds: 0.0 };
    let dt0 = op.stable_time_step(system.device, q, cfl)?.0;
    let q0_f64 = crate::initial_values_if_estimated(&prepared.q0);
    let (rule, cfl) = if needs_limit {
        let limit = StabilityLimit::of_device(
            &mut system,
            &q,
            q0_f64.as_deref(),
            scheme,
            T::epsilon().as_f64(),
            &mut |sys, b, v| write_values(sys, b, v),
            &mut |sys, b| read_values(sys, b),
        )?;
        euler_step_rule(opts, scheme, cfl, dt0, &limit)?
    } else {
        default_step_rule(dt0, cfl)?
    };
    let loop_started = Instant::now();
    let stepper = Integrated::new(system, q, scheme).with_values(read_values, write_values);
    let stepper = match q0_f64 {
        Some(q0_f64) => stepper.with_initial_values(q0_f64),
        None => stepper,
    };
    let mut stepper = stepper
        .with_stable_dt(|sys: &mut ModalDeviceSystem<'_, euler2d::Law, T>, q: &_| {
            let (dt, seconds) = sys.op.stable_time_step(sys.device, *q, cfl)?;
            sys.device_seconds += seconds;
            Ok(dt.map(|dt| dt * scale))
        })
        .with_inspect(|sys: &mut ModalDeviceSystem<'_, euler2d::Law, T>, q: &_, at| {
            if let Some(reason) = step_check.after_step_pipelined(sys.device, *q, at, &mut sys.device_seconds)? {
                return Ok(Some(reason));
            }
            // the per-step check catches non-finite values at their step; the element means' admissibility is
            // counted on the device at sampled steps, and the state read back only to describe a failure
            if !at.sampled() {
                return Ok(None);
            }
            let (count, seconds) = sys.op.inadmissible_means(sys.device, *q)?;
            sys.device_seconds += seconds;
            if count == Some(0) {
                return Ok(None);
            }
            let state = sys.op.read_state(sys.device, *q)?;
            let reason = non_finite(&state).or_else(|| inadmissible_means(sys.cpu, &state));
            Ok(reason.or_else(|| {
                count.map(|n| {
                    format!("{n} element means left the admissible set; reduce --cfl or --dt, or turn the limiter on")
                })
            }))
        });
    let stats = run_stepper(&mut stepper, t_end, rule, &opts.common.output, &vtu, progress)?;
    let (sys, q) = stepper.into_parts();
    let final_state = op.read_state(sys.device, q)?;
    let info = DeviceRunInfo::new(sys.device, choice, started, loop_started, &stats, sys.device_seconds)?
        .with_state_checks(&step_check);
    sys.device.free_buffers();
    opts.common.output.write_final(&vtu, &crate::widened(&final_state))?;
    finish(case, &prepared, &final_state, stats, Some(info))
}

/// A device state read out as f64 values in the CPU layout.
fn read_values<T: Real>(
    sys: &mut ModalDeviceSystem<'_, euler2d::Law, T>,
    q: &BufferId,
) -> Result<Vec<f64>, BackendError> {
    Ok(crate::widened(&sys.op.read_state(sys.device, *q)?))
}

/// f64 values in the CPU layout written into a device state.
fn write_values<T: Real>(
    sys: &mut ModalDeviceSystem<'_, euler2d::Law, T>,
    q: &mut BufferId,
    v: &[f64],
) -> Result<(), BackendError> {
    sys.op.write_state(sys.device, *q, &crate::narrowed::<T>(v))
}

/// `Some(reason)` when an element mean of `q` (CPU layout; the first elements only, a rank's own ahead of its halo,
/// may be given) has a non-positive density or pressure: the state left the admissible set (checked after every
/// step on the CPU, at every inspection on a device).
fn inadmissible_means<T: Real>(op: &ModalOperator2d<euler2d::Law, T>, q: &[T]) -> Option<String> {
    let (nm, phi0) = (op.element().nmodes, op.element().phi[(0, 0)]);
    let (mut bad, mut min_density, mut min_pressure) = (0usize, f64::INFINITY, f64::INFINITY);
    for k in 0..(q.len() / (4 * nm)).min(op.num_elements()) {
        let mean: [f64; 4] = std::array::from_fn(|v| q[(k * 4 + v) * nm].as_f64() * phi0);
        let p = pressure(&mean);
        if !(mean[0] > 0.0 && p > 0.0) {
            bad += 1;
            min_density = min_density.min(mean[0]);
            min_pressure = min_pressure.min(p);
        }
    }
    (bad > 0).then(|| {
        format!(
            "{bad} element means left the admissible set (density {min_density:.3e}, pressure {min_pressure:.3e}); \
             reduce --cfl or --dt, or turn the limiter on"
        )
    })
}

/// The report of a finished run from its final state `q` (CPU layout).
fn finish<T: Real>(
    case: &dyn EulerCase,
    prepared: &Prepared<T>,
    q: &[T],
    stats: LoopStats,
    device: Option<DeviceRunInfo>,
) -> Result<EulerOutcome, RunError> {
    let Prepared { op, q0, order, scheme, t_end, flux, limiter, h, .. } = prepared;
    let (order, scheme, t_end, limiter, h) = (*order, *scheme, *t_end, *limiter, *h);
    let density_l2_error = case.has_exact().then(|| {
        op.l2_error(q, &[0], |x, y, out| {
            case.exact(x, y, t_end, out);
        })
    });
    let (mut min_density, mut min_pressure) = (f64::INFINITY, f64::INFINITY);
    let nq = op.element().volume.w.len();
    for k in 0..op.num_elements() {
        let values = op.values_at_cubature(q, k);
        for p in 0..nq {
            let state = [values[p], values[nq + p], values[2 * nq + p], values[3 * nq + p]];
            min_density = min_density.min(state[0]);
            min_pressure = min_pressure.min(pressure(&state));
        }
    }
    let nm = op.element().nmodes;
    let dofs = op.state_len();
    let report = EulerReport {
        case: case.name().to_string(),
        flux: flux.clone(),
        order,
        precision: T::NAME,
        elements: op.num_elements(),
        dofs,
        h,
        scheme: scheme.name(),
        limiter,
        steps: stats.steps,
        dt_range: stats.dt_range,
        t_end,
        density_l2_error,
        mass: [op.totals(q0)[0], op.totals(q)[0]],
        min_density,
        min_pressure,
        rhs_evaluations: stats.rhs_evaluations,
        wall_seconds: stats.wall_seconds,
        throughput: dofs as f64 * stats.rhs_evaluations as f64 / stats.wall_seconds.max(1e-12),
    };
    let density_modes =
        (0..op.num_elements()).flat_map(|k| q[k * 4 * nm..(k * 4 + 1) * nm].iter().map(|v| v.as_f64())).collect();
    let vertices = (0..op.num_elements()).map(|k| op.element_vertices(k)).collect();
    Ok(EulerOutcome { report, vertices, density_modes, modes: nm, device })
}
