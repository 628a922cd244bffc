//! Cubature on the reference triangle: collapsed-coordinate (Stroud conical product) Gauss rules.
//!
//! With (a, b) ∈ [−1, 1]², r = (1 + a)(1 − b)/2 − 1, s = b, the area element is (1 − b)/2 da db. A
//! Gauss–Legendre rule in a and a Gauss–Jacobi (α = 1, β = 0) rule in b, each of q points, integrate every
//! polynomial of total degree ≤ 2q − 1 exactly. Positive weights, all points interior.

use crate::jacobi::jacobi_gq;
use crate::quadrature::gauss_legendre;

/// A cubature rule on the reference triangle.
#[derive(Debug, Clone)]
pub struct TriangleRule {
    /// r coordinates.
    pub r: Vec<f64>,
    /// s coordinates.
    pub s: Vec<f64>,
    /// Weights (they sum to the reference area, 2).
    pub w: Vec<f64>,
    /// Total polynomial degree integrated exactly.
    pub degree: usize,
}

/// A rule exact for polynomials of total degree ≤ `degree` on the reference triangle.
pub fn triangle_cubature(degree: usize) -> TriangleRule {
    let q = degree / 2 + 1;
    let ga = gauss_legendre(q);
    let (gb, wb) = jacobi_gq(1.0, 0.0, q - 1);
    let mut rule = TriangleRule { r: vec![], s: vec![], w: vec![], degree };
    for (&b, &wbj) in gb.iter().zip(&wb) {
        for (&a, &wai) in ga.points.iter().zip(&ga.weights) {
            rule.r.push(0.5 * (1.0 + a) * (1.0 - b) - 1.0);
            rule.s.push(b);
            rule.w.push(0.5 * wai * wbj);
        }
    }
    rule
}
