//! Running the finite-volume cases (seed 003), on the native CPU path (the split sweeps of `dg-fv` in double
//! precision) or on a device with the generated kernels: to the final time, with the largest discrete divergence
//! of B sampled over the run (with and without GLM cleaning), the change of the conserved totals and the time per
//! step.

use crate::error::RunError;
use crate::formulations::FormulationId;
use crate::output::RunOutput;
use crate::winners::given_or_chosen;
use crate::Precision;
use dg_cases::fv::FvCase;
use dg_core::law::ConservationLaw;
use dg_core::Real;
use dg_fv::{FvDeviceOperator, FvError, FvGrid, FvVariant, Reconstruction, Side};
use dg_runtime::backend::Device;
use serde::Serialize;
use std::time::Instant;

mod course;
pub(crate) use course::Course;

/// The most cells of a finite-volume CPU run (4096², seed 003's Orszag–Tang grid).
pub const MAX_CELLS: usize = 4096 * 4096;

/// How to run a finite-volume case.
#[derive(Debug, Clone)]
pub struct FvOptions {
    /// Cells along x (the case's when `None`).
    pub cells: Option<usize>,
    /// 1: first order (cell means); 2: MUSCL–Hancock with minmod.
    pub order: usize,
    /// Courant number of each 1D sweep, in (0, 1].
    pub cfl: f64,
    /// Final time (the case's when `None`).
    pub t_end: Option<f64>,
    /// Turn GLM divergence cleaning off (c_h = 0, no damping).
    pub no_cleaning: bool,
    /// Samples of max |∇·B| over the run.
    pub samples: usize,
    /// On a device: the kernel variant (SPEC) instead of the tuning database's.
    pub variant: Option<String>,
    /// On a device without a tuning result for the run's key: take the default variant instead of tuning.
    pub no_tune: bool,
    /// What the run writes (the final cell means as VTU, a `.pvd` series, checkpoints, the last good state of a run
    /// that stops — in one process; a run split over ranks names the cell only) and the saved state it continues
    /// from, if any.
    pub output: RunOutput,
    /// Take a CFL number above 1 (the split sweeps' limit): the run goes on until a cell leaves the admissible set.
    pub allow_unstable: bool,
}

impl Default for FvOptions {
    fn default() -> Self {
        Self {
            cells: None,
            order: 2,
            cfl: 0.8,
            t_end: None,
            no_cleaning: false,
            samples: 20,
            variant: None,
            no_tune: false,
            output: RunOutput::default(),
            allow_unstable: false,
        }
    }
}

/// What a device run of a finite-volume case took and spent.
#[derive(Debug, Clone, Serialize)]
pub struct FvDeviceInfo {
    /// The device.
    pub device: String,
    /// The variant.
    pub variant: String,
    /// How it was chosen (`database`, `tuned`, `default`, `given` …) and from where.
    pub choice: String,
    /// Device seconds in kernels (sweeps, transposes, the step-limit reduction).
    pub kernel_seconds: f64,
    /// Wall seconds per step of the time loop (the step limit read back each step included).
    pub seconds_per_step: f64,
}

/// What a finite-volume run reports.
#[derive(Debug, Clone, Serialize)]
pub struct FvReport {
    /// Case name.
    pub case: String,
    /// Law name.
    pub law: String,
    /// `first-order` or `muscl-hancock`.
    pub scheme: String,
    /// Whether GLM cleaning was on.
    pub cleaning: bool,
    /// Cells along x.
    pub nx: usize,
    /// Cells along y.
    pub ny: usize,
    /// Steps taken.
    pub steps: u64,
    /// Smallest and largest step.
    pub dt_range: [f64; 2],
    /// Final time.
    pub t_end: f64,
    /// Wall time of the time loop, seconds.
    pub wall_seconds: f64,
    /// Cell updates (cells × steps) per second.
    pub cell_updates_per_second: f64,
    /// Relative change of total mass (ρ summed over the cells), which must be round-off on periodic grids.
    pub mass_change: f64,
    /// Smallest and largest density at the end.
    pub density_range: [f64; 2],
    /// (t, max over cells of |∂Bx/∂x + ∂By/∂y| by central differences) at the start and sampled over the run.
    pub divergence: Vec<(f64, f64)>,
    /// Precision of the run.
    pub precision: String,
    /// Device runs: what the device took and spent.
    pub device: Option<FvDeviceInfo>,
}

