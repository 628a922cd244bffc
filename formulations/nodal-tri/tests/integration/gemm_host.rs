//! The GEMM partition on the OpenCL device (PoCL in CI), its library products computed on the host
//! ([`HostGemm`]): the generated flux kernel runs on the device exactly as in a run, the products read its output
//! with the offsets and leading dimensions cuBLAS is given, and the right-hand side is compared with the CPU
//! operator (random states, outputs and the operand poisoned with NaN, the launch also split in two element
//! ranges). Without a BLAS the rules refuse the partition with a reason; a planted bug must make it fail.

use dg_codegen::{Precision, Target};
use dg_core::law::ConservationLaw;
use dg_core::Real;
use dg_nodal_tri::variant::{DeviceLimits, LawShape, Partition, Variant};
use dg_nodal_tri::verify::verify_at_order;
use dg_runtime::backend::host_gemm::HostGemm;
use dg_runtime::backend::planted::{PlantedBug, PlantedDevice};
use dg_runtime::backend::{opencl_for_tests, Device};
use dg_runtime::formulation::{Formulation, TimedOperation, TuneTarget};

/// The GEMM variants of one precision (every group size the variant space lists).
fn gemm_variants(precision: Precision) -> Vec<Variant> {
    let all: Vec<Variant> = Variant::all(precision).into_iter().filter(|v| v.partition == Partition::Gemm).collect();
    assert_eq!(all.len(), 2, "wg32 and wg128");
    all
}

/// Verifies the GEMM variants of `law` at `order` in `T` on `device`, its products on the host; (variant, passed,
/// relative error, failure).
fn check<L: ConservationLaw + Clone, T: Real>(
    device: &mut dyn Device,
    law: &L,
    order: usize,
    precision: Precision,
) -> Vec<(String, bool, f64, Option<String>)> {
    let mut host = HostGemm::new(device);
    let outcomes = verify_at_order::<L, T>(&mut host, Target::OpenCl, law, order, &gemm_variants(precision))
        .expect("verification runs");
    outcomes.into_iter().map(|o| (o.variant, o.passed, o.relative_error, o.error)).collect()
}

#[test]
fn the_gemm_partition_matches_the_cpu_on_opencl_with_host_gemms() {
    let Some((_turn, mut device)) = opencl_for_tests() else { return };
    let maxwell = dg_laws::MaxwellTm::default();
    let euler = dg_laws::euler2d::Law::default();
    let mut results = Vec::new();
    // N = 1 and 8 for the linear law (materials that jump across faces), N = 4 for Euler (nonlinear flux, its
    // boundary conditions on the mesh's sides), f32 at N = 3
    for order in [1, 8] {
        results.extend(check::<_, f64>(device.as_mut(), &maxwell, order, Precision::F64));
    }
    results.extend(check::<_, f64>(device.as_mut(), &euler, 4, Precision::F64));
    results.extend(check::<_, f32>(device.as_mut(), &euler, 3, Precision::F32));
    results.extend(check::<_, f32>(device.as_mut(), &maxwell, 3, Precision::F32));
    assert_eq!(results.len(), 5 * 2);
    for (variant, passed, error, failure) in &results {
        let tolerance = if variant.ends_with("f32") { 1e-5 } else { 1e-12 };
        assert!(*passed && error.is_finite() && *error < tolerance, "{variant}: error {error:e}, {failure:?}");
    }
}

#[test]
fn a_planted_bug_fails_the_gemm_partition() {
    let Some((_turn, mut device)) = opencl_for_tests() else { return };
    let law = dg_laws::MaxwellTm::default();
    // the operand's columns one fewer than the products read (a stride), the last group or element unwritten
    let bugs =
        [PlantedBug::WrongStride("NFACE_NODES".into()), PlantedBug::SkipLastGroup, PlantedBug::LastElementUnwritten];
    for bug in bugs {
        let mut planted = PlantedDevice::new(device.as_mut(), bug.clone());
        let results = check::<_, f64>(&mut planted, &law, 2, Precision::F64);
        assert_eq!(results.len(), 2);
        for (variant, passed, error, _) in results {
            assert!(!passed, "{variant} passed with {bug:?} planted (error {error:e})");
        }
    }
}

#[test]
fn without_a_blas_the_rules_refuse_the_gemm_partition_with_a_reason() {
    let shape = LawShape { nvars: 3, linear_flux: true, divergence_products: 3, shared_gradients: 0, materials: 2 };
    let with = DeviceLimits { blas: true, ..DeviceLimits::default() };
    for variant in gemm_variants(Precision::F64) {
        assert!(variant.check(5, &shape, &with).is_ok(), "{variant}");
        let err = variant.check(5, &shape, &DeviceLimits::default()).unwrap_err().to_string();
        assert!(err.contains("needs a BLAS"), "{variant}: {err}");
    }
    for (spec, reason) in [
        ("gemm/wg32/seq1/matrix-local/merged/node-major/f64", "field-local"),
        ("gemm/wg32/seq1/field-local/split/node-major/f64", "merged"),
        ("gemm/wg32/seq2/field-local/merged/node-major/f64", "seq1"),
        ("gemm/wg32/seq1/field-local/merged/elem-major/f64", "node-major"),
    ] {
        let err = spec.parse::<Variant>().unwrap().check(5, &shape, &with).unwrap_err().to_string();
        assert!(err.contains(reason), "{spec}: {err}");
    }
}

#[test]
fn a_stored_winner_built_on_no_library_is_accepted_without_asking_for_the_blas() {
    let Some((_turn, mut device)) = opencl_for_tests() else { return };
    let law = dg_laws::MaxwellTm::default();
    let target = TuneTarget { order: 3, precision: Precision::F64, timing_dofs: 0, operation: TimedOperation::Unit };
    let baseline = dg_nodal_tri::tuning::seed_baseline(Precision::F64).to_string();
    let gemm: Vec<String> = gemm_variants(Precision::F64).iter().map(Variant::to_string).collect();
    // a device with a BLAS (its products on the host), counting the questions that load cuBLAS on CUDA
    let mut host = HostGemm::new(device.as_mut());
    let mut tuner = dg_nodal_tri::NodalTri.tuner::<_, f64>(&law, &mut host, target).expect("tuner");
    assert!(tuner.accepts(&mut host, &baseline), "{baseline}");
    assert!(!tuner.accepts(&mut host, "not/a/variant"));
    assert_eq!(host.library_probes(), 0, "the BLAS was asked for a winner built on no library");
    assert!(tuner.accepts(&mut host, &gemm[0]), "{}", gemm[0]);
    let candidates = tuner.candidates(&mut host);
    assert_eq!(host.library_probes(), 1, "asked once");
    for spec in gemm.iter().chain([&baseline]) {
        assert!(candidates.contains(spec), "{spec} missing from {candidates:?}");
    }
    // the same device without one: the GEMM variants are neither accepted nor candidates
    let mut tuner = dg_nodal_tri::NodalTri.tuner::<_, f64>(&law, device.as_mut(), target).expect("tuner");
    assert!(tuner.accepts(device.as_mut(), &baseline));
    assert!(!tuner.accepts(device.as_mut(), &gemm[0]));
    let candidates = tuner.candidates(device.as_mut());
    assert!(candidates.contains(&baseline) && gemm.iter().all(|g| !candidates.contains(g)), "{candidates:?}");
}
