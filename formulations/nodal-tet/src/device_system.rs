//! Time integration on a device: the generic integrators drive the tetrahedral operator's state buffers through
//! its right-hand-side kernels and the linear-combination kernel ([`dg_runtime::step_system`]).

use crate::device::TetDeviceOperator;
use crate::TetVariant;
use dg_core::Real;
use dg_runtime::backend::{BackendError, BufferId, Device, Step};
use dg_runtime::step_system::{StepOperator, StepSystem};
use dg_runtime::DeviceOperatorError;

/// Time integration of the tetrahedral operator with the generic integrators (state buffers, the lincomb kernel).
pub type TetDeviceSystem<'a, T> = StepSystem<'a, TetDeviceOperator<T>>;

impl<T: Real> StepOperator for TetDeviceOperator<T> {
    type Variant = TetVariant;

    fn rhs_steps(
        &self,
        variant: &TetVariant,
        q: BufferId,
        rhs: BufferId,
        t: f64,
    ) -> Result<Vec<Step>, DeviceOperatorError> {
        TetDeviceOperator::rhs_steps(self, variant, q, rhs, t)
    }

    fn lincomb_step(&self, y: BufferId, a: f64, terms: &[(f64, BufferId)]) -> Result<Step, DeviceOperatorError> {
        TetDeviceOperator::lincomb_step(self, y, a, terms)
    }

    fn new_state(&self, device: &mut dyn Device) -> Result<BufferId, BackendError> {
        TetDeviceOperator::new_state(self, device)
    }

    fn submit(&self, device: &mut dyn Device, steps: &[Step]) -> Result<f64, BackendError> {
        TetDeviceOperator::submit(self, device, steps)
    }
}
