//! A device whose GEMM steps run on the host: the GEMM strategies' generated kernels run on an OpenCL device (PoCL
//! in CI) exactly as in a run, and only `Step::Gemm` is computed on the host, column-major, offsets and leading
//! dimensions as cuBLAS reads them. OpenCL has no BLAS in dg; without this those strategies would be verified on
//! CUDA alone. For tests and verification, not for speed (every operand is read back for each product).

use super::{as_bytes, as_bytes_mut, BackendError, BufferId, Device, DeviceFingerprint, Gemm, Launch, ProgramId, Step};
use dg_core::Real;

/// A device whose GEMM steps run on the host: everything else goes to `inner`.
pub struct HostGemm<'a> {
    /// The device everything but the GEMMs runs on.
    pub inner: &'a mut dyn Device,
    /// How many times it was asked whether it has a BLAS ([`Device::supports_gemm`], which loads cuBLAS on CUDA).
    library_probes: usize,
}

impl<'a> HostGemm<'a> {
    /// GEMM steps on the host, everything else on `inner`.
    pub fn new(inner: &'a mut dyn Device) -> Self {
        Self { inner, library_probes: 0 }
    }

    /// How many times it was asked whether it has a BLAS: what loads cuBLAS on a CUDA device.
    pub fn library_probes(&self) -> usize {
        self.library_probes
    }

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
    fn copy_buffer(&mut self, source: BufferId, target: BufferId, bytes: usize) -> Result<(), BackendError> {
        self.inner.copy_buffer(source, target, bytes)
    }
    fn download_range(&mut self, buffer: BufferId, offset: usize, data: &mut [u8]) -> Result<(), BackendError> {
        self.inner.download_range(buffer, offset, data)
    }
    fn upload_range(&mut self, buffer: BufferId, offset: usize, data: &[u8]) -> Result<(), BackendError> {
        self.inner.upload_range(buffer, offset, data)
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
        self.library_probes += 1;
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
