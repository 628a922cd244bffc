//! Modal DG right-hand side on triangles, the weak form of seed 001 (Fuhry et al.): an orthonormal basis (mass
//! matrix J·I on an affine element), the flux integrated with a volume cubature of degree 2p, the numerical flux
//! with p + 1 Gauss points per edge:
//!
//! dU_j/dt = Σ_q w_q F(U(x_q))·∇φ_j(x_q) − Σ_f (sJ_f / J) Σ_g w_g φ_j(x_g) F*(U⁻, U⁺, n_f)(x_g) + S_j.
//!
//! This is the CPU reference of the modal formulation: the element-wise form, every element evaluating its own
//! three edges. State layout: element-major, then variable, then mode: entry `(k * nvars + v) * nmodes + j`.

mod fields;
mod ghost;
mod limiter;

pub use ghost::{GhostRule, PrescribedState};
pub use limiter::LimiterError;

use dg_core::law::ConservationLaw;
use dg_core::mesh::FaceLink;
use dg_core::space::DgSpace2d;
use dg_core::triangle::{edge_points, ModalTriangle};
use dg_core::Real;
use dg_runtime::cpu::BoundaryBinding;
use ghost::circle_normal;
use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::Arc;

/// Where an edge's outer state comes from.
#[derive(Debug, Clone, Copy)]
enum Outside {
    /// A neighbouring element and its local face (its Gauss points run the other way).
    Element { element: usize, face: usize },
    /// A boundary condition of the law (with the exact boundary's normal where `curved`).
    Condition { bc: usize, curved: bool },
    /// A state the case prescribes (index into `prescribed`).
    Prescribed(usize),
}

/// The mesh data of the modal kernels (see [`ModalOperator2d::device_data`]).
#[derive(Debug, Clone)]
pub struct ModalDeviceData {
    /// Per element: rx, sx, ry, sy.
    pub metric: Vec<[f64; 4]>,
    /// Per element face: nx, ny, sJ / J.
    pub face: Vec<[f64; 3]>,
    /// Per element face: 3k' + f' of the neighbour's face, or −1 − b for boundary face b.
    pub link: Vec<i32>,
    /// Per boundary face: its element face and its condition (the law's index, or −1 for a prescribed state).
    pub boundary_faces: Vec<(usize, i32)>,
    /// Per boundary face and Gauss point: position.
    pub boundary_xy: Vec<[f64; 2]>,
    /// Per boundary face and Gauss point: the normal the law's condition sees.
    pub boundary_normal: Vec<[f64; 2]>,
    /// Materials, NMATERIALS per element.
    pub materials: Vec<f64>,
}

/// The modal DG operator of a 2D law, in precision `T`.
#[derive(Clone)]
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
    /// Per element face and Gauss point: the normal a law boundary condition sees (the face's own, or the exact
    /// curved boundary's).
    ghost_normal: Vec<[T; 2]>,
    /// States prescribed by the case.
    prescribed: Vec<Arc<PrescribedState>>,
    /// Per element: its vertices.
    vertices: Vec<[[f64; 2]; 3]>,
    /// Per element: the Jacobian (physical area / 2).
    jacobian: Vec<f64>,
    /// The element faces on the boundary, in element-face order.
    boundary_faces: Vec<usize>,
    /// Smallest inscribed-circle diameter of the elements (the CFL length).
    min_inscribed_diameter: f64,
    /// The slope limiter, when enabled.
    limiter: Option<limiter::Limiter>,
}

/// Per-thread scratch of one element's evaluation.
struct Scratch<T> {
    q_point: Vec<T>,
    q_out: Vec<T>,
    flux: Vec<T>,
    fstar: Vec<T>,
    source: Vec<T>,
    ghost: Vec<f64>,
}

/// The affine map of element `k`: reference (r, s) → physical (x, y).
fn map_point(space: &DgSpace2d, k: usize, r: f64, s: f64) -> [f64; 2] {
    let [a, b, c] = space.mesh.elements[k].map(|v| space.mesh.vertices[v]);
    let (la, lb, lc) = (-(r + s) / 2.0, (1.0 + r) / 2.0, (1.0 + s) / 2.0);
    [la * a[0] + lb * b[0] + lc * c[0], la * a[1] + lb * b[1] + lc * c[1]]
}

