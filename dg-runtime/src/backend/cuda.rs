//! CUDA through cudarc: the driver and NVRTC are loaded at run time, and their presence is checked before any
//! call, so a machine without them gets an error value, never a panic.

mod batched;
mod gemm;

use super::{Arg, BackendError, BufferId, Device, DeviceFingerprint, Launch, ProgramId, Step};
use cudarc::driver::sys::{CUdevice_attribute, CUevent_flags};
use cudarc::driver::{CudaContext, CudaEvent, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use std::collections::HashMap;
use std::sync::Arc;

const NAME: &str = "cuda";

fn call<E: std::fmt::Debug>(call: &'static str) -> impl Fn(E) -> BackendError {
    move |e| BackendError::Call { backend: NAME, call, message: format!("{e:?}") }
}

/// Whether the CUDA driver and NVRTC libraries can be loaded.
pub fn libraries_present() -> bool {
    // SAFETY: these only try to dlopen the libraries.
    unsafe { cudarc::driver::sys::is_culib_present() && cudarc::nvrtc::sys::is_culib_present() }
}

/// Every CUDA device, with fingerprints; an `Unavailable` error when the libraries or devices are missing.
pub fn enumerate() -> Result<Vec<DeviceFingerprint>, BackendError> {
    if !libraries_present() {
        return Err(BackendError::Unavailable { backend: NAME, message: "libcuda or libnvrtc not found".into() });
    }
    use cudarc::driver::result::{self, device};
    result::init().map_err(|e| BackendError::Unavailable { backend: NAME, message: format!("cuInit: {e:?}") })?;
    let count =
        device::get_count().map_err(|e| BackendError::Unavailable { backend: NAME, message: format!("{e:?}") })?;
    let (mut major, mut minor) = (0, 0);
    // SAFETY: the library is present (checked above); the pointers are valid for the call.
    unsafe { cudarc::nvrtc::sys::nvrtcVersion(&mut major, &mut minor) };
    let mut driver = 0;
    // SAFETY: as above.
    unsafe { cudarc::driver::sys::cuDriverGetVersion(&mut driver) };
    let mut out = Vec::new();
    // the device queries need no context: listing devices creates none
    for ordinal in 0..count.max(0) {
        let dev = device::get(ordinal).map_err(call("cuDeviceGet"))?;
        let attribute = |a: CUdevice_attribute| {
            // SAFETY: `dev` is a valid device handle from cuDeviceGet.
            unsafe { device::get_attribute(dev, a) }.map_err(call("cuDeviceGetAttribute"))
        };
        let cc_major = attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?;
        let cc_minor = attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?;
        out.push(DeviceFingerprint {
            backend: NAME.into(),
            vendor: "NVIDIA".into(),
            name: device::get_name(dev).map_err(call("cuDeviceGetName"))?,
            architecture: format!("sm_{cc_major}{cc_minor}"),
            driver: format!("driver {}.{} nvrtc {major}.{minor}", driver / 1000, (driver % 1000) / 10),
            // SAFETY: as above.
            memory_bytes: unsafe { device::total_mem(dev) }.unwrap_or(0) as u64,
            selector: format!("cuda:{ordinal}"),
            is_gpu: true,
        });
    }
    Ok(out)
}

/// Primary contexts created so far, by ordinal: made once per process (creating one takes a few hundred
/// milliseconds), possibly ahead of use by [`warm_up`].
static CONTEXTS: std::sync::Mutex<Vec<(usize, Arc<CudaContext>)>> = std::sync::Mutex::new(Vec::new());

/// The primary context of device `ordinal`, created on first use.
fn context(ordinal: usize) -> Result<Arc<CudaContext>, BackendError> {
    let mut contexts = CONTEXTS.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some((_, ctx)) = contexts.iter().find(|(o, _)| *o == ordinal) {
        return Ok(ctx.clone());
    }
    let ctx = CudaContext::new(ordinal).map_err(call("cuCtxCreate"))?;
    contexts.push((ordinal, ctx.clone()));
    Ok(ctx)
}

/// Starts creating device `ordinal`'s context on a background thread, so that it is ready when the device is
/// opened (a run builds its mesh and DG space meanwhile). Does nothing where CUDA is missing; errors surface
/// when the device is opened.
pub fn warm_up(ordinal: usize) {
    if libraries_present() {
        std::thread::spawn(move || {
            if enumerate().is_ok_and(|list| list.len() > ordinal) {
                let _ = context(ordinal);
            }
        });
    }
}

/// Compiles with NVRTC straight to a CUBIN for the device's architecture (so that the driver has nothing left to
/// JIT when the module is loaded, and the whole compilation runs in the parallel `prepare` stage), through an
/// on-disk cache in `<user cache>/kernels/` keyed by SHA-256 of (source, options, architecture, NVRTC version).
/// Each cache file carries the SHA-256 of its CUBIN ([`seal_cubin`]); a file that fails the check (truncated,
/// corrupt) is compiled again and replaced. Entries are written to a temporary name, flushed and renamed.
fn compile_source(source: &str, arch: &'static str) -> Result<cudarc::nvrtc::Ptx, String> {
    use sha2::{Digest, Sha256};
    let options = vec![format!("--gpu-architecture={arch}"), "-std=c++17".to_string()];
    let (mut major, mut minor) = (0, 0);
    // SAFETY: only called once the library is known present; the pointers are valid.
    unsafe { cudarc::nvrtc::sys::nvrtcVersion(&mut major, &mut minor) };
    let digest = Sha256::digest(format!("{source}\u{0}{options:?}\u{0}nvrtc {major}.{minor}\u{0}cubin").as_bytes());
    let name: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    let dir = crate::tuning_db::cache_dir("kernels");
    let path = dir.join(format!("{name}.cubin"));
    if let Some(cubin) = std::fs::read(&path).ok().and_then(|bytes| unseal_cubin(&bytes)) {
        return Ok(cudarc::nvrtc::Ptx::from_binary(cubin));
    }
    let cubin = nvrtc_cubin(source, &options)?;
    if std::fs::create_dir_all(&dir).is_ok() {
        let tmp = dir.join(format!("{name}.cubin.tmp{}", std::process::id()));
        if crate::tuning_db::write_durably(&tmp, &seal_cubin(&cubin)).is_ok() {
            let _ = std::fs::rename(&tmp, &path);
        }
    }
    Ok(cudarc::nvrtc::Ptx::from_binary(cubin))
}

/// Magic bytes of a kernel cache file (format version 1).
const CUBIN_MAGIC: &[u8; 8] = b"DGCUBIN1";

/// A cache file: the magic, the SHA-256 of the CUBIN, the CUBIN.
pub fn seal_cubin(cubin: &[u8]) -> Vec<u8> {
    use sha2::{Digest, Sha256};
    let mut out = Vec::with_capacity(40 + cubin.len());
    out.extend_from_slice(CUBIN_MAGIC);
    out.extend_from_slice(&Sha256::digest(cubin));
    out.extend_from_slice(cubin);
    out
}

/// The CUBIN of a cache file, if the file is whole (magic and checksum match); `None` otherwise.
pub fn unseal_cubin(file: &[u8]) -> Option<Vec<u8>> {
    use sha2::{Digest, Sha256};
    let rest = file.strip_prefix(CUBIN_MAGIC.as_slice())?;
    if rest.len() < 33 {
        return None;
    }
    let (sum, cubin) = rest.split_at(32);
    (Sha256::digest(cubin).as_slice() == sum).then(|| cubin.to_vec())
}

/// One NVRTC compilation to CUBIN; the compiler log is the error.
fn nvrtc_cubin(source: &str, options: &[String]) -> Result<Vec<u8>, String> {
    use cudarc::nvrtc::{result, sys};
    let text = |raw: Vec<std::ffi::c_char>| -> String {
        let bytes: Vec<u8> = raw.into_iter().take_while(|&c| c != 0).map(|c| c as u8).collect();
        String::from_utf8_lossy(&bytes).into_owned()
    };
    let src = std::ffi::CString::new(source).map_err(|_| "the kernel source holds a NUL byte".to_string())?;
    let prog = result::create_program(&src, None).map_err(|e| format!("nvrtcCreateProgram: {e:?}"))?;
    // SAFETY: `prog` is a live program until destroyed below; the buffers are sized by NVRTC's own answers.
    let outcome = unsafe {
        match result::compile_program(prog, options) {
            Err(e) => Err(format!("{e:?}\n{}", result::get_program_log(prog).map(text).unwrap_or_default())),
            Ok(()) => {
                let mut size = 0usize;
                if sys::nvrtcGetCUBINSize(prog, &mut size) != sys::nvrtcResult::NVRTC_SUCCESS {
                    Err("nvrtcGetCUBINSize failed".to_string())
                } else {
                    let mut cubin = vec![0u8; size];
                    if sys::nvrtcGetCUBIN(prog, cubin.as_mut_ptr().cast()) != sys::nvrtcResult::NVRTC_SUCCESS {
                        Err("nvrtcGetCUBIN failed".to_string())
                    } else {
                        Ok(cubin)
                    }
                }
            }
        }
    };
    // SAFETY: created above and not used after this.
    let _ = unsafe { result::destroy_program(prog) };
    outcome
}

/// An open CUDA device.
pub struct CudaDevice {
    fingerprint: DeviceFingerprint,
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    arch: &'static str,
    buffers: Vec<CudaSlice<u8>>,
    programs: Vec<HashMap<String, CudaFunction>>,
    cache: HashMap<String, ProgramId>,
    ptx: HashMap<String, Result<cudarc::nvrtc::Ptx, String>>,
    local_memory: usize,
    max_threads: usize,
    /// cuBLAS, created on first use; `Err` remembers that the library is missing.
    blas: Option<Result<cudarc::cublas::CudaBlas, String>>,
    /// cublasLt, created on first use; `Err` says why it cannot be used.
    lt: Option<Result<gemm::LtLibrary, String>>,
    /// The routine chosen for each GEMM shape met so far.
    routines: HashMap<gemm::GemmShape, gemm::GemmRoutine>,
    /// The device arrays of matrix addresses that cuBLAS's pointer-array batched routines take, per operand.
    pointer_arrays: HashMap<batched::PointerKey, CudaSlice<u64>>,
    /// Start and end events of submitted sequences whose device time is not yet added up.
    pending: Vec<(CudaEvent, CudaEvent)>,
    /// Device seconds of resolved submissions not yet handed out by `settle`.
    settled: f64,
    /// Timing events of resolved submissions, recorded again by later ones (no event created per launch).
    spare_events: Vec<CudaEvent>,
    /// Page-locked host memory that large transfers go through, allocated on first use (`Err`: could not be).
    staging: Option<Result<cudarc::driver::PinnedHostSlice<u8>, String>>,
    /// The transfer lane (halo packing and copies beside the kernels), created on first use.
    transfer: Option<Arc<CudaStream>>,
    /// The NCCL communicator between the ranks' devices, once joined.
    nccl: Option<NcclLink>,
}

/// An NCCL communicator (destroyed with the device).
struct NcclLink(cudarc::nccl::sys::ncclComm_t);

// SAFETY: the communicator is used only through `&mut CudaDevice`, from one thread at a time.
unsafe impl Send for NcclLink {}

impl Drop for NcclLink {
    fn drop(&mut self) {
        // SAFETY: created by `comm_init_rank` and not used after this.
        let _ = unsafe { cudarc::nccl::result::comm_destroy(self.0) };
    }
}

/// NCCL's errors as backend errors.
fn nccl_call<E: std::fmt::Debug>(call: &'static str) -> impl Fn(E) -> BackendError {
    move |e| BackendError::Call { backend: "nccl", call, message: format!("{e:?}") }
}

/// Whether NCCL's library (`libnccl.so`) can be loaded.
pub fn nccl_present() -> bool {
    // SAFETY: only tries to dlopen the library.
    unsafe { cudarc::nccl::sys::is_culib_present() }
}

/// Compiles `sources` on every core, the longest first (see [`longest_first`]).
fn compile_longest_first(
    sources: Vec<&String>,
    arch: &'static str,
) -> Vec<(String, Result<cudarc::nvrtc::Ptx, String>)> {
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    longest_first(sources, workers, |source| compile_source(source, arch))
}

/// Runs `build` on each source with `workers` threads, the longest source first: each worker takes the next source
/// as it finishes one, so that the slowest builds (the unrolled kernels' long sources) start at once instead of last,
/// where they would set the time of the whole batch (the greedy longest-processing-time order; source length stands
/// for build time). Returns each source with its result (in no particular order).
fn longest_first<T: Send>(
    mut sources: Vec<&String>,
    workers: usize,
    build: impl Fn(&str) -> T + Sync,
) -> Vec<(String, T)> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    sources.sort_by_key(|s| std::cmp::Reverse(s.len()));
    let next = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers.clamp(1, sources.len().max(1)))
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    while let Some(source) = sources.get(next.fetch_add(1, Ordering::Relaxed)) {
                        done.push(((*source).clone(), build(source)));
                    }
                    done
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))).collect()
    })
}

