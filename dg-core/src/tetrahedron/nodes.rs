//! Warburton's warp-and-blend nodes on the tetrahedron (Hesthaven & Warburton, `Nodes3D`, optimized α per order).

use crate::jacobi::jacobi_gl;

/// Optimized blend parameter α for N = 1..15 (Hesthaven & Warburton, `Nodes3D`).
const ALPHA_OPT: [f64; 15] =
    [0.0, 0.0, 0.0, 0.1002, 1.1332, 1.5608, 1.3413, 1.2577, 1.1603, 1.10153, 0.6080, 0.4523, 0.8856, 0.8717, 0.9655];

/// The equispaced lattice of order `n` in (r, s, t), ordered t, then s, then r (r fastest).
pub fn equispaced_nodes_3d(n: usize) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let h = 2.0 / n as f64;
    let (mut r, mut s, mut t) = (Vec::new(), Vec::new(), Vec::new());
    for k in 0..=n {
        for j in 0..=(n - k) {
            for i in 0..=(n - k - j) {
                r.push(-1.0 + i as f64 * h);
                s.push(-1.0 + j as f64 * h);
                t.push(-1.0 + k as f64 * h);
            }
        }
    }
    (r, s, t)
}

/// Warp function along an edge (`evalwarp`): moves equispaced points towards Gauss–Lobatto positions.
fn eval_warp(n: usize, xnodes: &[f64], xout: &[f64]) -> Vec<f64> {
    let xeq: Vec<f64> = (0..=n).map(|i| -1.0 + 2.0 * (n - i) as f64 / n as f64).collect();
    let mut warp = vec![0.0; xout.len()];
    for i in 0..=n {
        for (p, &x) in xout.iter().enumerate() {
            let mut d = xnodes[i] - xeq[i];
            for j in 1..n {
                if i != j {
                    d *= (x - xeq[j]) / (xeq[i] - xeq[j]);
                }
            }
            if i != 0 {
                d = -d / (xeq[i] - xeq[0]);
            }
            if i != n {
                d /= xeq[i] - xeq[n];
            }
            warp[p] += d;
        }
    }
    warp
}

/// Tangential shift of the nodes on one face (`evalshift`), in the face's equilateral frame.
fn eval_shift(n: usize, alpha: f64, l1: &[f64], l2: &[f64], l3: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let gauss: Vec<f64> = jacobi_gl(0.0, 0.0, n).into_iter().map(|x| -x).collect();
    let diff = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(x, y)| x - y).collect::<Vec<f64>>();
    let w1 = eval_warp(n, &gauss, &diff(l3, l2));
    let w2 = eval_warp(n, &gauss, &diff(l1, l3));
    let w3 = eval_warp(n, &gauss, &diff(l2, l1));
    let (c2, s2) = ((2.0 * std::f64::consts::PI / 3.0).cos(), (2.0 * std::f64::consts::PI / 3.0).sin());
    let (c3, s3) = ((4.0 * std::f64::consts::PI / 3.0).cos(), (4.0 * std::f64::consts::PI / 3.0).sin());
    let mut dx = Vec::with_capacity(l1.len());
    let mut dy = Vec::with_capacity(l1.len());
    for p in 0..l1.len() {
        let warp1 = l2[p] * l3[p] * 4.0 * w1[p] * (1.0 + (alpha * l1[p]).powi(2));
        let warp2 = l1[p] * l3[p] * 4.0 * w2[p] * (1.0 + (alpha * l2[p]).powi(2));
        let warp3 = l1[p] * l2[p] * 4.0 * w3[p] * (1.0 + (alpha * l3[p]).powi(2));
        dx.push(warp1 + c2 * warp2 + c3 * warp3);
        dy.push(s2 * warp2 + s3 * warp3);
    }
    (dx, dy)
}

fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn unit(a: [f64; 3]) -> [f64; 3] {
    let n = (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt();
    [a[0] / n, a[1] / n, a[2] / n]
}

fn mid(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [0.5 * (a[0] + b[0]), 0.5 * (a[1] + b[1]), 0.5 * (a[2] + b[2])]
}

/// Warp-and-blend nodes (r, s, t) of order `n` (n ≥ 1) on the reference tetrahedron, in the order of
/// [`equispaced_nodes_3d`].
pub fn warp_blend_nodes_3d(n: usize) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let alpha = if n <= ALPHA_OPT.len() { ALPHA_OPT[n - 1] } else { 1.0 };
    let tol = 1e-10;
    let (r, s, t) = equispaced_nodes_3d(n);
    let np = r.len();
    let bary: Vec<[f64; 4]> = (0..np)
        .map(|p| [0.5 * (1.0 + t[p]), 0.5 * (1.0 + s[p]), -0.5 * (1.0 + r[p] + s[p] + t[p]), 0.5 * (1.0 + r[p])])
        .collect();
    let (s3, s6) = (3f64.sqrt(), 6f64.sqrt());
    let v1 = [-1.0, -1.0 / s3, -1.0 / s6];
    let v2 = [1.0, -1.0 / s3, -1.0 / s6];
    let v3 = [0.0, 2.0 / s3, -1.0 / s6];
    let v4 = [0.0, 0.0, 3.0 / s6];
    let t1 = [sub(v2, v1), sub(v2, v1), sub(v3, v2), sub(v3, v1)].map(unit);
    let t2 = [sub(v3, mid(v1, v2)), sub(v4, mid(v1, v2)), sub(v4, mid(v2, v3)), sub(v4, mid(v1, v3))].map(unit);
    let mut xyz: Vec<[f64; 3]> = bary
        .iter()
        .map(|&[l1, l2, l3, l4]| std::array::from_fn(|d| l3 * v1[d] + l4 * v2[d] + l2 * v3[d] + l1 * v4[d]))
        .collect();
    let mut shift = vec![[0.0; 3]; np];
    // (La, Lb, Lc, Ld) per face as indices into the barycentric coordinates (L1, L2, L3, L4)
    let order = [[0, 1, 2, 3], [1, 0, 2, 3], [2, 0, 3, 1], [3, 0, 2, 1]];
    for face in 0..4 {
        let pick = |c: usize| bary.iter().map(|b| b[order[face][c]]).collect::<Vec<f64>>();
        let (la, lb, lc, ld) = (pick(0), pick(1), pick(2), pick(3));
        let (warp1, warp2) = eval_shift(n, alpha, &lb, &lc, &ld);
        for p in 0..np {
            let mut blend = lb[p] * lc[p] * ld[p];
            let denom = (lb[p] + 0.5 * la[p]) * (lc[p] + 0.5 * la[p]) * (ld[p] + 0.5 * la[p]);
            if denom > tol {
                blend = (1.0 + (alpha * la[p]).powi(2)) * blend / denom;
            }
            for d in 0..3 {
                shift[p][d] += blend * warp1[p] * t1[face][d] + blend * warp2[p] * t2[face][d];
            }
            let inside = [lb[p], lc[p], ld[p]].iter().filter(|&&l| l > tol).count();
            if la[p] < tol && inside < 3 {
                for d in 0..3 {
                    shift[p][d] = warp1[p] * t1[face][d] + warp2[p] * t2[face][d];
                }
            }
        }
    }
    for (x, sh) in xyz.iter_mut().zip(&shift) {
        for d in 0..3 {
            x[d] += sh[d];
        }
    }
    // equilateral (x, y, z) to reference (r, s, t): solve A·(r, s, t) = xyz − ½(v2 + v3 + v4 − v1)
    let a = nalgebra::Matrix3::from_fn(|i, j| 0.5 * [sub(v2, v1), sub(v3, v1), sub(v4, v1)][j][i]);
    let lu = a.lu();
    let (mut r, mut s, mut t) = (Vec::with_capacity(np), Vec::with_capacity(np), Vec::with_capacity(np));
    for x in &xyz {
        let rhs = nalgebra::Vector3::from_fn(|d, _| x[d] - 0.5 * (v2[d] + v3[d] + v4[d] - v1[d]));
        let rst = lu.solve(&rhs).expect("the equilateral frame is invertible");
        r.push(rst[0]);
        s.push(rst[1]);
        t.push(rst[2]);
    }
    (r, s, t)
}
