//! Unstructured triangle meshes: the mesh itself, generators, refinement, Gmsh input, connectivity and
//! affine geometric factors.

mod annulus;
mod connectivity;
mod geometry;
mod gmsh;
mod gmsh_sections;
mod refine;
mod structured;

pub use annulus::{project_onto_circle, quarter_annulus, QuarterAnnulusSpec, QUARTER_ANNULUS_TAGS};
pub(crate) use connectivity::default_boundary_tag;
pub use connectivity::{Connectivity, FaceLink};
pub use geometry::{ElementGeometry, FaceGeometry};
pub use gmsh::{read_gmsh, read_gmsh_hex, read_gmsh_hex_str, read_gmsh_str, read_gmsh_tet, read_gmsh_tet_str};
pub use refine::refine_uniform;
pub use structured::{perturb_interior, rectangle, Diagonal, RectangleSpec};

/// The fewest cells a structured mesh takes across a periodic direction (rectangles and boxes): with fewer, a face
/// of the mesh joins the same vertices as another (or its own cell twice), and the connectivity is not manifold.
pub const MIN_PERIODIC_CELLS: usize = 3;

use crate::MeshError;
use std::collections::HashMap;

/// Default boundary tag for boundary faces that no physical group names.
pub const DEFAULT_BOUNDARY_TAG: &str = "boundary";

/// A conforming triangle mesh with counter-clockwise elements and tagged boundary faces.
#[derive(Debug, Clone)]
pub struct TriMesh {
    /// Vertex coordinates.
    pub vertices: Vec<[f64; 2]>,
    /// Element vertex indices, counter-clockwise.
    pub elements: Vec<[usize; 3]>,
    /// Boundary tag names; a tag is an index into this list.
    pub tag_names: Vec<String>,
    /// Tag of each boundary face, keyed by its sorted vertex pair.
    pub boundary_tags: HashMap<[usize; 2], usize>,
    /// For periodic meshes: the representative of each vertex (vertices identified by periodicity share
    /// one). `None` for non-periodic meshes.
    pub periodic_vertex: Option<Vec<usize>>,
    /// Where each element was defined (e.g. `file.msh:42`), for error messages; empty when generated.
    pub origins: Vec<String>,
    /// For the triangles of a structured rectangle in [`rectangle`]'s order (two per square): its squares, for a
    /// partition into blocks; `None` for any other mesh. Anything that reorders, adds or removes elements must set
    /// it to `None` (a stale lattice still gives a valid partition, only a worse one).
    pub lattice: Option<crate::lattice::CellLattice>,
}

impl TriMesh {
    /// Builds a mesh and checks it: vertex indices in range, no degenerate element, one consistent orientation
    /// (a mesh given entirely clockwise is reoriented; a mixed one is rejected naming the inverted elements).
    pub fn new(
        vertices: Vec<[f64; 2]>,
        mut elements: Vec<[usize; 3]>,
        tag_names: Vec<String>,
        boundary_tags: HashMap<[usize; 2], usize>,
        origins: Vec<String>,
    ) -> Result<Self, MeshError> {
        if elements.is_empty() {
            return Err(MeshError::Invalid("the mesh has no triangles".into()));
        }
        let origin = |k: usize| origins.get(k).map(|o| format!(" (defined at {o})")).unwrap_or_default();
        for (k, e) in elements.iter().enumerate() {
            if let Some(&v) = e.iter().find(|&&v| v >= vertices.len()) {
                return Err(MeshError::Invalid(format!(
                    "element {k} refers to vertex {v}, but there are only {} vertices{}",
                    vertices.len(),
                    origin(k)
                )));
            }
        }
        let scale = bounding_box_diameter(&vertices).max(f64::MIN_POSITIVE);
        let areas: Vec<f64> = elements.iter().map(|e| signed_area(&vertices, e)).collect();
        for (k, &a) in areas.iter().enumerate() {
            if a.abs() <= 1e-12 * scale * scale {
                return Err(MeshError::Degenerate { element: k, area: a, origin: origin(k) });
            }
        }
        let clockwise = areas.iter().filter(|&&a| a < 0.0).count();
        if clockwise == elements.len() {
            for e in &mut elements {
                e.swap(1, 2);
            }
        } else if clockwise > 0 {
            let minority_negative = clockwise * 2 <= elements.len();
            let k = areas.iter().position(|&a| (a < 0.0) == minority_negative).expect("a minority element exists");
            return Err(MeshError::Inverted { element: k, origin: origin(k) });
        }
        Ok(Self { vertices, elements, tag_names, boundary_tags, periodic_vertex: None, origins, lattice: None })
    }

    /// Number of elements.
    pub fn num_elements(&self) -> usize {
        self.elements.len()
    }

    /// Vertex representative under periodic identification (the vertex itself when not periodic).
    pub fn canonical_vertex(&self, v: usize) -> usize {
        self.periodic_vertex.as_ref().map_or(v, |p| p[v])
    }

    /// Signed area of element `k` (positive).
    pub fn area(&self, k: usize) -> f64 {
        signed_area(&self.vertices, &self.elements[k])
    }

    /// Index of a boundary tag by name.
    pub fn tag_index(&self, name: &str) -> Option<usize> {
        self.tag_names.iter().position(|t| t == name)
    }

    /// Where element `k` came from, as " (defined at …)" or an empty string.
    pub fn origin(&self, k: usize) -> String {
        self.origins.get(k).map(|o| format!(" (defined at {o})")).unwrap_or_default()
    }

    /// Largest edge length over all elements (the mesh size h).
    pub fn max_edge_length(&self) -> f64 {
        self.elements
            .iter()
            .flat_map(|e| (0..3).map(move |f| (e[f], e[(f + 1) % 3])))
            .map(|(a, b)| dist(self.vertices[a], self.vertices[b]))
            .fold(0.0, f64::max)
    }
}

pub(crate) fn signed_area(vertices: &[[f64; 2]], e: &[usize; 3]) -> f64 {
    let [a, b, c] = [vertices[e[0]], vertices[e[1]], vertices[e[2]]];
    0.5 * ((b[0] - a[0]) * (c[1] - a[1]) - (c[0] - a[0]) * (b[1] - a[1]))
}

/// Euclidean distance between two points.
pub fn distance(a: [f64; 2], b: [f64; 2]) -> f64 {
    dist(a, b)
}

pub(crate) fn dist(a: [f64; 2], b: [f64; 2]) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)).sqrt()
}

pub(crate) fn sorted_pair(a: usize, b: usize) -> [usize; 2] {
    if a < b {
        [a, b]
    } else {
        [b, a]
    }
}

fn bounding_box_diameter(vertices: &[[f64; 2]]) -> f64 {
    let (mut lo, mut hi) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
    for v in vertices {
        for d in 0..2 {
            lo[d] = lo[d].min(v[d]);
            hi[d] = hi[d].max(v[d]);
        }
    }
    dist(lo, hi)
}

/// An error unless a connectivity of `links` elements fits a mesh of `elements` (a space built with a given
/// connectivity, triangles or tetrahedra).
pub(crate) fn check_connectivity_size(links: usize, elements: usize) -> Result<(), MeshError> {
    if links == elements {
        return Ok(());
    }
    Err(MeshError::Invalid(format!("the connectivity has {links} elements but the mesh {elements}")))
}