/// A finished finite-volume run: its report, grid and final state.
pub struct FvOutcome {
    /// The report.
    pub report: FvReport,
    /// The grid.
    pub grid: FvGrid,
    /// The final state (variable-major: `v * cells + j * nx + i`).
    pub q: Vec<f64>,
}

/// Runs `case` with `opts` on the native CPU path (double precision) or, given `device`, with the generated kernels
/// in `precision`; `progress(t, t_end)` after each step.
pub fn run_fv(
    precision: Precision,
    case: &dyn FvCase,
    opts: &FvOptions,
    device: Option<&mut dyn Device>,
    progress: &mut dyn FnMut(f64, f64),
) -> Result<FvOutcome, RunError> {
    match precision {
        Precision::F32 => run_fv_in::<f32>(case, opts, device, progress),
        Precision::F64 => run_fv_in::<f64>(case, opts, device, progress),
    }
}

/// What a run of a case is, checked: the reconstruction of `--order`, the law (cleaning off with `--no-cleaning`),
/// the grid of `--nx` and the final time.
pub(crate) struct FvSetup {
    pub reconstruction: Reconstruction,
    pub law: dg_laws::mhd2d::Law,
    pub grid: FvGrid,
    pub t_end: f64,
}

impl FvSetup {
    /// The run `opts` asks of `case`, refused where an option is out of range.
    pub fn of(case: &dyn FvCase, opts: &FvOptions, on_device: bool) -> Result<Self, RunError> {
        let reconstruction = match opts.order {
            1 => Reconstruction::FirstOrder,
            2 => Reconstruction::MusclHancock,
            n => return Err(RunError::InvalidOption(format!("finite volumes run at order 1 or 2 (got {n})"))),
        };
        let mut law = case.law();
        if opts.no_cleaning {
            (law.ch, law.damping) = (0.0, 0.0);
        }
        let cfl_allowed = if opts.allow_unstable { opts.cfl.is_finite() } else { opts.cfl <= 1.0 };
        if !(opts.cfl > 0.0 && cfl_allowed) {
            return Err(RunError::InvalidOption(format!(
                "the CFL number of a split finite-volume sweep lies in (0, 1] (got {}){}",
                opts.cfl,
                if opts.allow_unstable {
                    ""
                } else {
                    "; --allow-unstable runs above 1 until a cell leaves the admissible set"
                }
            )));
        }
        let n = opts.cells.unwrap_or(case.default_cells());
        if !(2..=16384).contains(&n) {
            return Err(RunError::InvalidOption(format!("--nx must be between 2 and 16384 cells (got {n})")));
        }
        let grid = case.grid(n);
        if grid.cells() > MAX_CELLS {
            return Err(RunError::InvalidOption(format!(
                "{} × {} cells are above the {MAX_CELLS} a run allocates; use a smaller --nx",
                grid.nx, grid.ny
            )));
        }
        if !on_device && opts.variant.is_some() {
            return Err(RunError::InvalidOption("--variant needs a device (--device cuda:0 or opencl)".into()));
        }
        Ok(Self { reconstruction, law, grid, t_end: opts.t_end.unwrap_or(case.default_t_end()) })
    }

