//! The finite-volume CPU reference: a uniform state stays uniform (periodic and with boundary conditions), every
//! variable is conserved on a periodic grid, and a smooth Euler density wave converges at first order with cell
//! means and at second order with MUSCL–Hancock.

use dg_core::law::ConservationLaw;
use dg_fv::{run, FvGrid, FvPosition, Reconstruction, Side};
use dg_laws::{euler2d, mhd2d};

fn density_wave(x: [f64; 2], t: f64, q: &mut [f64]) {
    let rho = 1.0 + 0.2 * (2.0 * std::f64::consts::PI * (x[0] + x[1] - 2.0 * t)).sin();
    q.copy_from_slice(&[rho, rho, rho, 1.0 / 0.4 + rho]);
}

#[test]
fn a_uniform_state_stays_uniform() {
    let law = mhd2d::Law::default();
    let state = [1.2, 0.3, -0.2, 0.1, 4.0, 0.5, -0.4, 0.2, 0.0];
    let extrapolate = law.boundary_names().iter().position(|&n| n == "extrapolate").unwrap();
    for (ny, sides) in [(5, [Side::Periodic; 4]), (5, [Side::Condition(extrapolate); 4]), (1, [Side::Periodic; 4])] {
        let grid = FvGrid { nx: 7, ny, lower: [0.0, 0.0], upper: [1.0, 0.5], sides, window: None };
        for reconstruction in [Reconstruction::FirstOrder, Reconstruction::MusclHancock] {
            let q0 = grid.sample(9, |_, q| q.copy_from_slice(&state));
            let out = run(&law, &grid, reconstruction, (q0, FvPosition::START), (0.2, 0.8), &mut |_, _| {}).unwrap();
            assert!(out.steps > 3);
            for (k, value) in out.q.iter().enumerate() {
                assert!((value - state[k / grid.cells()]).abs() < 1e-13, "{sides:?} {reconstruction:?}: {value}");
            }
        }
    }
}

/// An Euler state on `grid`: a density and energy bump at (0.4, 0.6) carried by a uniform flow.
fn moving_bump(grid: &FvGrid) -> Vec<f64> {
    grid.sample(4, |x, q| {
        let bump = (-30.0 * ((x[0] - 0.4).powi(2) + (x[1] - 0.6).powi(2))).exp();
        q.copy_from_slice(&[1.0 + bump, 0.3 + bump, -0.2, 2.5 + 2.0 * bump]);
    })
}

#[test]
fn every_variable_is_conserved_on_a_periodic_grid() {
    let law = euler2d::Law::default();
    let grid = FvGrid::periodic(24, 17, [0.0, 0.0], [1.0, 1.0]);
    let q0 = moving_bump(&grid);
    let total = |q: &[f64], v: usize| q[v * grid.cells()..(v + 1) * grid.cells()].iter().sum::<f64>();
    for reconstruction in [Reconstruction::FirstOrder, Reconstruction::MusclHancock] {
        let out =
            run(&law, &grid, reconstruction, (q0.clone(), FvPosition::START), (0.3, 0.9), &mut |_, _| {}).unwrap();
        for v in 0..4 {
            let (before, after) = (total(&q0, v), total(&out.q, v));
            assert!((before - after).abs() < 1e-12 * before.abs().max(1.0), "{reconstruction:?} variable {v}");
        }
        assert!((out.q[0] - q0[0]).abs() > 1e-6, "the state moved");
    }
}

#[test]
fn a_smooth_density_wave_converges_at_first_and_second_order() {
    let law = euler2d::Law::default();
    let t_end = 0.25;
    for (reconstruction, lowest, highest) in
        [(Reconstruction::FirstOrder, 0.8, 1.2), (Reconstruction::MusclHancock, 1.7, 2.3)]
    {
        let errors: Vec<f64> = [32, 64, 128]
            .iter()
            .map(|&n| {
                let grid = FvGrid::periodic(n, n, [0.0, 0.0], [1.0, 1.0]);
                let q0 = grid.sample(4, |x, q| density_wave(x, 0.0, q));
                let out =
                    run(&law, &grid, reconstruction, (q0, FvPosition::START), (t_end, 0.8), &mut |_, _| {}).unwrap();
                let exact = grid.sample(4, |x, q| density_wave(x, t_end, q));
                let cells = grid.cells();
                (0..cells).map(|c| (out.q[c] - exact[c]).abs()).sum::<f64>() / cells as f64
            })
            .collect();
        let rates: Vec<f64> = errors.windows(2).map(|e| (e[0] / e[1]).log2()).collect();
        println!("{reconstruction:?}: L1 density errors on 32², 64², 128²: {errors:?}, rates {rates:.2?}");
        let last = rates[rates.len() - 1];
        assert!(last > lowest && last < highest, "{reconstruction:?}: L1 errors {errors:?}, rates {rates:?}");
    }
}

#[test]
fn bad_setups_and_inadmissible_states_are_errors() {
    let law = euler2d::Law::default();
    let grid = FvGrid::periodic(8, 8, [0.0, 0.0], [1.0, 1.0]);
    let q0 = grid.sample(4, |x, q| density_wave(x, 0.0, q));
    for cfl in [0.0, -0.5, f64::NAN, f64::INFINITY] {
        let err =
            run(&law, &grid, Reconstruction::FirstOrder, (q0.clone(), FvPosition::START), (0.1, cfl), &mut |_, _| {})
                .unwrap_err();
        assert!(err.to_string().contains("CFL"), "{cfl}: {err}");
    }
    let mut one_sided = grid.clone();
    one_sided.sides[0] = Side::Condition(0);
    let err =
        run(&law, &one_sided, Reconstruction::FirstOrder, (q0.clone(), FvPosition::START), (0.1, 0.5), &mut |_, _| {})
            .unwrap_err();
    assert!(err.to_string().contains("periodic on one side"), "{err}");
    let mut negative = q0;
    negative[9] = -1.0;
    let err = run(&law, &grid, Reconstruction::FirstOrder, (negative, FvPosition::START), (0.1, 0.5), &mut |_, _| {})
        .unwrap_err();
    assert!(err.to_string().contains("cell (1, 1) left the admissible set"), "{err}");
}

/// A run continued from a state it passed (and the position there) ends bit for bit where the whole run ends.
#[test]
fn a_run_continued_from_a_position_ends_where_the_whole_run_ends() {
    let law = euler2d::Law::default();
    let grid = FvGrid::periodic(19, 13, [0.0, 0.0], [1.0, 1.0]);
    let q0 = moving_bump(&grid);
    let mut saved = None;
    let whole =
        run(&law, &grid, Reconstruction::MusclHancock, (q0.clone(), FvPosition::START), (0.2, 0.9), &mut |at, q| {
            if at.steps == 5 {
                saved = Some((q.to_vec(), at));
            }
        })
        .unwrap();
    let (q5, at5) = saved.expect("a fifth step");
    assert!(whole.steps > 6 && at5.t > 0.0 && at5.dt_range[0] <= at5.dt_range[1], "{} steps, {at5:?}", whole.steps);
    let mut seen = Vec::new();
    let rest = run(&law, &grid, Reconstruction::MusclHancock, (q5, at5), (0.2, 0.9), &mut |at, _| seen.push(at.steps))
        .unwrap();
    assert_eq!(seen.first(), Some(&6), "the steps go on from the position's count");
    assert_eq!((rest.steps, rest.dt_range), (whole.steps, whole.dt_range));
    assert!(rest.q == whole.q, "the continued run's final state differs from the whole run's");
}
