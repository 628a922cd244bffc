//! How the volume term of a linear law is split between differentiating fields and differentiating fluxes, with
//! the fewest mat-vecs (seed 002's acoustic kernels: the gradient of p feeds v, the divergence of v feeds p).
//!
//! For a flux linear in q with per-element material, −∇·F(q) can be formed per output field v either
//! - from derivatives of the fields it depends on: −Σ_d F_d(∂q/∂x_d)\[v\] (each such field costs three reference
//!   derivatives, shared by every output that uses it), or
//! - by differentiating its own contravariant flux G_{j,v} = Σ_d (∂r_j/∂x_d) F_d(q)\[v\]: −Σ_j D_j G_{j,v}
//!   (three mat-vecs of its own).
//!
//! The plan takes the split with the fewest mat-vecs (all 2^NV splits are tried): 6 per element for acoustics
//! (∇p, ∇·v) instead of 12, 18 for elasticity (∇v, ∇·σ) instead of 27.

use dg_ir::LawIr;

/// Which fields are differentiated and which outputs differentiate their flux.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct VolumePlan {
    /// Fields whose three reference derivatives are formed.
    pub gradient: Vec<usize>,
    /// Outputs formed from those derivatives.
    pub from_derivatives: Vec<usize>,
    /// Outputs formed by differentiating their contravariant flux.
    pub divergence: Vec<usize>,
}

impl VolumePlan {
    /// The plan for `ir` (whose flux must be linear in the state; outputs `d * NV + v`).
    pub fn of(ir: &LawIr) -> Self {
        let nv = ir.variables.len();
        let deps: Vec<u64> = match ir.function("flux") {
            Some(f) => {
                let per_output = f.state_dependencies();
                (0..nv).map(|v| (0..3).filter_map(|d| per_output.get(d * nv + v)).fold(0, |m, &x| m | x)).collect()
            }
            None => vec![(1u64 << nv) - 1; nv],
        };
        let mut best: Option<(usize, u64)> = None;
        for subset in 0u64..(1 << nv) {
            // subset: outputs formed from derivatives
            let needed = (0..nv).filter(|v| subset >> v & 1 == 1).fold(0, |m, v| m | deps[v]);
            let cost = 3 * (needed.count_ones() as usize) + 3 * (nv - subset.count_ones() as usize);
            if best.is_none_or(|(c, _)| cost < c) {
                best = Some((cost, subset));
            }
        }
        let subset = best.map_or(0, |(_, s)| s);
        let needed = (0..nv).filter(|v| subset >> v & 1 == 1).fold(0, |m, v| m | deps[v]);
        Self {
            gradient: (0..nv).filter(|u| needed >> u & 1 == 1).collect(),
            from_derivatives: (0..nv).filter(|v| subset >> v & 1 == 1).collect(),
            divergence: (0..nv).filter(|v| subset >> v & 1 == 0).collect(),
        }
    }

    /// Reference mat-vecs (Np × Np) per element.
    pub fn matvecs(&self) -> usize {
        3 * (self.gradient.len() + self.divergence.len())
    }
}
