//! The hexahedral CPU operator on distorted (general trilinear) periodic meshes: a uniform state is preserved
//! exactly (the discrete metric identities hold), and the mass-weighted right-hand side of any state sums to zero
//! (the scheme conserves every variable).

use dg_core::hexmesh::{hex_box_mesh, GeometryClass, HexBoxSpec};
use dg_core::law::ConservationLaw;
use dg_core::space_hex::HexSpace;
use dg_hex::HexOperator;
use dg_laws::{euler3d, maxwell3d};
use dg_runtime::cpu::BoundaryBinding;
use rand::{Rng, SeedableRng};

fn distorted_periodic(order: usize) -> HexSpace {
    let spec = HexBoxSpec {
        lower: [0.0, 0.0, -0.5],
        upper: [1.0, 2.0, 0.5],
        cells: [3, 4, 3],
        periodic: [true; 3],
        distortion: 0.2,
    };
    let space = HexSpace::new(hex_box_mesh(&spec).expect("mesh"), order).expect("space");
    assert!(space.class.iter().filter(|&&c| c == GeometryClass::Trilinear).count() > 10);
    space
}

fn operator<L: ConservationLaw>(law: L, space: &HexSpace) -> HexOperator<L, f64> {
    let binding = BoundaryBinding::for_law_on_hexes(&law, space, &Default::default()).expect("binding");
    HexOperator::new(law, space, &binding, &[])
}

#[test]
fn a_uniform_state_stays_uniform_on_trilinear_cells() {
    for order in 1..=4 {
        let space = distorted_periodic(order);
        let maxwell = operator(maxwell3d::Law::default(), &space);
        let q: Vec<f64> = space.interpolate(6, |_, q| q.copy_from_slice(&[0.3, -1.2, 0.7, 0.5, 0.1, -0.9]));
        let mut out = vec![f64::NAN; q.len()];
        maxwell.apply(&q, 0.0, &mut out);
        let worst = out.iter().map(|v| v.abs()).fold(0.0, dg_core::max_or_nan);
        assert!(worst < 1e-11, "D={order}: Maxwell, uniform state: |rhs| up to {worst:e}");
        let euler = operator(euler3d::Law::default(), &space);
        let q: Vec<f64> = space.interpolate(5, |_, q| q.copy_from_slice(&[1.2, 0.3, -0.2, 0.5, 3.0]));
        let mut out = vec![f64::NAN; q.len()];
        euler.apply(&q, 0.0, &mut out);
        let worst = out.iter().map(|v| v.abs()).fold(0.0, dg_core::max_or_nan);
        assert!(worst < 1e-11, "D={order}: Euler, uniform state: |rhs| up to {worst:e}");
    }
}

#[test]
fn every_variable_is_conserved_on_a_periodic_mesh() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(3);
    for order in [1, 3] {
        let space = distorted_periodic(order);
        let (el, np) = (&space.element, space.element.np);
        let total = |rhs: &[f64], nv: usize, v: usize| -> f64 {
            (0..space.num_elements())
                .flat_map(|k| (0..np).map(move |i| (k, i)))
                .map(|(k, i)| el.weight(i) * space.det_j[k * np + i] * rhs[(k * nv + v) * np + i])
                .sum()
        };
        let maxwell = operator(maxwell3d::Law::default(), &space);
        let q: Vec<f64> = (0..space.num_nodes() * 6).map(|_| rng.random_range(-1.0..1.0)).collect();
        let mut out = vec![f64::NAN; q.len()];
        maxwell.apply(&q, 0.0, &mut out);
        let scale = out.iter().map(|v| v.abs()).fold(0.0, dg_core::max_or_nan);
        assert!(scale > 1.0, "a random state has a large right-hand side");
        for v in 0..6 {
            let s = total(&out, 6, v);
            assert!(s.abs() < 1e-11 * scale, "D={order}: Maxwell variable {v}: Σ M rhs = {s:e}");
        }
        let euler = operator(euler3d::Law::default(), &space);
        let q: Vec<f64> = (0..space.num_elements())
            .flat_map(|_| {
                let mut cell = Vec::with_capacity(5 * np);
                for v in 0..5 {
                    for _ in 0..np {
                        cell.push(match v {
                            0 => rng.random_range(0.8..1.2),
                            4 => rng.random_range(2.5..3.0),
                            _ => rng.random_range(-0.3..0.3),
                        });
                    }
                }
                cell
            })
            .collect();
        let mut out = vec![f64::NAN; q.len()];
        euler.apply(&q, 0.0, &mut out);
        let scale = out.iter().map(|v| v.abs()).fold(0.0, dg_core::max_or_nan);
        for v in 0..5 {
            let s = total(&out, 5, v);
            assert!(s.abs() < 1e-11 * scale, "D={order}: Euler variable {v}: Σ M rhs = {s:e}");
        }
    }
}
