//! Compute devices: one backend per folder (CUDA through cudarc + NVRTC, OpenCL through opencl3), behind one
//! object-safe trait, and discovery with fingerprints.

pub mod cuda;
pub mod discovery;
pub mod host_gemm;
pub mod opencl;
pub mod planted;

pub use discovery::{discover, open, opencl_for_tests, optimised_opencl_for_tests, DeviceFingerprint, DeviceSelector};

/// A failure of a device call, naming the backend and the call.
#[derive(Debug, thiserror::Error)]
pub enum BackendError {
    /// The backend's library or device is not available.
    #[error("{backend} is not available: {message}")]
    Unavailable {
        /// `cuda` or `opencl`.
        backend: &'static str,
        /// Why.
        message: String,
    },
    /// A call failed.
    #[error("{backend} call `{call}` failed: {message}")]
    Call {
        /// `cuda` or `opencl`.
        backend: &'static str,
        /// The call.
        call: &'static str,
        /// The error.
        message: String,
    },
    /// The kernel program did not compile; the log is attached.
    #[error("{backend} compilation failed:\n{log}")]
    Compile {
        /// `cuda` or `opencl`.
        backend: &'static str,
        /// Compiler log.
        log: String,
    },
    /// No device matches the selector.
    #[error("no device `{0}`; `dg devices` lists them")]
    NoSuchDevice(String),
}

/// A device buffer handle (index into the backend's buffers).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BufferId(pub usize);

/// A compiled program handle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProgramId(pub usize);

/// A kernel argument.
#[derive(Debug, Clone, Copy)]
pub enum Arg {
    /// A device buffer.
    Buffer(BufferId),
    /// A 32-bit integer.
    I32(i32),
    /// A single-precision scalar.
    F32(f32),
    /// A double-precision scalar.
    F64(f64),
}

impl Arg {
    /// `value` as a scalar of the kernels' real type `T` (rounded to f32 for f32 kernels).
    pub fn real<T: dg_core::Real>(value: f64) -> Arg {
        if T::NAME == "f32" {
            Arg::F32(value as f32)
        } else {
            Arg::F64(value)
        }
    }

    /// The arguments of the generated `lincomb` kernel, y ← a·y + Σ cᵢ·xᵢ over `n` values for at most three terms
    /// (a missing term is y with coefficient 0): y, x₁, x₂, x₃, a, c₁, c₂, c₃, n, the scalars in `T`.
    pub fn lincomb<T: dg_core::Real>(y: BufferId, a: f64, terms: &[(f64, BufferId)], n: usize) -> Vec<Arg> {
        debug_assert!(terms.len() <= 3, "the lincomb kernel takes three terms (step_system::lincomb_chunks)");
        let term = |i: usize| terms.get(i).copied().unwrap_or((0.0, y));
        let mut args = vec![Arg::Buffer(y)];
        args.extend((0..3).map(|i| Arg::Buffer(term(i).1)));
        args.push(Arg::real::<T>(a));
        args.extend((0..3).map(|i| Arg::real::<T>(term(i).0)));
        args.push(Arg::I32(n as i32));
        args
    }
}

/// One kernel launch: 1D, `groups` work groups of `local` work items.
#[derive(Debug, Clone)]
pub struct Launch {
    /// Kernel function name.
    pub kernel: String,
    /// Work groups.
    pub groups: usize,
    /// Work items per group.
    pub local: usize,
    /// Arguments.
    pub args: Vec<Arg>,
}

/// A GEMM C ← α·A·B + β·C on device buffers, column-major (BLAS convention), in the device's real type.
#[derive(Debug, Clone, Copy)]
pub struct Gemm {
    /// Double (else single) precision.
    pub double: bool,
    /// Rows of A and C.
    pub m: usize,
    /// Columns of B and C.
    pub n: usize,
    /// Columns of A, rows of B.
    pub k: usize,
    /// α.
    pub alpha: f64,
    /// A.
    pub a: GemmOperand,
    /// B.
    pub b: GemmOperand,
    /// β.
    pub beta: f64,
    /// C.
    pub c: GemmOperand,
}

