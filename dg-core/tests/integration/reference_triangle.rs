//! Exactness of the reference-triangle operators against analytic integrals and derivatives.

use dg_core::quadrature::gauss_legendre;
use dg_core::triangle::{face_parameter, symmetric_cubature, triangle_cubature, ReferenceTriangle};

/// ∫_{-1}^{1} s^p ds.
fn line_moment(p: usize) -> f64 {
    if p % 2 == 1 {
        0.0
    } else {
        2.0 / (p as f64 + 1.0)
    }
}

/// ∫ r^i s^j over the reference triangle, analytically:
/// ∫_{-1}^{1} s^j ∫_{-1}^{-s} r^i dr ds = (−1)^{i+1} / (i+1) · (∫ s^{i+j+1} ds − ∫ s^j ds).
fn monomial_integral(i: usize, j: usize) -> f64 {
    let sign = if (i + 1).is_multiple_of(2) { 1.0 } else { -1.0 };
    sign / (i as f64 + 1.0) * (line_moment(i + j + 1) - line_moment(j))
}

fn monomial(r: f64, s: f64, i: usize, j: usize) -> f64 {
    r.powi(i as i32) * s.powi(j as i32)
}

#[test]
fn monomial_integral_helper_is_right() {
    assert!((monomial_integral(0, 0) - 2.0).abs() < 1e-15); // area
                                                            // ∫ r over the triangle: centroid r = -1/3, area 2
    assert!((monomial_integral(1, 0) + 2.0 / 3.0).abs() < 1e-15);
}

#[test]
fn node_sets_have_the_right_size_and_faces() {
    for n in 1..=10 {
        let el = ReferenceTriangle::new(n).unwrap();
        assert_eq!(el.r.len(), (n + 1) * (n + 2) / 2);
        for f in &el.fmask {
            assert_eq!(f.len(), n + 1);
        }
        for k in 0..el.np {
            assert!(el.r[k] >= -1.0 - 1e-12 && el.s[k] >= -1.0 - 1e-12 && el.r[k] + el.s[k] <= 1e-12);
        }
    }
    assert!(ReferenceTriangle::new(0).is_err());
    assert!(ReferenceTriangle::new(11).is_err());
}

#[test]
fn dr_ds_differentiate_polynomials_of_degree_n_exactly() {
    for n in 1..=10 {
        let el = ReferenceTriangle::new(n).unwrap();
        let mut worst: f64 = 0.0;
        for i in 0..=n {
            for j in 0..=(n - i) {
                let u = nalgebra::DVector::from_iterator(el.np, (0..el.np).map(|k| monomial(el.r[k], el.s[k], i, j)));
                let ur = &el.dr * &u;
                let us = &el.ds * &u;
                for k in 0..el.np {
                    let (r, s) = (el.r[k], el.s[k]);
                    let exact_r = if i > 0 { i as f64 * monomial(r, s, i - 1, j) } else { 0.0 };
                    let exact_s = if j > 0 { j as f64 * monomial(r, s, i, j - 1) } else { 0.0 };
                    worst = worst.max((ur[k] - exact_r).abs()).max((us[k] - exact_s).abs());
                }
            }
        }
        assert!(worst <= 1e-10, "N = {n}: max derivative error {worst:e}");
    }
}

#[test]
fn mass_matrix_integrates_products_of_polynomials_exactly() {
    for n in 1..=10 {
        let el = ReferenceTriangle::new(n).unwrap();
        for (i1, j1, i2, j2) in [(0, 0, 0, 0), (1, 0, 0, 1), (n, 0, 0, n), (n / 2, n - n / 2, n, 0), (0, n, 1, 0)] {
            if i1 + j1 > n || i2 + j2 > n {
                continue;
            }
            let u = nalgebra::DVector::from_iterator(el.np, (0..el.np).map(|k| monomial(el.r[k], el.s[k], i1, j1)));
            let v = nalgebra::DVector::from_iterator(el.np, (0..el.np).map(|k| monomial(el.r[k], el.s[k], i2, j2)));
            let got = u.dot(&(&el.mass * &v));
            let exact = monomial_integral(i1 + i2, j1 + j2);
            assert!((got - exact).abs() < 1e-11, "N={n} ({i1},{j1})·({i2},{j2}): {got} vs {exact}");
        }
        // and against cubature of the Lagrange basis products, entry by entry
        let rule = triangle_cubature(2 * n);
        let interp = el.interpolation_matrix(&rule.r, &rule.s).unwrap();
        for a in 0..el.np {
            for b in 0..el.np {
                let q: f64 = (0..rule.w.len()).map(|p| rule.w[p] * interp[(p, a)] * interp[(p, b)]).sum();
                assert!((q - el.mass[(a, b)]).abs() < 1e-11, "N={n} M[{a},{b}]");
            }
        }
    }
}

