//! One-dimensional quadrature rules on [-1, 1].

use crate::jacobi::{jacobi_gl, jacobi_gq};

/// A quadrature rule: points and weights.
#[derive(Debug, Clone, PartialEq)]
pub struct Rule1d {
    /// Points in [-1, 1], increasing.
    pub points: Vec<f64>,
    /// Weights, summing to 2.
    pub weights: Vec<f64>,
}

impl Rule1d {
    /// Integrates `f` over [-1, 1] with this rule.
    pub fn integrate(&self, f: impl Fn(f64) -> f64) -> f64 {
        self.points.iter().zip(&self.weights).map(|(&x, &w)| w * f(x)).sum()
    }
}

/// Gauss–Legendre rule with `n` points (n ≥ 1), exact for polynomials of degree 2n − 1.
pub fn gauss_legendre(n: usize) -> Rule1d {
    let (points, weights) = jacobi_gq(0.0, 0.0, n.max(1) - 1);
    Rule1d { points, weights }
}

/// Gauss–Lobatto–Legendre rule with `n` points (n ≥ 2), exact for polynomials of degree 2n − 3.
pub fn gauss_lobatto(n: usize) -> Rule1d {
    let n = n.max(2);
    let degree = n - 1;
    let points = jacobi_gl(0.0, 0.0, degree);
    // w_i = 2 / (N (N + 1) P_N(x_i)^2) with the classical Legendre polynomial P_N.
    let weights = points
        .iter()
        .map(|&x| {
            let pn = legendre(degree, x);
            2.0 / ((degree * (degree + 1)) as f64 * pn * pn)
        })
        .collect();
    Rule1d { points, weights }
}

/// Classical (not normalized) Legendre polynomial P_n(x) by its three-term recurrence.
pub fn legendre(n: usize, x: f64) -> f64 {
    let (mut p0, mut p1) = (1.0, x);
    if n == 0 {
        return p0;
    }
    for k in 1..n {
        let k = k as f64;
        let p2 = ((2.0 * k + 1.0) * x * p1 - k * p0) / (k + 1.0);
        p0 = p1;
        p1 = p2;
    }
    p1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exact_monomial(k: i32) -> f64 {
        if k % 2 == 1 {
            0.0
        } else {
            2.0 / (k as f64 + 1.0)
        }
    }

    #[test]
    fn gauss_legendre_is_exact_to_degree_2n_minus_1() {
        for n in 1..=12 {
            let rule = gauss_legendre(n);
            for k in 0..(2 * n as i32) {
                let got = rule.integrate(|x| x.powi(k));
                assert!((got - exact_monomial(k)).abs() < 1e-13, "n={n} k={k}: {got}");
            }
            // and not exact beyond (the rule is really of that size)
            let k = 2 * n as i32;
            assert!((rule.integrate(|x| x.powi(k)) - exact_monomial(k)).abs() > 1e-8);
        }
    }

    #[test]
    fn gauss_lobatto_is_exact_to_degree_2n_minus_3_and_has_endpoints() {
        for n in 2..=12 {
            let rule = gauss_lobatto(n);
            assert_eq!(rule.points.len(), n);
            assert_eq!(rule.points[0], -1.0);
            assert_eq!(rule.points[n - 1], 1.0);
            for k in 0..=(2 * n as i32 - 3) {
                let got = rule.integrate(|x| x.powi(k));
                assert!((got - exact_monomial(k)).abs() < 1e-13, "n={n} k={k}: {got}");
            }
        }
    }
}