/// Transfers of at least this many bytes go through the page-locked staging buffer: the device copies at full
/// speed, and the host side is copied by every core (which also spreads the first touch of fresh memory).
const STAGED_BYTES: usize = 4 << 20;

/// Size of the page-locked staging buffer.
const STAGING_BYTES: usize = 64 << 20;

/// `to.copy_from_slice(from)` on every core.
fn parallel_copy(to: &mut [u8], from: &[u8]) {
    use rayon::prelude::*;
    const PIECE: usize = 1 << 20;
    to.par_chunks_mut(PIECE).zip(from.par_chunks(PIECE)).for_each(|(t, f)| t.copy_from_slice(f));
}

/// Submitted sequences kept unresolved before the completed ones are added up (without waiting).
const PENDING_RESOLVE: usize = 64;

impl CudaDevice {
    /// The compute capability's major version, read off the architecture string ("sm_90": 9).
    fn major_version(&self) -> Option<u32> {
        self.arch.strip_prefix("sm_").and_then(|cc| cc.get(..cc.len().saturating_sub(1))).and_then(|m| m.parse().ok())
    }

    /// Opens device `ordinal` (its fingerprint from [`enumerate`]).
    pub fn open(ordinal: usize, fingerprint: DeviceFingerprint) -> Result<Self, BackendError> {
        if !libraries_present() {
            return Err(BackendError::Unavailable { backend: NAME, message: "libcuda or libnvrtc not found".into() });
        }
        let ctx = context(ordinal)?;
        let stream = ctx.default_stream();
        let (major, minor) = ctx.compute_capability().map_err(call("cuDeviceGetAttribute"))?;
        let arch: &'static str = Box::leak(format!("sm_{major}{minor}").into_boxed_str());
        let local_memory = ctx
            .attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK)
            .map_err(call("cuDeviceGetAttribute"))? as usize;
        let max_threads = ctx
            .attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)
            .map_err(call("cuDeviceGetAttribute"))? as usize;
        Ok(Self {
            fingerprint,
            ctx,
            stream,
            arch,
            buffers: Vec::new(),
            programs: Vec::new(),
            cache: HashMap::new(),
            ptx: HashMap::new(),
            local_memory,
            max_threads,
            blas: None,
            lt: None,
            routines: HashMap::new(),
            pointer_arrays: HashMap::new(),
            pending: Vec::new(),
            settled: 0.0,
            spare_events: Vec::new(),
            staging: None,
            transfer: None,
            nccl: None,
        })
    }
}

