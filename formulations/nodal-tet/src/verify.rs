//! Verification of the tetrahedral kernels against the CPU operator: every volume kernel (with a reference
//! surface kernel), every surface kernel (with a reference volume kernel) and every AB3 update kernel (with and
//! without the trace extraction), on a sheared box with random per-element materials (jumps across every face),
//! every boundary condition of the law on some side, a random state, and outputs poisoned with NaN before each
//! launch.

use crate::cpu::NodalOperator3d;
use crate::device::TetDeviceOperator;
use crate::{GemmEngine, Strategy, TetRole, TetVariant};
use dg_codegen::Target;
use dg_core::law::ConservationLaw;
use dg_core::mesh3d::{box_mesh, BoxSpec, CubeSplit, BOX_TAGS};
use dg_core::space3d::DgSpace3d;
use dg_core::Real;
use dg_ir::LawIr;
use dg_runtime::backend::{Device, Step};
use dg_runtime::cpu::BoundaryBinding;
use dg_runtime::step_system::StepOperator;
use dg_runtime::verify::{random_state, relative_l2, worst, VerifyOutcome};
use dg_runtime::DeviceOperatorError;
use rand::{Rng, SeedableRng};
use std::collections::HashMap;

/// Hexahedra per direction of the verification box, five tetrahedra each: 945 tetrahedra, more than three blocks
/// of the widest element kernel (256 elements), 59 of the largest node block (16), and odd, so no multiple of any
/// block or padding.
pub const VERIFICATION_CELLS: [usize; 3] = [9, 7, 3];

/// The verification mesh: a box of [`VERIFICATION_CELLS`] five-tetrahedra hexahedra, sheared so that no metric
/// term vanishes.
pub fn verification_space(order: usize) -> Result<DgSpace3d, dg_core::space::SpaceError> {
    let spec = BoxSpec {
        lower: [0.0; 3],
        upper: [1.0, 1.0, 0.6],
        cells: VERIFICATION_CELLS,
        split: CubeSplit::Five,
        periodic: [false; 3],
    };
    let mut mesh = box_mesh(&spec)?;
    for v in &mut mesh.vertices {
        let [x, y, z] = *v;
        *v = [x + 0.3 * y - 0.1 * z, 0.9 * y + 0.2 * z, z + 0.15 * x];
    }
    DgSpace3d::new(mesh, order)
}

/// Every side of the box bound to one of the law's conditions in turn.
pub fn every_condition<L: ConservationLaw>(law: &L) -> HashMap<String, String> {
    let names = law.boundary_names();
    BOX_TAGS.iter().enumerate().map(|(i, t)| (t.to_string(), names[i % names.len()].to_string())).collect()
}

/// The verification box at `order` with every side bound to one of the law's conditions, and random materials in
/// [0.5, 2] drawn with `seed`, rounded to `T` first so that the f64 reference sees exactly the kernels' inputs.
fn verification_problem<L: ConservationLaw, T: Real>(
    law: &L,
    order: usize,
    seed: u64,
) -> Result<(DgSpace3d, BoundaryBinding, Vec<f64>), DeviceOperatorError> {
    let space = verification_space(order).map_err(|e| DeviceOperatorError::Precision(e.to_string()))?;
    let binding = BoundaryBinding::for_law_on_tets(law, &space, &every_condition(law))
        .map_err(|e| DeviceOperatorError::Precision(e.to_string()))?;
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let round = |v: f64| T::from_f64(v).as_f64();
    let materials = (0..space.num_elements() * L::NMATERIALS).map(|_| round(rng.random_range(0.5..2.0))).collect();
    Ok((space, binding, materials))
}

