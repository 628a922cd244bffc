//! Nodal strong-form DG right-hand side on triangles (Hesthaven & Warburton; seed 000):
//!
//! dq/dt = −(rx·Dr + sx·Ds) F_x − (ry·Dr + sy·Ds) F_y + LIFT · (Fscale ⊙ (n·F(q⁻) − F*(q⁻, q⁺, n))) + S(q, x, t)
//!
//! Materials are per element; on a face the neighbour's material enters the numerical flux (on the boundary,
//! the own material).
//!
//! State layout: element-major, then variable, then node: entry `(k * nvars + v) * np + i`.

use dg_core::law::ConservationLaw;
use dg_core::matrix::to_row_major;
use dg_core::mesh::FaceLink;
use dg_core::space::DgSpace2d;
use dg_core::Real;
use dg_runtime::cpu::BoundaryBinding;
use dg_runtime::cpu::{face_node_jump, FaceNode, FaceScratch, INTERIOR};
use rayon::prelude::*;

/// The nodal DG operator of a 2D law on a [`DgSpace2d`], in precision `T`.
pub struct NodalOperator2d<L: ConservationLaw, T: Real> {
    law: L,
    np: usize,
    nfp: usize,
    num_elements: usize,
    dr: Vec<T>,
    ds: Vec<T>,
    lift: Vec<T>,
    /// Per element: rx, sx, ry, sy.
    metric: Vec<[T; 4]>,
    /// Per element face: nx, ny, fscale.
    face: Vec<[T; 3]>,
    /// Per element face: boundary condition index, or `INTERIOR`.
    face_condition: Vec<usize>,
    /// Per element face: the neighbouring element, or `usize::MAX` on the boundary.
    neighbor: Vec<usize>,
    /// Per face node: state offset of the interior and exterior node (add `v * np` for variable v).
    offset_m: Vec<usize>,
    offset_p: Vec<usize>,
    /// Per face node: its coordinates (for position-dependent boundary states).
    face_xy: Vec<[T; 2]>,
    /// Per element: material parameters (NMATERIALS each).
    materials: Vec<T>,
    /// Node coordinates (for the source term), per element node.
    node_xy: Vec<[T; 2]>,
}

/// Per-thread scratch of one element's evaluation.
struct Scratch<T> {
    fx: Vec<T>,
    fy: Vec<T>,
    flux_at_node: Vec<T>,
    qm: Vec<T>,
    qp: Vec<T>,
    fstar: Vec<T>,
    jump: Vec<T>,
    source: Vec<T>,
}

impl<L: ConservationLaw, T: Real> NodalOperator2d<L, T> {
    /// Builds the operator for a law without materials. `binding` says which condition of the law each
    /// boundary tag of the space uses.
    pub fn new(law: L, space: &DgSpace2d, binding: &BoundaryBinding) -> Self {
        assert_eq!(L::NMATERIALS, 0, "this law has material parameters: use NodalOperator2d::with_materials");
        Self::with_materials(law, space, binding, &[])
    }

