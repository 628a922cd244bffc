//! The mixed volume form (`…/mixed`) of the tiles and the merged elements on the OpenCL device (PoCL in CI, its
//! optimiser on): the plan each law gets, and every mixed variant against the CPU operator at the orders where the
//! tiles' sum over the nodes runs in one, two and three chunks, on the verification mesh whose last work group is
//! partial (the case a first version's kernel got wrong under PoCL's optimiser); planted bugs must fail it.

use dg_codegen::{Precision, Target};
use dg_core::law::ConservationLaw;
use dg_core::Real;
use dg_nodal_tri::variant::{LawShape, Partition, Surface, Variant, VolumeForm};
use dg_nodal_tri::verify::verify_at_order;
use dg_runtime::backend::planted::{PlantedBug, PlantedDevice};
use dg_runtime::backend::{opencl_for_tests, Device};
use dg_runtime::formulation::law_ir;

/// The mixed variants (tiles and elements) of one precision: the tuner's (f32; the mirror tiles in both) and those
/// valid on request (f64), each once.
fn mixed_variants(precision: Precision) -> Vec<Variant> {
    let mut out: Vec<Variant> = Vec::new();
    for v in [Precision::F32, Precision::F64].into_iter().flat_map(Variant::all) {
        let v = Variant { precision, ..v };
        if v.form == VolumeForm::Mixed && !out.contains(&v) {
            out.push(v);
        }
    }
    out
}

/// Verifies the mixed variants of `law` valid at `order` in `T`; (variant, passed, relative error).
fn check<L: ConservationLaw + Clone, T: Real>(
    device: &mut dyn Device,
    law: &L,
    order: usize,
    precision: Precision,
) -> Vec<(String, bool, f64)> {
    let ir = law_ir(law).expect("registered law");
    let shape = LawShape::of(&ir);
    let limits = dg_runtime::backend::limits_of(device);
    let variants: Vec<Variant> =
        mixed_variants(precision).into_iter().filter(|v| v.check(order, &shape, &limits).is_ok()).collect();
    assert!(variants.iter().any(|v| v.partition == Partition::Element), "no mixed element valid at N = {order}");
    assert!(variants.iter().any(|v| v.partition != Partition::Element), "no mixed tile valid at N = {order}");
    let outcomes = verify_at_order::<L, T>(device, Target::OpenCl, law, order, &variants).expect("verification runs");
    outcomes.into_iter().map(|o| (o.variant, o.passed, o.relative_error)).collect()
}

#[test]
fn the_plan_shares_the_gradient_that_several_fluxes_read_and_only_where_it_saves() {
    let maxwell = law_ir(&dg_laws::MaxwellTm::default()).unwrap().divergence_plan().expect("linear flux");
    // Hx and Hy read Ez; Ez reads Hx and Hy: Ez flux-first, ∇Ez shared
    assert_eq!((maxwell.flux_first, maxwell.gradients), (vec![2], vec![2]));
    assert_eq!(maxwell.from_gradients, vec![(0, vec![0]), (1, vec![0])]);
    let acoustics = law_ir(&dg_laws::acoustics2d::Law::default()).unwrap().divergence_plan().expect("linear");
    assert_eq!(acoustics.products(), 2, "{acoustics:?}");
    assert!(law_ir(&dg_laws::euler2d::Law::default()).unwrap().divergence_plan().is_none());
    let mixed: Variant = "tile4/wg32/seq1/matrix-local/merged/node-major/f64/mixed".parse().unwrap();
    let limits = dg_codegen::DeviceLimits { local_memory: 48 * 1024, ..Default::default() };
    for (ir, valid) in [
        (law_ir(&dg_laws::MaxwellTm::default()).unwrap(), true),
        (law_ir(&dg_laws::euler2d::Law::default()).unwrap(), false),
        (law_ir(&dg_laws::advection2d::Law::default()).unwrap(), false),
    ] {
        let result = mixed.check(6, &LawShape::of(&ir), &limits);
        assert_eq!(result.is_ok(), valid, "{}: {result:?}", ir.name);
    }
    // tiles (plain or mirror, or the mirror tiles' products on the tensor cores), and elements with volume and surface
    // merged (the element's state is in registers for the face jumps)
    let listed = mixed_variants(Precision::F32);
    assert!(listed.iter().all(|v| matches!(
        v.partition,
        Partition::Tile { .. } | Partition::Mirror { .. } | Partition::MirrorMma { .. }
    ) || (v.partition == Partition::Element && v.surface == Surface::Merged)));
    assert!(listed.iter().filter(|v| v.partition == Partition::Element).count() >= 4, "{listed:?}");
    let maxwell_shape = LawShape::of(&law_ir(&dg_laws::MaxwellTm::default()).unwrap());
    let split: Variant = "elem/wg32/seq1/matrix-local/split/node-major/f32/mixed".parse().unwrap();
    let err = split.check(3, &maxwell_shape, &limits).unwrap_err().to_string();
    assert!(err.contains("merged element partition"), "{err}");
    // the tuner meets f32 mixed elements only (in f64 they lost every order on an H200); f64 stays valid on request
    assert!(!Variant::all(Precision::F64)
        .iter()
        .any(|v| v.partition == Partition::Element && v.form == VolumeForm::Mixed));
    let on_request: Variant = "elem/wg128/seq1/matrix-local/merged/node-major/f64/mixed".parse().unwrap();
    assert!(on_request.check(3, &maxwell_shape, &limits).is_ok());
}