/// A matrix inside a device buffer: the buffer, the offset of its first entry (in values), its leading dimension.
#[derive(Debug, Clone, Copy)]
pub struct GemmOperand {
    /// The buffer.
    pub buffer: BufferId,
    /// Offset of the first entry, in values.
    pub offset: usize,
    /// Leading dimension (column stride), in values.
    pub ld: usize,
}

/// The same-shaped matrix at `batch` equally spaced places of a buffer (column-major, BLAS convention).
#[derive(Debug, Clone, Copy)]
pub struct BatchedOperand {
    /// The buffer.
    pub buffer: BufferId,
    /// Offset of the first matrix's first entry, in values.
    pub offset: usize,
    /// Leading dimension (column stride), in values.
    pub ld: usize,
    /// Distance from one matrix to the next, in values.
    pub stride: usize,
}

/// A library routine over a batch of small matrices (cuBLAS's batched routines on CUDA), in double or single
/// precision.
#[derive(Debug, Clone, Copy)]
pub enum BatchedBlas {
    /// C_i ← α A_i B_i + β C_i for every i (strided batched GEMM): A_i m × k, B_i k × n, C_i m × n.
    Gemm {
        /// Double (else single) precision.
        double: bool,
        /// Rows of A_i and C_i.
        m: usize,
        /// Columns of B_i and C_i.
        n: usize,
        /// Columns of A_i, rows of B_i.
        k: usize,
        /// α.
        alpha: f64,
        /// The A_i.
        a: BatchedOperand,
        /// The B_i.
        b: BatchedOperand,
        /// β.
        beta: f64,
        /// The C_i.
        c: BatchedOperand,
        /// Matrices.
        batch: usize,
    },
    /// A_i = L_i U_i in place, without pivoting (L_i unit lower triangular): `info` receives one 32-bit integer per
    /// matrix, non-zero where a pivot was zero.
    LuFactor {
        /// Double (else single) precision.
        double: bool,
        /// Order of the A_i.
        n: usize,
        /// The A_i, overwritten by their factors.
        a: BatchedOperand,
        /// Matrices.
        batch: usize,
        /// `batch` 32-bit integers.
        info: BufferId,
    },
    /// B_i ← U_i⁻¹ L_i⁻¹ B_i with the factors [`BatchedBlas::LuFactor`] left: two triangular solves.
    LuSolve {
        /// Double (else single) precision.
        double: bool,
        /// Order of the factors.
        n: usize,
        /// Columns of the B_i.
        nrhs: usize,
        /// The factors.
        lu: BatchedOperand,
        /// The right-hand sides, overwritten by the solutions.
        b: BatchedOperand,
        /// Matrices.
        batch: usize,
    },
}

/// One step of a device sequence: a kernel launch or a library routine.
#[derive(Debug, Clone)]
pub enum Step {
    /// A generated kernel.
    Kernel(Launch),
    /// A BLAS GEMM.
    Gemm(Gemm),
    /// A batched library routine.
    Batched(BatchedBlas),
}

