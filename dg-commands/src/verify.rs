//! `dg verify`'s body, for every formulation: each (order, precision) of a law's kernels against the CPU
//! reference, with a tally that fails when anything failed or nothing was tested.

use super::{open_tuner, PrecisionArg};
use crate::{bail, CommandError};
use dg_codegen::{Precision, VariantError};
use dg_run::formulations::FormulationId;
use dg_run::registry::LawCommands;
use dg_runtime::backend::Device;
use dg_runtime::formulation::FormulationError;
use dg_runtime::verify::VerifyOutcome;
use dg_runtime::DeviceOperatorError;
use indicatif::{ProgressBar, ProgressStyle};

/// What one `dg verify` covers.
pub struct VerifyRun<'a> {
    /// The formulation.
    pub formulation: FormulationId,
    /// The numerical flux (the law's default when `None`).
    pub flux: Option<&'a str>,
    /// Orders (degrees).
    pub orders: &'a [usize],
    /// Precisions.
    pub precision: PrecisionArg,
    /// Only this variant (SPEC) instead of every valid one.
    pub only: Option<&'a str>,
    /// One JSON document instead of text.
    pub json: bool,
}

/// Verifies `law`'s kernels as `run` says; an error when any failed or nothing was tested.
pub fn verify_law(law: &dyn LawCommands, device: &mut dyn Device, run: &VerifyRun<'_>) -> Result<(), CommandError> {
    let f = run.formulation.get();
    let inputs = super::KernelInputs::of(law, run.flux)?;
    if let Err(reason) = f.supports(inputs.ir()) {
        bail!("the {} formulation cannot run law `{}`: {reason}", f.name(), law.name());
    }
    let call = inputs.call();
    if let Some(spec) = run.only {
        // a SPEC that does not parse is a usage error, said before anything is compiled (the rules' verdict, which
        // depends on the device's limits, comes per order below)
        let order = run.orders.first().copied().unwrap_or(1);
        if let Err(FormulationError::Operator(DeviceOperatorError::Variant(e @ VariantError::Parse { .. }))) =
            f.emit(&call, order, spec, dg_codegen::Target::OpenCl)
        {
            bail!("{e}");
        }
    }
    let limits = super::limits_of(device);
    let mut tally = Tally::default();
    for &order in run.orders {
        for p in run.precision.list() {
            if p == Precision::F64 && !device.supports_f64() {
                eprintln!("skipping f64: the device has no double precision");
                continue;
            }
            let space = f.variants(&call, order, p, &limits);
            if run.only.is_none() {
                tally.ruled_out += space.iter().filter(|(_, r)| r.is_some()).count();
            }
            // a variant named on the command line comes back refused when the rules reject it at this order: count it
            // as ruled out, not as refused by the device (the space lists the combinations a search meets; one it
            // does not list is asked of the generator, which applies the same rules)
            let named_ruled_out = run.only.is_some_and(|spec| {
                space.iter().any(|(s, r)| s == spec && r.is_some())
                    || matches!(
                        f.emit(&call, order, spec, dg_runtime::formulation::target_of(device)),
                        Err(FormulationError::Operator(DeviceOperatorError::Variant(VariantError::Rejected { .. })))
                    )
            });
            let mut tuner = open_tuner(law, run.formulation, run.flux, device, super::unit_target(order, p, 0))?;
            let count = run.only.map_or_else(|| tuner.candidates(device).len(), |_| 1);
            let bar = ProgressBar::new(count as u64);
            bar.set_style(
                ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len}").expect("template").progress_chars("=> "),
            );
            bar.set_message(format!("{} {} N={order} {p:?}", law.name(), f.name()));
            let lines = bar.is_hidden() && !run.json;
            let started = std::time::Instant::now();
            let outcomes = dg_runtime::pipeline::verify(tuner.as_mut(), device, run.only, &mut |o| {
                bar.inc(1);
                // (a named variant's refusal is said on its order's line)
                if lines && !(run.only.is_some() && o.rejected) {
                    eprintln!("{}", outcome_line(o));
                }
            });
            bar.finish_and_clear();
            let what =
                format!("{} {} N={order} {p:?} ({} elements)", law.name(), f.name(), tuner.verification_elements());
            tally.add(&what, order, outcomes, named_ruled_out, started);
        }
    }
    tally.finish(law.name(), f.name(), device, run.json)
}

/// One variant's line: its relative error, or why the device (or the rules, for a variant named on the command line)
/// refused it, or why it failed.
fn outcome_line(o: &VerifyOutcome) -> String {
    let why = o.error.as_deref().map(|e| format!(": {e}")).unwrap_or_default();
    if o.rejected {
        format!("  {} refused{why}", o.variant)
    } else if o.passed {
        format!("  {} {:.2e}", o.variant, o.relative_error)
    } else {
        format!("  {} {:.2e} FAILED{why}", o.variant, o.relative_error)
    }
}

/// A failed variant of the summary, as text: its order, SPEC, relative error (or that some output was not finite)
/// and the error, if it did not run.
fn failure_line(f: &serde_json::Value) -> String {
    let error = match f["relative_error"].as_f64() {
        Some(e) if e.is_finite() => format!("relative error {e:.2e}"),
        _ => "an output not finite (unwritten, or NaN/infinity)".to_string(),
    };
    let why = f["error"].as_str().map(|e| format!(": {e}")).unwrap_or_default();
    format!("N={} {}: {error}{why}", f["order"], f["variant"].as_str().unwrap_or("?"))
}

