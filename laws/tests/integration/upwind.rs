//! The upwind fluxes of the linear laws against an independent construction:
//! F*(q⁻, q⁺) = ½ A_n (q⁻ + q⁺) + ½ |A_n| (q⁻ − q⁺), with A_n the normal-flux matrix (built column by column
//! from the law's flux) and |A_n| a polynomial in A_n that equals |λ| on its spectrum (A_n is diagonalizable
//! with real eigenvalues). Equal materials on both sides.

use dg_core::law::ConservationLaw;
use dg_laws::*;
use nalgebra::{DMatrix, DVector};
use rand::{Rng, SeedableRng};

fn normal_matrix<L: ConservationLaw>(law: &L, mat: &[f64], n: &[f64]) -> DMatrix<f64> {
    let (nv, dim) = (L::NVARS, L::DIM);
    let mut a = DMatrix::zeros(nv, nv);
    for j in 0..nv {
        let mut e = vec![0.0; nv];
        e[j] = 1.0;
        let mut f = vec![0.0; dim * nv];
        law.flux(&e, mat, &mut f);
        for i in 0..nv {
            a[(i, j)] = (0..dim).map(|d| n[d] * f[d * nv + i]).sum();
        }
    }
    a
}

/// |A| from A for a spectrum {0, ±s₁, ±s₂, …}: the even polynomial p(λ) = Σ c_k λ^{2k} with p(s_i) = s_i.
fn abs_matrix(a: &DMatrix<f64>, speeds: &[f64]) -> DMatrix<f64> {
    let m = speeds.len();
    let mut v = DMatrix::zeros(m, m);
    for (i, &s) in speeds.iter().enumerate() {
        for k in 0..m {
            v[(i, k)] = s.powi(2 * (k as i32 + 1));
        }
    }
    let c = v.lu().solve(&DVector::from_column_slice(speeds)).expect("distinct speeds");
    let a2 = a * a;
    let mut power = a2.clone();
    let mut out = DMatrix::zeros(a.nrows(), a.ncols());
    for k in 0..m {
        out += c[k] * &power;
        power = &power * &a2;
    }
    out
}

fn check<L: ConservationLaw>(law: &L, mat: &[f64], speeds: &[f64], trials: usize) {
    let (nv, dim) = (L::NVARS, L::DIM);
    let mut rng = rand::rngs::StdRng::seed_from_u64(3);
    for _ in 0..trials {
        let mut n: Vec<f64> = (0..dim).map(|_| rng.random_range(-1.0..1.0)).collect();
        let norm = n.iter().map(|v| v * v).sum::<f64>().sqrt();
        n.iter_mut().for_each(|v| *v /= norm);
        let qm: Vec<f64> = (0..nv).map(|_| rng.random_range(-1.0..1.0)).collect();
        let qp: Vec<f64> = (0..nv).map(|_| rng.random_range(-1.0..1.0)).collect();
        let a = normal_matrix(law, mat, &n);
        let abs_a = abs_matrix(&a, speeds);
        let (vm, vp) = (DVector::from_column_slice(&qm), DVector::from_column_slice(&qp));
        let expected = 0.5 * &a * (&vm + &vp) + 0.5 * &abs_a * (&vm - &vp);
        let mut got = vec![0.0; nv];
        law.numerical_flux(&qm, &qp, mat, mat, &n, &mut got);
        for i in 0..nv {
            assert!((got[i] - expected[i]).abs() < 1e-12, "{} variable {i}: {} vs {}", law.name(), got[i], expected[i]);
        }
    }
}

#[test]
fn maxwell_upwind_flux_is_the_exact_upwind_flux() {
    check(&maxwell2d::Law::default(), &[], &[1.0], 200);
    check(&maxwell3d::Law::default(), &[], &[1.0], 200);
}

#[test]
fn maxwell_central_flux_has_no_dissipation() {
    let law = maxwell2d::Law { alpha: 0.0, ..Default::default() };
    // with α = 0 the flux is ½ A (q⁻ + q⁺): the |A| part must vanish
    let mut rng = rand::rngs::StdRng::seed_from_u64(5);
    for _ in 0..100 {
        let t: f64 = rng.random_range(0.0..6.3);
        let n = [t.cos(), t.sin()];
        let qm: Vec<f64> = (0..3).map(|_| rng.random_range(-1.0..1.0)).collect();
        let qp: Vec<f64> = (0..3).map(|_| rng.random_range(-1.0..1.0)).collect();
        let a = normal_matrix(&law, &[], &n);
        let expected = 0.5 * &a * (DVector::from_column_slice(&qm) + DVector::from_column_slice(&qp));
        let mut got = vec![0.0; 3];
        law.numerical_flux(&qm, &qp, &[], &[], &n, &mut got);
        for i in 0..3 {
            assert!((got[i] - expected[i]).abs() < 1e-13);
        }
    }
}