/// What a compute device offers.
pub trait Device {
    /// Identity of the device.
    fn fingerprint(&self) -> &DeviceFingerprint;
    /// Compiles many programs ahead of use, in parallel where the backend can (NVRTC); later `compile` calls
    /// of the same sources are then fast. The default does nothing.
    fn prepare(&mut self, sources: &[String]) {
        let _ = sources;
    }
    /// Compiles a program (cached by the backend where it can).
    fn compile(&mut self, source: &str, kernels: &[String]) -> Result<ProgramId, BackendError>;
    /// Allocates `bytes` of device memory.
    fn alloc(&mut self, bytes: usize) -> Result<BufferId, BackendError>;
    /// Allocates `bytes` of device memory filled with zero bytes. The default uploads zeros; backends that
    /// clear on the device override it.
    fn alloc_zeroed(&mut self, bytes: usize) -> Result<BufferId, BackendError> {
        let id = self.alloc(bytes)?;
        self.upload(id, &vec![0u8; bytes])?;
        Ok(id)
    }
    /// Copies host bytes to a buffer.
    fn upload(&mut self, buffer: BufferId, data: &[u8]) -> Result<(), BackendError>;
    /// Copies a buffer to host bytes (waits for the device).
    fn download(&mut self, buffer: BufferId, data: &mut [u8]) -> Result<(), BackendError>;
    /// Copies `data.len()` bytes of a buffer from byte `offset` on (waits for the device). The default downloads
    /// the buffer up to the range's end and keeps the range; backends override it with a copy of the range alone.
    fn download_range(&mut self, buffer: BufferId, offset: usize, data: &mut [u8]) -> Result<(), BackendError> {
        let end = range_end("device", "download_range", offset, data.len())?;
        let mut head = vec![0u8; end];
        self.download(buffer, &mut head)?;
        data.copy_from_slice(&head[offset..]);
        Ok(())
    }
    /// Copies host bytes into a buffer from byte `offset` on (ordered after the work submitted before it). The
    /// default downloads the buffer up to the range's end, patches it and uploads it again; backends override it
    /// with a copy of the range alone.
    fn upload_range(&mut self, buffer: BufferId, offset: usize, data: &[u8]) -> Result<(), BackendError> {
        let end = range_end("device", "upload_range", offset, data.len())?;
        let mut head = vec![0u8; end];
        self.download(buffer, &mut head)?;
        head[offset..].copy_from_slice(data);
        self.upload(buffer, &head)
    }
    /// Copies the first `bytes` of buffer `source` into buffer `target` (another buffer) on the device, ordered
    /// after the work submitted before it; the host does not wait.
    fn copy_buffer(&mut self, source: BufferId, target: BufferId, bytes: usize) -> Result<(), BackendError>;
    /// Releases every buffer (programs stay).
    fn free_buffers(&mut self);
    /// The size of a buffer in bytes (`None` for an unknown buffer).
    fn buffer_bytes(&self, buffer: BufferId) -> Option<usize>;
    /// Runs launches in order; returns the device time of each repetition of the whole sequence, in seconds,
    /// measured with device events (`repeats` ≥ 1).
    fn run(&mut self, program: ProgramId, launches: &[Launch], repeats: usize) -> Result<Vec<f64>, BackendError>;
    /// Whether [`Step::Gemm`] and [`Step::Batched`] run here (cuBLAS on CUDA); the strategies built on them are
    /// absent where they do not.
    fn supports_gemm(&mut self) -> bool {
        false
    }
    /// The library routine chosen for each GEMM shape run so far, in words (cuBLAS or a cublasLt algorithm,
    /// with the times that chose it); empty where GEMMs do not run or none has.
    fn gemm_routines(&self) -> Vec<String> {
        Vec::new()
    }
    /// Like [`Device::run`] for a sequence that may hold GEMMs. The default runs kernel-only sequences and
    /// refuses GEMMs.
    fn run_steps(&mut self, program: ProgramId, steps: &[Step], repeats: usize) -> Result<Vec<f64>, BackendError> {
        let launches = steps
            .iter()
            .map(|s| match s {
                Step::Kernel(l) => Ok(l.clone()),
                Step::Gemm(_) | Step::Batched(_) => Err(BackendError::Unavailable {
                    backend: "blas",
                    message: "this backend offers no BLAS (GEMM and batched steps run on CUDA with cuBLAS)".into(),
                }),
            })
            .collect::<Result<Vec<_>, _>>()?;
        self.run(program, &launches, repeats)
    }
    /// Enqueues `steps` without waiting for them: the time loop's path, so that the host prepares the next
    /// stage while the device runs this one and nothing synchronises until a value is read back. Returns the
    /// device seconds known at once (backends that time synchronously); the rest is handed out by
    /// [`Device::settle`]. The default runs the steps at once with [`Device::run_steps`].
    fn submit(&mut self, program: ProgramId, steps: &[Step]) -> Result<f64, BackendError> {
        Ok(self.run_steps(program, steps, 1)?.iter().sum())
    }
    /// Waits for everything submitted and returns the device seconds of the submissions not yet reported by
    /// [`Device::submit`] or an earlier `settle`. The default has nothing pending.
    fn settle(&mut self) -> Result<f64, BackendError> {
        Ok(0.0)
    }
    /// Makes the transfer lane wait for everything submitted so far (a halo exchange's packing reads the state the
    /// last update wrote). Backends with one in-order queue order everything already; the default does nothing.
    fn transfer_after_compute(&mut self) -> Result<(), BackendError> {
        Ok(())
    }
    /// Enqueues `steps` on the transfer lane: on CUDA a second stream, so that halo packing and copies overlap the
    /// kernels submitted with [`Device::submit`]. The default submits them in order with everything else.
    fn submit_transfer(&mut self, program: ProgramId, steps: &[Step]) -> Result<(), BackendError> {
        self.submit(program, steps).map(|_| ())
    }
    /// Copies a buffer to host bytes on the transfer lane, waiting for that lane only. The default waits for
    /// everything ([`Device::download`]).
    fn download_transfer(&mut self, buffer: BufferId, data: &mut [u8]) -> Result<(), BackendError> {
        self.download(buffer, data)
    }
    /// Copies host bytes to a buffer on the transfer lane. The default is [`Device::upload`].
    fn upload_transfer(&mut self, buffer: BufferId, data: &[u8]) -> Result<(), BackendError> {
        self.upload(buffer, data)
    }
    /// Makes work submitted later with [`Device::submit`] wait for everything on the transfer lane so far (the
    /// halo faces' kernels read what the exchange unpacked). The default does nothing.
    fn compute_after_transfer(&mut self) -> Result<(), BackendError> {
        Ok(())
    }
    /// Whether this device can join a device-to-device link between ranks ([`Device::peer_join`]).
    fn peer_link_available(&self) -> bool {
        false
    }
    /// The identity of a new device-to-device link between the ranks' devices (NCCL on CUDA), created by rank 0
    /// and handed to every rank for [`Device::peer_join`]. The default has no such link.
    fn peer_id(&mut self) -> Result<Vec<u8>, BackendError> {
        Err(no_peer_link())
    }
    /// Joins the link `id` as rank `rank` of `ranks` (every rank calls this together).
    fn peer_join(&mut self, rank: usize, ranks: usize, id: &[u8]) -> Result<(), BackendError> {
        let _ = (rank, ranks, id);
        Err(no_peer_link())
    }
    /// Enqueues on the transfer lane, device to device over the joined link: each `(rank, bytes)` of `sends` from
    /// buffer `send` to that rank, and each `(rank, bytes)` of `receives` from that rank into buffer `receive`
    /// (later transfer-lane work starts once all have arrived).
    fn peer_exchange(
        &mut self,
        send: BufferId,
        sends: &[(usize, std::ops::Range<usize>)],
        receive: BufferId,
        receives: &[(usize, std::ops::Range<usize>)],
    ) -> Result<(), BackendError> {
        let _ = (send, sends, receive, receives);
        Err(no_peer_link())
    }
    /// The largest work group `kernel` of `program` can be launched with (registers limit it on GPUs).
    fn kernel_max_work_group(&self, program: ProgramId, kernel: &str) -> Option<usize>;
    /// Local memory per work group, bytes.
    fn local_memory(&self) -> usize;
    /// Largest work-group size.
    fn max_work_group(&self) -> usize;
    /// Whether double precision is supported.
    fn supports_f64(&self) -> bool;
    /// Whether generated kernels may use the tensor-core instructions `mma.sync.m8n8k4` with double operands and
    /// `mma.sync.m16n8k8` with tf32 operands (CUDA on compute capability 8.0 and later). The default: no.
    fn supports_tensor_cores(&self) -> bool {
        false
    }
    /// Whether generated kernels may use the f64 tensor-core shapes of compute capability 9.0 (`mma.sync`
    /// `m16n8k4` and larger with double operands). The default: no.
    fn supports_f64_mma_m16(&self) -> bool {
        false
    }
    /// Whether generated kernels may copy from global to local memory asynchronously (`cp.async`, CUDA on compute
    /// capability 8.0 and later; OpenCL kernels copy through registers instead). The default: yes.
    fn supports_async_copies(&self) -> bool {
        true
    }
    /// Why the device can no longer run anything in this process, if an earlier failure left it so: a CUDA kernel
    /// that faults (an illegal address, say) poisons its context, and every later call fails with the same error.
    /// `None` while it works. The default: `None` (a failure stays with the call that failed).
    fn lost(&mut self) -> Option<String> {
        None
    }
}

