//! Running the 3D wave cases (seed 002) on tetrahedra: one run with error and (for interface problems)
//! measured reflection/transmission coefficients, and convergence studies over refined boxes.

use crate::error::RunError;
use crate::formulations::FormulationId;
use crate::output::{named, per_variable, run_stepper, RunOutput, VtuWriter};
use crate::run_options::CommonRunOptions;
use crate::winners::{given_or_chosen, DeviceRunInfo};
use crate::Precision;
use dg_cases::waves::{WaveCase, WaveLaw};
use dg_core::law::ConservationLaw;
use dg_core::mesh3d::TetMesh;
use dg_core::space3d::DgSpace3d;
use dg_core::tetrahedron::tet_cubature;
use dg_core::Real;
use dg_laws::{acoustics3d, elastic3d};
use dg_nodal_tet::device::{TetDeviceOperator, TetDeviceSystem};
use dg_nodal_tet::NodalOperator3d;
use dg_nodal_tet::TetVariant;
use dg_runtime::backend::{BufferId, Device};
use dg_runtime::cpu::BoundaryBinding;
use dg_runtime::restart::Snapshot;
use dg_runtime::run_loop::{Integrated, LoopError, LoopStats, StepPoint, StepRule, Stepper};
use dg_runtime::stability::StabilityLimit;
use dg_runtime::startup::mark;
use dg_runtime::step_system::StepOperator;
use dg_runtime::study::{convergence_study, time_accuracy_factor, ConvergenceStudy, LevelRun, StudyPlan};
use dg_runtime::time::{Integrator, OdeSystem, Scheme};
use dg_runtime::DeviceOperatorError;
use serde::Serialize;
use std::time::Instant;

/// How to run a wave case. `common.cfl` is the Courant number relative to the LSRK45 limit (scaled for other
/// schemes); `None`: [`DEFAULT_CFL`], or the scheme's stability limit on the problem when that is smaller.
#[derive(Debug, Clone)]
pub struct WaveOptions {
    /// Polynomial order N.
    pub order: usize,
    /// Time integrator.
    pub scheme: Scheme,
    /// The options every time-dependent run takes (step, final time, boundary bindings, kernel choice, output,
    /// partition).
    pub common: crate::run_options::CommonRunOptions,
}

impl Default for WaveOptions {
    fn default() -> Self {
        Self { order: 3, scheme: Scheme::Lsrk45, common: Default::default() }
    }
}

/// Measured pressure reflection and transmission coefficients next to the analytic ones.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Coefficients {
    /// Measured R.
    pub reflection: f64,
    /// Measured T.
    pub transmission: f64,
    /// Analytic R.
    pub reflection_exact: f64,
    /// Analytic T.
    pub transmission_exact: f64,
}

/// What a wave run reports.
#[derive(Debug, Clone, Serialize)]
pub struct WaveReport {
    /// Case name.
    pub case: String,
    /// Law name.
    pub law: String,
    /// Polynomial order.
    pub order: usize,
    /// Tetrahedra.
    pub elements: usize,
    /// Nodes (K·Np).
    pub nodes: usize,
    /// Largest edge length.
    pub h: f64,
    /// Time integrator.
    pub scheme: String,
    /// Steps taken.
    pub steps: u64,
    /// Time step.
    pub dt: f64,
    /// Final time.
    pub t_end: f64,
    /// L2 error of all variables together at `t_end`.
    pub l2_error: f64,
    /// `l2_error` divided by the L2 norm of the exact solution.
    pub relative_l2_error: f64,
    /// Wall time of the time loop, seconds.
    pub wall_seconds: f64,
    /// Interface problems: measured and analytic coefficients.
    pub coefficients: Option<Coefficients>,
}

/// The discrete problem of a case on a mesh: the space, per-element materials, boundary binding.
pub struct WaveProblem {
    /// The DG space.
    pub space: DgSpace3d,
    /// Per-element materials, element-major.
    pub materials: Vec<f64>,
    /// Boundary tags bound to the law's conditions.
    pub binding: BoundaryBinding,
}

/// Builds the space (order `opts.order`), materials and boundary binding (the case's, overridden by
/// `opts.common.boundary`) of `case` on `mesh` for a law.
pub fn prepare<L: ConservationLaw>(
    law: &L,
    case: &dyn WaveCase,
    mesh: TetMesh,
    opts: &WaveOptions,
) -> Result<WaveProblem, RunError> {
    problem_on(law, case, DgSpace3d::new(mesh, opts.order)?, opts)
}

