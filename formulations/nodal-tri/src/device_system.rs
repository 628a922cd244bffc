//! Time integration on a device: the generic integrators of [`dg_runtime::time`] drive device state buffers through
//! the generated right-hand-side kernels and a linear-combination kernel.

use crate::device::{DeviceOperator, FoldedStage};
use dg_core::Real;
use dg_runtime::backend::{BackendError, BufferId, Device, Step};
use dg_runtime::time::OdeSystem;

/// A device, an operator on it, and the device time spent in kernels so far.
pub struct DeviceSystem<'a, T: Real> {
    /// The device.
    pub device: &'a mut dyn Device,
    /// The operator.
    pub op: &'a DeviceOperator<T>,
    /// Seconds of device time measured by events.
    pub device_seconds: f64,
}

impl<T: Real> OdeSystem for DeviceSystem<'_, T> {
    type State = BufferId;
    type Error = BackendError;

    fn rhs(&mut self, t: f64, q: &BufferId, out: &mut BufferId) -> Result<(), BackendError> {
        let steps = self.op.rhs_steps_between(*q, *out, t);
        self.device_seconds += self.device.submit(self.op.program(), &steps)?;
        Ok(())
    }

    fn zeros_like(&mut self, _like: &BufferId) -> Result<BufferId, BackendError> {
        self.op.new_state(self.device)
    }

    fn update(&mut self, y: &mut BufferId, a: f64, terms: &[(f64, &BufferId)]) -> Result<(), BackendError> {
        dg_runtime::step_system::update_in_threes(*y, a, terms, |y, a, terms| {
            let launch = self.op.lincomb_launch(y, a, terms);
            self.device_seconds += self.device.submit(self.op.program(), &[Step::Kernel(launch)])?;
            Ok(())
        })
    }

    fn folds_low_storage(&self) -> bool {
        self.op.folds_stages()
    }

    /// The stage folded into the merged kernel's store where the variant has one: r and the new state written in
    /// the pass that computes L (into `spare`, then swapped with `q`), instead of L stored and read back by two
    /// linear combinations.
    fn low_storage_stage(
        &mut self,
        t: f64,
        q: &mut BufferId,
        k: &mut BufferId,
        r: &mut BufferId,
        spare: &mut BufferId,
        (a, c, b): (f64, f64, f64),
    ) -> Result<(), BackendError> {
        let stage = FoldedStage { r: *r, z: *spare, a, c, b };
        let Some(steps) = self.op.folded_stage_steps(*q, t, &stage) else {
            return dg_runtime::time::low_storage_unfolded(self, t, q, k, r, (a, c, b));
        };
        self.device_seconds += self.device.submit(self.op.program(), &steps)?;
        std::mem::swap(q, spare);
        Ok(())
    }
}