/// What the program offers, as the variants to check: each volume kernel with the reference surface, each
/// surface kernel with the reference volume, and the updates.
fn kernels_to_check(
    roles: &[TetRole],
    (gemm, mma_lift, mma): (bool, bool, bool),
) -> (Vec<Strategy>, Vec<Strategy>, Vec<(usize, bool)>) {
    let mut volume = Vec::new();
    let mut surface = Vec::new();
    let mut updates = Vec::new();
    for role in roles {
        match *role {
            TetRole::VolumeNode { kb } => volume.push(Strategy::Node { volume: kb, surface: 1 }),
            TetRole::VolumeElement { width } => volume.push(Strategy::Element { width }),
            TetRole::SurfaceNode { kb } => surface.push(Strategy::Node { volume: 1, surface: kb }),
            TetRole::SurfaceElement { width } => surface.push(Strategy::Element { width }),
            TetRole::UpdateAb3 { ku, traces } => updates.push((ku, traces)),
            _ => {}
        }
    }
    if gemm {
        volume.push(Strategy::blas_gemm(false));
        surface.push(Strategy::blas_gemm(false));
    }
    // the tensor-core lift is the surface's product of both engines; the volume's are all three's
    if mma {
        volume.push(Strategy::Gemm { merged: false, engine: GemmEngine::Mma });
    }
    if mma_lift {
        surface.push(Strategy::Gemm { merged: false, engine: GemmEngine::MmaLift });
    }
    (volume, surface, updates)
}

/// Verifies every tetrahedral kernel of `law` at `order` in precision `T`. Kernels the device cannot hold are
/// reported as rejected.
pub fn verify_tet_kernels<L: ConservationLaw + Clone, T: Real>(
    device: &mut dyn Device,
    target: Target,
    law: &L,
    ir: &LawIr,
    order: usize,
) -> Result<Vec<VerifyOutcome>, DeviceOperatorError> {
    let (space, binding, materials) = verification_problem::<L, T>(law, order, 7 + order as u64)?;
    let k = space.num_elements();
    let np = space.element.np;
    let state: Vec<T> = random_state::<T>(law.variable_names(), np, k, 31 + order as u64);
    let state64: Vec<f64> = state.iter().map(|v| v.as_f64()).collect();
    let cpu = NodalOperator3d::<L, f64>::new(law.clone(), &space, &binding, &materials);
    let mut reference = vec![0.0; state64.len()];
    cpu.apply(&state64, 0.25, &mut reference);
    let reference: Vec<T> = reference.iter().map(|&v| T::from_f64(v)).collect();

    let params = law.param_values();
    let op = TetDeviceOperator::<T>::new(
        device,
        target,
        (ir, &params, law.numerical_flux_name()),
        &space,
        &binding,
        &materials,
    )?;
    let roles: Vec<TetRole> = op.program().kernels.iter().map(|k| k.role).collect();
    let (volumes, surfaces, updates) = kernels_to_check(&roles, (op.has_gemm(), op.has_mma_lift(), op.has_mma()));
    let precision = dg_runtime::formulation::precision_of::<T>();
    let variant = |strategy| TetVariant { strategy, update: 1, precision };
    let reference_strategy = Strategy::Node { volume: 1, surface: 1 };
    let mut outcomes: Vec<VerifyOutcome> = op
        .program()
        .rejected
        .iter()
        .map(|(name, why)| VerifyOutcome::rejected(format!("{name} N={order} {}", T::NAME), why.clone()))
        .collect();
    op.write_state(device, op.buffers.q, &state)?;
    let mut check_rhs = |label: String, vol: Strategy, surf: Strategy| {
        let rhs = op.buffers.rhs[0];
        let result = (|| -> Result<f64, DeviceOperatorError> {
            let steps = rhs_with_traces_poisoned(device, &op, &variant(vol), &variant(surf), 0.25)?;
            op.fill_state(device, rhs, T::from_f64(f64::NAN))?;
            op.run(device, &steps, 1)?;
            Ok(relative_l2(&op.read_state(device, rhs)?, &reference))
        })();
        outcomes.push(VerifyOutcome::of::<T>(format!("{label} N={order} {}", T::NAME), result));
    };
    for vol in &volumes {
        check_rhs(format!("volume {}", strategy_label(vol, true)), *vol, reference_strategy);
    }
    for surf in &surfaces {
        check_rhs(format!("surface {}", strategy_label(surf, false)), reference_strategy, *surf);
    }
    // AB3 updates: random levels, expected q and traces computed here
    let levels: Vec<Vec<T>> = (0..3).map(|s| random_state::<T>(law.variable_names(), np, k, 90 + s)).collect();
    let dt = 0.01;
    // the state after an AB3 update from the newest right-hand side `r0` and the two older random levels
    let updated_state = |r0: &dyn Fn(usize) -> f64| -> Vec<T> {
        (0..state.len())
            .map(|g| {
                let r = |s: usize| levels[s][g].as_f64();
                T::from_f64(state64[g] + dt * (23.0 / 12.0 * r0(g) - 16.0 / 12.0 * r(1) + 5.0 / 12.0 * r(2)))
            })
            .collect()
    };
    let expected = updated_state(&|g| levels[0][g].as_f64());
    let nface = op.program().nface;
    let fmask = space.element.face_node_indices();
    let nv = L::NVARS;
    let expected_traces: Vec<T> = (0..k * nv * nface).map(|g| expected[(g / nface) * np + fmask[g % nface]]).collect();
    for (ku, traces) in updates {
        let result = (|| -> Result<f64, DeviceOperatorError> {
            op.write_state(device, op.buffers.q, &state)?;
            for (s, level) in levels.iter().enumerate() {
                op.write_state(device, op.buffers.rhs[s], level)?;
            }
            device
                .upload(op.buffers.qf, dg_runtime::backend::as_bytes(&vec![T::from_f64(f64::NAN); k * nv * nface]))?;
            let role = TetRole::UpdateAb3 { ku, traces };
            let step = op.update_step_of(&variant(reference_strategy), role, op.buffers.rhs, dt)?;
            op.run(device, &[step], 1)?;
            let q = relative_l2(&op.read_state(device, op.buffers.q)?, &expected);
            Ok(if traces { worst(q, relative_l2(&op.read_traces(device)?, &expected_traces)) } else { q })
        })();
        outcomes.push(VerifyOutcome::of::<T>(format!("{} N={order} {}", update_label(ku, traces), T::NAME), result));
    }
    // the tensor-core lift that makes the AB3 update: one whole step from the state (the right-hand side into r0,
    // poisoned with NaN first) against the CPU operator's right-hand side and the update made from it here
    if op.has_mma_ab3() {
        let fused = TetVariant {
            strategy: Strategy::Gemm { merged: true, engine: GemmEngine::MmaAb3 },
            ..variant(reference_strategy)
        };
        let expected = updated_state(&|g| reference[g].as_f64());
        let result = (|| -> Result<f64, DeviceOperatorError> {
            op.write_state(device, op.buffers.q, &state)?;
            for s in 1..3 {
                op.write_state(device, op.buffers.rhs[s], &levels[s])?;
            }
            op.fill_state(device, op.buffers.rhs[0], T::from_f64(f64::NAN))?;
            let steps = op.ab3_steps(&fused, op.buffers.rhs, 0.25, dt)?;
            op.run(device, &steps, 1)?;
            let q = relative_l2(&op.read_state(device, op.buffers.q)?, &expected);
            Ok(worst(q, relative_l2(&op.read_state(device, op.buffers.rhs[0])?, &reference)))
        })();
        outcomes.push(VerifyOutcome::of::<T>(format!("{} N={order} {}", update_label_of(&fused), T::NAME), result));
    }
    Ok(outcomes)
}

