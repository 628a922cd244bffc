//! The discrete DG space on a triangle mesh: node coordinates, face-node maps (vmapM / vmapP), boundary
//! information and geometric factors, all in the layouts the operators use.

use crate::mesh::{Connectivity, ElementGeometry, FaceGeometry, FaceLink, TriMesh};
use crate::triangle::ReferenceTriangle;
use crate::{CoreError, MeshError};

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
        let element = ReferenceTriangle::new(order)?;
        let connectivity = Connectivity::build(&mesh)?;
        let (np, nfp) = (element.np, element.nfp);
        let k_count = mesh.num_elements();
        let mut x = Vec::with_capacity(k_count * np);
        let mut y = Vec::with_capacity(k_count * np);
        let mut geometry = Vec::with_capacity(k_count);
        let mut faces = Vec::with_capacity(3 * k_count);
        for (k, e) in mesh.elements.iter().enumerate() {
            let [p0, p1, p2] = [mesh.vertices[e[0]], mesh.vertices[e[1]], mesh.vertices[e[2]]];
            for i in 0..np {
                let (r, s) = (element.r[i], element.s[i]);
                let (l0, l1, l2) = (-0.5 * (r + s), 0.5 * (1.0 + r), 0.5 * (1.0 + s));
                x.push(l0 * p0[0] + l1 * p1[0] + l2 * p2[0]);
                y.push(l0 * p0[1] + l1 * p1[1] + l2 * p2[1]);
            }
            let (g, f) = ElementGeometry::of_element(&mesh, k);
            geometry.push(g);
            faces.extend(f);
        }
        let mut vmap_m = Vec::with_capacity(k_count * 3 * nfp);
        let mut vmap_p = Vec::with_capacity(k_count * 3 * nfp);
        let mut face_tag = Vec::with_capacity(3 * k_count);
        for k in 0..k_count {
            for f in 0..3 {
                let own: Vec<usize> = element.fmask[f].iter().map(|&i| k * np + i).collect();
                match connectivity.links[k][f] {
                    FaceLink::Boundary { tag } => {
                        face_tag.push(Some(tag));
                        vmap_p.extend(&own);
                    }
                    FaceLink::Interior { element: k2, face: f2 } => {
                        face_tag.push(None);
                        let other: Vec<usize> = element.fmask[f2].iter().map(|&i| k2 * np + i).collect();
                        // translation between the two faces (non-zero across a periodic pair)
                        let mid = |nodes: &[usize]| {
                            let n = nodes.len() as f64;
                            (nodes.iter().map(|&g| x[g]).sum::<f64>() / n, nodes.iter().map(|&g| y[g]).sum::<f64>() / n)
                        };
                        let (m1, m2) = (mid(&own), mid(&other));
                        let shift = (m2.0 - m1.0, m2.1 - m1.1);
                        let tol = 1e-8 * faces[3 * k + f].sj;
                        for &g in &own {
                            let (px, py) = (x[g] + shift.0, y[g] + shift.1);
                            let best = other
                                .iter()
                                .copied()
                                .min_by(|&a, &b| {
                                    let da = (x[a] - px).hypot(y[a] - py);
                                    let db = (x[b] - px).hypot(y[b] - py);
                                    da.total_cmp(&db)
                                })
                                .expect("faces have nodes");
                            if (x[best] - px).hypot(y[best] - py) > tol {
                                return Err(MeshError::NodeMismatch { element: k, neighbor: k2 }.into());
                            }
                            vmap_p.push(best);
                        }
                    }
                }
                vmap_m.extend(own);
            }
        }
        Ok(Self { element, mesh, connectivity, x, y, geometry, faces, vmap_m, vmap_p, face_tag })
    }

    /// Number of elements.
    pub fn num_elements(&self) -> usize {
        self.geometry.len()
    }

    /// Number of nodes (K·Np).
    pub fn num_nodes(&self) -> usize {
        self.x.len()
    }

    /// Shortest distance between nodes, the length scale of the explicit time-step limit:
    /// min over elements of the inradius, times the smallest Gauss–Lobatto spacing on [−1, 1] / 2.
    pub fn dt_length_scale(&self) -> f64 {
        let n = self.element.order;
        let gll = crate::jacobi::jacobi_gl(0.0, 0.0, n);
        let rmin = gll[1] - gll[0];
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