    /// The report of a run that ended with state `q` (the whole grid's) at `at`, having started from a state of
    /// total mass `mass0` and taken `steps_here` of its steps in `wall_seconds` in this process.
    pub fn report<T: Real>(
        &self,
        case: &dyn FvCase,
        opts: &FvOptions,
        (mass0, q): (f64, &[f64]),
        (at, divergence): (dg_fv::FvPosition, Vec<(f64, f64)>),
        (steps_here, wall_seconds): (u64, f64),
        device: Option<FvDeviceInfo>,
    ) -> FvReport {
        let cells = self.grid.cells();
        let mass: f64 = q[..cells].iter().sum();
        let density = q[..cells].iter().fold([f64::INFINITY, f64::NEG_INFINITY], |r, &v| [r[0].min(v), r[1].max(v)]);
        let first_order = self.reconstruction == Reconstruction::FirstOrder;
        FvReport {
            case: case.name().into(),
            law: self.law.name().into(),
            scheme: if first_order { "first-order" } else { "muscl-hancock" }.into(),
            cleaning: !opts.no_cleaning,
            nx: self.grid.nx,
            ny: self.grid.ny,
            steps: at.steps,
            dt_range: at.dt_range,
            t_end: self.t_end,
            wall_seconds,
            cell_updates_per_second: cells as f64 * steps_here as f64 / wall_seconds.max(1e-12),
            mass_change: (mass - mass0) / mass0.abs().max(f64::MIN_POSITIVE),
            density_range: density,
            divergence,
            precision: if device.is_some() { T::NAME } else { "f64" }.into(),
            device,
        }
    }
}

/// [`run_fv`] in precision `T` (instantiated in this crate only, for both precisions).
pub(crate) fn run_fv_in<T: Real>(
    case: &dyn FvCase,
    opts: &FvOptions,
    device: Option<&mut dyn Device>,
    progress: &mut dyn FnMut(f64, f64),
) -> Result<FvOutcome, RunError> {
    let setup = FvSetup::of(case, opts, device.is_some())?;
    let (law, grid) = (&setup.law, &setup.grid);
    let nv = <dg_laws::mhd2d::Law as ConservationLaw>::NVARS;
    let q0 = grid.sample(nv, |x, q| case.initial(x, q));
    let divergence0 = max_divergence(grid, &q0);
    let (span, out) = ((setup.t_end, opts.samples), &opts.output);
    let mass0 = initial_mass(grid, &q0);
    let begun = Course::begin(grid, law.variable_names(), (q0, divergence0), span, out, true)?;
    let (mut course, q) = begun;
    // (a device run keeps its last good state itself: in a buffer on the device where it can hold one)
    if out.last_good.is_some() && device.is_none() {
        course.keep_last_good(&q)?;
    }
    let from = course.at;
    let started = Instant::now();
    let mut device_info = None;
    let looped = match device {
        Some(device) => device_loop::<T>(device, law, grid, opts, q, &mut course, progress).map(|(out, info)| {
            device_info = Some(info);
            out
        }),
        None => cpu_loop(law, grid, setup.reconstruction, (q, opts.cfl), &mut course, progress),
    };
    // a run that stops leaves its last good state beside the error
    let out = looped.map_err(|e| course.stopped(e))?;
    course.finish(Some(&out.q))?;
    let wall_seconds = started.elapsed().as_secs_f64();
    // (the steps of this process: a continued run's earlier ones took their time in another)
    let steps_here = out.steps - from.steps;
    if let Some(info) = &mut device_info {
        info.seconds_per_step = wall_seconds / steps_here.max(1) as f64;
    }
    let end = (course.at, std::mem::take(&mut course.divergence));
    let report = setup.report::<T>(case, opts, (mass0, &out.q), end, (steps_here, wall_seconds), device_info);
    drop(course);
    Ok(FvOutcome { report, grid: setup.grid, q: out.q })
}

