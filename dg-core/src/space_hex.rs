//! The discrete DG space on a hexahedral mesh (seed 003): node coordinates and metric terms at the Gauss–Legendre
//! nodes, face points with their normals and surface Jacobians, and the matching point across every face.

use crate::hexahedron::{ReferenceHexahedron, HEX_FACE_CORNERS};
use crate::hexmesh::{adjugate, det3, GeometryClass, HexConnectivity, HexMesh};
use crate::mesh::FaceLink;
use crate::quadrature::gauss_legendre;
use crate::space::SpaceError;
use crate::{CoreError, MeshError};
use rayon::prelude::*;

/// The largest degree a hexahedral space is built for.
pub const MAX_HEX_ORDER: usize = 15;

/// A nodal DG space of degree D on a hexahedral mesh.
///
/// Node `i` of cell `k` has global index `k * np + i`; face point `q` of face `f` of cell `k` has global face
/// index `(k * 6 + f) * nfp + q`.
#[derive(Debug, Clone)]
pub struct HexSpace {
    /// The reference element.
    pub element: ReferenceHexahedron,
    /// The mesh.
    pub mesh: HexMesh,
    /// Face connectivity.
    pub connectivity: HexConnectivity,
    /// Node coordinates (K·Np each).
    pub xyz: [Vec<f64>; 3],
    /// |J| at every node (K·Np).
    pub det_j: Vec<f64>,
    /// |J| J⁻¹ at every node (K·Np): `metric[g][a][d]` = |J| ∂x̂_a/∂x_d.
    pub metric: Vec<[[f64; 3]; 3]>,
    /// Outward unit normal at every face point (K·6·Nfp).
    pub face_normal: Vec<[f64; 3]>,
    /// Surface Jacobian at every face point (K·6·Nfp): area element relative to the unit reference face.
    pub face_area: Vec<f64>,
    /// Coordinates of every face point (K·6·Nfp).
    pub face_xyz: Vec<[f64; 3]>,
    /// The matching face point across each face point (global face index; itself on boundary faces).
    pub face_partner: Vec<usize>,
    /// Boundary tag of each cell face (K·6), `None` for interior faces.
    pub face_tag: Vec<Option<usize>>,
    /// Geometry class of each cell.
    pub class: Vec<GeometryClass>,
}

impl HexSpace {
    /// Builds the space of degree `order` on `mesh`.
    pub fn new(mesh: HexMesh, order: usize) -> Result<Self, SpaceError> {
        let connectivity = HexConnectivity::build(&mesh)?;
        Self::with_connectivity(mesh, order, connectivity)
    }