/// Counts of a verification over orders and precisions, printed per step and summed up at the end.
#[derive(Default)]
struct Tally {
    tested: usize,
    passed: usize,
    refused: usize,
    /// Variants the rules rejected before any compilation.
    ruled_out: usize,
    failed: Vec<serde_json::Value>,
    /// Why a variant named on the command line was refused or rejected, per order.
    refusals: Vec<String>,
}

impl Tally {
    /// Adds one order's outcomes and prints their line; `ruled_out`: its refusals are the rules' (a named variant
    /// they reject at this order), not the device's.
    fn add(
        &mut self,
        what: &str,
        order: usize,
        outcomes: Vec<VerifyOutcome>,
        ruled_out: bool,
        started: std::time::Instant,
    ) {
        let ok = outcomes.iter().filter(|o| o.passed).count();
        let no = outcomes.iter().filter(|o| o.rejected).count();
        let by = if ruled_out { "rejected by the rules" } else { "refused by the device" };
        // one variant (a SPEC named on the command line) refused: why, on its line and in the summary
        let why = match outcomes.as_slice() {
            [o] if o.rejected => o.error.as_deref().map(|e| format!(": {e}")).unwrap_or_default(),
            _ => String::new(),
        };
        eprintln!(
            "{what}: {} tested, {ok} passed, {no} {by} ({:.1} s){why}",
            outcomes.len() - no,
            started.elapsed().as_secs_f64()
        );
        if !why.is_empty() {
            self.refusals.push(format!("N={order} {} {by}{why}", outcomes[0].variant));
        }
        for o in outcomes {
            if o.rejected && ruled_out {
                self.ruled_out += 1;
            } else if o.rejected {
                self.refused += 1;
            } else if o.passed {
                self.tested += 1;
                self.passed += 1;
            } else {
                self.tested += 1;
                // JSON has no NaN: an error that is not a number (an output left unwritten or not finite) is null
                // there, and `non_finite` says so
                self.failed.push(serde_json::json!({"order": order, "variant": o.variant, "relative_error": o.relative_error, "non_finite": !o.relative_error.is_finite(), "error": o.error}));
            }
        }
    }

    /// Prints the summary (JSON or text); an error when anything failed.
    fn finish(self, law: &str, formulation: &str, device: &dyn Device, json: bool) -> Result<(), CommandError> {
        let Tally { tested, passed, refused, ruled_out, failed, refusals } = self;
        if json {
            let doc = serde_json::json!({"law": law, "formulation": formulation, "device": device.fingerprint(), "tested": tested, "passed": passed, "rejected": refused + ruled_out, "refused_by_device": refused, "ruled_out": ruled_out, "failed": failed, "refusals": refusals});
            println!("{}", serde_json::to_string_pretty(&doc)?);
        } else {
            println!(
                "{law} ({formulation}): {tested} tested, {passed} passed, {} failed, {refused} refused by the device, \
                 {ruled_out} rejected by the rules",
                failed.len()
            );
            for f in &failed {
                println!("  FAILED {}", failure_line(f));
            }
        }
        if !failed.is_empty() {
            bail!("{} {formulation} variant(s) failed verification", failed.len());
        }
        if tested == 0 && !refusals.is_empty() {
            bail!("nothing was verified: {}", refusals.join("; "));
        }
        if tested == 0 {
            bail!(
                "nothing was verified (every precision skipped, or every variant refused by the device or rejected by \
                 the rules at these orders: `dg variants {law} --formulation {formulation} --order N` lists which are \
                 valid)"
            );
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{failure_line, outcome_line};
    use dg_runtime::verify::VerifyOutcome;

    #[test]
    fn a_refused_variant_says_why_and_is_not_called_a_failure() {
        let refused = VerifyOutcome::rejected("mma/wg32".into(), "92160 bytes of local memory".into());
        let line = outcome_line(&refused);
        assert!(line.contains("refused: 92160 bytes") && !line.contains("FAILED"), "{line}");
        let mut failed = VerifyOutcome::compared("v".into(), f64::NAN, 1e-12);
        assert_eq!(outcome_line(&failed), "  v NaN FAILED");
        failed.error = Some("launch failed".into());
        assert_eq!(outcome_line(&failed), "  v NaN FAILED: launch failed");
        let summary = serde_json::json!({"order": 2, "variant": "v", "relative_error": f64::NAN, "error": null});
        assert_eq!(failure_line(&summary), "N=2 v: an output not finite (unwritten, or NaN/infinity)");
        let summary = serde_json::json!({"order": 3, "variant": "w", "relative_error": 0.65, "error": "launch failed"});
        assert_eq!(failure_line(&summary), "N=3 w: relative error 6.50e-1: launch failed");
    }

    #[test]
    fn a_named_variant_the_rules_reject_is_ruled_out_not_refused_by_the_device() {
        let started = std::time::Instant::now();
        let mut tally = super::Tally::default();
        let rules =
            VerifyOutcome::rejected("tile8".into(), "8 work items of 1 outputs each leave one without a node".into());
        tally.add("N=1", 1, vec![rules], true, started);
        tally.add("N=6", 6, vec![VerifyOutcome::rejected("mma/wg32".into(), "92160 bytes".into())], false, started);
        assert_eq!((tally.ruled_out, tally.refused, tally.tested, tally.passed), (1, 1, 0, 0));
        // each named variant's reason is kept for the summary's error
        assert_eq!(tally.refusals.len(), 2);
        assert!(
            tally.refusals[1].starts_with("N=6 mma/wg32 refused by the device: 92160 bytes"),
            "{:?}",
            tally.refusals
        );
        assert!(tally.refusals[0].contains("rejected by the rules: 8 work items"), "{:?}", tally.refusals);
    }
}