impl CudaDevice {
    /// Enqueues a sequence on the stream (no timing, no waiting).
    fn enqueue(&mut self, program: ProgramId, steps: &[Step]) -> Result<(), BackendError> {
        if steps.iter().any(|s| matches!(s, Step::Gemm(_) | Step::Batched(_))) {
            self.blas()?;
        }
        for step in steps {
            match step {
                Step::Kernel(launch) => self.launch(program, launch)?,
                Step::Gemm(gemm) => self.gemm(gemm)?,
                Step::Batched(routine) => self.batched(routine)?,
            }
        }
        Ok(())
    }

    fn event(&self) -> Result<CudaEvent, BackendError> {
        self.stream.record_event(Some(CUevent_flags::CU_EVENT_DEFAULT)).map_err(call("cuEventRecord"))
    }

    /// The staging buffer, allocated on first use; `None` where page-locked memory is refused.
    fn staging(&mut self) -> Option<&mut cudarc::driver::PinnedHostSlice<u8>> {
        if self.staging.is_none() {
            // SAFETY: plain page-locked memory (no write-combining: the host reads downloads from it).
            let pinned = unsafe { self.ctx.alloc_pinned_with_flags::<u8>(STAGING_BYTES, 0) };
            self.staging = Some(pinned.map_err(|e| format!("{e:?}")));
        }
        self.staging.as_mut().and_then(|s| s.as_mut().ok())
    }