#[test]
fn every_mixed_variant_matches_the_cpu_on_opencl() {
    let Some((_turn, mut device)) = opencl_for_tests() else { return };
    let maxwell = dg_laws::MaxwellTm::default();
    let acoustics = dg_laws::acoustics2d::Law::default();
    let mut results = Vec::new();
    // N = 4: one chunk of nodes; 5: two (the order the first version failed at); 8: three; materials that jump
    // across faces for acoustics
    for order in [4, 5, 8] {
        results.extend(check::<_, f64>(device.as_mut(), &maxwell, order, Precision::F64));
        results.extend(check::<_, f32>(device.as_mut(), &acoustics, order, Precision::F32));
    }
    results.extend(check::<_, f64>(device.as_mut(), &acoustics, 6, Precision::F64));
    assert!(results.len() >= 40, "{results:?}");
    for (variant, passed, error) in &results {
        let tolerance = if variant.ends_with("f32/mixed") { 1e-5 } else { 1e-12 };
        assert!(*passed && error.is_finite() && *error < tolerance, "{variant}: error {error:e}");
    }
}

#[test]
fn planted_bugs_fail_the_mixed_variants() {
    let Some((_turn, mut device)) = opencl_for_tests() else { return };
    let law = dg_laws::MaxwellTm::default();
    for bug in [PlantedBug::SkipLastGroup, PlantedBug::LastElementUnwritten] {
        let mut planted = PlantedDevice::new(device.as_mut(), bug.clone());
        let results = check::<_, f64>(&mut planted, &law, 5, Precision::F64);
        assert!(!results.is_empty());
        for (variant, passed, error) in results {
            assert!(!passed, "{variant} passed with {bug:?} planted (error {error:e})");
        }
    }
}

#[test]
fn the_rules_count_at_least_the_local_memory_a_mixed_tile_declares() {
    let law = dg_laws::MaxwellTm::default();
    let ir = law_ir(&law).unwrap();
    let shape = LawShape::of(&ir);
    let params = law.param_values();
    let input = dg_codegen::LawInput { ir: &ir, params: &params, numerical_flux: law.numerical_flux_name() };
    for order in 2..=8 {
        let element = dg_core::triangle::ReferenceTriangle::new(order).unwrap();
        for variant in mixed_variants(Precision::F32).into_iter().filter(|v| v.partition != Partition::Element) {
            let unlimited = dg_codegen::DeviceLimits { local_memory: usize::MAX, ..Default::default() };
            if variant.check(order, &shape, &unlimited).is_err() {
                continue;
            }
            let source = dg_nodal_tri::render::render_nodal_tri(&input, &element, &variant, Target::Cuda).unwrap();
            let declared = crate::declared_local_values(&source.source) * 4;
            let counted = source.geometry.local_bytes(&shape, 4, &variant);
            assert!(
                declared > 0 && declared <= counted,
                "{variant} N={order}: declares {declared} bytes, rules count {counted}"
            );
        }
    }
}

/// A law's source term is added in the store of the merged element, tile, mirror, mma and mma16 kernels (whose argument list
/// then takes the nodes' coordinates), so no `source` kernel follows and the stage's update can be folded; every
/// other partition and surface keeps the `source` kernel, launched last; a law without a source keeps its program
/// text.
#[test]
fn the_source_is_added_in_the_store_of_merged_element_tile_and_mma_kernels() {
    let law = dg_laws::mhd2d::Law::default();
    let ir = law_ir(&law).unwrap();
    let params = law.param_values();
    let input = dg_codegen::LawInput { ir: &ir, params: &params, numerical_flux: "numerical_flux" };
    let element = dg_core::triangle::ReferenceTriangle::new(3).unwrap();
    let render = |spec: &str| {
        let variant: dg_nodal_tri::Variant = spec.parse().unwrap();
        dg_nodal_tri::render::render_nodal_tri(&input, &element, &variant, Target::Cuda).unwrap()
    };
    for spec in [
        "elem/wg128/seq1/matrix-local/merged/node-major/f64",
        "tile4/wg32/seq1/matrix-local/merged/node-major/f32",
        "mirror4/wg32/seq1/matrix-local/merged/tiled/f64",
        "mma/wg8/seq1/field-local/merged/node-major/f64",
        "mma16/wg16/seq1/field-local/merged/node-major/f64",
        "mma16r/wg32/seq1/field-local/merged/node-major/f64",
    ] {
        let source = render(spec);
        assert!(source.source_in_store && source.has_source(), "{spec}");
        assert_eq!(source.rhs_kernels.len(), 1, "{spec}");
        assert!(source.source.contains("law_source") && source.source.contains("RESTRICT node_xy"), "{spec}");
        assert!(!source.source.contains("KERNEL void source"), "{spec}");
    }
    for spec in [
        "node/mb4/seq2/matrix-local/split/elem-major/f64",
        "elem/wg128/seq1/matrix-local/fused/node-major/f64",
        "gemm/wg128/seq1/field-local/merged/node-major/f64",
    ] {
        let source = render(spec);
        assert!(!source.source_in_store && source.has_source(), "{spec}");
        assert_eq!(source.rhs_kernels.last().map(|k| k.name), Some("source"), "{spec}");
    }
    let maxwell = dg_laws::MaxwellTm::default();
    let mir = law_ir(&maxwell).unwrap();
    let mparams = maxwell.param_values();
    let minput = dg_codegen::LawInput { ir: &mir, params: &mparams, numerical_flux: maxwell.numerical_flux_name() };
    let variant: dg_nodal_tri::Variant = "tile4/wg32/seq1/matrix-local/merged/node-major/f32".parse().unwrap();
    let plain = dg_nodal_tri::render::render_nodal_tri(&minput, &element, &variant, Target::Cuda).unwrap();
    assert!(!plain.has_source() && !plain.source_in_store && !plain.source.contains("node_xy"));
}
