//! Kernel checks the command line runs: the verification mesh, materials and boundary binding of a law, and
//! verification of many variants.

use dg_codegen::variant::{DeviceLimits, LawShape, Precision, Variant};
use dg_codegen::Target;
use dg_core::law::ConservationLaw;
use dg_core::mesh::{perturb_interior, rectangle, Diagonal, RectangleSpec};
use dg_core::space::DgSpace2d;
use dg_core::Real;
use dg_runtime::backend::Device;
use dg_runtime::cpu::BoundaryBinding;
use dg_runtime::verify::{verify_variants, VerifyOutcome, VerifyProblem};
use rand::{Rng, SeedableRng};
use std::collections::HashMap;

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
    pub fn new<L: ConservationLaw>(law: &L, order: usize) -> anyhow::Result<Self> {
        let (nx, ny) = VERIFICATION_CELLS;
        let conditions = law.boundary_names();
        let periodic = conditions.is_empty();
        let mut mesh = rectangle(&RectangleSpec {
            diagonal: Diagonal::Alternating,
            periodic_x: periodic,
            periodic_y: periodic,
            ny,
            ..RectangleSpec::unit_square(nx)
        })?;
        perturb_interior(&mut mesh, 0.2, 17);
        let space = DgSpace2d::new(mesh, order)?;
        let explicit: HashMap<String, String> = space
            .connectivity
            .tag_names
            .iter()
            .enumerate()
            .filter(|_| !conditions.is_empty())
            .map(|(i, tag)| (tag.clone(), conditions[i % conditions.len()].to_string()))
            .collect();
        let binding = BoundaryBinding::for_law(law, &space, &explicit)?;
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
pub fn verify_all<L: ConservationLaw + Clone, T: Real>(
    device: &mut dyn Device,
    target: Target,
    law: &L,
    setup: &VerificationSetup,
    variants: &[Variant],
    progress: &mut dyn FnMut(&VerifyOutcome),
) -> Vec<VerifyOutcome> {
    let ir = law_ir(law);
    let fingerprint = device.fingerprint();
    let batch_size = match (fingerprint.backend.as_str(), fingerprint.is_gpu) {
        ("opencl", false) => 64,
        ("opencl", true) => 16,
        _ => 4,
    };
    let problem = setup.problem(law, &ir);
    verify_variants::<L, T>(device, target, &problem, variants, batch_size, progress)
}

/// The IR of a law from the registry.
pub fn law_ir<L: ConservationLaw>(law: &L) -> dg_ir::LawIr {
    let reg =
        dg_ir::registered_laws().into_iter().find(|r| r.name == law.name()).expect("every dg-laws law is registered");
    (reg.ir)()
}

/// The kernel language of a device.
pub fn target_of(device: &dyn Device) -> Target {
    if device.fingerprint().backend == "cuda" {
        Target::Cuda
    } else {
        Target::OpenCl
    }
}

/// Whether the generated kernels can evaluate `ir`: they compute the flux divergence and the surface term only, so a
/// law with a source term is refused with that reason (its CPU path handles the source; kernels that dropped it
/// would fail verification, but the reason belongs in the message).
pub fn kernel_support(ir: &dg_ir::LawIr) -> anyhow::Result<()> {
    if ir.functions_of(dg_ir::FunctionRole::Source).next().is_some() {
        anyhow::bail!(
            "law `{}` has a source term, which the generated kernels do not evaluate yet; run it on the CPU path \
             (--device cpu)",
            ir.name
        );
    }
    Ok(())
}
