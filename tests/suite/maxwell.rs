//! The CPU Maxwell TM solver against exact solutions and energy identities.

use dg::cases::{MaxwellCase, MaxwellCavity, MaxwellPulse};
use dg::dg_core::mesh::{perturb_interior, Diagonal};
use dg::dg_nodal_tri::NodalOperator2d;
use dg::dg_runtime::cpu::BoundaryBinding;
use dg::maxwell_run::{convergence, run};
use dg::prelude::*;
use std::collections::HashMap;

/// The upwind Maxwell TM operator on `space`, every boundary PEC.
fn maxwell_operator(space: &DgSpace2d) -> NodalOperator2d<MaxwellTm, f64> {
    let law = MaxwellTm::default();
    let binding = BoundaryBinding::for_law(&law, space, &HashMap::new()).expect("PEC binds every tag");
    NodalOperator2d::new(law, space, &binding)
}

fn cavity_space(n: usize, order: usize) -> DgSpace2d {
    DgSpace2d::new(MaxwellCavity::default().default_mesh(n, n).unwrap(), order).unwrap()
}

#[test]
fn perturbed_unstructured_meshes_converge_at_order_n_plus_one() {
    let case = MaxwellCavity { m: 2, n: 1 };
    let mut base =
        rectangle(&RectangleSpec { diagonal: Diagonal::Alternating, ..RectangleSpec::unit_square(3) }).unwrap();
    perturb_interior(&mut base, 0.25, 42);
    let opts =
        RunOptions { common: CommonRunOptions { t_end: Some(0.3), ..Default::default() }, ..RunOptions::default() };
    let study = convergence(&case, &base, 2..=3, 3, &opts, None, &mut |_, _| {}).unwrap();
    for r in &study.results {
        let last = *r.rates.last().unwrap();
        assert!((last - (r.order as f64 + 1.0)).abs() < 0.35, "N={}: rates {:?}, errors {:?}", r.order, r.rates, r.l2);
    }
}

#[test]
fn central_flux_conserves_energy_over_one_period() {
    let space = cavity_space(4, 4);
    let case = MaxwellCavity::default();
    let opts = RunOptions {
        alpha: 0.0,
        common: CommonRunOptions { cfl: Some(0.25), ..Default::default() },
        ..RunOptions::default()
    };
    let out = run(Precision::F64, &space, &case, &opts, None, &mut |_, _| {}).unwrap();
    let r = out.report;
    let change = (r.energy_final - r.energy_initial).abs() / r.energy_initial;
    assert!(change < 1e-6, "relative energy change {change:e}");
    // the exact energy of the mode: ½∫Ez² at t = 0 is 1/8
    assert!((r.energy_initial - 0.125).abs() < 1e-4);
}

#[test]
fn upwind_flux_never_increases_energy() {
    let space = cavity_space(4, 3);
    for case in [&MaxwellCavity::default() as &dyn MaxwellCase, &MaxwellPulse] {
        let opts = RunOptions {
            alpha: 1.0,
            energy_history: true,
            common: CommonRunOptions { t_end: Some(1.0), ..Default::default() },
            ..RunOptions::default()
        };
        let r = run(Precision::F64, &space, case, &opts, None, &mut |_, _| {}).unwrap().report;
        let mut previous = r.energy_initial;
        for (step, &e) in r.energy_history.iter().enumerate() {
            assert!(e <= previous * (1.0 + 1e-14), "{}: energy rose at step {step}: {previous} → {e}", case.name());
            previous = e;
        }
        assert!(r.energy_final < r.energy_initial, "{}: upwinding must dissipate something", case.name());
    }
}

#[test]
fn single_precision_matches_double_to_rounding() {
    let space = cavity_space(4, 3);
    let case = MaxwellCavity::default();
    let opts =
        RunOptions { common: CommonRunOptions { t_end: Some(0.5), ..Default::default() }, ..RunOptions::default() };
    let e64 = run(Precision::F64, &space, &case, &opts, None, &mut |_, _| {}).unwrap();
    let e32 = run(Precision::F32, &space, &case, &opts, None, &mut |_, _| {}).unwrap();
    let diff: f64 = e64.state.iter().zip(&e32.state).map(|(a, b)| (a - b).powi(2)).sum::<f64>().sqrt();
    let norm: f64 = e64.state.iter().map(|a| a * a).sum::<f64>().sqrt();
    assert!(diff / norm < 1e-5, "f32 deviates by {:e} relative", diff / norm);
    assert!(diff > 0.0, "the f32 path must really compute in f32");
}

