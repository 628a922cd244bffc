//! A rank's part of a hexahedral mesh: its own cells and halo as a [`HexSpace`] with the whole mesh's
//! connectivity, and the hexahedral kernels over a rank's cell ranges (their zone lists).

use crate::device::RangedDeviceRhs;
use crate::halo::HaloPlan;
use crate::partition::{split_mesh, MeshPart};
use crate::trace::HaloMessages;
use crate::ParallelError;
use dg_core::hexmesh::{HexConnectivity, HexMesh};
use dg_core::mesh::FaceLink;
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

/// The halo messages of a hexahedral part. A cell that one face alone joins to the receiving rank's cells travels as
/// that face's values: the sender extrapolates each face point's value along its line of nodes across the cell (the
/// 1D weights `ends` the kernels use), the receiver writes it to every node of that line, and the receiver's kernels,
/// extrapolating along the same line, get it back to round-off (the weights sum to one). That is (D + 1)² values per
/// variable instead of the cell's (D + 1)³. A cell joined through two or more faces travels whole (each slot one
/// node, padded with weight-zero terms). Sender and receiver count a cell's faces to the other alike, from the whole
/// mesh's links both parts keep, so the messages need no indices.
pub fn face_line_messages(part: &MeshPart<HexSpace>) -> HaloMessages {
    let (plan, space) = (&part.plan, &part.space);
    let el = &space.element;
    let (n1, np) = (el.n1, el.np);
    // the faces of local cell `l` whose partner satisfies `joins`
    let faces_to = |l: usize, joins: &dyn Fn(usize) -> bool| -> Vec<usize> {
        (0..6)
            .filter(|&f| match space.connectivity.links[l][f] {
                FaceLink::Interior { element, .. } => element != l && joins(element),
                FaceLink::Boundary { .. } => false,
            })
            .collect()
    };
    let owner_of = |plan: &HaloPlan, l: usize| part.owner[plan.global(l)];
    let sends = plan
        .sends
        .iter()
        .map(|&(r, ref list)| {
            let mut slots = Vec::new();
            for &l in list {
                match faces_to(l, &|j| j >= plan.owned.len() && owner_of(plan, j) == r)[..] {
                    [f] => {
                        for q in 0..n1 * n1 {
                            slots.extend((0..n1).map(|m| (l, el.face_line_node(f, q, m), el.ends[f % 2][m])));
                        }
                    }
                    _ => {
                        for i in 0..np {
                            slots.push((l, i, 1.0));
                            slots.extend(std::iter::repeat_n((l, i, 0.0), n1 - 1));
                        }
                    }
                }
            }
            (r, slots)
        })
        .collect();
    let receives = plan
        .receives
        .iter()
        .map(|&(r, ref list)| {
            let mut slots = Vec::new();
            for &l in list {
                match faces_to(l, &|j| j < plan.owned.len())[..] {
                    [f] => {
                        for q in 0..n1 * n1 {
                            slots.extend((0..n1).map(|m| (l, el.face_line_node(f, q, m))));
                        }
                    }
                    _ => {
                        for i in 0..np {
                            slots.extend(std::iter::repeat_n((l, i), n1));
                        }
                    }
                }
            }
            (r, slots)
        })
        .collect();
    HaloMessages { terms: n1, sends, receives }
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

#[cfg(test)]
mod tests {
    use super::{face_line_messages, hex_part};
    use dg_core::hexmesh::{hex_box_mesh, HexBoxSpec};

    /// On a distorted box periodic in x, split three and four ways, with a random state: every rank packs its
    /// messages (each value the weighted sum of its slot's nodes), the receivers write them into halo cells that
    /// start as NaN, and then every face value an own cell reads from a halo cell (extrapolated along the line of
    /// nodes across, as the kernels do) equals the one from the true cell to round-off. Cells joined through one
    /// face travel as face values, those joined through several whole; both kinds occur.
    #[test]
    fn face_values_read_across_ranks_arrive_through_the_face_line_messages() {
        let spec = HexBoxSpec {
            lower: [0.0; 3],
            upper: [1.0, 0.7, 0.5],
            cells: [7, 5, 3],
            periodic: [true, false, false],
            distortion: 0.1,
        };
        let mesh = hex_box_mesh(&spec).expect("a mesh");
        let nv = 2;
        // a random value per (global cell, variable, node)
        let truth = |k: usize, v: usize, i: usize| -> f64 {
            let mut x = (k * 7919 + v * 104_729 + i * 15_485_863 + 12_345) as u64;
            x ^= x >> 33;
            x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
            x ^= x >> 33;
            (x % 1_000_000) as f64 / 500_000.0 - 1.0
        };
        for (parts, order) in [(3, 2), (4, 3)] {
            let ranks: Vec<_> = (0..parts).map(|r| hex_part(&mesh, order, parts, r).expect("a part")).collect();
            let messages: Vec<_> = ranks.iter().map(face_line_messages).collect();
            let el = &ranks[0].space.element;
            let (np, nfp, n1) = (el.np, el.nfp, el.n1);
            assert!(messages.iter().all(|m| m.terms == n1));
            // local states: own cells true, halo cells NaN
            let mut states: Vec<Vec<f64>> = ranks
                .iter()
                .map(|p| {
                    let cells = p.plan.owned.len() + p.plan.halo.len();
                    (0..cells * nv * np)
                        .map(|x| {
                            let (l, v, i) = (x / (nv * np), (x / np) % nv, x % np);
                            if l < p.plan.owned.len() { truth(p.plan.global(l), v, i) } else { f64::NAN }
                        })
                        .collect()
                })
                .collect();
            let at = |l: usize, v: usize, i: usize| (l * nv + v) * np + i;
            let (mut face_cells, mut whole_cells) = (0, 0);
            for a in 0..parts {
                for (b, sent) in &messages[a].sends {
                    let values: Vec<f64> = sent
                        .chunks_exact(n1)
                        .flat_map(|slot| {
                            let state = &states[a];
                            (0..nv).map(move |v| slot.iter().map(|&(l, i, w)| w * state[at(l, v, i)]).sum::<f64>())
                        })
                        .collect();
                    let received = &messages[*b].receives.iter().find(|(r, _)| *r == a).expect("a receive list").1;
                    assert_eq!(received.len(), sent.len(), "{a} -> {b}");
                    for (slot, values) in received.chunks_exact(n1).zip(values.chunks_exact(nv)) {
                        for (v, &x) in values.iter().enumerate() {
                            for &(l, i) in slot {
                                states[*b][at(l, v, i)] = x;
                            }
                        }
                    }
                    let slots = sent.len() / n1;
                    let face_slots = sent.chunks_exact(n1).filter(|s| s[1].2 != 0.0).count();
                    face_cells += face_slots / nfp;
                    whole_cells += (slots - face_slots) / np;
                }
            }
            assert!(face_cells > 0 && whole_cells > 0, "{parts} parts: {face_cells} face cells, {whole_cells} whole");
            for (rank, part) in ranks.iter().enumerate() {
                let owned = part.plan.owned.len();
                let mut read = 0;
                for (g, &g2) in part.space.face_partner[..owned * 6 * nfp].iter().enumerate() {
                    let h = g2 / (6 * nfp);
                    if h < owned || h == g / (6 * nfp) {
                        continue;
                    }
                    let (f2, q2) = ((g2 / nfp) % 6, g2 % nfp);
                    let line = |value: &dyn Fn(usize) -> f64| -> f64 {
                        (0..n1).map(|m| el.ends[f2 % 2][m] * value(el.face_line_node(f2, q2, m))).sum()
                    };
                    for v in 0..nv {
                        let got = line(&|i| states[rank][at(h, v, i)]);
                        let want = line(&|i| truth(part.plan.global(h), v, i));
                        assert!((got - want).abs() <= 1e-13, "rank {rank}, halo cell {h}, variable {v}: {got} vs {want}");
                    }
                    read += 1;
                }
                assert!(read > 0, "rank {rank} reads a halo");
            }
        }
    }
}
