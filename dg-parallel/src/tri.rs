//! A rank's part of a triangle mesh: its own elements and halo as a DG space with the whole mesh's connectivity.

use crate::halo::HaloPlan;
use crate::partition::partition_elements;
use crate::ParallelError;
use dg_core::mesh::{Connectivity, FaceLink, TriMesh};
use dg_core::space::DgSpace2d;

/// The elements across each element's faces (periodic faces included).
pub fn element_neighbours(connectivity: &Connectivity) -> Vec<Vec<usize>> {
    connectivity
        .links
        .iter()
        .map(|faces| {
            faces
                .iter()
                .filter_map(|link| match link {
                    FaceLink::Interior { element, .. } => Some(*element),
                    FaceLink::Boundary { .. } => None,
                })
                .collect()
        })
        .collect()
}

/// One rank's part of a partitioned triangle mesh.
#[derive(Debug, Clone)]
pub struct TriPart {
    /// Own elements and halo.
    pub plan: HaloPlan,
    /// The space on the own elements, then the halo (what the rank's operator runs on).
    pub space: DgSpace2d,
    /// The space on the own elements alone (norms, errors, output): its states are the first
    /// `plan.owned.len()` elements of [`TriPart::space`]'s.
    pub owned: DgSpace2d,
    /// The number of ranks.
    pub parts: usize,
}

/// Splits `mesh` into `parts` parts (METIS on the element graph) and builds part `rank` at order `order`. Every
/// rank computes the same partition from the same mesh.
pub fn tri_part(mesh: &TriMesh, order: usize, parts: usize, rank: usize) -> Result<TriPart, ParallelError> {
    let connectivity = Connectivity::build(mesh).map_err(dg_core::space::SpaceError::from)?;
    let neighbours = element_neighbours(&connectivity);
    let part = partition_elements(&neighbours, parts)?;
    let plan = HaloPlan::new(&neighbours, &part, rank);
    let local: Vec<usize> = (0..plan.local_elements()).map(|l| plan.global(l)).collect();
    let space = sub_space(mesh, &connectivity, &local, order)?;
    let owned = sub_space(mesh, &connectivity, &local[..plan.owned.len()], order)?;
    Ok(TriPart { plan, space, owned, parts })
}

/// The space on the elements `elements` (global indices) of `mesh`: faces between two of them as in the whole
/// mesh, boundary faces with their tags, faces to an element outside linked to themselves.
fn sub_space(
    mesh: &TriMesh,
    connectivity: &Connectivity,
    elements: &[usize],
    order: usize,
) -> Result<DgSpace2d, ParallelError> {
    let mut local = vec![usize::MAX; mesh.num_elements()];
    for (l, &k) in elements.iter().enumerate() {
        local[k] = l;
    }
    let links = elements
        .iter()
        .enumerate()
        .map(|(l, &k)| {
            let mut faces = connectivity.links[k];
            for (f, link) in faces.iter_mut().enumerate() {
                if let FaceLink::Interior { element, face } = *link {
                    *link = match local[element] {
                        usize::MAX => FaceLink::Interior { element: l, face: f },
                        other => FaceLink::Interior { element: other, face },
                    };
                }
            }
            faces
        })
        .collect();
    let sub = TriMesh {
        vertices: mesh.vertices.clone(),
        elements: elements.iter().map(|&k| mesh.elements[k]).collect(),
        tag_names: mesh.tag_names.clone(),
        boundary_tags: mesh.boundary_tags.clone(),
        periodic_vertex: mesh.periodic_vertex.clone(),
        origins: elements.iter().filter_map(|&k| mesh.origins.get(k).cloned()).collect(),
    };
    let connectivity = Connectivity { links, tag_names: connectivity.tag_names.clone() };
    Ok(DgSpace2d::with_connectivity(sub, order, connectivity)?)
}
