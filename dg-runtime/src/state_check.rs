//! The per-step state check of device runs: one small reduction kernel
//! ([`dg_codegen::state_check`]) reduces a state buffer to its largest |value| (NaN when a value is not finite)
//! and a read-back of a few hundred partial results gives it to the host. Runs call it after every step, so
//! a blow-up stops the run at the step it happens (or the next: between sampled steps a step's check is enqueued
//! behind it and read after the next step is enqueued, so that the device never waits for the host), and read the
//! whole state back only at the sampled steps.

use crate::backend::{as_bytes_mut, Arg, BackendError, BufferId, Device, Launch, ProgramId};
use crate::formulation::target_of;
use crate::DeviceOperatorError;
use dg_codegen::state_check::{state_check_source, STATE_CHECK_GROUP, STATE_CHECK_GROUPS, STATE_CHECK_KERNEL};
use dg_core::max_or_nan;
use std::cell::Cell;

/// The state check, compiled for one device and precision.
pub struct StateCheck {
    program: ProgramId,
    /// Partial results (one per group). A submitted check's are read back before anything writes them again.
    partial: BufferId,
    double: bool,
    /// Whether a submitted check's result has not been collected yet.
    pending: Cell<bool>,
    /// What a check collected early found (a check submitted or waited for while another was pending), folded
    /// into the next result: no verdict is dropped.
    carried: Cell<Option<f64>>,
}

impl StateCheck {
    /// Compiles the check for `device` in double (else single) precision and allocates its partial results.
    pub fn new(device: &mut dyn Device, double: bool) -> Result<Self, DeviceOperatorError> {
        let source = state_check_source(target_of(device), double)?;
        let program = device.compile(&source, &[STATE_CHECK_KERNEL.to_string()])?;
        let partial = device.alloc(STATE_CHECK_GROUPS * if double { 8 } else { 4 })?;
        Ok(Self { program, partial, double, pending: Cell::new(false), carried: Cell::new(None) })
    }

    fn launch(&self, device: &dyn Device, q: BufferId) -> Option<Launch> {
        let width = if self.double { 8 } else { 4 };
        let count = i32::try_from(device.buffer_bytes(q)? / width).ok()?;
        Some(Launch {
            kernel: STATE_CHECK_KERNEL.into(),
            groups: STATE_CHECK_GROUPS,
            local: STATE_CHECK_GROUP,
            args: vec![Arg::Buffer(q), Arg::I32(count), Arg::Buffer(self.partial)],
        })
    }

    /// The NaN-sticky largest of the partial results and of what was carried (read on the transfer lane when
    /// `transfer`).
    fn largest(&self, device: &mut dyn Device, transfer: bool) -> Result<f64, BackendError> {
        let mut read = |bytes: &mut [u8]| {
            if transfer {
                device.download_transfer(self.partial, bytes)
            } else {
                device.download(self.partial, bytes)
            }
        };
        let partial: Vec<f64> = if self.double {
            let mut v = vec![0.0f64; STATE_CHECK_GROUPS];
            read(as_bytes_mut(&mut v))?;
            v
        } else {
            let mut v = vec![0.0f32; STATE_CHECK_GROUPS];
            read(as_bytes_mut(&mut v))?;
            v.into_iter().map(f64::from).collect()
        };
        // NaN-sticky maximum: any partial NaN makes the result NaN
        let carried = self.carried.take().unwrap_or(0.0);
        Ok(partial.into_iter().fold(carried, max_or_nan))
    }

    /// Collects a pending check into `carried` (before the partial results are written again).
    fn carry_pending(&self, device: &mut dyn Device) -> Result<(), BackendError> {
        if let Some(largest) = self.collect(device)? {
            self.carried.set(Some(largest));
        }
        Ok(())
    }

    /// Enqueues the check of `q` behind the work already submitted, without waiting for it (the time loop's path:
    /// the host goes on to enqueue the next step while the device runs this one); [`StateCheck::collect`] reads its
    /// result. Returns the device seconds known at once (see [`Device::submit`]); `None` when `q` cannot be
    /// checked (as [`StateCheck::max_abs`]). A check still pending is collected first and its result folded into
    /// the next one's.
    pub fn submit(&self, device: &mut dyn Device, q: BufferId) -> Result<Option<f64>, BackendError> {
        self.carry_pending(device)?;
        let Some(launch) = self.launch(device, q) else {
            return Ok(None);
        };
        let seconds = device.submit(self.program, &[crate::backend::Step::Kernel(launch)])?;
        device.transfer_after_compute()?;
        self.pending.set(true);
        Ok(Some(seconds))
    }

    /// The largest |value| the check submitted last found (NaN when one was not finite), waiting for that check
    /// only (on the transfer lane: the work submitted after it keeps the device busy); `None` when no check is
    /// pending (nor carried).
    pub fn collect(&self, device: &mut dyn Device) -> Result<Option<f64>, BackendError> {
        if !self.pending.replace(false) {
            return Ok(self.carried.take());
        }
        Ok(Some(self.largest(device, true)?))
    }

    /// The largest |value| in buffer `q` (NaN when one is not finite; padding holds zeros), and the kernel's
    /// seconds, waiting for the check (and everything submitted before it). Buffers above `i32::MAX` values, or of
    /// unknown size, are not checked (`None`). A submitted check still pending is collected first and folded in.
    pub fn max_abs(&self, device: &mut dyn Device, q: BufferId) -> Result<Option<(f64, f64)>, BackendError> {
        self.carry_pending(device)?;
        let Some(launch) = self.launch(device, q) else {
            return Ok(self.carried.take().map(|largest| (largest, 0.0)));
        };
        let seconds = device.run(self.program, &[launch], 1)?.iter().sum::<f64>();
        Ok(Some((self.largest(device, false)?, seconds)))
    }
}

/// `Some(reason)` when a state's largest |value| `largest` is not finite or exceeds `growth` times the initial
/// state's `initial` (for linear laws, whose solutions do not grow; `growth` = `None` checks finiteness only).
pub fn verdict(largest: f64, initial: f64, growth: Option<f64>) -> Option<String> {
    if !largest.is_finite() {
        return Some("values are no longer finite; reduce --cfl or --dt".into());
    }
    let bound = growth? * initial.max(f64::MIN_POSITIVE);
    (largest > bound).then(|| {
        format!(
            "the largest |value| grew from {initial:.4e} to {largest:.4e}, more than {}×: the scheme is unstable at \
             this step; reduce --cfl or --dt",
            growth.unwrap_or_default()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::verdict;

    #[test]
    fn verdicts_catch_non_finite_values_and_growth() {
        assert!(verdict(f64::NAN, 1.0, None).is_some());
        assert!(verdict(f64::INFINITY, 1.0, Some(10.0)).is_some());
        assert!(verdict(5.0, 1.0, None).is_none());
        assert!(verdict(5.0, 1.0, Some(10.0)).is_none());
        assert!(verdict(50.0, 1.0, Some(10.0)).unwrap().contains("grew"));
    }
}
