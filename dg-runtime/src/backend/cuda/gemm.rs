//! The library routine behind a [`Gemm`] step: cuBLAS's GEMM, or one of the algorithms cublasLt's heuristic
//! offers for the step's shape.
//!
//! On a shape's first use every candidate (cuBLAS and up to [`LT_CANDIDATES`] cublasLt algorithms) runs on the
//! step's own A and B into a scratch copy of C, in [`ROUNDS`] interleaved rounds enqueued back to back (the
//! device never waits for the host between two runs); each candidate's median is its time. The fastest cublasLt
//! algorithm replaces cuBLAS only where it is at least [`MARGIN`] faster *and* its product, from the same C (or
//! from C poisoned with NaN where β = 0), agrees with cuBLAS's to round-off ([`products_agree`]). The choice is
//! kept per shape for the process (a shape met again, on other buffers, runs its routine at once);
//! [`Device::gemm_routines`](super::super::Device::gemm_routines) describes every choice. `DG_GEMM=cublas` keeps
//! cuBLAS everywhere; a missing cublasLt, a heuristic with nothing to offer or scratch memory refused also keep
//! it, and say why in the description.

use super::super::{BackendError, BatchedOperand, Gemm, GemmOperand};
use super::{call, CudaDevice};
use cudarc::cublaslt::{result as lt, sys as lt_sys};
use cudarc::driver::{CudaSlice, DevicePtr};

const BLAS: &str = "cublas";
const LT: &str = "cublaslt";

/// cublasLt algorithms asked of the heuristic per shape.
pub const LT_CANDIDATES: usize = 8;

/// Timed rounds per candidate (after one untimed run each), interleaved so that clock drift favours none.
pub const ROUNDS: usize = 7;

/// The fraction by which a cublasLt algorithm must beat cuBLAS to replace it (noise between runs is below it).
pub const MARGIN: f64 = 0.02;

/// Bytes of cublasLt's workspace (NVIDIA's recommendation for Hopper; enough for earlier cards).
const WORKSPACE_BYTES: usize = 32 << 20;

fn failed(backend: &'static str, call: &'static str, message: impl Into<String>) -> BackendError {
    BackendError::Call { backend, call, message: message.into() }
}

/// What decides a GEMM's routine: precision, sizes, leading dimensions and whether C is read (β ≠ 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) struct GemmShape {
    double: bool,
    m: usize,
    n: usize,
    k: usize,
    lda: usize,
    ldb: usize,
    ldc: usize,
    reads_c: bool,
}

impl GemmShape {
    fn of(g: &Gemm) -> Self {
        Self { double: g.double, m: g.m, n: g.n, k: g.k, lda: g.a.ld, ldb: g.b.ld, ldc: g.c.ld, reads_c: g.beta != 0.0 }
    }

    /// Values from C's first entry to its last.
    fn c_span(&self) -> usize {
        self.ldc * self.n.saturating_sub(1) + self.m
    }

    fn describe(&self) -> String {
        let precision = if self.double { "f64" } else { "f32" };
        let beta = if self.reads_c { "β ≠ 0" } else { "β = 0" };
        format!(
            "{precision} m {} n {} k {} (lda {}, ldb {}, ldc {}, {beta})",
            self.m, self.n, self.k, self.lda, self.ldb, self.ldc
        )
    }
}

/// cublasLt's handle and workspace on the device's stream.
pub(super) struct LtLibrary {
    handle: lt_sys::cublasLtHandle_t,
    workspace: CudaSlice<u8>,
}

// SAFETY: the handle is used only through `&mut CudaDevice`, from one thread at a time.
unsafe impl Send for LtLibrary {}

impl Drop for LtLibrary {
    fn drop(&mut self) {
        // SAFETY: created by `create_handle` and not used after this.
        let _ = unsafe { lt::destroy_handle(self.handle) };
    }
}

/// One cublasLt algorithm bound to a shape: its operation and matrix descriptors.
pub(super) struct LtPlan {
    desc: lt_sys::cublasLtMatmulDesc_t,
    layouts: [lt_sys::cublasLtMatrixLayout_t; 3],
    algo: lt_sys::cublasLtMatmulAlgo_t,
}

// SAFETY: as for `LtLibrary`.
unsafe impl Send for LtPlan {}