/// The native CPU loop: [`dg_fv::run`] from the course's position, each step handed to the course.
fn cpu_loop(
    law: &dg_laws::mhd2d::Law,
    grid: &FvGrid,
    reconstruction: Reconstruction,
    (q, cfl): (Vec<f64>, f64),
    course: &mut Course<'_>,
    progress: &mut dyn FnMut(f64, f64),
) -> Result<dg_fv::FvRun, RunError> {
    let t_end = course.t_end();
    // (the observer cannot stop the run: the first failure to write is kept and returned when it ends)
    let mut kept = Ok(());
    let run = dg_fv::run(law, grid, reconstruction, (q, course.at), (t_end, cfl), &mut |at, q| {
        if kept.is_ok() {
            let wanted = course.wants_state(at);
            kept = course.step_taken(at, wanted.then_some(q));
            // (the state a step hands the observer has passed the admissibility check)
            course.admissible();
        }
        progress(at.t, t_end);
    })
    .map_err(fv_error)?;
    kept.map(|()| run)
}

pub(crate) fn fv_error(e: FvError) -> RunError {
    match e {
        FvError::Setup(m) => RunError::InvalidOption(m),
        FvError::NotAdmissible { step, t, i, j, values } => RunError::Stopped {
            step,
            time: t,
            reason: format!("cell ({i}, {j}) left the admissible set (ρ or p not positive, or not finite): {values:?}"),
        },
    }
}

/// The device part of [`run_fv`]: the variant (given, the tuning database's, or tuned on first use), the
/// operator, then per step the step-limit reduction (which also flags a cell that is not finite or not
/// admissible; the state is then read back to name it) and the split step; once a step's state passed that check
/// it is read back where the course wants it (a divergence sample, a file of the series, a checkpoint), and at the
/// end. The last good state stays on the device (a copy in a buffer of its own) unless it cannot hold one.
fn device_loop<T: Real>(
    device: &mut dyn Device,
    law: &dg_laws::mhd2d::Law,
    grid: &FvGrid,
    opts: &FvOptions,
    q0: Vec<f64>,
    course: &mut Course<'_>,
    progress: &mut dyn FnMut(f64, f64),
) -> Result<(dg_fv::FvRun, FvDeviceInfo), RunError> {
    let t_end = course.t_end();
    let choice = choose_variant::<T>(device, law, opts, grid.cells() as u64)?;
    let variant: FvVariant = choice.variant.parse()?;
    let (op, q) = device_operator::<T>(device, law, grid, &q0)?;
    let kept = if opts.output.last_good.is_some() { last_good_buffer::<T>(device, grid, q, course)? } else { None };
    if opts.output.last_good.is_some() && kept.is_none() {
        course.keep_last_good(&q0)?;
    }
    drop(q0);
    let mut host = HostState::<T>::of(grid);
    let (mut at, mut kernel_seconds) = (course.at, 0.0);
    // the last good state kept on the device is read when the run stops, for the course to write beside the error
    let stop = |device: &mut dyn Device, course: &mut Course<'_>, host: &mut HostState<T>, e: RunError| {
        if let (Some(kept), true) = (kept, course.checked_on_device()) {
            course.fill_checked(host.read(device, kept)?.to_vec());
        }
        Err(e)
    };
    // whether a step of this loop reached `at` and the course has not recorded it yet
    let mut stepped = false;
    loop {
        // the step limit's reduction also checks the state (every cell finite and admissible)
        let (limit, admissible, seconds) = op.limit(device, q)?;
        kernel_seconds += seconds;
        if !admissible || !limit.is_finite() || limit <= 0.0 {
            let state = host.read(device, q)?;
            let stopped = match dg_fv::cpu::admissible(law, grid, state, at.steps, at.t).map_err(fv_error) {
                Err(e) => e,
                Ok(()) => RunError::Stopped {
                    step: at.steps,
                    time: at.t,
                    reason: format!("the step limit is {limit} (no finite positive wave-speed bound)"),
                },
            };
            return stop(device, course, &mut host, stopped);
        }
        if stepped {
            // the step's state passed its check: the course records it (read back where it wants it: a divergence
            // sample, a file, a checkpoint) and keeps it as the last good one where due, as the CPU loop does
            let state = if course.wants_state(at) { Some(host.read(device, q)?) } else { None };
            course.step_taken(at, state)?;
            if let (Some(kept), true) = (kept, course.device_keep_due()) {
                device.copy_buffer(q, kept, state_bytes::<T>(grid))?;
                course.kept_on_device()?;
            }
            progress(at.t, t_end);
        }
        course.admissible();
        if at.t >= t_end * (1.0 - 1e-14) {
            break;
        }
        let dt = (opts.cfl * limit).min(t_end - at.t);
        kernel_seconds += op.submit(device, &op.step_steps(&variant, opts.order, dt, at.t))?;
        (at, stepped) = (at.after(dt), true);
    }
    kernel_seconds += device.settle()?;
    host.read(device, q)?;
    let state = host.wide;
    let info = FvDeviceInfo {
        device: crate::device_name(Some(device)),
        variant: variant.to_string(),
        choice: format!("{}: {}", choice.source, choice.detail),
        kernel_seconds,
        seconds_per_step: 0.0,
    };
    device.free_buffers();
    Ok((dg_fv::FvRun { q: state, steps: at.steps, dt_range: at.dt_range }, info))
}

