//! Structured tetrahedral meshes of a box: each of n_x × n_y × n_z hexahedra split into 6 or 5 tetrahedra.

use super::{sorted_triple, TetMesh};
use crate::MeshError;
use std::collections::HashMap;

/// How each hexahedron is split.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CubeSplit {
    /// Six tetrahedra around the main diagonal (Kuhn); conforming for any cell counts.
    Six,
    /// Five tetrahedra (four corners and a central one), mirrored cell by cell in a checkerboard so that the
    /// face diagonals match; periodic directions need an even cell count.
    Five,
}

/// A box [lower, upper] with `cells` hexahedra per direction.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BoxSpec {
    /// Lower corner.
    pub lower: [f64; 3],
    /// Upper corner.
    pub upper: [f64; 3],
    /// Hexahedra per direction.
    pub cells: [usize; 3],
    /// Split of each hexahedron.
    pub split: CubeSplit,
    /// Periodic directions (opposite sides identified; they carry no tag).
    pub periodic: [bool; 3],
}

impl BoxSpec {
    /// The unit cube with n³ hexahedra, six tetrahedra each, walls on all sides.
    pub fn unit_cube(n: usize) -> Self {
        Self { lower: [0.0; 3], upper: [1.0; 3], cells: [n; 3], split: CubeSplit::Six, periodic: [false; 3] }
    }
}

/// Tag names of the six sides, in the order x = lower, x = upper, y = lower, y = upper, z = lower, z = upper.
pub const BOX_TAGS: [&str; 6] = ["xmin", "xmax", "ymin", "ymax", "zmin", "zmax"];

/// Builds the structured tetrahedral mesh of a box. Boundary tags: `xmin`, `xmax`, `ymin`, `ymax`, `zmin`, `zmax`.
pub fn box_mesh(spec: &BoxSpec) -> Result<TetMesh, MeshError> {
    let [nx, ny, nz] = spec.cells;
    let lattice = VertexLattice::checked(spec.lower, spec.upper, spec.cells, spec.periodic)?;
    for d in 0..3 {
        if spec.periodic[d] && spec.split == CubeSplit::Five && spec.cells[d] % 2 == 1 {
            return Err(MeshError::Invalid(format!(
                "the five-tetrahedra split needs an even cell count in periodic direction {d} (got {})",
                spec.cells[d]
            )));
        }
    }
    let id = |i: usize, j: usize, k: usize| lattice.id([i, j, k]);
    let mut vertices = Vec::with_capacity((nx + 1) * (ny + 1) * (nz + 1));
    for k in 0..=nz {
        for j in 0..=ny {
            for i in 0..=nx {
                let f = |d: usize, c: usize, n: usize| {
                    spec.lower[d] + (spec.upper[d] - spec.lower[d]) * c as f64 / n as f64
                };
                vertices.push([f(0, i, nx), f(1, j, ny), f(2, k, nz)]);
            }
        }
    }
    let mut elements = Vec::with_capacity(6 * nx * ny * nz);
    for k in 0..nz {
        for j in 0..ny {
            for i in 0..nx {
                let corner = |b: usize| id(i + (b & 1), j + ((b >> 1) & 1), k + ((b >> 2) & 1));
                match spec.split {
                    CubeSplit::Six => {
                        for perm in [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]] {
                            let (a, b) = (1 << perm[0], (1 << perm[0]) | (1 << perm[1]));
                            elements.push([corner(0), corner(a), corner(b), corner(7)]);
                        }
                    }
                    CubeSplit::Five => {
                        let tets = if (i + j + k) % 2 == 0 {
                            [[1, 0, 3, 5], [2, 0, 3, 6], [4, 0, 5, 6], [7, 3, 5, 6], [0, 3, 5, 6]]
                        } else {
                            [[0, 1, 2, 4], [3, 1, 2, 7], [5, 1, 4, 7], [6, 2, 4, 7], [1, 2, 4, 7]]
                        };
                        elements.extend(tets.iter().map(|t| t.map(corner)));
                    }
                }
            }
        }
    }
    let tag_names: Vec<String> = BOX_TAGS.iter().map(|s| s.to_string()).collect();
    let mut boundary_tags = HashMap::new();
    let n = [nx, ny, nz];
    for e in &elements {
        for face in crate::tetrahedron::FACE_VERTICES {
            let [a, b, c] = face.map(|f| e[f]);
            for d in 0..3 {
                if spec.periodic[d] {
                    continue;
                }
                let idx = |v: usize| lattice.position(v)[d];
                for (side, plane) in [(0, 0), (1, n[d])] {
                    if idx(a) == plane && idx(b) == plane && idx(c) == plane {
                        boundary_tags.insert(sorted_triple(a, b, c), 2 * d + side);
                    }
                }
            }
        }
    }
    let mut mesh = TetMesh::new(vertices, elements, tag_names, boundary_tags)?;
    mesh.periodic_vertex = lattice.periodic_representatives(spec.periodic);
    let per_cell = match spec.split {
        CubeSplit::Six => 6,
        CubeSplit::Five => 5,
    };
    mesh.lattice = Some(crate::lattice::CellLattice { cells: spec.cells, periodic: spec.periodic, per_cell });
    Ok(mesh)
}

