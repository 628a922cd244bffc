//! Unstructured tetrahedral meshes: the mesh itself, the structured box generator, uniform refinement,
//! face connectivity and affine geometric factors.

pub(crate) mod boxes;
mod connectivity;
mod geometry;
mod refine;

/// Gmsh input of tetrahedral meshes (the reader is shared with triangle meshes).
pub use crate::mesh::{read_gmsh_tet, read_gmsh_tet_str};
pub use boxes::{box_mesh, BoxSpec, CubeSplit, BOX_TAGS};
pub use connectivity::Connectivity3d;
pub use geometry::{TetFaceGeometry, TetGeometry};
pub use refine::refine_uniform_tet;

use crate::MeshError;
use std::collections::HashMap;

/// A conforming tetrahedral mesh with positively oriented elements and tagged boundary faces.
#[derive(Debug, Clone)]
pub struct TetMesh {
    /// Vertex coordinates.
    pub vertices: Vec<[f64; 3]>,
    /// Element vertex indices, positively oriented (det[x₁−x₀, x₂−x₀, x₃−x₀] > 0).
    pub elements: Vec<[usize; 4]>,
    /// Boundary tag names; a tag is an index into this list.
    pub tag_names: Vec<String>,
    /// Tag of each boundary face, keyed by its sorted vertex triple.
    pub boundary_tags: HashMap<[usize; 3], usize>,
    /// For periodic meshes: the representative of each vertex (vertices identified by periodicity share one).
    pub periodic_vertex: Option<Vec<usize>>,
    /// For the tetrahedra of a structured box in [`box_mesh`]'s order (five or six per cube): its cubes, for a
    /// partition into blocks; `None` for any other mesh. Anything that reorders, adds or removes elements must set
    /// it to `None` (a stale lattice still gives a valid partition, only a worse one).
    pub lattice: Option<crate::lattice::CellLattice>,
}

impl TetMesh {
    /// Builds a mesh and checks it: vertex indices in range, no degenerate element. Negatively oriented
    /// elements are reoriented (two vertices swapped).
    pub fn new(
        vertices: Vec<[f64; 3]>,
        mut elements: Vec<[usize; 4]>,
        tag_names: Vec<String>,
        boundary_tags: HashMap<[usize; 3], usize>,
    ) -> Result<Self, MeshError> {
        if elements.is_empty() {
            return Err(MeshError::Invalid("the mesh has no tetrahedra".into()));
        }
        for (k, e) in elements.iter().enumerate() {
            if let Some(&v) = e.iter().find(|&&v| v >= vertices.len()) {
                return Err(MeshError::Invalid(format!(
                    "tetrahedron {k} refers to vertex {v}, but there are only {} vertices",
                    vertices.len()
                )));
            }
        }
        let scale = bounding_box_diameter(&vertices).max(f64::MIN_POSITIVE);
        for (k, e) in elements.iter_mut().enumerate() {
            let v = signed_volume(&vertices, e);
            if v.abs() <= 1e-13 * scale.powi(3) {
                return Err(MeshError::Degenerate { element: k, area: v, origin: String::new() });
            }
            if v < 0.0 {
                e.swap(1, 2);
            }
        }
        Ok(Self { vertices, elements, tag_names, boundary_tags, periodic_vertex: None, lattice: None })
    }

    /// Number of elements.
    pub fn num_elements(&self) -> usize {
        self.elements.len()
    }

    /// Vertex representative under periodic identification (the vertex itself when not periodic).
    pub fn canonical_vertex(&self, v: usize) -> usize {
        self.periodic_vertex.as_ref().map_or(v, |p| p[v])
    }

    /// Volume of element `k`.
    pub fn volume(&self, k: usize) -> f64 {
        signed_volume(&self.vertices, &self.elements[k])
    }

    /// Index of a boundary tag by name.
    pub fn tag_index(&self, name: &str) -> Option<usize> {
        self.tag_names.iter().position(|t| t == name)
    }

    /// Largest edge length over all elements (the mesh size h).
    pub fn max_edge_length(&self) -> f64 {
        let mut h = 0.0f64;
        for e in &self.elements {
            for a in 0..4 {
                for b in a + 1..4 {
                    h = h.max(distance3(self.vertices[e[a]], self.vertices[e[b]]));
                }
            }
        }
        h
    }

    /// Number of nodes of an order-N space on this mesh (K · (N+1)(N+2)(N+3)/6).
    pub fn num_nodes(&self, order: usize) -> usize {
        self.num_elements() * crate::tetrahedron::num_nodes(order)
    }
}

/// Signed volume of a tetrahedron.
pub(crate) fn signed_volume(vertices: &[[f64; 3]], e: &[usize; 4]) -> f64 {
    let [a, b, c, d] = e.map(|i| vertices[i]);
    let u = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
    let v = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
    let w = [d[0] - a[0], d[1] - a[1], d[2] - a[2]];
    (u[0] * (v[1] * w[2] - v[2] * w[1]) - u[1] * (v[0] * w[2] - v[2] * w[0]) + u[2] * (v[0] * w[1] - v[1] * w[0])) / 6.0
}

/// Euclidean distance in 3D.
pub fn distance3(a: [f64; 3], b: [f64; 3]) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
}

/// A face key: the three vertex indices sorted.
pub(crate) fn sorted_triple(a: usize, b: usize, c: usize) -> [usize; 3] {
    let mut t = [a, b, c];
    t.sort_unstable();
    t
}

fn bounding_box_diameter(vertices: &[[f64; 3]]) -> f64 {
    let (mut lo, mut hi) = ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]);
    for v in vertices {
        for d in 0..3 {
            lo[d] = lo[d].min(v[d]);
            hi[d] = hi[d].max(v[d]);
        }
    }
    distance3(lo, hi)
}