/// [`prepare`] on a space already built (a rank's part of a mesh).
pub fn problem_on<L: ConservationLaw>(
    law: &L,
    case: &dyn WaveCase,
    space: DgSpace3d,
    opts: &WaveOptions,
) -> Result<WaveProblem, RunError> {
    crate::check_bindings(&opts.common.boundary, &space.connectivity.tag_names)?;
    let materials = (0..space.num_elements())
        .flat_map(|k| {
            let p = space.mesh.elements[k].map(|v| space.mesh.vertices[v]);
            let centroid: [f64; 3] = std::array::from_fn(|d| p.iter().map(|x| x[d]).sum::<f64>() / 4.0);
            case.material(centroid)
        })
        .collect::<Vec<f64>>();
    if materials.len() != space.num_elements() * L::NMATERIALS {
        return Err(RunError::InvalidOption(format!(
            "case `{}` gives {} material values per element, law `{}` needs {}",
            case.name(),
            materials.len() / space.num_elements().max(1),
            law.name(),
            L::NMATERIALS
        )));
    }
    let mut bindings = case.boundary_conditions();
    bindings.extend(opts.common.boundary.clone());
    let binding = BoundaryBinding::for_law_on_tets(law, &space, &bindings)?;
    Ok(WaveProblem { space, materials, binding })
}

/// The default Courant number of the CFL rule.
pub const DEFAULT_CFL: f64 = 0.5;

/// The largest step of a run: `opts.common.dt`, or the CFL rule with the largest wave speed over the materials, checked
/// against the scheme's stability `limit` (refused above it unless `opts.common.allow_unstable`); without either option,
/// the rule's step at [`DEFAULT_CFL`] or the limit, whichever is smaller.
pub fn step_limit<L: ConservationLaw>(
    law: &L,
    problem: &WaveProblem,
    opts: &WaveOptions,
    limit: &StabilityLimit,
) -> Result<f64, RunError> {
    let nm = L::NMATERIALS;
    let zero = vec![0.0; L::NVARS];
    let speed = problem
        .materials
        .chunks(nm.max(1))
        .map(|m| law.max_speed(&zero, m, &[1.0, 0.0, 0.0]))
        .fold(0.0f64, dg_core::max_or_nan);
    let rule = |cfl: f64| cfl * opts.scheme.relative_stability() * problem.space.dt_length_scale() / speed;
    crate::uniform_step(&opts.common, opts.scheme, rule, DEFAULT_CFL, limit)
}

/// A finished wave run.
pub struct WaveOutcome {
    /// The report.
    pub report: WaveReport,
    /// Device runs: what the device took and spent.
    pub device: Option<DeviceRunInfo>,
}

/// Runs `case` on `mesh` in `precision` with its law, on the native CPU path or, given `device`, with the
/// tetrahedral kernels (`opts.common.variant`, or the tuning database's winner, tuned on first use). AB3 on a device
/// runs as seed 002 does (two RK4 start-up steps, then volume, surface and the fused update-and-trace kernel per
/// step); the other schemes use the generic integrators.
pub fn run_wave(
    precision: Precision,
    case: &dyn WaveCase,
    mesh: TetMesh,
    opts: &WaveOptions,
    device: Option<&mut dyn Device>,
    progress: &mut dyn FnMut(f64, f64),
) -> Result<WaveOutcome, RunError> {
    match precision {
        Precision::F32 => run_wave_in::<f32>(case, mesh, opts, device, progress),
        Precision::F64 => run_wave_in::<f64>(case, mesh, opts, device, progress),
    }
}

/// [`run_wave`] in precision `T` (instantiated in this crate only, for both precisions).
pub(crate) fn run_wave_in<T: Real>(
    case: &dyn WaveCase,
    mesh: TetMesh,
    opts: &WaveOptions,
    device: Option<&mut dyn Device>,
    progress: &mut dyn FnMut(f64, f64),
) -> Result<WaveOutcome, RunError> {
    match case.law() {
        WaveLaw::Acoustic => run_law::<_, T>(acoustics3d::Law::default(), case, mesh, opts, device, progress),
        WaveLaw::Elastic => run_law::<_, T>(elastic3d::Law::default(), case, mesh, opts, device, progress),
    }
}

