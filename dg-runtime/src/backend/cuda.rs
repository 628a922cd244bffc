//! CUDA through cudarc: the driver and NVRTC are loaded at run time, and their presence is checked before any
//! call, so a machine without them gets an error value, never a panic.

use super::{Arg, BackendError, BufferId, Device, DeviceFingerprint, Gemm, Launch, ProgramId, Step};
use cudarc::driver::sys::{CUdevice_attribute, CUevent_flags};
use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
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
    let count = CudaContext::device_count()
        .map_err(|e| BackendError::Unavailable { backend: NAME, message: format!("{e:?}") })?;
    let (mut major, mut minor) = (0, 0);
    // SAFETY: the library is present (checked above); the pointers are valid for the call.
    unsafe { cudarc::nvrtc::sys::nvrtcVersion(&mut major, &mut minor) };
    let mut out = Vec::new();
    for ordinal in 0..count.max(0) as usize {
        let ctx = CudaContext::new(ordinal).map_err(call("cuCtxCreate"))?;
        let (cc_major, cc_minor) = ctx.compute_capability().map_err(call("cuDeviceGetAttribute"))?;
        let mut driver = 0;
        // SAFETY: as above.
        unsafe { cudarc::driver::sys::cuDriverGetVersion(&mut driver) };
        out.push(DeviceFingerprint {
            backend: NAME.into(),
            vendor: "NVIDIA".into(),
            name: ctx.name().map_err(call("cuDeviceGetName"))?,
            architecture: format!("sm_{cc_major}{cc_minor}"),
            driver: format!("driver {}.{} nvrtc {major}.{minor}", driver / 1000, (driver % 1000) / 10),
            memory_bytes: ctx.total_mem().unwrap_or(0) as u64,
            selector: format!("cuda:{ordinal}"),
            is_gpu: true,
        });
    }
    Ok(out)
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
    let dir = crate::tuning_db::user_dir().with_file_name("kernels");
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
}

impl CudaDevice {
    /// Opens device `ordinal` (its fingerprint from [`enumerate`]).
    pub fn open(ordinal: usize, fingerprint: DeviceFingerprint) -> Result<Self, BackendError> {
        if !libraries_present() {
            return Err(BackendError::Unavailable { backend: NAME, message: "libcuda or libnvrtc not found".into() });
        }
        let ctx = CudaContext::new(ordinal).map_err(call("cuCtxCreate"))?;
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
        })
    }
}

impl CudaDevice {
    /// cuBLAS on this device's stream (loaded on first use).
    fn blas(&mut self) -> Result<&cudarc::cublas::CudaBlas, BackendError> {
        if self.blas.is_none() {
            // SAFETY: only tries to dlopen the library.
            let present = unsafe { cudarc::cublas::sys::is_culib_present() };
            self.blas = Some(if present {
                cudarc::cublas::CudaBlas::new(self.stream.clone()).map_err(|e| format!("cublasCreate: {e:?}"))
            } else {
                Err("libcublas not found".into())
            });
        }
        match self.blas.as_ref() {
            Some(Ok(blas)) => Ok(blas),
            Some(Err(message)) => Err(BackendError::Unavailable { backend: "cublas", message: message.clone() }),
            None => unreachable!("set above"),
        }
    }

    /// One GEMM on the stream, through cuBLAS.
    fn gemm(&mut self, g: &Gemm) -> Result<(), BackendError> {
        use cudarc::cublas::{result, sys};
        use cudarc::driver::DevicePtr;
        let sizes = [g.m, g.n, g.k, g.a.ld, g.b.ld, g.c.ld];
        if sizes.iter().any(|&v| v > i32::MAX as usize) {
            return Err(BackendError::Call { backend: "cublas", call: "gemm", message: "a size exceeds i32".into() });
        }
        let [m, n, k, lda, ldb, ldc] = sizes.map(|v| v as i32);
        let handle = *self.blas()?.handle();
        let stream = self.stream.clone();
        let size = if g.double { 8 } else { 4 };
        for operand in [g.a, g.b, g.c] {
            if (operand.offset + 1) * size > self.buffers[operand.buffer.0].len() {
                return Err(BackendError::Call {
                    backend: "cublas",
                    call: "gemm",
                    message: "an operand starts outside its buffer".into(),
                });
            }
        }
        let (a, _ra) = self.buffers[g.a.buffer.0].device_ptr(&stream);
        let (b, _rb) = self.buffers[g.b.buffer.0].device_ptr(&stream);
        // one stream orders every access, so the read-intent pointer serves the written C as well
        let (c, _rc) = self.buffers[g.c.buffer.0].device_ptr(&stream);
        let (a, b, c) =
            (a + (g.a.offset * size) as u64, b + (g.b.offset * size) as u64, c + (g.c.offset * size) as u64);
        let op = sys::cublasOperation_t::CUBLAS_OP_N;
        // SAFETY: the buffers hold the matrices at the given shapes (the caller sized them from the same
        // numbers); the handle works on this device's stream.
        let outcome = unsafe {
            if g.double {
                let (alpha, beta) = (g.alpha, g.beta);
                result::dgemm(handle, op, op, m, n, k, &alpha, a as _, lda, b as _, ldb, &beta, c as _, ldc)
            } else {
                let (alpha, beta) = (g.alpha as f32, g.beta as f32);
                result::sgemm(handle, op, op, m, n, k, &alpha, a as _, lda, b as _, ldb, &beta, c as _, ldc)
            }
        };
        outcome.map_err(|e| BackendError::Call { backend: "cublas", call: "gemm", message: format!("{e:?}") })
    }

