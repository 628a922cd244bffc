//! The discrete DG space on a tetrahedral mesh: node coordinates, face-node maps (vmapM / vmapP), boundary
//! information and geometric factors.

use crate::mesh::FaceLink;
use crate::mesh3d::{Connectivity3d, TetFaceGeometry, TetGeometry, TetMesh};
use crate::space::SpaceError;
use crate::tetrahedron::{tet_cubature, ReferenceTetrahedron};
use crate::{CoreError, MeshError};
use rayon::prelude::*;

/// A nodal DG space of order N on a tetrahedral mesh.
///
/// Node `i` of element `k` has global index `k * np + i`. Face node `j` (0..4·Nfp) of element `k`, face
/// `j / nfp`, has entry `k * 4 * nfp + j` in `vmap_m` (its own node) and `vmap_p` (the matching node across the
/// face; the own node again on boundary faces).
#[derive(Debug, Clone)]
pub struct DgSpace3d {
    /// The reference element.
    pub element: ReferenceTetrahedron,
    /// The mesh.
    pub mesh: TetMesh,
    /// Face connectivity.
    pub connectivity: Connectivity3d,
    /// Node coordinates (K·Np each).
    pub xyz: [Vec<f64>; 3],
    /// Per element metric terms.
    pub geometry: Vec<TetGeometry>,
    /// Per element face (K·4).
    pub faces: Vec<TetFaceGeometry>,
    /// Interior node of each face node (K·4·Nfp), global index.
    pub vmap_m: Vec<usize>,
    /// Exterior node of each face node (K·4·Nfp), global index.
    pub vmap_p: Vec<usize>,
    /// Boundary tag of each element face (K·4), `None` for interior faces.
    pub face_tag: Vec<Option<usize>>,
}

impl DgSpace3d {
    /// Builds the space of order `order` on `mesh`.
    pub fn new(mesh: TetMesh, order: usize) -> Result<Self, SpaceError> {
        let connectivity = Connectivity3d::build(&mesh)?;
        Self::with_connectivity(mesh, order, connectivity)
    }

