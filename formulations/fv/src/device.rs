//! The finite-volume step on a compute device: the grid's state in variable-major arrays, one compiled program,
//! the launches of one split step of a variant (x-sweep, then the y-sweep as the variant reaches the columns,
//! the source added by the last sweep) and the step limit with the admissibility check, reduced per work group.

use crate::grid::{FvGrid, Side};
use crate::render::{render_fv, sweep_name, FvProgram, SweepKernel, MARCH};
use crate::variant::{Faces, FvVariant, Transpose};
use dg_codegen::{LawInput, Precision, Target};
use dg_core::Real;
use dg_ir::LawIr;
use dg_runtime::backend::{as_bytes, as_bytes_mut, Arg, BackendError, BufferId, Device, Launch, ProgramId, Step};
use dg_runtime::DeviceOperatorError;

/// Work groups of the step-limit reduction (each strides over the cells).
const LIMIT_GROUPS: usize = 512;

/// Device buffers of one finite-volume operator.
#[derive(Debug, Clone, Copy)]
pub struct FvBuffers {
    /// The state.
    pub q: BufferId,
    /// After the x-sweep.
    pub scratch: BufferId,
    /// Transposed state (tiled and naive variants).
    pub transposed: BufferId,
    /// Transposed state after the y-sweep.
    pub transposed_out: BufferId,
    /// Per-group step limits and admissibility flags.
    pub limits: BufferId,
    /// A second state (verification writes a step's result here, poisoned before).
    pub result: BufferId,
}

/// The finite-volume operator of one law and precision on a grid, on a device.
pub struct FvDeviceOperator<T: Real> {
    program: FvProgram,
    program_id: ProgramId,
    /// The buffers (public for verification, which fills them with test data).
    pub buffers: FvBuffers,
    grid: FvGrid,
    _t: std::marker::PhantomData<T>,
}

fn side_code(side: Side) -> i32 {
    match side {
        Side::Periodic => -1,
        Side::Condition(bc) => bc as i32,
    }
}

impl<T: Real> FvDeviceOperator<T> {
    /// Renders and compiles the program and allocates the grid's buffers.
    pub fn new(
        device: &mut dyn Device,
        target: Target,
        law: (&LawIr, &[f64], &str),
        grid: &FvGrid,
    ) -> Result<Self, DeviceOperatorError> {
        let precision = dg_runtime::formulation::precision_of::<T>();
        if precision == Precision::F64 && !device.supports_f64() {
            return Err(DeviceOperatorError::Precision("the device has no double precision".into()));
        }
        grid.check().map_err(DeviceOperatorError::Precision)?;
        let (ir, params, numerical_flux) = law;
        let program = render_fv(&LawInput { ir, params, numerical_flux }, precision, target)?;
        let program_id = device.compile(&program.source, &program.kernels)?;
        let n = grid.cells() * program.nvars;
        dg_runtime::operator_error::check_index_range(&[("the state", n)])?;
        let bytes = n * std::mem::size_of::<T>();
        let buffers = FvBuffers {
            q: device.alloc_zeroed(bytes)?,
            scratch: device.alloc_zeroed(bytes)?,
            transposed: device.alloc_zeroed(bytes)?,
            transposed_out: device.alloc_zeroed(bytes)?,
            limits: device.alloc_zeroed(2 * LIMIT_GROUPS * std::mem::size_of::<T>())?,
            result: device.alloc_zeroed(bytes)?,
        };
        Ok(Self { program, program_id, buffers, grid: grid.clone(), _t: std::marker::PhantomData })
    }

    /// The program.
    pub fn program(&self) -> &FvProgram {
        &self.program
    }

    #[allow(clippy::too_many_arguments)]
    fn sweep(
        &self,
        (kind, order, width): (SweepKernel, usize, usize),
        (from, to): (BufferId, BufferId),
        (len, cstride, lstride): (usize, usize, usize),
        axis: usize,
        apply_source: bool,
        (dt, t): (f64, f64),
    ) -> Step {
        let g = &self.grid;
        let h = g.spacing();
        let k = g.cells();
        let lines = k / len;
        // work items (K) and groups of each kind
        let (items, groups) = match kind {
            SweepKernel::Cell { .. } => (k, k.div_ceil(width)),
            SweepKernel::Line => (k, lines * len.div_ceil(width - order)),
            SweepKernel::March => {
                let n = lines * len.div_ceil(MARCH);
                (n, n.div_ceil(width))
            }
        };
        Step::Kernel(Launch {
            kernel: sweep_name(kind, order, width),
            groups,
            local: width,
            args: vec![
                Arg::Buffer(from),
                Arg::Buffer(to),
                Arg::I32(len as i32),
                Arg::I32(lines as i32),
                Arg::I32(cstride as i32),
                Arg::I32(lstride as i32),
                Arg::I32(axis as i32),
                Arg::I32(side_code(g.sides[2 * axis])),
                Arg::I32(side_code(g.sides[2 * axis + 1])),
                Arg::real::<T>(dt / h[axis]),
                Arg::real::<T>(t),
                Arg::real::<T>(dt),
                Arg::real::<T>(g.origin()[0]),
                Arg::real::<T>(g.origin()[1]),
                Arg::real::<T>(h[0]),
                Arg::real::<T>(h[1]),
                Arg::I32(apply_source as i32),
                Arg::I32(matches!(kind, SweepKernel::Cell { across: true }) as i32),
                Arg::I32(k as i32),
                Arg::I32(items as i32),
            ],
        })
    }

