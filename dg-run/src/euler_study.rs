//! Euler convergence studies (degrees × refined meshes, with the modal formulation on the CPU or a device, or
//! the nodal one for comparison) and the nodal Euler run they use.

use crate::euler_run::{run_euler, run_euler_on_device, EulerDeviceError, EulerOptions};
use crate::simulate::RunOptions;
use crate::simulate::{time_accuracy_factor, ConvergenceStudy, OrderResult, SimulateError};
use dg_cases::euler::{EulerCase, NodalEuler};
use dg_core::law::ConservationLaw;
use dg_core::mesh::TriMesh;
use dg_core::space::DgSpace2d;
use dg_laws::euler2d;
use dg_runtime::backend::Device;
use dg_runtime::time::Scheme;

/// Which discretisation solves an Euler case.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Formulation {
    /// Seed 001's modal weak form with quadrature (the Euler cases' own).
    Modal,
    /// Seed 000's nodal strong form (for comparison; periodic or law-condition boundaries only).
    Nodal,
}

/// One run of an Euler case with the nodal formulation (degree `opts.order`, LSRK45 unless given, step from the
/// nodal CFL rule divided by the largest wave speed of the initial state): (h, density L2 error, loop seconds).
pub fn run_nodal_euler(
    case: &dyn EulerCase,
    mesh: TriMesh,
    opts: &EulerOptions,
    device: Option<&mut dyn Device>,
) -> Result<(f64, f64, f64), EulerDeviceError> {
    let invalid = |m: String| Err(EulerDeviceError::Simulate(SimulateError::InvalidOption(m)));
    if !case.ghost_rules().is_empty() {
        return invalid(format!(
            "case `{}` has curved walls or prescribed boundary states, which only the modal formulation has",
            case.name()
        ));
    }
    let order = opts.order.unwrap_or_else(|| case.default_order());
    let mut law = euler2d::Law::default();
    let flux = opts.flux.clone().unwrap_or_else(|| case.default_flux().to_string());
    if !law.select_numerical_flux(&flux) {
        return invalid(format!("unknown flux `{flux}`"));
    }
    let space = DgSpace2d::new(mesh, order).map_err(SimulateError::from)?;
    let t_end = opts.t_end.unwrap_or_else(|| case.default_t_end());
    let q0: Vec<f64> = space.interpolate(4, |x, y, q| case.initial(x, y, q));
    let lambda = q0
        .chunks(4 * space.element.np)
        .flat_map(|e| {
            (0..space.element.np)
                .map(move |i| [e[i], e[space.element.np + i], e[2 * space.element.np + i], e[3 * space.element.np + i]])
        })
        .flat_map(|q| (0..32).map(move |d| (q, std::f64::consts::PI * d as f64 / 16.0)))
        .map(|(q, a)| law.max_speed(&q, &[], &[a.cos(), a.sin()]))
        .fold(0.0f64, dg_core::max_or_nan);
    let run_opts = RunOptions {
        scheme: opts.scheme.unwrap_or(Scheme::Lsrk45),
        cfl: opts.cfl.unwrap_or(0.75) / lambda.max(1e-12),
        t_end: Some(t_end),
        dt: opts.dt,
        alpha: 1.0,
        boundary: case.law_conditions(),
        energy_history: false,
    };
    let adapter = NodalEuler(case);
    let outcome = match device {
        None => crate::simulate::run_with_law::<_, f64>(&space, law, &adapter, &run_opts, &mut |_, _| {})?,
        Some(device) => {
            crate::device_run::run_on_device::<_, f64>(
                device,
                &space,
                law,
                &adapter,
                &run_opts,
                true,
                &mut |_| {},
                &mut |_, _| {},
            )
            .map_err(|e| EulerDeviceError::Other(format!("{e:#}")))?
            .0
        }
    };
    let np = space.element.np;
    let rho: Vec<f64> =
        (0..space.num_elements()).flat_map(|k| outcome.state[k * 4 * np..(k * 4 + 1) * np].to_vec()).collect();
    let error = space
        .l2_error(1, &rho, |x, y, out| {
            let mut q = [0.0; 4];
            case.exact(x, y, t_end, &mut q);
            out[0] = q[0];
        })
        .map_err(SimulateError::from)?;
    Ok((outcome.report.h, error, outcome.report.wall_seconds))
}

/// What a convergence study covers: degrees, number of meshes, formulation.
#[derive(Debug, Clone)]
pub struct StudyPlan {
    /// Degrees.
    pub orders: std::ops::RangeInclusive<usize>,
    /// Meshes: the base mesh and its refinements.
    pub levels: usize,
    /// Which discretisation.
    pub formulation: Formulation,
}

/// Density L2 errors, observed orders and run times of `case` for every degree of the plan on its meshes (`base`
/// and its refinements by the case's rule), in f64, on `device` with the generated kernels or on the native CPU
/// path. Unsteady cases shrink the step like [`time_accuracy_factor`]; `progress(order, level)` before each run.
pub fn euler_convergence(
    case: &dyn EulerCase,
    base: &TriMesh,
    plan: &StudyPlan,
    opts: &EulerOptions,
    mut device: Option<&mut dyn Device>,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<ConvergenceStudy, EulerDeviceError> {
    let StudyPlan { orders, levels, formulation } = plan.clone();
    let invalid = |m: String| Err(EulerDeviceError::Simulate(SimulateError::InvalidOption(m)));
    if levels < 2 {
        return invalid(format!("a convergence study needs at least 2 levels, got {levels}"));
    }
    if !case.has_exact() {
        return invalid(format!("case `{}` has no exact solution", case.name()));
    }
    let mut meshes = vec![base.clone()];
    for _ in 1..levels {
        let next = case.refine(meshes.last().expect("at least one mesh"));
        meshes.push(next);
    }
    let cfl = opts.cfl.unwrap_or(match formulation {
        Formulation::Modal => case.default_scheme().1,
        Formulation::Nodal => 0.75,
    });
    let mut results = Vec::new();
    for order in orders {
        let (mut h, mut l2, mut seconds) = (Vec::new(), Vec::new(), Vec::new());
        for (level, mesh) in meshes.iter().enumerate() {
            progress(order, level);
            let factor = if case.is_steady() { 1.0 } else { time_accuracy_factor(order, level) };
            let level_opts = EulerOptions { order: Some(order), cfl: Some(cfl * factor), ..opts.clone() };
            if formulation == Formulation::Nodal {
                let device = device.as_deref_mut().map(|d| -> &mut dyn Device { d });
                let run = run_nodal_euler(case, mesh.clone(), &level_opts, device)?;
                (h, l2, seconds) =
                    ([h, vec![run.0]].concat(), [l2, vec![run.1]].concat(), [seconds, vec![run.2]].concat());
                continue;
            }
            let outcome = match device.as_deref_mut() {
                Some(device) => {
                    run_euler_on_device::<f64>(device, case, mesh.clone(), &level_opts, None, &mut |_, _| {})?.0
                }
                None => run_euler::<f64>(case, mesh.clone(), &level_opts, &mut |_, _| {})?,
            };
            h.push(outcome.report.h);
            l2.push(outcome.report.density_l2_error.unwrap_or(f64::NAN));
            seconds.push(outcome.report.wall_seconds);
        }
        let rates = (1..h.len()).map(|i| (l2[i - 1] / l2[i]).ln() / (h[i - 1] / h[i]).ln()).collect();
        results.push(OrderResult { order, h, l2, rates, seconds });
    }
    Ok(ConvergenceStudy { case: case.name().to_string(), results })
}
