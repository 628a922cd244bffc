//! Cell-to-cell connectivity of a hexahedral mesh through faces, with a check for non-manifold faces.

use super::HexMesh;
use crate::mesh::FaceLink;
use crate::MeshError;
use rayon::prelude::*;

/// Face connectivity: `links[k][f]` tells what lies across local face `f` of cell `k` (faces as in
/// [`crate::hexahedron`]).
#[derive(Debug, Clone)]
pub struct HexConnectivity {
    /// Per cell, per local face.
    pub links: Vec<[FaceLink; 6]>,
    /// Tag names, possibly extended by [`crate::mesh::DEFAULT_BOUNDARY_TAG`] for untagged boundary faces.
    pub tag_names: Vec<String>,
}

impl HexConnectivity {
    /// Matches faces by their (periodically identified) vertices. Boundary faces without a tag get
    /// [`crate::mesh::DEFAULT_BOUNDARY_TAG`]; a face shared by more than two cells is an error.
    pub fn build(mesh: &HexMesh) -> Result<Self, MeshError> {
        // every cell face with its key, sorted on every core: the faces of one key are adjacent, in cell and face
        // order, and the keys are visited in order (as a map's sorted keys were, without a vector per key)
        let mut faces: Vec<([usize; 4], usize, usize)> = (0..mesh.num_elements())
            .into_par_iter()
            .flat_map_iter(|k| (0..6).map(move |f| (mesh.face_key(k, f), k, f)))
            .collect();
        faces.par_sort_unstable();
        let mut tag_names = mesh.tag_names.clone();
        let mut links = vec![[FaceLink::Boundary { tag: usize::MAX }; 6]; mesh.num_elements()];
        for group in faces.chunk_by(|a, b| a.0 == b.0) {
            let key = &group[0].0;
            match group {
                [(_, k1, f1), (_, k2, f2)] => {
                    if k1 == k2 {
                        return Err(MeshError::Invalid(format!(
                            "faces {f1} and {f2} of hexahedron {k1} are the same face (vertices {key:?})"
                        )));
                    }
                    links[*k1][*f1] = FaceLink::Interior { element: *k2, face: *f2 };
                    links[*k2][*f2] = FaceLink::Interior { element: *k1, face: *f1 };
                }
                [(_, k, f)] => {
                    let tag = match mesh.boundary_tags.get(&mesh.face_vertices(*k, *f)) {
                        Some(&t) => t,
                        None => crate::mesh::default_boundary_tag(&mut tag_names),
                    };
                    links[*k][*f] = FaceLink::Boundary { tag };
                }
                many => {
                    let mut cells: Vec<usize> = many.iter().map(|&(_, k, _)| k).collect();
                    cells.sort_unstable();
                    return Err(MeshError::Invalid(format!(
                        "the face with vertices {key:?} is shared by {} hexahedra ({cells:?}); a face joins at most two",
                        cells.len()
                    )));
                }
            }
        }
        Ok(Self { links, tag_names })
    }
}
