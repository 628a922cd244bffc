//! Element-to-element connectivity of a tetrahedral mesh through faces, with a check for non-manifold faces.

use super::{sorted_triple, TetMesh};
use crate::mesh::FaceLink;
use crate::tetrahedron::FACE_VERTICES;
use crate::MeshError;
use rayon::prelude::*;

/// Face connectivity: `links[k][f]` tells what lies across local face `f` of element `k` (faces as in
/// [`crate::tetrahedron`]).
#[derive(Debug, Clone)]
pub struct Connectivity3d {
    /// Per element, per local face.
    pub links: Vec<[FaceLink; 4]>,
    /// Tag names, possibly extended by [`crate::mesh::DEFAULT_BOUNDARY_TAG`] for untagged boundary faces.
    pub tag_names: Vec<String>,
}

impl Connectivity3d {
    /// Matches faces by their (periodically identified) vertices. Boundary faces without a tag get
    /// [`crate::mesh::DEFAULT_BOUNDARY_TAG`]; a face shared by more than two elements is an error.
    pub fn build(mesh: &TetMesh) -> Result<Self, MeshError> {
        // every face keyed by its vertices, sorted (in parallel): equal keys are the faces that meet
        let mut keyed: Vec<([usize; 3], usize, usize)> = (0..4 * mesh.num_elements())
            .into_par_iter()
            .map(|face| {
                let (k, f) = (face / 4, face % 4);
                let [a, b, c] = FACE_VERTICES[f].map(|i| mesh.canonical_vertex(mesh.elements[k][i]));
                (sorted_triple(a, b, c), k, f)
            })
            .collect();
        keyed.par_sort_unstable();
        let mut tag_names = mesh.tag_names.clone();
        let mut links = vec![[FaceLink::Boundary { tag: usize::MAX }; 4]; mesh.num_elements()];
        for group in keyed.chunk_by(|a, b| a.0 == b.0) {
            match group {
                [(_, k1, f1), (_, k2, f2)] => {
                    links[*k1][*f1] = FaceLink::Interior { element: *k2, face: *f2 };
                    links[*k2][*f2] = FaceLink::Interior { element: *k1, face: *f1 };
                }
                [(_, k, f)] => {
                    let [a, b, c] = FACE_VERTICES[*f].map(|i| mesh.elements[*k][i]);
                    let tag = match mesh.boundary_tags.get(&sorted_triple(a, b, c)) {
                        Some(&t) => t,
                        None => crate::mesh::default_boundary_tag(&mut tag_names),
                    };
                    links[*k][*f] = FaceLink::Boundary { tag };
                }
                many => {
                    let key = many[0].0;
                    let elements: Vec<usize> = many.iter().map(|&(_, k, _)| k).collect();
                    return Err(MeshError::Invalid(format!(
                        "the face with vertices {key:?} is shared by {} tetrahedra ({elements:?}); a face joins at most two",
                        elements.len()
                    )));
                }
            }
        }
        Ok(Self { links, tag_names })
    }
}
