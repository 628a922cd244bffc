//! The nodal reference triangle of order N and its operator matrices.

use super::basis::{grad_simplex_2d, rs_to_ab, simplex_2d};
use super::nodes::warp_blend_nodes;
use super::num_nodes;
use crate::jacobi::jacobi_p;
use crate::matrix::{inverse, Matrix};
use crate::CoreError;

/// Lowest supported order.
pub const MIN_ORDER: usize = 1;
/// Highest supported order.
pub const MAX_ORDER: usize = 10;

/// Nodal reference triangle of order N on warp-and-blend nodes, with all element-local operators.
///
/// Matrices act on nodal values: `dr * u` is ∂u/∂r at the nodes. `lift` maps the 3·Nfp face values (face 0
/// nodes, then face 1, then face 2, each in `fmask` order) to the volume: LIFT = M⁻¹ [M^Γ0 | M^Γ1 | M^Γ2],
/// with each face mass matrix taken in the face parameter of length 2 (the surface Jacobian sJ converts).
#[derive(Debug, Clone)]
pub struct ReferenceTriangle {
    /// Polynomial order N.
    pub order: usize,
    /// Number of nodes, (N+1)(N+2)/2.
    pub np: usize,
    /// Nodes per face, N + 1.
    pub nfp: usize,
    /// Node r coordinates.
    pub r: Vec<f64>,
    /// Node s coordinates.
    pub s: Vec<f64>,
    /// Vandermonde matrix V(i, j) = ψ_j(r_i, s_i) (orthonormal basis).
    pub v: Matrix,
    /// Differentiation in r.
    pub dr: Matrix,
    /// Differentiation in s.
    pub ds: Matrix,
    /// Mass matrix (V Vᵀ)⁻¹ on the reference element.
    pub mass: Matrix,
    /// Local node indices of each face, ordered along the face.
    pub fmask: [Vec<usize>; 3],
    /// Lift matrix, Np × 3Nfp.
    pub lift: Matrix,
}

impl ReferenceTriangle {
    /// Builds the reference triangle of order `order` (1..=10).
    pub fn new(order: usize) -> Result<Self, CoreError> {
        if !(MIN_ORDER..=MAX_ORDER).contains(&order) {
            return Err(CoreError::UnsupportedOrder { order, min: MIN_ORDER, max: MAX_ORDER });
        }
        let np = num_nodes(order);
        let nfp = order + 1;
        let (r, s) = warp_blend_nodes(order);
        let v = vandermonde(order, &r, &s);
        let (vr, vs) = grad_vandermonde(order, &r, &s);
        let vinv = inverse(&v, "Vandermonde")?;
        let dr = &vr * &vinv;
        let ds = &vs * &vinv;
        let mass = inverse(&(&v * v.transpose()), "V Vᵀ")?;
        let tol = 1e-8;
        let fmask = [
            (0..np).filter(|&i| (s[i] + 1.0).abs() < tol).collect::<Vec<_>>(),
            (0..np).filter(|&i| (r[i] + s[i]).abs() < tol).collect(),
            (0..np).filter(|&i| (r[i] + 1.0).abs() < tol).collect(),
        ];
        debug_assert!(fmask.iter().all(|f| f.len() == nfp));
        let mut emat = Matrix::zeros(np, 3 * nfp);
        for (face, nodes) in fmask.iter().enumerate() {
            let param: Vec<f64> = nodes.iter().map(|&i| face_parameter(face, r[i], s[i])).collect();
            let v1 = vandermonde_1d(order, &param);
            let mass_edge = inverse(&(&v1 * v1.transpose()), "face V Vᵀ")?;
            for (a, &i) in nodes.iter().enumerate() {
                for b in 0..nfp {
                    emat[(i, face * nfp + b)] = mass_edge[(a, b)];
                }
            }
        }
        let lift = &v * (v.transpose() * emat);
        Ok(Self { order, np, nfp, r, s, v, dr, ds, mass, fmask, lift })
    }

    /// Interpolation matrix from the nodes to the points (r, s): row i gives u(r_i, s_i) from nodal values.
    pub fn interpolation_matrix(&self, r: &[f64], s: &[f64]) -> Result<Matrix, CoreError> {
        let vout = vandermonde(self.order, r, s);
        Ok(vout * inverse(&self.v, "Vandermonde")?)
    }

    /// Local node index of every face node: face 0, then face 1, then face 2 (3·Nfp entries).
    pub fn face_node_indices(&self) -> Vec<usize> {
        self.fmask.iter().flatten().copied().collect()
    }
}

/// Parameter t ∈ [−1, 1] along a face, the one the face mass matrices are built on.
pub fn face_parameter(face: usize, r: f64, s: f64) -> f64 {
    match face {
        0 | 1 => r,
        _ => s,
    }
}

/// 2D Vandermonde matrix of the orthonormal basis at points (r, s).
pub fn vandermonde(n: usize, r: &[f64], s: &[f64]) -> Matrix {
    let (a, b) = rs_to_ab(r, s);
    let mut v = Matrix::zeros(r.len(), num_nodes(n));
    let mut col = 0;
    for i in 0..=n {
        for j in 0..=(n - i) {
            for (k, val) in simplex_2d(&a, &b, i, j).into_iter().enumerate() {
                v[(k, col)] = val;
            }
            col += 1;
        }
    }
    v
}

/// Gradient Vandermonde matrices (∂ψ_j/∂r, ∂ψ_j/∂s) at points (r, s).
pub fn grad_vandermonde(n: usize, r: &[f64], s: &[f64]) -> (Matrix, Matrix) {
    let (a, b) = rs_to_ab(r, s);
    let mut vr = Matrix::zeros(r.len(), num_nodes(n));
    let mut vs = Matrix::zeros(r.len(), num_nodes(n));
    let mut col = 0;
    for i in 0..=n {
        for j in 0..=(n - i) {
            let (dr, ds) = grad_simplex_2d(&a, &b, i, j);
            for k in 0..r.len() {
                vr[(k, col)] = dr[k];
                vs[(k, col)] = ds[k];
            }
            col += 1;
        }
    }
    (vr, vs)
}

/// 1D Vandermonde matrix of orthonormal Legendre polynomials.
pub fn vandermonde_1d(n: usize, x: &[f64]) -> Matrix {
    let mut v = Matrix::zeros(x.len(), n + 1);
    for j in 0..=n {
        for (i, val) in jacobi_p(x, 0.0, 0.0, j).into_iter().enumerate() {
            v[(i, j)] = val;
        }
    }
    v
}