/// The host's copy of a device state, read again into the same memory each time (a fresh copy of a 4096² state
/// costs more in page faults than the read itself).
struct HostState<T> {
    values: usize,
    narrow: Vec<T>,
    wide: Vec<f64>,
}

impl<T: Real> HostState<T> {
    /// Room for a state of `grid` (allocated at the first read).
    fn of(grid: &FvGrid) -> Self {
        let values = grid.cells() * <dg_laws::mhd2d::Law as ConservationLaw>::NVARS;
        Self { values, narrow: Vec::new(), wide: Vec::new() }
    }

    /// The state in device buffer `buffer`, widened to f64.
    fn read(&mut self, device: &mut dyn Device, buffer: dg_runtime::backend::BufferId) -> Result<&[f64], RunError> {
        use rayon::prelude::*;
        if self.wide.len() != self.values {
            let room = |e: std::collections::TryReserveError| {
                RunError::Output(format!("cannot hold a copy of the state ({} values): {e}", self.values))
            };
            self.narrow.try_reserve_exact(self.values).map_err(room)?;
            self.wide.try_reserve_exact(self.values).map_err(room)?;
            self.narrow.resize(self.values, T::zero());
            self.wide.resize(self.values, 0.0);
        }
        device.download(buffer, dg_runtime::backend::as_bytes_mut(&mut self.narrow))?;
        self.wide.par_iter_mut().zip(self.narrow.par_iter()).for_each(|(w, v)| *w = v.as_f64());
        Ok(&self.wide)
    }
}

/// Bytes of one device state of `grid` in precision `T`.
fn state_bytes<T: Real>(grid: &FvGrid) -> usize {
    grid.cells() * <dg_laws::mhd2d::Law as ConservationLaw>::NVARS * std::mem::size_of::<T>()
}

/// A device buffer for the last good state, holding the state `q` now (the course keeps it there); `None` when the
/// device cannot hold one (the course then keeps read-back states on the host). The loop copies a state there only
/// once its check passed, so one buffer serves: the state it replaces was good, and so is the new one.
fn last_good_buffer<T: Real>(
    device: &mut dyn Device,
    grid: &FvGrid,
    q: dg_runtime::backend::BufferId,
    course: &mut Course<'_>,
) -> Result<Option<dg_runtime::backend::BufferId>, RunError> {
    let bytes = state_bytes::<T>(grid);
    let Ok(kept) = device.alloc(bytes) else {
        return Ok(None);
    };
    device.copy_buffer(q, kept, bytes)?;
    course.keep_last_good_on_device()?;
    Ok(Some(kept))
}