    /// Builds the space of degree `order` on `mesh` with the face connectivity `connectivity` (a part of a larger
    /// mesh keeps the whole mesh's links; a face linked to itself sees its own trace).
    pub fn with_connectivity(mesh: HexMesh, order: usize, connectivity: HexConnectivity) -> Result<Self, SpaceError> {
        if order > MAX_HEX_ORDER {
            return Err(CoreError::UnsupportedOrder { order, min: 0, max: MAX_HEX_ORDER }.into());
        }
        let element = ReferenceHexahedron::new(order);
        let (np, nfp, k_count) = (element.np, element.nfp, mesh.num_elements());
        // every loop below runs over cells on every core; each cell writes its own chunks
        let mut det_j = vec![0.0; k_count * np];
        let mut metric = vec![[[0.0; 3]; 3]; k_count * np];
        metric.par_chunks_mut(np.max(1)).zip(det_j.par_chunks_mut(np.max(1))).enumerate().for_each(|(k, (m, d))| {
            for i in 0..np {
                let j = mesh.jacobian(k, element.node(i));
                d[i] = det3(&j);
                m[i] = adjugate(&j);
            }
        });
        let xyz: [Vec<f64>; 3] = std::array::from_fn(|d| {
            let mut values = vec![0.0; k_count * np];
            values.par_chunks_mut(np.max(1)).enumerate().for_each(|(k, out)| {
                for (i, v) in out.iter_mut().enumerate() {
                    *v = mesh.map(k, element.node(i))[d];
                }
            });
            values
        });
        let nf = 6 * nfp;
        let mut face_normal = vec![[0.0; 3]; k_count * nf];
        let mut face_area = vec![0.0; k_count * nf];
        let mut face_xyz = vec![[0.0; 3]; k_count * nf];
        face_normal
            .par_chunks_mut(nf.max(1))
            .zip(face_area.par_chunks_mut(nf.max(1)))
            .zip(face_xyz.par_chunks_mut(nf.max(1)))
            .enumerate()
            .for_each(|(k, ((normal, area_of), xyz_of))| {
                for f in 0..6 {
                    let (a, sign) = (f / 2, if f % 2 == 1 { 1.0 } else { -1.0 });
                    for q in 0..nfp {
                        let r = element.face_point(f, q);
                        let c = adjugate(&mesh.jacobian(k, r));
                        let area_vector = [0, 1, 2].map(|d| sign * c[a][d]);
                        let area = area_vector.iter().map(|v| v * v).sum::<f64>().sqrt();
                        normal[f * nfp + q] = area_vector.map(|v| v / area);
                        area_of[f * nfp + q] = area;
                        xyz_of[f * nfp + q] = mesh.map(k, r);
                    }
                }
            });
        let face_tag: Vec<Option<usize>> = (0..6 * k_count)
            .map(|g| match connectivity.links[g / 6][g % 6] {
                FaceLink::Boundary { tag } => Some(tag),
                FaceLink::Interior { .. } => None,
            })
            .collect();
        let mut face_partner: Vec<usize> = (0..k_count * nf).collect();
        // the partners of each cell's faces; the error of the lowest cell whose face does not conform (the same
        // one a serial sweep reports)
        let nonconforming = face_partner
            .par_chunks_mut(nf.max(1))
            .enumerate()
            .filter_map(|(k, partners)| {
                for f in 0..6 {
                    let FaceLink::Interior { element: k2, face: f2 } = connectivity.links[k][f] else { continue };
                    let centroid = |k: usize, f: usize| -> [f64; 3] {
                        let p = HEX_FACE_CORNERS[f].map(|c| mesh.vertices[mesh.elements[k][c]]);
                        std::array::from_fn(|d| p.iter().map(|x| x[d]).sum::<f64>() / 4.0)
                    };
                    let (c1, c2) = (centroid(k, f), centroid(k2, f2));
                    let shift: [f64; 3] = std::array::from_fn(|d| c2[d] - c1[d]);
                    let tolerance = 1e-8 * mesh.max_edge_of(k);
                    for q in 0..nfp {
                        let own = (k * 6 + f) * nfp + q;
                        let target: [f64; 3] = std::array::from_fn(|d| face_xyz[own][d] + shift[d]);
                        let (best, distance) = (0..nfp)
                            .map(|q2| {
                                let other = (k2 * 6 + f2) * nfp + q2;
                                (other, crate::mesh3d::distance3(target, face_xyz[other]))
                            })
                            .fold((usize::MAX, f64::INFINITY), |b, c| if c.1 < b.1 { c } else { b });
                        if distance.is_nan() || distance > tolerance {
                            return Some((k, f, k2, f2, distance));
                        }
                        partners[f * nfp + q] = best;
                    }
                }
                None
            })
            .min_by_key(|&(k, ..)| k);
        if let Some((k, f, k2, f2, distance)) = nonconforming {
            return Err(SpaceError::from(MeshError::Invalid(format!(
                "face {f} of hexahedron {k} and face {f2} of hexahedron {k2} share their corners but not their points \
                 (distance {distance:e}): the faces are not conforming"
            ))));
        }
        let class = (0..k_count).into_par_iter().map(|k| mesh.geometry_class(k)).collect();
        Ok(Self {
            element,
            mesh,
            connectivity,
            xyz,
            det_j,
            metric,
            face_normal,
            face_area,
            face_xyz,
            face_partner,
            face_tag,
            class,
        })
    }

    /// Number of cells.
    pub fn num_elements(&self) -> usize {
        self.mesh.num_elements()
    }

    /// Number of nodes (K·Np).
    pub fn num_nodes(&self) -> usize {
        self.num_elements() * self.element.np
    }

    /// Which boundary tags some face carries.
    pub fn used_tags(&self) -> Vec<bool> {
        let mut used = vec![false; self.connectivity.tag_names.len()];
        for tag in self.face_tag.iter().flatten() {
            used[*tag] = true;
        }
        used
    }

    /// Length scale of the explicit time-step limit: the smallest cell volume over largest face area, times the
    /// smallest spacing of the D + 1 Gauss points on [0, 1]. dt = CFL · scale / wave speed.
    pub fn dt_length_scale(&self) -> f64 {
        let el = &self.element;
        let spacing = if el.n1 > 1 { el.points[1] - el.points[0] } else { 1.0 };
        let (np, nfp) = (el.np, el.nfp);
        let thickness = (0..self.num_elements())
            .map(|k| {
                let volume: f64 = (0..np).map(|i| el.weight(i) * self.det_j[k * np + i]).sum();
                let largest_face = (0..6)
                    .map(|f| (0..nfp).map(|q| el.face_weight(q) * self.face_area[(k * 6 + f) * nfp + q]).sum::<f64>())
                    .fold(0.0, f64::max);
                volume / largest_face
            })
            .fold(f64::INFINITY, f64::min);
        thickness * spacing
    }

