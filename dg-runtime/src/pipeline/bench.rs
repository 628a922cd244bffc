//! What `dg bench` measures of a stored winner, every figure now: verified on the verification problem and at
//! the timing size against the CPU reference, timed, and placed against the device's measured ceilings.

use crate::backend::Device;
use crate::formulation::{FormulationError, Tuner};
use crate::tuning_db::Ceilings;

/// A winner measured now.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Measured {
    /// Whether it matches the CPU reference now: on the verification problem and on the timing problem.
    pub verified: bool,
    /// The larger of the two relative differences (NaN if an output was not written).
    pub relative_error: f64,
    /// Degrees of freedom (nodes for tetrahedra) of the timing problem.
    pub dofs: u64,
    /// Median seconds per timed unit.
    pub median_s: f64,
    /// Relative spread (p90 − p10) / median.
    pub spread: f64,
    /// Cost-model GFLOP/s.
    pub gflops: f64,
    /// Cost-model GB/s (bytes as the variant moves them).
    pub gbs: f64,
    /// Percent of the roofline bound with the device's measured ceilings (at most 100).
    pub roofline_percent: f64,
    /// The raw percentage when the kernel beat the measured ceilings (they were measured too low).
    pub ceiling_exceeded: Option<f64>,
}

/// Verifies `spec` (verification problem and timing problem) and times it, as `dg bench` does. A variant the device
/// refuses before any launch (its rules with the device's limits: local memory, say) is not timed: the error is
/// [`dg_codegen::VariantError::Rejected`] with the reason.
pub fn measure(
    tuner: &mut dyn Tuner,
    device: &mut dyn Device,
    spec: &str,
    repeats: usize,
    ceilings: &Ceilings,
    double: bool,
) -> Result<Measured, FormulationError> {
    let small = tuner.verify(device, &[spec.to_string()], &mut |_| {});
    let small = small.into_iter().next().ok_or_else(|| FormulationError::Problem("nothing verified".into()))?;
    if small.rejected {
        let reason = small.error.unwrap_or_else(|| "refused by the device".into());
        return Err(dg_codegen::VariantError::Rejected { spec: spec.to_string(), reason }.into());
    }
    let at_size = tuner.check_at_size(device, spec);
    let (median_s, spread) = tuner.time(device, spec, &crate::formulation::TimingPlan::full(repeats))?;
    let cost = tuner.cost(spec)?;
    Ok(Measured {
        verified: small.passed && at_size.passed,
        relative_error: dg_core::max_or_nan(small.relative_error, at_size.relative_error),
        dofs: tuner.timing_dofs(),
        median_s,
        spread,
        gflops: cost.flops / median_s * 1e-9,
        gbs: cost.bytes / median_s * 1e-9,
        roofline_percent: ceilings.roofline_percent(cost.flops, cost.bytes, median_s, double, cost.units),
        ceiling_exceeded: ceilings.exceeded_by(cost.flops, cost.bytes, median_s, double, cost.units),
    })
}
