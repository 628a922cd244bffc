//! 3D wave cases on tetrahedra (seed 002) on the native CPU path: convergence against exact solutions,
//! reflection/transmission at a material jump against the analytic coefficients, energy, AB3.

use dg::cases::waves::{AcousticCube, AcousticTwoLayer, ElasticCube, WaveCase};
use dg::prelude::Scheme;
use dg::wave_run::{run_wave, wave_convergence, WaveOptions};
use dg::Precision;

fn rates_near(case: &dyn WaveCase, base: usize, orders: std::ops::RangeInclusive<usize>, levels: usize) {
    let study = wave_convergence(case, base, orders, levels, &WaveOptions::default(), None, &mut |_, _| {}).unwrap();
    for r in &study.results {
        let finest = *r.rates.last().unwrap();
        let expected = r.order as f64 + 1.0;
        assert!((finest - expected).abs() <= 0.3, "{} N={}: rate {finest:.2}, errors {:?}", case.name(), r.order, r.l2);
    }
}

#[test]
fn acoustic_cube_converges_at_order_n_plus_one() {
    let _heavy = crate::heavy();
    rates_near(&AcousticCube, 2, 2..=3, 3);
}

#[test]
fn elastic_cube_converges_at_order_n_plus_one() {
    let _heavy = crate::heavy();
    rates_near(&ElasticCube, 3, 2..=2, 2);
}

#[test]
fn two_layer_pulse_reflects_and_transmits_with_the_analytic_coefficients() {
    let _heavy = crate::heavy();
    let case = AcousticTwoLayer::default();
    let opts = WaveOptions { order: 4, ..WaveOptions::default() };
    let report = run_wave(Precision::F64, &case, case.mesh(16).unwrap(), &opts, None, &mut |_, _| {}).unwrap().report;
    let c = report.coefficients.unwrap();
    assert_eq!((c.reflection_exact, c.transmission_exact), (0.5, 1.5));
    assert!((c.reflection - 0.5).abs() < 1e-3, "R = {}", c.reflection);
    assert!((c.transmission - 1.5).abs() < 1e-3, "T = {}", c.transmission);
    // without the jump nothing reflects: the measured R must see the difference
    let uniform = AcousticTwoLayer { layers: [(1.0, 1.0), (1.0, 1.0)], ..case };
    let report =
        run_wave(Precision::F64, &uniform, uniform.mesh(16).unwrap(), &opts, None, &mut |_, _| {}).unwrap().report;
    assert!(report.coefficients.unwrap().reflection.abs() < 1e-3);
}

#[test]
fn ab3_matches_the_runge_kutta_solution() {
    let _heavy = crate::heavy();
    let opts = WaveOptions { order: 3, ..WaveOptions::default() };
    let rk = run_wave(Precision::F64, &AcousticCube, AcousticCube.mesh(3).unwrap(), &opts, None, &mut |_, _| {})
        .unwrap()
        .report;
    let ab3 = WaveOptions { scheme: Scheme::Ab3, ..opts };
    let ab = run_wave(Precision::F64, &AcousticCube, AcousticCube.mesh(3).unwrap(), &ab3, None, &mut |_, _| {})
        .unwrap()
        .report;
    assert!(ab.steps > rk.steps, "AB3's stability limit is smaller");
    assert!((ab.l2_error - rk.l2_error).abs() < 0.02 * rk.l2_error, "{} vs {}", ab.l2_error, rk.l2_error);
}

#[test]
fn single_precision_runs_agree_with_double() {
    let _heavy = crate::heavy();
    let opts = WaveOptions { order: 2, ..WaveOptions::default() };
    let mesh = || ElasticCube.mesh(3).unwrap();
    let f64_run = run_wave(Precision::F64, &ElasticCube, mesh(), &opts, None, &mut |_, _| {}).unwrap().report;
    let f32_run = run_wave(Precision::F32, &ElasticCube, mesh(), &opts, None, &mut |_, _| {}).unwrap().report;
    assert!((f64_run.l2_error - f32_run.l2_error).abs() < 1e-4 * f64_run.l2_error.max(1.0));
}
