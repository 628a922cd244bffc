//! Exactness of the reference-tetrahedron operators against closed-form integrals and derivatives.

use dg_core::jacobi::jacobi_gl;
use dg_core::tetrahedron::{tet_cubature, ReferenceTetrahedron};
use dg_core::triangle::triangle_cubature;

fn factorial(n: usize) -> f64 {
    (1..=n).map(|k| k as f64).product()
}

/// ∫ (1+r)^a (1+s)^b (1+t)^c over the reference tetrahedron = 2^{3+a+b+c} a! b! c! / (3+a+b+c)! (Dirichlet).
fn shifted_moment(a: usize, b: usize, c: usize) -> f64 {
    2f64.powi((3 + a + b + c) as i32) * factorial(a) * factorial(b) * factorial(c) / factorial(3 + a + b + c)
}

fn shifted_monomial(p: [f64; 3], e: [usize; 3]) -> f64 {
    (1.0 + p[0]).powi(e[0] as i32) * (1.0 + p[1]).powi(e[1] as i32) * (1.0 + p[2]).powi(e[2] as i32)
}

fn exponents(max_degree: usize) -> Vec<[usize; 3]> {
    let mut out = Vec::new();
    for a in 0..=max_degree {
        for b in 0..=(max_degree - a) {
            for c in 0..=(max_degree - a - b) {
                out.push([a, b, c]);
            }
        }
    }
    out
}

#[test]
fn cubature_is_exact_to_its_degree() {
    for degree in 0..=16 {
        let rule = tet_cubature(degree);
        for e in exponents(degree) {
            let q: f64 =
                (0..rule.w.len()).map(|p| rule.w[p] * shifted_monomial([rule.r[p], rule.s[p], rule.t[p]], e)).sum();
            let exact = shifted_moment(e[0], e[1], e[2]);
            assert!((q - exact).abs() < 1e-12 * exact.max(1.0), "degree {degree}, {e:?}: {q} vs {exact}");
        }
    }
}

#[test]
fn nodes_lie_in_the_element_with_gauss_lobatto_edges() {
    for n in 1..=8 {
        let el = ReferenceTetrahedron::new(n).unwrap();
        assert_eq!(el.np, (n + 1) * (n + 2) * (n + 3) / 6);
        for i in 0..el.np {
            let (r, s, t) = (el.r[i], el.s[i], el.t[i]);
            assert!(r >= -1.0 - 1e-12 && s >= -1.0 - 1e-12 && t >= -1.0 - 1e-12 && r + s + t <= -1.0 + 1e-12);
        }
        for f in &el.fmask {
            assert_eq!(f.len(), (n + 1) * (n + 2) / 2);
        }
        // the edge s = t = −1 carries the Gauss–Lobatto points of order n
        let mut edge: Vec<f64> = (0..el.np)
            .filter(|&i| (el.s[i] + 1.0).abs() < 1e-10 && (el.t[i] + 1.0).abs() < 1e-10)
            .map(|i| el.r[i])
            .collect();
        edge.sort_by(f64::total_cmp);
        let gl = jacobi_gl(0.0, 0.0, n);
        assert_eq!(edge.len(), n + 1);
        for (a, b) in edge.iter().zip(&gl) {
            assert!((a - b).abs() < 1e-12, "N = {n}: edge node {a} vs Gauss–Lobatto {b}");
        }
    }
}

#[test]
fn derivatives_are_exact_on_polynomials_of_the_order() {
    for n in 1..=8 {
        let el = ReferenceTetrahedron::new(n).unwrap();
        for e in exponents(n) {
            let u: Vec<f64> = (0..el.np).map(|i| shifted_monomial([el.r[i], el.s[i], el.t[i]], e)).collect();
            for (d, mat) in [&el.dr, &el.ds, &el.dt].into_iter().enumerate() {
                for i in 0..el.np {
                    let p = [el.r[i], el.s[i], el.t[i]];
                    let mut de = e;
                    let exact = if e[d] == 0 {
                        0.0
                    } else {
                        de[d] -= 1;
                        e[d] as f64 * shifted_monomial(p, de)
                    };
                    let got: f64 = (0..el.np).map(|j| mat[(i, j)] * u[j]).sum();
                    assert!((got - exact).abs() < 1e-8 * 2f64.powi(n as i32), "N = {n}, {e:?}, d{d}: {got} vs {exact}");
                }
            }
        }
    }
}

#[test]
fn mass_matrix_integrates_products() {
    for n in 1..=8 {
        let el = ReferenceTetrahedron::new(n).unwrap();
        let half = n / 2;
        for e in exponents(half) {
            for g in exponents(n - half) {
                let u: Vec<f64> = (0..el.np).map(|i| shifted_monomial([el.r[i], el.s[i], el.t[i]], e)).collect();
                let w: Vec<f64> = (0..el.np).map(|i| shifted_monomial([el.r[i], el.s[i], el.t[i]], g)).collect();
                let got: f64 = (0..el.np).map(|a| (0..el.np).map(|b| w[a] * el.mass[(a, b)] * u[b]).sum::<f64>()).sum();
                let exact = shifted_moment(e[0] + g[0], e[1] + g[1], e[2] + g[2]);
                assert!((got - exact).abs() < 1e-10 * exact.max(1.0), "N = {n}: {e:?}·{g:?}: {got} vs {exact}");
            }
        }
    }
}

/// wᵀ M LIFT u_f = Σ_faces ∫_face w u in the face's two reference coordinates (each face of area 2 there).
#[test]
fn lift_reproduces_face_integrals() {
    for n in 1..=6 {
        let el = ReferenceTetrahedron::new(n).unwrap();
        let tri = triangle_cubature(2 * n);
        let (u_exp, w_exp) = ([n.min(2), 0, n - n.min(2)], [0, n.min(1), 0]);
        let at = |p: [f64; 3], e: [usize; 3]| shifted_monomial(p, e);
        let uf: Vec<f64> = el.face_node_indices().iter().map(|&i| at([el.r[i], el.s[i], el.t[i]], u_exp)).collect();
        let w: Vec<f64> = (0..el.np).map(|i| at([el.r[i], el.s[i], el.t[i]], w_exp)).collect();
        let lifted: Vec<f64> = (0..el.np).map(|i| (0..uf.len()).map(|j| el.lift[(i, j)] * uf[j]).sum()).collect();
        let got: f64 = (0..el.np).map(|a| (0..el.np).map(|b| w[a] * el.mass[(a, b)] * lifted[b]).sum::<f64>()).sum();
        let mut exact = 0.0;
        for q in 0..tri.w.len() {
            let (a, b) = (tri.r[q], tri.s[q]);
            for p in [[a, b, -1.0], [a, -1.0, b], [-1.0 - a - b, a, b], [-1.0, a, b]] {
                exact += tri.w[q] * at(p, u_exp) * at(p, w_exp);
            }
        }
        assert!((got - exact).abs() < 1e-9 * exact.abs().max(1.0), "N = {n}: {got} vs {exact}");
    }
}

#[test]
fn orders_outside_the_range_are_refused() {
    assert!(ReferenceTetrahedron::new(0).is_err());
    assert!(ReferenceTetrahedron::new(11).is_err());
}
