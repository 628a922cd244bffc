//! Unstructured hexahedral meshes with trilinear cells (seed 003): the mesh, its trilinear maps, the structured
//! box generator (straight or distorted cells, periodic directions), and face connectivity.

mod boxes;
mod connectivity;

pub use crate::lattice::CellLattice;
/// Gmsh input of hexahedral meshes (the reader is shared with triangle and tetrahedral meshes).
pub use crate::mesh::{read_gmsh_hex, read_gmsh_hex_str};
pub use boxes::{hex_box_mesh, HexBoxSpec};
pub use connectivity::HexConnectivity;

use crate::hexahedron::{HEX_CORNERS, HEX_FACE_CORNERS};
use crate::MeshError;
use std::collections::HashMap;

/// A conforming hexahedral mesh of trilinear cells with tagged boundary faces.
#[derive(Debug, Clone)]
pub struct HexMesh {
    /// Vertex coordinates.
    pub vertices: Vec<[f64; 3]>,
    /// Cell vertex indices in Gmsh's hexahedron order ([`HEX_CORNERS`]).
    pub elements: Vec<[usize; 8]>,
    /// Boundary tag names; a tag is an index into this list.
    pub tag_names: Vec<String>,
    /// Tag of each boundary face, keyed by its sorted vertex quadruple.
    pub boundary_tags: HashMap<[usize; 4], usize>,
    /// For periodic meshes: the representative of each vertex (vertices identified by periodicity share one).
    pub periodic_vertex: Option<Vec<usize>>,
    /// For the cells of a structured box in [`hex_box_mesh`]'s order: its lattice of cells, one per hexahedron
    /// (what a partition into blocks needs); `None` for any other mesh. Anything that reorders, adds or
    /// removes cells must set it to `None` (a stale lattice still gives a valid partition, only a worse one).
    pub lattice: Option<CellLattice>,
}

/// How a cell's geometry enters its kernels (seed 003's geometry classes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GeometryClass {
    /// An axis-aligned box: constant, diagonal metric.
    Box,
    /// A general trilinear cell: metric terms vary over the cell.
    Trilinear,
}

impl HexMesh {
    /// Builds a mesh and checks it: vertex indices in range, a positive Jacobian determinant at every corner of
    /// every cell (an inverted or degenerate cell is an error; cells are not reoriented).
    pub fn new(
        vertices: Vec<[f64; 3]>,
        elements: Vec<[usize; 8]>,
        tag_names: Vec<String>,
        boundary_tags: HashMap<[usize; 4], usize>,
    ) -> Result<Self, MeshError> {
        if elements.is_empty() {
            return Err(MeshError::Invalid("the mesh has no hexahedra".into()));
        }
        for (k, e) in elements.iter().enumerate() {
            if let Some(&v) = e.iter().find(|&&v| v >= vertices.len()) {
                return Err(MeshError::Invalid(format!(
                    "hexahedron {k} refers to vertex {v}, but there are only {} vertices",
                    vertices.len()
                )));
            }
        }
        let mesh = Self { vertices, elements, tag_names, boundary_tags, periodic_vertex: None, lattice: None };
        for k in 0..mesh.num_elements() {
            let scale = mesh.max_edge_of(k).max(f64::MIN_POSITIVE).powi(3);
            for corner in HEX_CORNERS {
                let det = det3(&mesh.jacobian(k, corner));
                if det.is_nan() || det <= 1e-12 * scale {
                    return Err(MeshError::Degenerate {
                        element: k,
                        area: det,
                        origin: format!(
                            " (hexahedron: Jacobian determinant {det:e} at reference corner {corner:?}; vertices must \
                             follow Gmsh's hexahedron order)"
                        ),
                    });
                }
            }
        }
        Ok(mesh)
    }

    /// Number of cells.
    pub fn num_elements(&self) -> usize {
        self.elements.len()
    }

    /// Vertex representative under periodic identification (the vertex itself when not periodic).
    pub fn canonical_vertex(&self, v: usize) -> usize {
        self.periodic_vertex.as_ref().map_or(v, |p| p[v])
    }

    /// Corner coordinates of cell `k`.
    pub fn corners(&self, k: usize) -> [[f64; 3]; 8] {
        self.elements[k].map(|v| self.vertices[v])
    }

    /// The trilinear map of cell `k` at reference point `x` ∈ [0, 1]³.
    pub fn map(&self, k: usize, x: [f64; 3]) -> [f64; 3] {
        let p = self.corners(k);
        let n = shape(x);
        std::array::from_fn(|d| (0..8).map(|v| n[v] * p[v][d]).sum())
    }

    /// Jacobian of cell `k`'s map at `x`: `J[d][a]` = ∂x_d/∂x̂_a.
    pub fn jacobian(&self, k: usize, x: [f64; 3]) -> [[f64; 3]; 3] {
        let p = self.corners(k);
        let mut j = [[0.0; 3]; 3];
        for (v, c) in HEX_CORNERS.iter().enumerate() {
            for a in 0..3 {
                let mut g = if c[a] == 1.0 { 1.0 } else { -1.0 };
                for b in 0..3 {
                    if b != a {
                        g *= if c[b] == 1.0 { x[b] } else { 1.0 - x[b] };
                    }
                }
                for d in 0..3 {
                    j[d][a] += g * p[v][d];
                }
            }
        }
        j
    }

