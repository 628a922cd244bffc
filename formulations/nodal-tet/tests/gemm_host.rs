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
use dg_runtime::backend::planted::{PlantedBug, PlantedDevice};
use dg_runtime::backend::{
    as_bytes, as_bytes_mut, opencl_for_tests, BackendError, BufferId, Device, DeviceFingerprint, Gemm, Launch,
    ProgramId, Step,
};
use dg_runtime::formulation::law_ir;

/// A device whose GEMM steps run on the host: everything else goes to `inner`.
struct HostGemm<'a> {
    inner: &'a mut dyn Device,
}

impl HostGemm<'_> {
    fn gemm(&mut self, g: &Gemm) -> Result<(), BackendError> {
        if g.double {
            self.gemm_in::<f64>(g)
        } else {
            self.gemm_in::<f32>(g)
        }
    }

    /// C ← α·A·B + β·C, every operand read back from the device and C written back.
    fn gemm_in<T: Real>(&mut self, g: &Gemm) -> Result<(), BackendError> {
        let mut read = |buffer: BufferId| -> Result<Vec<T>, BackendError> {
            let bytes = self.inner.buffer_bytes(buffer).unwrap_or(0);
            let mut values = vec![T::zero(); bytes / std::mem::size_of::<T>()];
            self.inner.download(buffer, as_bytes_mut(&mut values))?;
            Ok(values)
        };
        let (a, b, mut c) = (read(g.a.buffer)?, read(g.b.buffer)?, read(g.c.buffer)?);
        for j in 0..g.n {
            for i in 0..g.m {
                let sum: f64 = (0..g.k)
                    .map(|l| a[g.a.offset + i + l * g.a.ld].as_f64() * b[g.b.offset + l + j * g.b.ld].as_f64())
                    .sum();
                let at = g.c.offset + i + j * g.c.ld;
                // β = 0 never reads C (cuBLAS's rule: a NaN there must not survive)
                let old = if g.beta == 0.0 { 0.0 } else { g.beta * c[at].as_f64() };
                c[at] = T::from_f64(g.alpha * sum + old);
            }
        }
        self.inner.upload(g.c.buffer, as_bytes(&c))
    }

    fn steps(&mut self, program: ProgramId, steps: &[Step]) -> Result<f64, BackendError> {
        let mut seconds = 0.0;
        for step in steps {
            match step {
                Step::Kernel(launch) => seconds += self.inner.run(program, std::slice::from_ref(launch), 1)?[0],
                Step::Gemm(g) => self.gemm(g)?,
                Step::Batched(_) => {
                    let message = "no batched BLAS in this test device".into();
                    return Err(BackendError::Unavailable { backend: "blas", message });
                }
            }
        }
        Ok(seconds)
    }
}

impl Device for HostGemm<'_> {
    fn fingerprint(&self) -> &DeviceFingerprint {
        self.inner.fingerprint()
    }
    fn compile(&mut self, source: &str, kernels: &[String]) -> Result<ProgramId, BackendError> {
        self.inner.compile(source, kernels)
    }
    fn alloc(&mut self, bytes: usize) -> Result<BufferId, BackendError> {
        self.inner.alloc(bytes)
    }
    fn upload(&mut self, buffer: BufferId, data: &[u8]) -> Result<(), BackendError> {
        self.inner.upload(buffer, data)
    }
    fn download(&mut self, buffer: BufferId, data: &mut [u8]) -> Result<(), BackendError> {
        self.inner.download(buffer, data)
    }
    fn free_buffers(&mut self) {
        self.inner.free_buffers()
    }
    fn buffer_bytes(&self, buffer: BufferId) -> Option<usize> {
        self.inner.buffer_bytes(buffer)
    }
    fn run(&mut self, program: ProgramId, launches: &[Launch], repeats: usize) -> Result<Vec<f64>, BackendError> {
        self.inner.run(program, launches, repeats)
    }
    fn supports_gemm(&mut self) -> bool {
        true
    }
    fn run_steps(&mut self, program: ProgramId, steps: &[Step], repeats: usize) -> Result<Vec<f64>, BackendError> {
        (0..repeats).map(|_| self.steps(program, steps)).collect()
    }
    fn submit(&mut self, program: ProgramId, steps: &[Step]) -> Result<f64, BackendError> {
        self.steps(program, steps)
    }
    fn kernel_max_work_group(&self, program: ProgramId, kernel: &str) -> Option<usize> {
        self.inner.kernel_max_work_group(program, kernel)
    }
    fn local_memory(&self) -> usize {
        self.inner.local_memory()
    }
    fn max_work_group(&self) -> usize {
        self.inner.max_work_group()
    }
    fn supports_f64(&self) -> bool {
        self.inner.supports_f64()
    }
}

/// Both GEMM strategies at two update blocks.
fn gemm_variants(precision: Precision) -> Vec<TetVariant> {
    [false, true]
        .into_iter()
        .flat_map(|merged| [1, 4].map(|update| TetVariant { strategy: Strategy::Gemm { merged }, update, precision }))
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
    let mut host = HostGemm { inner: device };
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