    /// Builds the space of order `order` on `mesh` with the face connectivity `connectivity` (a part of a larger
    /// mesh keeps the whole mesh's links; a face linked to itself sees its own trace).
    pub fn with_connectivity(mesh: TetMesh, order: usize, connectivity: Connectivity3d) -> Result<Self, SpaceError> {
        let element = ReferenceTetrahedron::new(order)?;
        crate::mesh::check_connectivity_size(connectivity.links.len(), mesh.num_elements())?;
        let (np, nfp) = (element.np, element.nfp);
        let k_count = mesh.num_elements();
        // every element's nodes, geometry and face maps are independent: built in parallel
        let mut xyz = [vec![0.0; k_count * np], vec![0.0; k_count * np], vec![0.0; k_count * np]];
        {
            let [xs, ys, zs] = &mut xyz;
            xs.par_chunks_mut(np).zip(ys.par_chunks_mut(np)).zip(zs.par_chunks_mut(np)).enumerate().for_each(
                |(k, ((xk, yk), zk))| {
                    let p = mesh.elements[k].map(|v| mesh.vertices[v]);
                    for i in 0..np {
                        let (r, s, t) = (element.r[i], element.s[i], element.t[i]);
                        let l = [-0.5 * (1.0 + r + s + t), 0.5 * (1.0 + r), 0.5 * (1.0 + s), 0.5 * (1.0 + t)];
                        let at = |d: usize| (0..4).map(|a| l[a] * p[a][d]).sum();
                        (xk[i], yk[i], zk[i]) = (at(0), at(1), at(2));
                    }
                },
            );
        }
        let (geometry, faces): (Vec<TetGeometry>, Vec<[TetFaceGeometry; 4]>) =
            (0..k_count).into_par_iter().map(|k| TetGeometry::of_element(&mesh, k)).unzip();
        let faces: Vec<TetFaceGeometry> = faces.into_iter().flatten().collect();
        let (mut vmap_m, mut vmap_p) = (vec![0; k_count * 4 * nfp], vec![0; k_count * 4 * nfp]);
        let mut face_tag = vec![None; 4 * k_count];
        let point = |g: usize| [xyz[0][g], xyz[1][g], xyz[2][g]];
        let centroid = |node: &dyn Fn(usize) -> usize| {
            let mut c = [0.0; 3];
            for g in (0..nfp).map(node) {
                for (d, cd) in c.iter_mut().enumerate() {
                    *cd += xyz[d][g] / nfp as f64;
                }
            }
            c
        };
        vmap_m
            .par_chunks_mut(4 * nfp)
            .zip(vmap_p.par_chunks_mut(4 * nfp))
            .zip(face_tag.par_chunks_mut(4))
            .enumerate()
            .try_for_each(|(k, ((vm, vp), tags))| {
                for f in 0..4 {
                    let (vm, vp) = (&mut vm[f * nfp..(f + 1) * nfp], &mut vp[f * nfp..(f + 1) * nfp]);
                    for (slot, &i) in vm.iter_mut().zip(&element.fmask[f]) {
                        *slot = k * np + i;
                    }
                    match connectivity.links[k][f] {
                        FaceLink::Boundary { tag } => {
                            tags[f] = Some(tag);
                            vp.copy_from_slice(vm);
                        }
                        FaceLink::Interior { element: k2, face: f2 } => {
                            let other = |j: usize| k2 * np + element.fmask[f2][j];
                            // translation between the two faces (non-zero across a periodic pair)
                            let (c1, c2) = (centroid(&|j| vm[j]), centroid(&other));
                            let shift: [f64; 3] = std::array::from_fn(|d| c2[d] - c1[d]);
                            // squared distances against the squared tolerance
                            let tol = (1e-7 * faces[4 * k + f].sj.sqrt()).powi(2);
                            for (slot, &g) in vp.iter_mut().zip(vm.iter()) {
                                let target: [f64; 3] = std::array::from_fn(|d| point(g)[d] + shift[d]);
                                let dist = |a: usize| {
                                    let q = point(a);
                                    (0..3).map(|d| (q[d] - target[d]).powi(2)).sum::<f64>()
                                };
                                let best = (0..nfp)
                                    .map(other)
                                    .min_by(|&a, &b| dist(a).total_cmp(&dist(b)))
                                    .ok_or(MeshError::NodeMismatch { element: k, neighbor: k2 })?;
                                if dist(best).is_nan() || dist(best) > tol {
                                    return Err(MeshError::NodeMismatch { element: k, neighbor: k2 });
                                }
                                *slot = best;
                            }
                        }
                    }
                }
                Ok(())
            })?;
        Ok(Self { element, mesh, connectivity, xyz, geometry, faces, vmap_m, vmap_p, face_tag })
    }

    /// Number of elements.
    pub fn num_elements(&self) -> usize {
        self.geometry.len()
    }

    /// Number of nodes (K·Np).
    pub fn num_nodes(&self) -> usize {
        self.xyz[0].len()
    }

    /// For each boundary tag of the connectivity: whether some face carries it.
    pub fn used_tags(&self) -> Vec<bool> {
        let mut used = vec![false; self.connectivity.tag_names.len()];
        for tag in self.face_tag.iter().flatten() {
            used[*tag] = true;
        }
        used
    }

    /// Length scale of the explicit time-step limit: the smallest inradius (3·volume / surface) over the
    /// elements times the smallest spacing of N + 1 Gauss points on [−1, 1]. dt = CFL · scale / wave speed.
    pub fn dt_length_scale(&self) -> f64 {
        let (gauss, _) = crate::jacobi::jacobi_gq(0.0, 0.0, self.element.order);
        let rmin = gauss[1] - gauss[0];
        let inradius = (0..self.num_elements())
            .map(|k| {
                let surface: f64 = (0..4).map(|f| self.faces[4 * k + f].sj * 2.0).sum();
                3.0 * self.mesh.volume(k) / surface
            })
            .fold(f64::INFINITY, f64::min);
        inradius * rmin
    }

