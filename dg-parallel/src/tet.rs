//! A rank's part of a tetrahedral mesh: its own elements and halo as a [`DgSpace3d`] with the whole mesh's
//! connectivity (the native CPU path; the device path needs the tetrahedral kernels over element ranges).

use crate::partition::{split_mesh, MeshPart, Partitioner, Split};
use crate::ParallelError;
use dg_core::mesh3d::{Connectivity3d, TetMesh};
use dg_core::space3d::DgSpace3d;

/// Splits `mesh` into `parts` parts as `how` asks (blocks of a structured box's cubes, or METIS on the element
/// graph, periodic faces included) and builds part `rank`
/// at order `order`: faces between two local elements as in the whole mesh, boundary faces with their tags, faces
/// to an element outside linked to themselves. Every rank computes the same partition from the same mesh.
pub fn tet_part(
    mesh: &TetMesh,
    order: usize,
    (parts, rank): (usize, usize),
    how: Partitioner,
) -> Result<MeshPart<DgSpace3d>, ParallelError> {
    let connectivity = Connectivity3d::build(mesh).map_err(dg_core::space::SpaceError::from)?;
    let split = Split { how, lattice: mesh.lattice.as_ref() };
    split_mesh(&connectivity.links, (parts, rank), split, |elements, links| {
        let sub = TetMesh {
            vertices: mesh.vertices.clone(),
            elements: elements.iter().map(|&k| mesh.elements[k]).collect(),
            tag_names: mesh.tag_names.clone(),
            boundary_tags: mesh.boundary_tags.clone(),
            periodic_vertex: mesh.periodic_vertex.clone(),
            lattice: None,
        };
        let connectivity = Connectivity3d { links, tag_names: connectivity.tag_names.clone() };
        Ok(DgSpace3d::with_connectivity(sub, order, connectivity)?)
    })
}
