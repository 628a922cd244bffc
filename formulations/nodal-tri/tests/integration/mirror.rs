//! The mirror tiles (`mirror<t>/…`, the operator folded by the triangle's mirror symmetry): their rules, their cost
//! (half the tiles' products, counted by hand here), and the flux-first mirror tiles of nonlinear laws (which the
//! tuner's list, mixed only, never meets) against the CPU operator on the OpenCL device, with a source term in the
//! store and a planted bug that must fail them. The mixed mirror tiles are checked with the other mixed variants
//! (`mixed.rs`).

use dg_codegen::{Precision, Target};
use dg_core::law::ConservationLaw;
use dg_core::Real;
use dg_nodal_tri::cost::rhs_cost;
use dg_nodal_tri::variant::{LawShape, Partition, Variant};
use dg_nodal_tri::verify::verify_at_order;
use dg_runtime::backend::planted::{PlantedBug, PlantedDevice};
use dg_runtime::backend::{opencl_for_tests, Device};
use dg_runtime::formulation::law_ir;

#[test]
fn the_rules_refuse_what_the_mirror_kernel_does_not_generate_with_a_reason() {
    let shape = LawShape::of(&law_ir(&dg_laws::MaxwellTm::default()).unwrap());
    let limits = dg_codegen::DeviceLimits { local_memory: 48 * 1024, ..Default::default() };
    let reason = |spec: &str, order: usize| {
        let v: Variant = spec.parse().unwrap();
        v.check(order, &shape, &limits).err().map(|e| e.to_string())
    };
    assert_eq!(reason("mirror4/wg32/seq1/matrix-local/merged/tiled/f32/mixed", 6), None);
    assert_eq!(reason("mirror3/wg32/seq1/field-local/merged/node-major/f64", 5), None);
    for (spec, order, words) in [
        (
            "mirror4/wg32/seq1/matrix-const/merged/tiled/f32/mixed",
            6,
            "local memory (matrix-local) or through the cache",
        ),
        ("mirror4/wg32/seq1/matrix-local/merged/tiled/f32/diff-first", 6, "flux-first or mixed"),
        ("mirror4/wg32/seq1/matrix-local/fused/node-major/f32", 6, "generated merged"),
        ("mirror4/wg32/seq1/matrix-local/merged/elem-major/f32", 6, "generated merged"),
        // N = 4 has 9 representatives, 18 folded rows: four work items of six leave the last none
        ("mirror4/wg32/seq1/matrix-local/merged/tiled/f64/mixed", 4, "leave one without a row"),
        ("mirror17/wg32/seq1/matrix-local/merged/tiled/f32", 8, "1 to 16 work items"),
    ] {
        let why = reason(spec, order).unwrap_or_else(|| panic!("{spec} N={order} accepted"));
        assert!(why.contains(words), "{spec} N={order}: {why}");
    }
    // the list: mixed, matrix-local, tiled, three to five work items, both precisions
    for precision in [Precision::F32, Precision::F64] {
        let listed: Vec<Variant> =
            Variant::all(precision).into_iter().filter(|v| matches!(v.partition, Partition::Mirror { .. })).collect();
        let threads: Vec<usize> = listed
            .iter()
            .map(|v| match v.partition {
                Partition::Mirror { threads } => threads,
                _ => 0,
            })
            .collect();
        assert_eq!(threads, [3, 4, 5], "{listed:?}");
    }
}

/// Maxwell TM at N = 7 on 1000 elements: the mixed tile multiplies Dr and Ds (two products: Ez's flux and ∇Ez) and
/// LIFT; the mirror tile multiplies one folded matrix per product and the folded lift. By hand: np = 36, 20
/// representatives (16 pairs, 4 on r = s), 3·8 = 24 face nodes in 12 face pairs (no face node is its own mirror at
/// odd N): the volume saves 2·2·np² flops per element (4 per entry of Dr and Ds against 2 per folded entry), the lift
/// 3 variables × 2 flops × (np·24 − (20·12 + 16·12)) and spends 2·12 adds per variable on the jumps' sums and
/// differences.
#[test]
fn a_mirror_tile_counts_half_the_tiles_products() {
    let ir = law_ir(&dg_laws::MaxwellTm::default()).unwrap();
    let cost = |spec: &str| rhs_cost(&ir, "numerical_flux", 7, 1000, &spec.parse::<Variant>().unwrap());
    let tile = cost("tile4/wg32/seq1/matrix-local/merged/tiled/f32/mixed");
    let mirror = cost("mirror4/wg32/seq1/matrix-local/merged/tiled/f32/mixed");
    let np = 36.0;
    let volume = 2.0 * 2.0 * np * np;
    let lift = 3.0 * (2.0 * (np * 24.0 - (20.0 * 12.0 + 16.0 * 12.0)) - 2.0 * 12.0);
    assert_eq!(tile.flops - mirror.flops, 1000.0 * (volume + lift));
    assert_eq!(tile.bytes, mirror.bytes, "the same minimum bytes");
}

/// Verifies `specs` for `law` at `order` in `T` on `device`; (variant, passed, relative error).
fn check<L: ConservationLaw + Clone, T: Real>(
    device: &mut dyn Device,
    law: &L,
    order: usize,
    specs: &[&str],
) -> Vec<(String, bool, f64)> {
    let variants: Vec<Variant> = specs.iter().map(|s| s.parse().unwrap()).collect();
    let outcomes = verify_at_order::<L, T>(device, Target::OpenCl, law, order, &variants).expect("verification runs");
    assert_eq!(outcomes.len(), specs.len());
    outcomes.into_iter().map(|o| (o.variant, o.passed, o.relative_error)).collect()
}

#[test]
fn flux_first_mirror_tiles_of_nonlinear_laws_match_the_cpu_on_opencl_and_a_planted_bug_fails_them() {
    let Some((_turn, mut device)) = opencl_for_tests() else { return };
    let euler = dg_laws::euler2d::Law::default();
    let mhd = dg_laws::mhd2d::Law::default();
    let euler_specs =
        ["mirror4/wg32/seq1/matrix-local/merged/tiled/f64", "mirror3/wg32/seq1/field-local/merged/node-major/f64"];
    let mhd_specs = ["mirror3/wg32/seq1/matrix-local/merged/tiled/f64"];
    let mut results = check::<_, f64>(device.as_mut(), &euler, 5, &euler_specs);
    // mhd2d's GLM source term is added in the mirror tile's store, at both nodes of each pair
    results.extend(check::<_, f64>(device.as_mut(), &mhd, 3, &mhd_specs));
    for (variant, passed, error) in &results {
        assert!(*passed && error.is_finite() && *error < 1e-12, "{variant}: error {error:e}");
    }
    // a variant listed twice is verified twice, each outcome in its own place
    let twice = check::<_, f64>(device.as_mut(), &mhd, 3, &[mhd_specs[0], mhd_specs[0]]);
    assert!(twice.iter().all(|(_, passed, error)| *passed && *error < 1e-12), "{twice:?}");
    let mut planted = PlantedDevice::new(device.as_mut(), PlantedBug::LastElementUnwritten);
    for (variant, passed, error) in check::<_, f64>(&mut planted, &euler, 5, &euler_specs) {
        assert!(!passed, "{variant} passed with a planted bug (error {error:e})");
    }
}
