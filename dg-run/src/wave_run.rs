//! Running the 3D wave cases (seed 002) on tetrahedra: one run with error and (for interface problems)
//! measured reflection/transmission coefficients, and convergence studies over refined boxes.

use crate::simulate::{time_accuracy_factor, ConvergenceStudy, OrderResult, SimulateError};
use dg_cases::waves::{WaveCase, WaveLaw};
use dg_core::law::ConservationLaw;
use dg_core::mesh3d::TetMesh;
use dg_core::space3d::DgSpace3d;
use dg_core::tetrahedron::tet_cubature;
use dg_core::Real;
use dg_laws::{acoustics3d, elastic3d};
use dg_nodal_tet::NodalOperator3d;
use dg_runtime::cpu::BoundaryBinding;
use dg_runtime::time::{Integrator, OdeSystem, Scheme};
use serde::Serialize;
use std::time::Instant;

/// How to run a wave case.
#[derive(Debug, Clone)]
pub struct WaveOptions {
    /// Polynomial order N.
    pub order: usize,
    /// Time integrator.
    pub scheme: Scheme,
    /// Courant number relative to the LSRK45 limit (scaled for other schemes).
    pub cfl: f64,
    /// Final time (the case's when `None`).
    pub t_end: Option<f64>,
    /// Fixed time step instead of the CFL rule (rounded down to end exactly at `t_end`).
    pub dt: Option<f64>,
    /// On a device without a tuning result for the run's key: take the default variant instead of tuning.
    pub no_tune: bool,
}

