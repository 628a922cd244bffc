//! Measured device ceilings for the roofline: memory bandwidth (the best of a 4-byte and a 16-byte per work item
//! copy of 256 MB on a GPU, 16 MB on a CPU device, and a stream of four reads per write, bytes read and written),
//! fused-multiply-add throughput, the library GEMM's throughput where the device has one, and
//! the tf32 and f64 `m8n8k4` tensor-core instructions' where generated kernels may use them.

use crate::backend::{Arg, BackendError, BufferId, Device, Launch};
use crate::tuning_db::Ceilings;

fn source(cuda: bool) -> String {
    let prelude = if cuda {
        "#define KERNEL extern \"C\" __global__\n#define GPTR\n#define GID ((int)(blockIdx.x * blockDim.x + threadIdx.x))\n"
    } else {
        "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n#define KERNEL __kernel\n#define GPTR __global\n#define GID ((int)get_global_id(0))\n"
    };
    let mut s = prelude.to_string();
    // a 16-byte-per-thread copy: scalar loads alone do not reach the memory system's bandwidth on every GPU
    s.push_str("KERNEL void copy4_f32(GPTR const float4* a, GPTR float4* b, const int n) { const int i = GID; if (i < n) b[i] = a[i]; }\n");
    // four reads per write (an AB3 or Runge-Kutta update's mix), 16 bytes per access, component by
    // component (CUDA's float4 has no arithmetic): HBM serves reads faster than a copy's even mix
    s.push_str("KERNEL void read4_f32(GPTR const float4* a, GPTR const float4* b, GPTR const float4* c, GPTR const float4* d, GPTR float4* e, const int n) { const int i = GID; if (i < n) { const float4 p = a[i], q = b[i], r = c[i], s = d[i]; float4 t; t.x = p.x + q.x + r.x + s.x; t.y = p.y + q.y + r.y + s.y; t.z = p.z + q.z + r.z + s.z; t.w = p.w + q.w + r.w + s.w; e[i] = t; } }\n");
    for (t, name) in [("float", "f32"), ("double", "f64")] {
        s.push_str(&format!(
            "KERNEL void copy_{name}(GPTR const {t}* a, GPTR {t}* b, const int n) {{ const int i = GID; if (i < n) b[i] = a[i]; }}\n\
             KERNEL void fma_{name}(GPTR {t}* out, const {t} x) {{\n  {t} a = ({t})GID * ({t})1e-7, b = a + ({t})1, c = a + ({t})2, d = a + ({t})3;\n  \
             for (int r = 0; r < 1024; ++r) {{ a = a * x + ({t})0.5; b = b * x + ({t})0.5; c = c * x + ({t})0.5; d = d * x + ({t})0.5; }}\n  \
             out[GID] = a + b + c + d;\n}}\n"
        ));
    }
    s
}

/// Chains of `mma.sync.m16n8k8` with tf32 operands, four independent accumulators per warp, 512 rounds: the
/// instruction's throughput as the generated f32 tensor-core kernels issue it.
const MMA_TF32_SOURCE: &str = r#"
extern "C" __global__ void mma_tf32(float* out, const float x) {
    const unsigned a = __float_as_uint(x), b = __float_as_uint(x * 0.5f);
    float c[4][4] = {{0}};
    for (int r = 0; r < 512; ++r) {
#pragma unroll
        for (int j = 0; j < 4; ++j)
            asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                         : "+f"(c[j][0]), "+f"(c[j][1]), "+f"(c[j][2]), "+f"(c[j][3])
                         : "r"(a), "r"(a), "r"(a), "r"(a), "r"(b), "r"(b));
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = c[0][0] + c[1][1] + c[2][2] + c[3][3];
}
"#;

/// Chains of `mma.sync.m8n8k4` with double operands, four independent accumulators per warp, 512 rounds: the
/// instruction's throughput as the 8-row f64 tensor-core kernels issue it (on compute capability 9.0 it runs at
/// half the rate of the larger f64 shapes the library DGEMM uses).
const MMA_F64_M8N8K4_SOURCE: &str = r#"
extern "C" __global__ void mma_f64_m8n8k4(double* out, const double x) {
    const double a = x, b = x * 0.5;
    double c[4][2] = {{0}};
    for (int r = 0; r < 512; ++r) {
#pragma unroll
        for (int j = 0; j < 4; ++j)
            asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};"
                         : "+d"(c[j][0]), "+d"(c[j][1]) : "d"(a), "d"(b));
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = c[0][0] + c[1][1] + c[2][0] + c[3][1];
}
"#;

