//! Warburton's warp-and-blend nodes on the triangle (optimized α per order).

use crate::jacobi::{jacobi_gl, jacobi_p};
use nalgebra::DMatrix;

/// Optimized blend parameter α for N = 1..15 (Hesthaven & Warburton, Table 6.1).
const ALPHA_OPT: [f64; 15] = [
    0.0000, 0.0000, 1.4152, 0.1001, 0.2751, 0.9800, 1.0999, 1.2832, 1.3648, 1.4773, 1.4959, 1.5743, 1.5770, 1.6223,
    1.6258,
];

/// Warp factor along an edge: moves equispaced points to Gauss–Lobatto positions, divided by the blend.
fn warp_factor(n: usize, rout: &[f64]) -> Vec<f64> {
    let lgl = jacobi_gl(0.0, 0.0, n);
    let req: Vec<f64> = (0..=n).map(|i| -1.0 + 2.0 * i as f64 / n as f64).collect();
    // Veq(i, j) = P_j(req_i); Lagrange values at rout: L = Veq^-T P(rout)
    let mut veq = DMatrix::<f64>::zeros(n + 1, n + 1);
    for j in 0..=n {
        let col = jacobi_p(&req, 0.0, 0.0, j);
        for i in 0..=n {
            veq[(i, j)] = col[i];
        }
    }
    let mut pmat = DMatrix::<f64>::zeros(n + 1, rout.len());
    for i in 0..=n {
        let row = jacobi_p(rout, 0.0, 0.0, i);
        for (k, v) in row.into_iter().enumerate() {
            pmat[(i, k)] = v;
        }
    }
    let lmat = veq.transpose().lu().solve(&pmat).expect("equispaced 1D Vandermonde is invertible");
    rout.iter()
        .enumerate()
        .map(|(k, &r)| {
            let warp: f64 = (0..=n).map(|i| lmat[(i, k)] * (lgl[i] - req[i])).sum();
            if r.abs() < 1.0 - 1e-10 {
                warp / (1.0 - r * r)
            } else {
                0.0
            }
        })
        .collect()
}

/// Barycentric coordinates of the equispaced lattice of order `n`, ordered row by row (s increasing).
fn lattice(n: usize) -> Vec<(f64, f64, f64)> {
    let mut out = Vec::new();
    for row in 0..=n {
        for col in 0..=(n - row) {
            let l1 = row as f64 / n as f64;
            let l3 = col as f64 / n as f64;
            out.push((l1, 1.0 - l1 - l3, l3));
        }
    }
    out
}

/// Equispaced nodes (r, s) of order `n` (n ≥ 1), in the same order as [`warp_blend_nodes`].
pub fn equispaced_nodes(n: usize) -> (Vec<f64>, Vec<f64>) {
    lattice(n).into_iter().map(|(l1, l2, l3)| (-l2 + l3 - l1, -l2 - l3 + l1)).unzip()
}

/// Warp-and-blend nodes (r, s) of order `n` (n ≥ 1) on the reference triangle.
pub fn warp_blend_nodes(n: usize) -> (Vec<f64>, Vec<f64>) {
    let alpha = if n <= ALPHA_OPT.len() { ALPHA_OPT[n - 1] } else { 5.0 / 3.0 };
    let bary = lattice(n);
    let sqrt3 = 3f64.sqrt();
    let (mut x, mut y): (Vec<f64>, Vec<f64>) =
        bary.iter().map(|&(l1, l2, l3)| (-l2 + l3, (-l2 - l3 + 2.0 * l1) / sqrt3)).unzip();
    let d1: Vec<f64> = bary.iter().map(|b| b.2 - b.1).collect();
    let d2: Vec<f64> = bary.iter().map(|b| b.0 - b.2).collect();
    let d3: Vec<f64> = bary.iter().map(|b| b.1 - b.0).collect();
    let (w1, w2, w3) = (warp_factor(n, &d1), warp_factor(n, &d2), warp_factor(n, &d3));
    let (c2, s2) = ((2.0 * std::f64::consts::PI / 3.0).cos(), (2.0 * std::f64::consts::PI / 3.0).sin());
    let (c3, s3) = ((4.0 * std::f64::consts::PI / 3.0).cos(), (4.0 * std::f64::consts::PI / 3.0).sin());
    for (k, &(l1, l2, l3)) in bary.iter().enumerate() {
        let warp1 = 4.0 * l2 * l3 * w1[k] * (1.0 + (alpha * l1).powi(2));
        let warp2 = 4.0 * l1 * l3 * w2[k] * (1.0 + (alpha * l2).powi(2));
        let warp3 = 4.0 * l1 * l2 * w3[k] * (1.0 + (alpha * l3).powi(2));
        x[k] += warp1 + c2 * warp2 + c3 * warp3;
        y[k] += s2 * warp2 + s3 * warp3;
    }
    // equilateral (x, y) to reference (r, s)
    x.iter()
        .zip(&y)
        .map(|(&x, &y)| {
            let l1 = (sqrt3 * y + 1.0) / 3.0;
            let l2 = (-3.0 * x - sqrt3 * y + 2.0) / 6.0;
            let l3 = (3.0 * x - sqrt3 * y + 2.0) / 6.0;
            (-l2 + l3 - l1, -l2 - l3 + l1)
        })
        .unzip()
}