#[test]
fn advection_upwind_flux_is_the_exact_upwind_flux() {
    let law = advection2d::Law::default();
    let mut rng = rand::rngs::StdRng::seed_from_u64(9);
    for _ in 0..200 {
        let t: f64 = rng.random_range(0.0..6.3);
        let n = [t.cos(), t.sin()];
        let a = law.ax * n[0] + law.ay * n[1];
        let (qm, qp) = (rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0));
        let mut got = [0.0];
        law.numerical_flux(&[qm], &[qp], &[], &[], &n, &mut got);
        let expected = if a >= 0.0 { a * qm } else { a * qp };
        assert!((got[0] - expected).abs() < 1e-14);
    }
    check(&advection3d::Law::default(), &[], &[], 0);
}

#[test]
fn acoustic_penalty_flux_is_the_exact_upwind_flux() {
    for (rho, c) in [(1.0, 1.0), (2.5, 0.7), (0.3, 3.0)] {
        check(&acoustics2d::Law::default(), &[rho, c], &[c], 100);
        check(&acoustics3d::Law::default(), &[rho, c], &[c], 100);
    }
}

#[test]
fn elastic_penalty_flux_is_the_exact_upwind_flux() {
    for (rho, lambda, mu) in [(1.0f64, 2.0f64, 1.0f64), (2.7, 1.3, 0.6), (1.5, 0.4, 2.2)] {
        let cp: f64 = ((lambda + 2.0 * mu) / rho).sqrt();
        let cs: f64 = (mu / rho).sqrt();
        check(&elastic3d::Law::default(), &[rho, lambda, mu], &[cs, cp], 100);
    }
}

/// Across a material jump the acoustic flux must give one interface pressure p* and one normal velocity v*
/// seen from both sides (the exact Riemann solution), which conservation form cannot express.
#[test]
fn acoustic_flux_across_a_material_jump_has_single_valued_interface_states() {
    let law = acoustics2d::Law::default();
    let mut rng = rand::rngs::StdRng::seed_from_u64(12);
    for _ in 0..200 {
        let t: f64 = rng.random_range(0.0..6.3);
        let n = [t.cos(), t.sin()];
        let mm = [rng.random_range(0.5..2.0), rng.random_range(0.5..2.0)];
        let mp = [rng.random_range(0.5..2.0), rng.random_range(0.5..2.0)];
        let qm: Vec<f64> = (0..3).map(|_| rng.random_range(-1.0..1.0)).collect();
        let qp: Vec<f64> = (0..3).map(|_| rng.random_range(-1.0..1.0)).collect();
        let (mut a, mut b) = ([0.0; 3], [0.0; 3]);
        law.numerical_flux(&qm, &qp, &mm, &mp, &n, &mut a);
        law.numerical_flux(&qp, &qm, &mp, &mm, &[-n[0], -n[1]], &mut b);
        // F*_p = (ρc²) v*·n and F*_v = n p*/ρ on each side
        let v_star_m = a[0] / (mm[0] * mm[1] * mm[1]);
        let v_star_p = b[0] / (mp[0] * mp[1] * mp[1]);
        assert!((v_star_m + v_star_p).abs() < 1e-12, "normal velocity {v_star_m} vs {}", -v_star_p);
        let p_star_m = (a[1] * n[0] + a[2] * n[1]) * mm[0];
        let p_star_p = -(b[1] * n[0] + b[2] * n[1]) * mp[0];
        assert!((p_star_m - p_star_p).abs() < 1e-12, "pressure {p_star_m} vs {p_star_p}");
        // and they are the Riemann solution
        let (zm, zp) = (mm[0] * mm[1], mp[0] * mp[1]);
        let (vnm, vnp) = (qm[1] * n[0] + qm[2] * n[1], qp[1] * n[0] + qp[2] * n[1]);
        let p_star = (zp * qm[0] + zm * qp[0] + zm * zp * (vnm - vnp)) / (zm + zp);
        let v_star = (zm * vnm + zp * vnp + qm[0] - qp[0]) / (zm + zp);
        assert!((p_star - p_star_m).abs() < 1e-12 && (v_star - v_star_m).abs() < 1e-12);
    }
}
