//! Flops and bytes of the tetrahedral kernels (the roofline model of `docs/performance.md`).
//!
//! Convention: flops are the useful floating-point operations of the strong form with the fewest mat-vecs (the
//! [`crate::plan::VolumePlan`]: 6 Np × Np mat-vecs per element for acoustics, 18 for elasticity, as seed 002 counts;
//! 2 flops per multiply-add entry; the law's own operation counts from the IR); bytes are the fewest that must
//! cross device memory (each state, trace and right-hand-side value once, geometry and connectivity once; the
//! operator matrices are assumed to stay in the caches). For a GEMM, seed 002's model: #FLOP = 2mn(k + 1),
//! #Byte = b(mk + nk + 2mn).

use dg_codegen::Precision;
use dg_ir::LawIr;

/// Flops and bytes of one kernel launch.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct KernelCost {
    /// Floating-point operations.
    pub flops: f64,
    /// Bytes moved through device memory.
    pub bytes: f64,
}

impl std::ops::Add for KernelCost {
    type Output = Self;
    fn add(self, o: Self) -> Self {
        Self { flops: self.flops + o.flops, bytes: self.bytes + o.bytes }
    }
}

/// The cost of a GEMM C ← A·B (+ C when `accumulate`, β = 1) with A m × k, B k × n: 2mnk flops (2mn more to add C),
/// A and B read once, C written, and read too only when it is accumulated into (β = 0 never reads it).
pub fn gemm_cost(m: usize, n: usize, k: usize, precision: Precision, accumulate: bool) -> KernelCost {
    let (m, n, k) = (m as f64, n as f64, k as f64);
    let c_passes = if accumulate { 2.0 } else { 1.0 };
    let flops = 2.0 * m * n * k + if accumulate { 2.0 * m * n } else { 0.0 };
    KernelCost { flops, bytes: precision.bytes() as f64 * (m * k + n * k + c_passes * m * n) }
}

/// The cost of the kernel roles `volume`, `surface`, `update` (AB3), `update-traces` (AB3 with the traces written)
/// and `trace` at order `order` on
/// `k` elements (the same for every strategy: what the work is, not how it is done).
pub fn kernel_cost(law: &LawIr, nflux: &str, order: usize, k: usize, precision: Precision, role: &str) -> KernelCost {
    let np = dg_core::tetrahedron::num_nodes(order) as f64;
    let nface = 4.0 * dg_core::tetrahedron::num_face_nodes(order) as f64;
    let nv = law.variables.len() as f64;
    let nmat = law.materials.len() as f64;
    let b = precision.bytes() as f64;
    let flux = law.function("flux").map_or(0, |f| f.flops().total) as f64;
    let nflux = law.function(&format!("numerical_flux:{nflux}")).map_or(0, |f| f.flops().total) as f64;
    let k = k as f64;
    let matvecs = crate::plan::VolumePlan::of(law).matvecs() as f64;
    let (flops, bytes) = match role {
        // the plan's mat-vecs, the metric (3 × 3 × 2 per field), the flux of three derivative states and of q
        "volume" => (np * (2.0 * matvecs * np + 18.0 * nv + 4.0 * flux), np * nv * 2.0 * b + (9.0 + nmat) * b),
        // numerical flux and own flux per face node, n·F and scaling, the lift mat-vec; every trace once (the
        // neighbour's are another element's own), the rhs read and written, face geometry, the neighbour map
        "surface" => (
            nface * (nflux + flux + 7.0 * nv) + nv * np * 2.0 * nface,
            (nface * nv + 2.0 * np * nv) * b + 16.0 * b + nface * 4.0 + nmat * b,
        ),
        // q and three rhs levels in, q out (a surface can read the state itself: the GEMM strategy's does)
        "update" => (7.0 * nv * np, 5.0 * np * nv * b),
        // the same with the traces written too (for the surfaces that read them)
        "update-traces" => (7.0 * nv * np, (5.0 * np * nv + nface * nv) * b),
        "trace" => (0.0, (2.0 * nface * nv) * b),
        _ => (0.0, 0.0),
    };
    KernelCost { flops: k * flops, bytes: k * bytes }
}

/// Cost of one AB3 step (volume, surface, fused update) on `k` elements.
pub fn step_cost(law: &LawIr, nflux: &str, order: usize, k: usize, precision: Precision) -> KernelCost {
    ["volume", "surface", "update"]
        .iter()
        .map(|role| kernel_cost(law, nflux, order, k, precision, role))
        .fold(KernelCost { flops: 0.0, bytes: 0.0 }, |a, b| a + b)
}
