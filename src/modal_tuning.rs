//! The autotuner of the modal formulation (seed 001): every modal variant of euler2d with the law's selected
//! numerical flux is verified against the CPU operator, the ones that pass are timed on a periodic mesh, the
//! fastest is checked again at the timing size, and the result becomes a tuning-database entry.
//! `dg modal-bench` runs it per degree and precision; a device run whose key is missing runs it on first use.

use crate::kernels::{law_ir, target_of};
use dg_codegen::modal::{ModalSurface, ModalVariant};
use dg_codegen::variant::Precision;
use dg_codegen::KernelFamily;
use dg_core::law::ConservationLaw;
use dg_core::mesh::{rectangle, Diagonal, RectangleSpec};
use dg_core::space::DgSpace2d;
use dg_core::triangle::ModalTriangle;
use dg_core::Real;
use dg_laws::euler2d;
use dg_runtime::backend::Device;
use dg_runtime::cpu::{BoundaryBinding, ModalOperator2d};
use dg_runtime::modal_device::{EdgeOrder, ModalDeviceOperator};
use dg_runtime::modal_verify::{random_modal_state, verify_modal_variants};
use dg_runtime::tuning_db::{Candidate, Entry, TuningKey};
use dg_runtime::verify::{relative_l2, VerifyOutcome};
use std::collections::HashMap;

/// What one tuning run of a degree and precision found.
pub struct ModalTuning {
    /// The database key (law, flux, degree, precision, size, code fingerprint).
    pub key: TuningKey,
    /// The entry to store.
    pub entry: Entry,
    /// Elements of the timing mesh.
    pub elements: usize,
    /// Degrees of freedom of the timing problem.
    pub dofs: f64,
    /// Every timed variant with its median seconds per right-hand side.
    pub timings: Vec<(ModalVariant, f64)>,
    /// Minimal bytes of one right-hand side (state read, right-hand side written, metric and face data).
    pub bytes: f64,
}

impl ModalTuning {
    /// The fastest time of a surface strategy, in ms.
    pub fn best_ms(&self, surface: ModalSurface) -> Option<f64> {
        self.timings.iter().filter(|(v, _)| v.surface == surface).map(|(_, t)| 1e3 * t).min_by(f64::total_cmp)
    }
}

/// Elements of the default timing mesh at degree `order`: about 16M degrees of freedom.
pub fn default_elements(order: usize) -> usize {
    16_000_000 / (4 * dg_core::triangle::num_nodes(order))
}