impl<L: ConservationLaw, T: Real> ModalOperator2d<L, T> {
    /// Builds the operator of degree `element.order` on the mesh, geometry and connectivity of `space` (its
    /// nodal element is not used), with per-element `materials` (`NMATERIALS` values per element); every
    /// boundary face takes the law condition `binding` gives its tag.
    pub fn new(
        law: L,
        element: ModalTriangle,
        space: &DgSpace2d,
        binding: &BoundaryBinding,
        materials: &[f64],
    ) -> Self {
        Self::with_rules(law, element, space, binding, materials, &HashMap::new())
    }

    /// Like [`Self::new`], with ghost-state rules per boundary tag name: tags with a rule other than
    /// [`GhostRule::Law`] use it (prescribed tags need no law condition in `binding`).
    pub fn with_rules(
        law: L,
        element: ModalTriangle,
        space: &DgSpace2d,
        binding: &BoundaryBinding,
        materials: &[f64],
        rules: &HashMap<String, GhostRule>,
    ) -> Self {
        assert_eq!(L::DIM, 2, "ModalOperator2d needs a 2D law");
        assert_eq!(materials.len(), space.num_elements() * L::NMATERIALS, "materials: NMATERIALS per element");
        let k_count = space.num_elements();
        let tag_names = &space.connectivity.tag_names;
        let mut prescribed = Vec::new();
        let mut prescribed_of_tag = vec![None; tag_names.len()];
        let mut center_of_tag = vec![None; tag_names.len()];
        for (t, name) in tag_names.iter().enumerate() {
            match rules.get(name) {
                Some(GhostRule::Prescribed(f)) => {
                    prescribed_of_tag[t] = Some(prescribed.len());
                    prescribed.push(f.clone());
                }
                Some(GhostRule::Curved { center }) => center_of_tag[t] = Some(*center),
                Some(GhostRule::Law) | None => {}
            }
        }
        let (prescribed_of_tag, center_of_tag) = (&prescribed_of_tag, &center_of_tag);
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
                        match prescribed_of_tag[tag] {
                            Some(i) => Outside::Prescribed(i),
                            None => Outside::Condition {
                                bc: binding.condition_of_tag[tag],
                                curved: center_of_tag[tag].is_some(),
                            },
                        }
                    }
                })
            })
            .collect();
        let (ng, nq) = (element.edge.points.len(), element.volume.r.len());
        let mut edge_xy = vec![[T::zero(); 2]; k_count * 3 * ng];
        let mut ghost_normal = vec![[T::zero(); 2]; k_count * 3 * ng];
        let mut volume_xy = vec![[T::zero(); 2]; k_count * nq];
        let edges: Vec<(Vec<f64>, Vec<f64>)> = (0..3).map(|f| edge_points(f, &element.edge.points)).collect();
        // every element's points are independent: mapped on every core
        edge_xy
            .par_chunks_mut(3 * ng)
            .zip(ghost_normal.par_chunks_mut(3 * ng))
            .zip(volume_xy.par_chunks_mut(nq))
            .enumerate()
            .for_each(|(k, ((edge_xy, ghost_normal), volume_xy))| {
                for (f, (r, s)) in edges.iter().enumerate() {
                    let face = space.faces[3 * k + f];
                    let center = space.face_tag[3 * k + f].and_then(|t| center_of_tag[t]);
                    for (i, (&r, &s)) in r.iter().zip(s).enumerate() {
                        let x = map_point(space, k, r, s);
                        edge_xy[f * ng + i] = x.map(T::from_f64);
                        let n = match center {
                            Some(c) => circle_normal(c, x, [face.nx, face.ny]),
                            None => [face.nx, face.ny],
                        };
                        ghost_normal[f * ng + i] = n.map(T::from_f64);
                    }
                }
                let rule = &element.volume;
                for (slot, (&r, &s)) in volume_xy.iter_mut().zip(rule.r.iter().zip(&rule.s)) {
                    *slot = map_point(space, k, r, s).map(T::from_f64);
                }
            });
        Self {
            law,
            num_elements: k_count,
            metric: space.geometry.iter().map(|g| [g.rx, g.sx, g.ry, g.sy]).collect(),
            face: space.faces.iter().map(|f| [f.nx, f.ny, f.fscale]).collect(),
            outside,
            edge_xy,
            volume_xy,
            materials: materials.iter().map(|&m| T::from_f64(m)).collect(),
            ghost_normal,
            prescribed,
            boundary_faces: (0..3 * k_count)
                .filter(|&kf| matches!(space.connectivity.links[kf / 3][kf % 3], FaceLink::Boundary { .. }))
                .collect(),
            vertices: space.mesh.elements.iter().map(|e| e.map(|v| space.mesh.vertices[v])).collect(),
            jacobian: space.geometry.iter().map(|g| g.j).collect(),
            min_inscribed_diameter: (0..k_count)
                .map(|k| {
                    let e = space.mesh.elements[k].map(|v| space.mesh.vertices[v]);
                    let perimeter: f64 = (0..3).map(|f| dg_core::mesh::distance(e[f], e[(f + 1) % 3])).sum();
                    4.0 * space.mesh.area(k) / perimeter
                })
                .fold(f64::INFINITY, f64::min),
            limiter: None,
            element,
        }
    }

    /// The mesh data the generated kernels read, with boundary faces numbered in element-face order.
    pub fn device_data(&self) -> ModalDeviceData {
        let ng = self.element.edge.points.len();
        let mut data = ModalDeviceData {
            metric: self.metric.clone(),
            face: self.face.clone(),
            link: Vec::with_capacity(self.outside.len()),
            boundary_faces: Vec::new(),
            boundary_xy: Vec::new(),
            boundary_normal: Vec::new(),
            materials: self.materials.iter().map(|m| m.as_f64()).collect(),
        };
        for (kf, outside) in self.outside.iter().enumerate() {
            let code = match *outside {
                Outside::Element { element, face } => {
                    data.link.push((3 * element + face) as i32);
                    continue;
                }
                Outside::Condition { bc, .. } => bc as i32,
                Outside::Prescribed(_) => -1,
            };
            data.link.push(-1 - data.boundary_faces.len() as i32);
            data.boundary_faces.push((kf, code));
            for g in 0..ng {
                data.boundary_xy.push(self.edge_xy[kf * ng + g].map(|c| c.as_f64()));
                data.boundary_normal.push(self.ghost_normal[kf * ng + g].map(|c| c.as_f64()));
            }
        }
        data
    }

    /// The prescribed ghost states at time `t` at every boundary point of [`Self::device_data`] (NVARS per
    /// point; zeros where a law condition applies).
    pub fn prescribed_states(&self, t: f64) -> Vec<f64> {
        let (nv, ng) = (L::NVARS, self.element.edge.points.len());
        let mut out = Vec::with_capacity(self.boundary_faces.len() * ng * nv);
        let mut value = vec![0.0; nv];
        // called once per stage of a device run: walk the boundary faces only
        for &kf in &self.boundary_faces {
            match self.outside[kf] {
                Outside::Element { .. } => {}
                Outside::Condition { .. } => out.extend(std::iter::repeat_n(0.0, ng * nv)),
                Outside::Prescribed(i) => {
                    for g in 0..ng {
                        let [x, y] = self.edge_xy[kf * ng + g].map(|c| c.as_f64());
                        (self.prescribed[i])(x, y, t, &mut value);
                        out.extend_from_slice(&value);
                    }
                }
            }
        }
        out
    }

    /// Whether some boundary takes a prescribed state (the device needs it uploaded per time).
    pub fn has_prescribed(&self) -> bool {
        !self.prescribed.is_empty()
    }

    /// Smallest inscribed-circle diameter of the elements.
    pub fn min_inscribed_diameter(&self) -> f64 {
        self.min_inscribed_diameter
    }

    /// Number of elements.
    pub fn num_elements(&self) -> usize {
        self.num_elements
    }

    /// The law.
    pub fn law(&self) -> &L {
        &self.law
    }

    /// Seed 001's stable step: dt = cfl · d_min / (λ_max (2p + 1)), with d_min the smallest inscribed-circle
    /// diameter and λ_max the largest wave speed over the element means ([`Self::max_mean_speed`]). `None` when a
    /// mean is not finite or the speed is zero.
    pub fn stable_time_step(&self, q: &[T], cfl: f64) -> Option<f64> {
        let speed = self.max_mean_speed(q);
        (speed.is_finite() && speed > 0.0)
            .then(|| cfl * self.min_inscribed_diameter / (speed * (2 * self.element.order + 1) as f64))
    }

    /// The largest wave speed over the element means of `q`: the law's `max_speed` maximised over 32 directions
    /// (within 0.5% of the true maximum). `q` may hold the first elements only (a rank's own elements ahead of its
    /// halo): the maximum is over the elements it holds. NaN when a mean's speed is not a number.
    pub fn max_mean_speed(&self, q: &[T]) -> f64 {
        let (nv, nm) = (L::NVARS, self.element.nmodes);
        let phi0 = self.element.phi[(0, 0)];
        let directions: Vec<[T; 2]> = (0..32)
            .map(|i| {
                let a = std::f64::consts::PI * i as f64 / 16.0;
                [T::from_f64(a.cos()), T::from_f64(a.sin())]
            })
            .collect();
        let elements = (q.len() / (nv * nm)).min(self.num_elements);
        (0..elements)
            .into_par_iter()
            .map(|k| {
                let mean: Vec<T> = (0..nv).map(|v| q[(k * nv + v) * nm] * T::from_f64(phi0)).collect();
                let mat = self.material(k);
                // a NaN speed (an inadmissible mean) must reach the caller, so no f64::max here
                directions.iter().map(|n| self.law.max_speed(&mean, mat, n).as_f64()).fold(0.0f64, |a, s| {
                    if a.is_nan() || s.is_nan() {
                        f64::NAN
                    } else {
                        a.max(s)
                    }
                })
            })
            .reduce(|| 0.0, |a: f64, b: f64| if a.is_nan() || b.is_nan() { f64::NAN } else { a.max(b) })
    }

    /// How many element means of `q` the law's admissibility function does not find positive (NaN included);
    /// `None` when the law declares no admissibility function.
    pub fn inadmissible_means(&self, q: &[T]) -> Option<usize> {
        let (nv, nm) = (L::NVARS, self.element.nmodes);
        let phi0 = T::from_f64(self.element.phi[(0, 0)]);
        let admissible = |k: usize| {
            let mean: Vec<T> = (0..nv).map(|v| q[(k * nv + v) * nm] * phi0).collect();
            self.law.admissibility(&mean, self.material(k)).map(|a| a.as_f64() > 0.0)
        };
        if self.num_elements == 0 {
            return Some(0);
        }
        admissible(0)?;
        Some((0..self.num_elements).into_par_iter().filter(|&k| admissible(k) == Some(false)).count())
    }

    /// The reference tables.
    pub fn element(&self) -> &ModalTriangle {
        &self.element
    }

    /// Length of a state vector: K · NVARS · modes.
    pub fn state_len(&self) -> usize {
        self.num_elements * L::NVARS * self.element.nmodes
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
                ghost: vec![0.0; L::NVARS],
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
                    Outside::Condition { bc, curved } => {
                        let point = (3 * k + f) * ng + g;
                        let normal = if curved { &self.ghost_normal[point] } else { &n };
                        self.law.boundary_state(bc, &s.q_point, mat, normal, &self.edge_xy[point], t, &mut s.q_out);
                        mat
                    }
                    Outside::Prescribed(i) => {
                        let [x, y] = self.edge_xy[(3 * k + f) * ng + g].map(|c| c.as_f64());
                        (self.prescribed[i])(x, y, t.as_f64(), &mut s.ghost);
                        for v in 0..nv {
                            s.q_out[v] = T::from_f64(s.ghost[v]);
                        }
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

dg_runtime::cpu_ode_system!(ModalOperator2d, limit = apply_limiter);
