//! Verification of the nodal triangle kernels against the CPU operator: the verification mesh (several work
//! groups of every variant, perturbed elements, every boundary condition, random materials), random (not zero)
//! states, outputs poisoned with NaN before each launch, relative L2 difference of the right-hand sides (and of the
//! program's energy kernel against the host's square norm).

use crate::batch::batches;
use crate::cpu::NodalOperator2d;
use crate::device::{DeviceOperator, FoldedStage};
use crate::render::{render_nodal_tri, KernelSource};
use crate::variant::{DeviceLimits, LawShape, Precision, Variant};
use dg_codegen::{LawInput, Target};
use dg_core::law::ConservationLaw;
use dg_core::mesh::{perturb_interior, rectangle, Diagonal, RectangleSpec};
use dg_core::space::DgSpace2d;
use dg_core::Real;
use dg_runtime::backend::{Device, ProgramId};
use dg_runtime::cpu::BoundaryBinding;
use dg_runtime::formulation::FormulationError;
use dg_runtime::verify::{random_state, relative_l2, VerifyOutcome};
use dg_runtime::DeviceOperatorError;
use rand::{Rng, SeedableRng};
use std::collections::HashMap;

/// What the kernels are checked on: a law (with its IR), a space, its boundary binding and per-element materials.
pub struct VerifyProblem<'a, L> {
    /// The law.
    pub law: &'a L,
    /// Its IR.
    pub ir: &'a dg_ir::LawIr,
    /// The space (mesh and order).
    pub space: &'a DgSpace2d,
    /// Tag → boundary condition.
    pub binding: &'a BoundaryBinding,
    /// Per-element materials (`NMATERIALS` each).
    pub materials: &'a [f64],
}

/// Verifies `variant` of the problem's law on its space: the device right-hand side of a random state against
/// the CPU one.
pub fn verify_variant<L: ConservationLaw + Clone, T: Real>(
    device: &mut dyn Device,
    target: Target,
    problem: &VerifyProblem<'_, L>,
    variant: &Variant,
    seed: u64,
) -> VerifyOutcome {
    let VerifyProblem { law, ir, space, binding, materials } = *problem;
    let build = |device: &mut dyn Device| {
        let nflux = law.numerical_flux_name();
        DeviceOperator::<T>::new(device, target, ir, &law.param_values(), nflux, space, binding, materials, variant)
    };
    check_operator::<L, T>(device, problem, variant, seed, build)
}

/// Verifies many variants, compiling them `batch_size` at a time into one program (kernel compilers pay a large
/// fixed cost per program; PoCL most of all). A batch that does not compile is retried variant by variant, so
/// that the failure is pinned on the variants that cause it. `progress` is called after each variant; the
/// outcomes come in the order of `variants`. Each variant that passed is added to `compiled` with the program it
/// ran in (a tuner times exactly the code that was verified, without compiling it again).
pub fn verify_variants<L: ConservationLaw + Clone, T: Real>(
    device: &mut dyn Device,
    target: Target,
    problem: &VerifyProblem<'_, L>,
    variants: &[Variant],
    batch_size: usize,
    progress: &mut dyn FnMut(&VerifyOutcome),
    compiled: &mut Vec<(KernelSource, ProgramId)>,
) -> Vec<VerifyOutcome> {
    let VerifyProblem { law, ir, space, binding, materials } = *problem;
    let params = law.param_values();
    let input = LawInput { ir, params: &params, numerical_flux: law.numerical_flux_name() };
    let limits = dg_runtime::backend::limits_with_blas(device);
    let seed_of = |variant: &Variant| 100 + variants.iter().position(|v| v == variant).unwrap_or(0) as u64;
    let mut outcomes: Vec<Option<VerifyOutcome>> = vec![None; variants.len()];
    let mut sources = Vec::new();
    for (i, variant) in variants.iter().enumerate() {
        let rendered =
            variant.check(space.element.order, &LawShape::of(ir), &limits).map_err(DeviceOperatorError::from).and_then(
                |()| render_nodal_tri(&input, &space.element, variant, target).map_err(DeviceOperatorError::from),
            );
        match rendered {
            Ok(source) => sources.push(source),
            Err(e) => {
                let outcome = failed(variant, e);
                progress(&outcome);
                outcomes[i] = Some(outcome);
            }
        }
    }
    let batches = batches(sources, batch_size);
    device.prepare(&batches.iter().map(|b| b.source.clone()).collect::<Vec<_>>());
    for batch in batches {
        let program = device.compile(&batch.source, &batch.kernels);
        for member in batch.members {
            let variant = member.variant;
            let seed = seed_of(&variant);
            let outcome = match program {
                Ok(program) => {
                    let kept = member.clone();
                    let build = |device: &mut dyn Device| {
                        DeviceOperator::<T>::with_program(device, member, program, space, binding, materials)
                    };
                    let outcome = check_operator::<L, T>(device, problem, &variant, seed, build);
                    if outcome.passed {
                        compiled.push((kept, program));
                    }
                    outcome
                }
                Err(_) => verify_variant::<L, T>(device, target, problem, &variant, seed),
            };
            progress(&outcome);
            // (the first slot of this variant still open: a variant listed twice fills both)
            if let Some(i) = variants.iter().zip(&outcomes).position(|(v, o)| *v == variant && o.is_none()) {
                outcomes[i] = Some(outcome);
            }
        }
    }
    outcomes.into_iter().zip(variants).map(|(o, v)| o.unwrap_or_else(|| failed(v, missing()))).collect()
}