fn run_law<L: ConservationLaw + Clone + Send + Sync + 'static, T: Real>(
    law: L,
    case: &dyn WaveCase,
    mesh: TetMesh,
    opts: &WaveOptions,
    device: Option<&mut dyn Device>,
    progress: &mut dyn FnMut(f64, f64),
) -> Result<WaveOutcome, RunError> {
    let started = Instant::now();
    let problem = prepare(&law, case, mesh, opts)?;
    mark("space");
    let t_end = opts.common.t_end.unwrap_or_else(|| case.default_t_end());
    let space = &problem.space;
    let q0: Vec<T> = space.interpolate(L::NVARS, |x, q| case.initial(x, q));
    mark("initial state");
    let q0_f64: Vec<f64> = crate::widened(&q0);
    if let Some(spec) = &opts.common.variant {
        spec.parse::<TetVariant>()?;
    }
    let (names, np) = (law.variable_names(), space.element.np);
    let vtu = |path: &std::path::Path, q: &[f64]| -> Result<(), RunError> {
        let values = per_variable(q, L::NVARS, np);
        Ok(dg_core::vtu::write_vtu_tet(path, space, &named(names, &values))?)
    };
    let (q, stats, info) = match device {
        None => {
            if opts.common.variant.is_some() {
                return Err(RunError::InvalidOption("--variant needs a device (--device cuda:0 or opencl)".into()));
            }
            let op64 = || NodalOperator3d::<L, f64>::new(law.clone(), space, &problem.binding, &problem.materials);
            let Ok(limit) = StabilityLimit::of_built(op64, &q0_f64, 0.0, opts.scheme);
            crate::note_unestimated(&limit, q0_f64.len());
            let rule = StepRule::Uniform(step_limit(&law, &problem, opts, &limit)? * opts.common.step_scale);
            let op = NodalOperator3d::<L, T>::new(law.clone(), space, &problem.binding, &problem.materials);
            let verdict = crate::host_step_verdict(&q0, crate::energy_cannot_grow(&law, &problem.binding));
            let mut stepper = Integrated::new(op, q0, opts.scheme)
                .with_host_values()
                .with_inspect(move |_, q: &Vec<T>, _| Ok(verdict(q)));
            let stats = run_stepper(&mut stepper, t_end, rule, &opts.common.output, &vtu, progress)?;
            (stepper.into_parts().1, stats, None)
        }
        Some(device) => {
            let run = (q0.as_slice(), t_end, started);
            let (q, stats, info) = device_loop::<L, T>(device, &law, &problem, opts, run, &vtu, progress)?;
            (q, stats, Some(info))
        }
    };
    let report = finish_report(case, space, &q, opts, law.name(), &stats)?;
    opts.common.output.write_final(&vtu, &crate::widened(&q))?;
    Ok(WaveOutcome { report, device: info })
}

/// Errors and coefficients of the final state `q` (layout `(k * nvars + v) * np + i`).
pub fn finish_report<T: Real>(
    case: &dyn WaveCase,
    space: &DgSpace3d,
    q: &[T],
    opts: &WaveOptions,
    law: &str,
    stats: &LoopStats,
) -> Result<WaveReport, RunError> {
    let nv = q.len() / space.num_nodes();
    let t_end = stats.t_end;
    let errors = space.l2_errors(nv, q, |x, e| case.exact(x, t_end, e))?;
    let zero = vec![0.0f64; q.len()];
    let norms = space.l2_errors(nv, &zero, |x, e| case.exact(x, t_end, e))?;
    let total = |v: &[f64]| v.iter().map(|e| e * e).sum::<f64>().sqrt();
    let l2_error = total(&errors);
    let coefficients = match case.analytic_coefficients() {
        Some((r, t)) => Some(measure_coefficients(case, space, q, nv, t_end, (r, t))?),
        None => None,
    };
    Ok(WaveReport {
        case: case.name().into(),
        law: law.into(),
        order: opts.order,
        elements: space.num_elements(),
        nodes: space.num_nodes(),
        h: space.mesh.max_edge_length(),
        scheme: opts.scheme.name().into(),
        steps: stats.steps,
        dt: stats.dt_range[1],
        t_end,
        l2_error,
        relative_l2_error: l2_error / total(&norms).max(f64::MIN_POSITIVE),
        wall_seconds: stats.wall_seconds,
        coefficients,
    })
}

