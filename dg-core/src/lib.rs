//! Mathematics of dg: everything a discontinuous Galerkin discretization needs that does not depend on a
//! device or on a particular physical law.
//!
//! - [`jacobi`]: Jacobi polynomials, their Gauss and Gauss–Lobatto points.
//! - [`quadrature`]: 1D Gauss–Legendre and Gauss–Lobatto rules.
//! - [`triangle`]: the reference triangle of order N (warp-and-blend nodes, orthonormal basis, Vandermonde,
//!   differentiation, mass, face masks, LIFT, cubature).
//! - [`tetrahedron`]: the reference tetrahedron of order N (warp-and-blend nodes, orthonormal basis, Vandermonde,
//!   Dr/Ds/Dt, mass, face masks, LIFT, conical-product cubature).
//! - [`mesh`]: triangle meshes (structured generators, refinement, Gmsh reader), connectivity and geometry.
//! - [`hexahedron`]: the reference hexahedron of degree D on Gauss–Legendre points (seed 003): tensor-product
//!   Lagrange basis, diagonal mass, sum-factorised derivatives, face extrapolation.
//! - [`hexmesh`]: hexahedral meshes of trilinear cells (structured boxes, straight or distorted), connectivity.
//! - [`space_hex`]: the DG space on a hexahedral mesh: metric terms at the nodes, face points and their partners.
//! - [`mesh3d`]: tetrahedral meshes (structured boxes in 6 or 5 tetrahedra per hexahedron, uniform refinement),
//!   connectivity and geometry.
//! - [`space`]: the DG space on a mesh: node coordinates, face maps, geometric factors.
//! - [`space3d`]: the DG space on a tetrahedral mesh.
//! - [`vtu`]: VTU output of high-order fields for ParaView.
//! - [`law`]: the trait a conservation law implements; the macro of `dg-macros` generates its implementations.
//!
//! Everything is computed in `f64`; operators convert to `f32` with [`matrix::to_row_major`].

pub mod error;
pub mod hexahedron;
pub mod hexmesh;
pub mod jacobi;
pub mod lattice;
pub mod law;
pub mod matrix;
pub mod mesh;
pub mod mesh3d;
pub mod mutate;
pub mod quadrature;
pub mod real;
pub mod space;
pub mod space3d;
pub mod space_hex;
pub mod tetrahedron;
pub mod triangle;
pub mod vtu;

pub use error::{CoreError, MeshError};
pub use real::Real;

/// The larger of two numbers, NaN when either is NaN. `f64::max` returns the other operand when one is NaN, so a
/// maximum of errors or wave speeds folded with it silently drops a NaN; fold with this instead.
pub fn max_or_nan(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.max(b)
    }
}

#[cfg(test)]
mod max_tests {
    #[test]
    fn a_nan_anywhere_makes_the_maximum_nan() {
        assert!([1.0, f64::NAN, 2.0].into_iter().fold(0.0, super::max_or_nan).is_nan());
        assert!([f64::NAN, 1.0].into_iter().fold(0.0, super::max_or_nan).is_nan());
        assert_eq!([1.0, 3.0, 2.0].into_iter().fold(0.0, super::max_or_nan), 3.0);
        assert_eq!(super::max_or_nan(f64::INFINITY, 1.0), f64::INFINITY);
    }
}
