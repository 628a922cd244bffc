//! Orthonormal Jacobi polynomials P_n^(α,β) on [-1, 1] and their Gauss / Gauss–Lobatto points
//! (Hesthaven & Warburton, *Nodal Discontinuous Galerkin Methods*, appendix A).

use nalgebra::{DMatrix, SymmetricEigen};

/// Γ(x) for x > 0 (Lanczos approximation, g = 7, about 15 significant digits).
pub fn gamma(x: f64) -> f64 {
    const G: f64 = 7.0;
    const C: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        return std::f64::consts::PI / ((std::f64::consts::PI * x).sin() * gamma(1.0 - x));
    }
    let x = x - 1.0;
    let mut a = C[0];
    let t = x + G + 0.5;
    for (i, c) in C.iter().enumerate().skip(1) {
        a += c / (x + i as f64);
    }
    (2.0 * std::f64::consts::PI).sqrt() * t.powf(x + 0.5) * (-t).exp() * a
}

/// Γ for the small non-negative integer and half-integer arguments used here, exact for integers.
fn gamma_exact(x: f64) -> f64 {
    if x.fract() == 0.0 && (1.0..171.0).contains(&x) {
        (1..x as u64).map(|k| k as f64).product()
    } else {
        gamma(x)
    }
}

/// Evaluates the orthonormal Jacobi polynomial P_n^(α,β) at each point of `x`.
pub fn jacobi_p(x: &[f64], alpha: f64, beta: f64, n: usize) -> Vec<f64> {
    let (a, b) = (alpha, beta);
    let gamma0 =
        2f64.powf(a + b + 1.0) / (a + b + 1.0) * gamma_exact(a + 1.0) * gamma_exact(b + 1.0) / gamma_exact(a + b + 1.0);
    let p0 = 1.0 / gamma0.sqrt();
    if n == 0 {
        return vec![p0; x.len()];
    }
    let gamma1 = (a + 1.0) * (b + 1.0) / (a + b + 3.0) * gamma0;
    let mut prev: Vec<f64> = vec![p0; x.len()];
    let mut cur: Vec<f64> = x.iter().map(|&xi| ((a + b + 2.0) * xi / 2.0 + (a - b) / 2.0) / gamma1.sqrt()).collect();
    let mut aold = 2.0 / (2.0 + a + b) * ((a + 1.0) * (b + 1.0) / (a + b + 3.0)).sqrt();
    for i in 1..n {
        let fi = i as f64;
        let h1 = 2.0 * fi + a + b;
        let anew = 2.0 / (h1 + 2.0)
            * ((fi + 1.0) * (fi + 1.0 + a + b) * (fi + 1.0 + a) * (fi + 1.0 + b) / (h1 + 1.0) / (h1 + 3.0)).sqrt();
        let bnew = -(a * a - b * b) / h1 / (h1 + 2.0);
        let next: Vec<f64> = x
            .iter()
            .zip(prev.iter().zip(cur.iter()))
            .map(|(&xi, (&pm, &pc))| (-aold * pm + (xi - bnew) * pc) / anew)
            .collect();
        prev = cur;
        cur = next;
        aold = anew;
    }
    cur
}

/// Derivative of the orthonormal Jacobi polynomial P_n^(α,β) at each point of `x`.
pub fn grad_jacobi_p(x: &[f64], alpha: f64, beta: f64, n: usize) -> Vec<f64> {
    if n == 0 {
        return vec![0.0; x.len()];
    }
    let fac = (n as f64 * (n as f64 + alpha + beta + 1.0)).sqrt();
    jacobi_p(x, alpha + 1.0, beta + 1.0, n - 1).into_iter().map(|v| v * fac).collect()
}

/// Gauss points and weights of weight (1-x)^α (1+x)^β: `n + 1` points, exact for degree 2n + 1.
pub fn jacobi_gq(alpha: f64, beta: f64, n: usize) -> (Vec<f64>, Vec<f64>) {
    let (a, b) = (alpha, beta);
    // ∫ (1−x)^α (1+x)^β dx over [−1, 1]
    let scale =
        2f64.powf(a + b + 1.0) / (a + b + 1.0) * gamma_exact(a + 1.0) * gamma_exact(b + 1.0) / gamma_exact(a + b + 1.0);
    if n == 0 {
        return (vec![-(a - b) / (a + b + 2.0)], vec![scale]);
    }
    let m = n + 1;
    let mut j = DMatrix::<f64>::zeros(m, m);
    for i in 0..m {
        let h1 = 2.0 * i as f64 + a + b;
        let diag = -(a * a - b * b) / (h1 + 2.0) / h1;
        j[(i, i)] = if (a + b).abs() < 10.0 * f64::EPSILON && i == 0 { 0.0 } else { diag };
        if i + 1 < m {
            let fi = i as f64 + 1.0;
            let off = 2.0 / (h1 + 2.0) * (fi * (fi + a + b) * (fi + a) * (fi + b) / (h1 + 1.0) / (h1 + 3.0)).sqrt();
            j[(i, i + 1)] = off;
            j[(i + 1, i)] = off;
        }
    }
    let eig = SymmetricEigen::new(j);
    let mut pairs: Vec<(f64, f64)> =
        (0..m).map(|k| (eig.eigenvalues[k], eig.eigenvectors[(0, k)].powi(2) * scale)).collect();
    pairs.sort_by(|p, q| p.0.total_cmp(&q.0));
    pairs.into_iter().unzip()
}

/// Gauss–Lobatto points of weight (1-x)^α (1+x)^β: `n + 1` points including ±1.
pub fn jacobi_gl(alpha: f64, beta: f64, n: usize) -> Vec<f64> {
    if n == 1 {
        return vec![-1.0, 1.0];
    }
    let (inner, _) = jacobi_gq(alpha + 1.0, beta + 1.0, n - 2);
    let mut x = Vec::with_capacity(n + 1);
    x.push(-1.0);
    x.extend(inner);
    x.push(1.0);
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gamma_matches_factorials_and_half_integers() {
        assert!((gamma(5.0) - 24.0).abs() < 1e-12);
        assert!((gamma(0.5) - std::f64::consts::PI.sqrt()).abs() < 1e-13);
        assert!((gamma(7.5) - 1_871.254_305_797_788_5).abs() < 1e-9);
    }

    #[test]
    fn jacobi_polynomials_are_orthonormal_under_their_weight() {
        for &(a, b) in &[(0.0, 0.0), (1.0, 0.0), (3.0, 0.0), (1.0, 1.0)] {
            let (x, w) = jacobi_gq(a, b, 12);
            for m in 0..8 {
                for n in 0..8 {
                    let pm = jacobi_p(&x, a, b, m);
                    let pn = jacobi_p(&x, a, b, n);
                    let ip: f64 = (0..x.len()).map(|i| w[i] * pm[i] * pn[i]).sum();
                    let expect = if m == n { 1.0 } else { 0.0 };
                    assert!((ip - expect).abs() < 1e-12, "({a},{b}) m={m} n={n}: {ip}");
                }
            }
        }
    }

    #[test]
    fn grad_matches_finite_difference() {
        let h = 1e-6;
        for n in 0..7 {
            let x = [0.3];
            let g = grad_jacobi_p(&x, 2.0, 0.0, n)[0];
            let fd = (jacobi_p(&[0.3 + h], 2.0, 0.0, n)[0] - jacobi_p(&[0.3 - h], 2.0, 0.0, n)[0]) / (2.0 * h);
            assert!((g - fd).abs() < 1e-6 * (1.0 + g.abs()), "n={n}: {g} vs {fd}");
        }
    }
}
