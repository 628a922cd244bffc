//! OpenCL through opencl3 (the OpenCL library is loaded at run time: no library, no platform, no panic).

use super::{Arg, BackendError, BufferId, Device, DeviceFingerprint, Launch, ProgramId};
use opencl3::command_queue::{CommandQueue, CL_QUEUE_PROFILING_ENABLE};
use opencl3::context::Context;
use opencl3::device::Device as ClDevice;
use opencl3::kernel::{ExecuteKernel, Kernel};
use opencl3::memory::{Buffer, CL_MEM_READ_WRITE};
use opencl3::program::Program;
use opencl3::types::{cl_double, cl_float, cl_int, CL_BLOCKING};
use std::collections::HashMap;

const NAME: &str = "opencl";

fn call(call: &'static str) -> impl Fn(opencl3::error_codes::ClError) -> BackendError {
    move |e| BackendError::Call { backend: NAME, call, message: e.to_string() }
}

/// A (platform, device) pair found by discovery.
pub struct OpenClCandidate {
    /// Platform index.
    pub platform: usize,
    /// Device index within the platform.
    pub device: usize,
    /// The fingerprint.
    pub fingerprint: DeviceFingerprint,
    id: opencl3::types::cl_device_id,
}

/// Every OpenCL device on every platform; an empty list (and the reason) when there is none.
pub fn enumerate() -> Result<Vec<OpenClCandidate>, BackendError> {
    let platforms = opencl3::platform::get_platforms()
        .map_err(|e| BackendError::Unavailable { backend: NAME, message: format!("no OpenCL platform ({e})") })?;
    let mut out = Vec::new();
    let mut errors = Vec::new();
    for (p, platform) in platforms.iter().enumerate() {
        let ids = match platform.get_devices(opencl3::device::CL_DEVICE_TYPE_ALL) {
            Ok(ids) => ids,
            Err(e) => {
                errors.push(format!("platform {p} ({}): {e}", platform.name().unwrap_or_default().trim()));
                continue;
            }
        };
        for (d, &id) in ids.iter().enumerate() {
            let dev = ClDevice::new(id);
            let kind = dev.dev_type().unwrap_or(0);
            let fingerprint = DeviceFingerprint {
                backend: NAME.into(),
                vendor: dev.vendor().unwrap_or_default().trim().to_string(),
                name: dev.name().unwrap_or_default().trim().to_string(),
                architecture: format!(
                    "{} ({})",
                    platform.name().unwrap_or_default().trim(),
                    if kind & opencl3::device::CL_DEVICE_TYPE_GPU != 0 { "gpu" } else { "cpu" }
                ),
                driver: dev.driver_version().unwrap_or_default().trim().to_string(),
                memory_bytes: dev.global_mem_size().unwrap_or(0),
                selector: format!("opencl:{p}:{d}"),
                is_gpu: kind & opencl3::device::CL_DEVICE_TYPE_GPU != 0,
            };
            out.push(OpenClCandidate { platform: p, device: d, fingerprint, id });
        }
    }
    if out.is_empty() && !errors.is_empty() {
        return Err(BackendError::Unavailable { backend: NAME, message: format!("no device: {}", errors.join("; ")) });
    }
    Ok(out)
}

/// An open OpenCL device.
pub struct OpenClDevice {
    fingerprint: DeviceFingerprint,
    device: ClDevice,
    context: Context,
    queue: CommandQueue,
    buffers: Vec<Buffer<u8>>,
    /// The size of each buffer, bytes.
    buffer_sizes: Vec<usize>,
    programs: Vec<(Program, HashMap<String, Kernel>)>,
    cache: HashMap<String, ProgramId>,
    /// The options every program is built with.
    build_options: &'static str,
}

/// The options of a program build: OpenCL C 1.2, optimised.
const BUILD_OPTIONS: &str = "-cl-std=CL1.2";
/// The options of a program build without the compiler's optimisations (tests: the same results, PoCL builds a
/// program several times faster).
const UNOPTIMISED_BUILD_OPTIONS: &str = "-cl-std=CL1.2 -cl-opt-disable";

impl OpenClDevice {
    /// Opens a discovered device.
    pub fn open(candidate: &OpenClCandidate) -> Result<Self, BackendError> {
        let device = ClDevice::new(candidate.id);
        let context = Context::from_device(&device).map_err(call("clCreateContext"))?;
        #[allow(deprecated)]
        let queue =
            CommandQueue::create_default(&context, CL_QUEUE_PROFILING_ENABLE).map_err(call("clCreateCommandQueue"))?;
        Ok(Self {
            fingerprint: candidate.fingerprint.clone(),
            device,
            context,
            queue,
            buffers: Vec::new(),
            buffer_sizes: Vec::new(),
            programs: Vec::new(),
            cache: HashMap::new(),
            build_options: BUILD_OPTIONS,
        })
    }