/// Poisons the traces with NaN unless `surf`'s surface reads them (after a trace extraction): a surface that
/// should read the state but reads stale traces then fails.
fn poison_unread_traces<T: Real>(
    device: &mut dyn Device,
    op: &TetDeviceOperator<T>,
    surf: &TetVariant,
) -> Result<(), DeviceOperatorError> {
    if !surf.strategy.reads_traces() {
        let n = op.num_elements() * op.program().nvars * op.program().nface;
        device.upload(op.buffers.qf, dg_runtime::backend::as_bytes(&vec![T::from_f64(f64::NAN); n]))?;
    }
    Ok(())
}

/// The launches of a right-hand side of the operator's state with the volume kernels of `vol` and the surface
/// kernels of `surf` (the trace extraction first when the surface reads traces), the traces poisoned otherwise.
fn rhs_with_traces_poisoned<T: Real>(
    device: &mut dyn Device,
    op: &TetDeviceOperator<T>,
    vol: &TetVariant,
    surf: &TetVariant,
    t: f64,
) -> Result<Vec<Step>, DeviceOperatorError> {
    poison_unread_traces(device, op, surf)?;
    let q = op.buffers.q;
    let mut steps = op.trace_steps_for(surf, q)?;
    steps.extend(op.volume_steps(vol, q, op.buffers.rhs[0])?);
    steps.extend(op.surface_steps(surf, q, op.buffers.rhs[0], t)?);
    steps.extend(op.source_steps(q, op.buffers.rhs[0], t));
    Ok(steps)
}

