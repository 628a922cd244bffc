//! Verification of the hexahedral variants against the CPU operator: each variant's whole right-hand side on a
//! box whose right half is made of general trilinear cells (so every specialised kernel runs: box and trilinear
//! cell zones, interior faces and every boundary condition of the law on some side, for both classes), random
//! per-cell materials, a random state, and the output and the face-flux scratch poisoned with NaN before each
//! launch; each variant also over two cell ranges in turn (as a rank's interior and halo-adjacent cells run).

use crate::cpu::HexOperator;
use crate::device::HexDeviceOperator;
use crate::render::{Geometry, HexProgram, HexRole};
use crate::variant::{HexVariant, Layout, Surface, CELLS_PER_GROUP};
use dg_codegen::Target;
use dg_core::hexmesh::{hex_box_mesh, HexBoxSpec};
use dg_core::law::ConservationLaw;
use dg_core::mesh3d::BOX_TAGS;
use dg_core::space_hex::HexSpace;
use dg_core::Real;
use dg_ir::LawIr;
use dg_runtime::backend::Device;
use dg_runtime::cpu::BoundaryBinding;
use dg_runtime::step_system::StepOperator;
use dg_runtime::verify::{random_state, relative_l2, worst, VerifyOutcome};
use dg_runtime::DeviceOperatorError;
use rand::{Rng, SeedableRng};
use std::collections::HashMap;

/// Cells per direction of the verification box: 189 cells (about half of them boxes), more than two work
/// groups of the widest cell kernel (32 cells) in each zone, and odd, so no multiple of any group size.
pub const VERIFICATION_CELLS: [usize; 3] = [9, 7, 3];

/// The verification mesh at `order`: a box of [`VERIFICATION_CELLS`] whose interior vertices right of the middle
/// are moved at random by up to 15 % of a cell, so the cells there are general trilinear ones and the others
/// axis-aligned boxes.
pub fn verification_space(order: usize) -> Result<HexSpace, dg_core::space::SpaceError> {
    let spec = HexBoxSpec {
        lower: [0.0; 3],
        upper: [1.0, 0.8, 0.6],
        cells: VERIFICATION_CELLS,
        periodic: [false; 3],
        distortion: 0.0,
    };
    let mut mesh = hex_box_mesh(&spec)?;
    let [nx, ny, nz] = VERIFICATION_CELLS;
    let h = [1.0 / nx as f64, 0.8 / ny as f64, 0.6 / nz as f64];
    let mut rng = rand::rngs::StdRng::seed_from_u64(2024);
    for (index, v) in mesh.vertices.iter_mut().enumerate() {
        let (i, j, k) = (index % (nx + 1), (index / (nx + 1)) % (ny + 1), index / ((nx + 1) * (ny + 1)));
        let interior = i > 0 && i < nx && j > 0 && j < ny && k > 0 && k < nz;
        if interior && i > nx / 2 {
            for d in 0..3 {
                v[d] += 0.15 * h[d] * rng.random_range(-1.0..1.0);
            }
        }
    }
    HexSpace::new(mesh, order)
}

/// Every side of the box bound to one of the law's conditions in turn.
pub fn every_condition<L: ConservationLaw>(law: &L) -> HashMap<String, String> {
    let names = law.boundary_names();
    BOX_TAGS.iter().enumerate().map(|(i, t)| (t.to_string(), names[i % names.len()].to_string())).collect()
}

/// The variants a program offers: for each surface, specialised (when every geometry class has its kernels) and
/// generic, at every cells-per-group whose kernels it holds, in both layouts (the program's kernels stand for
/// both: the layout changes only two compiled-in strides).
pub fn program_variants(program: &HexProgram) -> Vec<HexVariant> {
    let has = |role: HexRole| program.kernel(role).is_some();
    let mut out = Vec::new();
    for layout in Layout::ALL {
        for surface in [Surface::Fused, Surface::Split] {
            for specialised in [true, false] {
                let geometries: &[Geometry] =
                    if specialised { &[Geometry::Box, Geometry::Trilinear] } else { &[Geometry::Generic] };
                for cells in CELLS_PER_GROUP {
                    let fused = surface == Surface::Fused;
                    if geometries.iter().all(|&geometry| has(HexRole::Cell { fused, geometry, cells })) {
                        out.push(HexVariant { surface, specialised, cells, layout, precision: program.precision });
                    }
                }
            }
        }
    }
    out
}

/// The problem of a check: space, binding, materials (rounded to `T`) and a random state.
pub struct CheckProblem<T> {
    /// The mesh and basis.
    pub space: HexSpace,
    /// Tags → conditions.
    pub binding: BoundaryBinding,
    /// Per-cell materials.
    pub materials: Vec<f64>,
    /// The state.
    pub state: Vec<T>,
}

