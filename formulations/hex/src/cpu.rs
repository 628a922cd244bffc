//! The weak-form DG right-hand side on hexahedra (seed 003):
//!
//! ω_i |J_i| dW_i/dt = Σ_a Σ_m D_{m, i_a} G_a(node i with its a-th index m) − Σ_faces ℓ_{s}(ξ_{i_a}) w_q |N_q| F*(W⁻, W⁺, n_q)
//!
//! with the contravariant fluxes G_a = ω |J| Σ_d (∂x̂_a/∂x_d) F_d(W) at the nodes, D the 1D differentiation
//! matrix, ℓ_s the 1D extrapolation to the face at x̂_a = s, w_q the face point's weight and |N_q| its surface
//! Jacobian; face values W⁻ and W⁺ are extrapolated along the lines of nodes through the face point on either
//! side (W⁺ is the boundary condition's ghost state on boundary faces). State layout: cell-major, then variable,
//! then node: entry `(k * nvars + v) * np + i`.

use dg_core::law::ConservationLaw;
use dg_core::space_hex::HexSpace;
use dg_core::Real;
use dg_runtime::cpu::{BoundaryBinding, INTERIOR};
use rayon::prelude::*;

/// The DG operator of a 3D law on a [`HexSpace`], in precision `T`.
pub struct HexOperator<L: ConservationLaw, T: Real> {
    law: L,
    n1: usize,
    np: usize,
    nfp: usize,
    num_elements: usize,
    /// 1D differentiation, `d1[m * n1 + n]` = ℓ_n'(ξ_m).
    d1: Vec<T>,
    /// 1D extrapolation to x̂ = 0 and x̂ = 1.
    ends: [Vec<T>; 2],
    /// The node of each face point's line: `line[(f * nfp + q) * n1 + m]`.
    line: Vec<usize>,
    /// Per node: ω_i |J| ∂x̂_a/∂x_d at `[a][d]`.
    metric: Vec<[[T; 3]; 3]>,
    /// Per node: 1 / (ω_i |J_i|).
    inverse_mass: Vec<T>,
    /// Per face point: unit normal.
    normal: Vec<[T; 3]>,
    /// Per face point: w_q |N_q|.
    area: Vec<T>,
    /// Per face point: coordinates.
    face_xyz: Vec<[T; 3]>,
    /// Per face point: the matching point across (global face index).
    partner: Vec<usize>,
    /// Per cell face: [`INTERIOR`] or the boundary condition.
    condition: Vec<usize>,
    materials: Vec<T>,
    node_xyz: Vec<[T; 3]>,
}

struct Scratch<T> {
    contravariant: Vec<T>,
    flux: Vec<T>,
    qm: Vec<T>,
    qp: Vec<T>,
    fstar: Vec<T>,
    source: Vec<T>,
}

impl<L: ConservationLaw, T: Real> HexOperator<L, T> {
    /// Builds the operator with per-cell material parameters (`NMATERIALS` values per cell, cell-major; empty for
    /// laws without materials).
    pub fn new(law: L, space: &HexSpace, binding: &BoundaryBinding, materials: &[f64]) -> Self {
        assert_eq!(materials.len(), space.num_elements() * L::NMATERIALS, "materials: {} per cell", L::NMATERIALS);
        assert_eq!(L::DIM, 3, "HexOperator needs a 3D law");
        let el = &space.element;
        let (n1, np, nfp) = (el.n1, el.np, el.nfp);
        let real = |v: f64| T::from_f64(v);
        let line = (0..6)
            .flat_map(|f| (0..nfp).flat_map(move |q| (0..n1).map(move |m| (f, q, m))))
            .map(|(f, q, m)| el.face_line_node(f, q, m))
            .collect();
        let metric = (0..space.num_nodes())
            .map(|g| {
                let w = el.weight(g % np);
                space.metric[g].map(|row| row.map(|c| real(w * c)))
            })
            .collect();
        let inverse_mass = (0..space.num_nodes()).map(|g| real(1.0 / (el.weight(g % np) * space.det_j[g]))).collect();
        let area = space.face_area.iter().enumerate().map(|(g, &a)| real(el.face_weight(g % nfp) * a)).collect();
        Self {
            law,
            n1,
            np,
            nfp,
            num_elements: space.num_elements(),
            d1: el.d1.iter().map(|&v| real(v)).collect(),
            ends: el.ends.clone().map(|e| e.into_iter().map(real).collect()),
            line,
            metric,
            inverse_mass,
            normal: space.face_normal.iter().map(|n| n.map(real)).collect(),
            area,
            face_xyz: space.face_xyz.iter().map(|x| x.map(real)).collect(),
            partner: space.face_partner.clone(),
            condition: space.face_tag.iter().map(|t| t.map_or(INTERIOR, |tag| binding.condition_of_tag[tag])).collect(),
            materials: materials.iter().map(|&m| real(m)).collect(),
            node_xyz: (0..space.num_nodes()).map(|g| [0, 1, 2].map(|d| real(space.xyz[d][g]))).collect(),
        }
    }

    /// The law.
    pub fn law(&self) -> &L {
        &self.law
    }

