//! The nodal reference tetrahedron of order N and its operator matrices (Hesthaven & Warburton, chapter 10).

use super::basis::{grad_simplex_3d, rst_to_abc, simplex_3d};
use super::nodes::warp_blend_nodes_3d;
use super::{num_face_nodes, num_nodes};
use crate::matrix::{inverse, Matrix};
use crate::triangle::vandermonde;
use crate::CoreError;

/// Lowest supported order.
pub const MIN_ORDER: usize = 1;
/// Highest supported order.
pub const MAX_ORDER: usize = 10;

/// Vertices of each face (local vertex indices, see the module documentation).
pub const FACE_VERTICES: [[usize; 3]; 4] = [[0, 1, 2], [0, 1, 3], [1, 2, 3], [0, 2, 3]];

/// Nodal reference tetrahedron of order N on warp-and-blend nodes, with all element-local operators.
///
/// `lift` maps the 4·Nfp face values (face 0 nodes, then faces 1, 2, 3, each in `fmask` order) to the volume:
/// LIFT = M⁻¹ [M^Γ0 | … | M^Γ3], each face mass matrix taken in two of the reference coordinates (area 2; the
/// surface Jacobian of the mesh converts, as in Hesthaven & Warburton's `Normals3D`).
#[derive(Debug, Clone)]
pub struct ReferenceTetrahedron {
    /// Polynomial order N.
    pub order: usize,
    /// Number of nodes, (N+1)(N+2)(N+3)/6.
    pub np: usize,
    /// Nodes per face, (N+1)(N+2)/2.
    pub nfp: usize,
    /// Node r coordinates.
    pub r: Vec<f64>,
    /// Node s coordinates.
    pub s: Vec<f64>,
    /// Node t coordinates.
    pub t: Vec<f64>,
    /// Vandermonde matrix V(i, j) = ψ_j(r_i, s_i, t_i) (orthonormal basis).
    pub v: Matrix,
    /// Differentiation in r.
    pub dr: Matrix,
    /// Differentiation in s.
    pub ds: Matrix,
    /// Differentiation in t.
    pub dt: Matrix,
    /// Mass matrix (V Vᵀ)⁻¹ on the reference element.
    pub mass: Matrix,
    /// Local node indices of each face, in increasing order.
    pub fmask: [Vec<usize>; 4],
    /// Lift matrix, Np × 4Nfp.
    pub lift: Matrix,
}

impl ReferenceTetrahedron {
    /// Builds the reference tetrahedron of order `order` (1..=10).
    pub fn new(order: usize) -> Result<Self, CoreError> {
        if !(MIN_ORDER..=MAX_ORDER).contains(&order) {
            return Err(CoreError::UnsupportedOrder { order, min: MIN_ORDER, max: MAX_ORDER });
        }
        let (np, nfp) = (num_nodes(order), num_face_nodes(order));
        let (r, s, t) = warp_blend_nodes_3d(order);
        let v = vandermonde_3d(order, &r, &s, &t);
        let (vr, vs, vt) = grad_vandermonde_3d(order, &r, &s, &t);
        let vinv = inverse(&v, "Vandermonde")?;
        let (dr, ds, dt) = (&vr * &vinv, &vs * &vinv, &vt * &vinv);
        let mass = inverse(&(&v * v.transpose()), "V Vᵀ")?;
        let tol = 1e-7;
        let on = |f: &dyn Fn(usize) -> f64| (0..np).filter(|&i| f(i).abs() < tol).collect::<Vec<_>>();
        let fmask = [on(&|i| 1.0 + t[i]), on(&|i| 1.0 + s[i]), on(&|i| 1.0 + r[i] + s[i] + t[i]), on(&|i| 1.0 + r[i])];
        if fmask.iter().any(|f| f.len() != nfp) {
            return Err(CoreError::Singular("face node sets of the reference tetrahedron"));
        }
        let mut emat = Matrix::zeros(np, 4 * nfp);
        for (face, nodes) in fmask.iter().enumerate() {
            let (fa, fb): (Vec<f64>, Vec<f64>) =
                nodes.iter().map(|&i| face_coordinates(face, r[i], s[i], t[i])).unzip();
            let vface = vandermonde(order, &fa, &fb);
            let mass_face = inverse(&(&vface * vface.transpose()), "face V Vᵀ")?;
            for (a, &i) in nodes.iter().enumerate() {
                for b in 0..nfp {
                    emat[(i, face * nfp + b)] = mass_face[(a, b)];
                }
            }
        }
        let lift = &v * (v.transpose() * emat);
        Ok(Self { order, np, nfp, r, s, t, v, dr, ds, dt, mass, fmask, lift })
    }

    /// Interpolation matrix from the nodes to the points (r, s, t).
    pub fn interpolation_matrix(&self, r: &[f64], s: &[f64], t: &[f64]) -> Result<Matrix, CoreError> {
        Ok(vandermonde_3d(self.order, r, s, t) * inverse(&self.v, "Vandermonde")?)
    }

    /// Local node index of every face node: face 0, then faces 1, 2, 3 (4·Nfp entries).
    pub fn face_node_indices(&self) -> Vec<usize> {
        self.fmask.iter().flatten().copied().collect()
    }
}

/// The two reference coordinates a face's mass matrix is built on.
pub fn face_coordinates(face: usize, r: f64, s: f64, t: f64) -> (f64, f64) {
    match face {
        0 => (r, s),
        1 => (r, t),
        _ => (s, t),
    }
}

/// 3D Vandermonde matrix of the orthonormal basis at points (r, s, t).
pub fn vandermonde_3d(n: usize, r: &[f64], s: &[f64], t: &[f64]) -> Matrix {
    let (a, b, c) = rst_to_abc(r, s, t);
    let mut v = Matrix::zeros(r.len(), num_nodes(n));
    let mut col = 0;
    for i in 0..=n {
        for j in 0..=(n - i) {
            for k in 0..=(n - i - j) {
                for (p, val) in simplex_3d(&a, &b, &c, i, j, k).into_iter().enumerate() {
                    v[(p, col)] = val;
                }
                col += 1;
            }
        }
    }
    v
}

/// Gradient Vandermonde matrices (∂ψ_j/∂r, ∂ψ_j/∂s, ∂ψ_j/∂t) at points (r, s, t).
pub fn grad_vandermonde_3d(n: usize, r: &[f64], s: &[f64], t: &[f64]) -> (Matrix, Matrix, Matrix) {
    let (a, b, c) = rst_to_abc(r, s, t);
    let np = num_nodes(n);
    let (mut vr, mut vs, mut vt) = (Matrix::zeros(r.len(), np), Matrix::zeros(r.len(), np), Matrix::zeros(r.len(), np));
    let mut col = 0;
    for i in 0..=n {
        for j in 0..=(n - i) {
            for k in 0..=(n - i - j) {
                let (dr, ds, dt) = grad_simplex_3d(&a, &b, &c, i, j, k);
                for p in 0..r.len() {
                    vr[(p, col)] = dr[p];
                    vs[(p, col)] = ds[p];
                    vt[(p, col)] = dt[p];
                }
                col += 1;
            }
        }
    }
    (vr, vs, vt)
}