/// The verification problem at `order` drawn with `seed`.
pub fn verification_problem<L: ConservationLaw, T: Real>(
    law: &L,
    order: usize,
    seed: u64,
) -> Result<CheckProblem<T>, DeviceOperatorError> {
    let problem = |e: &dyn std::fmt::Display| DeviceOperatorError::Precision(e.to_string());
    let space = verification_space(order).map_err(|e| problem(&e))?;
    let binding = BoundaryBinding::for_law_on_hexes(law, &space, &every_condition(law)).map_err(|e| problem(&e))?;
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let round = |v: f64| T::from_f64(v).as_f64();
    let materials = (0..space.num_elements() * L::NMATERIALS).map(|_| round(rng.random_range(0.5..2.0))).collect();
    let state = random_state::<T>(law.variable_names(), space.element.np, space.num_elements(), seed + 1);
    Ok(CheckProblem { space, binding, materials, state })
}

/// The CPU operator's right-hand side of the problem's state at time `t` (in f64, rounded to `T`).
pub fn cpu_rhs<L: ConservationLaw + Clone, T: Real>(law: &L, p: &CheckProblem<T>, t: f64) -> Vec<T> {
    let state64: Vec<f64> = p.state.iter().map(|v| v.as_f64()).collect();
    let cpu = HexOperator::<L, f64>::new(law.clone(), &p.space, &p.binding, &p.materials);
    let mut out = vec![f64::NAN; state64.len()];
    cpu.apply(&state64, t, &mut out);
    out.iter().map(|&v| T::from_f64(v)).collect()
}

/// The cell where [`check_variant`] splits the mesh in two ranges (a rank's interior and the cells next to its
/// halo run as two such ranges): odd, and not at a zone's end.
pub const SPLIT_CELL: usize = 95;

/// `variant`'s right-hand side of the operator's state (written in `q` beforehand) at time `t` against
/// `reference`: over every cell at once, and over the cells `0..SPLIT_CELL` and then the rest as two launches of
/// their own zones; the output and the face fluxes poisoned with NaN before each. The worse error counts.
pub fn check_variant<T: Real>(
    device: &mut dyn Device,
    op: &HexDeviceOperator<T>,
    variant: &HexVariant,
    reference: &[T],
    t: f64,
) -> VerifyOutcome {
    let result = (|| -> Result<f64, DeviceOperatorError> {
        let whole = op.rhs_steps(variant, op.buffers.q, op.buffers.rhs, t)?;
        let split = SPLIT_CELL.min(op.num_elements());
        let mut ranged = Vec::new();
        for cells in [0..split, split..op.num_elements()] {
            let zones = op.zones_over(device, cells)?;
            ranged.extend(op.rhs_steps_over(variant, op.buffers.q, op.buffers.rhs, t, &zones)?);
        }
        let mut error = 0.0;
        for steps in [whole, ranged] {
            op.fill_state(device, op.buffers.rhs, T::from_f64(f64::NAN))?;
            op.fill_face_flux(device, T::from_f64(f64::NAN))?;
            op.run(device, &steps, 1)?;
            error = worst(error, relative_l2(&op.read_state(device, op.buffers.rhs)?, reference));
        }
        Ok(error)
    })();
    VerifyOutcome::of::<T>(variant.to_string(), result)
}

/// Verifies `variants` of `law` at `order` on the verification problem; kernels the device refused come out as
/// rejected (with the reason), the others pass only within the precision's tolerance of the CPU operator.
pub fn verify_hex_variants<L: ConservationLaw + Clone, T: Real>(
    device: &mut dyn Device,
    target: Target,
    law: &L,
    ir: &LawIr,
    order: usize,
    variants: &[HexVariant],
) -> Result<Vec<VerifyOutcome>, DeviceOperatorError> {
    let problem = verification_problem::<L, T>(law, order, 17 + order as u64)?;
    let t = 0.25;
    let reference = cpu_rhs(law, &problem, t);
    let params = law.param_values();
    let mut outcomes: Vec<Option<VerifyOutcome>> = variants.iter().map(|_| None).collect();
    // an operator (a program compiled for the layout's strides) per layout the variants use
    for layout in Layout::ALL {
        if !variants.iter().any(|v| v.layout == layout) {
            continue;
        }
        let result = (|| -> Result<(), DeviceOperatorError> {
            let op = HexDeviceOperator::<T>::new(
                device,
                target,
                (ir, &params, law.numerical_flux_name()),
                (&problem.space, &problem.binding),
                &problem.materials,
                layout,
            )?;
            op.write_state(device, op.buffers.q, &problem.state)?;
            for (v, outcome) in variants.iter().zip(outcomes.iter_mut()).filter(|(v, _)| v.layout == layout) {
                *outcome = Some(check_variant(device, &op, v, &reference, t));
            }
            Ok(())
        })();
        device.free_buffers();
        result?;
    }
    Ok(variants
        .iter()
        .zip(outcomes)
        .map(|(v, o)| o.unwrap_or_else(|| VerifyOutcome::rejected(v.to_string(), "not checked".into())))
        .collect())
}
