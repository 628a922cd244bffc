//! The reference triangle {(r, s) : r, s ≥ −1, r + s ≤ 0} with vertices (−1,−1), (1,−1), (−1,1).
//!
//! Faces are numbered as in Hesthaven & Warburton: face 0 is s = −1 (vertices 0→1), face 1 is r + s = 0
//! (vertices 1→2), face 2 is r = −1 (vertices 2→0).

mod basis;
mod cubature;
mod element;
mod modal;
mod nodes;

pub use basis::{grad_simplex_2d, rs_to_ab, simplex_2d};
pub use cubature::{symmetric_cubature, triangle_cubature, TriangleRule};
pub use element::{
    face_parameter, grad_vandermonde, vandermonde, vandermonde_1d, ReferenceTriangle, MAX_ORDER, MIN_ORDER,
};
pub use modal::{edge_points, ModalTriangle};
pub use nodes::{equispaced_nodes, warp_blend_nodes};

/// The source that makes the reference triangle's numbers and node order — its nodes, operators, modal basis and
/// cubature rules, with the Jacobi polynomials, 1D rules and matrix inverse they are built from. Generated kernels
/// have these written into them (constant operators and tables, face masks, mirror pairs), so each formulation on
/// triangles hashes this into its kernels' code fingerprint: a change here moves its tuning entries' keys.
pub const GENERATOR_SOURCES: [&str; 9] = [
    include_str!("mod.rs"),
    include_str!("basis.rs"),
    include_str!("cubature.rs"),
    include_str!("element.rs"),
    include_str!("modal.rs"),
    include_str!("nodes.rs"),
    include_str!("../jacobi.rs"),
    include_str!("../quadrature.rs"),
    include_str!("../matrix.rs"),
];

/// Number of nodes of a degree-`n` triangle: (n + 1)(n + 2) / 2.
pub const fn num_nodes(n: usize) -> usize {
    (n + 1) * (n + 2) / 2
}