    /// Copies `data` into `buffer` through the staging buffer, piece by piece; `false` when there is none.
    fn staged_upload(&mut self, buffer: BufferId, data: &[u8]) -> Result<bool, BackendError> {
        use cudarc::driver::DevicePtr;
        if self.staging().is_none() {
            return Ok(false);
        }
        let stream = self.stream.clone();
        let (base, _record) = self.buffers[buffer.0].device_ptr(&stream);
        let Some(Ok(staging)) = self.staging.as_mut() else { return Ok(false) };
        for (i, piece) in data.chunks(STAGING_BYTES).enumerate() {
            let pinned = staging.as_mut_slice().map_err(call("cuEventSynchronize"))?;
            parallel_copy(&mut pinned[..piece.len()], piece);
            let dst = base + (i * STAGING_BYTES) as u64;
            // SAFETY: the buffer holds `data.len()` bytes (checked by the caller); the source is page-locked
            // memory that stays untouched until the copy has finished (synchronised below).
            unsafe { cudarc::driver::result::memcpy_htod_async(dst, &pinned[..piece.len()], stream.cu_stream()) }
                .map_err(call("cuMemcpyHtoDAsync"))?;
            stream.synchronize().map_err(call("cuStreamSynchronize"))?;
        }
        Ok(true)
    }

    /// Copies `buffer` into `data` through the staging buffer, piece by piece; `false` when there is none.
    fn staged_download(&mut self, buffer: BufferId, data: &mut [u8]) -> Result<bool, BackendError> {
        use cudarc::driver::DevicePtr;
        if self.staging().is_none() {
            return Ok(false);
        }
        let stream = self.stream.clone();
        let (base, _record) = self.buffers[buffer.0].device_ptr(&stream);
        let Some(Ok(staging)) = self.staging.as_mut() else { return Ok(false) };
        for (i, piece) in data.chunks_mut(STAGING_BYTES).enumerate() {
            let pinned = staging.as_mut_slice().map_err(call("cuEventSynchronize"))?;
            let src = base + (i * STAGING_BYTES) as u64;
            // SAFETY: as in `staged_upload`; the stream is synchronised before the host reads the piece.
            unsafe { cudarc::driver::result::memcpy_dtoh_async(&mut pinned[..piece.len()], src, stream.cu_stream()) }
                .map_err(call("cuMemcpyDtoHAsync"))?;
            stream.synchronize().map_err(call("cuStreamSynchronize"))?;
            parallel_copy(piece, &pinned[..piece.len()]);
        }
        Ok(true)
    }

    /// A spare timing event recorded now, or a new one.
    fn reused_event(&mut self) -> Result<CudaEvent, BackendError> {
        match self.spare_events.pop() {
            Some(event) => {
                event.record(&self.stream).map_err(call("cuEventRecord"))?;
                Ok(event)
            }
            None => self.event(),
        }
    }

    /// Adds up the device time of pending submissions: all of them (waiting) or the completed leading ones.
    fn resolve(&mut self, wait: bool) -> Result<(), BackendError> {
        let mut done = 0;
        for (start, end) in &self.pending {
            if !wait && !end.try_is_complete().map_err(call("cuEventQuery"))? {
                break;
            }
            self.settled += start.elapsed_ms(end).map_err(call("cuEventElapsedTime"))? as f64 * 1e-3;
            done += 1;
        }
        for (start, end) in self.pending.drain(..done) {
            self.spare_events.extend([start, end]);
        }
        Ok(())
    }

