//! Time integration on a device: the generic integrators drive the tetrahedral operator's state buffers through
//! its right-hand-side kernels and the linear-combination kernel.

use crate::device::TetDeviceOperator;
use crate::TetVariant;
use dg_core::Real;
use dg_runtime::backend::{BufferId, Device};
use dg_runtime::DeviceOperatorError;

/// Time integration of the tetrahedral operator with the generic integrators (state buffers, the lincomb kernel).
pub struct TetDeviceSystem<'a, T: Real> {
    /// The device.
    pub device: &'a mut dyn Device,
    /// The operator.
    pub op: &'a TetDeviceOperator<T>,
    /// The kernels used.
    pub variant: TetVariant,
    /// Device seconds spent so far.
    pub device_seconds: f64,
}

impl<T: Real> dg_runtime::time::OdeSystem for TetDeviceSystem<'_, T> {
    type State = BufferId;
    type Error = DeviceOperatorError;

    fn rhs(&mut self, t: f64, q: &BufferId, out: &mut BufferId) -> Result<(), DeviceOperatorError> {
        let steps = self.op.rhs_steps(&self.variant, *q, *out, t)?;
        self.device_seconds += self.op.submit(self.device, &steps)?;
        Ok(())
    }

    fn zeros_like(&mut self, _like: &BufferId) -> Result<BufferId, DeviceOperatorError> {
        Ok(self.op.new_state(self.device)?)
    }

    fn update(&mut self, y: &mut BufferId, a: f64, terms: &[(f64, &BufferId)]) -> Result<(), DeviceOperatorError> {
        for (i, chunk) in terms.chunks(3).enumerate() {
            let terms: Vec<(f64, BufferId)> = chunk.iter().map(|(c, b)| (*c, **b)).collect();
            let step = self.op.lincomb_step(*y, if i == 0 { a } else { 1.0 }, &terms)?;
            self.device_seconds += self.op.submit(self.device, &[step])?;
        }
        Ok(())
    }
}
