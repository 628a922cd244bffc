//! The discrete DG space on a triangle mesh: node coordinates, face-node maps (vmapM / vmapP), boundary
//! information and geometric factors, all in the layouts the operators use.

use crate::mesh::{Connectivity, ElementGeometry, FaceGeometry, FaceLink, TriMesh};
use crate::triangle::ReferenceTriangle;
use crate::{CoreError, MeshError};
use rayon::prelude::*;

/// Errors building a DG space.
#[derive(Debug, thiserror::Error)]
pub enum SpaceError {
    /// The reference element could not be built.
    #[error(transparent)]
    Core(#[from] CoreError),
    /// The mesh is invalid.
    #[error(transparent)]
    Mesh(#[from] MeshError),
}

/// A nodal DG space of order N on a triangle mesh.
///
/// Node `i` of element `k` has global index `k * np + i`. Face node `j` (0..3·Nfp) of element `k`, face
/// `j / nfp`, has entry `k * 3 * nfp + j` in `vmap_m` (its own node) and `vmap_p` (the matching node across the
/// face; the own node again on boundary faces).
#[derive(Debug, Clone)]
pub struct DgSpace2d {
    /// The reference element.
    pub element: ReferenceTriangle,
    /// The mesh.
    pub mesh: TriMesh,
    /// Face connectivity.
    pub connectivity: Connectivity,
    /// Node x coordinates (K·Np).
    pub x: Vec<f64>,
    /// Node y coordinates (K·Np).
    pub y: Vec<f64>,
    /// Per element metric terms.
    pub geometry: Vec<ElementGeometry>,
    /// Per element face (K·3).
    pub faces: Vec<FaceGeometry>,
    /// Interior node of each face node (K·3·Nfp), global index.
    pub vmap_m: Vec<usize>,
    /// Exterior node of each face node (K·3·Nfp), global index.
    pub vmap_p: Vec<usize>,
    /// Boundary tag of each element face (K·3), `None` for interior faces.
    pub face_tag: Vec<Option<usize>>,
}

impl DgSpace2d {
    /// Builds the space of order `order` on `mesh`.
    pub fn new(mesh: TriMesh, order: usize) -> Result<Self, SpaceError> {
        let connectivity = Connectivity::build(&mesh)?;
        Self::with_connectivity(mesh, order, connectivity)
    }

    /// Builds the space of order `order` on `mesh` with a given face connectivity instead of the one the mesh's
    /// vertices give: a rank's part of a partitioned mesh, whose faces follow the whole mesh's connectivity
    /// (`dg-parallel`). A face linked to itself takes its own trace as the exterior state.
    pub fn with_connectivity(mesh: TriMesh, order: usize, connectivity: Connectivity) -> Result<Self, SpaceError> {
        let element = ReferenceTriangle::new(order)?;
        crate::mesh::check_connectivity_size(connectivity.links.len(), mesh.num_elements())?;
        let (np, nfp) = (element.np, element.nfp);
        let k_count = mesh.num_elements();
        // every element's nodes, geometry and face maps are independent: built in parallel
        let (mut x, mut y) = (vec![0.0; k_count * np], vec![0.0; k_count * np]);
        x.par_chunks_mut(np).zip(y.par_chunks_mut(np)).zip(mesh.elements.par_iter()).for_each(|((xk, yk), e)| {
            let [p0, p1, p2] = [mesh.vertices[e[0]], mesh.vertices[e[1]], mesh.vertices[e[2]]];
            for i in 0..np {
                let (r, s) = (element.r[i], element.s[i]);
                let (l0, l1, l2) = (-0.5 * (r + s), 0.5 * (1.0 + r), 0.5 * (1.0 + s));
                xk[i] = l0 * p0[0] + l1 * p1[0] + l2 * p2[0];
                yk[i] = l0 * p0[1] + l1 * p1[1] + l2 * p2[1];
            }
        });
        // (each element's geometry and its three faces' written in place: no per-element arrays to flatten)
        let unset = FaceGeometry { nx: 0.0, ny: 0.0, sj: 0.0, fscale: 0.0 };
        let mut geometry = vec![ElementGeometry { rx: 0.0, ry: 0.0, sx: 0.0, sy: 0.0, j: 0.0 }; k_count];
        let mut faces = vec![unset; 3 * k_count];
        geometry.par_iter_mut().zip(faces.par_chunks_mut(3)).enumerate().for_each(|(k, (g, f))| {
            let (element, element_faces) = ElementGeometry::of_element(&mesh, k);
            *g = element;
            f.copy_from_slice(&element_faces);
        });
        let (mut vmap_m, mut vmap_p) = (vec![0; k_count * 3 * nfp], vec![0; k_count * 3 * nfp]);
        let mut face_tag = vec![None; 3 * k_count];
        let per_element = 3 * nfp;
        vmap_m
            .par_chunks_mut(per_element)
            .zip(vmap_p.par_chunks_mut(per_element))
            .zip(face_tag.par_chunks_mut(3))
            .enumerate()
            .try_for_each(|(k, ((vm, vp), tags))| {
                for f in 0..3 {
                    let own = element.fmask[f].iter().map(|&i| k * np + i);
                    for (slot, g) in vm[f * nfp..(f + 1) * nfp].iter_mut().zip(own) {
                        *slot = g;
                    }
                    let vp = &mut vp[f * nfp..(f + 1) * nfp];
                    match connectivity.links[k][f] {
                        FaceLink::Boundary { tag } => {
                            tags[f] = Some(tag);
                            vp.copy_from_slice(&vm[f * nfp..(f + 1) * nfp]);
                        }
                        FaceLink::Interior { element: k2, face: f2 } => {
                            let own = &vm[f * nfp..(f + 1) * nfp];
                            let other = |j: usize| k2 * np + element.fmask[f2][j];
                            // squared distances (hypot's care costs a third of the space's time on large meshes)
                            let tol = (1e-8 * faces[3 * k + f].sj).powi(2);
                            // two faces that meet run in opposite directions on a conforming mesh: node j meets the
                            // other face's node nfp − 1 − j; checked first where the faces coincide (every face but
                            // a periodic pair's), then with the translation between them, and searched for where
                            // neither holds
                            let squared = |shift: (f64, f64), g: usize, a: usize| {
                                let (dx, dy) = (x[a] - (x[g] + shift.0), y[a] - (y[g] + shift.1));
                                dx * dx + dy * dy
                            };
                            let reversed =
                                |shift: (f64, f64)| (0..nfp).all(|j| squared(shift, own[j], other(nfp - 1 - j)) <= tol);
                            if reversed((0.0, 0.0)) {
                                for (j, slot) in vp.iter_mut().enumerate() {
                                    *slot = other(nfp - 1 - j);
                                }
                                continue;
                            }
                            // translation between the two faces (non-zero across a periodic pair)
                            let mid = |node: &dyn Fn(usize) -> usize| {
                                let (sx, sy) =
                                    (0..nfp).map(node).fold((0.0, 0.0), |(sx, sy), g| (sx + x[g], sy + y[g]));
                                (sx / nfp as f64, sy / nfp as f64)
                            };
                            let (m1, m2) = (mid(&|j| own[j]), mid(&other));
                            let shift = (m2.0 - m1.0, m2.1 - m1.1);
                            let distance = |g: usize, a: usize| squared(shift, g, a);
                            if reversed(shift) {
                                for (j, slot) in vp.iter_mut().enumerate() {
                                    *slot = other(nfp - 1 - j);
                                }
                                continue;
                            }
                            for (slot, &g) in vp.iter_mut().zip(own) {
                                let best = (0..nfp)
                                    .map(other)
                                    .min_by(|&a, &b| distance(g, a).total_cmp(&distance(g, b)))
                                    .ok_or(MeshError::NodeMismatch { element: k, neighbor: k2 })?;
                                if distance(g, best).is_nan() || distance(g, best) > tol {
                                    return Err(MeshError::NodeMismatch { element: k, neighbor: k2 });
                                }
                                *slot = best;
                            }
                        }
                    }
                }
                Ok(())
            })?;
        Ok(Self { element, mesh, connectivity, x, y, geometry, faces, vmap_m, vmap_p, face_tag })
    }

    /// Number of elements.
    pub fn num_elements(&self) -> usize {
        self.geometry.len()
    }

    /// For each boundary tag of the connectivity: whether some face carries it.
    pub fn used_tags(&self) -> Vec<bool> {
        let mut used = vec![false; self.connectivity.tag_names.len()];
        for tag in self.face_tag.iter().flatten() {
            used[*tag] = true;
        }
        used
    }

    /// Global indices of the nodes on boundary faces carrying tag `tag` (sorted, without duplicates).
    pub fn boundary_nodes(&self, tag: usize) -> Vec<usize> {
        let nfp = self.element.nfp;
        let mut nodes: Vec<usize> = (0..self.face_tag.len())
            .filter(|&face| self.face_tag[face] == Some(tag))
            .flat_map(|face| self.vmap_m[face * nfp..(face + 1) * nfp].iter().copied())
            .collect();
        nodes.sort_unstable();
        nodes.dedup();
        nodes
    }

    /// Number of nodes (K·Np).
    pub fn num_nodes(&self) -> usize {
        self.x.len()
    }

    /// Length scale of the explicit time-step limit (Hesthaven & Warburton): the smallest inradius over the
    /// elements times the smallest spacing of N + 1 Gauss points on [−1, 1]. dt = CFL · scale / wave speed.
    pub fn dt_length_scale(&self) -> f64 {
        let n = self.element.order;
        let (gauss, _) = crate::jacobi::jacobi_gq(0.0, 0.0, n);
        let rmin = gauss[1] - gauss[0];
        let inradius = (0..self.num_elements())
            .map(|k| {
                let e = self.mesh.elements[k];
                let v = |i: usize| self.mesh.vertices[e[i]];
                let perimeter: f64 = (0..3).map(|f| crate::mesh::distance(v(f), v((f + 1) % 3))).sum();
                2.0 * self.mesh.area(k) / perimeter
            })
            .fold(f64::INFINITY, f64::min);
        inradius * rmin
    }
}

/// Operations on states of `nvars` variables stored element-major, then variable, then node:
/// entry `(k * nvars + v) * np + i` (the layout of the CPU operator).
impl DgSpace2d {
    /// Samples `f(x, y, q)` at every node into a new state.
    pub fn interpolate<T: crate::Real>(&self, nvars: usize, f: impl Fn(f64, f64, &mut [f64]) + Sync) -> Vec<T> {
        let np = self.element.np;
        let mut state = vec![T::zero(); self.num_elements() * nvars * np];
        state.par_chunks_mut(nvars * np).enumerate().for_each(|(k, qk)| {
            let mut q = vec![0.0; nvars];
            for i in 0..np {
                f(self.x[k * np + i], self.y[k * np + i], &mut q);
                for v in 0..nvars {
                    qk[v * np + i] = T::from_f64(q[v]);
                }
            }
        });
        state
    }

    /// L2 norm of (q_h − q_exact) over the domain, all variables together, with a cubature rule exact to
    /// degree 2N + 2 on each element.
    pub fn l2_error<T: crate::Real>(
        &self,
        nvars: usize,
        state: &[T],
        exact: impl Fn(f64, f64, &mut [f64]) + Sync,
    ) -> Result<f64, CoreError> {
        let el = &self.element;
        let np = el.np;
        let rule = crate::triangle::triangle_cubature(2 * el.order + 2);
        let interp = el.interpolation_matrix(&rule.r, &rule.s)?;
        let total = element_sum(self.num_elements(), |k| {
            let mut q = vec![0.0; nvars];
            let mut total = 0.0;
            let j = self.geometry[k].j;
            let e = self.mesh.elements[k];
            let [p0, p1, p2] = [self.mesh.vertices[e[0]], self.mesh.vertices[e[1]], self.mesh.vertices[e[2]]];
            for (p, &w) in rule.w.iter().enumerate() {
                let (r, s) = (rule.r[p], rule.s[p]);
                let (l0, l1, l2) = (-0.5 * (r + s), 0.5 * (1.0 + r), 0.5 * (1.0 + s));
                let x = l0 * p0[0] + l1 * p1[0] + l2 * p2[0];
                let y = l0 * p0[1] + l1 * p1[1] + l2 * p2[1];
                exact(x, y, &mut q);
                for v in 0..nvars {
                    let base = (k * nvars + v) * np;
                    let uh: f64 = (0..np).map(|i| interp[(p, i)] * state[base + i].as_f64()).sum();
                    total += w * j * (uh - q[v]).powi(2);
                }
            }
            total
        });
        Ok(total.sqrt())
    }

    /// ∫ Σ_v q_v² over the domain, exactly for the polynomial state (Σ_k J_k q_vᵀ M q_v).
    ///
    /// Each row of M times the element's values is summed in four interleaved partial sums (b mod 4), so that the
    /// products do not wait on one another: a run's start-up and checks form this over the whole state (720,000
    /// triangles at N = 4: 486M multiply-adds).
    pub fn square_norm<T: crate::Real>(&self, nvars: usize, state: &[T]) -> f64 {
        let np = self.element.np;
        let rows: Vec<f64> = crate::matrix::to_row_major(&self.element.mass);
        element_sum(self.num_elements(), |k| {
            let j = self.geometry[k].j;
            let mut total = 0.0;
            for v in 0..nvars {
                let u = &state[(k * nvars + v) * np..(k * nvars + v + 1) * np];
                let mut quad = 0.0;
                for (row, ua) in rows.chunks_exact(np).zip(u) {
                    quad += ua.as_f64() * row_times(row, u);
                }
                total += j * quad;
            }
            total
        })
    }
}

/// Σ_b row_b·u_b in four partial sums over b mod 4, added as (s0 + s1) + (s2 + s3), then the last np mod 4 terms.
fn row_times<T: crate::Real>(row: &[f64], u: &[T]) -> f64 {
    let mut s = [0.0; 4];
    let (body, tail) = (row.len() / 4 * 4, row.len() % 4);
    for (r, x) in row[..body].chunks_exact(4).zip(u[..body].chunks_exact(4)) {
        for i in 0..4 {
            s[i] += r[i] * x[i].as_f64();
        }
    }
    let mut sum = (s[0] + s[1]) + (s[2] + s[3]);
    for i in body..body + tail {
        sum += row[i] * u[i].as_f64();
    }
    sum
}

/// Σ_k f(k) over `count` elements in parallel, in a fixed order: blocks of [`SUM_BLOCK`] elements summed in
/// order, then the blocks' sums in order, so the result does not depend on the threads (a continued run
/// reports the same energy as an uninterrupted one).
pub fn element_sum(count: usize, f: impl Fn(usize) -> f64 + Sync) -> f64 {
    let blocks: Vec<f64> = (0..count.div_ceil(SUM_BLOCK))
        .into_par_iter()
        .map(|b| (b * SUM_BLOCK..((b + 1) * SUM_BLOCK).min(count)).map(&f).sum::<f64>())
        .collect();
    blocks.iter().sum()
}

/// Elements per block of [`element_sum`].
pub const SUM_BLOCK: usize = 1024;

#[cfg(test)]
mod sum_tests {
    use super::element_sum;

    #[test]
    fn element_sums_do_not_depend_on_the_threads() {
        let f = |k: usize| ((k as f64) * 0.37).sin() * 1e-3 + 1.0 / (k as f64 + 1.0);
        let count = 10 * super::SUM_BLOCK + 17;
        let sums: Vec<u64> = [1, 2, 5]
            .iter()
            .map(|&threads| {
                let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
                pool.install(|| element_sum(count, f)).to_bits()
            })
            .collect();
        assert!(sums.windows(2).all(|w| w[0] == w[1]), "{sums:?}");
        let serial: f64 = (0..count).map(f).sum();
        assert!((f64::from_bits(sums[0]) - serial).abs() < 1e-12 * serial);
    }
}
