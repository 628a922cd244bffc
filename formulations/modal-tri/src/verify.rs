//! Verification of the generated modal kernels against the CPU modal operator: a small mesh whose boundary has
//! every kind of ghost state (law conditions, a curved wall, a prescribed time-dependent state), a random state
//! valid for the law, outputs poisoned with NaN, relative L2 difference.

use crate::cpu::{GhostRule, ModalOperator2d};
use crate::device::{EdgeOrder, FusedUpdate, ModalDeviceOperator};
use crate::ModalVariant;
use dg_codegen::Target;
use dg_core::law::ConservationLaw;
use dg_core::mesh::{perturb_interior, rectangle, Diagonal, RectangleSpec};
use dg_core::space::DgSpace2d;
use dg_core::triangle::ModalTriangle;
use dg_core::Real;
use dg_runtime::backend::Device;
use dg_runtime::cpu::BoundaryBinding;
use dg_runtime::verify::{random_state, relative_l2, worst, VerifyOutcome};
use dg_runtime::DeviceOperatorError;
use rand::{Rng, SeedableRng};
use std::collections::HashMap;
use std::sync::Arc;

/// Cells per direction of the modal verification mesh: 19 × 23 squares, 874 triangles and 1,353 edges — more than
/// three work groups of the largest (256 elements or edges), and no multiple of any group size.
pub const VERIFICATION_CELLS: (usize, usize) = (19, 23);

/// The verification problem of one law and degree: the CPU operator on a perturbed 19 × 23 mesh of the unit square
/// with its bottom a curved boundary (circle about (0.5, −3)) under the law's first condition, its left side a
/// prescribed time-dependent state, and its top and right under the law's conditions in turn (a law without
/// boundary conditions: the prescribed state on every side).
pub fn modal_verification_operator<L: ConservationLaw + Clone, T: Real>(
    law: &L,
    order: usize,
) -> Result<ModalOperator2d<L, T>, DeviceOperatorError> {
    let invalid = |e: String| DeviceOperatorError::Precision(e);
    let (nx, ny) = VERIFICATION_CELLS;
    let mut mesh = rectangle(&RectangleSpec { diagonal: Diagonal::Alternating, ny, ..RectangleSpec::unit_square(nx) })
        .map_err(|e| invalid(e.to_string()))?;
    perturb_interior(&mut mesh, 0.2, 7);
    let space = DgSpace2d::new(mesh, 1).map_err(|e| invalid(e.to_string()))?;
    let offered = law.boundary_names();
    let condition = |i: usize| offered.get(i % offered.len().max(1)).map(|s| s.to_string());
    let mut explicit = HashMap::new();
    for (i, tag) in ["bottom", "right", "top"].into_iter().enumerate() {
        if let Some(c) = condition(i) {
            explicit.insert(tag.to_string(), c);
        }
    }
    let prescribed_sides: &[&str] = if offered.is_empty() { &["left", "bottom", "right", "top"] } else { &["left"] };
    let binding = BoundaryBinding::for_law_except(law, &space, &explicit, prescribed_sides)
        .map_err(|e| invalid(e.to_string()))?;
    let base = random_state::<f64>(law.variable_names(), 1, 1, 99);
    let prescribed = Arc::new(move |x: f64, y: f64, t: f64, q: &mut [f64]| {
        for (v, out) in q.iter_mut().enumerate() {
            *out = base[v] * (1.0 + 0.05 * (x + 2.0 * y + t + v as f64).sin());
        }
    });
    let mut rules: HashMap<String, GhostRule> =
        prescribed_sides.iter().map(|side| (side.to_string(), GhostRule::Prescribed(prescribed.clone()))).collect();
    if !offered.is_empty() {
        rules.insert("bottom".to_string(), GhostRule::Curved { center: [0.5, -3.0] });
    }
    let element = ModalTriangle::new(order).map_err(|e| invalid(e.to_string()))?;
    let materials: Vec<f64> = {
        let mut rng = rand::rngs::StdRng::seed_from_u64(5);
        (0..space.num_elements() * L::NMATERIALS).map(|_| rng.random_range(0.5..2.0)).collect()
    };
    Ok(ModalOperator2d::with_rules(law.clone(), element, &space, &binding, &materials, &rules))
}

