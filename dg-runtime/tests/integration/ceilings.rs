//! The ceilings' measurement on the OpenCL device (PoCL in CI): every kernel of it compiles and runs, and every
//! ceiling comes out finite and positive, the bandwidth counting the bytes the best of its three access patterns
//! moved. (The CUDA text of the same kernels is compiled on a GPU only.) The device builds them optimised: they are
//! timed, and PoCL runs them ten times slower without its optimiser.

use dg_runtime::backend::optimised_opencl_for_tests;

#[test]
fn the_ceilings_are_measured_on_opencl() {
    let Some((_turn, mut device)) = optimised_opencl_for_tests() else { return };
    let c = dg_runtime::ceilings::measure(device.as_mut()).expect("the ceilings are measured");
    let mut measured = vec![("bandwidth", c.bandwidth_gbs), ("f32 FMA", c.gflops_f32)];
    if device.supports_f64() {
        measured.push(("f64 FMA", c.gflops_f64));
    }
    for (name, value) in measured {
        assert!(value.is_finite() && value > 0.0, "{name}: {value}");
    }
    // no BLAS and no tensor cores on OpenCL: those ceilings are absent, not zero
    assert!(c.gemm_gflops_f32.is_none() && c.mma_tf32_gflops.is_none(), "{c:?}");
}