    /// Samples `f(x, q)` at every node into a new state (layout `(k * nvars + v) * np + i`).
    pub fn interpolate<T: crate::Real>(&self, nvars: usize, f: impl Fn([f64; 3], &mut [f64]) + Sync) -> Vec<T> {
        sample_nodes(&self.xyz, self.element.np, nvars, f)
    }

    /// L2 norm of (q_h − q_exact) over the domain per variable, with a cubature rule exact to degree 2N + 2.
    pub fn l2_errors<T: crate::Real>(
        &self,
        nvars: usize,
        state: &[T],
        exact: impl Fn([f64; 3], &mut [f64]),
    ) -> Result<Vec<f64>, CoreError> {
        let el = &self.element;
        let np = el.np;
        let rule = tet_cubature(2 * el.order + 2);
        let interp = el.interpolation_matrix(&rule.r, &rule.s, &rule.t)?;
        let mut q = vec![0.0; nvars];
        let mut total = vec![0.0; nvars];
        for k in 0..self.num_elements() {
            let j = self.geometry[k].j;
            let p = self.mesh.elements[k].map(|v| self.mesh.vertices[v]);
            for (c, &w) in rule.w.iter().enumerate() {
                let (r, s, t) = (rule.r[c], rule.s[c], rule.t[c]);
                let l = [-0.5 * (1.0 + r + s + t), 0.5 * (1.0 + r), 0.5 * (1.0 + s), 0.5 * (1.0 + t)];
                let x: [f64; 3] = std::array::from_fn(|d| (0..4).map(|a| l[a] * p[a][d]).sum());
                exact(x, &mut q);
                for v in 0..nvars {
                    let base = (k * nvars + v) * np;
                    let uh: f64 = (0..np).map(|i| interp[(c, i)] * state[base + i].as_f64()).sum();
                    total[v] += w * j * (uh - q[v]).powi(2);
                }
            }
        }
        Ok(total.into_iter().map(f64::sqrt).collect())
    }

    /// Σ_k J_k Σ_v w_v q_vᵀ M q_v: the weighted square norm of the polynomial state (weights per variable and
    /// element, e.g. the energy density factors of a wave law).
    pub fn weighted_square_norm<T: crate::Real>(
        &self,
        nvars: usize,
        state: &[T],
        weight: impl Fn(usize, usize) -> f64,
    ) -> f64 {
        let np = self.element.np;
        let m = &self.element.mass;
        let mut total = 0.0;
        for k in 0..self.num_elements() {
            let j = self.geometry[k].j;
            for v in 0..nvars {
                let u = &state[(k * nvars + v) * np..(k * nvars + v + 1) * np];
                let mut quad = 0.0;
                for a in 0..np {
                    let row: f64 = (0..np).map(|b| m[(a, b)] * u[b].as_f64()).sum();
                    quad += u[a].as_f64() * row;
                }
                total += weight(k, v) * j * quad;
            }
        }
        total
    }
}

/// Samples `f(x, q)` at every node of 3D node coordinates `xyz` (`np` nodes per element) into a new state (layout
/// `(k * nvars + v) * np + i`): what the tetrahedral and hexahedral spaces' `interpolate` share.
pub(crate) fn sample_nodes<T: crate::Real>(
    xyz: &[Vec<f64>; 3],
    np: usize,
    nvars: usize,
    f: impl Fn([f64; 3], &mut [f64]) + Sync,
) -> Vec<T> {
    let num_elements = xyz[0].len() / np.max(1);
    let mut state = vec![T::zero(); num_elements * nvars * np];
    // every element in parallel (the initial states of large meshes)
    state.par_chunks_mut((nvars * np).max(1)).enumerate().for_each(|(k, qk)| {
        let mut q = vec![0.0; nvars];
        for i in 0..np {
            let g = k * np + i;
            f([xyz[0][g], xyz[1][g], xyz[2][g]], &mut q);
            for v in 0..nvars {
                qk[v * np + i] = T::from_f64(q[v]);
            }
        }
    });
    state
}
