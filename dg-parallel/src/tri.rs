//! A rank's part of a triangle mesh: its own elements and halo as a DG space with the whole mesh's connectivity.

use crate::device::RangedDeviceRhs;
use crate::halo::HaloPlan;
use crate::partition::{element_graph, elements_across, split_mesh, Partitioner, Split};
use crate::trace::TracePlan;
use crate::ParallelError;
use dg_core::mesh::{Connectivity, TriMesh};
use dg_core::space::DgSpace2d;
use dg_core::Real;
use dg_nodal_tri::device::{DeviceOperator, FoldedStage};
use dg_runtime::backend::{kernels, BackendError, BufferId, Device, ProgramId, Step};
use std::ops::Range;

/// The elements across each element's faces (periodic faces included).
pub fn element_neighbours(connectivity: &Connectivity) -> Vec<Vec<usize>> {
    element_graph(&elements_across(&connectivity.links))
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
    /// The nodes a halo exchange carries (the traces of the faces shared with other ranks).
    pub traces: TracePlan,
    /// The number of ranks.
    pub parts: usize,
    /// How the mesh was split.
    pub partition: crate::partition::Partition,
}

/// Splits `mesh` into `parts` parts as `how` asks (blocks of a structured rectangle's squares, or METIS on the
/// element graph) and builds part `rank` at order `order`. Every rank computes the same partition from the same mesh.
pub fn tri_part(
    mesh: &TriMesh,
    order: usize,
    (parts, rank): (usize, usize),
    how: Partitioner,
) -> Result<TriPart, ParallelError> {
    let connectivity = Connectivity::build(mesh).map_err(dg_core::space::SpaceError::from)?;
    let by = Split { how, lattice: mesh.lattice.as_ref() };
    let split = split_mesh(&connectivity.links, (parts, rank), by, |elements, links| {
        let sub = TriMesh {
            vertices: mesh.vertices.clone(),
            elements: elements.iter().map(|&k| mesh.elements[k]).collect(),
            tag_names: mesh.tag_names.clone(),
            boundary_tags: mesh.boundary_tags.clone(),
            periodic_vertex: mesh.periodic_vertex.clone(),
            origins: elements.iter().filter_map(|&k| mesh.origins.get(k).cloned()).collect(),
            lattice: None,
        };
        let connectivity = Connectivity { links, tag_names: connectivity.tag_names.clone() };
        Ok(DgSpace2d::with_connectivity(sub, order, connectivity)?)
    })?;
    let faces = elements_across(&connectivity.links);
    let traces = TracePlan::new(&split.plan, &split.owner, &faces, &split.space.element.fmask);
    Ok(TriPart { plan: split.plan, space: split.space, owned: split.owned, traces, parts, partition: split.partition })
}

/// The nodal triangle kernels over element ranges (their group offset).
impl<T: Real> RangedDeviceRhs for DeviceOperator<T> {
    fn program(&self) -> ProgramId {
        DeviceOperator::program(self)
    }
    fn rhs_steps(
        &self,
        q: BufferId,
        out: BufferId,
        t: f64,
        elements: Range<usize>,
    ) -> Result<Vec<Step>, ParallelError> {
        Ok(self.rhs_steps_over(q, out, t, elements))
    }
    fn element_quantum(&self) -> usize {
        DeviceOperator::element_quantum(self)
    }
    fn value_offset(&self, element: usize, variable: usize, node: usize) -> usize {
        self.state_offset(element, variable, node)
    }
    fn nvars(&self) -> usize {
        DeviceOperator::nvars(self)
    }
    fn new_state(&self, device: &mut dyn Device) -> Result<BufferId, BackendError> {
        DeviceOperator::new_state(self, device)
    }
    fn folds_stages(&self) -> bool {
        DeviceOperator::folds_stages(self)
    }
    fn stage_steps(
        &self,
        q: BufferId,
        t: f64,
        elements: Range<usize>,
        (r, z, a, c, b): (BufferId, BufferId, f64, f64, f64),
    ) -> Option<Vec<Step>> {
        let stage = FoldedStage { r, z, a, c, b };
        self.folded_stage_steps_over(q, t, elements, &stage)
    }
    fn update_steps(&self, y: BufferId, a: f64, terms: &[(f64, BufferId)]) -> Result<Vec<Step>, ParallelError> {
        let launches = dg_runtime::step_system::lincomb_chunks(a, terms)
            .map(|(a, chunk)| self.lincomb_launch(y, a, chunk))
            .collect();
        Ok(kernels(launches))
    }
}

#[cfg(test)]
mod tests {
    use super::tri_part;
    use dg_core::mesh::{perturb_interior, rectangle, Diagonal, RectangleSpec};
    use std::collections::HashSet;

    /// On a perturbed, periodic mesh split three ways: every halo node an own element's face reads (`vmap_p`) is
    /// one the exchange brings, and the traces each rank receives are the ones its neighbours send, count for count.
    #[test]
    fn the_traces_received_are_every_halo_node_the_faces_read() {
        let spec = RectangleSpec {
            diagonal: Diagonal::Alternating,
            periodic_x: true,
            periodic_y: true,
            ny: 9,
            ..RectangleSpec::unit_square(11)
        };
        let mut mesh = rectangle(&spec).expect("a mesh");
        perturb_interior(&mut mesh, 0.2, 3);
        let parts: Vec<_> =
            (0..3).map(|r| tri_part(&mesh, 3, (3, r), crate::partition::Partitioner::Metis).expect("a part")).collect();
        for (rank, part) in parts.iter().enumerate() {
            let (np, owned) = (part.space.element.np, part.plan.owned.len());
            let nfaces = 3 * part.space.element.nfp;
            let read: HashSet<(usize, usize)> = part.space.vmap_p[..owned * nfaces]
                .iter()
                .map(|&g| (g / np, g % np))
                .filter(|&(l, _)| l >= owned)
                .collect();
            let received: HashSet<(usize, usize)> =
                part.traces.receives.iter().flat_map(|(_, list)| list.iter().copied()).collect();
            assert!(!read.is_empty(), "rank {rank} reads a halo");
            assert!(read.is_subset(&received), "rank {rank}: {:?}", read.difference(&received).collect::<Vec<_>>());
            for (from, list) in &part.traces.receives {
                let sent = &parts[*from].traces.sends.iter().find(|(to, _)| *to == rank).expect("a message").1;
                assert_eq!(sent.len(), list.len(), "{from} -> {rank}");
            }
        }
    }
}
