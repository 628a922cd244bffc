//! Element-to-element connectivity through faces, with checks for non-manifold and non-conforming faces.

use super::{dist, sorted_pair, TriMesh, DEFAULT_BOUNDARY_TAG};
use crate::MeshError;
use rayon::prelude::*;
use std::collections::HashMap;

/// What lies across a face.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FaceLink {
    /// Another element (possibly through periodicity), and its local face.
    Interior {
        /// Neighbouring element.
        element: usize,
        /// Its local face index.
        face: usize,
    },
    /// The domain boundary, with the index of its tag in [`TriMesh::tag_names`].
    Boundary {
        /// Tag index.
        tag: usize,
    },
}

/// Face connectivity of a mesh: `links[k][f]` tells what lies across local face `f` of element `k`.
/// Local face `f` joins vertices `f` and `(f + 1) % 3`.
#[derive(Debug, Clone)]
pub struct Connectivity {
    /// Per element, per local face.
    pub links: Vec<[FaceLink; 3]>,
    /// Tag names, possibly extended by [`DEFAULT_BOUNDARY_TAG`] for untagged boundary faces.
    pub tag_names: Vec<String>,
}

impl Connectivity {
    /// Matches faces by their (periodically identified) vertices and checks the mesh is conforming and
    /// manifold. Boundary faces without a tag get [`DEFAULT_BOUNDARY_TAG`].
    pub fn build(mesh: &TriMesh) -> Result<Self, MeshError> {
        // every face keyed by its vertices and numbered 3k + f, packed in one integer — the vertices (a < b) as
        // a·2³² + b in the high 64 bits, the face in the low — and sorted (in parallel): equal keys are the faces
        // that meet (16-byte integers sort faster than tuples of four words; an indexed iterator: collected in
        // place)
        if mesh.vertices.len() > u32::MAX as usize {
            return Err(MeshError::Invalid(format!(
                "{} vertices: the face connectivity takes at most 2^32",
                mesh.vertices.len()
            )));
        }
        let mut keyed: Vec<u128> = (0..3 * mesh.num_elements())
            .into_par_iter()
            .map(|face| {
                let (f, e) = (face % 3, mesh.elements[face / 3]);
                let [a, b] = sorted_pair(mesh.canonical_vertex(e[f]), mesh.canonical_vertex(e[(f + 1) % 3]));
                ((((a as u128) << 32) | b as u128) << 64) | face as u128
            })
            .collect();
        keyed.par_sort_unstable();
        let unpack = |packed: u128| {
            let (key, face) = ((packed >> 64) as u64, packed as u64 as usize);
            ([(key >> 32) as usize, key as u32 as usize], face / 3, face % 3)
        };
        let mut tag_names = mesh.tag_names.clone();
        let mut links = vec![[FaceLink::Boundary { tag: usize::MAX }; 3]; mesh.num_elements()];
        let mut open_faces = Vec::new();
        for group in keyed.chunk_by(|a, b| a >> 64 == b >> 64) {
            match *group {
                [one, other] => {
                    let ((_, k1, f1), (_, k2, f2)) = (unpack(one), unpack(other));
                    links[k1][f1] = FaceLink::Interior { element: k2, face: f2 };
                    links[k2][f2] = FaceLink::Interior { element: k1, face: f1 };
                }
                [alone] => {
                    let (_, k, f) = unpack(alone);
                    let e = mesh.elements[k];
                    let geometric = sorted_pair(e[f], e[(f + 1) % 3]);
                    let tag = match mesh.boundary_tags.get(&geometric) {
                        Some(&t) => t,
                        None => default_boundary_tag(&mut tag_names),
                    };
                    links[k][f] = FaceLink::Boundary { tag };
                    open_faces.push((k, f));
                }
                _ => {
                    let many: Vec<([usize; 2], usize, usize)> = group.iter().map(|&packed| unpack(packed)).collect();
                    let key = many[0].0;
                    let elements: Vec<usize> = many.iter().map(|&(_, k, _)| k).collect();
                    let origins = elements.iter().map(|&k| mesh.origin(k)).collect::<String>();
                    return Err(MeshError::NonManifold { a: key[0], b: key[1], elements, origins });
                }
            }
        }
        check_conforming(mesh, &open_faces)?;
        Ok(Self { links, tag_names })
    }
}

/// The index of [`DEFAULT_BOUNDARY_TAG`] in `tag_names`, appended when missing: the tag of untagged boundary faces
/// (triangle, tetrahedral and hexahedral connectivity).
pub(crate) fn default_boundary_tag(tag_names: &mut Vec<String>) -> usize {
    match tag_names.iter().position(|t| t == DEFAULT_BOUNDARY_TAG) {
        Some(t) => t,
        None => {
            tag_names.push(DEFAULT_BOUNDARY_TAG.to_string());
            tag_names.len() - 1
        }
    }
}

/// A hanging node shows up as an unmatched face with a vertex of another unmatched face inside it.
fn check_conforming(mesh: &TriMesh, open_faces: &[(usize, usize)]) -> Result<(), MeshError> {
    let mut open_vertices: Vec<usize> =
        open_faces.iter().flat_map(|&(k, f)| [mesh.elements[k][f], mesh.elements[k][(f + 1) % 3]]).collect();
    open_vertices.sort_unstable();
    open_vertices.dedup();
    // bucket the vertices on a grid so each face only looks at vertices near it
    let h = mesh.max_edge_length().max(f64::MIN_POSITIVE);
    let cell = |p: [f64; 2]| ((p[0] / h).floor() as i64, (p[1] / h).floor() as i64);
    let mut grid: HashMap<(i64, i64), Vec<usize>> = HashMap::new();
    for &v in &open_vertices {
        grid.entry(cell(mesh.vertices[v])).or_default().push(v);
    }
    for &(k, f) in open_faces {
        let (a, b) = (mesh.elements[k][f], mesh.elements[k][(f + 1) % 3]);
        let (pa, pb) = (mesh.vertices[a], mesh.vertices[b]);
        let len = dist(pa, pb);
        let (ca, cb) = (cell(pa), cell(pb));
        for i in ca.0.min(cb.0) - 1..=ca.0.max(cb.0) + 1 {
            for j in ca.1.min(cb.1) - 1..=ca.1.max(cb.1) + 1 {
                for &v in grid.get(&(i, j)).into_iter().flatten() {
                    if v == a || v == b {
                        continue;
                    }
                    let p = mesh.vertices[v];
                    let on_line = (dist(pa, p) + dist(p, pb) - len).abs() <= 1e-10 * len;
                    if on_line && dist(pa, p) > 1e-9 * len && dist(p, pb) > 1e-9 * len {
                        return Err(MeshError::NonConforming {
                            element: k,
                            face: f,
                            vertex: v,
                            origin: mesh.origin(k),
                        });
                    }
                }
            }
        }
    }
    Ok(())
}
