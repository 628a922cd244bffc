//! Nodal strong-form DG right-hand side on tetrahedra (Hesthaven & Warburton ch. 10; seed 002):
//!
//! dq/dt = −Σ_j D_j G_j + LIFT · (Fscale ⊙ (n·F(q⁻) − F*(q⁻, q⁺, n))) + S(q, x, t),
//!
//! with the contravariant fluxes G_j = Σ_d (∂r_j/∂x_d) F_d (the metric is constant on a straight-sided element).
//! Materials are per element; on a face the neighbour's material enters the numerical flux (on the boundary,
//! the own material). State layout: element-major, then variable, then node: entry `(k * nvars + v) * np + i`.

use dg_core::law::ConservationLaw;
use dg_core::matrix::to_row_major;
use dg_core::mesh::FaceLink;
use dg_core::space3d::DgSpace3d;
use dg_core::Real;
use dg_runtime::cpu::BoundaryBinding;
use dg_runtime::cpu::{face_node_jump, FaceNode, FaceScratch, INTERIOR};
use rayon::prelude::*;

/// The nodal DG operator of a 3D law on a [`DgSpace3d`], in precision `T`.
pub struct NodalOperator3d<L: ConservationLaw, T: Real> {
    law: L,
    np: usize,
    nfp: usize,
    num_elements: usize,
    /// Dr, Ds, Dt, row-major.
    diff: [Vec<T>; 3],
    lift: Vec<T>,
    /// Per element: ∂r_j/∂x_d at `[j][d]`.
    metric: Vec<[[T; 3]; 3]>,
    /// Per element face: nx, ny, nz, fscale.
    face: Vec<[T; 4]>,
    face_condition: Vec<usize>,
    neighbor: Vec<usize>,
    offset_m: Vec<usize>,
    offset_p: Vec<usize>,
    face_xyz: Vec<[T; 3]>,
    materials: Vec<T>,
    node_xyz: Vec<[T; 3]>,
}

struct Scratch<T> {
    contravariant: Vec<T>,
    flux_at_node: Vec<T>,
    qm: Vec<T>,
    qp: Vec<T>,
    fstar: Vec<T>,
    jump: Vec<T>,
    source: Vec<T>,
}

