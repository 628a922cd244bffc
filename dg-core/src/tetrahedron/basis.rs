//! The orthonormal (Koornwinder–Dubiner) basis on the reference tetrahedron and its gradient
//! (Hesthaven & Warburton, `Simplex3DP`, `GradSimplex3DP`).

use crate::jacobi::{grad_jacobi_p, jacobi_p};

/// Maps (r, s, t) on the tetrahedron to collapsed coordinates (a, b, c) on the cube.
pub fn rst_to_abc(r: &[f64], s: &[f64], t: &[f64]) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let n = r.len();
    let mut a = Vec::with_capacity(n);
    let mut b = Vec::with_capacity(n);
    for i in 0..n {
        let st = s[i] + t[i];
        a.push(if st.abs() > 1e-14 { 2.0 * (1.0 + r[i]) / (-st) - 1.0 } else { -1.0 });
        b.push(if (t[i] - 1.0).abs() > 1e-14 { 2.0 * (1.0 + s[i]) / (1.0 - t[i]) - 1.0 } else { -1.0 });
    }
    (a, b, t.to_vec())
}

/// Orthonormal basis function ψ_ijk at collapsed coordinates (a, b, c).
pub fn simplex_3d(a: &[f64], b: &[f64], c: &[f64], i: usize, j: usize, k: usize) -> Vec<f64> {
    let h1 = jacobi_p(a, 0.0, 0.0, i);
    let h2 = jacobi_p(b, 2.0 * i as f64 + 1.0, 0.0, j);
    let h3 = jacobi_p(c, 2.0 * (i + j) as f64 + 2.0, 0.0, k);
    (0..a.len())
        .map(|p| {
            2.0 * std::f64::consts::SQRT_2
                * h1[p]
                * h2[p]
                * (1.0 - b[p]).powi(i as i32)
                * h3[p]
                * (1.0 - c[p]).powi((i + j) as i32)
        })
        .collect()
}

/// (∂ψ_ijk/∂r, ∂ψ_ijk/∂s, ∂ψ_ijk/∂t) at collapsed coordinates (a, b, c).
pub fn grad_simplex_3d(
    a: &[f64],
    b: &[f64],
    c: &[f64],
    id: usize,
    jd: usize,
    kd: usize,
) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let fa = jacobi_p(a, 0.0, 0.0, id);
    let dfa = grad_jacobi_p(a, 0.0, 0.0, id);
    let gb = jacobi_p(b, 2.0 * id as f64 + 1.0, 0.0, jd);
    let dgb = grad_jacobi_p(b, 2.0 * id as f64 + 1.0, 0.0, jd);
    let hc = jacobi_p(c, 2.0 * (id + jd) as f64 + 2.0, 0.0, kd);
    let dhc = grad_jacobi_p(c, 2.0 * (id + jd) as f64 + 2.0, 0.0, kd);
    let scale = 2f64.powf((2 * id + jd) as f64 + 1.5);
    let (i, ij) = (id as i32, (id + jd) as i32);
    let n = a.len();
    let (mut vr, mut vs, mut vt) = (Vec::with_capacity(n), Vec::with_capacity(n), Vec::with_capacity(n));
    for p in 0..n {
        let hb = 0.5 * (1.0 - b[p]);
        let hcc = 0.5 * (1.0 - c[p]);
        let mut dr = dfa[p] * gb[p] * hc[p];
        if id > 0 {
            dr *= hb.powi(i - 1);
        }
        if id + jd > 0 {
            dr *= hcc.powi(ij - 1);
        }
        let mut ds = 0.5 * (1.0 + a[p]) * dr;
        let mut tmp = dgb[p] * hb.powi(i);
        if id > 0 {
            tmp += -0.5 * id as f64 * gb[p] * hb.powi(i - 1);
        }
        if id + jd > 0 {
            tmp *= hcc.powi(ij - 1);
        }
        tmp = fa[p] * tmp * hc[p];
        ds += tmp;
        let mut dt = 0.5 * (1.0 + a[p]) * dr + 0.5 * (1.0 + b[p]) * tmp;
        let mut tmp = dhc[p] * hcc.powi(ij);
        if id + jd > 0 {
            tmp -= 0.5 * (id + jd) as f64 * hc[p] * hcc.powi(ij - 1);
        }
        tmp = fa[p] * gb[p] * tmp * hb.powi(i);
        dt += tmp;
        vr.push(dr * scale);
        vs.push(ds * scale);
        vt.push(dt * scale);
    }
    (vr, vs, vt)
}
