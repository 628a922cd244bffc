//! The orthonormal (Koornwinder–Dubiner) basis on the reference triangle and its gradient.

use crate::jacobi::{grad_jacobi_p, jacobi_p};

/// Maps (r, s) on the triangle to collapsed coordinates (a, b) on the square.
pub fn rs_to_ab(r: &[f64], s: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let a = r
        .iter()
        .zip(s)
        .map(|(&r, &s)| if (s - 1.0).abs() > 1e-14 { 2.0 * (1.0 + r) / (1.0 - s) - 1.0 } else { -1.0 })
        .collect();
    (a, s.to_vec())
}

/// Orthonormal basis function ψ_ij at collapsed coordinates (a, b).
pub fn simplex_2d(a: &[f64], b: &[f64], i: usize, j: usize) -> Vec<f64> {
    let h1 = jacobi_p(a, 0.0, 0.0, i);
    let h2 = jacobi_p(b, 2.0 * i as f64 + 1.0, 0.0, j);
    (0..a.len()).map(|k| std::f64::consts::SQRT_2 * h1[k] * h2[k] * (1.0 - b[k]).powi(i as i32)).collect()
}

/// (∂ψ_ij/∂r, ∂ψ_ij/∂s) at collapsed coordinates (a, b).
pub fn grad_simplex_2d(a: &[f64], b: &[f64], id: usize, jd: usize) -> (Vec<f64>, Vec<f64>) {
    let fa = jacobi_p(a, 0.0, 0.0, id);
    let dfa = grad_jacobi_p(a, 0.0, 0.0, id);
    let gb = jacobi_p(b, 2.0 * id as f64 + 1.0, 0.0, jd);
    let dgb = grad_jacobi_p(b, 2.0 * id as f64 + 1.0, 0.0, jd);
    let scale = 2f64.powf(id as f64 + 0.5);
    let mut dr = Vec::with_capacity(a.len());
    let mut ds = Vec::with_capacity(a.len());
    for k in 0..a.len() {
        let half_1mb = 0.5 * (1.0 - b[k]);
        let pow_m1 = if id > 0 { half_1mb.powi(id as i32 - 1) } else { 1.0 };
        let dmodedr = dfa[k] * gb[k] * pow_m1;
        let mut dmodeds = dfa[k] * gb[k] * 0.5 * (1.0 + a[k]) * pow_m1;
        let mut tmp = dgb[k] * half_1mb.powi(id as i32);
        if id > 0 {
            tmp -= 0.5 * id as f64 * gb[k] * pow_m1;
        }
        dmodeds += fa[k] * tmp;
        dr.push(dmodedr * scale);
        ds.push(dmodeds * scale);
    }
    (dr, ds)
}