    /// One kernel launch on the stream.
    fn launch(&mut self, program: ProgramId, launch: &Launch) -> Result<(), BackendError> {
        let func = self.programs[program.0].get(&launch.kernel).ok_or_else(|| BackendError::Call {
            backend: NAME,
            call: "cuModuleGetFunction",
            message: format!("kernel `{}` is not in the program", launch.kernel),
        })?;
        let mut builder = self.stream.launch_builder(func);
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
        use rayon::prelude::*;
        let arch = self.arch;
        let todo: Vec<&String> =
            sources.iter().filter(|s| !self.ptx.contains_key(*s) && !self.cache.contains_key(*s)).collect();
        let compiled: Vec<(String, Result<cudarc::nvrtc::Ptx, String>)> =
            todo.par_iter().map(|s| ((*s).clone(), compile_source(s, arch))).collect();
        self.ptx.extend(compiled);
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

    fn buffer_bytes(&self, buffer: BufferId) -> Option<usize> {
        self.buffers.get(buffer.0).map(|b| b.len())
    }

    fn upload(&mut self, buffer: BufferId, data: &[u8]) -> Result<(), BackendError> {
        let mut view = self.buffers[buffer.0].slice_mut(0..data.len());
        self.stream.memcpy_htod(data, &mut view).map_err(call("cuMemcpyHtoD"))
    }

    fn download(&mut self, buffer: BufferId, data: &mut [u8]) -> Result<(), BackendError> {
        let view = self.buffers[buffer.0].slice(0..data.len());
        self.stream.memcpy_dtoh(&view, data).map_err(call("cuMemcpyDtoH"))?;
        self.stream.synchronize().map_err(call("cuStreamSynchronize"))
    }

    fn free_buffers(&mut self) {
        self.buffers.clear();
    }

    fn run(&mut self, program: ProgramId, launches: &[Launch], repeats: usize) -> Result<Vec<f64>, BackendError> {
        let steps: Vec<Step> = launches.iter().cloned().map(Step::Kernel).collect();
        self.run_steps(program, &steps, repeats)
    }

    fn supports_gemm(&mut self) -> bool {
        self.blas().is_ok()
    }

    fn run_steps(&mut self, program: ProgramId, steps: &[Step], repeats: usize) -> Result<Vec<f64>, BackendError> {
        if steps.iter().any(|s| matches!(s, Step::Gemm(_))) {
            self.blas()?;
        }
        let mut times = Vec::with_capacity(repeats);
        for _ in 0..repeats.max(1) {
            let start =
                self.stream.record_event(Some(CUevent_flags::CU_EVENT_DEFAULT)).map_err(call("cuEventRecord"))?;
            for step in steps {
                match step {
                    Step::Kernel(launch) => self.launch(program, launch)?,
                    Step::Gemm(gemm) => self.gemm(gemm)?,
                }
            }
            let end = self.stream.record_event(Some(CUevent_flags::CU_EVENT_DEFAULT)).map_err(call("cuEventRecord"))?;
            let ms = start.elapsed_ms(&end).map_err(call("cuEventElapsedTime"))?;
            times.push(ms as f64 * 1e-3);
        }
        self.stream.synchronize().map_err(call("cuStreamSynchronize"))?;
        Ok(times)
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