impl Drop for LtPlan {
    fn drop(&mut self) {
        // SAFETY: created by `descriptors` and not used after this.
        unsafe {
            let _ = lt::destroy_matmul_desc(self.desc);
            for layout in self.layouts.into_iter().filter(|l| !l.is_null()) {
                let _ = lt::destroy_matrix_layout(layout);
            }
        }
    }
}

/// The routine chosen for a shape, with the reason in words.
pub(super) enum GemmRoutine {
    /// cuBLAS's GEMM.
    Blas { why: String },
    /// A cublasLt algorithm.
    Lt { plan: LtPlan, why: String },
}

impl GemmRoutine {
    fn blas(why: impl Into<String>) -> Self {
        Self::Blas { why: why.into() }
    }
}

/// The device addresses of A, B and C.
#[derive(Clone, Copy)]
struct Addresses {
    a: u64,
    b: u64,
    c: u64,
}

/// The operation and matrix descriptors of `shape` (no algorithm yet).
fn descriptors(shape: &GemmShape) -> Result<LtPlan, lt::CublasError> {
    use lt_sys::{cublasComputeType_t as Compute, cudaDataType_t as Data};
    let (data, compute) = if shape.double {
        (Data::CUDA_R_64F, Compute::CUBLAS_COMPUTE_64F)
    } else {
        (Data::CUDA_R_32F, Compute::CUBLAS_COMPUTE_32F)
    };
    let desc = lt::create_matmul_desc(compute, data)?;
    let mut plan =
        LtPlan { desc, layouts: [std::ptr::null_mut(); 3], algo: lt_sys::cublasLtMatmulAlgo_t { data: [0; 8] } };
    let sizes = [(shape.m, shape.k, shape.lda), (shape.k, shape.n, shape.ldb), (shape.m, shape.n, shape.ldc)];
    for (layout, (rows, cols, ld)) in plan.layouts.iter_mut().zip(sizes) {
        *layout = lt::create_matrix_layout(data, rows as u64, cols as u64, ld as i64)?;
    }
    Ok(plan)
}

/// Whether `tried` equals `reference` to round-off over C's m rows of n columns (leading dimension `ld`):
/// every entry within 16·k·ε of the largest finite reference entry, and non-finite exactly where the reference
/// is (a NaN in `tried` where the reference is finite fails: no comparison that drops NaN). `Err` names the
/// first disagreement.
pub fn products_agree(
    reference: &[f64],
    tried: &[f64],
    (m, n, ld): (usize, usize, usize),
    k: usize,
    epsilon: f64,
) -> Result<(), String> {
    let entries = || (0..n).flat_map(move |j| (0..m).map(move |i| (i, j, j * ld + i)));
    if let Some((_, _, last)) = entries().last() {
        if last >= reference.len() || last >= tried.len() {
            return Err(format!(
                "C's span ends at {last}, past the {} compared values",
                reference.len().min(tried.len())
            ));
        }
    }
    let scale =
        entries().map(|(_, _, at)| reference[at]).filter(|r| r.is_finite()).fold(0.0_f64, |s, r| s.max(r.abs()));
    let bound = 16.0 * k.max(1) as f64 * epsilon * scale;
    for (i, j, at) in entries() {
        let (r, t) = (reference[at], tried[at]);
        let agrees = if r.is_finite() { (t - r).abs() <= bound } else { !t.is_finite() };
        if !agrees {
            return Err(format!("C({i}, {j}) = {t:e} against cuBLAS's {r:e} (bound {bound:e})"));
        }
    }
    Ok(())
}

/// The candidate to run: `None` for cuBLAS, or the cublasLt algorithm of that index, with the reason.
/// `times[0]` is cuBLAS's median, `times[1..]` the cublasLt algorithms' in the heuristic's order.
pub fn fastest_candidate(times: &[f64]) -> (Option<usize>, String) {
    let Some((&blas, lt)) = times.split_first() else {
        return (None, "nothing timed".into());
    };
    let best = lt.iter().enumerate().filter(|(_, t)| t.is_finite()).min_by(|a, b| a.1.total_cmp(b.1));
    match best {
        Some((index, &t)) if t <= (1.0 - MARGIN) * blas => (
            Some(index),
            format!(
                "cublasLt algorithm {index} of {}: {:.1} µs, {:.3}× cuBLAS's {:.1} µs",
                lt.len(),
                t * 1e6,
                blas / t,
                blas * 1e6
            ),
        ),
        Some((index, &t)) => (
            None,
            format!(
                "cuBLAS: {:.1} µs; the fastest of {} cublasLt algorithms ({index}, {:.1} µs, {:.3}×) is within \
                 the {:.0} % margin",
                blas * 1e6,
                lt.len(),
                t * 1e6,
                blas / t,
                MARGIN * 100.0
            ),
        ),
        None => (None, "cuBLAS: no cublasLt algorithm ran".into()),
    }
}

