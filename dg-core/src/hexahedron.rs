//! The reference hexahedron [0, 1]³ of seed 003 (CLAC): a nodal basis on the (D + 1)³ Gauss–Legendre points,
//! tensor products of 1D Lagrange polynomials, so that the interpolation points are the quadrature points and
//! the mass matrix is diagonal.
//!
//! Node `i = p₁ + (D + 1) p₂ + (D + 1)² p₃` sits at (ξ_{p₁}, ξ_{p₂}, ξ_{p₃}) with weight ω_{p₁} ω_{p₂} ω_{p₃}
//! (the 1D weights on [0, 1] sum to 1). The gradient of ψ_i is non-zero only at the nodes aligned with i along
//! one axis, so the volume term costs ~D⁴ per cell by sum factorisation instead of ~D⁶; face values are 1D
//! extrapolations of the D + 1 nodes on the line through the face point.
//!
//! Faces: face `f` lies on x̂_a = s with axis `a = f / 2` and side `s = f % 2` (0 or 1); its (D + 1)² points are
//! numbered `q = p_b + (D + 1) p_c` over the two other axes b < c.

use crate::jacobi::jacobi_gq;

/// The source that makes the reference hexahedron's numbers (its Gauss–Legendre points, weights and 1D operators,
/// with the Jacobi rules they come from). Generated kernels have these written into them (the weights), so the
/// hexahedral formulation hashes this into its kernels' code fingerprint: a change here moves its tuning entries'
/// keys.
pub const GENERATOR_SOURCES: [&str; 2] = [include_str!("hexahedron.rs"), include_str!("jacobi.rs")];

/// Corners of the reference cube in Gmsh's (and VTK's) hexahedron order.
pub const HEX_CORNERS: [[f64; 3]; 8] = [
    [0.0, 0.0, 0.0],
    [1.0, 0.0, 0.0],
    [1.0, 1.0, 0.0],
    [0.0, 1.0, 0.0],
    [0.0, 0.0, 1.0],
    [1.0, 0.0, 1.0],
    [1.0, 1.0, 1.0],
    [0.0, 1.0, 1.0],
];

/// Corners of each face (face `f` on x̂_{f/2} = f % 2), as indices into [`HEX_CORNERS`].
pub const HEX_FACE_CORNERS: [[usize; 4]; 6] =
    [[0, 3, 7, 4], [1, 2, 6, 5], [0, 1, 5, 4], [3, 2, 6, 7], [0, 1, 2, 3], [4, 5, 6, 7]];

/// The two axes of a face of axis `a`, in increasing order.
pub fn face_axes(a: usize) -> [usize; 2] {
    match a {
        0 => [1, 2],
        1 => [0, 2],
        _ => [0, 1],
    }
}

/// The reference hexahedron of order D on Gauss–Legendre points.
#[derive(Debug, Clone, PartialEq)]
pub struct ReferenceHexahedron {
    /// Polynomial degree D per direction.
    pub order: usize,
    /// Points per direction, D + 1.
    pub n1: usize,
    /// Nodes per cell, (D + 1)³.
    pub np: usize,
    /// Points per face, (D + 1)².
    pub nfp: usize,
    /// Gauss–Legendre points on [0, 1], increasing.
    pub points: Vec<f64>,
    /// Their weights, summing to 1.
    pub weights: Vec<f64>,
    /// 1D differentiation: `d1[m * n1 + n]` = l_n'(ξ_m).
    pub d1: Vec<f64>,
    /// 1D extrapolation to the ends: `ends[s][n]` = l_n(s) for s = 0, 1.
    pub ends: [Vec<f64>; 2],
}

impl ReferenceHexahedron {
    /// The element of degree `order` (D ≥ 0).
    pub fn new(order: usize) -> Self {
        let n1 = order + 1;
        let (x, w) = jacobi_gq(0.0, 0.0, order);
        let points: Vec<f64> = x.iter().map(|&r| 0.5 * (r + 1.0)).collect();
        let weights: Vec<f64> = w.iter().map(|&w| 0.5 * w).collect();
        let mut d1 = vec![0.0; n1 * n1];
        for m in 0..n1 {
            for n in 0..n1 {
                d1[m * n1 + n] = lagrange_derivative(&points, n, points[m]);
            }
        }
        let ends = [0.0, 1.0].map(|s| (0..n1).map(|n| lagrange(&points, n, s)).collect());
        Self { order, n1, np: n1 * n1 * n1, nfp: n1 * n1, points, weights, d1, ends }
    }

    /// Node index of the tensor indices (p₁, p₂, p₃).
    pub fn index(&self, p: [usize; 3]) -> usize {
        p[0] + self.n1 * (p[1] + self.n1 * p[2])
    }

