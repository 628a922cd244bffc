//! Modal DG right-hand side on triangles, the weak form of seed 001 (Fuhry et al.): an orthonormal basis (mass
//! matrix J·I on an affine element), the flux integrated with a volume cubature of degree 2p, the numerical flux
//! with p + 1 Gauss points per edge:
//!
//! dU_j/dt = Σ_q w_q F(U(x_q))·∇φ_j(x_q) − Σ_f (sJ_f / J) Σ_g w_g φ_j(x_g) F*(U⁻, U⁺, n_f)(x_g) + S_j.
//!
//! This is the CPU reference of the modal formulation: the element-wise form, every element evaluating its own
//! three edges. State layout: element-major, then variable, then mode: entry `(k * nvars + v) * nmodes + j`.

use super::boundary::BoundaryBinding;
use dg_core::law::ConservationLaw;
use dg_core::mesh::FaceLink;
use dg_core::space::DgSpace2d;
use dg_core::triangle::{edge_points, ModalTriangle};
use dg_core::Real;
use rayon::prelude::*;

/// Where an edge's outer state comes from.
#[derive(Debug, Clone, Copy)]
enum Outside {
    /// A neighbouring element and its local face (its Gauss points run the other way).
    Element { element: usize, face: usize },
    /// A boundary condition of the law.
    Condition(usize),
}

/// The modal DG operator of a 2D law, in precision `T`.
pub struct ModalOperator2d<L: ConservationLaw, T: Real> {
    law: L,
    element: ModalTriangle,
    num_elements: usize,
    /// Per element: rx, sx, ry, sy.
    metric: Vec<[f64; 4]>,
    /// Per element face: nx, ny, sJ / J.
    face: Vec<[f64; 3]>,
    /// Per element face: what lies outside.
    outside: Vec<Outside>,
    /// Per element face and Gauss point: physical coordinates.
    edge_xy: Vec<[T; 2]>,
    /// Per element and cubature point: physical coordinates (for the source term).
    volume_xy: Vec<[T; 2]>,
    /// Per element: material parameters (NMATERIALS each).
    materials: Vec<T>,
}

/// Per-thread scratch of one element's evaluation.
struct Scratch<T> {
    q_point: Vec<T>,
    q_out: Vec<T>,
    flux: Vec<T>,
    fstar: Vec<T>,
    source: Vec<T>,
}

/// The affine map of element `k`: reference (r, s) → physical (x, y).
fn map_point(space: &DgSpace2d, k: usize, r: f64, s: f64) -> [f64; 2] {
    let [a, b, c] = space.mesh.elements[k].map(|v| space.mesh.vertices[v]);
    let (la, lb, lc) = (-(r + s) / 2.0, (1.0 + r) / 2.0, (1.0 + s) / 2.0);
    [la * a[0] + lb * b[0] + lc * c[0], la * a[1] + lb * b[1] + lc * c[1]]
}

impl<L: ConservationLaw, T: Real> ModalOperator2d<L, T> {
    /// Builds the operator of degree `element.order` on the mesh, geometry and connectivity of `space` (its
    /// nodal element is not used), with per-element `materials` (`NMATERIALS` values per element).
    pub fn new(
        law: L,
        element: ModalTriangle,
        space: &DgSpace2d,
        binding: &BoundaryBinding,
        materials: &[f64],
    ) -> Self {
        assert_eq!(L::DIM, 2, "ModalOperator2d needs a 2D law");
        assert_eq!(materials.len(), space.num_elements() * L::NMATERIALS, "materials: NMATERIALS per element");
        let k_count = space.num_elements();
        let outside = space
            .connectivity
            .links
            .iter()
            .enumerate()
            .flat_map(|(k, links)| {
                links.iter().enumerate().map(move |(f, link)| match link {
                    FaceLink::Interior { element, face } => Outside::Element { element: *element, face: *face },
                    FaceLink::Boundary { .. } => {
                        let tag = space.face_tag[3 * k + f].unwrap_or(0);
                        Outside::Condition(binding.condition_of_tag[tag])
                    }
                })
            })
            .collect();
        let mut edge_xy = Vec::with_capacity(k_count * 3 * element.edge.points.len());
        let mut volume_xy = Vec::with_capacity(k_count * element.volume.r.len());
        for k in 0..k_count {
            for f in 0..3 {
                let (r, s) = edge_points(f, &element.edge.points);
                edge_xy.extend(r.iter().zip(&s).map(|(&r, &s)| map_point(space, k, r, s).map(T::from_f64)));
            }
            let rule = &element.volume;
            volume_xy.extend(rule.r.iter().zip(&rule.s).map(|(&r, &s)| map_point(space, k, r, s).map(T::from_f64)));
        }
        Self {
            law,
            num_elements: k_count,
            metric: space.geometry.iter().map(|g| [g.rx, g.sx, g.ry, g.sy]).collect(),
            face: space.faces.iter().map(|f| [f.nx, f.ny, f.fscale]).collect(),
            outside,
            edge_xy,
            volume_xy,
            materials: materials.iter().map(|&m| T::from_f64(m)).collect(),
            element,
        }
    }

    /// The reference tables.
    pub fn element(&self) -> &ModalTriangle {
        &self.element
    }

    /// Length of a state vector: K · NVARS · modes.
    pub fn state_len(&self) -> usize {
        self.num_elements * L::NVARS * self.element.nmodes
    }

