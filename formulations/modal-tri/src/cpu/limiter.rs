//! Barth–Jespersen slope limiting for p = 1 (seed 001), per variable, with a positivity guard.
//!
//! The linear part of an element's solution is scaled by α ∈ [0, 1] so that its values at the edge Gauss points
//! stay between the smallest and largest mean of the element and its face neighbours. The orthonormal basis makes
//! this a scaling of the two linear modes (they have zero mean). The guard then reduces an element to its mean
//! wherever a limited value at an edge or volume point is not admissible by the law's `admissible` function
//! (for Euler: negative density or pressure).

use super::{ModalOperator2d, Outside};
use dg_core::law::ConservationLaw;
use dg_core::Real;
use rayon::prelude::*;

/// Why the limiter cannot be enabled.
#[derive(Debug, thiserror::Error)]
pub enum LimiterError {
    /// Barth–Jespersen as built here limits linear modes only.
    #[error("the Barth–Jespersen limiter is available for p = 1 only (got p = {0}); run without the limiter")]
    Order(usize),
    /// A positivity guard was asked of a law without an `admissible` function.
    #[error("the law `{0}` declares no `admissible` function, so there is no positivity guard")]
    NoAdmissibility(&'static str),
}

/// The limiter's settings.
#[derive(Clone, Copy)]
pub(super) struct Limiter {
    positivity_guard: bool,
}

impl<L: ConservationLaw, T: Real> ModalOperator2d<L, T> {
    /// Limits every Runge–Kutta stage and new time level with Barth–Jespersen, and — with `positivity_guard` —
    /// reduces elements with a point value the law's `admissible` function rejects to their mean.
    pub fn enable_limiter(&mut self, positivity_guard: bool) -> Result<(), LimiterError> {
        if self.element.order != 1 {
            return Err(LimiterError::Order(self.element.order));
        }
        let probe = vec![T::one(); L::NVARS];
        let mat = vec![T::one(); L::NMATERIALS];
        if positivity_guard && self.law.admissibility(&probe, &mat).is_none() {
            return Err(LimiterError::NoAdmissibility(self.law.name()));
        }
        self.limiter = Some(Limiter { positivity_guard });
        Ok(())
    }

    /// A copy of this operator with the limiter on (p = 1; `positivity_guard` as in [`Self::enable_limiter`]).
    pub fn clone_with_limiter(&self, positivity_guard: bool) -> Self
    where
        L: Clone,
    {
        let mut copy = self.clone();
        copy.limiter = Some(Limiter { positivity_guard });
        copy
    }

    /// Whether the limiter is on.
    pub fn limiter_enabled(&self) -> bool {
        self.limiter.is_some()
    }

    /// Applies the limiter to `q` in place (nothing when it is off).
    pub fn apply_limiter(&self, q: &mut [T]) {
        let Some(limiter) = self.limiter else { return };
        let (nv, nm) = (L::NVARS, self.element.nmodes);
        let phi0 = self.element.phi[(0, 0)];
        let means: Vec<f64> = (0..self.num_elements * nv).map(|i| q[i * nm].as_f64() * phi0).collect();
        q.par_chunks_mut(nv * nm).enumerate().for_each(|(k, coeffs)| self.limit_element(k, coeffs, &means, limiter));
    }

    fn limit_element(&self, k: usize, coeffs: &mut [T], means: &[f64], limiter: Limiter) {
        let (nv, nm, ng) = (L::NVARS, self.element.nmodes, self.element.edge.points.len());
        let neighbours: Vec<usize> = (0..3)
            .filter_map(|f| match self.outside[3 * k + f] {
                Outside::Element { element, .. } => Some(element),
                _ => None,
            })
            .collect();
        for v in 0..nv {
            let mean = means[k * nv + v];
            let (mut lo, mut hi) = (mean, mean);
            for &e in &neighbours {
                lo = lo.min(means[e * nv + v]);
                hi = hi.max(means[e * nv + v]);
            }
            let c = &coeffs[v * nm..(v + 1) * nm];
            let mut alpha: f64 = 1.0;
            for f in 0..3 {
                for g in 0..ng {
                    let value: f64 = (0..nm).map(|j| self.element.phi_edge[f][(g, j)] * c[j].as_f64()).sum();
                    let d = value - mean;
                    if d > 0.0 {
                        alpha = alpha.min((hi - mean) / d);
                    } else if d < 0.0 {
                        alpha = alpha.min((lo - mean) / d);
                    }
                }
            }
            let alpha = T::from_f64(alpha.clamp(0.0, 1.0));
            for cj in &mut coeffs[v * nm + 1..(v + 1) * nm] {
                *cj *= alpha;
            }
        }
        if limiter.positivity_guard && !self.every_point_admissible(k, coeffs) {
            for v in 0..nv {
                coeffs[v * nm + 1..(v + 1) * nm].iter_mut().for_each(|c| *c = T::zero());
            }
        }
    }

    /// Whether element `k`'s state is admissible at every edge Gauss point and volume cubature point.
    fn every_point_admissible(&self, k: usize, coeffs: &[T]) -> bool {
        let (nv, nm) = (L::NVARS, self.element.nmodes);
        let mut state = vec![T::zero(); nv];
        let mat = self.material(k);
        let mut check = |table: &dg_core::matrix::Matrix, row: usize| {
            for v in 0..nv {
                let mut acc = T::zero();
                for j in 0..nm {
                    acc += T::from_f64(table[(row, j)]) * coeffs[v * nm + j];
                }
                state[v] = acc;
            }
            // not `> 0` alone: a NaN must count as inadmissible
            self.law.admissibility(&state, mat).is_none_or(|a| a > T::zero())
        };
        let el = &self.element;
        (0..3).all(|f| (0..el.edge.points.len()).all(|g| check(&el.phi_edge[f], g)))
            && (0..el.volume.w.len()).all(|q| check(&el.phi, q))
    }
}