/// R = ∫ p_h g_R / ∫ g_R², T = ∫ p_h g_T / ∫ g_T² with the case's unit-amplitude shapes g (pressure is variable 0).
fn measure_coefficients<T: Real>(
    case: &dyn WaveCase,
    space: &DgSpace3d,
    q: &[T],
    nv: usize,
    t: f64,
    exact: (f64, f64),
) -> Result<Coefficients, RunError> {
    let el = &space.element;
    let rule = tet_cubature(2 * el.order + 4);
    let interp = el.interpolation_matrix(&rule.r, &rule.s, &rule.t)?;
    let (mut pr, mut rr, mut pt, mut tt) = (0.0, 0.0, 0.0, 0.0);
    for k in 0..space.num_elements() {
        let j = space.geometry[k].j;
        let p = space.mesh.elements[k].map(|v| space.mesh.vertices[v]);
        let base = k * nv * el.np;
        for (c, &w) in rule.w.iter().enumerate() {
            let (r, s, tt_) = (rule.r[c], rule.s[c], rule.t[c]);
            let l = [-0.5 * (1.0 + r + s + tt_), 0.5 * (1.0 + r), 0.5 * (1.0 + s), 0.5 * (1.0 + tt_)];
            let x: [f64; 3] = std::array::from_fn(|d| (0..4).map(|a| l[a] * p[a][d]).sum());
            let (gr, gt) = case.interface_shapes(x, t).unwrap_or((0.0, 0.0));
            let ph: f64 = (0..el.np).map(|i| interp[(c, i)] * q[base + i].as_f64()).sum();
            pr += w * j * ph * gr;
            rr += w * j * gr * gr;
            pt += w * j * ph * gt;
            tt += w * j * gt * gt;
        }
    }
    Ok(Coefficients {
        reflection: pr / rr.max(f64::MIN_POSITIVE),
        transmission: pt / tt.max(f64::MIN_POSITIVE),
        reflection_exact: exact.0,
        transmission_exact: exact.1,
    })
}

/// Runs `case` for every order on `levels` boxes with `base_cells · 2^level` hexahedra along the shortest side,
/// on the native CPU path or, given a device, with the tetrahedral kernels in double precision. The step shrinks
/// with the mesh as the CFL rule gives, and additionally like [`time_accuracy_factor`] so that the time error of
/// the fourth-order integrator stays below the spatial error. `progress(order, level)` before each run.
pub fn wave_convergence(
    case: &dyn WaveCase,
    base_cells: usize,
    orders: std::ops::RangeInclusive<usize>,
    levels: usize,
    opts: &WaveOptions,
    mut device: Option<&mut dyn Device>,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<ConvergenceStudy, RunError> {
    let plan = StudyPlan {
        case: case.name().into(),
        error: "L2 error (all fields)".into(),
        formulation: FormulationId::NodalTet.name().into(),
        device: crate::device_name(device.as_deref()),
        orders,
        levels,
    };
    let mut one = |order: usize, level: usize| -> Result<LevelRun, RunError> {
        let mesh = case.mesh(base_cells << level).map_err(|e| RunError::from(dg_core::space::SpaceError::from(e)))?;
        let level_opts = WaveOptions {
            order,
            common: CommonRunOptions {
                step_scale: time_accuracy_factor(order, level, opts.scheme.order()),
                output: RunOutput::default(),
                ..opts.common.clone()
            },
            ..opts.clone()
        };
        let outcome = run_wave_in::<f64>(
            case,
            mesh,
            &level_opts,
            device.as_deref_mut().map(|d| -> &mut dyn Device { d }),
            &mut |_, _| {},
        )?;
        let r = outcome.report;
        Ok(LevelRun { h: r.h, error: r.l2_error, seconds: r.wall_seconds })
    };
    Ok(convergence_study(&plan, &mut one, progress)?)
}

/// What a device run needs besides the problem: the initial state, the final time, the run's start.
type DeviceRun<'a, T> = (&'a [T], f64, Instant);