    /// Samples `f(x, q)` at every node into a new state (layout `(k * nvars + v) * np + i`).
    pub fn interpolate<T: crate::Real>(&self, nvars: usize, f: impl Fn([f64; 3], &mut [f64]) + Sync) -> Vec<T> {
        crate::space3d::sample_nodes(&self.xyz, self.element.np, nvars, f)
    }

    /// L2 error per variable of `state` against `exact`, by a Gauss rule of D + 3 points per direction.
    pub fn l2_errors<T: crate::Real>(
        &self,
        nvars: usize,
        state: &[T],
        exact: impl Fn([f64; 3], &mut [f64]) + Sync,
    ) -> Result<Vec<f64>, CoreError> {
        Ok(self.l2_errors_and_norms(nvars, state, exact)?.0)
    }

    /// L2 error per variable of `state` against `exact` and L2 norm per variable of `exact`, by a Gauss rule of
    /// D + 3 points per direction; the cells in parallel (each cell's sums, then added in cell order: the result
    /// does not depend on the threads), the state interpolated to the rule's points one direction at a time.
    pub fn l2_errors_and_norms<T: crate::Real>(
        &self,
        nvars: usize,
        state: &[T],
        exact: impl Fn([f64; 3], &mut [f64]) + Sync,
    ) -> Result<(Vec<f64>, Vec<f64>), CoreError> {
        use rayon::prelude::*;
        let el = &self.element;
        let (np, n1) = (el.np, el.n1);
        if state.len() != self.num_elements() * nvars * np {
            return Err(CoreError::StateLength { got: state.len(), expected: self.num_elements() * nvars * np });
        }
        let rule = gauss_legendre(el.order + 3);
        let pts: Vec<f64> = rule.points.iter().map(|&r| 0.5 * (r + 1.0)).collect();
        let wts: Vec<f64> = rule.weights.iter().map(|&w| 0.5 * w).collect();
        let n = pts.len();
        // interpolation from the nodes to the rule's points along one direction: l[c * n1 + m] = l_m(x_c)
        let l: Vec<f64> = (0..n)
            .flat_map(|c| (0..n1).map(move |m| (c, m)))
            .map(|(c, m)| crate::hexahedron::lagrange(&el.points, m, pts[c]))
            .collect();
        let per_cell: Vec<Vec<f64>> = (0..self.num_elements())
            .into_par_iter()
            .map(|k| {
                let mut sums = vec![0.0; 2 * nvars];
                let mut q = vec![0.0; nvars];
                // u_h at every rule point, per variable: along x, then y, then z
                let mut at = vec![0.0; nvars * n * n * n];
                let (mut a, mut b) = (vec![0.0; n * n1 * n1], vec![0.0; n * n * n1]);
                for v in 0..nvars {
                    let u = &state[(k * nvars + v) * np..(k * nvars + v + 1) * np];
                    for p3 in 0..n1 {
                        for p2 in 0..n1 {
                            for c0 in 0..n {
                                a[(p3 * n1 + p2) * n + c0] =
                                    (0..n1).map(|p1| l[c0 * n1 + p1] * u[(p3 * n1 + p2) * n1 + p1].as_f64()).sum();
                            }
                        }
                    }
                    for p3 in 0..n1 {
                        for c1 in 0..n {
                            for c0 in 0..n {
                                b[(p3 * n + c1) * n + c0] =
                                    (0..n1).map(|p2| l[c1 * n1 + p2] * a[(p3 * n1 + p2) * n + c0]).sum();
                            }
                        }
                    }
                    for c2 in 0..n {
                        for c1 in 0..n {
                            for c0 in 0..n {
                                at[(v * n + c2) * n * n + c1 * n + c0] =
                                    (0..n1).map(|p3| l[c2 * n1 + p3] * b[(p3 * n + c1) * n + c0]).sum();
                            }
                        }
                    }
                }
                for c in 0..n * n * n {
                    let pc = [c % n, (c / n) % n, c / (n * n)];
                    let r = pc.map(|p| pts[p]);
                    let w: f64 = pc.iter().map(|&p| wts[p]).product();
                    let x = self.mesh.map(k, r);
                    let det = det3(&self.mesh.jacobian(k, r));
                    exact(x, &mut q);
                    for v in 0..nvars {
                        let uh = at[v * n * n * n + c];
                        sums[v] += w * det * (uh - q[v]).powi(2);
                        sums[nvars + v] += w * det * q[v].powi(2);
                    }
                }
                sums
            })
            .collect();
        let mut total = vec![0.0; 2 * nvars];
        for sums in &per_cell {
            for (t, s) in total.iter_mut().zip(sums) {
                *t += s;
            }
        }
        let errors = total[..nvars].iter().map(|t| t.sqrt()).collect();
        let norms = total[nvars..].iter().map(|t| t.sqrt()).collect();
        Ok((errors, norms))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hexmesh::{hex_box_mesh, HexBoxSpec};

    fn distorted(n: usize, periodic: bool) -> HexMesh {
        let spec = HexBoxSpec {
            lower: [0.0, -1.0, 0.5],
            upper: [2.0, 0.5, 1.5],
            cells: [n, n + 1, n + 2],
            periodic: [periodic, false, periodic],
            distortion: 0.2,
        };
        hex_box_mesh(&spec).expect("box")
    }

    #[test]
    fn geometry_integrates_volume_and_surface_and_is_watertight() {
        for periodic in [false, true] {
            let space = HexSpace::new(distorted(3, periodic), 3).expect("space");
            let el = &space.element;
            let (np, nfp) = (el.np, el.nfp);
            let volume: f64 = (0..space.num_nodes()).map(|g| el.weight(g % np) * space.det_j[g]).sum();
            assert!((volume - 2.0 * 1.5 * 1.0).abs() < 1e-12, "volume {volume}");
            assert!(space.class.contains(&GeometryClass::Trilinear));
            // the boundary's area, and every interior point matched by a point with the opposite normal
            let mut boundary = 0.0;
            for k in 0..space.num_elements() {
                for f in 0..6 {
                    for q in 0..nfp {
                        let g = (k * 6 + f) * nfp + q;
                        let p = space.face_partner[g];
                        if space.face_tag[6 * k + f].is_some() {
                            boundary += el.face_weight(q) * space.face_area[g];
                            assert_eq!(p, g);
                        } else {
                            assert_ne!(p, g);
                            assert_eq!(space.face_partner[p], g, "matching is symmetric");
                            let n = (0..3).map(|d| space.face_normal[g][d] + space.face_normal[p][d]).map(f64::abs);
                            assert!(n.fold(0.0, f64::max) < 1e-12, "normals opposite");
                            assert!((space.face_area[g] - space.face_area[p]).abs() < 1e-12);
                        }
                    }
                }
            }
            let expected = if periodic { 2.0 * (2.0 * 1.0) } else { 2.0 * (2.0 * 1.5 + 2.0 * 1.0 + 1.5 * 1.0) };
            assert!((boundary - expected).abs() < 1e-12, "boundary area {boundary} vs {expected}");
        }
    }

    #[test]
    fn the_divergence_theorem_holds_cell_by_cell() {
        // Σ_i ω_i Σ_a ∂ψ… : for F = x (∇·F = 3), ∫_cell 3 = ∮ x·n over the faces, with the discrete metric
        let space = HexSpace::new(distorted(2, false), 2).expect("space");
        let el = &space.element;
        let (np, nfp) = (el.np, el.nfp);
        for k in 0..space.num_elements() {
            let volume: f64 = (0..np).map(|i| el.weight(i) * space.det_j[k * np + i]).sum();
            let flux: f64 = (0..6)
                .flat_map(|f| (0..nfp).map(move |q| (f, q)))
                .map(|(f, q)| {
                    let g = (k * 6 + f) * nfp + q;
                    let (x, n) = (space.face_xyz[g], space.face_normal[g]);
                    el.face_weight(q) * space.face_area[g] * (x[0] * n[0] + x[1] * n[1] + x[2] * n[2])
                })
                .sum();
            assert!((3.0 * volume - flux).abs() < 1e-12, "cell {k}: 3V = {} vs flux {flux}", 3.0 * volume);
        }
    }

    #[test]
    fn l2_error_of_the_interpolant_is_small_and_of_zero_is_the_norm() {
        let space = HexSpace::new(distorted(3, false), 4).expect("space");
        let f = |x: [f64; 3], q: &mut [f64]| q[0] = (x[0] + 2.0 * x[1]).sin() * x[2];
        let u: Vec<f64> = space.interpolate(1, f);
        let e = space.l2_errors(1, &u, f).expect("errors");
        assert!(e[0] < 1e-4, "interpolation error {}", e[0]);
        let zero = vec![0.0; u.len()];
        let norm = space.l2_errors(1, &zero, |_, q| q[0] = 1.0).expect("norm")[0];
        assert!((norm - (3.0f64).sqrt()).abs() < 1e-12, "‖1‖ = {norm}");
    }

    #[test]
    fn bad_boxes_are_refused() {
        let mut spec = HexBoxSpec::unit_cube(2, true);
        assert!(hex_box_mesh(&spec).is_err(), "two periodic cells");
        spec.periodic = [false; 3];
        spec.distortion = 0.5;
        assert!(hex_box_mesh(&spec).is_err(), "distortion too large");
    }
}
