//! Running the hexahedral cases (seed 003): one run with its error against the exact solution, and convergence
//! studies over refined boxes, on the native CPU path (the CPU reference operator) or on a device with the
//! generated kernels (the variant given, or the tuning database's winner, tuned on first use).

use crate::error::RunError;
use crate::formulations::FormulationId;
use crate::output::{named, per_variable, run_stepper, RunOutput};
use crate::run_options::CommonRunOptions;
use crate::winners::{given_or_chosen, DeviceRunInfo};
use crate::Precision;
use dg_cases::hex::{HexCase, HexLaw};
use dg_core::hexmesh::{GeometryClass, HexMesh};
use dg_core::law::ConservationLaw;
use dg_core::space_hex::HexSpace;
use dg_core::Real;
use dg_hex::{HexDeviceOperator, HexDeviceSystem, HexOperator, HexVariant};
use dg_laws::{euler3d, maxwell3d};
use dg_runtime::backend::{BufferId, Device};
use dg_runtime::cpu::BoundaryBinding;
use dg_runtime::run_loop::{Integrated, LoopStats, StepPoint, StepRule};
use dg_runtime::stability::StabilityLimit;
use dg_runtime::startup::mark;
use dg_runtime::study::{convergence_study, time_accuracy_factor, ConvergenceStudy, LevelRun, StudyPlan};
use dg_runtime::time::Scheme;
use dg_runtime::DeviceOperatorError;
use serde::Serialize;
use std::time::Instant;

/// How to run a hexahedral case. `common.cfl` is the Courant number relative to the LSRK45 limit (scaled for
/// other schemes); `None`: [`DEFAULT_CFL`], or the scheme's stability limit on the problem when that is smaller.
#[derive(Debug, Clone)]
pub struct HexOptions {
    /// Polynomial degree D per direction.
    pub order: usize,
    /// Time integrator.
    pub scheme: Scheme,
    /// The law's numerical flux of this name instead of its default.
    pub flux: Option<String>,
    /// The options every time-dependent run takes (step, final time, boundary bindings, kernel choice, output,
    /// partition).
    pub common: crate::run_options::CommonRunOptions,
}

impl Default for HexOptions {
    fn default() -> Self {
        Self { order: 3, scheme: Scheme::Lsrk45, flux: None, common: Default::default() }
    }
}

/// What a hexahedral run reports.
#[derive(Debug, Clone, Serialize)]
pub struct HexReport {
    /// Case name.
    pub case: String,
    /// Law name.
    pub law: String,
    /// The numerical flux.
    pub flux: String,
    /// Polynomial degree per direction.
    pub order: usize,
    /// Cells.
    pub elements: usize,
    /// Cells that are axis-aligned boxes (constant metric); the rest are general trilinear cells.
    pub box_cells: usize,
    /// Nodes (K·(D + 1)³).
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
}

/// Host memory a hexahedral run on the native CPU path takes per value of its state, at the least: below what
/// `/usr/bin/time` measured there (2026-12-02, one step of a state past the stability estimate's size).
pub const CPU_LEAST_BYTES_PER_VALUE: u128 = 64;

/// Host memory a hexahedral run on a device takes per value of its state, at the least: the initial state kept in
/// f64 twice (the state the loop starts from and the one it may restart from) and in the run's precision once.
pub const DEVICE_LEAST_BYTES_PER_VALUE: u128 = 16;

/// Host memory an MPI run's rank 0 takes per value of the whole mesh's state, at the least: the initial state in
/// f64 (its step is estimated on the whole mesh).
pub const WHOLE_MESH_LEAST_BYTES_PER_VALUE: u128 = 8;

/// Refuses a run whose state (`cells` cells of degree `order`, `nvars` variables, `least_bytes_per_value` bytes
/// each: one of the constants above) needs more memory than this machine has available, before anything that size
/// is allocated.
pub fn check_state_size(cells: usize, order: usize, nvars: usize, least_bytes_per_value: u128) -> Result<(), RunError> {
    let values = cells as u128 * (order as u128 + 1).pow(3) * nvars as u128;
    let made = format!("{cells} cells of degree {order} hold {values} values per state, which need");
    let least = values.saturating_mul(least_bytes_per_value);
    dg_runtime::host_memory::ensure_available(least, &made, "use fewer cells or a lower degree")
        .map_err(RunError::InvalidOption)
}