/// The values of a downloaded C as f64.
fn values_of(bytes: &[u8], double: bool) -> Vec<f64> {
    if double {
        bytes.chunks_exact(8).map(|c| f64::from_ne_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]])).collect()
    } else {
        bytes.chunks_exact(4).map(|c| f32::from_ne_bytes([c[0], c[1], c[2], c[3]]) as f64).collect()
    }
}

impl CudaDevice {
    /// cuBLAS on this device's stream (loaded on first use).
    pub(super) fn blas(&mut self) -> Result<&cudarc::cublas::CudaBlas, BackendError> {
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
            Some(Err(message)) => Err(BackendError::Unavailable { backend: BLAS, message: message.clone() }),
            None => unreachable!("set above"),
        }
    }

    /// cublasLt on this device's stream (loaded on first use); `Err` says why it cannot be used.
    fn lt_library(&mut self) -> Result<&LtLibrary, String> {
        if self.lt.is_none() {
            // SAFETY: only tries to dlopen the library.
            let present = unsafe { lt_sys::is_culib_present() };
            self.lt = Some(if !present {
                Err("libcublasLt not found".into())
            } else {
                lt::create_handle().map_err(|e| format!("cublasLtCreate: {e:?}")).and_then(|handle| {
                    // SAFETY: raw bytes, used by cublasLt only.
                    match unsafe { self.stream.alloc::<u8>(WORKSPACE_BYTES) } {
                        Ok(workspace) => Ok(LtLibrary { handle, workspace }),
                        Err(e) => {
                            // SAFETY: created just above, not used after this.
                            let _ = unsafe { lt::destroy_handle(handle) };
                            Err(format!("its workspace was refused: {e:?}"))
                        }
                    }
                })
            });
        }
        match self.lt.as_ref() {
            Some(Ok(library)) => Ok(library),
            Some(Err(message)) => Err(message.clone()),
            None => unreachable!("set above"),
        }
    }

    /// Every GEMM shape met so far and its routine, in words (for reports).
    pub(super) fn describe_gemm_routines(&self) -> Vec<String> {
        let mut lines: Vec<String> = self
            .routines
            .iter()
            .map(|(shape, routine)| {
                let why = match routine {
                    GemmRoutine::Blas { why } | GemmRoutine::Lt { why, .. } => why,
                };
                format!("{}: {why}", shape.describe())
            })
            .collect();
        lines.sort();
        lines
    }

    /// The checked device addresses of `g`'s operands (each must lie inside its buffer).
    fn gemm_addresses(&self, g: &Gemm) -> Result<Addresses, BackendError> {
        let size = if g.double { 8 } else { 4 };
        let base = |o: &GemmOperand, rows, cols| {
            let single = BatchedOperand { buffer: o.buffer, offset: o.offset, ld: o.ld, stride: 0 };
            self.batched_base(&single, rows, cols, 1, size, "gemm")
        };
        Ok(Addresses { a: base(&g.a, g.m, g.k)?, b: base(&g.b, g.k, g.n)?, c: base(&g.c, g.m, g.n)? })
    }

    /// One GEMM on the stream through the routine chosen for its shape (chosen now on the shape's first use).
    pub(super) fn gemm(&mut self, g: &Gemm) -> Result<(), BackendError> {
        let sizes = [g.m, g.n, g.k, g.a.ld, g.b.ld, g.c.ld];
        if sizes.iter().any(|&v| v > i32::MAX as usize) {
            return Err(failed(BLAS, "gemm", "a size exceeds i32"));
        }
        let at = self.gemm_addresses(g)?;
        let shape = GemmShape::of(g);
        if !self.routines.contains_key(&shape) {
            let routine = self.choose_routine(g, &shape, at)?;
            self.routines.insert(shape, routine);
        }
        match self.routines.get(&shape) {
            Some(GemmRoutine::Lt { plan, .. }) => self.lt_gemm(plan, g, at),
            _ => self.blas_gemm(g, at),
        }
    }

    /// `g` through cuBLAS at the given addresses.
    fn blas_gemm(&mut self, g: &Gemm, at: Addresses) -> Result<(), BackendError> {
        use cudarc::cublas::{result, sys};
        let [m, n, k, lda, ldb, ldc] = [g.m, g.n, g.k, g.a.ld, g.b.ld, g.c.ld].map(|v| v as i32);
        let handle = *self.blas()?.handle();
        let op = sys::cublasOperation_t::CUBLAS_OP_N;
        let (a, b, c) = (at.a, at.b, at.c);
        // SAFETY: `gemm_addresses` checked that the matrices lie inside their buffers; the handle works on this
        // device's stream.
        let outcome = unsafe {
            if g.double {
                let (alpha, beta) = (g.alpha, g.beta);
                result::dgemm(handle, op, op, m, n, k, &alpha, a as _, lda, b as _, ldb, &beta, c as _, ldc)
            } else {
                let (alpha, beta) = (g.alpha as f32, g.beta as f32);
                result::sgemm(handle, op, op, m, n, k, &alpha, a as _, lda, b as _, ldb, &beta, c as _, ldc)
            }
        };
        outcome.map_err(|e| failed(BLAS, "gemm", format!("{e:?}")))
    }

    /// `g` through the cublasLt algorithm `plan` at the given addresses.
    fn lt_gemm(&self, plan: &LtPlan, g: &Gemm, at: Addresses) -> Result<(), BackendError> {
        let Some(Ok(library)) = self.lt.as_ref() else {
            return Err(failed(LT, "cublasLtMatmul", "cublasLt is not loaded"));
        };
        let (w, _record) = library.workspace.device_ptr(&self.stream);
        let (alpha32, beta32) = (g.alpha as f32, g.beta as f32);
        let (alpha, beta): (*const std::ffi::c_void, *const std::ffi::c_void) = if g.double {
            (&g.alpha as *const f64 as _, &g.beta as *const f64 as _)
        } else {
            (&alpha32 as *const f32 as _, &beta32 as *const f32 as _)
        };
        let [la, lb, lc] = plan.layouts;
        // SAFETY: the descriptors describe `g`'s shape, whose matrices `gemm_addresses` checked; the scalars
        // live until the call returns (host pointer mode); the workspace is the library's, on this stream.
        unsafe {
            lt::matmul(
                library.handle,
                plan.desc,
                alpha,
                beta,
                at.a as _,
                la,
                at.b as _,
                lb,
                at.c as _,
                lc,
                at.c as _,
                lc,
                &plan.algo,
                w as _,
                WORKSPACE_BYTES,
                self.stream.cu_stream() as _,
            )
        }
        .map_err(|e| failed(LT, "cublasLtMatmul", format!("{e:?}")))
    }

    /// The routine for `shape`, timed and checked on `g`'s operands as the module's text says. Errors of the
    /// search itself (a refused scratch buffer, a heuristic that fails) keep cuBLAS; only a failing device does
    /// not.
    fn choose_routine(&mut self, g: &Gemm, shape: &GemmShape, at: Addresses) -> Result<GemmRoutine, BackendError> {
        if std::env::var("DG_GEMM").is_ok_and(|v| v == "cublas") {
            return Ok(GemmRoutine::blas("cuBLAS (DG_GEMM=cublas)"));
        }
        self.blas()?;
        if let Err(why) = self.lt_library() {
            return Ok(GemmRoutine::blas(format!("cuBLAS ({why})")));
        }
        let plans = match self.lt_candidates(shape) {
            Ok(plans) if plans.is_empty() => return Ok(GemmRoutine::blas("cuBLAS (cublasLt offers no algorithm)")),
            Ok(plans) => plans,
            Err(e) => return Ok(GemmRoutine::blas(format!("cuBLAS (cublasLt's heuristic: {e:?})"))),
        };
        let size = if g.double { 8 } else { 4 };
        let bytes = shape.c_span() * size;
        // two scratch copies of C: the candidates' output, and cuBLAS's product for the check
        // SAFETY: raw bytes, written before they are read.
        let scratch = unsafe { (self.stream.alloc::<u8>(bytes), self.stream.alloc::<u8>(bytes)) };
        let (Ok(mut tried), Ok(mut reference)) = scratch else {
            return Ok(GemmRoutine::blas("cuBLAS (no device memory for the scratch copies of C to time cublasLt)"));
        };
        if shape.reads_c {
            self.copy_c(g, &mut tried)?;
        }
        let scratch_c = { tried.device_ptr(&self.stream).0 };
        let on_scratch = Addresses { c: scratch_c, ..at };
        // interleaved rounds, each starting at the next candidate, all enqueued before one wait: the device never
        // idles between two runs, so no run's time holds the host's launch latency (a wait per round charged it
        // to the round's first run); the first round untimed
        let candidates = plans.len() + 1;
        let mut events = Vec::with_capacity(ROUNDS * candidates);
        for round in 0..=ROUNDS {
            for turn in 0..candidates {
                let candidate = (round + turn) % candidates;
                let start = if round > 0 { Some(self.event()?) } else { None };
                match candidate {
                    0 => self.blas_gemm(g, on_scratch)?,
                    i => self.lt_gemm(&plans[i - 1], g, on_scratch)?,
                }
                if let Some(start) = start {
                    events.push((candidate, start, self.event()?));
                }
            }
        }
        self.stream.synchronize().map_err(call("cuStreamSynchronize"))?;
        let mut times = vec![Vec::with_capacity(ROUNDS); candidates];
        for (candidate, start, end) in &events {
            times[*candidate].push(start.elapsed_ms(end).map_err(call("cuEventElapsedTime"))? as f64 * 1e-3);
        }
        let medians: Vec<f64> = times.into_iter().map(|t| crate::formulation::median_and_spread(t).0).collect();
        let (pick, why) = fastest_candidate(&medians);
        let Some(index) = pick else {
            return Ok(GemmRoutine::blas(why));
        };
        // the check: cuBLAS's product and the algorithm's from the same C (NaN where C is not read)
        if shape.reads_c {
            self.copy_c(g, &mut tried)?;
            self.copy_c(g, &mut reference)?;
        } else {
            // SAFETY: the scratch buffer's own bytes, on its stream.
            unsafe { cudarc::driver::result::memset_d8_async(scratch_c, 0xFF, bytes, self.stream.cu_stream()) }
                .map_err(call("cuMemsetD8Async"))?;
        }
        let reference_c = { reference.device_ptr(&self.stream).0 };
        self.blas_gemm(g, Addresses { c: reference_c, ..at })?;
        self.lt_gemm(&plans[index], g, on_scratch)?;
        let mut host = (Vec::new(), Vec::new());
        if host.0.try_reserve_exact(bytes).is_err() || host.1.try_reserve_exact(bytes).is_err() {
            return Ok(GemmRoutine::blas(format!("cuBLAS (no host memory to check cublasLt's product; {why})")));
        }
        host.0.resize(bytes, 0u8);
        host.1.resize(bytes, 0u8);
        self.stream.memcpy_dtoh(&reference, host.0.as_mut_slice()).map_err(call("cuMemcpyDtoH"))?;
        self.stream.memcpy_dtoh(&tried, host.1.as_mut_slice()).map_err(call("cuMemcpyDtoH"))?;
        self.stream.synchronize().map_err(call("cuStreamSynchronize"))?;
        let epsilon = if g.double { f64::EPSILON } else { f32::EPSILON as f64 };
        let (r, t) = (values_of(&host.0, g.double), values_of(&host.1, g.double));
        match products_agree(&r, &t, (g.m, g.n, g.c.ld), g.k, epsilon) {
            Ok(()) => {
                let plan = plans.into_iter().nth(index).ok_or_else(|| failed(LT, "choose", "lost the plan"))?;
                Ok(GemmRoutine::Lt { plan, why: format!("{why}; its product checked against cuBLAS's") })
            }
            Err(disagreement) => Ok(GemmRoutine::blas(format!(
                "cuBLAS: cublasLt algorithm {index} was faster but its product disagrees ({disagreement})"
            ))),
        }
    }

    /// Copies `g`'s C (its span from the first entry to the last) into `scratch`, on the stream.
    fn copy_c(&self, g: &Gemm, scratch: &mut CudaSlice<u8>) -> Result<(), BackendError> {
        let size = if g.double { 8 } else { 4 };
        let start = g.c.offset * size;
        let live = self.buffers[g.c.buffer.0].slice(start..start + scratch.len());
        self.stream.memcpy_dtod(&live, scratch).map_err(call("cuMemcpyDtoD"))
    }

    /// The algorithms cublasLt's heuristic offers for `shape` (at most [`LT_CANDIDATES`]), each with its own
    /// descriptors.
    fn lt_candidates(&mut self, shape: &GemmShape) -> Result<Vec<LtPlan>, lt::CublasError> {
        let handle = match self.lt.as_ref() {
            Some(Ok(library)) => library.handle,
            _ => return Ok(Vec::new()),
        };
        let probe = descriptors(shape)?;
        let pref = lt::create_matmul_pref()?;
        let workspace = WORKSPACE_BYTES;
        // SAFETY: the descriptors and the preference were created above and are destroyed below.
        let found = unsafe {
            let set = lt::set_matmul_pref_attribute(
                pref,
                lt_sys::cublasLtMatmulPreferenceAttributes_t::CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                &workspace as *const usize as _,
                std::mem::size_of::<usize>(),
            );
            let mut results = [std::mem::zeroed::<lt_sys::cublasLtMatmulHeuristicResult_t>(); LT_CANDIDATES];
            let mut count = 0;
            let [la, lb, lc] = probe.layouts;
            let outcome = set.and_then(|()| {
                lt_sys::cublasLtMatmulAlgoGetHeuristic(
                    handle,
                    probe.desc,
                    la,
                    lb,
                    lc,
                    lc,
                    pref,
                    LT_CANDIDATES as i32,
                    results.as_mut_ptr(),
                    &mut count,
                )
                .result()
            });
            let _ = lt::destroy_matmul_pref(pref);
            outcome?;
            results
                .into_iter()
                .take(count.max(0) as usize)
                .filter(|r| r.state == lt_sys::cublasStatus_t::CUBLAS_STATUS_SUCCESS)
                .map(|r| r.algo)
                .collect::<Vec<_>>()
        };
        found
            .into_iter()
            .map(|algo| {
                // (not `LtPlan { algo, ..plan }`: that copies the descriptors, then drops them with `plan`)
                let mut plan = descriptors(shape)?;
                plan.algo = algo;
                Ok(plan)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agreeing_products_pass_and_every_kind_of_disagreement_fails() {
        // 3 × 2 in a leading dimension of 4 (the padding row is not compared)
        let reference = vec![1.0, -2.0, 3.0, 99.0, 0.5, 4.0, -1.0, 99.0];
        let mut close = reference.clone();
        close[1] += 1e-6;
        close[3] = f64::NAN; // padding
        assert!(products_agree(&reference, &close, (3, 2, 4), 10, f32::EPSILON as f64).is_ok());
        let mut wrong = reference.clone();
        wrong[5] = 4.1;
        assert!(products_agree(&reference, &wrong, (3, 2, 4), 10, f32::EPSILON as f64).is_err());
        let mut nan = reference.clone();
        nan[6] = f64::NAN;
        assert!(products_agree(&reference, &nan, (3, 2, 4), 10, f32::EPSILON as f64).is_err());
        // an entry cuBLAS left non-finite must stay so
        let mut poisoned = reference.clone();
        poisoned[0] = f64::INFINITY;
        assert!(products_agree(&poisoned, &reference, (3, 2, 4), 10, f32::EPSILON as f64).is_err());
        assert!(products_agree(&poisoned, &poisoned, (3, 2, 4), 10, f32::EPSILON as f64).is_ok());
        // a span longer than the data is refused, not indexed
        assert!(products_agree(&reference[..6], &reference[..6], (3, 2, 4), 10, 1e-7).is_err());
    }

    #[test]
    fn a_cublaslt_algorithm_must_beat_cublas_by_the_margin() {
        assert_eq!(fastest_candidate(&[100e-6, 99e-6, 101e-6]).0, None);
        assert_eq!(fastest_candidate(&[100e-6, 99e-6, 97e-6, f64::NAN]).0, Some(1));
        assert_eq!(fastest_candidate(&[100e-6, f64::INFINITY]).0, None);
        assert_eq!(fastest_candidate(&[100e-6]).0, None);
        assert_eq!(fastest_candidate(&[]).0, None);
    }
}
