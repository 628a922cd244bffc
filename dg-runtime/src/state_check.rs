//! The per-step state check of device runs: one small reduction kernel
//! ([`dg_codegen::state_check`]) reduces a state buffer to its largest |value| (NaN when a value is not finite)
//! and a read-back of a few hundred partial results gives it to the host. Runs call it after every step, so
//! a blow-up stops the run at the step it happens, and read the whole state back only at the sampled steps.

use crate::backend::{as_bytes_mut, Arg, BackendError, BufferId, Device, Launch, ProgramId};
use crate::formulation::target_of;
use crate::DeviceOperatorError;
use dg_codegen::state_check::{state_check_source, STATE_CHECK_GROUP, STATE_CHECK_GROUPS, STATE_CHECK_KERNEL};

/// The state check, compiled for one device and precision.
pub struct StateCheck {
    program: ProgramId,
    partial: BufferId,
    double: bool,
}

impl StateCheck {
    /// Compiles the check for `device` in double (else single) precision and allocates its partial results.
    pub fn new(device: &mut dyn Device, double: bool) -> Result<Self, DeviceOperatorError> {
        let source = state_check_source(target_of(device), double)?;
        let program = device.compile(&source, &[STATE_CHECK_KERNEL.to_string()])?;
        let partial = device.alloc(STATE_CHECK_GROUPS * if double { 8 } else { 4 })?;
        Ok(Self { program, partial, double })
    }

    /// The largest |value| in buffer `q` (NaN when one is not finite; padding holds zeros), and the kernel's
    /// seconds. Buffers above `i32::MAX` values, or of unknown size, are not checked (`None`).
    pub fn max_abs(&self, device: &mut dyn Device, q: BufferId) -> Result<Option<(f64, f64)>, BackendError> {
        let width = if self.double { 8 } else { 4 };
        let Some(Ok(count)) = device.buffer_bytes(q).map(|bytes| i32::try_from(bytes / width)) else {
            return Ok(None);
        };
        let launch = Launch {
            kernel: STATE_CHECK_KERNEL.into(),
            groups: STATE_CHECK_GROUPS,
            local: STATE_CHECK_GROUP,
            args: vec![Arg::Buffer(q), Arg::I32(count), Arg::Buffer(self.partial)],
        };
        let seconds = device.run(self.program, &[launch], 1)?.iter().sum::<f64>();
        let partial: Vec<f64> = if self.double {
            let mut v = vec![0.0f64; STATE_CHECK_GROUPS];
            device.download(self.partial, as_bytes_mut(&mut v))?;
            v
        } else {
            let mut v = vec![0.0f32; STATE_CHECK_GROUPS];
            device.download(self.partial, as_bytes_mut(&mut v))?;
            v.into_iter().map(f64::from).collect()
        };
        // NaN-sticky maximum: any partial NaN makes the result NaN
        let largest = partial.iter().fold(0.0f64, |m, &v| if v.is_nan() || m.is_nan() { f64::NAN } else { m.max(v) });
        Ok(Some((largest, seconds)))
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
