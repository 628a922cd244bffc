//! The modal state as fields: projection of a function, values at cubature points, point evaluation, L2 errors
//! and totals (what runs report and convergence studies measure).

use super::ModalOperator2d;
use dg_core::law::ConservationLaw;
use dg_core::Real;
use rayon::prelude::*;

impl<L: ConservationLaw, T: Real> ModalOperator2d<L, T> {
    /// Modal coefficients of the L2 projection of `f(x, y, out)` (NVARS values at a point) on every element.
    pub fn project(&self, f: impl Fn(f64, f64, &mut [f64]) + Sync) -> Vec<T> {
        let (nv, nm, nq) = (L::NVARS, self.element.nmodes, self.element.volume.w.len());
        let mut out = vec![T::zero(); self.state_len()];
        // elements are independent: each is summed in the same order as a serial loop would
        out.par_chunks_mut(nv * nm).enumerate().for_each(|(k, element)| {
            let mut value = vec![0.0; nv];
            for q in 0..nq {
                let [x, y] = self.volume_xy[k * nq + q].map(|c| c.as_f64());
                f(x, y, &mut value);
                for v in 0..nv {
                    for j in 0..nm {
                        let add = self.element.volume.w[q] * value[v] * self.element.phi[(q, j)];
                        element[v * nm + j] += T::from_f64(add);
                    }
                }
            }
        });
        out
    }

    /// Values of state `u` at element `k`'s cubature points, variable-major (`v * points + q`).
    pub fn values_at_cubature(&self, u: &[T], k: usize) -> Vec<f64> {
        let (nv, nm, nq) = (L::NVARS, self.element.nmodes, self.element.volume.w.len());
        let mut out = vec![0.0; nv * nq];
        for v in 0..nv {
            for q in 0..nq {
                out[v * nq + q] = (0..nm).map(|j| self.element.phi[(q, j)] * u[(k * nv + v) * nm + j].as_f64()).sum();
            }
        }
        out
    }

    /// ‖u_h − u‖ in L2 over the domain for the variables `variables`, with a cubature of degree 2p + 2 and the
    /// exact state `exact(x, y, out)` (NVARS values).
    pub fn l2_error(&self, u: &[T], variables: &[usize], exact: impl Fn(f64, f64, &mut [f64]) + Sync) -> f64 {
        let (nv, nm) = (L::NVARS, self.element.nmodes);
        let rule = dg_core::triangle::triangle_cubature(2 * self.element.order + 2);
        let phi = dg_core::triangle::vandermonde(self.element.order, &rule.r, &rule.s);
        let total: f64 = (0..self.num_elements)
            .into_par_iter()
            .map(|k| {
                let mut q = vec![0.0; nv];
                let mut sum = 0.0;
                for p in 0..rule.w.len() {
                    let [x, y] = self.map_reference(k, rule.r[p], rule.s[p]);
                    exact(x, y, &mut q);
                    for &v in variables {
                        let uh: f64 = (0..nm).map(|j| phi[(p, j)] * u[(k * nv + v) * nm + j].as_f64()).sum();
                        sum += rule.w[p] * (uh - q[v]).powi(2);
                    }
                }
                self.jacobian[k] * sum
            })
            .sum();
        total.sqrt()
    }

    /// ∫ u_v over the domain for each variable (the conserved totals).
    pub fn totals(&self, u: &[T]) -> Vec<f64> {
        let (nv, nm) = (L::NVARS, self.element.nmodes);
        let phi0 = self.element.phi[(0, 0)];
        // ∫ φ_0 over the reference triangle is φ_0 · 2, and φ_j (j > 0) integrate to zero
        (0..nv)
            .map(|v| {
                (0..self.num_elements).map(|k| self.jacobian[k] * 2.0 * phi0 * u[(k * nv + v) * nm].as_f64()).sum()
            })
            .collect()
    }

    /// The state of element `k` at reference point (r, s) (NVARS values).
    pub fn evaluate(&self, u: &[T], k: usize, r: f64, s: f64, out: &mut [f64]) {
        let (nv, nm) = (L::NVARS, self.element.nmodes);
        let phi = dg_core::triangle::vandermonde(self.element.order, &[r], &[s]);
        for v in 0..nv {
            out[v] = (0..nm).map(|j| phi[(0, j)] * u[(k * nv + v) * nm + j].as_f64()).sum();
        }
    }

    /// The physical point of element `k` at reference point (r, s).
    pub fn map_reference(&self, k: usize, r: f64, s: f64) -> [f64; 2] {
        let [a, b, c] = self.vertices[k];
        let (la, lb, lc) = (-(r + s) / 2.0, (1.0 + r) / 2.0, (1.0 + s) / 2.0);
        [la * a[0] + lb * b[0] + lc * c[0], la * a[1] + lb * b[1] + lc * c[1]]
    }

    /// The vertices of element `k`.
    pub fn element_vertices(&self, k: usize) -> [[f64; 2]; 3] {
        self.vertices[k]
    }

    /// Physical coordinates of element `k`'s cubature points.
    pub fn cubature_points(&self, k: usize) -> &[[T; 2]] {
        let nq = self.element.volume.w.len();
        &self.volume_xy[k * nq..(k + 1) * nq]
    }
}