/// The number of variables of a case's law.
pub fn case_variables(case: &dyn HexCase) -> usize {
    match case.law() {
        HexLaw::Maxwell => <maxwell3d::Law as ConservationLaw>::NVARS,
        HexLaw::Euler => <euler3d::Law as ConservationLaw>::NVARS,
    }
}

/// The default Courant number of the CFL rule: below the LSRK45 limit the Arnoldi estimate finds on boxes and
/// distorted boxes for D = 1..6 (the largest stable Courant number measured, 2026-11-27: 0.61, 0.47, 0.43 for the
/// plane wave at D = 1..3 and 0.39 at D = 6; 0.44–0.54 for the distorted cavity and the density wave at D = 2..6).
/// States too large for the estimate take this rule unchecked, so it must be stable by itself; 0.5 was not at
/// D ≥ 3, which also made the step of the finest level of a study relatively larger than the estimated ones.
pub const DEFAULT_CFL: f64 = 0.3;

/// What a hexahedral run gives: the report and, on a device, what the device took and spent.
#[derive(Debug, Clone)]
pub struct HexOutcome {
    /// The report.
    pub report: HexReport,
    /// Device runs: the variant, how it was chosen, device time.
    pub device: Option<DeviceRunInfo>,
}

/// Runs `case` on `mesh` in `precision` with its law, on the native CPU path or, given `device`, with the
/// generated hexahedral kernels.
pub fn run_hex(
    precision: Precision,
    case: &dyn HexCase,
    mesh: HexMesh,
    opts: &HexOptions,
    device: Option<&mut dyn Device>,
    progress: &mut dyn FnMut(f64, f64),
) -> Result<HexOutcome, RunError> {
    match precision {
        Precision::F32 => run_hex_in::<f32>(case, mesh, opts, device, progress),
        Precision::F64 => run_hex_in::<f64>(case, mesh, opts, device, progress),
    }
}

/// [`run_hex`] in precision `T` (instantiated in this crate only, for both precisions).
pub(crate) fn run_hex_in<T: Real>(
    case: &dyn HexCase,
    mesh: HexMesh,
    opts: &HexOptions,
    device: Option<&mut dyn Device>,
    progress: &mut dyn FnMut(f64, f64),
) -> Result<HexOutcome, RunError> {
    match case.law() {
        HexLaw::Maxwell => run_law::<_, T>(maxwell3d::Law::default(), case, mesh, opts, device, progress),
        HexLaw::Euler => run_law::<_, T>(euler3d::Law::default(), case, mesh, opts, device, progress),
    }
}

