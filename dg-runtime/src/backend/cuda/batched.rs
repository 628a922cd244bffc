//! cuBLAS's batched routines on the device's stream: strided batched GEMM, and LU without pivoting with its two
//! triangular solves through the pointer arrays those routines take (built once per operand and kept until the
//! buffers are released).

use super::super::{BackendError, BatchedBlas, BatchedOperand, BufferId};
use super::CudaDevice;
use cudarc::cublas::sys;
use cudarc::driver::{CudaSlice, DevicePtr};

const NAME: &str = "cublas";

fn failed(call: &'static str, message: impl Into<String>) -> BackendError {
    BackendError::Call { backend: NAME, call, message: message.into() }
}

fn int(value: usize, call: &'static str) -> Result<i32, BackendError> {
    i32::try_from(value).map_err(|_| failed(call, format!("{value} exceeds cuBLAS's 32-bit sizes")))
}

fn status(outcome: sys::cublasStatus_t, call: &'static str) -> Result<(), BackendError> {
    if outcome == sys::cublasStatus_t::CUBLAS_STATUS_SUCCESS {
        Ok(())
    } else {
        Err(failed(call, format!("{outcome:?}")))
    }
}

/// The key of a pointer array: buffer, offset, stride, batch.
pub(super) type PointerKey = (usize, usize, usize, usize);

impl CudaDevice {
    /// The device address of `operand`'s first matrix, after checking that its last matrix (`rows` × `cols`) lies
    /// inside its buffer (a single matrix: `batch` = 1).
    pub(super) fn batched_base(
        &self,
        operand: &BatchedOperand,
        rows: usize,
        cols: usize,
        batch: usize,
        size: usize,
        call: &'static str,
    ) -> Result<u64, BackendError> {
        let Some(buffer) = self.buffers.get(operand.buffer.0) else {
            return Err(failed(call, "unknown buffer"));
        };
        if operand.ld < rows.max(1) {
            return Err(failed(call, format!("leading dimension {} below the {rows} rows", operand.ld)));
        }
        let last = batch
            .checked_sub(1)
            .and_then(|b| b.checked_mul(operand.stride))
            .and_then(|v| v.checked_add(operand.offset))
            .and_then(|v| v.checked_add(operand.ld * cols.saturating_sub(1) + rows))
            .ok_or_else(|| failed(call, "an empty batch or a size overflow"))?;
        if last * size > buffer.len() {
            return Err(failed(call, "a matrix (of the batch) lies outside its buffer"));
        }
        let (base, _record) = buffer.device_ptr(&self.stream);
        Ok(base + (operand.offset * size) as u64)
    }

    /// The device array of the batch's matrix addresses (built on first use).
    fn pointer_array(
        &mut self,
        operand: &BatchedOperand,
        batch: usize,
        base: u64,
        size: usize,
    ) -> Result<u64, BackendError> {
        let key = (operand.buffer.0, operand.offset, operand.stride, batch);
        if !self.pointer_arrays.contains_key(&key) {
            let addresses: Vec<u64> = (0..batch).map(|i| base + (i * operand.stride * size) as u64).collect();
            let array: CudaSlice<u64> =
                self.stream.clone_htod(&addresses).map_err(|e| failed("cuMemcpyHtoD", format!("{e:?}")))?;
            self.pointer_arrays.insert(key, array);
        }
        let array = &self.pointer_arrays[&key];
        let (address, _record) = array.device_ptr(&self.stream);
        Ok(address)
    }