/// Tunes the modal kernels of `law` (its selected numerical flux) at degree `order` in precision `T` on a periodic
/// mesh of about `elements` triangles; `log` gets one line per variant.
pub fn tune_modal<T: Real>(
    device: &mut dyn Device,
    law: &euler2d::Law,
    order: usize,
    elements: usize,
    repeats: usize,
    log: &mut dyn FnMut(&str),
) -> anyhow::Result<ModalTuning> {
    let ir = law_ir(law);
    let flux = law.numerical_flux_name();
    let element = ModalTriangle::new(order)?;
    let nm = element.nmodes;
    let n = ((elements as f64 / 2.0).sqrt().round() as usize).max(2);
    let mesh = rectangle(&RectangleSpec {
        lower: [0.0, 0.0],
        upper: [10.0, 10.0],
        nx: n,
        ny: n,
        diagonal: Diagonal::Alternating,
        periodic_x: true,
        periodic_y: true,
    })?;
    let space = DgSpace2d::new(mesh, 1)?;
    let binding = BoundaryBinding::for_law(law, &space, &HashMap::new())?;
    let cpu = ModalOperator2d::<_, T>::new(*law, element, &space, &binding, &[]);
    let q = random_modal_state(&cpu, 3);
    let k = cpu.num_elements();
    let precision = if T::NAME == "f32" { Precision::F32 } else { Precision::F64 };
    let target = target_of(device);
    let params = law.param_values();
    // only variants that match the CPU operator are timed (and may become winners)
    let all = ModalVariant::all(precision);
    let checks =
        verify_modal_variants::<_, T>(device, target, law, &ir, order, &all, EdgeOrder::BoundaryFirst, &mut |_| {});
    let mut candidates = Vec::new();
    let mut timings: Vec<(ModalVariant, f64)> = Vec::new();
    for (variant, check) in all.iter().zip(&checks) {
        if !check.passed {
            log(&format!("p={order} {variant}: not timed, verification failed ({:?})", check.error));
            candidates.push(Candidate::checked(check, None, None));
            continue;
        }
        let result = (|| -> anyhow::Result<f64> {
            let op = ModalDeviceOperator::<T>::new(device, target, (&ir, &params, flux), &cpu, variant)?;
            op.upload_state(device, &q)?;
            op.apply(device, 0.0, 2)?; // warm-up
            let mut times = op.apply(device, 0.0, repeats)?;
            times.sort_by(f64::total_cmp);
            Ok(times[times.len() / 2])
        })();
        device.free_buffers();
        match result {
            Ok(t) => {
                log(&format!("p={order} {variant} {:.4} ms", 1e3 * t));
                candidates.push(Candidate::checked(check, Some((t, 0.0)), None));
                timings.push((*variant, t));
            }
            Err(e) => {
                log(&format!("p={order} {variant}: {e:#}"));
                candidates.push(Candidate::checked(check, None, Some(format!("{e:#}"))));
            }
        }
    }
    // the fastest that also matches the CPU operator on the timing problem itself
    timings.sort_by(|a, b| a.1.total_cmp(&b.1));
    let mut winner = None;
    for (variant, t) in &timings {
        let check = check_at_size::<T>(device, law, &cpu, &q, variant);
        if check.passed {
            winner = Some((*variant, *t));
            break;
        }
        log(&format!("p={order} {variant}: failed at the timing size ({k} elements): {:?}", check.error));
        if let Some(c) = candidates.iter_mut().find(|c| c.variant == variant.to_string()) {
            *c = Candidate::checked(&check, None, Some(format!("failed at the timing size ({k} elements)")));
        }
    }
    let Some((best, best_t)) = winner else { anyhow::bail!("no modal variant passed and ran at p = {order}") };
    timings.retain(|(v, _)| candidates.iter().any(|c| c.variant == v.to_string() && c.verified()));
    let dofs = (k * 4 * nm) as f64;
    let real = std::mem::size_of::<T>() as f64;
    // the minimum traffic: state read and right-hand side written, the metric (4) and face data (3 normals/scales
    // and 1 link per face) per element
    let bytes = 2.0 * dofs * real + k as f64 * (4.0 + 9.0) * real + k as f64 * 3.0 * 4.0;
    let entry = Entry {
        winner: best.to_string(),
        median_s: best_t,
        dofs: dofs as u64,
        gflops: 0.0,
        gbs: bytes / best_t / 1e9,
        roofline_percent: None,
        candidates,
        date: crate::tuning::today(),
        strategy: "exhaustive (modal)".into(),
        driver: Some(device.fingerprint().driver.clone()),
    };
    let key = TuningKey::new(KernelFamily::ModalTri, law.name(), &ir.hash(), flux, order, T::NAME, "rhs", dofs as u64);
    Ok(ModalTuning { key, entry, elements: k, dofs, timings, bytes })
}

/// `variant`'s right-hand side of `q` on the timing problem against the CPU operator's.
fn check_at_size<T: Real>(
    device: &mut dyn Device,
    law: &euler2d::Law,
    cpu: &ModalOperator2d<euler2d::Law, T>,
    q: &[T],
    variant: &ModalVariant,
) -> VerifyOutcome {
    let ir = law_ir(law);
    let params = law.param_values();
    let mut reference = vec![T::nan(); q.len()];
    cpu.apply(q, 0.0, &mut reference);
    let target = target_of(device);
    let result = (|| {
        let op =
            ModalDeviceOperator::<T>::new(device, target, (&ir, &params, law.numerical_flux_name()), cpu, variant)?;
        op.upload_state(device, q)?;
        op.poison_output(device)?;
        op.apply(device, 0.0, 1)?;
        Ok(relative_l2(&op.download_output(device)?, &reference))
    })();
    device.free_buffers();
    VerifyOutcome::of::<T>(variant.to_string(), result)
}