fn run_law<L: ConservationLaw + Clone + Send + Sync + 'static, T: Real>(
    mut law: L,
    case: &dyn HexCase,
    mesh: HexMesh,
    opts: &HexOptions,
    device: Option<&mut dyn Device>,
    progress: &mut dyn FnMut(f64, f64),
) -> Result<HexOutcome, RunError> {
    let started = Instant::now();
    select_flux(&mut law, case, opts)?;
    let least = if device.is_some() { DEVICE_LEAST_BYTES_PER_VALUE } else { CPU_LEAST_BYTES_PER_VALUE };
    check_state_size(mesh.num_elements(), opts.order, L::NVARS, least)?;
    if device.is_some() {
        // before the space is built (a 160³ box at D = 3: 134 s and 68 GB on an H200's host before the operator
        // refused it)
        dg_hex::index_range::check_mesh(mesh.num_elements(), L::NVARS, opts.order)?;
    }
    let space = HexSpace::new(mesh, opts.order)?;
    let binding = hex_binding(&law, case, &space, opts)?;
    mark("space");
    let materials: Vec<f64> = Vec::new();
    let t_end = opts.common.t_end.unwrap_or_else(|| case.default_t_end());
    let q0: Vec<T> = space.interpolate(L::NVARS, |x, q| case.initial(x, q));
    let q0_f64: Vec<f64> = crate::widened(&q0);
    mark("initial state");
    let (names, np) = (law.variable_names(), space.element.np);
    let vtu = |path: &std::path::Path, q: &[f64]| -> Result<(), RunError> {
        let values = per_variable(q, L::NVARS, np);
        Ok(dg_core::vtu::write_vtu_hex(path, &space, &named(names, &values))?)
    };
    let speed = wave_speed(&law, &q0_f64, np)?;
    let step = |limit: &StabilityLimit| step_rule(&space, speed, q0_f64.len(), opts, limit);
    let (q, stats, info) = match device {
        None => {
            if opts.common.variant.is_some() {
                return Err(RunError::InvalidOption("--variant needs a device (--device cuda:0 or opencl)".into()));
            }
            let rule = step(&cpu_limit(&law, &space, &binding, &q0_f64, opts.scheme))?;
            let op = HexOperator::<L, T>::new(law.clone(), &space, &binding, &materials);
            let verdict = crate::host_step_verdict(&q0, crate::energy_cannot_grow(&law, &binding));
            let mut stepper = Integrated::new(op, q0, opts.scheme)
                .with_host_values()
                .with_inspect(move |_, q: &Vec<T>, _| Ok(verdict(q)));
            let stats = run_stepper(&mut stepper, t_end, rule, &opts.common.output, &vtu, progress)?;
            (stepper.into_parts().1, stats, None)
        }
        Some(device) => {
            let variant = match &opts.common.variant {
                Some(spec) => Some(spec.parse::<HexVariant>()?),
                None => None,
            };
            let choice = given_or_chosen::<L, T>(
                FormulationId::Hex,
                device,
                &law,
                opts.order,
                space.num_nodes() as u64,
                variant.map(|v| v.to_string()).as_deref(),
                opts.common.no_tune,
            )?;
            let variant: HexVariant = choice.variant.parse()?;
            mark("kernel choice");
            let ir = dg_runtime::formulation::law_ir(&law)?;
            let params = law.param_values();
            let target = dg_runtime::formulation::target_of(device);
            let flux = law.numerical_flux_name();
            let mesh = (&space, &binding);
            let op =
                HexDeviceOperator::<T>::new(device, target, (&ir, &params, flux), mesh, &materials, variant.layout)?;
            mark("device operator");
            let q = op.buffers.q;
            op.write_state(device, q, &q0)?;
            mark("state upload");
            let step_check = crate::StepCheck::new(device, &q0, crate::energy_cannot_grow(&law, &binding))?;
            mark("state check");
            let mut system = HexDeviceSystem { device, op: &op, variant, device_seconds: 0.0 };
            let limit = StabilityLimit::of_device(
                &mut system,
                &q,
                Some(&q0_f64),
                opts.scheme,
                T::epsilon().as_f64(),
                &mut |sys, b, v| write_values(sys, *b, v),
                &mut |sys, b| read_values(sys, *b),
            )?;
            let rule = step(&limit)?;
            op.write_state(system.device, q, &q0)?;
            let loop_started = Instant::now();
            let mut stepper = Integrated::new(system, q, opts.scheme)
                .with_initial_values(q0_f64.clone())
                .with_values(
                    |sys: &mut HexDeviceSystem<'_, T>, q: &_| read_values(sys, *q),
                    |sys, q, v| write_values(sys, *q, v),
                )
                .with_inspect(|sys: &mut HexDeviceSystem<'_, T>, q: &_, at| inspect(sys, *q, at, &step_check));
            let stats = run_stepper(&mut stepper, t_end, rule, &opts.common.output, &vtu, progress)?;
            let system = stepper.into_parts().0;
            let host: Vec<T> = op.read_state(system.device, q)?;
            let info = DeviceRunInfo::new(system.device, choice, started, loop_started, &stats, system.device_seconds)?
                .with_state_checks(&step_check);
            system.device.free_buffers();
            (host, stats, Some(info))
        }
    };
    let report = finish_report(case, &space, &q, opts, (law.name(), law.numerical_flux_name()), &stats)?;
    opts.common.output.write_final(&vtu, &crate::widened(&q))?;
    Ok(HexOutcome { report, device: info })
}

/// Selects the numerical flux `--flux` or the case's names (an error naming the law's fluxes if it has none such).
pub(crate) fn select_flux<L: ConservationLaw>(
    law: &mut L,
    case: &dyn HexCase,
    opts: &HexOptions,
) -> Result<(), RunError> {
    if let Some(name) = opts.flux.as_deref().or(case.flux()) {
        if !law.select_numerical_flux(name) {
            return Err(RunError::InvalidOption(format!(
                "law `{}` has no numerical flux `{name}`; it offers {}",
                law.name(),
                law.numerical_flux_names().join(", ")
            )));
        }
    }
    Ok(())
}

/// The case's boundary conditions on the tags `space` has, with `--bc` over them; laws with materials refused
/// (the hexahedral cases give none).
pub(crate) fn hex_binding<L: ConservationLaw>(
    law: &L,
    case: &dyn HexCase,
    space: &HexSpace,
    opts: &HexOptions,
) -> Result<BoundaryBinding, RunError> {
    crate::check_bindings(&opts.common.boundary, &space.connectivity.tag_names)?;
    let mut bindings = case.boundary_conditions();
    bindings.retain(|tag, _| space.connectivity.tag_names.contains(tag));
    bindings.extend(opts.common.boundary.clone());
    let binding = BoundaryBinding::for_law_on_hexes(law, space, &bindings)?;
    if L::NMATERIALS != 0 {
        return Err(RunError::InvalidOption(format!(
            "law `{}` needs {} material values per cell; the hexahedral cases give none",
            law.name(),
            L::NMATERIALS
        )));
    }
    Ok(binding)
}

/// The scheme's stability limit of the CPU operator on `space` from `q0` (not estimated above
/// [`StabilityLimit::MAX_VALUES`]).
pub(crate) fn cpu_limit<L: ConservationLaw + Clone + Send + Sync + 'static>(
    law: &L,
    space: &HexSpace,
    binding: &BoundaryBinding,
    q0: &[f64],
    scheme: Scheme,
) -> StabilityLimit {
    let op64 = || HexOperator::<L, f64>::new(law.clone(), space, binding, &[]);
    let Ok(limit) = StabilityLimit::of_built(op64, q0, 0.0, scheme);
    limit
}