    /// Tensor indices of node `i`.
    pub fn indices(&self, i: usize) -> [usize; 3] {
        [i % self.n1, (i / self.n1) % self.n1, i / (self.n1 * self.n1)]
    }

    /// Reference coordinates of node `i`.
    pub fn node(&self, i: usize) -> [f64; 3] {
        self.indices(i).map(|p| self.points[p])
    }

    /// Quadrature weight of node `i` (the diagonal of the mass matrix).
    pub fn weight(&self, i: usize) -> f64 {
        self.indices(i).iter().map(|&p| self.weights[p]).product()
    }

    /// Cell node of face `f`'s point `q` at tensor position `m` along the face's axis.
    pub fn face_line_node(&self, f: usize, q: usize, m: usize) -> usize {
        let a = f / 2;
        let [b, c] = face_axes(a);
        let mut p = [0; 3];
        p[a] = m;
        p[b] = q % self.n1;
        p[c] = q / self.n1;
        self.index(p)
    }

    /// Reference coordinates of face `f`'s point `q`.
    pub fn face_point(&self, f: usize, q: usize) -> [f64; 3] {
        let (a, s) = (f / 2, f % 2);
        let [b, c] = face_axes(a);
        let mut x = [0.0; 3];
        x[a] = s as f64;
        x[b] = self.points[q % self.n1];
        x[c] = self.points[q / self.n1];
        x
    }

    /// Surface quadrature weight of face point `q` (the 1D weights of its two axes; they sum to 1 over a face).
    pub fn face_weight(&self, q: usize) -> f64 {
        self.weights[q % self.n1] * self.weights[q / self.n1]
    }

    /// ψ_j at reference point `x`.
    pub fn basis(&self, j: usize, x: [f64; 3]) -> f64 {
        let p = self.indices(j);
        (0..3).map(|d| lagrange(&self.points, p[d], x[d])).product()
    }

    /// ∂ψ_j/∂x̂_a at reference point `x`.
    pub fn basis_derivative(&self, j: usize, a: usize, x: [f64; 3]) -> f64 {
        let p = self.indices(j);
        (0..3)
            .map(|d| {
                if d == a {
                    lagrange_derivative(&self.points, p[d], x[d])
                } else {
                    lagrange(&self.points, p[d], x[d])
                }
            })
            .product()
    }

    /// ∂u/∂x̂_a at every node by sum factorisation: (D + 1)⁴ operations instead of (D + 1)⁶.
    pub fn derivative(&self, u: &[f64], a: usize, out: &mut [f64]) {
        let n1 = self.n1;
        let stride = [1, n1, n1 * n1][a];
        for i in 0..self.np {
            let pa = self.indices(i)[a];
            let base = i - pa * stride;
            out[i] = (0..n1).map(|n| self.d1[pa * n1 + n] * u[base + n * stride]).sum();
        }
    }

    /// The dense differentiation matrix along axis `a` (`np × np`, row-major): entry (i, j) = ∂ψ_j/∂x̂_a(x̂_i).
    pub fn derivative_matrix(&self, a: usize) -> Vec<f64> {
        let mut m = vec![0.0; self.np * self.np];
        for i in 0..self.np {
            let x = self.node(i);
            for j in 0..self.np {
                m[i * self.np + j] = self.basis_derivative(j, a, x);
            }
        }
        m
    }

    /// Values at reference points `x` of the polynomial with nodal values `u`.
    pub fn evaluate(&self, u: &[f64], x: [f64; 3]) -> f64 {
        let l: [Vec<f64>; 3] = std::array::from_fn(|d| (0..self.n1).map(|n| lagrange(&self.points, n, x[d])).collect());
        (0..self.np)
            .map(|j| {
                let p = self.indices(j);
                u[j] * l[0][p[0]] * l[1][p[1]] * l[2][p[2]]
            })
            .sum()
    }
}

/// The Lagrange polynomial through `points` that is 1 at `points[n]`, at `x`.
pub fn lagrange(points: &[f64], n: usize, x: f64) -> f64 {
    points.iter().enumerate().filter(|&(m, _)| m != n).map(|(_, &xm)| (x - xm) / (points[n] - xm)).product()
}