#[test]
fn cubature_rules_integrate_monomials_up_to_their_degree() {
    for degree in 0..=22 {
        let rule = triangle_cubature(degree);
        assert!(rule.w.iter().all(|&w| w > 0.0));
        for i in 0..=degree {
            for j in 0..=(degree - i) {
                let got: f64 = (0..rule.w.len()).map(|p| rule.w[p] * monomial(rule.r[p], rule.s[p], i, j)).sum();
                let exact = monomial_integral(i, j);
                assert!(
                    (got - exact).abs() <= 1e-12 * exact.abs().max(1.0),
                    "degree {degree}: r^{i} s^{j}: {got} vs {exact}"
                );
            }
        }
    }
}

/// The fully symmetric rules: interior points, positive weights, seed 001's point counts (3, 6, 12, 16, 25 for
/// degrees 2..10), every monomial of their degree integrated to round-off, and not every one of the next degree
/// (the degree is the rule's own, not a lucky larger one); none above degree 10.
#[test]
fn symmetric_rules_integrate_monomials_up_to_their_degree_with_fewer_points() {
    for (degree, points) in [(1, 3), (2, 3), (4, 6), (6, 12), (8, 16), (9, 25), (10, 25)] {
        let rule = symmetric_cubature(degree).expect("a rule");
        assert_eq!(rule.w.len(), points, "degree {degree}");
        assert!(rule.w.iter().all(|&w| w > 0.0), "degree {degree}");
        for p in 0..rule.w.len() {
            let (r, s) = (rule.r[p], rule.s[p]);
            assert!(r > -1.0 && s > -1.0 && r + s < 0.0, "degree {degree}: point ({r}, {s}) not interior");
        }
        let error = |i: usize, j: usize| -> f64 {
            let got: f64 = (0..rule.w.len()).map(|p| rule.w[p] * monomial(rule.r[p], rule.s[p], i, j)).sum();
            (got - monomial_integral(i, j)).abs()
        };
        for i in 0..=rule.degree {
            for j in 0..=(rule.degree - i) {
                assert!(error(i, j) <= 1e-14, "degree {degree}: r^{i} s^{j} off by {:e}", error(i, j));
            }
        }
        let next = rule.degree + 1;
        assert!((0..=next).any(|i| error(i, next - i) > 1e-10), "degree {degree} integrates degree {next} too");
    }
    assert!(symmetric_cubature(11).is_none());
}

/// Lagrange basis polynomial `a` of the 1D nodes `t` at `x`.
fn lagrange_1d(t: &[f64], a: usize, x: f64) -> f64 {
    t.iter().enumerate().filter(|&(b, _)| b != a).map(|(_, &tb)| (x - tb) / (t[a] - tb)).product()
}

#[test]
fn lift_matches_direct_face_integration() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    for n in 1..=10 {
        let el = ReferenceTriangle::new(n).unwrap();
        let g: Vec<f64> = (0..3 * el.nfp).map(|_| rng.random_range(-1.0..1.0)).collect();
        let lifted = &el.lift * nalgebra::DVector::from_vec(g.clone());
        let m_lifted = &el.mass * lifted;
        // direct: Σ_faces ∫_{-1}^{1} ℓ_i(r(t), s(t)) g_f(t) dt, g_f the interpolant of the face values
        let gauss = gauss_legendre(n + 2);
        let mut direct = vec![0.0; el.np];
        for face in 0..3 {
            let nodes = &el.fmask[face];
            let t: Vec<f64> = nodes.iter().map(|&i| face_parameter(face, el.r[i], el.s[i])).collect();
            let (pr, ps): (Vec<f64>, Vec<f64>) = gauss
                .points
                .iter()
                .map(|&x| match face {
                    0 => (x, -1.0),
                    1 => (x, -x),
                    _ => (-1.0, x),
                })
                .unzip();
            let interp = el.interpolation_matrix(&pr, &ps).unwrap();
            for (q, (&x, &w)) in gauss.points.iter().zip(&gauss.weights).enumerate() {
                let gx: f64 = (0..el.nfp).map(|a| g[face * el.nfp + a] * lagrange_1d(&t, a, x)).sum();
                for (i, d) in direct.iter_mut().enumerate() {
                    *d += w * interp[(q, i)] * gx;
                }
            }
        }
        for i in 0..el.np {
            assert!((m_lifted[i] - direct[i]).abs() < 1e-11, "N={n} node {i}: {} vs {}", m_lifted[i], direct[i]);
        }
    }
}