/// The uniform step of a run on `space` whose largest wave speed is `speed`: `--dt` or the CFL rule, checked
/// against `limit` (`values`: the state's size, for the note when it was not estimated).
pub(crate) fn step_rule(
    space: &HexSpace,
    speed: f64,
    values: usize,
    opts: &HexOptions,
    limit: &StabilityLimit,
) -> Result<StepRule, RunError> {
    let rule = |cfl: f64| cfl * opts.scheme.relative_stability() * space.dt_length_scale() / speed;
    crate::note_unestimated(limit, values);
    let dt = crate::uniform_step(&opts.common, opts.scheme, rule, DEFAULT_CFL, limit)?;
    Ok(StepRule::Uniform(dt * opts.common.step_scale))
}

/// A device state read out as f64 values (in the CPU operator's layout).
fn read_values<T: Real>(sys: &mut HexDeviceSystem<'_, T>, q: BufferId) -> Result<Vec<f64>, DeviceOperatorError> {
    Ok(crate::widened(&sys.op.read_state(sys.device, q)?))
}

/// f64 values written into a device state.
fn write_values<T: Real>(sys: &mut HexDeviceSystem<'_, T>, q: BufferId, v: &[f64]) -> Result<(), DeviceOperatorError> {
    Ok(sys.op.write_state(sys.device, q, &crate::narrowed::<T>(v))?)
}

/// The device state's check: the per-step reduction, which finds a value that is not finite (the NaN it reduces
/// to) and the largest value's growth, waited for at the sampled steps and after the last (the whole state is read
/// once, after the loop; it was also read at the sampled steps up to 32 and after the last, for what the reduction
/// had already checked).
fn inspect<T: Real>(
    sys: &mut HexDeviceSystem<'_, T>,
    q: BufferId,
    at: StepPoint,
    check: &crate::StepCheck,
) -> Result<Option<String>, DeviceOperatorError> {
    Ok(check.after_step_pipelined(sys.device, q, at, &mut sys.device_seconds)?)
}

