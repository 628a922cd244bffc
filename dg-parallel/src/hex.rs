//! A rank's part of a hexahedral mesh: its own cells and halo as a [`HexSpace`] with the whole mesh's
//! connectivity, and the hexahedral kernels over a rank's cell ranges (their zone lists).

use crate::device::RangedDeviceRhs;
use crate::partition::{split_mesh, MeshPart, Partitioner, Split};
use crate::ParallelError;
use dg_core::hexmesh::{HexConnectivity, HexMesh};
use dg_core::space_hex::HexSpace;
use dg_core::Real;
use dg_hex::device::{HexDeviceOperator, HexZones};
use dg_hex::HexVariant;
use dg_runtime::backend::{BackendError, BufferId, Device, ProgramId, Step};
use dg_runtime::step_system::StepOperator;
use std::ops::Range;

/// Splits `mesh` into `parts` parts as `how` asks (blocks of a structured box, or METIS on the cell graph, periodic
/// faces included) and builds part `rank` at degree `order`: faces between two local cells as in the whole mesh,
/// boundary faces with their tags, faces to a cell outside linked to themselves. Every rank computes the same
/// partition from the same mesh.
pub fn hex_part(
    mesh: &HexMesh,
    order: usize,
    (parts, rank): (usize, usize),
    how: Partitioner,
) -> Result<MeshPart<HexSpace>, ParallelError> {
    let connectivity = HexConnectivity::build(mesh).map_err(dg_core::space::SpaceError::from)?;
    let split = Split { how, lattice: mesh.lattice.as_ref() };
    split_mesh(&connectivity.links, (parts, rank), split, |cells, links| {
        let sub = HexMesh {
            vertices: mesh.vertices.clone(),
            elements: cells.iter().map(|&k| mesh.elements[k]).collect(),
            tag_names: mesh.tag_names.clone(),
            boundary_tags: mesh.boundary_tags.clone(),
            periodic_vertex: mesh.periodic_vertex.clone(),
            lattice: None,
        };
        let connectivity = HexConnectivity { links, tag_names: connectivity.tag_names.clone() };
        Ok(HexSpace::with_connectivity(sub, order, connectivity)?)
    })
}

/// The hexahedral kernels of one variant over the cell ranges of a rank's right-hand sides: all its own cells, its
/// interior, and the cells next to its halo (a zone list each, uploaded once).
pub struct HexRanges<'a, T: Real> {
    op: &'a HexDeviceOperator<T>,
    variant: HexVariant,
    zones: Vec<HexZones>,
}

impl<'a, T: Real> HexRanges<'a, T> {
    /// `op`'s kernels of `variant` for a rank owning local cells `0..owned`, of which `0..interior` have no face to
    /// another rank's cell.
    pub fn new(
        device: &mut dyn Device,
        op: &'a HexDeviceOperator<T>,
        variant: HexVariant,
        (owned, interior): (usize, usize),
    ) -> Result<Self, ParallelError> {
        let interior = interior.min(owned);
        let zones = [0..owned, 0..interior, interior..owned]
            .into_iter()
            .map(|cells| op.zones_over(device, cells))
            .collect::<Result<Vec<_>, BackendError>>()?;
        Ok(Self { op, variant, zones })
    }
}

impl<T: Real> RangedDeviceRhs for HexRanges<'_, T> {
    fn program(&self) -> ProgramId {
        self.op.program_id()
    }
    fn rhs_steps(&self, q: BufferId, out: BufferId, t: f64, cells: Range<usize>) -> Result<Vec<Step>, ParallelError> {
        let zones = self.zones.iter().find(|z| z.cells == cells).ok_or_else(|| {
            ParallelError::Device(format!("no zone lists for cells {}..{} were prepared", cells.start, cells.end))
        })?;
        self.op.rhs_steps_over(&self.variant, q, out, t, zones).map_err(|e| ParallelError::Device(e.to_string()))
    }
    fn element_quantum(&self) -> usize {
        1
    }
    fn value_offset(&self, cell: usize, variable: usize, node: usize) -> usize {
        self.op.state_offset(cell, variable, node)
    }
    fn nvars(&self) -> usize {
        self.op.program().nvars
    }
    fn new_state(&self, device: &mut dyn Device) -> Result<BufferId, BackendError> {
        self.op.new_state(device)
    }
    fn update_steps(&self, y: BufferId, a: f64, terms: &[(f64, BufferId)]) -> Result<Vec<Step>, ParallelError> {
        let device = |e: dg_runtime::DeviceOperatorError| ParallelError::Device(e.to_string());
        dg_runtime::step_system::lincomb_chunks(a, terms)
            .map(|(a, chunk)| self.op.lincomb_step(y, a, chunk).map_err(device))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::hex_part;
    use crate::partition::{Partition, Partitioner};
    use crate::trace::TracePlan;
    use dg_core::hexmesh::{hex_box_mesh, HexBoxSpec};
    use std::collections::HashSet;

    /// On a distorted box periodic in x, split three ways by METIS and by blocks: every halo cell whose nodes an own cell's face reads
    /// (its face partner's cell; a face value extrapolates from the whole line of nodes across) arrives whole in
    /// the exchange, and each rank receives as many nodes from a neighbour as that neighbour sends it.
    #[test]
    fn every_halo_cell_a_face_reads_arrives_whole() {
        let spec = HexBoxSpec {
            lower: [0.0; 3],
            upper: [1.0, 0.7, 0.5],
            cells: [7, 5, 3],
            periodic: [true, false, false],
            distortion: 0.1,
        };
        let mesh = hex_box_mesh(&spec).expect("a mesh");
        for how in [Partitioner::Metis, Partitioner::Blocks] {
            let parts: Vec<_> = (0..3).map(|r| hex_part(&mesh, 2, (3, r), how).expect("a part")).collect();
            match (how, &parts[0].partition) {
                (Partitioner::Metis, Partition::Metis { parts: 3 }) => {}
                // three blocks across x, the direction with the most cells (two cut planes through the wrap)
                (Partitioner::Blocks, Partition::Blocks { grid, cells: [7, 5, 3] }) => assert_eq!(grid, &[3, 1, 1]),
                (_, other) => panic!("{how:?} gave {other:?}"),
            }
            every_halo_cell_arrives_whole(&parts);
        }
    }

    fn every_halo_cell_arrives_whole(parts: &[crate::partition::MeshPart<dg_core::space_hex::HexSpace>]) {
        let traces: Vec<TracePlan> =
            parts.iter().map(|p| TracePlan::whole_elements(&p.plan, p.space.element.np)).collect();
        for (rank, part) in parts.iter().enumerate() {
            let (np, nfp, owned) = (part.space.element.np, part.space.element.nfp, part.plan.owned.len());
            let read: HashSet<usize> = part.space.face_partner[..owned * 6 * nfp]
                .iter()
                .map(|&g| g / (6 * nfp))
                .filter(|&cell| cell >= owned)
                .collect();
            let received: HashSet<(usize, usize)> =
                traces[rank].receives.iter().flat_map(|(_, list)| list.iter().copied()).collect();
            assert!(!read.is_empty(), "rank {rank} reads a halo");
            for cell in read {
                assert!((0..np).all(|i| received.contains(&(cell, i))), "rank {rank}: halo cell {cell} not whole");
            }
            for (from, list) in &traces[rank].receives {
                let sent = &traces[*from].sends.iter().find(|(to, _)| *to == rank).expect("a message").1;
                assert_eq!(sent.len(), list.len(), "{from} -> {rank}");
            }
        }
    }
}