impl Default for WaveOptions {
    fn default() -> Self {
        Self { order: 3, scheme: Scheme::Lsrk45, cfl: 0.5, t_end: None, dt: None, no_tune: false }
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
    /// MaxwellCase name.
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
    /// Where it ran.
    pub device: String,
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

/// Builds the space, materials and boundary binding of `case` on `mesh` for a law.
pub fn prepare<L: ConservationLaw>(
    law: &L,
    case: &dyn WaveCase,
    mesh: TetMesh,
    order: usize,
) -> Result<WaveProblem, SimulateError> {
    let space = DgSpace3d::new(mesh, order)?;
    let materials = (0..space.num_elements())
        .flat_map(|k| {
            let p = space.mesh.elements[k].map(|v| space.mesh.vertices[v]);
            let centroid: [f64; 3] = std::array::from_fn(|d| p.iter().map(|x| x[d]).sum::<f64>() / 4.0);
            case.material(centroid)
        })
        .collect::<Vec<f64>>();
    if materials.len() != space.num_elements() * L::NMATERIALS {
        return Err(SimulateError::InvalidOption(format!(
            "case `{}` gives {} material values per element, law `{}` needs {}",
            case.name(),
            materials.len() / space.num_elements().max(1),
            law.name(),
            L::NMATERIALS
        )));
    }
    let binding = BoundaryBinding::for_law_on_tets(law, &space, &case.boundary_conditions())?;
    Ok(WaveProblem { space, materials, binding })
}

/// Time step and step count: dt from the CFL rule (or `opts.dt`), shortened so that whole steps end at t_end.
pub fn time_step<L: ConservationLaw>(
    law: &L,
    problem: &WaveProblem,
    opts: &WaveOptions,
    t_end: f64,
) -> Result<(f64, u64), SimulateError> {
    if !(t_end > 0.0 && t_end.is_finite()) {
        return Err(SimulateError::InvalidOption(format!("the final time must be positive (got {t_end})")));
    }
    let dt = match opts.dt {
        Some(dt) if dt > 0.0 && dt.is_finite() => dt,
        Some(dt) => return Err(SimulateError::InvalidOption(format!("--dt must be positive (got {dt})"))),
        None => {
            if !(opts.cfl > 0.0 && opts.cfl <= 2.0) {
                return Err(SimulateError::InvalidOption(format!("--cfl must lie in (0, 2] (got {})", opts.cfl)));
            }
            let nm = L::NMATERIALS;
            let zero = vec![0.0; L::NVARS];
            let speed = problem
                .materials
                .chunks(nm.max(1))
                .map(|m| law.max_speed(&zero, m, &[1.0, 0.0, 0.0]))
                .fold(0.0f64, dg_core::max_or_nan);
            opts.cfl * opts.scheme.relative_stability() * problem.space.dt_length_scale() / speed
        }
    };
    let steps = (t_end / dt).ceil().max(1.0) as u64;
    Ok((t_end / steps as f64, steps))
}

/// Advances `q` by `steps` steps of `dt` from t = 0, calling `progress(t)` after each.
pub fn integrate<S: OdeSystem>(
    sys: &mut S,
    q: &mut S::State,
    scheme: Scheme,
    dt: f64,
    steps: u64,
    progress: &mut dyn FnMut(f64),
) -> Result<(), S::Error> {
    let mut integrator = Integrator::new(scheme);
    for step in 0..steps {
        integrator.step(sys, step as f64 * dt, dt, q)?;
        progress((step + 1) as f64 * dt);
    }
    Ok(())
}

/// Runs `case` on `mesh` with the native CPU operator in precision `T`.
pub fn run_wave<T: Real>(
    case: &dyn WaveCase,
    mesh: TetMesh,
    opts: &WaveOptions,
    progress: &mut dyn FnMut(f64, f64),
) -> Result<WaveReport, SimulateError> {
    Ok(run_wave_keeping::<T>(case, mesh, opts, false, progress)?.0)
}

/// The final fields of a run: the space, variable names and nodal values per variable (K·Np each).
pub type FinalFields = (DgSpace3d, Vec<String>, Vec<Vec<f64>>);

/// Like [`run_wave`], also returning the final fields when `keep` is set (for VTU output).
pub fn run_wave_keeping<T: Real>(
    case: &dyn WaveCase,
    mesh: TetMesh,
    opts: &WaveOptions,
    keep: bool,
    progress: &mut dyn FnMut(f64, f64),
) -> Result<(WaveReport, Option<FinalFields>), SimulateError> {
    match case.law() {
        WaveLaw::Acoustic => run_law::<_, T>(acoustics3d::Law::default(), case, mesh, opts, keep, progress),
        WaveLaw::Elastic => run_law::<_, T>(elastic3d::Law::default(), case, mesh, opts, keep, progress),
    }
}

fn run_law<L: ConservationLaw + Clone, T: Real>(
    law: L,
    case: &dyn WaveCase,
    mesh: TetMesh,
    opts: &WaveOptions,
    keep: bool,
    progress: &mut dyn FnMut(f64, f64),
) -> Result<(WaveReport, Option<FinalFields>), SimulateError> {
    let problem = prepare(&law, case, mesh, opts.order)?;
    let t_end = opts.t_end.unwrap_or_else(|| case.default_t_end());
    let (dt, steps) = time_step(&law, &problem, opts, t_end)?;
    let space = &problem.space;
    let mut op = NodalOperator3d::<L, T>::new(law.clone(), space, &problem.binding, &problem.materials);
    let mut q: Vec<T> = space.interpolate(L::NVARS, |x, q| case.initial(x, q));
    let start = Instant::now();
    let Ok(()) = integrate(&mut op, &mut q, opts.scheme, dt, steps, &mut |t| progress(t, t_end));
    let wall_seconds = start.elapsed().as_secs_f64();
    if q.iter().any(|v| !v.as_f64().is_finite()) {
        return Err(SimulateError::NotFinite { step: steps, time: t_end });
    }
    let parts = WaveReportParts { law: law.name(), dt, steps, t_end, wall_seconds, device: "cpu".into() };
    let report = finish_report(case, space, &q, opts, parts)?;
    let fields = keep.then(|| {
        let np = space.element.np;
        let values = (0..L::NVARS)
            .map(|v| {
                (0..space.num_elements())
                    .flat_map(|k| q[(k * L::NVARS + v) * np..(k * L::NVARS + v + 1) * np].iter().map(|x| x.as_f64()))
                    .collect()
            })
            .collect();
        let names = law.variable_names().iter().map(|s| s.to_string()).collect();
        (problem.space.clone(), names, values)
    });
    Ok((report, fields))
}

/// The parts of a report a time loop knows.
pub struct WaveReportParts {
    /// Law name.
    pub law: &'static str,
    /// Time step.
    pub dt: f64,
    /// Steps.
    pub steps: u64,
    /// Final time.
    pub t_end: f64,
    /// Wall time of the loop.
    pub wall_seconds: f64,
    /// Where it ran.
    pub device: String,
}

/// Errors and coefficients of the final state `q` (layout `(k * nvars + v) * np + i`).
pub fn finish_report<T: Real>(
    case: &dyn WaveCase,
    space: &DgSpace3d,
    q: &[T],
    opts: &WaveOptions,
    parts: WaveReportParts,
) -> Result<WaveReport, SimulateError> {
    let nv = q.len() / space.num_nodes();
    let t_end = parts.t_end;
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
        law: parts.law.into(),
        order: opts.order,
        elements: space.num_elements(),
        nodes: space.num_nodes(),
        h: space.mesh.max_edge_length(),
        scheme: opts.scheme.name().into(),
        steps: parts.steps,
        dt: parts.dt,
        t_end,
        l2_error,
        relative_l2_error: l2_error / total(&norms).max(f64::MIN_POSITIVE),
        wall_seconds: parts.wall_seconds,
        device: parts.device,
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
) -> Result<Coefficients, SimulateError> {
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
/// with the mesh as the CFL rule gives, and additionally like h^((N+1)/4) so that the time error of the
/// fourth-order integrator stays below the spatial error. `progress(order, level)` before each run.
pub fn wave_convergence(
    case: &dyn WaveCase,
    base_cells: usize,
    orders: std::ops::RangeInclusive<usize>,
    levels: usize,
    opts: &WaveOptions,
    mut device: Option<&mut dyn dg_runtime::backend::Device>,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<ConvergenceStudy, WaveDeviceError> {
    if levels < 2 {
        let message = format!("a convergence study needs at least 2 levels, got {levels}");
        return Err(SimulateError::InvalidOption(message).into());
    }
    let mut results = Vec::new();
    for order in orders {
        let (mut h, mut l2, mut seconds) = (Vec::new(), Vec::new(), Vec::new());
        for level in 0..levels {
            progress(order, level);
            let mesh =
                case.mesh(base_cells << level).map_err(|e| SimulateError::from(dg_core::space::SpaceError::from(e)))?;
            let level_opts = WaveOptions { order, cfl: opts.cfl * time_accuracy_factor(order, level), ..opts.clone() };
            let report = match device.as_deref_mut() {
                Some(device) => run_wave_on_device::<f64>(device, case, mesh, &level_opts, None, &mut |_, _| {})?.0,
                None => run_wave::<f64>(case, mesh, &level_opts, &mut |_, _| {})?,
            };
            h.push(report.h);
            l2.push(report.l2_error);
            seconds.push(report.wall_seconds);
        }
        let rates = (1..h.len()).map(|i| (l2[i - 1] / l2[i]).ln() / (h[i - 1] / h[i]).ln()).collect();
        results.push(OrderResult { order, h, l2, rates, seconds });
    }
    Ok(ConvergenceStudy { case: case.name().to_string(), results })
}

/// Why a device run failed.
#[derive(Debug, thiserror::Error)]
pub enum WaveDeviceError {
    /// The problem or an option is invalid.
    #[error(transparent)]
    Simulate(#[from] SimulateError),
    /// The device or its kernels failed.
    #[error(transparent)]
    Device(#[from] dg_runtime::DeviceOperatorError),
    /// A backend call failed.
    #[error(transparent)]
    Backend(#[from] dg_runtime::backend::BackendError),
    /// Choosing the variant (tuning, the database).
    #[error("choosing the tetrahedral kernel variant: {0}")]
    Tuning(String),
}

/// Runs `case` on a device with the tetrahedral kernels. AB3 runs as seed 002 does (two RK4 start-up steps,
/// then volume, surface and the fused update-and-trace kernel per step); the other schemes use the generic
/// integrators with the linear-combination kernel.
pub fn run_wave_on_device<T: Real>(
    device: &mut dyn dg_runtime::backend::Device,
    case: &dyn WaveCase,
    mesh: TetMesh,
    opts: &WaveOptions,
    variant: Option<dg_nodal_tet::TetVariant>,
    progress: &mut dyn FnMut(f64, f64),
) -> Result<(WaveReport, String), WaveDeviceError> {
    match case.law() {
        WaveLaw::Acoustic => {
            device_law::<_, T>(device, acoustics3d::Law::default(), case, mesh, opts, variant, progress)
        }
        WaveLaw::Elastic => device_law::<_, T>(device, elastic3d::Law::default(), case, mesh, opts, variant, progress),
    }
}

fn device_law<L: ConservationLaw + Clone + Send + Sync + 'static, T: Real>(
    device: &mut dyn dg_runtime::backend::Device,
    law: L,
    case: &dyn WaveCase,
    mesh: TetMesh,
    opts: &WaveOptions,
    variant: Option<dg_nodal_tet::TetVariant>,
    progress: &mut dyn FnMut(f64, f64),
) -> Result<(WaveReport, String), WaveDeviceError> {
    use dg_nodal_tet::device::{TetDeviceOperator, TetDeviceSystem};
    let problem = prepare(&law, case, mesh, opts.order)?;
    let t_end = opts.t_end.unwrap_or_else(|| case.default_t_end());
    let (dt, steps) = time_step(&law, &problem, opts, t_end)?;
    let space = &problem.space;
    let (variant, why) = match variant {
        Some(v) => (v, format!("variant {v} (given)")),
        None => {
            let formulation = crate::formulations::FormulationId::NodalTet;
            let nodes = space.num_nodes() as u64;
            let mut log = |m: &str| eprintln!("{m}");
            let choice =
                crate::winners::choose::<L, T>(formulation, device, &law, opts.order, nodes, opts.no_tune, &mut log)
                    .map_err(|e| WaveDeviceError::Tuning(format!("{e:#}")))?;
            let v: dg_nodal_tet::TetVariant =
                choice.variant.parse().map_err(|e| WaveDeviceError::Tuning(format!("{e}")))?;
            (v, format!("variant {v} ({}: {})", choice.source, choice.detail))
        }
    };
    let ir = dg_runtime::formulation::law_ir(&law).map_err(|e| WaveDeviceError::Tuning(e.to_string()))?;
    let params = law.param_values();
    let target = dg_runtime::formulation::target_of(device);
    let op = TetDeviceOperator::<T>::new(
        device,
        target,
        (&ir, &params, law.numerical_flux_name()),
        space,
        &problem.binding,
        &problem.materials,
    )?;
    let q0: Vec<T> = space.interpolate(L::NVARS, |x, q| case.initial(x, q));
    let q = op.buffers.q;
    op.write_state(device, q, &q0)?;
    let mut sys = TetDeviceSystem { device, op: &op, variant, device_seconds: 0.0 };
    let start = Instant::now();
    if opts.scheme == Scheme::Ab3 && steps > 2 {
        let mut r = op.buffers.rhs;
        let mut q_state = q;
        let mut rk4 = Integrator::new(Scheme::Rk4);
        for (s, slot) in [(0u64, 2usize), (1, 1)] {
            let t = s as f64 * dt;
            let mut level = r[slot];
            sys.rhs(t, &q_state, &mut level)?;
            rk4.step(&mut sys, t, dt, &mut q_state)?;
            progress((s + 1) as f64 * dt, t_end);
        }
        let trace = op.trace_step(q)?;
        sys.device_seconds += op.run(sys.device, &[trace], 1)?.iter().sum::<f64>();
        for s in 2..steps {
            let seq = op.ab3_steps(&variant, r, s as f64 * dt, dt)?;
            sys.device_seconds += op.run(sys.device, &seq, 1)?.iter().sum::<f64>();
            r = [r[2], r[0], r[1]];
            progress((s + 1) as f64 * dt, t_end);
        }
    } else {
        let mut q_state = q;
        integrate(&mut sys, &mut q_state, opts.scheme, dt, steps, &mut |t| progress(t, t_end))?;
    }
    let device_seconds = sys.device_seconds;
    let host: Vec<T> = op.read_state(sys.device, q)?;
    let wall_seconds = start.elapsed().as_secs_f64();
    if host.iter().any(|v| !v.as_f64().is_finite()) {
        return Err(SimulateError::NotFinite { step: steps, time: t_end }.into());
    }
    let device_name = format!("{} ({:.3} s in kernels)", sys.device.fingerprint().name, device_seconds);
    let parts = WaveReportParts { law: law.name(), dt, steps, t_end, wall_seconds, device: device_name };
    let report = finish_report(case, space, &host, opts, parts)?;
    sys.device.free_buffers();
    Ok((report, why))
}