/// The largest wave speed of the initial state over the three axis directions.
pub(crate) fn wave_speed<L: ConservationLaw>(law: &L, q0: &[f64], np: usize) -> Result<f64, RunError> {
    let nv = L::NVARS;
    let mut state = vec![0.0; nv];
    let mut speed = 0.0f64;
    for (cell, chunk) in q0.chunks(nv * np).enumerate() {
        for i in 0..np {
            for v in 0..nv {
                state[v] = chunk[v * np + i];
            }
            for n in [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]] {
                let s = law.max_speed(&state, &[], &n);
                if !s.is_finite() {
                    return Err(RunError::InvalidOption(format!(
                        "the initial state has no finite wave speed at node {i} of cell {cell} (is it admissible?)"
                    )));
                }
                speed = dg_core::max_or_nan(speed, s);
            }
        }
    }
    if speed > 0.0 {
        Ok(speed)
    } else {
        Err(RunError::InvalidOption("the initial state's largest wave speed is zero: give --dt".into()))
    }
}

/// Errors of the final state `q` (layout `(k * nvars + v) * np + i`).
fn finish_report<T: Real>(
    case: &dyn HexCase,
    space: &HexSpace,
    q: &[T],
    opts: &HexOptions,
    (law, flux): (&str, &str),
    stats: &LoopStats,
) -> Result<HexReport, RunError> {
    let nv = q.len() / space.num_nodes();
    let t_end = stats.t_end;
    let (errors, norms) = space.l2_errors_and_norms(nv, q, |x, e| case.exact(x, t_end, e))?;
    let total = |v: &[f64]| v.iter().map(|e| e * e).sum::<f64>().sqrt();
    let l2_error = total(&errors);
    Ok(HexReport {
        case: case.name().into(),
        law: law.into(),
        flux: flux.into(),
        order: opts.order,
        elements: space.num_elements(),
        box_cells: space.class.iter().filter(|&&c| c == GeometryClass::Box).count(),
        nodes: space.num_nodes(),
        h: space.mesh.max_edge_length(),
        scheme: opts.scheme.name().into(),
        steps: stats.steps,
        dt: stats.dt_range[1],
        t_end,
        l2_error,
        relative_l2_error: l2_error / total(&norms).max(f64::MIN_POSITIVE),
        wall_seconds: stats.wall_seconds,
    })
}

/// Runs `case` for every order on `levels` boxes with `base_cells · 2^level` cells per direction (vertices moved
/// by `distortion`) in double precision, on the native CPU path or on `device`. The step shrinks with the mesh as the CFL rule
/// gives, and additionally like [`time_accuracy_factor`] so that the time error stays below the spatial error.
/// `progress(order, level)` before each run.
#[allow(clippy::too_many_arguments)]
pub fn hex_convergence(
    case: &dyn HexCase,
    base_cells: usize,
    distortion: f64,
    orders: std::ops::RangeInclusive<usize>,
    levels: usize,
    opts: &HexOptions,
    mut device: Option<&mut dyn Device>,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<ConvergenceStudy, RunError> {
    let plan = StudyPlan {
        case: case.name().into(),
        error: "L2 error (all fields)".into(),
        formulation: FormulationId::Hex.name().into(),
        device: crate::device_name(device.as_deref()),
        orders,
        levels,
    };
    let mut one = |order: usize, level: usize| -> Result<LevelRun, RunError> {
        let mesh = case
            .mesh(base_cells << level, distortion)
            .map_err(|e| RunError::from(dg_core::space::SpaceError::from(e)))?;
        let level_opts = HexOptions {
            order,
            common: CommonRunOptions {
                step_scale: time_accuracy_factor(order, level, opts.scheme.order()),
                output: RunOutput::default(),
                ..opts.common.clone()
            },
            ..opts.clone()
        };
        let device = device.as_deref_mut().map(|d| -> &mut dyn Device { d });
        let r = run_hex_in::<f64>(case, mesh, &level_opts, device, &mut |_, _| {})?.report;
        Ok(LevelRun { h: r.h, error: r.l2_error, seconds: r.wall_seconds })
    };
    Ok(convergence_study(&plan, &mut one, progress)?)
}