    /// Builds the operator with per-element material parameters (`NMATERIALS` values per element,
    /// element-major).
    pub fn with_materials(law: L, space: &DgSpace2d, binding: &BoundaryBinding, materials: &[f64]) -> Self {
        assert_eq!(
            materials.len(),
            space.num_elements() * L::NMATERIALS,
            "materials: {} values per element expected",
            L::NMATERIALS
        );
        assert_eq!(L::DIM, 2, "NodalOperator2d needs a 2D law");
        let el = &space.element;
        let (np, nfp) = (el.np, el.nfp);
        let nv = L::NVARS;
        let offset = |g: usize| (g / np) * nv * np + g % np;
        let face_condition =
            space.face_tag.iter().map(|t| t.map_or(INTERIOR, |tag| binding.condition_of_tag[tag])).collect();
        Self {
            law,
            np,
            nfp,
            num_elements: space.num_elements(),
            dr: to_row_major(&el.dr),
            ds: to_row_major(&el.ds),
            lift: to_row_major(&el.lift),
            metric: space.geometry.iter().map(|g| [g.rx, g.sx, g.ry, g.sy].map(T::from_f64)).collect(),
            face: space.faces.iter().map(|f| [f.nx, f.ny, f.fscale].map(T::from_f64)).collect(),
            face_condition,
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
            face_xy: space.vmap_m.iter().map(|&g| [T::from_f64(space.x[g]), T::from_f64(space.y[g])]).collect(),
            materials: materials.iter().map(|&m| T::from_f64(m)).collect(),
            node_xy: space.x.iter().zip(&space.y).map(|(&x, &y)| [T::from_f64(x), T::from_f64(y)]).collect(),
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
        let chunk = L::NVARS * self.np;
        out.par_chunks_mut(chunk).enumerate().for_each_init(
            || self.scratch(),
            |scratch, (k, out_k)| self.element_rhs(k, q, T::from_f64(t), out_k, scratch),
        );
    }

    fn scratch(&self) -> Scratch<T> {
        let nv = L::NVARS;
        Scratch {
            fx: vec![T::zero(); nv * self.np],
            fy: vec![T::zero(); nv * self.np],
            flux_at_node: vec![T::zero(); 2 * nv],
            qm: vec![T::zero(); nv],
            qp: vec![T::zero(); nv],
            fstar: vec![T::zero(); nv],
            jump: vec![T::zero(); nv * 3 * self.nfp],
            source: vec![T::zero(); nv],
        }
    }

    fn material(&self, k: usize) -> &[T] {
        &self.materials[k * L::NMATERIALS..(k + 1) * L::NMATERIALS]
    }

    fn element_rhs(&self, k: usize, q: &[T], t: T, out: &mut [T], s: &mut Scratch<T>) {
        let (np, nv, nfp) = (self.np, L::NVARS, self.nfp);
        let qk = &q[k * nv * np..(k + 1) * nv * np];
        let mat = self.material(k);
        // physical flux at the nodes
        for i in 0..np {
            for v in 0..nv {
                s.qm[v] = qk[v * np + i];
            }
            self.law.flux(&s.qm, mat, &mut s.flux_at_node);
            for v in 0..nv {
                s.fx[v * np + i] = s.flux_at_node[v];
                s.fy[v * np + i] = s.flux_at_node[nv + v];
            }
        }
        // volume: −∇·F
        let [rx, sx, ry, sy] = self.metric[k];
        for v in 0..nv {
            let (fx, fy) = (&s.fx[v * np..(v + 1) * np], &s.fy[v * np..(v + 1) * np]);
            for i in 0..np {
                let (dr_row, ds_row) = (&self.dr[i * np..(i + 1) * np], &self.ds[i * np..(i + 1) * np]);
                let (mut dfx_dr, mut dfx_ds, mut dfy_dr, mut dfy_ds) = (T::zero(), T::zero(), T::zero(), T::zero());
                for j in 0..np {
                    dfx_dr += dr_row[j] * fx[j];
                    dfx_ds += ds_row[j] * fx[j];
                    dfy_dr += dr_row[j] * fy[j];
                    dfy_ds += ds_row[j] * fy[j];
                }
                out[v * np + i] = -(rx * dfx_dr + sx * dfx_ds + ry * dfy_dr + sy * dfy_ds);
            }
        }
        // surface: Fscale (n·F(q⁻) − F*) at every face node
        for f in 0..3 {
            let [nx, ny, fscale] = self.face[3 * k + f];
            let normal = [nx, ny];
            let mat_p = match self.neighbor[3 * k + f] {
                usize::MAX => mat,
                k2 => self.material(k2),
            };
            for a in 0..nfp {
                let idx = (3 * k + f) * nfp + a;
                let node = FaceNode {
                    np,
                    own: self.offset_m[idx],
                    other: self.offset_p[idx],
                    condition: self.face_condition[3 * k + f],
                    normal: &normal,
                    x: &self.face_xy[idx],
                    fscale,
                    materials: [mat, mat_p],
                };
                let scratch =
                    FaceScratch { qm: &mut s.qm, qp: &mut s.qp, fstar: &mut s.fstar, flux: &mut s.flux_at_node };
                face_node_jump(&self.law, q, t, &node, scratch, &mut s.jump[f * nfp + a..], 3 * nfp);
            }
        }
        dg_runtime::cpu::lift_add(&self.lift, &s.jump, np, 3 * nfp, nv, out);
        if self.law.has_source() {
            let x = &self.node_xy[k * np..(k + 1) * np];
            dg_runtime::cpu::source_add(&self.law, qk, mat, x, t, &mut s.qm, &mut s.source, out);
        }
    }
}

dg_runtime::cpu_ode_system!(NodalOperator2d);