    /// Modal coefficients of the L2 projection of `f(x, y, out)` (NVARS values at a point) on every element.
    pub fn project(&self, f: impl Fn(f64, f64, &mut [f64])) -> Vec<T> {
        let (nv, nm, nq) = (L::NVARS, self.element.nmodes, self.element.volume.w.len());
        let mut out = vec![T::zero(); self.state_len()];
        let mut value = vec![0.0; nv];
        for k in 0..self.num_elements {
            for q in 0..nq {
                let [x, y] = self.volume_xy[k * nq + q].map(|c| c.as_f64());
                f(x, y, &mut value);
                for v in 0..nv {
                    for j in 0..nm {
                        let add = self.element.volume.w[q] * value[v] * self.element.phi[(q, j)];
                        out[(k * nv + v) * nm + j] += T::from_f64(add);
                    }
                }
            }
        }
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

    /// Physical coordinates of element `k`'s cubature points.
    pub fn cubature_points(&self, k: usize) -> &[[T; 2]] {
        let nq = self.element.volume.w.len();
        &self.volume_xy[k * nq..(k + 1) * nq]
    }

    /// Evaluates the right-hand side of `q` at time `t` into `out`, in parallel over elements.
    pub fn apply(&self, q: &[T], t: f64, out: &mut [T]) {
        assert_eq!(q.len(), self.state_len(), "state has the wrong length");
        assert_eq!(out.len(), self.state_len(), "output has the wrong length");
        let chunk = L::NVARS * self.element.nmodes;
        out.par_chunks_mut(chunk).enumerate().for_each_init(
            || Scratch {
                q_point: vec![T::zero(); L::NVARS],
                q_out: vec![T::zero(); L::NVARS],
                flux: vec![T::zero(); 2 * L::NVARS],
                fstar: vec![T::zero(); L::NVARS],
                source: vec![T::zero(); L::NVARS],
            },
            |scratch, (k, out_k)| self.element_rhs(k, q, T::from_f64(t), out_k, scratch),
        );
    }

    fn material(&self, k: usize) -> &[T] {
        &self.materials[k * L::NMATERIALS..(k + 1) * L::NMATERIALS]
    }

    /// The state at Gauss point `g` of face `f` of element `k`.
    fn trace(&self, q: &[T], k: usize, f: usize, g: usize, into: &mut [T]) {
        let (nv, nm) = (L::NVARS, self.element.nmodes);
        let phi = &self.element.phi_edge[f];
        for v in 0..nv {
            let coeffs = &q[(k * nv + v) * nm..(k * nv + v + 1) * nm];
            let mut acc = T::zero();
            for j in 0..nm {
                acc += T::from_f64(phi[(g, j)]) * coeffs[j];
            }
            into[v] = acc;
        }
    }

    fn element_rhs(&self, k: usize, q: &[T], t: T, out: &mut [T], s: &mut Scratch<T>) {
        let el = &self.element;
        let (nv, nm, nq, ng) = (L::NVARS, el.nmodes, el.volume.w.len(), el.edge.points.len());
        let mat = self.material(k);
        out.iter_mut().for_each(|o| *o = T::zero());
        // volume: Σ_q w_q F(U(x_q))·∇φ_j(x_q) (+ the source term, projected)
        let [rx, sx, ry, sy] = self.metric[k];
        for qp in 0..nq {
            for v in 0..nv {
                let coeffs = &q[(k * nv + v) * nm..(k * nv + v + 1) * nm];
                let mut acc = T::zero();
                for j in 0..nm {
                    acc += T::from_f64(el.phi[(qp, j)]) * coeffs[j];
                }
                s.q_point[v] = acc;
            }
            self.law.flux(&s.q_point, mat, &mut s.flux);
            let has_source = self.law.has_source();
            if has_source {
                self.law.source(&s.q_point, mat, &self.volume_xy[k * nq + qp], t, &mut s.source);
            }
            let w = el.volume.w[qp];
            for j in 0..nm {
                let (pr, ps) = (el.phi_r[(qp, j)], el.phi_s[(qp, j)]);
                let gx = T::from_f64(w * (rx * pr + sx * ps));
                let gy = T::from_f64(w * (ry * pr + sy * ps));
                let wphi = T::from_f64(w * el.phi[(qp, j)]);
                for v in 0..nv {
                    out[v * nm + j] += gx * s.flux[v] + gy * s.flux[nv + v];
                    if has_source {
                        out[v * nm + j] += wphi * s.source[v];
                    }
                }
            }
        }
        // edges: − (sJ/J) Σ_g w_g φ_j(x_g) F*(U⁻, U⁺, n)
        for f in 0..3 {
            let [nx, ny, fscale] = self.face[3 * k + f];
            let n = [T::from_f64(nx), T::from_f64(ny)];
            let outside = self.outside[3 * k + f];
            for g in 0..ng {
                self.trace(q, k, f, g, &mut s.q_point);
                let mat_out = match outside {
                    Outside::Element { element, face } => {
                        self.trace(q, element, face, ng - 1 - g, &mut s.q_out);
                        self.material(element)
                    }
                    Outside::Condition(bc) => {
                        let x = &self.edge_xy[(3 * k + f) * ng + g];
                        self.law.boundary_state(bc, &s.q_point, mat, &n, x, t, &mut s.q_out);
                        mat
                    }
                };
                self.law.numerical_flux(&s.q_point, &s.q_out, mat, mat_out, &n, &mut s.fstar);
                let wf = fscale * el.edge.weights[g];
                for j in 0..nm {
                    let c = T::from_f64(wf * el.phi_edge[f][(g, j)]);
                    for v in 0..nv {
                        out[v * nm + j] -= c * s.fstar[v];
                    }
                }
            }
        }
    }
}

super::cpu_ode_system!(ModalOperator2d);