/// A random modal state: the projection of a random admissible state per element plus random higher modes small
/// enough to keep density, pressure or depth positive.
pub fn random_modal_state<L: ConservationLaw, T: Real>(cpu: &ModalOperator2d<L, T>, seed: u64) -> Vec<T> {
    let (nv, nm, k) = (L::NVARS, cpu.element().nmodes, cpu.num_elements());
    let means = random_state::<f64>(cpu.law().variable_names(), 1, k, seed);
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed + 1);
    let phi0 = cpu.element().phi[(0, 0)];
    let mut q = vec![T::zero(); k * nv * nm];
    for e in 0..k {
        for v in 0..nv {
            let mean = means[e * nv + v];
            q[(e * nv + v) * nm] = T::from_f64(mean / phi0);
            for j in 1..nm {
                q[(e * nv + v) * nm + j] = T::from_f64(0.02 * mean.abs().max(0.1) * rng.random_range(-1.0..1.0));
            }
        }
    }
    q
}

/// Verifies modal variants of `law` at degree `order` on the device — the right-hand side, the CFL step's wave
/// speed and, at p = 1, the limiter; the outcome's error is the largest relative difference; `progress` after
/// each.
#[allow(clippy::too_many_arguments)]
pub fn verify_modal_variants<L: ConservationLaw + Clone, T: Real>(
    device: &mut dyn Device,
    target: Target,
    law: &L,
    ir: &dg_ir::LawIr,
    order: usize,
    variants: &[ModalVariant],
    edges: EdgeOrder,
    progress: &mut dyn FnMut(&VerifyOutcome),
) -> Vec<VerifyOutcome> {
    let params = law.param_values();
    let nflux = law.numerical_flux_name();
    let cpu = match modal_verification_operator::<L, T>(law, order) {
        Ok(cpu) => cpu,
        Err(e) => {
            let message = e.to_string();
            return variants
                .iter()
                .map(|v| VerifyOutcome::of::<T>(v.to_string(), Err(DeviceOperatorError::Precision(message.clone()))))
                .collect();
        }
    };
    let t = 0.3;
    let q = random_modal_state(&cpu, 11 + order as u64);
    let mut reference = vec![T::nan(); q.len()];
    cpu.apply(&q, t, &mut reference);
    // the time-stepping kernels: the CFL step, and at p = 1 the limiter (with the guard where the law has one)
    let dt_reference = cpu.stable_time_step(&q, 0.5);
    let probe = vec![T::one(); L::NVARS];
    let guard = law.admissibility(&probe, &vec![T::one(); L::NMATERIALS]).is_some();
    let limited_reference = (order == 1).then(|| {
        let limited = cpu.clone_with_limiter(guard);
        let mut out = q.clone();
        limited.apply_limiter(&mut out);
        out
    });
    let mut outcomes = Vec::new();
    for variant in variants {
        let run = |device: &mut dyn Device| -> Result<f64, DeviceOperatorError> {
            let law = (ir, &params[..], nflux);
            let op = ModalDeviceOperator::<T>::with_edge_order(device, target, law, &cpu, variant, edges)?;
            op.set_time(device, &cpu, t)?;
            op.upload_state(device, &q)?;
            op.poison_output(device)?;
            op.apply(device, t, 1)?;
            let mut error = relative_l2(&op.download_output(device)?, &reference);
            error = worst(error, verify_fused_update(device, &op, &q, &reference, t)?);
            let (dt, _) = op.stable_time_step(device, op.state_buffer(), 0.5)?;
            error = worst(
                error,
                match (dt, dt_reference) {
                    (Some(a), Some(b)) => (a - b).abs() / b,
                    _ => f64::NAN,
                },
            );
            error = worst(error, verify_mean_check(device, &op, &cpu, &q)?);
            if let Some(limited) = &limited_reference {
                device.run(op.program(), &op.limit_launches(op.state_buffer()), 1)?;
                let got = op.read_state(device, op.state_buffer())?;
                error = worst(error, relative_l2(&got, limited));
            }
            Ok(error)
        };
        let result = run(device);
        device.free_buffers();
        let outcome = VerifyOutcome::of::<T>(variant.to_string(), result);
        progress(&outcome);
        outcomes.push(outcome);
    }
    outcomes
}