impl<L: ConservationLaw, T: Real> NodalOperator3d<L, T> {
    /// Builds the operator with per-element material parameters (`NMATERIALS` values per element,
    /// element-major; empty for laws without materials).
    pub fn new(law: L, space: &DgSpace3d, binding: &BoundaryBinding, materials: &[f64]) -> Self {
        assert_eq!(materials.len(), space.num_elements() * L::NMATERIALS, "materials: {} per element", L::NMATERIALS);
        assert_eq!(L::DIM, 3, "NodalOperator3d needs a 3D law");
        let el = &space.element;
        let (np, nfp) = (el.np, el.nfp);
        let nv = L::NVARS;
        let offset = |g: usize| (g / np) * nv * np + g % np;
        let point = |g: usize| [0, 1, 2].map(|d| T::from_f64(space.xyz[d][g]));
        Self {
            law,
            np,
            nfp,
            num_elements: space.num_elements(),
            diff: [&el.dr, &el.ds, &el.dt].map(to_row_major),
            lift: to_row_major(&el.lift),
            metric: space.geometry.iter().map(|g| g.metric.map(|row| row.map(T::from_f64))).collect(),
            face: space.faces.iter().map(|f| [f.n[0], f.n[1], f.n[2], f.fscale].map(T::from_f64)).collect(),
            face_condition: space
                .face_tag
                .iter()
                .map(|t| t.map_or(INTERIOR, |tag| binding.condition_of_tag[tag]))
                .collect(),
            neighbor: space
                .connectivity
                .links
                .iter()
                .flatten()
                .map(|l| match l {
                    FaceLink::Interior { element, .. } => *element,
                    FaceLink::Boundary { .. } => usize::MAX,
                })
                .collect(),
            offset_m: space.vmap_m.iter().map(|&g| offset(g)).collect(),
            offset_p: space.vmap_p.iter().map(|&g| offset(g)).collect(),
            face_xyz: space.vmap_m.iter().map(|&g| point(g)).collect(),
            materials: materials.iter().map(|&m| T::from_f64(m)).collect(),
            node_xyz: (0..space.num_nodes()).map(point).collect(),
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

    /// Evaluates the right-hand side of `q` at time `t` into `out`, in parallel over elements.
    pub fn apply(&self, q: &[T], t: f64, out: &mut [T]) {
        assert_eq!(q.len(), self.state_len(), "state has the wrong length");
        assert_eq!(out.len(), self.state_len(), "output has the wrong length");
        let nv = L::NVARS;
        out.par_chunks_mut(nv * self.np).enumerate().for_each_init(
            || Scratch {
                contravariant: vec![T::zero(); 3 * nv * self.np],
                flux_at_node: vec![T::zero(); 3 * nv],
                qm: vec![T::zero(); nv],
                qp: vec![T::zero(); nv],
                fstar: vec![T::zero(); nv],
                jump: vec![T::zero(); nv * 4 * self.nfp],
                source: vec![T::zero(); nv],
            },
            |scratch, (k, out_k)| self.element_rhs(k, q, T::from_f64(t), out_k, scratch),
        );
    }

    fn material(&self, k: usize) -> &[T] {
        &self.materials[k * L::NMATERIALS..(k + 1) * L::NMATERIALS]
    }

    fn element_rhs(&self, k: usize, q: &[T], t: T, out: &mut [T], s: &mut Scratch<T>) {
        let (np, nv, nfp) = (self.np, L::NVARS, self.nfp);
        let qk = &q[k * nv * np..(k + 1) * nv * np];
        let mat = self.material(k);
        let metric = self.metric[k];
        // contravariant fluxes at the nodes: G_j[v][i] at (j * nv + v) * np + i
        for i in 0..np {
            for v in 0..nv {
                s.qm[v] = qk[v * np + i];
            }
            self.law.flux(&s.qm, mat, &mut s.flux_at_node);
            for (j, row) in metric.iter().enumerate() {
                for v in 0..nv {
                    let f = &s.flux_at_node;
                    s.contravariant[(j * nv + v) * np + i] =
                        row[0] * f[v] + row[1] * f[nv + v] + row[2] * f[2 * nv + v];
                }
            }
        }
        // volume: −Σ_j D_j G_j
        for v in 0..nv {
            for i in 0..np {
                let mut acc = T::zero();
                for (j, d) in self.diff.iter().enumerate() {
                    let row = &d[i * np..(i + 1) * np];
                    let g = &s.contravariant[(j * nv + v) * np..(j * nv + v + 1) * np];
                    for m in 0..np {
                        acc += row[m] * g[m];
                    }
                }
                out[v * np + i] = -acc;
            }
        }
        // surface: Fscale (n·F(q⁻) − F*) at every face node
        for f in 0..4 {
            let [nx, ny, nz, fscale] = self.face[4 * k + f];
            let normal = [nx, ny, nz];
            let mat_p = match self.neighbor[4 * k + f] {
                usize::MAX => mat,
                k2 => self.material(k2),
            };
            for a in 0..nfp {
                let idx = (4 * k + f) * nfp + a;
                let node = FaceNode {
                    np,
                    own: self.offset_m[idx],
                    other: self.offset_p[idx],
                    condition: self.face_condition[4 * k + f],
                    normal: &normal,
                    x: &self.face_xyz[idx],
                    fscale,
                    materials: [mat, mat_p],
                };
                let scratch =
                    FaceScratch { qm: &mut s.qm, qp: &mut s.qp, fstar: &mut s.fstar, flux: &mut s.flux_at_node };
                face_node_jump(&self.law, q, t, &node, scratch, &mut s.jump[f * nfp + a..], 4 * nfp);
            }
        }
        dg_runtime::cpu::lift_add(&self.lift, &s.jump, np, 4 * nfp, nv, out);
        if self.law.has_source() {
            let x = &self.node_xyz[k * np..(k + 1) * np];
            dg_runtime::cpu::source_add(&self.law, qk, mat, x, t, &mut s.qm, &mut s.source, out);
        }
    }
}

dg_runtime::cpu_ode_system!(NodalOperator3d);
