//! `dg verify`'s bodies: every kernel of a formulation against the CPU reference, per order and precision, with a
//! tally that fails when anything failed or nothing was tested.

use super::PrecisionArg;
use crate::kernels::{law_ir, target_of, valid_variants, verify_all, VerificationSetup};
use anyhow::{bail, Context};
use dg_codegen::modal::ModalVariant;
use dg_codegen::variant::{DeviceLimits, LawShape, Precision, Variant};
use dg_core::law::ConservationLaw;
use dg_runtime::backend::Device;
use dg_runtime::modal_device::EdgeOrder;
use dg_runtime::verify::VerifyOutcome;
use indicatif::{ProgressBar, ProgressStyle};

/// What one `dg verify` covers.
pub struct VerifyRun<'a> {
    /// Degrees.
    pub orders: &'a [usize],
    /// Precisions.
    pub precision: PrecisionArg,
    /// One JSON document instead of text.
    pub json: bool,
    /// The edge numbering of the modal kernels.
    pub edges: EdgeOrder,
}

/// `dg verify --modal`: every modal variant (or `only`) per degree and precision.
pub fn verify_modal_law<L: ConservationLaw + Clone>(
    law: &L,
    device: &mut dyn Device,
    run: &VerifyRun<'_>,
    only: Option<ModalVariant>,
) -> anyhow::Result<()> {
    use dg_runtime::modal_verify::verify_modal_variants;
    let target = target_of(device);
    let ir = law_ir(law);
    let mut tally = Tally::default();
    for &order in run.orders {
        for p in run.precision.list() {
            if p == Precision::F64 && !device.supports_f64() {
                eprintln!("skipping f64: the device has no double precision");
                continue;
            }
            let variants = match only {
                Some(v) => vec![v],
                None => ModalVariant::all(p),
            };
            let started = std::time::Instant::now();
            let mut report = |o: &VerifyOutcome| {
                if !std::io::IsTerminal::is_terminal(&std::io::stderr()) && !run.json {
                    eprintln!("  {} {:.2e}{}", o.variant, o.relative_error, if o.passed { "" } else { " FAILED" });
                }
            };
            let outcomes = match p {
                Precision::F32 => {
                    verify_modal_variants::<L, f32>(device, target, law, &ir, order, &variants, run.edges, &mut report)
                }
                Precision::F64 => {
                    verify_modal_variants::<L, f64>(device, target, law, &ir, order, &variants, run.edges, &mut report)
                }
            };
            tally.add(&format!("{} modal p={order} {p:?}", law.name()), order, outcomes, started);
        }
    }
    tally.finish(law.name(), "modal", device, run.json)
}

/// `dg verify --tet`: every tetrahedral kernel per order and precision.
pub fn verify_tet_law<L: ConservationLaw + Clone>(
    law: &L,
    device: &mut dyn Device,
    orders: &[usize],
    precision: PrecisionArg,
    json: bool,
) -> anyhow::Result<()> {
    use dg_runtime::tet_verify::verify_tet_kernels;
    let target = target_of(device);
    let ir = law_ir(law);
    let mut tally = Tally::default();
    for &order in orders {
        for p in precision.list() {
            if p == Precision::F64 && !device.supports_f64() {
                eprintln!("skipping f64: the device has no double precision");
                continue;
            }
            let started = std::time::Instant::now();
            let outcomes = match p {
                Precision::F32 => verify_tet_kernels::<L, f32>(device, target, law, &ir, order),
                Precision::F64 => verify_tet_kernels::<L, f64>(device, target, law, &ir, order),
            }
            .with_context(|| format!("tetrahedral kernels of {} at N = {order} ({p:?})", law.name()))?;
            tally.add(&format!("{} tet N={order} {p:?}", law.name()), order, outcomes, started);
        }
    }
    tally.finish(law.name(), "tetrahedral", device, json)
}