/// The total mass (density summed over the cells) of a state `q` on `grid`: the case's initial one, against which a
/// run's report measures the change (a continued run's too).
pub(crate) fn initial_mass(grid: &FvGrid, q: &[f64]) -> f64 {
    q[..grid.cells()].iter().sum()
}

/// The variant of a device run on `cells` cells: `--variant` (parsed, its precision checked), else the tuning
/// database's, else tuned now (or the default with `--no-tune`).
pub(crate) fn choose_variant<T: Real>(
    device: &mut dyn Device,
    law: &dg_laws::mhd2d::Law,
    opts: &FvOptions,
    cells: u64,
) -> Result<crate::winners::VariantChoice, RunError> {
    let given = match &opts.variant {
        Some(spec) => Some(spec.parse::<FvVariant>()?.to_string()),
        None => None,
    };
    Ok(given_or_chosen::<_, T>(FormulationId::Fv, device, law, opts.order, cells, given.as_deref(), opts.no_tune)?)
}

/// The device operator of `law` on `grid`, its state buffer holding `q0` (f64, the CPU layout).
pub(crate) fn device_operator<T: Real>(
    device: &mut dyn Device,
    law: &dg_laws::mhd2d::Law,
    grid: &FvGrid,
    q0: &[f64],
) -> Result<(FvDeviceOperator<T>, dg_runtime::backend::BufferId), RunError> {
    let ir = dg_runtime::formulation::law_ir(law)?;
    let params = law.param_values();
    let target = dg_runtime::formulation::target_of(device);
    let op = FvDeviceOperator::<T>::new(device, target, (&ir, &params, law.numerical_flux_name()), grid)?;
    let q = op.buffers.q;
    op.write_state(device, q, &crate::narrowed::<T>(q0))?;
    Ok((op, q))
}

/// max over cells of |∂Bx/∂x + ∂By/∂y| by central differences (one-sided next to a closed side; a direction of
/// one cell contributes nothing).
pub fn max_divergence(grid: &FvGrid, q: &[f64]) -> f64 {
    max_divergence_rows(grid, q, 0..grid.ny)
}

/// [`max_divergence`] over the cells of rows `rows` alone (their neighbour rows read where the grid has them).
pub fn max_divergence_rows(grid: &FvGrid, q: &[f64], rows: std::ops::Range<usize>) -> f64 {
    let (nx, ny, cells) = (grid.nx, grid.ny, grid.cells());
    let [dx, dy] = grid.spacing();
    let (bx, by) = (&q[5 * cells..6 * cells], &q[6 * cells..7 * cells]);
    let derivative = |f: &[f64], i: usize, j: usize, axis: usize| -> f64 {
        let (len, h, periodic) = if axis == 0 {
            (nx, dx, grid.sides[0] == Side::Periodic)
        } else {
            (ny, dy, grid.sides[2] == Side::Periodic)
        };
        if len < 2 {
            return 0.0;
        }
        let at = |k: usize| if axis == 0 { f[j * nx + k] } else { f[k * nx + i] };
        let c = if axis == 0 { i } else { j };
        let (lo, hi) = match (c, periodic) {
            (0, true) => (len - 1, 1),
            (c, true) if c == len - 1 => (c - 1, 0),
            (0, false) => (0, 1),
            (c, false) if c == len - 1 => (c - 1, c),
            (c, _) => (c - 1, c + 1),
        };
        let span = if periodic || (c != 0 && c != len - 1) { 2.0 * h } else { h };
        (at(hi) - at(lo)) / span
    };
    // (a row per task: the largest value is the same in any order, and a NaN anywhere makes it NaN)
    use rayon::prelude::*;
    rows.into_par_iter()
        .map(|j| {
            (0..nx).map(|i| (derivative(bx, i, j, 0) + derivative(by, i, j, 1)).abs()).fold(0.0, dg_core::max_or_nan)
        })
        .reduce(|| 0.0, dg_core::max_or_nan)
}