    /// Refuses a transfer to or from an unknown buffer, or longer than the buffer.
    fn check_transfer(&self, buffer: BufferId, bytes: usize, call: &'static str) -> Result<(), BackendError> {
        match self.buffers.get(buffer.0) {
            Some(b) if b.len() >= bytes => Ok(()),
            Some(b) => Err(BackendError::Call {
                backend: NAME,
                call,
                message: format!("{bytes} bytes do not fit the buffer's {}", b.len()),
            }),
            None => Err(BackendError::Call { backend: NAME, call, message: "no such buffer".into() }),
        }
    }

    /// One kernel launch on the stream.
    fn launch(&mut self, program: ProgramId, launch: &Launch) -> Result<(), BackendError> {
        let stream = self.stream.clone();
        self.launch_on(&stream, program, launch)
    }

    /// The transfer lane's stream, created on first use.
    fn transfer_stream(&mut self) -> Result<Arc<CudaStream>, BackendError> {
        if let Some(stream) = &self.transfer {
            return Ok(stream.clone());
        }
        // SAFETY: dg orders its two streams itself (the `*_after_*` calls record and wait on events); cudarc's
        // per-buffer event tracking would otherwise record events for every argument of every launch once a
        // second stream exists.
        unsafe { self.ctx.disable_event_tracking() };
        // the highest priority: its kernels (halo packing, NCCL's) start as soon as they are ready instead of
        // queueing behind the remaining work groups of a large right-hand-side kernel
        self.ctx.bind_to_thread().map_err(call("cuCtxSetCurrent"))?;
        let (_, greatest) =
            cudarc::driver::result::stream::get_priority_range().map_err(call("cuCtxGetStreamPriorityRange"))?;
        let stream = self.ctx.new_stream_with_priority(greatest).map_err(call("cuStreamCreateWithPriority"))?;
        self.transfer = Some(stream.clone());
        Ok(stream)
    }

    /// One kernel launch on `stream`.
    fn launch_on(&self, stream: &Arc<CudaStream>, program: ProgramId, launch: &Launch) -> Result<(), BackendError> {
        let func = self.programs[program.0].get(&launch.kernel).ok_or_else(|| BackendError::Call {
            backend: NAME,
            call: "cuModuleGetFunction",
            message: format!("kernel `{}` is not in the program", launch.kernel),
        })?;
        let mut builder = stream.launch_builder(func);
        let ints: Vec<i32> =
            launch.args.iter().filter_map(|a| if let Arg::I32(v) = a { Some(*v) } else { None }).collect();
        let f32s: Vec<f32> =
            launch.args.iter().filter_map(|a| if let Arg::F32(v) = a { Some(*v) } else { None }).collect();
        let f64s: Vec<f64> =
            launch.args.iter().filter_map(|a| if let Arg::F64(v) = a { Some(*v) } else { None }).collect();
        let (mut ni, mut nf, mut nd) = (0, 0, 0);
        for arg in &launch.args {
            match arg {
                Arg::Buffer(b) => {
                    builder.arg(&self.buffers[b.0]);
                }
                Arg::I32(_) => {
                    builder.arg(&ints[ni]);
                    ni += 1;
                }
                Arg::F32(_) => {
                    builder.arg(&f32s[nf]);
                    nf += 1;
                }
                Arg::F64(_) => {
                    builder.arg(&f64s[nd]);
                    nd += 1;
                }
            }
        }
        let cfg = LaunchConfig {
            grid_dim: (launch.groups as u32, 1, 1),
            block_dim: (launch.local as u32, 1, 1),
            shared_mem_bytes: 0,
        };
        // SAFETY: the argument list matches the generated kernel's signature (same launch table).
        unsafe { builder.launch(cfg) }.map_err(call("cuLaunchKernel"))?;
        Ok(())
    }
}

impl Device for CudaDevice {
    fn fingerprint(&self) -> &DeviceFingerprint {
        &self.fingerprint
    }

    fn prepare(&mut self, sources: &[String]) {
        let todo: Vec<&String> =
            sources.iter().filter(|s| !self.ptx.contains_key(*s) && !self.cache.contains_key(*s)).collect();
        self.ptx.extend(compile_longest_first(todo, self.arch));
    }

    fn compile(&mut self, source: &str, kernels: &[String]) -> Result<ProgramId, BackendError> {
        if let Some(&id) = self.cache.get(source) {
            return Ok(id);
        }
        let ptx = match self.ptx.remove(source) {
            Some(result) => result,
            None => compile_source(source, self.arch),
        }
        .map_err(|log| BackendError::Compile { backend: NAME, log })?;
        let module = self.ctx.load_module(ptx).map_err(call("cuModuleLoadData"))?;
        let mut map = HashMap::new();
        for name in kernels {
            map.insert(name.clone(), module.load_function(name).map_err(call("cuModuleGetFunction"))?);
        }
        self.programs.push(map);
        let id = ProgramId(self.programs.len() - 1);
        self.cache.insert(source.to_string(), id);
        Ok(id)
    }

    fn alloc(&mut self, bytes: usize) -> Result<BufferId, BackendError> {
        let buffer = self.stream.alloc_zeros::<u8>(bytes.max(1)).map_err(call("cuMemAlloc"))?;
        self.buffers.push(buffer);
        Ok(BufferId(self.buffers.len() - 1))
    }

