//! The reference tetrahedron {(r, s, t) : r, s, t ≥ −1, r + s + t ≤ −1} with vertices (−1,−1,−1), (1,−1,−1),
//! (−1,1,−1), (−1,−1,1).
//!
//! Faces are numbered as in Hesthaven & Warburton: face 0 is t = −1 (vertices 0, 1, 2), face 1 is s = −1
//! (vertices 0, 1, 3), face 2 is r + s + t = −1 (vertices 1, 2, 3), face 3 is r = −1 (vertices 0, 2, 3).

mod basis;
mod cubature;
mod element;
mod nodes;

pub use basis::{grad_simplex_3d, rst_to_abc, simplex_3d};
pub use cubature::{tet_cubature, TetRule};
pub use element::{grad_vandermonde_3d, vandermonde_3d, ReferenceTetrahedron, FACE_VERTICES, MAX_ORDER, MIN_ORDER};
pub use nodes::{equispaced_nodes_3d, warp_blend_nodes_3d};

/// The source that makes the reference tetrahedron's numbers and node order — its nodes, operators and cubature,
/// with the triangle's face Vandermonde, the Jacobi polynomials and the matrix inverse they are built from.
/// Generated kernels have these written into them (face masks), so the tetrahedral formulation hashes this into its
/// kernels' code fingerprint: a change here moves its tuning entries' keys.
pub const GENERATOR_SOURCES: [&str; 9] = [
    include_str!("mod.rs"),
    include_str!("basis.rs"),
    include_str!("cubature.rs"),
    include_str!("element.rs"),
    include_str!("nodes.rs"),
    include_str!("../triangle/element.rs"),
    include_str!("../triangle/basis.rs"),
    include_str!("../jacobi.rs"),
    include_str!("../matrix.rs"),
];

/// Number of nodes of a degree-`n` tetrahedron: (n + 1)(n + 2)(n + 3) / 6.
pub const fn num_nodes(n: usize) -> usize {
    (n + 1) * (n + 2) * (n + 3) / 6
}

/// Number of nodes on one face of a degree-`n` tetrahedron: (n + 1)(n + 2) / 2.
pub const fn num_face_nodes(n: usize) -> usize {
    (n + 1) * (n + 2) / 2
}