/// The device part of [`run_wave`]: the variant, the operator, the loop; the final state in the CPU layout.
fn device_loop<L: ConservationLaw + Clone + Send + Sync + 'static, T: Real>(
    device: &mut dyn Device,
    law: &L,
    problem: &WaveProblem,
    opts: &WaveOptions,
    (q0, t_end, started): DeviceRun<'_, T>,
    vtu: &VtuWriter<'_>,
    progress: &mut dyn FnMut(f64, f64),
) -> Result<(Vec<T>, LoopStats, DeviceRunInfo), RunError> {
    let space = &problem.space;
    let nodes = space.num_nodes() as u64;
    let given = opts.common.variant.as_deref();
    let choice =
        given_or_chosen::<L, T>(FormulationId::NodalTet, device, law, opts.order, nodes, given, opts.common.no_tune)?;
    let variant: TetVariant = choice.variant.parse()?;
    let ir = dg_runtime::formulation::law_ir(law)?;
    let params = law.param_values();
    let target = dg_runtime::formulation::target_of(device);
    let flux = law.numerical_flux_name();
    mark("kernel choice");
    let (binding, materials) = (&problem.binding, &problem.materials);
    let op = TetDeviceOperator::<T>::for_variant(
        device,
        target,
        (&ir, &params, flux),
        space,
        binding,
        materials,
        Some(&variant),
    )?;
    mark("device operator");
    let q = op.buffers.q;
    op.write_state(device, q, q0)?;
    mark("state upload");
    let step_check = crate::StepCheck::new(device, q0, crate::energy_cannot_grow(law, binding))?;
    mark("state check");
    let mut system = TetDeviceSystem { device, op: &op, variant, device_seconds: 0.0 };
    let q0_f64 = crate::initial_values_if_estimated(q0);
    let limit = StabilityLimit::of_device(
        &mut system,
        &q,
        q0_f64.as_deref(),
        opts.scheme,
        T::epsilon().as_f64(),
        &mut |sys, b, v| write_values(sys, *b, v),
        &mut |sys, b| read_values(sys, *b),
    )?;
    crate::note_unestimated(&limit, q0.len());
    let rule = StepRule::Uniform(step_limit(law, problem, opts, &limit)? * opts.common.step_scale);
    op.write_state(system.device, q, q0)?;
    let loop_started = Instant::now();
    let (system, stats) = if opts.scheme == Scheme::Ab3 {
        let mut stepper = TetAb3 {
            system,
            rk4: Integrator::new(Scheme::Rk4),
            r: op.buffers.rhs,
            steps: 0,
            rhs: 0,
            check: &step_check,
        };
        let stats = run_stepper(&mut stepper, t_end, rule, &opts.common.output, vtu, progress)?;
        (stepper.system, stats)
    } else {
        let stepper = Integrated::new(system, q, opts.scheme);
        let stepper = match q0_f64 {
            Some(q0_f64) => stepper.with_initial_values(q0_f64),
            None => stepper,
        };
        let mut stepper = stepper
            .with_values(
                |sys: &mut TetDeviceSystem<'_, T>, q: &_| read_values(sys, *q),
                |sys, q, v| write_values(sys, *q, v),
            )
            .with_inspect(|sys: &mut TetDeviceSystem<'_, T>, q: &_, at| inspect_tet(sys, *q, at, &step_check));
        let stats = run_stepper(&mut stepper, t_end, rule, &opts.common.output, vtu, progress)?;
        (stepper.into_parts().0, stats)
    };
    let host: Vec<T> = op.read_state(system.device, q)?;
    let info = DeviceRunInfo::new(system.device, choice, started, loop_started, &stats, system.device_seconds)?
        .with_state_checks(&step_check);
    system.device.free_buffers();
    Ok((host, stats, info))
}

/// A device state read out as f64 values in the CPU layout.
fn read_values<T: Real>(sys: &mut TetDeviceSystem<'_, T>, q: BufferId) -> Result<Vec<f64>, DeviceOperatorError> {
    Ok(crate::widened(&sys.op.read_state(sys.device, q)?))
}

/// f64 values in the CPU layout written into a device state.
fn write_values<T: Real>(sys: &mut TetDeviceSystem<'_, T>, q: BufferId, v: &[f64]) -> Result<(), DeviceOperatorError> {
    Ok(sys.op.write_state(sys.device, q, &crate::narrowed::<T>(v))?)
}

/// The device state's check: the per-step reduction, which finds a value that is not finite (the NaN it reduces
/// to) and the largest value's growth, waited for at the sampled steps and after the last (the whole state is read
/// once, after the loop; it was also read at the sampled steps up to 32 and after the last, for what the reduction
/// had already checked).
fn inspect_tet<T: Real>(
    sys: &mut TetDeviceSystem<'_, T>,
    q: BufferId,
    at: StepPoint,
    check: &crate::StepCheck,
) -> Result<Option<String>, DeviceOperatorError> {
    Ok(check.after_step_pipelined(sys.device, q, at, &mut sys.device_seconds)?)
}

/// Seed 002's AB3 on the device: two classical RK4 start-up steps (recording the right-hand sides AB3 needs),
/// the trace kernel, then per step volume, surface and the fused update-and-trace kernel.
struct TetAb3<'a, T: Real> {
    system: TetDeviceSystem<'a, T>,
    rk4: Integrator<TetDeviceSystem<'a, T>>,
    /// Right-hand-side levels, newest first.
    r: [BufferId; 3],
    steps: u64,
    rhs: u64,
    /// The per-step state check.
    check: &'a crate::StepCheck,
}