    fn transpose(&self, tiled: bool, (from, to): (BufferId, BufferId), rows: usize, cols: usize) -> Step {
        let k = rows * cols;
        let (kernel, groups) = if tiled {
            ("fv_transpose_tiled", cols.div_ceil(32) * rows.div_ceil(32))
        } else {
            ("fv_transpose_naive", k.div_ceil(256))
        };
        Step::Kernel(Launch {
            kernel: kernel.into(),
            groups,
            local: 256,
            args: vec![
                Arg::Buffer(from),
                Arg::Buffer(to),
                Arg::I32(rows as i32),
                Arg::I32(cols as i32),
                Arg::I32(k as i32),
                Arg::I32(k as i32),
            ],
        })
    }

    /// The launches of one split step of `q` (in place, through the scratch buffers) with reconstruction `order`
    /// (1 or 2), step `dt` at time `t`.
    pub fn step_steps(&self, variant: &FvVariant, order: usize, dt: f64, t: f64) -> Vec<Step> {
        self.step_steps_into(variant, order, (dt, t), self.buffers.q)
    }

    /// [`Self::step_steps`] with the new state written to `to` (`q` is then left as it was unless `to` is `q`).
    pub fn step_steps_into(&self, variant: &FvVariant, order: usize, (dt, t): (f64, f64), to: BufferId) -> Vec<Step> {
        let b = &self.buffers;
        let (nx, ny) = (self.grid.nx, self.grid.ny);
        let once = variant.faces == Faces::Once;
        // the kernel of a sweep along contiguous or strided lines, and of the across y-sweep
        let along = if once { SweepKernel::Line } else { SweepKernel::Cell { across: false } };
        let across = if once { SweepKernel::March } else { SweepKernel::Cell { across: true } };
        let w = variant.width;
        let source = self.program.source_term;
        let mut steps = vec![self.sweep((along, order, w), (b.q, b.scratch), (nx, 1, nx), 0, false, (dt, t))];
        match variant.transpose {
            Transpose::Strided => {
                steps.push(self.sweep((along, order, w), (b.scratch, to), (ny, nx, 1), 1, source, (dt, t)));
            }
            Transpose::Across => {
                steps.push(self.sweep((across, order, w), (b.scratch, to), (ny, nx, 1), 1, source, (dt, t)));
            }
            Transpose::Tiled | Transpose::Naive => {
                let tiled = variant.transpose == Transpose::Tiled;
                steps.push(self.transpose(tiled, (b.scratch, b.transposed), ny, nx));
                let sweep =
                    self.sweep((along, order, w), (b.transposed, b.transposed_out), (ny, 1, ny), 1, source, (dt, t));
                steps.push(sweep);
                steps.push(self.transpose(tiled, (b.transposed_out, to), nx, ny));
            }
        }
        steps
    }

    /// The step-limit reduction of `q`.
    pub fn limit_step(&self, q: BufferId) -> Step {
        let h = self.grid.spacing();
        let k = self.grid.cells();
        let groups = k.div_ceil(256).clamp(1, LIMIT_GROUPS);
        Step::Kernel(Launch {
            kernel: "fv_limit".into(),
            groups,
            local: 256,
            args: vec![
                Arg::Buffer(q),
                Arg::Buffer(self.buffers.limits),
                Arg::real::<T>(h[0]),
                Arg::real::<T>(h[1]),
                Arg::I32((groups * 256) as i32),
                Arg::I32(k as i32),
                Arg::I32(k as i32),
            ],
        })
    }

    /// The largest stable step of `q` (min over cells of h_d / s_d) and whether every cell is finite and
    /// admissible, from a launch of the reduction; the device time of the launch.
    pub fn limit(&self, device: &mut dyn Device, q: BufferId) -> Result<(f64, bool, f64), BackendError> {
        let seconds = device.submit(self.program_id, &[self.limit_step(q)])?;
        let groups = self.grid.cells().div_ceil(256).clamp(1, LIMIT_GROUPS);
        let mut out = vec![T::zero(); 2 * LIMIT_GROUPS];
        device.download(self.buffers.limits, as_bytes_mut(&mut out))?;
        let mut limit = f64::INFINITY;
        let mut admissible = true;
        for g in 0..groups {
            let (m, bad) = (out[2 * g].as_f64(), out[2 * g + 1].as_f64());
            limit = if limit.is_nan() || m.is_nan() { f64::NAN } else { limit.min(m) };
            admissible &= bad == 0.0;
        }
        Ok((limit, admissible, seconds))
    }

    /// Runs `steps` `repeats` times; device seconds per repetition.
    pub fn run(&self, device: &mut dyn Device, steps: &[Step], repeats: usize) -> Result<Vec<f64>, BackendError> {
        device.run_steps(self.program_id, steps, repeats)
    }

    /// Enqueues `steps` without waiting; the device seconds known at once.
    pub fn submit(&self, device: &mut dyn Device, steps: &[Step]) -> Result<f64, BackendError> {
        device.submit(self.program_id, steps)
    }

    /// Writes a host state (variable-major) into `to`.
    pub fn write_state(&self, device: &mut dyn Device, to: BufferId, state: &[T]) -> Result<(), BackendError> {
        device.upload(to, as_bytes(state))
    }

    /// Fills a state-sized buffer with one value (poison before a launch).
    pub fn fill_state(&self, device: &mut dyn Device, to: BufferId, value: T) -> Result<(), BackendError> {
        device.upload(to, as_bytes(&vec![value; self.grid.cells() * self.program.nvars]))
    }

    /// Reads a state-sized buffer.
    pub fn read_state(&self, device: &mut dyn Device, from: BufferId) -> Result<Vec<T>, BackendError> {
        let mut out = vec![T::zero(); self.grid.cells() * self.program.nvars];
        device.download(from, as_bytes_mut(&mut out))?;
        Ok(out)
    }
}