/// Counts of a verification over orders and precisions, printed per step and summed up at the end.
#[derive(Default)]
struct Tally {
    tested: usize,
    passed: usize,
    refused: usize,
    /// Variants the rules rejected before any compilation (nodal formulation).
    ruled_out: usize,
    failed: Vec<serde_json::Value>,
}

impl Tally {
    /// Adds one order's outcomes and prints their line.
    fn add(&mut self, what: &str, order: usize, outcomes: Vec<VerifyOutcome>, started: std::time::Instant) {
        let ok = outcomes.iter().filter(|o| o.passed).count();
        let no = outcomes.iter().filter(|o| o.rejected).count();
        eprintln!(
            "{what}: {} tested, {ok} passed, {no} refused by the device ({:.1} s)",
            outcomes.len() - no,
            started.elapsed().as_secs_f64()
        );
        for o in outcomes {
            if o.rejected {
                self.refused += 1;
            } else if o.passed {
                self.tested += 1;
                self.passed += 1;
            } else {
                self.tested += 1;
                self.failed.push(serde_json::json!({"order": order, "variant": o.variant, "relative_error": o.relative_error, "error": o.error}));
            }
        }
    }

    /// Prints the summary (JSON or text); an error when anything failed.
    fn finish(self, law: &str, formulation: &str, device: &dyn Device, json: bool) -> anyhow::Result<()> {
        let Tally { tested, passed, refused, ruled_out, failed } = self;
        if json {
            let doc = serde_json::json!({"law": law, "formulation": formulation, "device": device.fingerprint(), "tested": tested, "passed": passed, "rejected": refused + ruled_out, "refused_by_device": refused, "ruled_out": ruled_out, "failed": failed});
            println!("{}", serde_json::to_string_pretty(&doc)?);
        } else {
            println!(
                "{law} ({formulation}): {tested} tested, {passed} passed, {} failed, {refused} refused by the device, \
                 {ruled_out} rejected by the rules",
                failed.len()
            );
            for f in &failed {
                println!("  FAILED {f}");
            }
        }
        if !failed.is_empty() {
            bail!("{} {formulation} kernel(s) or variant(s) failed verification", failed.len());
        }
        if tested == 0 {
            bail!("nothing was verified (every precision skipped or every kernel refused)");
        }
        Ok(())
    }
}

/// `dg verify`: every valid nodal variant (or `only`) per order and precision.
pub fn verify_law<L: ConservationLaw + Clone>(
    law: &L,
    device: &mut dyn Device,
    orders: &[usize],
    precision: PrecisionArg,
    only: Option<Variant>,
    json: bool,
) -> anyhow::Result<()> {
    let target = target_of(device);
    let limits = DeviceLimits { local_memory: device.local_memory(), max_work_group: device.max_work_group() };
    let shape = LawShape::of(&law_ir(law));
    let mut tally = Tally::default();
    for &order in orders {
        let setup = VerificationSetup::new(law, order)?;
        for p in precision.list() {
            if p == Precision::F64 && !device.supports_f64() {
                eprintln!("skipping f64: the device has no double precision");
                continue;
            }
            let (mut valid, rejected) = valid_variants(order, &shape, p, &limits);
            tally.ruled_out += rejected.len();
            if let Some(v) = only {
                v.check(order, &shape, &limits)?;
                valid = vec![v];
            }
            let bar = ProgressBar::new(valid.len() as u64);
            bar.set_style(
                ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len}").expect("template").progress_chars("=> "),
            );
            bar.set_message(format!("{} N={order} {p:?}", law.name()));
            let started = std::time::Instant::now();
            let outcomes = match p {
                Precision::F32 => verify_all::<L, f32>(device, target, law, &setup, &valid, &mut |_| bar.inc(1)),
                Precision::F64 => verify_all::<L, f64>(device, target, law, &setup, &valid, &mut |_| bar.inc(1)),
            };
            bar.finish_and_clear();
            tally.add(&format!("{} N={order} {p:?}", law.name()), order, outcomes, started);
        }
    }
    tally.finish(law.name(), "nodal", device, json)
}