/// The (n_x + 1)(n_y + 1)(n_z + 1) vertices of a box's cells, numbered x fastest: what the tetrahedral and the
/// hexahedral box generators share.
#[derive(Debug, Clone, Copy)]
pub(crate) struct VertexLattice {
    cells: [usize; 3],
}

impl VertexLattice {
    /// The lattice of `cells` per direction in [lower, upper], checked: at least one cell per direction, a finite
    /// non-empty box, at least three cells along a periodic direction (with fewer, a cell's two opposite faces
    /// would share their periodically identified vertices).
    pub(crate) fn checked(
        lower: [f64; 3],
        upper: [f64; 3],
        cells: [usize; 3],
        periodic: [bool; 3],
    ) -> Result<Self, MeshError> {
        let [nx, ny, nz] = cells;
        if nx == 0 || ny == 0 || nz == 0 {
            return Err(MeshError::Invalid(format!(
                "a box needs at least one cell per direction (got {nx} × {ny} × {nz})"
            )));
        }
        for d in 0..3 {
            if upper[d] <= lower[d] || !lower[d].is_finite() || !upper[d].is_finite() {
                return Err(MeshError::Invalid(format!("empty or non-finite box {lower:?}–{upper:?}")));
            }
            if periodic[d] && cells[d] < crate::mesh::MIN_PERIODIC_CELLS {
                return Err(MeshError::Invalid(format!(
                    "a periodic direction needs at least {} cells (direction {d} has {})",
                    crate::mesh::MIN_PERIODIC_CELLS,
                    cells[d]
                )));
            }
        }
        Ok(Self { cells })
    }

    /// The vertex at lattice position `c`.
    pub(crate) fn id(&self, c: [usize; 3]) -> usize {
        let [nx, ny, _] = self.cells;
        (c[2] * (ny + 1) + c[1]) * (nx + 1) + c[0]
    }

    /// The lattice position of vertex `v`.
    pub(crate) fn position(&self, v: usize) -> [usize; 3] {
        let [nx, ny, _] = self.cells;
        [v % (nx + 1), (v / (nx + 1)) % (ny + 1), v / ((nx + 1) * (ny + 1))]
    }

    /// For a box periodic along some direction: each vertex's representative (a vertex on an upper periodic side
    /// is identified with its lower twin); `None` when no direction is periodic.
    pub(crate) fn periodic_representatives(&self, periodic: [bool; 3]) -> Option<Vec<usize>> {
        let [nx, ny, nz] = self.cells;
        periodic.iter().any(|&p| p).then(|| {
            (0..(nx + 1) * (ny + 1) * (nz + 1))
                .map(|v| {
                    let mut c = self.position(v);
                    for d in 0..3 {
                        if periodic[d] && c[d] == self.cells[d] {
                            c[d] = 0;
                        }
                    }
                    self.id(c)
                })
                .collect()
        })
    }
}