/// What the variant rules of every formulation need to know of `device`, its BLAS not probed (`blas: false`:
/// loading cuBLAS costs a run's start-up time): the rules then refuse variants built on library GEMMs.
/// [`limits_with_blas`] where such variants may be chosen (tuning, verification, a run asking for one).
pub fn limits_of(device: &dyn Device) -> dg_codegen::DeviceLimits {
    dg_codegen::DeviceLimits {
        local_memory: device.local_memory(),
        max_work_group: device.max_work_group(),
        tensor_cores: device.supports_tensor_cores(),
        f64_mma_m16: device.supports_f64_mma_m16(),
        blas: false,
        async_copies: device.supports_async_copies(),
    }
}

/// [`limits_of`] with the device's BLAS probed ([`Device::supports_gemm`], which loads cuBLAS on CUDA).
pub fn limits_with_blas(device: &mut dyn Device) -> dg_codegen::DeviceLimits {
    let blas = device.supports_gemm();
    dg_codegen::DeviceLimits { blas, ..limits_of(device) }
}

/// The error of a backend without a device-to-device link between ranks.
fn no_peer_link() -> BackendError {
    BackendError::Unavailable {
        backend: "nccl",
        message: "this backend has no device-to-device link between ranks".into(),
    }
}

/// Kernel launches as device sequence steps.
pub fn kernels(launches: Vec<Launch>) -> Vec<Step> {
    launches.into_iter().map(Step::Kernel).collect()
}