    /// This device with its programs built without the compiler's optimisations (`-cl-opt-disable`): for tests,
    /// whose small runs take less time than PoCL's optimiser; the results are the same.
    pub fn unoptimised(mut self) -> Self {
        self.build_options = UNOPTIMISED_BUILD_OPTIONS;
        self
    }

    /// Refuses a transfer of `len` bytes from byte `offset` that does not lie inside `buffer` (`call`'s error).
    fn check_range(&self, buffer: BufferId, offset: usize, len: usize, call: &'static str) -> Result<(), BackendError> {
        let size = self.buffer_sizes.get(buffer.0).copied();
        let fits = offset.checked_add(len).zip(size).is_some_and(|(end, size)| end <= size);
        if fits {
            return Ok(());
        }
        Err(BackendError::Call {
            backend: NAME,
            call,
            message: format!("{len} bytes from byte {offset} lie outside the buffer"),
        })
    }
}

impl Device for OpenClDevice {
    fn fingerprint(&self) -> &DeviceFingerprint {
        &self.fingerprint
    }

    fn compile(&mut self, source: &str, kernels: &[String]) -> Result<ProgramId, BackendError> {
        if let Some(&id) = self.cache.get(source) {
            return Ok(id);
        }
        let program = Program::create_and_build_from_source(&self.context, source, self.build_options)
            .map_err(|log| BackendError::Compile { backend: NAME, log })?;
        let mut map = HashMap::new();
        for name in kernels {
            map.insert(name.clone(), Kernel::create(&program, name).map_err(call("clCreateKernel"))?);
        }
        self.programs.push((program, map));
        let id = ProgramId(self.programs.len() - 1);
        self.cache.insert(source.to_string(), id);
        Ok(id)
    }

    fn alloc(&mut self, bytes: usize) -> Result<BufferId, BackendError> {
        // SAFETY: no host pointer is given; the buffer is device memory of `bytes.max(1)` bytes.
        let buffer =
            unsafe { Buffer::<u8>::create(&self.context, CL_MEM_READ_WRITE, bytes.max(1), std::ptr::null_mut()) }
                .map_err(call("clCreateBuffer"))?;
        self.buffers.push(buffer);
        self.buffer_sizes.push(bytes);
        Ok(BufferId(self.buffers.len() - 1))
    }

    fn alloc_zeroed(&mut self, bytes: usize) -> Result<BufferId, BackendError> {
        let id = self.alloc(bytes)?;
        let buf = &mut self.buffers[id.0];
        // SAFETY: a fill of the whole buffer (`bytes.max(1)` bytes, a multiple of the one-byte pattern), waited for.
        let filled = unsafe { self.queue.enqueue_fill_buffer(buf, &[0u8], 0, bytes.max(1), &[]) }
            .map_err(call("clEnqueueFillBuffer"))?;
        filled.wait().map_err(call("clWaitForEvents"))?;
        Ok(id)
    }

    fn buffer_bytes(&self, buffer: BufferId) -> Option<usize> {
        self.buffer_sizes.get(buffer.0).copied()
    }

    fn upload(&mut self, buffer: BufferId, data: &[u8]) -> Result<(), BackendError> {
        let buf = &mut self.buffers[buffer.0];
        // SAFETY: blocking write of `data` into a buffer at least that large (allocated by `alloc`).
        unsafe { self.queue.enqueue_write_buffer(buf, CL_BLOCKING, 0, data, &[]) }
            .map_err(call("clEnqueueWriteBuffer"))?;
        Ok(())
    }

    fn download(&mut self, buffer: BufferId, data: &mut [u8]) -> Result<(), BackendError> {
        let buf = &self.buffers[buffer.0];
        // SAFETY: blocking read into `data`, no larger than the buffer.
        unsafe { self.queue.enqueue_read_buffer(buf, CL_BLOCKING, 0, data, &[]) }
            .map_err(call("clEnqueueReadBuffer"))?;
        Ok(())
    }