#[test]
fn constant_fields_on_a_periodic_mesh_have_zero_rhs() {
    let mut mesh =
        rectangle(&RectangleSpec { periodic_x: true, periodic_y: true, ..RectangleSpec::unit_square(4) }).unwrap();
    perturb_interior(&mut mesh, 0.2, 9);
    let space = DgSpace2d::new(mesh, 5).unwrap();
    let op = maxwell_operator(&space);
    let q: Vec<f64> = space.interpolate(3, |_, _, q| q.copy_from_slice(&[0.7, -1.3, 2.1]));
    let mut out = vec![f64::NAN; q.len()];
    op.apply(&q, 0.0, &mut out);
    let worst = out.iter().fold(0.0f64, |m, v| dg::dg_core::max_or_nan(m, v.abs()));
    assert!(worst < 1e-11, "max |rhs| = {worst:e}");
}

#[test]
fn rhs_of_the_exact_mode_matches_its_time_derivative() {
    // at t = T/4 all three fields are non-zero; dq/dt is known in closed form
    let case = MaxwellCavity::default();
    let t = 0.3;
    let mut errors = Vec::new();
    for n in [4, 8] {
        let space = cavity_space(n, 4);
        let op = maxwell_operator(&space);
        let q: Vec<f64> = space.interpolate(3, |x, y, q| {
            case.exact(x, y, t, q);
        });
        let mut out = vec![f64::NAN; q.len()];
        op.apply(&q, 0.0, &mut out);
        let h = 1e-6;
        let dq: Vec<f64> = space.interpolate(3, |x, y, d| {
            let (mut a, mut b) = ([0.0; 3], [0.0; 3]);
            case.exact(x, y, t + h, &mut a);
            case.exact(x, y, t - h, &mut b);
            for v in 0..3 {
                d[v] = (a[v] - b[v]) / (2.0 * h);
            }
        });
        let err = out.iter().zip(&dq).map(|(a, b)| (a - b).abs()).fold(0.0, dg::dg_core::max_or_nan);
        errors.push(err);
    }
    // derivative of an order-4 interpolant: error O(h^4) pointwise (nodal), so a factor ≈ 16 per halving
    assert!(errors[1] < 1e-3, "errors {errors:?}");
    assert!(errors[0] / errors[1] > 10.0, "errors {errors:?}");
}

#[test]
fn gmsh_mesh_with_a_hole_runs_and_dissipates() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/meshes/square_hole.msh");
    let mesh = read_gmsh(&path).unwrap();
    let space = DgSpace2d::new(mesh, 3).unwrap();
    let opts = RunOptions {
        energy_history: true,
        common: CommonRunOptions { t_end: Some(0.3), ..Default::default() },
        ..RunOptions::default()
    };
    let out = run(Precision::F64, &space, &MaxwellPulse, &opts, None, &mut |_, _| {}).unwrap();
    assert!(out.state.iter().all(|v| v.is_finite()));
    let r = out.report;
    assert!(
        r.energy_final <= r.energy_initial && r.energy_final > 0.5 * r.energy_initial,
        "{} → {}",
        r.energy_initial,
        r.energy_final
    );
    assert!(r.steps > 10);
}

#[test]
fn unknown_boundary_conditions_are_reported() {
    let space = cavity_space(2, 1);
    let opts = RunOptions {
        common: CommonRunOptions {
            boundary: HashMap::from([("left".to_string(), "absorbing".to_string())]),
            ..Default::default()
        },
        ..RunOptions::default()
    };
    let err =
        run(Precision::F64, &space, &MaxwellCavity::default(), &opts, None, &mut |_, _| {}).err().expect("must fail");
    let msg = err.to_string();
    assert!(msg.contains("absorbing") && msg.contains("pec"), "{msg}");
}
