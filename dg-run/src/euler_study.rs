//! Euler convergence studies (degrees × refined meshes, with the modal formulation on the CPU or a device, or
//! the nodal one for comparison) and the nodal Euler run they use.

use crate::error::RunError;
use crate::euler_run::{run_euler_in, EulerOptions};
use crate::formulations::FormulationId;
use crate::maxwell_run::{RunOptions, RunOutcome};
use crate::run_options::CommonRunOptions;
use crate::Precision;
use dg_cases::euler::{EulerCase, NodalEuler};
use dg_core::law::ConservationLaw;
use dg_core::mesh::TriMesh;
use dg_core::space::DgSpace2d;
use dg_core::Real;
use dg_laws::euler2d;
use dg_runtime::backend::Device;
use dg_runtime::study::{convergence_study, time_accuracy_factor, ConvergenceStudy, LevelRun, StudyPlan};
use dg_runtime::time::Scheme;

/// One run of an Euler case with the nodal formulation (degree `opts.order`, LSRK45 unless given, step from the
/// nodal CFL rule divided by the largest wave speed of the initial state), on the CPU or a device
/// (`opts.common.variant`, or the tuning database's nodal-tri winner): the run and its density L2 error.
pub fn run_nodal_euler(
    precision: Precision,
    case: &dyn EulerCase,
    mesh: TriMesh,
    opts: &EulerOptions,
    device: Option<&mut dyn Device>,
    progress: &mut dyn FnMut(f64, f64),
) -> Result<(RunOutcome, f64), RunError> {
    match precision {
        Precision::F32 => run_nodal_euler_in::<f32>(case, mesh, opts, device, progress),
        Precision::F64 => run_nodal_euler_in::<f64>(case, mesh, opts, device, progress),
    }
}

/// [`run_nodal_euler`] in precision `T` (instantiated in this crate only, for both precisions).
pub(crate) fn run_nodal_euler_in<T: Real>(
    case: &dyn EulerCase,
    mesh: TriMesh,
    opts: &EulerOptions,
    device: Option<&mut dyn Device>,
    progress: &mut dyn FnMut(f64, f64),
) -> Result<(RunOutcome, f64), RunError> {
    let invalid = |m: String| Err(RunError::InvalidOption(m));
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
    let space = DgSpace2d::new(mesh, order)?;
    let t_end = opts.common.t_end.unwrap_or_else(|| case.default_t_end());
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
        wave_speed: lambda.max(1e-12),
        alpha: 1.0,
        energy_history: false,
        common: CommonRunOptions {
            t_end: Some(t_end),
            boundary: {
                // the case's bindings of the tags this mesh has, then --bc (checked against the mesh by the run)
                let tags = &space.connectivity.tag_names;
                let mut bindings: std::collections::HashMap<String, String> =
                    case.law_conditions().into_iter().filter(|(t, _)| tags.contains(t)).collect();
                bindings.extend(opts.common.boundary.clone());
                bindings
            },
            ..opts.common.clone()
        },
    };
    let adapter = NodalEuler(case);
    let outcome = crate::maxwell_run::run_with_law::<_, T>(&space, law, &adapter, &run_opts, device, progress)?;
    let np = space.element.np;
    let rho: Vec<f64> =
        (0..space.num_elements()).flat_map(|k| outcome.state[k * 4 * np..(k * 4 + 1) * np].to_vec()).collect();
    let error = space.l2_error(1, &rho, |x, y, out| {
        let mut q = [0.0; 4];
        case.exact(x, y, t_end, &mut q);
        out[0] = q[0];
    })?;
    Ok((outcome, error))
}

/// Density L2 errors, observed orders and run times of `case` for every degree in `orders` on `levels` meshes
/// (`base` and its refinements by the case's rule), in f64, with `formulation` (modal triangles, or nodal ones for
/// comparison), on `device` with the generated kernels or on the native CPU path. Unsteady cases shrink the step
/// like [`time_accuracy_factor`]; `progress(order, level)` before each run.
#[allow(clippy::too_many_arguments)]
pub fn euler_convergence(
    case: &dyn EulerCase,
    base: &TriMesh,
    orders: std::ops::RangeInclusive<usize>,
    levels: usize,
    formulation: FormulationId,
    opts: &EulerOptions,
    mut device: Option<&mut dyn Device>,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<ConvergenceStudy, RunError> {
    if !case.has_exact() {
        return Err(RunError::InvalidOption(format!("case `{}` has no exact solution", case.name())));
    }
    if !matches!(formulation, FormulationId::ModalTri | FormulationId::NodalTri) {
        return Err(RunError::InvalidOption(format!(
            "Euler cases run on triangles: modal-tri (theirs) or nodal-tri, not {formulation}"
        )));
    }
    let mut meshes = vec![base.clone()];
    for _ in 1..levels {
        let next = case.refine(meshes.last().expect("at least one mesh"));
        meshes.push(next);
    }
    let plan = StudyPlan {
        case: case.name().into(),
        error: "density L2 error".into(),
        formulation: formulation.name().into(),
        device: crate::device_name(device.as_deref()),
        orders,
        levels,
    };
    let mut one = |order: usize, level: usize| -> Result<LevelRun, RunError> {
        let scheme = opts.scheme.unwrap_or(match formulation {
            FormulationId::NodalTri => Scheme::Lsrk45,
            _ => case.default_scheme().0,
        });
        let factor = if case.is_steady() { 1.0 } else { time_accuracy_factor(order, level, scheme.order()) };
        let level_opts = EulerOptions {
            order: Some(order),
            common: CommonRunOptions {
                step_scale: factor,
                output: crate::output::RunOutput::default(),
                ..opts.common.clone()
            },
            ..opts.clone()
        };
        let mesh = meshes[level].clone();
        if formulation == FormulationId::NodalTri {
            let device = device.as_deref_mut().map(|d| -> &mut dyn Device { d });
            let (outcome, error) = run_nodal_euler_in::<f64>(case, mesh, &level_opts, device, &mut |_, _| {})?;
            return Ok(LevelRun { h: outcome.report.h, error, seconds: outcome.report.wall_seconds });
        }
        let outcome = run_euler_in::<f64>(
            case,
            mesh,
            &level_opts,
            device.as_deref_mut().map(|d| -> &mut dyn Device { d }),
            &mut |_, _| {},
        )?;
        let error = outcome.report.density_l2_error.unwrap_or(f64::NAN);
        Ok(LevelRun { h: outcome.report.h, error, seconds: outcome.report.wall_seconds })
    };
    Ok(convergence_study(&plan, &mut one, progress)?)
}