    /// Enqueues one batched routine on the stream.
    pub(super) fn batched(&mut self, step: &BatchedBlas) -> Result<(), BackendError> {
        let handle = *self.blas()?.handle();
        match *step {
            BatchedBlas::Gemm { double, m, n, k, alpha, a, b, beta, c, batch } => {
                let call = "gemmStridedBatched";
                let size = if double { 8 } else { 4 };
                let pa = self.batched_base(&a, m, k, batch, size, call)?;
                let pb = self.batched_base(&b, k, n, batch, size, call)?;
                let pc = self.batched_base(&c, m, n, batch, size, call)?;
                let (m, n, k, count) = (int(m, call)?, int(n, call)?, int(k, call)?, int(batch, call)?);
                let (lda, ldb, ldc) = (int(a.ld, call)?, int(b.ld, call)?, int(c.ld, call)?);
                let [sa, sb, sc] = [a.stride, b.stride, c.stride].map(|s| s as i64);
                let op = sys::cublasOperation_t::CUBLAS_OP_N;
                // SAFETY: every matrix of the batch was checked to lie inside its buffer; the handle works on this
                // device's stream, which orders every access to the buffers.
                let outcome = unsafe {
                    if double {
                        sys::cublasDgemmStridedBatched(
                            handle, op, op, m, n, k, &alpha, pa as _, lda, sa, pb as _, ldb, sb, &beta, pc as _, ldc,
                            sc, count,
                        )
                    } else {
                        let (alpha, beta) = (alpha as f32, beta as f32);
                        sys::cublasSgemmStridedBatched(
                            handle, op, op, m, n, k, &alpha, pa as _, lda, sa, pb as _, ldb, sb, &beta, pc as _, ldc,
                            sc, count,
                        )
                    }
                };
                status(outcome, call)
            }
            BatchedBlas::LuFactor { double, n, a, batch, info } => {
                let call = "getrfBatched";
                let size = if double { 8 } else { 4 };
                let base = self.batched_base(&a, n, n, batch, size, call)?;
                let info_ptr = self.info_pointer(info, batch, call)?;
                let pointers = self.pointer_array(&a, batch, base, size)?;
                let (n, lda, count) = (int(n, call)?, int(a.ld, call)?, int(batch, call)?);
                // SAFETY: as for the GEMM; a null pivot array asks for the factorisation without pivoting.
                let outcome = unsafe {
                    if double {
                        sys::cublasDgetrfBatched(
                            handle,
                            n,
                            pointers as _,
                            lda,
                            std::ptr::null_mut(),
                            info_ptr as _,
                            count,
                        )
                    } else {
                        sys::cublasSgetrfBatched(
                            handle,
                            n,
                            pointers as _,
                            lda,
                            std::ptr::null_mut(),
                            info_ptr as _,
                            count,
                        )
                    }
                };
                status(outcome, call)
            }
            BatchedBlas::LuSolve { double, n, nrhs, lu, b, batch } => {
                let call = "trsmBatched";
                let size = if double { 8 } else { 4 };
                let base_lu = self.batched_base(&lu, n, n, batch, size, call)?;
                let base_b = self.batched_base(&b, n, nrhs, batch, size, call)?;
                let factors = self.pointer_array(&lu, batch, base_lu, size)?;
                let sides = self.pointer_array(&b, batch, base_b, size)?;
                let (n, nrhs, lda, ldb, count) =
                    (int(n, call)?, int(nrhs, call)?, int(lu.ld, call)?, int(b.ld, call)?, int(batch, call)?);
                let left = sys::cublasSideMode_t::CUBLAS_SIDE_LEFT;
                let op = sys::cublasOperation_t::CUBLAS_OP_N;
                let triangles = [
                    (sys::cublasFillMode_t::CUBLAS_FILL_MODE_LOWER, sys::cublasDiagType_t::CUBLAS_DIAG_UNIT),
                    (sys::cublasFillMode_t::CUBLAS_FILL_MODE_UPPER, sys::cublasDiagType_t::CUBLAS_DIAG_NON_UNIT),
                ];
                for (fill, diag) in triangles {
                    // SAFETY: as for the GEMM: L then U, each solved in place on every right-hand side.
                    let outcome = unsafe {
                        if double {
                            sys::cublasDtrsmBatched(
                                handle,
                                left,
                                fill,
                                op,
                                diag,
                                n,
                                nrhs,
                                &1.0f64,
                                factors as _,
                                lda,
                                sides as _,
                                ldb,
                                count,
                            )
                        } else {
                            sys::cublasStrsmBatched(
                                handle,
                                left,
                                fill,
                                op,
                                diag,
                                n,
                                nrhs,
                                &1.0f32,
                                factors as _,
                                lda,
                                sides as _,
                                ldb,
                                count,
                            )
                        }
                    };
                    status(outcome, call)?;
                }
                Ok(())
            }
        }
    }

    /// The address of `info`, after checking it holds `batch` integers.
    fn info_pointer(&self, info: BufferId, batch: usize, call: &'static str) -> Result<u64, BackendError> {
        let Some(buffer) = self.buffers.get(info.0) else {
            return Err(failed(call, "unknown info buffer"));
        };
        if buffer.len() < batch * 4 {
            return Err(failed(call, "the info buffer holds fewer integers than the batch has matrices"));
        }
        let (address, _record) = buffer.device_ptr(&self.stream);
        Ok(address)
    }
}
