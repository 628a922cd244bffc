//! Structured hexahedral meshes of a box, with straight (axis-aligned) cells or distorted trilinear ones.

use super::HexMesh;
use crate::mesh3d::boxes::VertexLattice;
use crate::mesh3d::BOX_TAGS;
use crate::MeshError;
use std::collections::HashMap;

/// A box [lower, upper] with `cells` hexahedra per direction.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HexBoxSpec {
    /// Lower corner.
    pub lower: [f64; 3],
    /// Upper corner.
    pub upper: [f64; 3],
    /// Hexahedra per direction.
    pub cells: [usize; 3],
    /// Periodic directions (opposite sides identified; they carry no tag).
    pub periodic: [bool; 3],
    /// Vertex displacement as a fraction of the cell size (0: axis-aligned boxes; up to 0.25): each vertex moves
    /// by `distortion · h_d · sin(2π ξ_d) sin(2π ξ_{d+1})` along d, which keeps the sides flat and the
    /// periodic sides matching, so the interior cells become general trilinear ones.
    pub distortion: f64,
}

impl HexBoxSpec {
    /// The unit cube with n³ cells.
    pub fn unit_cube(n: usize, periodic: bool) -> Self {
        Self { lower: [0.0; 3], upper: [1.0; 3], cells: [n; 3], periodic: [periodic; 3], distortion: 0.0 }
    }
}

/// Builds the structured hexahedral mesh of a box. Boundary tags: `xmin`, `xmax`, `ymin`, `ymax`, `zmin`, `zmax`
/// (on the sides that are not periodic).
pub fn hex_box_mesh(spec: &HexBoxSpec) -> Result<HexMesh, MeshError> {
    let [nx, ny, nz] = spec.cells;
    let lattice = VertexLattice::checked(spec.lower, spec.upper, spec.cells, spec.periodic)?;
    if !(0.0..=0.25).contains(&spec.distortion) {
        return Err(MeshError::Invalid(format!("the distortion must lie in [0, 0.25] (got {})", spec.distortion)));
    }
    let n = [nx, ny, nz];
    let id = |i: usize, j: usize, k: usize| lattice.id([i, j, k]);
    let mut vertices = Vec::with_capacity((nx + 1) * (ny + 1) * (nz + 1));
    for k in 0..=nz {
        for j in 0..=ny {
            for i in 0..=nx {
                let c = [i, j, k];
                let xi: [f64; 3] = std::array::from_fn(|d| c[d] as f64 / n[d] as f64);
                vertices.push(std::array::from_fn(|d| {
                    let length = spec.upper[d] - spec.lower[d];
                    let h = length / n[d] as f64;
                    let wiggle = (2.0 * std::f64::consts::PI * xi[d]).sin()
                        * (2.0 * std::f64::consts::PI * xi[(d + 1) % 3]).sin();
                    spec.lower[d] + length * xi[d] + spec.distortion * h * wiggle
                }));
            }
        }
    }
    let mut elements = Vec::with_capacity(nx * ny * nz);
    for k in 0..nz {
        for j in 0..ny {
            for i in 0..nx {
                elements.push(
                    crate::hexahedron::HEX_CORNERS.map(|c| id(i + c[0] as usize, j + c[1] as usize, k + c[2] as usize)),
                );
            }
        }
    }
    let tag_names: Vec<String> = BOX_TAGS.iter().map(|s| s.to_string()).collect();
    let mut boundary_tags = HashMap::new();
    let index = |v: usize| lattice.position(v);
    for e in &elements {
        for face in crate::hexahedron::HEX_FACE_CORNERS {
            let corners = face.map(|f| e[f]);
            for d in 0..3 {
                if spec.periodic[d] {
                    continue;
                }
                for (side, plane) in [(0, 0), (1, n[d])] {
                    if corners.iter().all(|&v| index(v)[d] == plane) {
                        let mut key = corners;
                        key.sort_unstable();
                        boundary_tags.insert(key, 2 * d + side);
                    }
                }
            }
        }
    }
    let mut mesh = HexMesh::new(vertices, elements, tag_names, boundary_tags)?;
    mesh.periodic_vertex = lattice.periodic_representatives(spec.periodic);
    mesh.lattice = Some(super::CellLattice { cells: spec.cells, periodic: spec.periodic, per_cell: 1 });
    Ok(mesh)
}