    /// Length of a state vector: K · NVARS · Np.
    pub fn state_len(&self) -> usize {
        self.num_elements * L::NVARS * self.np
    }

    /// Evaluates the right-hand side of `q` at time `t` into `out`, in parallel over cells.
    pub fn apply(&self, q: &[T], t: f64, out: &mut [T]) {
        assert_eq!(q.len(), self.state_len(), "state has the wrong length");
        assert_eq!(out.len(), self.state_len(), "output has the wrong length");
        let nv = L::NVARS;
        out.par_chunks_mut(nv * self.np).enumerate().for_each_init(
            || Scratch {
                contravariant: vec![T::zero(); 3 * nv * self.np],
                flux: vec![T::zero(); 3 * nv],
                qm: vec![T::zero(); nv],
                qp: vec![T::zero(); nv],
                fstar: vec![T::zero(); nv],
                source: vec![T::zero(); nv],
            },
            |scratch, (k, out_k)| self.cell_rhs(k, q, T::from_f64(t), out_k, scratch),
        );
    }

    fn material(&self, k: usize) -> &[T] {
        &self.materials[k * L::NMATERIALS..(k + 1) * L::NMATERIALS]
    }

    /// Face value of variable `v` at global face point `g` (cell `g / (6 nfp)`), extrapolated from `q`.
    fn face_value(&self, q: &[T], g: usize, v: usize) -> T {
        let (nv, np, n1) = (L::NVARS, self.np, self.n1);
        let k = g / (6 * self.nfp);
        let local = g % (6 * self.nfp);
        let ends = &self.ends[(local / self.nfp) % 2];
        let base = (k * nv + v) * np;
        let line = &self.line[local * n1..(local + 1) * n1];
        let mut acc = T::zero();
        for m in 0..n1 {
            acc += ends[m] * q[base + line[m]];
        }
        acc
    }

    fn cell_rhs(&self, k: usize, q: &[T], t: T, out: &mut [T], s: &mut Scratch<T>) {
        let (np, nv, n1, nfp) = (self.np, L::NVARS, self.n1, self.nfp);
        let qk = &q[k * nv * np..(k + 1) * nv * np];
        let mat = self.material(k);
        // contravariant fluxes at the nodes: G_a[v][i] at (a * nv + v) * np + i
        for i in 0..np {
            for v in 0..nv {
                s.qm[v] = qk[v * np + i];
            }
            self.law.flux(&s.qm, mat, &mut s.flux);
            let metric = &self.metric[k * np + i];
            for (a, row) in metric.iter().enumerate() {
                for v in 0..nv {
                    let f = &s.flux;
                    s.contravariant[(a * nv + v) * np + i] =
                        row[0] * f[v] + row[1] * f[nv + v] + row[2] * f[2 * nv + v];
                }
            }
        }
        // volume: Σ_a Σ_m D[m][i_a] G_a(i with index a replaced by m)
        for v in 0..nv {
            for i in 0..np {
                let p = [i % n1, (i / n1) % n1, i / (n1 * n1)];
                let mut acc = T::zero();
                for (a, stride) in [1, n1, n1 * n1].into_iter().enumerate() {
                    let base = (a * nv + v) * np + i - p[a] * stride;
                    for m in 0..n1 {
                        acc += self.d1[m * n1 + p[a]] * s.contravariant[base + m * stride];
                    }
                }
                out[v * np + i] = acc;
            }
        }
        // surface: − ℓ_s(ξ_{i_a}) w_q |N_q| F* at the nodes on each face point's line
        for f in 0..6 {
            let side = f % 2;
            let condition = self.condition[6 * k + f];
            for qf in 0..nfp {
                let g = (k * 6 + f) * nfp + qf;
                let other = self.partner[g];
                let mat_p = if condition == INTERIOR { self.material(other / (6 * nfp)) } else { mat };
                for v in 0..nv {
                    s.qm[v] = self.face_value(q, g, v);
                }
                if condition == INTERIOR {
                    for v in 0..nv {
                        s.qp[v] = self.face_value(q, other, v);
                    }
                } else {
                    self.law.boundary_state(condition, &s.qm, mat, &self.normal[g], &self.face_xyz[g], t, &mut s.qp);
                }
                self.law.numerical_flux(&s.qm, &s.qp, mat, mat_p, &self.normal[g], &mut s.fstar);
                let line = &self.line[(f * nfp + qf) * n1..(f * nfp + qf + 1) * n1];
                for v in 0..nv {
                    let flux = self.area[g] * s.fstar[v];
                    for m in 0..n1 {
                        out[v * np + line[m]] -= self.ends[side][m] * flux;
                    }
                }
            }
        }
        for v in 0..nv {
            for i in 0..np {
                out[v * np + i] *= self.inverse_mass[k * np + i];
            }
        }
        if self.law.has_source() {
            let x = &self.node_xyz[k * np..(k + 1) * np];
            for i in 0..np {
                for v in 0..nv {
                    s.qm[v] = qk[v * np + i];
                }
                self.law.source(&s.qm, mat, &x[i], t, &mut s.source);
                for v in 0..nv {
                    out[v * np + i] += s.source[v];
                }
            }
        }
    }
}

dg_runtime::cpu_ode_system!(HexOperator);