fn missing() -> DeviceOperatorError {
    DeviceOperatorError::Precision("the variant was not verified (listed twice?)".into())
}

fn failed(variant: &Variant, e: DeviceOperatorError) -> VerifyOutcome {
    VerifyOutcome::of::<f32>(variant.to_string(), Err(e))
}

/// Builds the operator with `build`, applies it to a random state with its output poisoned, and compares
/// with the CPU operator; then again in two launches over element ranges split at a multiple of the kernels'
/// element quantum (how a rank computes its interior while its halo travels); then one low-storage stage as a
/// run steps it ([`DeviceOperator::apply_stage`], folded into the store where the variant folds) from a random
/// register, the new state poisoned, against the register and state computed from the CPU right-hand side.
/// The largest difference counts.
fn check_operator<L: ConservationLaw + Clone, T: Real>(
    device: &mut dyn Device,
    problem: &VerifyProblem<'_, L>,
    variant: &Variant,
    seed: u64,
    build: impl FnOnce(&mut dyn Device) -> Result<DeviceOperator<T>, DeviceOperatorError>,
) -> VerifyOutcome {
    let VerifyProblem { law, space, binding, materials, .. } = *problem;
    let run = |device: &mut dyn Device| -> Result<f64, DeviceOperatorError> {
        let op = build(device)?;
        let cpu = NodalOperator2d::<L, T>::with_materials(law.clone(), space, binding, materials);
        let q = random_state::<T>(law.variable_names(), space.element.np, space.num_elements(), seed);
        let mut reference = vec![T::nan(); q.len()];
        cpu.apply(&q, 0.3, &mut reference);
        op.upload_state(device, &q)?;
        op.poison_rhs(device)?;
        op.apply(device, 0.3, 1)?;
        let whole = relative_l2(&op.download_rhs(device)?, &reference);
        let k = op.num_elements();
        let quantum = op.element_quantum();
        let split = ((k / 2) / quantum * quantum).max(quantum).min(k);
        op.poison_rhs(device)?;
        op.apply_over(device, 0.3, 0..split)?;
        op.apply_over(device, 0.3, split..k)?;
        let in_two = relative_l2(&op.download_rhs(device)?, &reference);
        let stage = check_stage(device, &op, &q, &reference, seed)?;
        // the program's energy kernel (the runs' growth check) against the host's square norm of the same state
        let state = op.new_state(device)?;
        op.write_state(device, state, &q)?;
        let (on_device, _) = op.square_norm(device, state)?;
        let on_host = space.square_norm(L::NVARS, &q);
        let energy = (on_device - on_host).abs() / on_host.abs();
        Ok([in_two, stage, energy].into_iter().fold(whole, dg_core::max_or_nan))
    };
    let outcome = run(device);
    device.free_buffers();
    VerifyOutcome::of::<T>(variant.to_string(), outcome)
}

/// The larger relative difference of the register and the new state after one low-storage stage of the
/// uploaded state `q` (right-hand side `reference` at t = 0.3, from the CPU) with a random register, the new state
/// poisoned with NaN before the launch. Every coefficient is nonzero and no two are equal, so that a store that
/// drops or swaps a term shows.
fn check_stage<T: Real>(
    device: &mut dyn Device,
    op: &DeviceOperator<T>,
    q: &[T],
    reference: &[T],
    seed: u64,
) -> Result<f64, DeviceOperatorError> {
    let (a, c, b) = (-0.4, 0.7, 0.3);
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed + 1_000);
    let r0: Vec<T> = (0..q.len()).map(|_| T::from_f64(rng.random_range(-1.0..1.0))).collect();
    let (r, z) = (op.new_state(device)?, op.new_state(device)?);
    op.write_state(device, r, &r0)?;
    op.write_state(device, z, &vec![T::nan(); q.len()])?;
    op.apply_stage(device, 0.3, &FoldedStage { r, z, a, c, b }, 1)?;
    let r_expected: Vec<T> =
        r0.iter().zip(reference).map(|(r, l)| T::from_f64(a * r.as_f64() + c * l.as_f64())).collect();
    let z_expected: Vec<T> = q.iter().zip(&r_expected).map(|(q, r)| T::from_f64(q.as_f64() + b * r.as_f64())).collect();
    let r_error = relative_l2(&op.read_state(device, r)?, &r_expected);
    let z_error = relative_l2(&op.read_state(device, z)?, &z_expected);
    Ok(dg_core::max_or_nan(r_error, z_error))
}

/// Elements per side of the verification mesh: 19 × 23 squares, 874 triangles — more than three work groups of
/// the largest element group (128 elements, two in sequence), every `seq` pass runs, and 874 = 2·19·23 is no
/// multiple of any microblock (3, 4 or 5 elements), work group or padding (powers of two from 4).
pub const VERIFICATION_CELLS: (usize, usize) = (19, 23);