    fn copy_buffer(&mut self, source: BufferId, target: BufferId, bytes: usize) -> Result<(), BackendError> {
        self.check_range(source, 0, bytes, "clEnqueueCopyBuffer")?;
        self.check_range(target, 0, bytes, "clEnqueueCopyBuffer")?;
        if source == target {
            return Err(BackendError::Call {
                backend: NAME,
                call: "clEnqueueCopyBuffer",
                message: "a buffer onto itself".into(),
            });
        }
        let (low, high) = (source.0.min(target.0), source.0.max(target.0));
        let (head, tail) = self.buffers.split_at_mut(high);
        let (low, high) = (&mut head[low], &mut tail[0]);
        let (from, to) = if source.0 < target.0 { (low, high) } else { (high, low) };
        // SAFETY: both ranges were checked to lie inside their buffers, which are distinct; the in-order queue
        // runs the copy after the work enqueued before it.
        unsafe { self.queue.enqueue_copy_buffer(from, to, 0, 0, bytes, &[]) }.map_err(call("clEnqueueCopyBuffer"))?;
        Ok(())
    }

    fn download_range(&mut self, buffer: BufferId, offset: usize, data: &mut [u8]) -> Result<(), BackendError> {
        self.check_range(buffer, offset, data.len(), "clEnqueueReadBuffer")?;
        let buf = &self.buffers[buffer.0];
        // SAFETY: blocking read of a range checked to lie inside the buffer.
        unsafe { self.queue.enqueue_read_buffer(buf, CL_BLOCKING, offset, data, &[]) }
            .map_err(call("clEnqueueReadBuffer"))?;
        Ok(())
    }

    fn upload_range(&mut self, buffer: BufferId, offset: usize, data: &[u8]) -> Result<(), BackendError> {
        self.check_range(buffer, offset, data.len(), "clEnqueueWriteBuffer")?;
        let buf = &mut self.buffers[buffer.0];
        // SAFETY: blocking write of a range checked to lie inside the buffer.
        unsafe { self.queue.enqueue_write_buffer(buf, CL_BLOCKING, offset, data, &[]) }
            .map_err(call("clEnqueueWriteBuffer"))?;
        Ok(())
    }

    fn free_buffers(&mut self) {
        self.buffers.clear();
        self.buffer_sizes.clear();
    }

    fn run(&mut self, program: ProgramId, launches: &[Launch], repeats: usize) -> Result<Vec<f64>, BackendError> {
        let mut times = Vec::with_capacity(repeats);
        for _ in 0..repeats.max(1) {
            let mut events = Vec::with_capacity(launches.len());
            for launch in launches {
                let kernel = self.programs[program.0].1.get(&launch.kernel).ok_or_else(|| BackendError::Call {
                    backend: NAME,
                    call: "clCreateKernel",
                    message: format!("kernel `{}` is not in the program", launch.kernel),
                })?;
                let mut exec = ExecuteKernel::new(kernel);
                for arg in &launch.args {
                    // SAFETY: argument types match the kernel signature generated with the same launch list.
                    unsafe {
                        match *arg {
                            Arg::Buffer(b) => exec.set_arg(&self.buffers[b.0]),
                            Arg::I32(v) => exec.set_arg(&(v as cl_int)),
                            Arg::F32(v) => exec.set_arg(&(v as cl_float)),
                            Arg::F64(v) => exec.set_arg(&(v as cl_double)),
                        };
                    }
                }
                exec.set_global_work_size(launch.groups * launch.local).set_local_work_size(launch.local);
                // SAFETY: all arguments are set; sizes are multiples of the local size.
                let event = unsafe { exec.enqueue_nd_range(&self.queue) }.map_err(call("clEnqueueNDRangeKernel"))?;
                events.push(event);
            }
            self.queue.finish().map_err(call("clFinish"))?;
            let mut total = 0.0;
            for e in &events {
                let start = e.profiling_command_start().map_err(call("clGetEventProfilingInfo"))?;
                let end = e.profiling_command_end().map_err(call("clGetEventProfilingInfo"))?;
                total += end.saturating_sub(start) as f64 * 1e-9;
            }
            times.push(total);
        }
        Ok(times)
    }

    fn kernel_max_work_group(&self, program: ProgramId, kernel: &str) -> Option<usize> {
        let k = self.programs.get(program.0)?.1.get(kernel)?;
        k.get_work_group_size(self.device.id()).ok()
    }

    fn local_memory(&self) -> usize {
        self.device.local_mem_size().unwrap_or(32 * 1024) as usize
    }

    fn max_work_group(&self) -> usize {
        self.device.max_work_group_size().unwrap_or(256)
    }

    fn supports_f64(&self) -> bool {
        self.device.extensions().map(|e| e.contains("cl_khr_fp64")).unwrap_or(false)
    }
}