/// The ceilings of `device`: `stored` where it has every ceiling the device can measure (the library GEMM where the
/// device has one, the tf32 instruction where generated kernels may use it), else measured now (saying so).
pub fn stored_or_measured(stored: Option<Ceilings>, device: &mut dyn Device) -> Result<Ceilings, BackendError> {
    let (gemm, tensor_cores) = (device.supports_gemm(), device.supports_tensor_cores());
    let complete = |c: &Ceilings| {
        (c.gemm_gflops_f32.is_some() || !gemm)
            && ((c.mma_tf32_gflops.is_some() && c.mma_f64_m8n8k4_gflops.is_some()) || !tensor_cores)
    };
    match stored {
        Some(c) if complete(&c) => Ok(c),
        _ => {
            eprintln!(
                "measuring the device's ceilings (bandwidth, FMA, GEMM and tensor-core throughput) for the roofline …"
            );
            measure(device)
        }
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// How much work the bandwidth and FMA kernels do, and how often each is timed.
struct Sizes {
    /// f32 values of each buffer the copies and the stream move.
    values: usize,
    /// Work items of an FMA launch (each 4,096 multiply-adds).
    fma_items: usize,
    /// Untimed launches before each FMA measurement (three before each copy's or the stream's).
    fma_warm: usize,
    /// Timed launches of an FMA kernel (their median counts; twenty of a copy or the stream).
    fma_runs: usize,
}

impl Sizes {
    /// A GPU's: 256 MB buffers (far past its caches) and 16M FMA work items (every multiprocessor full many times
    /// over), two untimed and ten timed FMA launches. A CPU device's (PoCL, which runs the tests): 16 MB buffers and
    /// 65,536 FMA work items, one untimed and three timed launches — the FMA kernels at a GPU's size took a CPU
    /// 15–25 s in every process that met an empty database, and a CPU's figures only scale the roofline's column.
    fn of(gpu: bool) -> Self {
        if gpu {
            Sizes { values: 1 << 26, fma_items: 1 << 24, fma_warm: 2, fma_runs: 10 }
        } else {
            Sizes { values: 1 << 22, fma_items: 1 << 16, fma_warm: 1, fma_runs: 3 }
        }
    }
}

/// Measures memory bandwidth (bytes read + written, the best of two copies and a four-reads-per-write stream) and
/// FMA throughput in f32 and f64 (the FMA kernels smaller on a CPU device).
pub fn measure(device: &mut dyn Device) -> Result<Ceilings, BackendError> {
    let cuda = device.fingerprint().backend == "cuda";
    let kernels = ["copy_f32", "copy4_f32", "read4_f32", "fma_f32", "copy_f64", "fma_f64"].map(String::from);
    let program = device.compile(&source(cuda), &kernels)?;
    let sizes = Sizes::of(device.fingerprint().is_gpu);
    let n = sizes.values;
    let a = device.alloc(n * 4)?;
    let b = device.alloc(n * 4)?;
    let local = 256;
    let groups = n / local;
    let copy = Launch {
        kernel: "copy_f32".into(),
        groups,
        local,
        args: vec![Arg::Buffer(a), Arg::Buffer(b), Arg::I32(n as i32)],
    };
    device.run(program, std::slice::from_ref(&copy), 3)?;
    let t_copy = median(device.run(program, &[copy], 20)?);
    let copy4 = Launch {
        kernel: "copy4_f32".into(),
        groups: n / 4 / local,
        local,
        args: vec![Arg::Buffer(a), Arg::Buffer(b), Arg::I32((n / 4) as i32)],
    };
    device.run(program, std::slice::from_ref(&copy4), 3)?;
    let t_copy4 = median(device.run(program, &[copy4], 20)?);
    let more: Vec<BufferId> = (0..3).map(|_| device.alloc(n * 4)).collect::<Result<_, _>>()?;
    let read4 = Launch {
        kernel: "read4_f32".into(),
        groups: n / 4 / local,
        local,
        args: [a, more[0], more[1], more[2], b]
            .map(Arg::Buffer)
            .into_iter()
            .chain([Arg::I32((n / 4) as i32)])
            .collect(),
    };
    device.run(program, std::slice::from_ref(&read4), 3)?;
    let t_read4 = median(device.run(program, &[read4], 20)?);
    // the best of the three: the ceiling is what the memory system can do, not what one access pattern gets
    let bandwidth_gbs = (2.0 * (n * 4) as f64 / t_copy.min(t_copy4)).max(5.0 * (n * 4) as f64 / t_read4) * 1e-9;
    let threads = sizes.fma_items;
    let mut gflops = [0.0; 2];
    for (slot, (name, x)) in [("fma_f32", Arg::F32(0.999)), ("fma_f64", Arg::F64(0.999))].into_iter().enumerate() {
        let launch = Launch { kernel: name.into(), groups: threads / local, local, args: vec![Arg::Buffer(a), x] };
        if slot == 1 && !device.supports_f64() {
            continue;
        }
        device.run(program, std::slice::from_ref(&launch), sizes.fma_warm)?;
        let t = median(device.run(program, &[launch], sizes.fma_runs)?);
        gflops[slot] = threads as f64 * 1024.0 * 4.0 * 2.0 / t * 1e-9;
    }
    device.free_buffers();
    let (gemm_gflops_f32, gemm_gflops_f64) = if device.supports_gemm() {
        let f32_rate = gemm_gflops(device, program, false)?;
        let f64_rate = if device.supports_f64() { Some(gemm_gflops(device, program, true)?) } else { None };
        (Some(f32_rate), f64_rate)
    } else {
        (None, None)
    };
    let tensor_cores = cuda && device.supports_tensor_cores();
    let mma_tf32_gflops = if tensor_cores { Some(mma_tf32_gflops(device)?) } else { None };
    let mma_f64_m8n8k4_gflops = if tensor_cores { Some(mma_f64_m8n8k4_gflops(device)?) } else { None };
    Ok(Ceilings {
        bandwidth_gbs,
        gflops_f32: gflops[0],
        gflops_f64: gflops[1],
        gemm_gflops_f32,
        gemm_gflops_f64,
        mma_tf32_gflops,
        mma_f64_m8n8k4_gflops,
    })
}

/// The tf32 `mma` instruction's throughput: 2·16·8·8 flops per instruction and warp, 2,048 instructions per warp,
/// 8,192 warps (every multiprocessor full on current GPUs).
fn mma_tf32_gflops(device: &mut dyn Device) -> Result<f64, BackendError> {
    chain_gflops(device, MMA_TF32_SOURCE, "mma_tf32", Arg::F32(0.999), 4, 2.0 * 16.0 * 8.0 * 8.0)
}

/// The f64 `m8n8k4` instruction's throughput: 2·8·8·4 flops per instruction and warp, 2,048 instructions per warp,
/// 8,192 warps.
fn mma_f64_m8n8k4_gflops(device: &mut dyn Device) -> Result<f64, BackendError> {
    chain_gflops(device, MMA_F64_M8N8K4_SOURCE, "mma_f64_m8n8k4", Arg::F64(0.999), 8, 2.0 * 8.0 * 8.0 * 4.0)
}

/// Throughput of a kernel of `source` running 512 rounds of four instructions of `flops` each per warp (chains
/// of one instruction), writing one value of `bytes` per work item.
fn chain_gflops(
    device: &mut dyn Device,
    source: &str,
    kernel: &str,
    x: Arg,
    bytes: usize,
    flops: f64,
) -> Result<f64, BackendError> {
    let program = device.compile(source, &[kernel.to_string()])?;
    let (local, groups) = (256, 1024);
    let out = device.alloc(local * groups * bytes)?;
    let launch = Launch { kernel: kernel.into(), groups, local, args: vec![Arg::Buffer(out), x] };
    device.run(program, std::slice::from_ref(&launch), 2)?;
    let t = median(device.run(program, &[launch], 10)?);
    device.free_buffers();
    let warps = (groups * local / 32) as f64;
    Ok(warps * 512.0 * 4.0 * flops / t * 1e-9)
}

/// The library GEMM's throughput on a square problem of order 8192 (4096 in f64), C ← A·B with β = 0: the
/// arithmetic ceiling of GEMM steps (cuBLAS DGEMM runs on the FP64 tensor cores where the GPU has them, above the
/// FMA pipe's peak).
fn gemm_gflops(device: &mut dyn Device, program: crate::backend::ProgramId, double: bool) -> Result<f64, BackendError> {
    use crate::backend::{Gemm, GemmOperand, Step};
    let n: usize = if double { 4096 } else { 8192 };
    let bytes = n * n * if double { 8 } else { 4 };
    let zeros = vec![0u8; bytes];
    let operand = |device: &mut dyn Device| -> Result<GemmOperand, BackendError> {
        let buffer = device.alloc(bytes)?;
        device.upload(buffer, &zeros)?;
        Ok(GemmOperand { buffer, offset: 0, ld: n })
    };
    let (a, b, c) = (operand(device)?, operand(device)?, operand(device)?);
    let step = Step::Gemm(Gemm { double, m: n, n, k: n, alpha: 1.0, a, b, beta: 0.0, c });
    device.run_steps(program, std::slice::from_ref(&step), 2)?;
    let t = median(device.run_steps(program, &[step], 10)?);
    device.free_buffers();
    Ok(2.0 * (n as f64).powi(3) / t * 1e-9)
}
