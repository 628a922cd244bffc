//! Cell-to-cell connectivity of a hexahedral mesh through faces, with a check for non-manifold faces.

use super::HexMesh;
use crate::mesh::FaceLink;
use crate::MeshError;
use std::collections::HashMap;

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
        let mut faces: HashMap<[usize; 4], Vec<(usize, usize)>> = HashMap::with_capacity(3 * mesh.num_elements() + 8);
        for k in 0..mesh.num_elements() {
            for f in 0..6 {
                faces.entry(mesh.face_key(k, f)).or_default().push((k, f));
            }
        }
        let mut tag_names = mesh.tag_names.clone();
        let mut links = vec![[FaceLink::Boundary { tag: usize::MAX }; 6]; mesh.num_elements()];
        let mut keys: Vec<&[usize; 4]> = faces.keys().collect();
        keys.sort_unstable();
        for key in keys {
            match faces[key].as_slice() {
                [(k1, f1), (k2, f2)] => {
                    if k1 == k2 {
                        return Err(MeshError::Invalid(format!(
                            "faces {f1} and {f2} of hexahedron {k1} are the same face (vertices {key:?})"
                        )));
                    }
                    links[*k1][*f1] = FaceLink::Interior { element: *k2, face: *f2 };
                    links[*k2][*f2] = FaceLink::Interior { element: *k1, face: *f1 };
                }
                [(k, f)] => {
                    let tag = match mesh.boundary_tags.get(&mesh.face_vertices(*k, *f)) {
                        Some(&t) => t,
                        None => crate::mesh::default_boundary_tag(&mut tag_names),
                    };
                    links[*k][*f] = FaceLink::Boundary { tag };
                }
                many => {
                    let mut cells: Vec<usize> = many.iter().map(|&(k, _)| k).collect();
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