/// A perturbed mesh whose four sides use the law's boundary conditions in turn (periodic when the law has none),
/// and random materials (ρ, c, … in [0.5, 2]) so that coefficients jump across faces.
pub struct VerificationSetup {
    /// The space.
    pub space: DgSpace2d,
    /// Tag → condition.
    pub binding: BoundaryBinding,
    /// Per-element materials.
    pub materials: Vec<f64>,
}

impl VerificationSetup {
    /// The setup for `law` at `order` on the verification mesh ([`VERIFICATION_CELLS`]).
    pub fn new<L: ConservationLaw>(law: &L, order: usize) -> Result<Self, FormulationError> {
        let problem = |e: &dyn std::fmt::Display| FormulationError::Problem(format!("verification mesh: {e}"));
        let (nx, ny) = VERIFICATION_CELLS;
        let conditions = law.boundary_names();
        let periodic = conditions.is_empty();
        let mut mesh = rectangle(&RectangleSpec {
            diagonal: Diagonal::Alternating,
            periodic_x: periodic,
            periodic_y: periodic,
            ny,
            ..RectangleSpec::unit_square(nx)
        })
        .map_err(|e| problem(&e))?;
        perturb_interior(&mut mesh, 0.2, 17);
        let space = DgSpace2d::new(mesh, order).map_err(|e| problem(&e))?;
        let explicit: HashMap<String, String> = space
            .connectivity
            .tag_names
            .iter()
            .enumerate()
            .filter(|_| !conditions.is_empty())
            .map(|(i, tag)| (tag.clone(), conditions[i % conditions.len()].to_string()))
            .collect();
        let binding = BoundaryBinding::for_law(law, &space, &explicit).map_err(|e| problem(&e))?;
        let mut rng = rand::rngs::StdRng::seed_from_u64(5);
        let materials = (0..space.num_elements() * L::NMATERIALS).map(|_| rng.random_range(0.5..2.0)).collect();
        Ok(Self { space, binding, materials })
    }
}

impl VerificationSetup {
    /// The verification problem of `law` (with its IR `ir`) on this setup.
    pub fn problem<'a, L>(&'a self, law: &'a L, ir: &'a dg_ir::LawIr) -> VerifyProblem<'a, L> {
        VerifyProblem { law, ir, space: &self.space, binding: &self.binding, materials: &self.materials }
    }
}

/// The variants of one precision that fit the device, and the rejected ones with their reasons.
pub fn valid_variants(
    order: usize,
    law: &LawShape,
    precision: Precision,
    limits: &DeviceLimits,
) -> (Vec<Variant>, Vec<(Variant, String)>) {
    let mut valid = Vec::new();
    let mut rejected = Vec::new();
    for v in Variant::all(precision) {
        match v.check(order, law, limits) {
            Ok(()) => valid.push(v),
            Err(e) => rejected.push((v, e.to_string())),
        }
    }
    (valid, rejected)
}

/// Verifies every given variant; `progress` is called after each. Variants are compiled in batches: large ones
/// on a CPU OpenCL device (PoCL pays most of its compile time per program), smaller ones on GPU OpenCL, and
/// small ones on CUDA so that NVRTC compiles many batches in parallel.
#[allow(clippy::too_many_arguments)]
pub fn verify_all<L: ConservationLaw + Clone, T: Real>(
    device: &mut dyn Device,
    target: Target,
    law: &L,
    ir: &dg_ir::LawIr,
    setup: &VerificationSetup,
    variants: &[Variant],
    progress: &mut dyn FnMut(&VerifyOutcome),
    compiled: &mut Vec<(KernelSource, ProgramId)>,
) -> Vec<VerifyOutcome> {
    let fingerprint = device.fingerprint();
    let batch_size = match (fingerprint.backend.as_str(), fingerprint.is_gpu) {
        ("opencl", false) => 64,
        ("opencl", true) => 16,
        // NVRTC compiles programs in parallel (`Device::prepare`), one per core: one variant per program keeps
        // every core busy (80 programs of N = 7 compile in less wall time than 20 of four variants each)
        _ => 1,
    };
    let problem = setup.problem(law, ir);
    verify_variants::<L, T>(device, target, &problem, variants, batch_size, progress, compiled)
}

/// [`verify_all`] of `variants` of `law` at `order` on the verification mesh ([`VerificationSetup`]), without
/// progress reports and without keeping the programs: for tests and one-off checks.
pub fn verify_at_order<L: ConservationLaw + Clone, T: Real>(
    device: &mut dyn Device,
    target: Target,
    law: &L,
    order: usize,
    variants: &[Variant],
) -> Result<Vec<VerifyOutcome>, FormulationError> {
    let ir = dg_runtime::formulation::law_ir(law)?;
    let setup = VerificationSetup::new(law, order)?;
    Ok(verify_all::<L, T>(device, target, law, &ir, &setup, variants, &mut |_| {}, &mut Vec::new()))
}