    fn alloc_zeroed(&mut self, bytes: usize) -> Result<BufferId, BackendError> {
        // cudarc clears the allocation on the stream (cuMemsetD8Async)
        self.alloc(bytes)
    }

    fn buffer_bytes(&self, buffer: BufferId) -> Option<usize> {
        self.buffers.get(buffer.0).map(|b| b.len())
    }

    fn upload(&mut self, buffer: BufferId, data: &[u8]) -> Result<(), BackendError> {
        self.check_transfer(buffer, data.len(), "cuMemcpyHtoD")?;
        if data.len() >= STAGED_BYTES && self.staged_upload(buffer, data)? {
            return Ok(());
        }
        let mut view = self.buffers[buffer.0].slice_mut(0..data.len());
        self.stream.memcpy_htod(data, &mut view).map_err(call("cuMemcpyHtoD"))
    }

    fn download(&mut self, buffer: BufferId, data: &mut [u8]) -> Result<(), BackendError> {
        self.check_transfer(buffer, data.len(), "cuMemcpyDtoH")?;
        if data.len() >= STAGED_BYTES && self.staged_download(buffer, data)? {
            return Ok(());
        }
        let view = self.buffers[buffer.0].slice(0..data.len());
        self.stream.memcpy_dtoh(&view, data).map_err(call("cuMemcpyDtoH"))?;
        self.stream.synchronize().map_err(call("cuStreamSynchronize"))
    }

    fn copy_buffer(&mut self, source: BufferId, target: BufferId, bytes: usize) -> Result<(), BackendError> {
        use cudarc::driver::DevicePtr;
        self.check_transfer(source, bytes, "cuMemcpyDtoDAsync")?;
        self.check_transfer(target, bytes, "cuMemcpyDtoDAsync")?;
        if source == target {
            return Err(BackendError::Call {
                backend: NAME,
                call: "cuMemcpyDtoDAsync",
                message: "a buffer onto itself".into(),
            });
        }
        let stream = self.stream.clone();
        let (from, _record) = self.buffers[source.0].device_ptr(&stream);
        let (to, _record) = self.buffers[target.0].device_ptr(&stream);
        // SAFETY: both ranges were checked to lie inside their buffers, which are distinct allocations; the copy is
        // ordered on the compute stream after the work submitted before it.
        unsafe { cudarc::driver::result::memcpy_dtod_async(to, from, bytes, stream.cu_stream()) }
            .map_err(call("cuMemcpyDtoDAsync"))
    }

    fn download_range(&mut self, buffer: BufferId, offset: usize, data: &mut [u8]) -> Result<(), BackendError> {
        let end = super::range_end(NAME, "cuMemcpyDtoH", offset, data.len())?;
        self.check_transfer(buffer, end, "cuMemcpyDtoH")?;
        let view = self.buffers[buffer.0].slice(offset..end);
        self.stream.memcpy_dtoh(&view, data).map_err(call("cuMemcpyDtoH"))?;
        self.stream.synchronize().map_err(call("cuStreamSynchronize"))
    }

    fn upload_range(&mut self, buffer: BufferId, offset: usize, data: &[u8]) -> Result<(), BackendError> {
        let end = super::range_end(NAME, "cuMemcpyHtoD", offset, data.len())?;
        self.check_transfer(buffer, end, "cuMemcpyHtoD")?;
        let mut view = self.buffers[buffer.0].slice_mut(offset..end);
        self.stream.memcpy_htod(data, &mut view).map_err(call("cuMemcpyHtoD"))
    }

    fn free_buffers(&mut self) {
        self.pointer_arrays.clear();
        self.buffers.clear();
    }

    fn run(&mut self, program: ProgramId, launches: &[Launch], repeats: usize) -> Result<Vec<f64>, BackendError> {
        let steps: Vec<Step> = launches.iter().cloned().map(Step::Kernel).collect();
        self.run_steps(program, &steps, repeats)
    }

    fn supports_gemm(&mut self) -> bool {
        self.blas().is_ok()
    }

    fn gemm_routines(&self) -> Vec<String> {
        self.describe_gemm_routines()
    }

    fn run_steps(&mut self, program: ProgramId, steps: &[Step], repeats: usize) -> Result<Vec<f64>, BackendError> {
        let mut events = Vec::with_capacity(repeats);
        for _ in 0..repeats.max(1) {
            let start = self.reused_event()?;
            self.enqueue(program, steps)?;
            events.push((start, self.reused_event()?));
        }
        let times = events
            .iter()
            .map(|(start, end)| start.elapsed_ms(end).map(|ms| ms as f64 * 1e-3).map_err(call("cuEventElapsedTime")))
            .collect::<Result<Vec<f64>, _>>()?;
        self.spare_events.extend(events.into_iter().flat_map(|(start, end)| [start, end]));
        self.stream.synchronize().map_err(call("cuStreamSynchronize"))?;
        Ok(times)
    }

    fn submit(&mut self, program: ProgramId, steps: &[Step]) -> Result<f64, BackendError> {
        let start = self.reused_event()?;
        self.enqueue(program, steps)?;
        let end = self.reused_event()?;
        self.pending.push((start, end));
        if self.pending.len() >= PENDING_RESOLVE {
            self.resolve(false)?;
        }
        Ok(0.0)
    }

