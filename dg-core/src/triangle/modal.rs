//! Tables of the modal formulation of seed 001 on the reference triangle: the orthonormal basis and its
//! gradients at a volume cubature of degree 2p, and at p + 1 Gauss points on each edge.
//!
//! With an orthonormal basis the reference mass matrix is the identity, so on an affine element of Jacobian J the
//! weak form needs no matrix solve: dU_j/dt = Σ_q w_q F(U(x_q))·∇φ_j(x_q) − Σ_f (sJ_f / J) Σ_g w_g φ_j(x_g) F*_g.

use super::{
    grad_vandermonde, num_nodes, symmetric_cubature, triangle_cubature, vandermonde, TriangleRule, MAX_ORDER, MIN_ORDER,
};
use crate::error::CoreError;
use crate::matrix::Matrix;
use crate::quadrature::{gauss_legendre, Rule1d};

/// Reference points of edge `face` at parameters `t` ∈ [−1, 1], running from the face's first vertex to its
/// second (face 0: (−1,−1)→(1,−1); face 1: (1,−1)→(−1,1); face 2: (−1,1)→(−1,−1)). A neighbour runs along a
/// shared edge the other way, so its Gauss point g meets this element's point p − g.
pub fn edge_points(face: usize, t: &[f64]) -> (Vec<f64>, Vec<f64>) {
    match face {
        0 => (t.to_vec(), vec![-1.0; t.len()]),
        1 => (t.iter().map(|&t| -t).collect(), t.to_vec()),
        _ => (vec![-1.0; t.len()], t.iter().map(|&t| -t).collect()),
    }
}

/// The modal element of degree `order`.
#[derive(Debug, Clone)]
pub struct ModalTriangle {
    /// Polynomial degree p.
    pub order: usize,
    /// Number of modes, (p + 1)(p + 2) / 2.
    pub nmodes: usize,
    /// Volume cubature, exact to degree 2p: the fully symmetric rule up to p = 5 (seed 001's 3, 6, 12, 16, 25
    /// points), the collapsed Gauss rule above.
    pub volume: TriangleRule,
    /// Basis at the cubature points (points × modes).
    pub phi: Matrix,
    /// ∂φ/∂r at the cubature points.
    pub phi_r: Matrix,
    /// ∂φ/∂s at the cubature points.
    pub phi_s: Matrix,
    /// Gauss–Legendre rule with p + 1 points on [−1, 1] (exact to degree 2p + 1 along an edge).
    pub edge: Rule1d,
    /// Basis at each edge's Gauss points (points × modes), in the edge's own direction.
    pub phi_edge: [Matrix; 3],
}

impl ModalTriangle {
    /// The tables for degree `order` (1..=10).
    pub fn new(order: usize) -> Result<Self, CoreError> {
        if !(MIN_ORDER..=MAX_ORDER).contains(&order) {
            return Err(CoreError::UnsupportedOrder { order, min: MIN_ORDER, max: MAX_ORDER });
        }
        let volume = symmetric_cubature(2 * order).unwrap_or_else(|| triangle_cubature(2 * order));
        let phi = vandermonde(order, &volume.r, &volume.s);
        let (phi_r, phi_s) = grad_vandermonde(order, &volume.r, &volume.s);
        let edge = gauss_legendre(order + 1);
        let phi_edge = [0, 1, 2].map(|face| {
            let (r, s) = edge_points(face, &edge.points);
            vandermonde(order, &r, &s)
        });
        Ok(Self { order, nmodes: num_nodes(order), volume, phi, phi_r, phi_s, edge, phi_edge })
    }

