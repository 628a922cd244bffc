//! Cost model of one right-hand-side evaluation: flops from the IR and the operator sizes, and the fewest
//! bytes it must move (state read once, right-hand side written once, geometry and connectivity read once).

use crate::mirror::Mirror;
use crate::variant::{Partition, Variant, VolumeForm};
use dg_ir::LawIr;

/// Flops and bytes of one right-hand-side evaluation on `k` elements.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Cost {
    /// Floating-point operations.
    pub flops: f64,
    /// Minimal bytes moved through device memory.
    pub bytes: f64,
}

/// The cost of the nodal strong form at order `order` for `law` with numerical flux `nflux` on `k` elements,
/// computed the way `variant` computes it (the flops of diff-first differ from those of flux-first).
pub fn rhs_cost(law: &LawIr, nflux: &str, order: usize, k: usize, variant: &Variant) -> Cost {
    let precision = variant.precision;
    let np = dg_core::triangle::num_nodes(order) as f64;
    let nf = 3.0 * (order as f64 + 1.0);
    let nv = law.variables.len() as f64;
    let nmat = law.materials.len() as f64;
    let flux = law.function("flux").map_or(0, |f| f.flops().total) as f64;
    let nflux = law.function(&format!("numerical_flux:{nflux}")).map_or(0, |f| f.flops().total) as f64;
    // flops per entry of a product with the reference derivatives: Dr's and Ds's (2 each), or the mirror tiles' one
    // folded matrix (`crate::mirror`: np·np nonzero entries per product, 2 flops each)
    let entry = match variant.partition {
        Partition::Mirror { .. } | Partition::MirrorMma { .. } => 2.0,
        _ => 4.0,
    };
    let volume = match (variant.partition, variant.form) {
        // the mixed form (tiles, mirror tiles, elements): the products of the flux-first variables' contravariant
        // fluxes (6 flops per node; the mirror tiles' folded inputs as many) and of the shared fields, then each other
        // variable's divergence from the gradients (4 flops per gradient it reads, per node)
        (
            Partition::Tile { .. } | Partition::Mirror { .. } | Partition::MirrorMma { .. } | Partition::Element,
            VolumeForm::Mixed,
        ) => match law.divergence_plan() {
            Some(plan) => {
                let reads: usize = plan.from_gradients.iter().map(|(_, r)| r.len()).sum();
                np * flux
                    + np * (entry * np * plan.products() as f64
                        + 6.0 * plan.flux_first.len() as f64
                        + 4.0 * reads as f64)
            }
            None => np * flux + nv * np * (entry * np + 6.0),
        },
        // the two contravariant fluxes per node and variable (6 flops), then the products
        (
            Partition::Tile { .. }
            | Partition::Mirror { .. }
            | Partition::Mma
            | Partition::Mma16
            | Partition::Mma16Regs
            | Partition::MirrorMma { .. }
            | Partition::Gemm,
            _,
        ) => np * flux + nv * np * (entry * np + 6.0),
        // flux at each node, 4 mat-vecs (2 flops per entry) per variable, 7 flops to combine
        (_, VolumeForm::FluxFirst) => np * flux + nv * np * (8.0 * np + 7.0),
        // 2 mat-vecs per variable, x and y derivatives (6 flops), the x flux of ∂q/∂x and the y flux of ∂q/∂y
        // (the compiler drops the unused halves, so one flux's worth), 1 add
        (_, VolumeForm::DiffFirst | VolumeForm::Mixed) => np * flux + nv * np * (4.0 * np + 7.0),
    };
    // surface: numerical flux and own flux per face node, n·F and scaling (5 flops per variable), lift
    let lift = match variant.partition {
        // the folded lift: symmetric rows times the face representatives' sums, antisymmetric rows times the pairs'
        // differences (2 flops per entry), and the sum and difference of each face representative's jumps
        Partition::Mirror { .. } | Partition::MirrorMma { .. } => {
            let (reps, face_reps) = (Mirror::reps_at(order) as f64, Mirror::face_reps_at(order) as f64);
            let (pairs, face_pairs) = (np - reps, face_reps - ((order + 1) % 2) as f64);
            nv * (2.0 * (reps * face_reps + pairs * face_pairs) + 2.0 * face_reps)
        }
        _ => nv * np * 2.0 * nf,
    };
    let surface = nf * (nflux + flux + 5.0 * nv) + lift;
    // a source term at every node, added to each variable (its coordinates and state are not counted again: the
    // state is the one read above, and the minimum moves no coordinates)
    let source =
        law.functions_of(dg_ir::FunctionRole::Source).next().map_or(0.0, |f| np * (f.flops().total as f64 + nv));
    let b = precision.bytes() as f64;
    // the faces: one int32 per face, an interior face's neighbour element, face and orientation packed or a boundary
    // face's condition (the links the merged element and tensor-core kernels read, `crate::render::uses_links`);
    // vmapP's index per face node, which the other kernels read, is more than an operator must move, as is a face
    // node's own index (vmapM = k·Np + fmask, which the kernels take from the face mask), so the minimum counts
    // neither, nor the boundary codes and neighbour indices the links carry
    let per_element = 2.0 * nv * np * b // state in, rhs out
        + 4.0 * b + 9.0 * b + nmat * b // metric terms, face normals and Fscale, material
        + 3.0 * 4.0; // the faces' links
    Cost { flops: k as f64 * (volume + surface + source), bytes: k as f64 * per_element }
}

/// The cost of one low-storage Runge–Kutta stage as a run steps it (the right-hand side, r ← a·r + c·L and the new
/// state x + b·r): the right-hand side's flops and 4 more per value; its bytes with the register read and written
/// and the new state written instead of L (the state is read once: the update reads the values the right-hand
/// side read).
pub fn stage_cost(law: &LawIr, nflux: &str, order: usize, k: usize, variant: &Variant) -> Cost {
    let rhs = rhs_cost(law, nflux, order, k, variant);
    let values = k as f64 * dg_core::triangle::num_nodes(order) as f64 * law.variables.len() as f64;
    let b = variant.precision.bytes() as f64;
    Cost { flops: rhs.flops + 4.0 * values, bytes: rhs.bytes + 2.0 * values * b }
}