/// How [`verify_tet_kernels`] reports the AB3 update kernel with `ku` elements per block, writing traces or not.
fn update_label(ku: usize, traces: bool) -> String {
    format!("update ab3{} ku{ku}", if traces { "+traces" } else { "" })
}

/// How [`verify_tet_kernels`] reports the AB3 update `variant` makes: its update kernel, or the tensor-core lift
/// that makes the update.
fn update_label_of(variant: &TetVariant) -> String {
    if variant.strategy.updates_in_lift() {
        "update ab3 in mma lift".into()
    } else {
        update_label(variant.update, variant.strategy.reads_traces())
    }
}

fn strategy_label(s: &Strategy, volume: bool) -> String {
    match *s {
        Strategy::Node { volume: v, surface: w } => format!("node kb{}", if volume { v } else { w }),
        Strategy::Element { width } => format!("elem w{width}"),
        Strategy::Gemm { .. } => gemm_label(s, volume).into(),
    }
}

/// The GEMM strategy's volume or surface products' name: "gemm mma" where that term's products run on the tensor
/// cores.
fn gemm_label(s: &Strategy, volume: bool) -> &'static str {
    match (s, volume) {
        (Strategy::Gemm { engine: GemmEngine::Mma, .. }, _) => "gemm mma",
        (Strategy::Gemm { engine: GemmEngine::MmaLift, .. }, false) => "gemm mma",
        _ => "gemm",
    }
}

/// The CPU operator's right-hand side of `state` (in f64, rounded to `T`).
pub fn cpu_rhs<L: ConservationLaw + Clone, T: Real>(
    law: &L,
    space: &DgSpace3d,
    binding: &BoundaryBinding,
    materials: &[f64],
    state: &[T],
    t: f64,
) -> Vec<T> {
    let state64: Vec<f64> = state.iter().map(|v| v.as_f64()).collect();
    let cpu = NodalOperator3d::<L, f64>::new(law.clone(), space, binding, materials);
    let mut out = vec![f64::NAN; state64.len()];
    cpu.apply(&state64, t, &mut out);
    out.iter().map(|&v| T::from_f64(v)).collect()
}

/// The names under which [`verify_tet_kernels`] reports the kernels `variant` uses (volume, surface, update).
pub fn kernel_labels(variant: &TetVariant, order: usize, real: &str) -> Vec<String> {
    let mut labels = match variant.strategy {
        Strategy::Node { volume, surface } => {
            vec![format!("volume node kb{volume}"), format!("surface node kb{surface}")]
        }
        Strategy::Element { width } => vec![format!("volume elem w{width}"), format!("surface elem w{width}")],
        // the merged kernel's two halves are these two kernels; it is checked with the whole right-hand side
        Strategy::Gemm { .. } => {
            let s = &variant.strategy;
            vec![format!("volume {}", gemm_label(s, true)), format!("surface {}", gemm_label(s, false))]
        }
    };
    labels.push(update_label_of(variant));
    labels.into_iter().map(|l| format!("{l} N={order} {real}")).collect()
}

/// A strategy passes when every kernel it uses passed on the verification mesh (`kernel_checks`) and its
/// right-hand side as a run launches it ([`TetDeviceOperator::rhs_steps`]) on the operator's mesh matches
/// `reference`, the output (and traces it does not read) poisoned with NaN before the launch.
pub fn check_strategy<T: Real>(
    device: &mut dyn Device,
    op: &TetDeviceOperator<T>,
    variant: &TetVariant,
    kernel_checks: &[VerifyOutcome],
    reference: &[T],
    order: usize,
) -> VerifyOutcome {
    let name = variant.to_string();
    let labels = kernel_labels(variant, order, T::NAME);
    for label in &labels {
        match kernel_checks.iter().find(|c| c.variant == *label) {
            Some(c) if c.passed => {}
            Some(c) => {
                let why = format!(
                    "kernel {label} failed verification: {}",
                    c.error.clone().unwrap_or_else(|| format!("{:e}", c.relative_error))
                );
                return VerifyOutcome::of::<T>(name, Err(DeviceOperatorError::Precision(why)));
            }
            None => {
                let why = format!("kernel {label} was not verified");
                return VerifyOutcome::of::<T>(name, Err(DeviceOperatorError::Precision(why)));
            }
        }
    }
    let rhs = op.buffers.rhs[0];
    let result = (|| -> Result<f64, DeviceOperatorError> {
        // the launches a run makes (for GEMM: the node-local and face kernels merged)
        poison_unread_traces(device, op, variant)?;
        let steps = op.rhs_steps(variant, op.buffers.q, rhs, 0.0)?;
        op.fill_state(device, rhs, T::from_f64(f64::NAN))?;
        op.run(device, &steps, 1)?;
        Ok(relative_l2(&op.read_state(device, rhs)?, reference))
    })();
    VerifyOutcome::of::<T>(name, result)
}

