//! Running a case on a compute device: the tuning database's winner for this device and key (tuning first if
//! the key is missing, unless asked not to), then the generic time integrator on device buffers.

use crate::simulate::{finish, time_step, LoopSummary, RunOptions, RunOutcome};
use crate::winners::VariantChoice;
use dg_cases::MaxwellCase;
use dg_core::law::ConservationLaw;
use dg_core::space::DgSpace2d;
use dg_core::Real;
use dg_nodal_tri::device::DeviceOperator;
use dg_nodal_tri::device_system::DeviceSystem;
use dg_nodal_tri::variant::Variant;
use dg_runtime::backend::Device;
use dg_runtime::cpu::BoundaryBinding;
use dg_runtime::formulation::{law_ir, target_of};
use dg_runtime::time::Integrator;
use std::time::Instant;

/// What a device run adds to the report.
#[derive(Debug, Clone, serde::Serialize)]
pub struct DeviceRunInfo {
    /// Device name and selector.
    pub device: String,
    /// The kernel variant and how it was chosen.
    pub choice: VariantChoice,
    /// Seconds from the start of the run (device open excluded) to the end of the first time step.
    pub first_step_seconds: f64,
    /// Device time in kernels, seconds.
    pub kernel_seconds: f64,
}

/// Errors of a device run.
#[derive(Debug, thiserror::Error)]
pub enum DeviceRunError {
    /// Choosing the variant (database, tuning) failed.
    #[error("choosing the kernel variant: {0}")]
    Choice(#[from] crate::winners::ChoiceError),
    /// The law has no IR or the formulation cannot run it.
    #[error(transparent)]
    Formulation(#[from] dg_runtime::formulation::FormulationError),
    /// The chosen SPEC is not a nodal triangle variant.
    #[error(transparent)]
    Variant(#[from] dg_codegen::VariantError),
    /// The mesh's boundary tags do not match the law's conditions.
    #[error(transparent)]
    Boundary(#[from] dg_runtime::cpu::BoundaryError),
    /// Building or running the device operator failed.
    #[error(transparent)]
    Operator(#[from] dg_runtime::DeviceOperatorError),
    /// A device call failed.
    #[error(transparent)]
    Backend(#[from] dg_runtime::backend::BackendError),
    /// The run's options or its result (time step, error against the exact solution).
    #[error(transparent)]
    Simulate(#[from] crate::simulate::SimulateError),
    /// The solution stopped being finite.
    #[error("the solution is no longer finite at t = {0}; reduce --cfl")]
    Diverged(f64),
}

/// Runs `case` with `law` on `device` in precision `T`.
#[allow(clippy::too_many_arguments)]
pub fn run_on_device<L: ConservationLaw + Clone + Send + Sync + 'static, T: Real>(
    device: &mut dyn Device,
    space: &DgSpace2d,
    law: L,
    case: &dyn MaxwellCase,
    opts: &RunOptions,
    no_tune: bool,
    log: &mut dyn FnMut(&str),
    progress: &mut dyn FnMut(u64, u64),
) -> Result<(RunOutcome, DeviceRunInfo), DeviceRunError> {
    let started = Instant::now();
    let dofs = (space.num_nodes() * L::NVARS) as u64;
    let formulation = crate::formulations::FormulationId::NodalTri;
    let choice = crate::winners::choose::<L, T>(formulation, device, &law, space.element.order, dofs, no_tune, log)?;
    let variant: Variant = choice.variant.parse()?;
    let ir = law_ir(&law)?;
    let binding = BoundaryBinding::for_law(&law, space, &opts.boundary)?;
    let target = target_of(device);
    let nflux = law.numerical_flux_name();
    let op = DeviceOperator::<T>::new(device, target, &ir, &law.param_values(), nflux, space, &binding, &[], &variant)?;
    let nv = L::NVARS;
    let t_end = opts.t_end.unwrap_or_else(|| case.default_t_end());
    let (steps, dt) = time_step(space, opts, t_end)?;
    let q0: Vec<T> = space.interpolate(nv, |x, y, q| case.initial(x, y, q));
    let energy = |q: &[T]| 0.5 * space.square_norm(nv, q);
    let energy_initial = energy(&q0);
    let mut q = op.new_state(device)?;
    op.write_state(device, q, &q0)?;
    let mut sys = DeviceSystem { device, op: &op, device_seconds: 0.0 };
    let mut integrator = Integrator::new(opts.scheme);
    let loop_start = Instant::now();
    let mut first_step_seconds = 0.0;
    for step in 0..steps {
        integrator.step(&mut sys, step as f64 * dt, dt, &mut q)?;
        if step == 0 {
            first_step_seconds = started.elapsed().as_secs_f64();
        }
        progress(step + 1, steps);
    }
    let kernel_seconds = sys.device_seconds;
    let final_state = op.read_state(sys.device, q)?;
    let wall_seconds = loop_start.elapsed().as_secs_f64();
    sys.device.free_buffers();
    if !final_state.iter().all(|v| v.is_finite()) {
        return Err(DeviceRunError::Diverged(t_end));
    }
    let summary = LoopSummary {
        law: law.name(),
        steps,
        dt,
        t_end,
        energy_initial,
        energy_history: Vec::new(),
        rhs_evaluations: integrator.rhs_evaluations(),
        wall_seconds,
    };
    let outcome = finish(space, case, opts, nv, &final_state, summary)?;
    let fp = sys.device.fingerprint();
    let info =
        DeviceRunInfo { device: format!("{} ({})", fp.name, fp.selector), choice, first_step_seconds, kernel_seconds };
    Ok((outcome, info))
}
