//! Cubature on the reference tetrahedron: the conical (collapsed) product of Gauss–Jacobi rules (Stroud).

use crate::jacobi::jacobi_gq;

/// A cubature rule on the reference tetrahedron: points (r, s, t) and weights summing to its volume 4/3.
#[derive(Debug, Clone)]
pub struct TetRule {
    /// r coordinates.
    pub r: Vec<f64>,
    /// s coordinates.
    pub s: Vec<f64>,
    /// t coordinates.
    pub t: Vec<f64>,
    /// Weights.
    pub w: Vec<f64>,
}

/// A rule exact for polynomials of total degree `degree`: q = ⌈(degree + 1)/2⌉ Gauss–Jacobi points per collapsed
/// direction, weights (1−b) and (1−c)² absorbed by the Jacobi weights α = 1, 2.
pub fn tet_cubature(degree: usize) -> TetRule {
    let q = degree / 2 + 1;
    let (a, wa) = jacobi_gq(0.0, 0.0, q - 1);
    let (b, wb) = jacobi_gq(1.0, 0.0, q - 1);
    let (c, wc) = jacobi_gq(2.0, 0.0, q - 1);
    let mut rule = TetRule { r: Vec::new(), s: Vec::new(), t: Vec::new(), w: Vec::new() };
    for (k, &ck) in c.iter().enumerate() {
        for (j, &bj) in b.iter().enumerate() {
            for (i, &ai) in a.iter().enumerate() {
                rule.r.push(0.25 * (1.0 + ai) * (1.0 - bj) * (1.0 - ck) - 1.0);
                rule.s.push(0.5 * (1.0 + bj) * (1.0 - ck) - 1.0);
                rule.t.push(ck);
                rule.w.push(wa[i] * wb[j] * wc[k] / 8.0);
            }
        }
    }
    rule
}