/// The derivative of [`lagrange`] at `x`.
pub fn lagrange_derivative(points: &[f64], n: usize, x: f64) -> f64 {
    let mut total = 0.0;
    for (k, &xk) in points.iter().enumerate() {
        if k == n {
            continue;
        }
        let mut term = 1.0 / (points[n] - xk);
        for (m, &xm) in points.iter().enumerate() {
            if m != n && m != k {
                term *= (x - xm) / (points[n] - xm);
            }
        }
        total += term;
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::quadrature::gauss_legendre;

    #[test]
    fn the_basis_is_nodal_and_the_weights_sum_to_one() {
        for order in 0..=6 {
            let el = ReferenceHexahedron::new(order);
            for i in 0..el.np {
                let x = el.node(i);
                for j in 0..el.np {
                    let expected = if i == j { 1.0 } else { 0.0 };
                    assert!((el.basis(j, x) - expected).abs() < 1e-12, "D={order}: ψ_{j}(x_{i}) = {}", el.basis(j, x));
                }
            }
            let total: f64 = (0..el.np).map(|i| el.weight(i)).sum();
            assert!((total - 1.0).abs() < 1e-14, "D={order}: weights sum to {total}");
            let face: f64 = (0..el.nfp).map(|q| el.face_weight(q)).sum();
            assert!((face - 1.0).abs() < 1e-14);
        }
    }

    #[test]
    fn the_mass_matrix_is_diagonal_with_the_weights() {
        // ∫ ψ_i ψ_j over the cube with a rule of D + 3 points per direction (exact for the degree-2D products)
        for order in 0..=5 {
            let el = ReferenceHexahedron::new(order);
            let rule = gauss_legendre(order + 3);
            let pts: Vec<f64> = rule.points.iter().map(|&r| 0.5 * (r + 1.0)).collect();
            let wts: Vec<f64> = rule.weights.iter().map(|&w| 0.5 * w).collect();
            let n = pts.len();
            let values: Vec<Vec<f64>> = (0..n * n * n)
                .map(|c| {
                    let x = [pts[c % n], pts[(c / n) % n], pts[c / (n * n)]];
                    (0..el.np).map(|j| el.basis(j, x)).collect()
                })
                .collect();
            for i in 0..el.np {
                for j in 0..el.np {
                    let m: f64 = (0..n * n * n)
                        .map(|c| wts[c % n] * wts[(c / n) % n] * wts[c / (n * n)] * values[c][i] * values[c][j])
                        .sum();
                    let expected = if i == j { el.weight(i) } else { 0.0 };
                    assert!((m - expected).abs() < 1e-13, "D={order}: M[{i}][{j}] = {m}, expected {expected}");
                }
            }
        }
    }

    #[test]
    fn sum_factorised_derivatives_equal_the_dense_ones_and_are_exact_on_polynomials() {
        for order in 1..=6 {
            let el = ReferenceHexahedron::new(order);
            // a random-looking nodal field
            let u: Vec<f64> = (0..el.np).map(|i| ((i * 7919) % 101) as f64 / 101.0 - 0.4).collect();
            for a in 0..3 {
                let dense = el.derivative_matrix(a);
                let mut fast = vec![0.0; el.np];
                el.derivative(&u, a, &mut fast);
                for i in 0..el.np {
                    let d: f64 = (0..el.np).map(|j| dense[i * el.np + j] * u[j]).sum();
                    assert!(
                        (d - fast[i]).abs() < 1e-11 * (1.0 + d.abs()),
                        "D={order} axis {a} node {i}: {d} vs {}",
                        fast[i]
                    );
                }
            }
            // x^D y^(D-1) z: exact derivatives
            let f = |x: [f64; 3]| x[0].powi(order as i32) * x[1].powi(order as i32 - 1) * x[2];
            let u: Vec<f64> = (0..el.np).map(|i| f(el.node(i))).collect();
            let mut dx = vec![0.0; el.np];
            el.derivative(&u, 0, &mut dx);
            for i in 0..el.np {
                let x = el.node(i);
                let exact = order as f64 * x[0].powi(order as i32 - 1) * x[1].powi(order as i32 - 1) * x[2];
                assert!((dx[i] - exact).abs() < 1e-11, "D={order}: ∂x at node {i}: {} vs {exact}", dx[i]);
            }
        }
    }

    #[test]
    fn face_extrapolation_is_exact_for_polynomials_of_degree_d() {
        for order in 0..=5 {
            let el = ReferenceHexahedron::new(order);
            let z = if order > 0 { 1.0 } else { 0.0 };
            let f = |x: [f64; 3]| (1.0 + x[0]).powi(order as i32) * (2.0 - x[1]).powi(order as i32) + z * x[2];
            let u: Vec<f64> = (0..el.np).map(|i| f(el.node(i))).collect();
            for face in 0..6 {
                for q in 0..el.nfp {
                    let value: f64 = (0..el.n1).map(|m| el.ends[face % 2][m] * u[el.face_line_node(face, q, m)]).sum();
                    let exact = f(el.face_point(face, q));
                    assert!((value - exact).abs() < 1e-11, "D={order} face {face} point {q}: {value} vs {exact}");
                }
            }
        }
    }
}