impl<T: Real> Stepper for TetAb3<'_, T> {
    type Error = DeviceOperatorError;

    fn step(&mut self, t: f64, dt: f64) -> Result<(), DeviceOperatorError> {
        let op = self.system.op;
        let q = op.buffers.q;
        if self.steps < 2 {
            let mut level = self.r[2 - self.steps as usize];
            self.system.rhs(t, &q, &mut level)?;
            let mut state = q;
            self.rk4.step(&mut self.system, t, dt, &mut state)?;
            // the first AB3 step's surface reads traces (when its strategy does) as a fused update would have left them
            if self.steps == 1 && self.system.variant.strategy.reads_traces() {
                let trace = op.trace_steps_for(&self.system.variant, q)?;
                self.system.device_seconds += op.submit(self.system.device, &trace)?;
            }
        } else {
            let seq = op.ab3_steps(&self.system.variant, self.r, t, dt)?;
            self.system.device_seconds += op.submit(self.system.device, &seq)?;
            self.r = [self.r[2], self.r[0], self.r[1]];
            self.rhs += 1;
        }
        self.steps += 1;
        Ok(())
    }

    fn inspect(&mut self, at: StepPoint) -> Result<Option<String>, DeviceOperatorError> {
        let q = self.system.op.buffers.q;
        inspect_tet(&mut self.system, q, at, self.check)
    }

    fn rhs_evaluations(&self) -> u64 {
        self.rk4.rhs_evaluations() + 2 + self.rhs
    }

    fn save(&mut self) -> Result<Option<Snapshot>, DeviceOperatorError> {
        let q = self.system.op.buffers.q;
        let mut arrays = vec![("state".to_string(), read_values(&mut self.system, q)?)];
        for (i, &r) in self.r.iter().enumerate() {
            arrays.push((format!("rhs.{i}"), read_values(&mut self.system, r)?));
        }
        let (rk4, _) = self.rk4.saved();
        let stepper = serde_json::json!({ "steps": self.steps, "ab3_steps": self.rhs, "rk4": rk4 });
        Ok(Some(Snapshot { stepper, arrays }))
    }

    fn restore(&mut self, snapshot: &Snapshot) -> Result<(), LoopError<DeviceOperatorError>> {
        let refuse = |m: String| LoopError::Options(format!("cannot continue from the saved state: {m}"));
        let counter = |name: &str| snapshot.stepper.get(name).and_then(|v| v.as_u64());
        let (Some(steps), Some(ab3_steps)) = (counter("steps"), counter("ab3_steps")) else {
            return Err(refuse("it was not saved by the device AB3 stepper".into()));
        };
        let rk4 = serde_json::from_value(snapshot.stepper["rk4"].clone()).map_err(|e| refuse(e.to_string()))?;
        let op = self.system.op;
        let system = |e: DeviceOperatorError| LoopError::System(e);
        let len = read_values(&mut self.system, op.buffers.q).map_err(system)?.len();
        let array = |name: &str| match snapshot.array(name) {
            Some(v) if v.len() == len => Ok(v),
            _ => Err(refuse(format!("`{name}` is missing or does not hold this run's {len} values"))),
        };
        write_values(&mut self.system, op.buffers.q, array("state")?).map_err(system)?;
        for (i, &r) in self.r.iter().enumerate() {
            write_values(&mut self.system, r, array(&format!("rhs.{i}"))?).map_err(system)?;
        }
        let q = op.buffers.q;
        self.rk4.restore_slots(&mut self.system, &q, &rk4).map_err(system)?.map_err(refuse)?;
        (self.steps, self.rhs) = (steps, ab3_steps);
        if steps >= 2 && self.system.variant.strategy.reads_traces() {
            // the traces the next step reads were written by the last fused update: write them again
            let trace = op.trace_steps_for(&self.system.variant, q).map_err(system)?;
            self.system.device_seconds +=
                op.run(self.system.device, &trace, 1).map_err(|e| system(e.into()))?.iter().sum::<f64>();
        }
        Ok(())
    }
}