/// Verifies tetrahedral variants of `law` at `order`: every kernel on the verification mesh
/// ([`verify_tet_kernels`]), then each variant's whole right-hand side there against the CPU operator, its output
/// poisoned with NaN; a variant passes when all its kernels and its right-hand side do.
pub fn verify_tet_variants<L: ConservationLaw + Clone, T: Real>(
    device: &mut dyn Device,
    target: Target,
    law: &L,
    ir: &LawIr,
    order: usize,
    variants: &[TetVariant],
) -> Result<Vec<VerifyOutcome>, DeviceOperatorError> {
    let kernel_checks = verify_tet_kernels::<L, T>(device, target, law, ir, order)?;
    device.free_buffers();
    let (space, binding, materials) = verification_problem::<L, T>(law, order, 41 + order as u64)?;
    let k = space.num_elements();
    let state: Vec<T> = random_state::<T>(law.variable_names(), space.element.np, k, 43 + order as u64);
    let reference = cpu_rhs(law, &space, &binding, &materials, &state, 0.0);
    let params = law.param_values();
    let result = (|| {
        let op = TetDeviceOperator::<T>::new(
            device,
            target,
            (ir, &params, law.numerical_flux_name()),
            &space,
            &binding,
            &materials,
        )?;
        op.write_state(device, op.buffers.q, &state)?;
        // the right-hand side does not depend on the update block: one check per strategy, then each variant's
        // update kernel from the kernel checks
        let mut per_strategy: Vec<(Strategy, VerifyOutcome)> = Vec::new();
        let mut out = Vec::with_capacity(variants.len());
        for v in variants {
            // kernels the compiled program refused (registers allow fewer work items than the kernel needs)
            if let Err(DeviceOperatorError::Variant(e)) = op.ab3_steps(v, op.buffers.rhs, 0.0, 1e-9) {
                out.push(VerifyOutcome::rejected(v.to_string(), e.to_string()));
                continue;
            }
            let known = per_strategy.iter().find(|(s, _)| *s == v.strategy).map(|(_, o)| o.clone());
            let rhs = match known {
                Some(o) => o,
                None => {
                    let o = check_strategy(device, &op, v, &kernel_checks, &reference, order);
                    per_strategy.push((v.strategy, o.clone()));
                    o
                }
            };
            let update = format!("{} N={order} {}", update_label_of(v), T::NAME);
            let outcome = match kernel_checks.iter().find(|c| c.variant == update) {
                Some(c) if !c.passed => VerifyOutcome::of::<T>(
                    v.to_string(),
                    Err(DeviceOperatorError::Precision(format!("kernel {update} failed verification"))),
                ),
                None => VerifyOutcome::of::<T>(
                    v.to_string(),
                    Err(DeviceOperatorError::Precision(format!("kernel {update} was not verified"))),
                ),
                Some(_) if rhs.passed => VerifyOutcome::of::<T>(v.to_string(), Ok(rhs.relative_error)),
                Some(_) => VerifyOutcome::of::<T>(
                    v.to_string(),
                    Err(DeviceOperatorError::Precision(rhs.error.clone().unwrap_or_else(|| {
                        format!("right-hand side differs from the CPU operator by {:e}", rhs.relative_error)
                    }))),
                ),
            };
            out.push(outcome);
        }
        Ok(out)
    })();
    device.free_buffers();
    result
}