    fn settle(&mut self) -> Result<f64, BackendError> {
        self.resolve(true)?;
        self.stream.synchronize().map_err(call("cuStreamSynchronize"))?;
        Ok(std::mem::take(&mut self.settled))
    }

    fn transfer_after_compute(&mut self) -> Result<(), BackendError> {
        let transfer = self.transfer_stream()?;
        transfer.join(&self.stream).map_err(call("cuStreamWaitEvent"))
    }

    fn submit_transfer(&mut self, program: ProgramId, steps: &[Step]) -> Result<(), BackendError> {
        let transfer = self.transfer_stream()?;
        for step in steps {
            match step {
                Step::Kernel(launch) => self.launch_on(&transfer, program, launch)?,
                Step::Gemm(_) | Step::Batched(_) => {
                    return Err(BackendError::Call {
                        backend: NAME,
                        call: "submit_transfer",
                        message: "the transfer lane runs kernels only".into(),
                    })
                }
            }
        }
        Ok(())
    }

    fn download_transfer(&mut self, buffer: BufferId, data: &mut [u8]) -> Result<(), BackendError> {
        self.check_transfer(buffer, data.len(), "cuMemcpyDtoH")?;
        let transfer = self.transfer_stream()?;
        let view = self.buffers[buffer.0].slice(0..data.len());
        transfer.memcpy_dtoh(&view, data).map_err(call("cuMemcpyDtoH"))?;
        transfer.synchronize().map_err(call("cuStreamSynchronize"))
    }

    fn upload_transfer(&mut self, buffer: BufferId, data: &[u8]) -> Result<(), BackendError> {
        self.check_transfer(buffer, data.len(), "cuMemcpyHtoD")?;
        let transfer = self.transfer_stream()?;
        let mut view = self.buffers[buffer.0].slice_mut(0..data.len());
        transfer.memcpy_htod(data, &mut view).map_err(call("cuMemcpyHtoD"))
    }

    fn compute_after_transfer(&mut self) -> Result<(), BackendError> {
        let transfer = self.transfer_stream()?;
        self.stream.join(&transfer).map_err(call("cuStreamWaitEvent"))
    }

    fn peer_link_available(&self) -> bool {
        nccl_present()
    }

    fn peer_id(&mut self) -> Result<Vec<u8>, BackendError> {
        if !nccl_present() {
            return Err(BackendError::Unavailable { backend: "nccl", message: "libnccl.so not found".into() });
        }
        self.ctx.bind_to_thread().map_err(call("cuCtxSetCurrent"))?;
        let id = cudarc::nccl::result::get_uniqueid().map_err(nccl_call("ncclGetUniqueId"))?;
        Ok(id.internal.iter().map(|&c| c as u8).collect())
    }

    fn peer_join(&mut self, rank: usize, ranks: usize, id: &[u8]) -> Result<(), BackendError> {
        if !nccl_present() {
            return Err(BackendError::Unavailable { backend: "nccl", message: "libnccl.so not found".into() });
        }
        let mut unique = cudarc::nccl::sys::ncclUniqueId { internal: [0; 128] };
        if id.len() != unique.internal.len() {
            return Err(BackendError::Call {
                backend: "nccl",
                call: "ncclCommInitRank",
                message: "bad link id".into(),
            });
        }
        for (slot, &b) in unique.internal.iter_mut().zip(id) {
            *slot = b as std::ffi::c_char;
        }
        let bad = |what: &str| BackendError::Call { backend: "nccl", call: "ncclCommInitRank", message: what.into() };
        let ranks = i32::try_from(ranks).map_err(|_| bad("too many ranks"))?;
        let rank = i32::try_from(rank).map_err(|_| bad("rank out of range"))?;
        self.ctx.bind_to_thread().map_err(call("cuCtxSetCurrent"))?;
        let mut comm = std::mem::MaybeUninit::uninit();
        // SAFETY: `comm` is written by NCCL before it is read; every rank joins with the same id.
        let comm = unsafe {
            cudarc::nccl::result::comm_init_rank(comm.as_mut_ptr(), ranks, unique, rank)
                .map_err(nccl_call("ncclCommInitRank"))?;
            comm.assume_init()
        };
        self.nccl = Some(NcclLink(comm));
        Ok(())
    }

