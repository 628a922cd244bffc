//! A rank's part of a hexahedral mesh: its own cells and halo as a [`HexSpace`] with the whole mesh's
//! connectivity, and the hexahedral kernels over a rank's cell ranges (their zone lists).

use crate::device::RangedDeviceRhs;
use crate::partition::{split_mesh, MeshPart};
use crate::ParallelError;
use dg_core::hexmesh::{HexConnectivity, HexMesh};
use dg_core::space_hex::HexSpace;
use dg_core::Real;
use dg_hex::device::{HexDeviceOperator, HexZones};
use dg_hex::HexVariant;
use dg_runtime::backend::{BackendError, BufferId, Device, ProgramId, Step};
use std::ops::Range;

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
        if terms.is_empty() {
            return Ok(vec![self.op.lincomb_step(y, a, &[]).map_err(device)?]);
        }
        // the kernel takes three terms: later chunks add to what the first wrote
        terms
            .chunks(3)
            .enumerate()
            .map(|(i, chunk)| self.op.lincomb_step(y, if i == 0 { a } else { 1.0 }, chunk).map_err(device))
            .collect()
    }
}