    /// Whether cell `k` is an axis-aligned box (its metric is constant and diagonal) or a general trilinear cell.
    pub fn geometry_class(&self, k: usize) -> GeometryClass {
        let p = self.corners(k);
        let scale = self.max_edge_of(k);
        let is_box = HEX_CORNERS.iter().enumerate().all(|(v, c)| {
            (0..3).all(|d| {
                let expected = if c[d] == 1.0 { p[6][d] } else { p[0][d] };
                (p[v][d] - expected).abs() <= 1e-12 * scale
            })
        });
        if is_box {
            GeometryClass::Box
        } else {
            GeometryClass::Trilinear
        }
    }

    /// Longest edge of cell `k`.
    pub fn max_edge_of(&self, k: usize) -> f64 {
        let p = self.corners(k);
        HEX_EDGES.iter().map(|&[a, b]| crate::mesh3d::distance3(p[a], p[b])).fold(0.0, f64::max)
    }

    /// Largest edge length over all cells (the mesh size h).
    pub fn max_edge_length(&self) -> f64 {
        (0..self.num_elements()).map(|k| self.max_edge_of(k)).fold(0.0, f64::max)
    }

    /// Index of a boundary tag by name.
    pub fn tag_index(&self, name: &str) -> Option<usize> {
        self.tag_names.iter().position(|t| t == name)
    }

    /// The sorted (periodically identified) vertex key of face `f` of cell `k`.
    pub fn face_key(&self, k: usize, f: usize) -> [usize; 4] {
        let mut key = HEX_FACE_CORNERS[f].map(|c| self.canonical_vertex(self.elements[k][c]));
        key.sort_unstable();
        key
    }

    /// The mesh as a Gmsh MSH 2.2 file: every cell (type 5) and every tagged boundary face (type 3) with its
    /// tag as the physical group (numbered from 1, named in `$PhysicalNames`).
    pub fn to_gmsh_22(&self) -> String {
        use std::fmt::Write as _;
        let mut out = String::from("$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$PhysicalNames\n");
        let _ = writeln!(out, "{}", self.tag_names.len() + 1);
        for (t, name) in self.tag_names.iter().enumerate() {
            let _ = writeln!(out, "2 {} \"{name}\"", t + 1);
        }
        let volume = self.tag_names.len() + 1;
        let _ = writeln!(out, "3 {volume} \"volume\"\n$EndPhysicalNames\n$Nodes\n{}", self.vertices.len());
        for (v, x) in self.vertices.iter().enumerate() {
            let _ = writeln!(out, "{} {:?} {:?} {:?}", v + 1, x[0], x[1], x[2]);
        }
        let _ = writeln!(out, "$EndNodes\n$Elements\n{}", self.boundary_tags.len() + self.elements.len());
        let mut id = 0;
        for k in 0..self.num_elements() {
            for f in 0..6 {
                let corners = HEX_FACE_CORNERS[f].map(|c| self.elements[k][c]);
                let mut key = corners;
                key.sort_unstable();
                if let Some(&tag) = self.boundary_tags.get(&key) {
                    id += 1;
                    let [a, b, c, d] = corners.map(|v| v + 1);
                    let _ = writeln!(out, "{id} 3 2 {} {} {a} {b} {c} {d}", tag + 1, tag + 1);
                }
            }
        }
        for e in &self.elements {
            id += 1;
            let nodes: Vec<String> = e.iter().map(|v| (v + 1).to_string()).collect();
            let _ = writeln!(out, "{id} 5 2 {volume} {volume} {}", nodes.join(" "));
        }
        out.push_str("$EndElements\n");
        out
    }

    /// The sorted vertex key of face `f` of cell `k` without periodic identification (boundary tag lookups).
    pub fn face_vertices(&self, k: usize, f: usize) -> [usize; 4] {
        let mut key = HEX_FACE_CORNERS[f].map(|c| self.elements[k][c]);
        key.sort_unstable();
        key
    }
}

/// The twelve edges of the reference cube (corner pairs).
pub const HEX_EDGES: [[usize; 2]; 12] =
    [[0, 1], [1, 2], [3, 2], [0, 3], [4, 5], [5, 6], [7, 6], [4, 7], [0, 4], [1, 5], [3, 7], [2, 6]];

/// The eight trilinear shape functions at `x`.
pub fn shape(x: [f64; 3]) -> [f64; 8] {
    HEX_CORNERS.map(|c| (0..3).map(|d| if c[d] == 1.0 { x[d] } else { 1.0 - x[d] }).product())
}

/// Determinant of a 3 × 3 matrix.
pub fn det3(m: &[[f64; 3]; 3]) -> f64 {
    m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
        + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
}

/// The cofactor matrix of J transposed, |J| J⁻¹: `c[a][d]` = |J| ∂x̂_a/∂x_d.
pub fn adjugate(j: &[[f64; 3]; 3]) -> [[f64; 3]; 3] {
    let mut c = [[0.0; 3]; 3];
    for a in 0..3 {
        for d in 0..3 {
            // (adj J)[a][d] = cofactor of J[d][a]
            let (r1, r2) = ((d + 1) % 3, (d + 2) % 3);
            let (c1, c2) = ((a + 1) % 3, (a + 2) % 3);
            c[a][d] = j[r1][c1] * j[r2][c2] - j[r1][c2] * j[r2][c1];
        }
    }
    c
}
