//! A rank's part of a hexahedral mesh: its own cells and halo as a [`HexSpace`] with the whole mesh's
//! connectivity (the native CPU path; the device path needs the hexahedral kernels over element ranges).

use crate::partition::{split_mesh, MeshPart};
use crate::ParallelError;
use dg_core::hexmesh::{HexConnectivity, HexMesh};
use dg_core::space_hex::HexSpace;

/// Splits `mesh` into `parts` parts (METIS on the cell graph, periodic faces included) and builds part `rank` at
/// degree `order`: faces between two local cells as in the whole mesh, boundary faces with their tags, faces to a
/// cell outside linked to themselves. Every rank computes the same partition from the same mesh.
pub fn hex_part(mesh: &HexMesh, order: usize, parts: usize, rank: usize) -> Result<MeshPart<HexSpace>, ParallelError> {
    let connectivity = HexConnectivity::build(mesh).map_err(dg_core::space::SpaceError::from)?;
    split_mesh(&connectivity.links, parts, rank, |cells, links| {
        let sub = HexMesh {
            vertices: mesh.vertices.clone(),
            elements: cells.iter().map(|&k| mesh.elements[k]).collect(),
            tag_names: mesh.tag_names.clone(),
            boundary_tags: mesh.boundary_tags.clone(),
            periodic_vertex: mesh.periodic_vertex.clone(),
        };
        let connectivity = HexConnectivity { links, tag_names: connectivity.tag_names.clone() };
        Ok(HexSpace::with_connectivity(sub, order, connectivity)?)
    })
}
