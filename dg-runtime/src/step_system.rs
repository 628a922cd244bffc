//! Time integration of a device operator with the generic integrators ([`crate::time`]): its right-hand side and
//! the generated `lincomb` kernel run as lists of device steps on state buffers.

use crate::backend::{BackendError, BufferId, Device, Step};
use crate::time::OdeSystem;
use crate::DeviceOperatorError;

/// A device operator whose right-hand side and linear combinations are device steps on its state buffers.
pub trait StepOperator {
    /// Which of its kernels a right-hand side runs.
    type Variant;
    /// The steps of one right-hand side of `variant` of the state `q` into `rhs` at time `t`.
    fn rhs_steps(
        &self,
        variant: &Self::Variant,
        q: BufferId,
        rhs: BufferId,
        t: f64,
    ) -> Result<Vec<Step>, DeviceOperatorError>;
    /// y ← a·y + Σ cᵢ·xᵢ for at most three terms, over whole state buffers.
    fn lincomb_step(&self, y: BufferId, a: f64, terms: &[(f64, BufferId)]) -> Result<Step, DeviceOperatorError>;
    /// A new zeroed state-sized buffer.
    fn new_state(&self, device: &mut dyn Device) -> Result<BufferId, BackendError>;
    /// Enqueues `steps` without waiting; the device seconds known at once.
    fn submit(&self, device: &mut dyn Device, steps: &[Step]) -> Result<f64, BackendError>;
}

/// A device, an operator on it, the kernels it runs, and the device time spent so far.
pub struct StepSystem<'a, O: StepOperator> {
    /// The device.
    pub device: &'a mut dyn Device,
    /// The operator.
    pub op: &'a O,
    /// The kernels used.
    pub variant: O::Variant,
    /// Device seconds spent so far.
    pub device_seconds: f64,
}

impl<O: StepOperator> OdeSystem for StepSystem<'_, O> {
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
        update_in_threes(*y, a, terms, |y, a, terms| {
            let step = self.op.lincomb_step(y, a, terms)?;
            self.device_seconds += self.op.submit(self.device, &[step])?;
            Ok(())
        })
    }
}

/// The linear combinations of at most three terms each (the `lincomb` kernel's) that make y ← a·y + Σ cᵢ·xᵢ for
/// any number of terms: for each, the factor of y and its terms — the first scales y by `a`, the others add to what
/// it wrote; without terms, one combination that scales y.
pub fn lincomb_chunks(a: f64, terms: &[(f64, BufferId)]) -> impl Iterator<Item = (f64, &[(f64, BufferId)])> {
    let chunks: Vec<&[(f64, BufferId)]> = if terms.is_empty() { vec![&[]] } else { terms.chunks(3).collect() };
    chunks.into_iter().enumerate().map(move |(i, chunk)| (if i == 0 { a } else { 1.0 }, chunk))
}

/// [`lincomb_chunks`] of an integrator's update ([`OdeSystem::update`]'s terms), `combine(y, factor, terms)` run
/// for each.
pub fn update_in_threes<E>(
    y: BufferId,
    a: f64,
    terms: &[(f64, &BufferId)],
    mut combine: impl FnMut(BufferId, f64, &[(f64, BufferId)]) -> Result<(), E>,
) -> Result<(), E> {
    let terms: Vec<(f64, BufferId)> = terms.iter().map(|(c, b)| (*c, **b)).collect();
    for (a, chunk) in lincomb_chunks(a, &terms) {
        combine(y, a, chunk)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::lincomb_chunks;
    use crate::backend::{Arg, BufferId};

    #[test]
    fn updates_of_any_length_become_combinations_of_at_most_three_terms() {
        let x: Vec<(f64, BufferId)> = (1..=4).map(|i| (i as f64, BufferId(i))).collect();
        let none: Vec<_> = lincomb_chunks(0.5, &[]).map(|(a, c)| (a, c.len())).collect();
        assert_eq!(none, [(0.5, 0)], "no terms: y scaled once");
        let four: Vec<_> = lincomb_chunks(0.5, &x).map(|(a, c)| (a, c.to_vec())).collect();
        assert_eq!(four, [(0.5, x[..3].to_vec()), (1.0, x[3..].to_vec())]);
        let three: Vec<_> = lincomb_chunks(2.0, &x[..3]).map(|(a, c)| (a, c.len())).collect();
        assert_eq!(three, [(2.0, 3)]);
    }

    #[test]
    fn lincomb_arguments_fill_missing_terms_with_y_and_zero() {
        let args = Arg::lincomb::<f32>(BufferId(7), 0.25, &[(2.0, BufferId(3))], 99);
        let text = format!("{args:?}");
        assert_eq!(
            text,
            "[Buffer(BufferId(7)), Buffer(BufferId(3)), Buffer(BufferId(7)), Buffer(BufferId(7)), F32(0.25), F32(2.0), \
             F32(0.0), F32(0.0), I32(99)]"
        );
        assert!(matches!(Arg::lincomb::<f64>(BufferId(0), 1.0, &[], 1)[4], Arg::F64(v) if v == 1.0));
    }
}
