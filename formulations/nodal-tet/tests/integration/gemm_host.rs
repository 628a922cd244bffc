//! The GEMM strategies on the OpenCL device (PoCL in CI), whose BLAS steps run on the host here: OpenCL has no
//! BLAS in dg, so without this the split and merged GEMM strategies — the face kernel reading the state, the
//! node-local kernel, the merged node-local and face kernel, the AB3 update without traces — would be verified on
//! CUDA alone. The generated kernels run on the device exactly as in a run; only `Step::Gemm` is computed on the
//! host (column-major, offsets and leading dimensions as cuBLAS reads them). A planted bug must make them fail.

use dg_codegen::{Precision, Target};
use dg_core::law::ConservationLaw;
use dg_core::Real;
use dg_nodal_tet::verify::verify_tet_variants;
use dg_nodal_tet::{Strategy, TetVariant};
use dg_runtime::backend::host_gemm::HostGemm;
use dg_runtime::backend::planted::{PlantedBug, PlantedDevice};
use dg_runtime::backend::{opencl_for_tests, Device};
use dg_runtime::formulation::law_ir;

/// Both GEMM strategies at two update blocks.
fn gemm_variants(precision: Precision) -> Vec<TetVariant> {
    [false, true]
        .into_iter()
        .flat_map(|merged| [1, 4].map(|update| TetVariant { strategy: Strategy::blas_gemm(merged), update, precision }))
        .collect()
}

/// Verifies the GEMM variants of `law` at `order` in `T` on `device` (with host GEMMs); (variant, passed, error).
fn check<L: ConservationLaw + Clone, T: Real>(
    device: &mut dyn Device,
    law: &L,
    order: usize,
    precision: Precision,
) -> Vec<(String, bool, f64)> {
    let ir = law_ir(law).expect("registered law");
    let mut host = HostGemm::new(device);
    let outcomes = verify_tet_variants::<L, T>(&mut host, Target::OpenCl, law, &ir, order, &gemm_variants(precision))
        .expect("verification runs");
    outcomes.into_iter().map(|o| (o.variant, o.passed, o.relative_error)).collect()
}

#[test]
fn the_gemm_strategies_match_the_cpu_on_opencl_with_host_gemms() {
    let Some((_turn, mut device)) = opencl_for_tests() else { return };
    let acoustics = dg_laws::acoustics3d::Law::default();
    let elastic = dg_laws::elastic3d::Law::default();
    // N = 1: 12 face nodes per element, the merged kernel holds 21 elements per group; N = 6: 84 nodes, 112 face
    // nodes (the face part wider than the node part), two elements per group
    let mut results = Vec::new();
    for order in [1, 6] {
        results.extend(check::<_, f64>(device.as_mut(), &acoustics, order, Precision::F64));
        results.extend(check::<_, f64>(device.as_mut(), &elastic, order, Precision::F64));
    }
    results.extend(check::<_, f32>(device.as_mut(), &elastic, 3, Precision::F32));
    assert_eq!(results.len(), 5 * 4);
    for (variant, passed, error) in &results {
        let tolerance = if variant.ends_with("f32") { 1e-5 } else { 1e-12 };
        assert!(*passed && error.is_finite() && *error < tolerance, "{variant}: passed {passed}, error {error:e}");
    }
}

#[test]
fn a_planted_bug_fails_the_gemm_strategies() {
    let Some((_turn, mut device)) = opencl_for_tests() else { return };
    let law = dg_laws::acoustics3d::Law::default();
    for bug in [PlantedBug::SkipLastGroup, PlantedBug::WrongStride("LDQ".into())] {
        let mut planted = PlantedDevice::new(device.as_mut(), bug.clone());
        let results = check::<_, f64>(&mut planted, &law, 2, Precision::F64);
        assert_eq!(results.len(), 4);
        for (variant, passed, error) in results {
            assert!(!passed, "{variant} passed with {bug:?} planted (error {error:e})");
        }
    }
}

#[test]
fn a_run_of_a_winner_built_on_no_library_never_asks_for_the_blas() {
    use dg_nodal_tet::device::TetDeviceOperator;
    use dg_runtime::cpu::BoundaryBinding;
    use dg_runtime::formulation::{Formulation, TimedOperation, TuneTarget};
    let Some((_turn, mut device)) = opencl_for_tests() else { return };
    let law = dg_laws::acoustics3d::Law::default();
    let baseline = dg_nodal_tet::tuning::NodalTet.default_variant(Precision::F64);
    // a device with a BLAS, counting the questions that load cuBLAS on CUDA: the run's kernel choice (its tuner,
    // the stored winner accepted) and its operator ask nothing for a winner built on no library
    let mut host = HostGemm::new(device.as_mut());
    let target = TuneTarget { order: 2, precision: Precision::F64, timing_dofs: 0, operation: TimedOperation::Unit };
    let mut tuner = dg_nodal_tet::tuning::NodalTet.tuner::<_, f64>(&law, &mut host, target).expect("tuner");
    assert!(tuner.accepts(&mut host, &baseline), "{baseline}");
    assert!(!tuner.accepts(&mut host, "not/a/variant"));
    let space = dg_nodal_tet::verify::verification_space(2).expect("space");
    let binding =
        BoundaryBinding::for_law_on_tets(&law, &space, &dg_nodal_tet::verify::every_condition(&law)).expect("binding");
    let materials = vec![1.0; space.num_elements() * <dg_laws::acoustics3d::Law as ConservationLaw>::NMATERIALS];
    let ir = law_ir(&law).expect("registered law");
    let params = law.param_values();
    let call = (&ir, params.as_slice(), law.numerical_flux_name());
    let variant: TetVariant = baseline.parse().expect("variant");
    let op = TetDeviceOperator::<f64>::for_variant(
        &mut host,
        Target::OpenCl,
        call,
        &space,
        &binding,
        &materials,
        Some(&variant),
    )
    .expect("operator");
    assert!(!op.has_gemm());
    assert_eq!(host.library_probes(), 0, "the BLAS was asked for a run built on no library");
    // a GEMM winner's operator asks, and so does the operator every strategy shares
    let gemm = gemm_variants(Precision::F64).remove(0);
    let op = TetDeviceOperator::<f64>::for_variant(
        &mut host,
        Target::OpenCl,
        call,
        &space,
        &binding,
        &materials,
        Some(&gemm),
    )
    .expect("operator");
    assert!(op.has_gemm());
    assert_eq!(host.library_probes(), 1);
    TetDeviceOperator::<f64>::new(&mut host, Target::OpenCl, call, &space, &binding, &materials).expect("operator");
    assert_eq!(host.library_probes(), 2);
}
