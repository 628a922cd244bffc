//! The macro-generated Maxwell TM law against the hand-written one it replaced (kept here as a reference):
//! identical right-hand sides and identical cavity errors.

use dg::cases::{MaxwellCase, MaxwellCavity};
use dg::dg_core::law::ConservationLaw;
use dg::dg_core::Real;
use dg::dg_nodal_tri::NodalOperator2d;
use dg::dg_runtime::cpu::BoundaryBinding;
use dg::maxwell_run::run_with_law;
use dg::prelude::*;
use std::collections::HashMap;

/// The hand-written Maxwell TM law of the foundation issue (seed 000's flux), unchanged but for the trait's
/// material, position and time arguments.
#[derive(Clone)]
struct HandWrittenMaxwell {
    alpha: f64,
}

impl ConservationLaw for HandWrittenMaxwell {
    const DIM: usize = 2;
    const NVARS: usize = 3;
    const NMATERIALS: usize = 0;
    fn name(&self) -> &'static str {
        "maxwell2d-by-hand"
    }
    fn variable_names(&self) -> &'static [&'static str] {
        &["Hx", "Hy", "Ez"]
    }
    fn material_names(&self) -> &'static [&'static str] {
        &[]
    }
    fn boundary_names(&self) -> &'static [&'static str] {
        &["pec"]
    }
    fn numerical_flux_names(&self) -> &'static [&'static str] {
        &["upwind"]
    }
    fn select_numerical_flux(&mut self, name: &str) -> bool {
        name == "upwind"
    }
    fn param_values(&self) -> Vec<f64> {
        vec![self.alpha]
    }
    fn flux<T: Real>(&self, q: &[T], _mat: &[T], f: &mut [T]) {
        f[0] = T::zero();
        f[1] = -q[2];
        f[2] = -q[1];
        f[3] = q[2];
        f[4] = T::zero();
        f[5] = q[0];
    }
    fn max_speed<T: Real>(&self, _q: &[T], _mat: &[T], _n: &[T]) -> T {
        T::one()
    }
    fn numerical_flux<T: Real>(&self, qm: &[T], qp: &[T], _mm: &[T], _mp: &[T], n: &[T], out: &mut [T]) {
        let half = T::from_f64(0.5);
        let alpha = T::from_f64(self.alpha);
        let (nx, ny) = (n[0], n[1]);
        let mean = |v: usize| half * (qm[v] + qp[v]);
        let jump = |v: usize| qm[v] - qp[v];
        let n_dot_jump_h = nx * jump(0) + ny * jump(1);
        out[0] = ny * mean(2) - half * alpha * (nx * n_dot_jump_h - jump(0));
        out[1] = -nx * mean(2) - half * alpha * (ny * n_dot_jump_h - jump(1));
        out[2] = ny * mean(0) - nx * mean(1) + half * alpha * jump(2);
    }
    fn boundary_state<T: Real>(&self, _bc: usize, qm: &[T], _mat: &[T], _n: &[T], _x: &[T], _t: T, qp: &mut [T]) {
        qp[0] = qm[0];
        qp[1] = qm[1];
        qp[2] = -qm[2];
    }
    fn has_source(&self) -> bool {
        false
    }
    fn source<T: Real>(&self, _q: &[T], _mat: &[T], _x: &[T], _t: T, s: &mut [T]) {
        s.iter_mut().for_each(|v| *v = T::zero());
    }
}

#[test]
fn right_hand_sides_agree_for_orders_1_to_6() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::StdRng::seed_from_u64(21);
    for order in 1..=6 {
        for alpha in [0.0, 1.0] {
            let space = DgSpace2d::new(MaxwellCavity::default().default_mesh(3, 3).unwrap(), order).unwrap();
            let binding = BoundaryBinding::for_law(&MaxwellTm::default(), &space, &HashMap::new()).unwrap();
            let generated =
                NodalOperator2d::<MaxwellTm, f64>::new(MaxwellTm { alpha, ..Default::default() }, &space, &binding);
            let by_hand =
                NodalOperator2d::<HandWrittenMaxwell, f64>::new(HandWrittenMaxwell { alpha }, &space, &binding);
            let q: Vec<f64> = (0..generated.state_len()).map(|_| rng.random_range(-1.0..1.0)).collect();
            let (mut a, mut b) = (vec![f64::NAN; q.len()], vec![f64::NAN; q.len()]);
            generated.apply(&q, 0.0, &mut a);
            by_hand.apply(&q, 0.0, &mut b);
            let scale = b.iter().fold(0.0f64, |m, v| dg::dg_core::max_or_nan(m, v.abs()));
            for (x, y) in a.iter().zip(&b) {
                assert!((x - y).abs() <= 1e-12 * scale, "N={order} α={alpha}: {x} vs {y}");
            }
        }
    }
}

#[test]
fn cavity_errors_are_unchanged_to_1e_12() {
    let case = MaxwellCavity::default();
    let opts = RunOptions::default();
    for order in 1..=6 {
        for n in [2, 4] {
            let space = DgSpace2d::new(case.default_mesh(n, n).unwrap(), order).unwrap();
            let generated =
                run_with_law::<MaxwellTm, f64>(&space, case.law(1.0), &case, &opts, None, &mut |_, _| {}).unwrap();
            let by_hand = run_with_law::<HandWrittenMaxwell, f64>(
                &space,
                HandWrittenMaxwell { alpha: 1.0 },
                &case,
                &opts,
                None,
                &mut |_, _| {},
            )
            .unwrap();
            let (e1, e2) = (generated.report.l2_error.unwrap(), by_hand.report.l2_error.unwrap());
            assert!((e1 - e2).abs() <= 1e-12 * e2, "N={order}, {n}×{n}: {e1} vs {e2}");
        }
    }
}