/// Allocates a buffer holding `values` (one `pad` value when `values` is empty: a zero-length buffer is not
/// allowed everywhere).
pub fn upload_values<V: Copy>(device: &mut dyn Device, values: &[V], pad: V) -> Result<BufferId, BackendError> {
    let padded;
    let values = if values.is_empty() {
        padded = [pad];
        &padded[..]
    } else {
        values
    };
    let id = device.alloc(std::mem::size_of_val(values))?;
    device.upload(id, as_bytes(values))?;
    Ok(id)
}

/// The end of the `len` bytes from byte `offset` of a range transfer, or the error of `backend`'s `call` where it
/// overflows.
pub fn range_end(backend: &'static str, call: &'static str, offset: usize, len: usize) -> Result<usize, BackendError> {
    offset.checked_add(len).ok_or_else(|| BackendError::Call {
        backend,
        call,
        message: "the range's end overflows".into(),
    })
}

/// Bytes of a slice of plain numbers.
pub fn as_bytes<T: Copy>(values: &[T]) -> &[u8] {
    // SAFETY: T is a plain number type (f32, f64, i32); any byte pattern of it is valid to read as u8.
    unsafe { std::slice::from_raw_parts(values.as_ptr().cast::<u8>(), std::mem::size_of_val(values)) }
}

/// Bytes of a mutable slice of plain numbers.
pub fn as_bytes_mut<T: Copy>(values: &mut [T]) -> &mut [u8] {
    // SAFETY: as above; every byte pattern written is a valid f32/f64/i32.
    unsafe { std::slice::from_raw_parts_mut(values.as_mut_ptr().cast::<u8>(), std::mem::size_of_val(values)) }
}