/// The right-hand side with a Runge–Kutta update folded into it (`ModalDeviceOperator::rhs_step_launches`), on
/// random states and coefficients with three terms, L kept: the largest relative difference of L and of the
/// updated state from the CPU's L combined on the host. The state `q` must be uploaded.
fn verify_fused_update<T: Real>(
    device: &mut dyn Device,
    op: &ModalDeviceOperator<T>,
    q: &[T],
    reference: &[T],
    t: f64,
) -> Result<f64, DeviceOperatorError> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(23);
    let mut random = |n: usize| -> Vec<T> { (0..n).map(|_| T::from_f64(rng.random_range(-1.0..1.0))).collect() };
    let (y0, x1, x2) = (random(q.len()), random(q.len()), random(q.len()));
    let (a, c, c1, c2, c3) = (0.75, 0.3, -0.4, 0.2, 0.6);
    let (y, b1, b2) = (op.new_state(device)?, op.new_state(device)?, op.new_state(device)?);
    op.write_state(device, y, &y0)?;
    op.write_state(device, b1, &x1)?;
    op.write_state(device, b2, &x2)?;
    op.poison_output(device)?;
    // the third term is the right-hand side's own input, as in SSP-RK3's last stage
    let q_buffer = op.state_buffer();
    let update = FusedUpdate { y, a, c, terms: vec![(c1, b1), (c2, b2), (c3, q_buffer)], keep: true };
    let launches = op.rhs_step_launches(q_buffer, op.output_buffer(), t, Some(&update));
    device.run(op.program(), &launches, 1)?;
    let expected: Vec<f64> = (0..q.len())
        .map(|i| {
            a * y0[i].as_f64()
                + c * reference[i].as_f64()
                + c1 * x1[i].as_f64()
                + c2 * x2[i].as_f64()
                + c3 * q[i].as_f64()
        })
        .collect();
    let got: Vec<f64> = op.read_state(device, y)?.iter().map(|v| v.as_f64()).collect();
    let kept = relative_l2(&op.download_output(device)?, reference);
    Ok(worst(kept, relative_l2(&got, &expected)))
}

/// The device's count of inadmissible element means (`ModalDeviceOperator::inadmissible_means`) on `q` and on a
/// copy with every seventh element's density mean negated: 0 when it equals the CPU's count on both (or the law
/// declares no admissibility on either side), else NaN. The operator's state buffer holds `q` again after.
fn verify_mean_check<L: ConservationLaw, T: Real>(
    device: &mut dyn Device,
    op: &ModalDeviceOperator<T>,
    cpu: &ModalOperator2d<L, T>,
    q: &[T],
) -> Result<f64, DeviceOperatorError> {
    let (nv, nm) = (L::NVARS, cpu.element().nmodes);
    let mut bad = q.to_vec();
    for k in (3..cpu.num_elements()).step_by(7) {
        bad[k * nv * nm] = -bad[k * nv * nm];
    }
    let mut agree = true;
    for state in [q, &bad[..]] {
        op.write_state(device, op.state_buffer(), state)?;
        let (count, _) = op.inadmissible_means(device, op.state_buffer())?;
        agree &= count == cpu.inadmissible_means(state);
    }
    op.write_state(device, op.state_buffer(), q)?;
    Ok(if agree { 0.0 } else { f64::NAN })
}