    /// Modal coefficients of the L2 projection of `f` (one scalar field) on the reference element.
    pub fn project(&self, f: impl Fn(f64, f64) -> f64) -> Vec<f64> {
        let values: Vec<f64> = self.volume.r.iter().zip(&self.volume.s).map(|(&r, &s)| f(r, s)).collect();
        (0..self.nmodes)
            .map(|j| (0..values.len()).map(|q| self.volume.w[q] * values[q] * self.phi[(q, j)]).sum())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_basis_is_orthonormal_under_the_volume_cubature() {
        for p in 1..=8 {
            let el = ModalTriangle::new(p).unwrap();
            for i in 0..el.nmodes {
                for j in 0..el.nmodes {
                    let m: f64 = (0..el.volume.w.len()).map(|q| el.volume.w[q] * el.phi[(q, i)] * el.phi[(q, j)]).sum();
                    let expected = if i == j { 1.0 } else { 0.0 };
                    assert!((m - expected).abs() < 1e-12, "p={p} M[{i}][{j}] = {m}");
                }
            }
        }
    }

    #[test]
    fn projection_reproduces_polynomials_of_degree_p() {
        // a degree-p polynomial, projected and evaluated back at points off the cubature
        for p in 1..=6 {
            let el = ModalTriangle::new(p).unwrap();
            let f = |r: f64, s: f64| {
                (0..=p).map(|k| (r + 0.3).powi(k as i32) * (0.5 - s).powi((p - k) as i32)).sum::<f64>()
            };
            let coef = el.project(f);
            let (r, s) = (vec![-0.7, 0.1, -0.2], vec![-0.1, -0.6, 0.15]);
            let v = vandermonde(p, &r, &s);
            for k in 0..r.len() {
                let value: f64 = (0..el.nmodes).map(|j| v[(k, j)] * coef[j]).sum();
                assert!((value - f(r[k], s[k])).abs() < 1e-10, "p={p}: {value} vs {}", f(r[k], s[k]));
            }
        }
    }

    #[test]
    fn edge_rules_integrate_traces_exactly_and_neighbours_meet_reversed() {
        for p in 1..=6 {
            let el = ModalTriangle::new(p).unwrap();
            // ∫ over an edge of φ_i φ_j (degree 2p along the edge) by the (p+1)-point rule, against a fine rule
            let fine = gauss_legendre(3 * p + 3);
            for face in 0..3 {
                let (rf, sf) = edge_points(face, &fine.points);
                let vf = vandermonde(p, &rf, &sf);
                for i in 0..el.nmodes {
                    for j in 0..el.nmodes {
                        let coarse: f64 = (0..=p)
                            .map(|g| el.edge.weights[g] * el.phi_edge[face][(g, i)] * el.phi_edge[face][(g, j)])
                            .sum();
                        let exact: f64 =
                            (0..fine.points.len()).map(|g| fine.weights[g] * vf[(g, i)] * vf[(g, j)]).sum();
                        assert!((coarse - exact).abs() < 1e-11, "p={p} face {face} ({i},{j}): {coarse} vs {exact}");
                    }
                }
                // the points are symmetric: point g and point p − g are the two ends' mirror images
                let (r, s) = edge_points(face, &el.edge.points);
                let (first, last) = ((r[0], s[0]), (r[p], s[p]));
                let (rr, sr) = edge_points(face, &el.edge.points.iter().map(|t| -t).collect::<Vec<_>>());
                assert!((rr[p] - first.0).abs() < 1e-14 && (sr[p] - first.1).abs() < 1e-14);
                assert!((rr[0] - last.0).abs() < 1e-14 && (sr[0] - last.1).abs() < 1e-14);
            }
        }
    }

    #[test]
    fn gradient_tables_match_finite_differences() {
        let p = 4;
        let el = ModalTriangle::new(p).unwrap();
        let h = 1e-6;
        for q in [0, 3, el.volume.r.len() - 1] {
            let (r, s) = (el.volume.r[q], el.volume.s[q]);
            let plus_r = vandermonde(p, &[r + h], &[s]);
            let minus_r = vandermonde(p, &[r - h], &[s]);
            let plus_s = vandermonde(p, &[r], &[s + h]);
            let minus_s = vandermonde(p, &[r], &[s - h]);
            for j in 0..el.nmodes {
                let dr = (plus_r[(0, j)] - minus_r[(0, j)]) / (2.0 * h);
                let ds = (plus_s[(0, j)] - minus_s[(0, j)]) / (2.0 * h);
                assert!((dr - el.phi_r[(q, j)]).abs() < 1e-6, "dφ{j}/dr");
                assert!((ds - el.phi_s[(q, j)]).abs() < 1e-6, "dφ{j}/ds");
            }
        }
    }

    #[test]
    fn orders_outside_the_range_are_rejected() {
        assert!(ModalTriangle::new(0).is_err());
        assert!(ModalTriangle::new(11).is_err());
    }
}