    fn peer_exchange(
        &mut self,
        send: BufferId,
        sends: &[(usize, std::ops::Range<usize>)],
        receive: BufferId,
        receives: &[(usize, std::ops::Range<usize>)],
    ) -> Result<(), BackendError> {
        use cudarc::driver::DevicePtr;
        use cudarc::nccl::{result, sys};
        let transfer = self.transfer_stream()?;
        let comm = match &self.nccl {
            Some(link) => link.0,
            None => return Err(BackendError::Unavailable { backend: "nccl", message: "no link joined".into() }),
        };
        for (buffer, ranges) in [(send, sends), (receive, receives)] {
            let end = ranges.iter().map(|(_, r)| r.end).max().unwrap_or(0);
            self.check_transfer(buffer, end, "ncclSend/ncclRecv")?;
        }
        let base = |buffer: BufferId| {
            let (ptr, _record) = self.buffers[buffer.0].device_ptr(&transfer);
            ptr
        };
        let (send_base, receive_base) = (base(send), base(receive));
        let stream = transfer.cu_stream() as sys::cudaStream_t;
        let peer = |rank: &usize| {
            i32::try_from(*rank).map_err(|_| BackendError::Call {
                backend: "nccl",
                call: "ncclSend",
                message: "rank out of range".into(),
            })
        };
        let to: Vec<i32> = sends.iter().map(|(r, _)| peer(r)).collect::<Result<_, _>>()?;
        let from: Vec<i32> = receives.iter().map(|(r, _)| peer(r)).collect::<Result<_, _>>()?;
        result::group_start().map_err(nccl_call("ncclGroupStart"))?;
        let mut outcome = Ok(());
        for ((_, bytes), &to) in sends.iter().zip(&to) {
            let ptr = (send_base + bytes.start as u64) as *const std::ffi::c_void;
            // SAFETY: the range lies in the buffer (checked above); the stream orders it after the packing.
            let sent = unsafe { result::send(ptr, bytes.len(), sys::ncclDataType_t::ncclUint8, to, comm, stream) };
            if let Err(e) = sent {
                outcome = Err(nccl_call("ncclSend")(e));
            }
        }
        for ((_, bytes), &from) in receives.iter().zip(&from) {
            let ptr = (receive_base + bytes.start as u64) as *mut std::ffi::c_void;
            // SAFETY: as for the sends; nothing else writes the receive buffer meanwhile.
            let received =
                unsafe { result::recv(ptr, bytes.len(), sys::ncclDataType_t::ncclUint8, from, comm, stream) };
            if let Err(e) = received {
                outcome = Err(nccl_call("ncclRecv")(e));
            }
        }
        result::group_end().map_err(nccl_call("ncclGroupEnd"))?;
        outcome
    }

    fn kernel_max_work_group(&self, program: ProgramId, kernel: &str) -> Option<usize> {
        let func = self.programs.get(program.0)?.get(kernel)?;
        func.get_attribute(cudarc::driver::sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)
            .ok()
            .map(|v| v as usize)
    }

    fn local_memory(&self) -> usize {
        self.local_memory
    }

    fn max_work_group(&self) -> usize {
        self.max_threads
    }

    fn supports_f64(&self) -> bool {
        true
    }

    fn supports_tensor_cores(&self) -> bool {
        // "sm_80" and later
        self.major_version().is_some_and(|major| major >= 8)
    }

    fn supports_async_copies(&self) -> bool {
        // "sm_80" and later (`cp.async`)
        self.major_version().is_some_and(|major| major >= 8)
    }

    fn supports_f64_mma_m16(&self) -> bool {
        // "sm_90" and later
        self.major_version().is_some_and(|major| major >= 9)
    }

    fn lost(&mut self) -> Option<String> {
        // an error that outlives the call that raised it (a faulting kernel's) is returned by every later
        // synchronisation; a launch that was merely refused leaves the stream clean
        self.stream.synchronize().err().map(|e| format!("{e:?}"))
    }
}

#[cfg(test)]
mod build_order_tests {
    use super::longest_first;
    use std::sync::Mutex;

    #[test]
    fn every_source_is_built_once_the_longest_first() {
        let sources: Vec<String> = ["bb", "a", "dddd", "ccc", "eeeee", "ff"].map(String::from).to_vec();
        // one worker: the order the builds start in is the order of the list it works through
        let started = Mutex::new(Vec::new());
        let built = longest_first(sources.iter().collect(), 1, |s| {
            started.lock().unwrap().push(s.to_string());
            s.len()
        });
        assert_eq!(*started.lock().unwrap(), ["eeeee", "dddd", "ccc", "bb", "ff", "a"]);
        assert_eq!(built.len(), sources.len());
        for (source, len) in &built {
            assert_eq!(source.len(), *len);
        }
        // several workers: every source once, each with its own result
        let mut many = longest_first(sources.iter().collect(), 4, |s| s.to_uppercase());
        many.sort();
        let mut expected: Vec<(String, String)> = sources.iter().map(|s| (s.clone(), s.to_uppercase())).collect();
        expected.sort();
        assert_eq!(many, expected);
        assert!(longest_first(Vec::new(), 8, |s| s.len()).is_empty());
    }
}

#[cfg(test)]
mod cache_tests {
    use super::{seal_cubin, unseal_cubin};

    #[test]
    fn a_damaged_cache_file_is_refused() {
        let cubin = b"\x7fELF fake cubin payload".to_vec();
        let sealed = seal_cubin(&cubin);
        assert_eq!(unseal_cubin(&sealed), Some(cubin.clone()));
        assert_eq!(unseal_cubin(&sealed[..sealed.len() - 1]), None, "truncated");
        let mut flipped = sealed.clone();
        let last = flipped.len() - 1;
        flipped[last] ^= 1;
        assert_eq!(unseal_cubin(&flipped), None, "one bit flipped");
        assert_eq!(unseal_cubin(&cubin), None, "an unsealed file (an older dg's cache)");
        assert_eq!(unseal_cubin(b""), None);
    }
}
