//! Running the finite-volume cases (seed 003), on the native CPU path (the split sweeps of `dg-fv` in double
//! precision) or on a device with the generated kernels: to the final time, with the largest discrete divergence
//! of B sampled over the run (with and without GLM cleaning), the change of the conserved totals and the time per
//! step.

use crate::error::RunError;
use crate::formulations::FormulationId;
use crate::winners::given_or_chosen;
use crate::Precision;
use dg_cases::fv::FvCase;
use dg_core::law::ConservationLaw;
use dg_core::Real;
use dg_fv::{FvDeviceOperator, FvError, FvGrid, FvVariant, Reconstruction, Side};
use dg_runtime::backend::Device;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::Instant;

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
    /// Write the final cell means to this VTU file (VTK_QUAD cells, one value per cell and variable).
    pub vtu: Option<PathBuf>,
    /// Also write the cell means every this much simulated time (at the start, at the first step at or past each
    /// multiple, and at the end) as `<vtu stem>_NNNN.vtu`, listed with their times in `<vtu stem>.pvd`.
    pub vtu_every: Option<f64>,
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
            vtu: None,
            vtu_every: None,
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

/// [`run_fv`] in precision `T` (instantiated in this crate only, for both precisions).
pub(crate) fn run_fv_in<T: Real>(
    case: &dyn FvCase,
    opts: &FvOptions,
    device: Option<&mut dyn Device>,
    progress: &mut dyn FnMut(f64, f64),
) -> Result<FvOutcome, RunError> {
    let reconstruction = match opts.order {
        1 => Reconstruction::FirstOrder,
        2 => Reconstruction::MusclHancock,
        n => return Err(RunError::InvalidOption(format!("finite volumes run at order 1 or 2 (got {n})"))),
    };
    let mut law = case.law();
    if opts.no_cleaning {
        (law.ch, law.damping) = (0.0, 0.0);
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
    if device.is_none() && opts.variant.is_some() {
        return Err(RunError::InvalidOption("--variant needs a device (--device cuda:0 or opencl)".into()));
    }
    let t_end = opts.t_end.unwrap_or(case.default_t_end());
    let nv = <dg_laws::mhd2d::Law as ConservationLaw>::NVARS;
    let mut files = CellFiles::new(&grid, law.variable_names(), opts)?;
    let q0 = grid.sample(nv, |x, q| case.initial(x, q));
    let cells = grid.cells();
    let mass0: f64 = q0[..cells].iter().sum();
    let mut divergence = vec![(0.0, max_divergence(&grid, &q0))];
    let every = t_end / opts.samples.max(1) as f64;
    let started = Instant::now();
    let mut device_info = None;
    let out = match device {
        Some(device) => {
            let sampling = (every, &mut files, &mut *progress);
            let (out, info) = device_loop::<T>(device, &law, &grid, opts, (q0, t_end), &mut divergence, sampling)?;
            device_info = Some(info);
            out
        }
        None => {
            let sampling = (every, &mut files, &mut *progress);
            cpu_loop(&law, &grid, reconstruction, q0, (t_end, opts.cfl), &mut divergence, sampling)?
        }
    };
    files.finish(t_end, &out.q)?;
    let wall_seconds = started.elapsed().as_secs_f64();
    if let Some(info) = &mut device_info {
        info.seconds_per_step = wall_seconds / out.steps.max(1) as f64;
    }
    let mass: f64 = out.q[..cells].iter().sum();
    let density = out.q[..cells].iter().fold([f64::INFINITY, f64::NEG_INFINITY], |r, &v| [r[0].min(v), r[1].max(v)]);
    let report = FvReport {
        case: case.name().into(),
        law: law.name().into(),
        scheme: if reconstruction == Reconstruction::FirstOrder { "first-order" } else { "muscl-hancock" }.into(),
        cleaning: !opts.no_cleaning,
        nx: grid.nx,
        ny: grid.ny,
        steps: out.steps,
        dt_range: out.dt_range,
        t_end,
        wall_seconds,
        cell_updates_per_second: cells as f64 * out.steps as f64 / wall_seconds.max(1e-12),
        mass_change: (mass - mass0) / mass0.abs().max(f64::MIN_POSITIVE),
        density_range: density,
        divergence,
        precision: if device_info.is_some() { T::NAME } else { "f64" }.into(),
        device: device_info,
    };
    Ok(FvOutcome { report, grid, q: out.q })
}

/// Where the divergence samples go and when (every `every` in time), the files written along the way, and the
/// caller's progress.
type Sampling<'a, 'p> = (f64, &'a mut CellFiles, &'a mut (dyn FnMut(f64, f64) + 'p));

/// The VTU files of a finite-volume run: the time series of `--out-every` (a `.pvd` and its numbered files) and
/// the final state of `--out`, cell means as VTK_QUAD cells with one cell field per variable.
pub struct CellFiles {
    grid: dg_core::vtu::CellGrid,
    names: &'static [&'static str],
    /// The final state's file.
    last: Option<PathBuf>,
    series: Option<Series>,
}

/// A time series of VTU files listed in a `.pvd`.
struct Series {
    /// The `.pvd` file; the numbered files go beside it.
    pvd: PathBuf,
    /// The numbered files' stem.
    stem: String,
    /// Simulated time between outputs.
    every: f64,
    /// The next output time.
    next: f64,
    /// (time, file) of the files written so far.
    entries: Vec<(f64, String)>,
}

impl CellFiles {
    fn new(grid: &FvGrid, names: &'static [&'static str], opts: &FvOptions) -> Result<Self, RunError> {
        let series = match (&opts.vtu, opts.vtu_every) {
            (_, Some(every)) if !(every.is_finite() && every > 0.0) => {
                return Err(RunError::InvalidOption("--out-every must be a positive finite time".into()))
            }
            (None, Some(_)) => {
                return Err(RunError::InvalidOption(
                    "--out-every needs --out FILE.vtu (the series is FILE.pvd with FILE_NNNN.vtu)".into(),
                ))
            }
            (Some(vtu), Some(every)) => {
                let stem = vtu.file_stem().map_or_else(|| "run".into(), |s| s.to_string_lossy().to_string());
                Some(Series { pvd: vtu.with_extension("pvd"), stem, every, next: 0.0, entries: Vec::new() })
            }
            (_, None) => None,
        };
        let grid = dg_core::vtu::CellGrid { nx: grid.nx, ny: grid.ny, lower: grid.lower, upper: grid.upper };
        Ok(Self { grid, names, last: opts.vtu.clone(), series })
    }

    /// Whether the series wants the state at time `t` (the start, the first step at or past each multiple of
    /// its interval).
    fn due(&self, t: f64) -> bool {
        self.series.as_ref().is_some_and(|s| t >= s.next * (1.0 - 1e-12))
    }

    /// Writes state `q` at time `t` as the series' next file, where [`CellFiles::due`].
    fn output(&mut self, t: f64, q: &[f64]) -> Result<(), RunError> {
        if !self.due(t) {
            return Ok(());
        }
        let (grid, names) = (self.grid, self.names);
        let Some(s) = &mut self.series else { return Ok(()) };
        let name = format!("{}_{:04}.vtu", s.stem, s.entries.len());
        write_cells(&s.pvd.with_file_name(&name), &grid, names, q)?;
        s.entries.push((t, name));
        dg_core::vtu::write_pvd(&s.pvd, &s.entries).map_err(|e| RunError::Output(e.to_string()))?;
        while s.next <= t * (1.0 + 1e-12) {
            s.next += s.every;
        }
        Ok(())
    }

    /// The end of the run at `t_end` with state `q`: the series' last file (unless one was written at that time)
    /// and the `--out` file.
    fn finish(&mut self, t_end: f64, q: &[f64]) -> Result<(), RunError> {
        if let Some(s) = &mut self.series {
            if s.entries.last().is_none_or(|(t, _)| *t < t_end) {
                s.next = t_end;
            }
        }
        self.output(t_end, q)?;
        match &self.last {
            Some(path) => write_cells(path, &self.grid, self.names, q),
            None => Ok(()),
        }
    }
}

/// Writes a variable-major state (`v * cells + j * nx + i`) as one cell field per variable.
fn write_cells(path: &Path, grid: &dg_core::vtu::CellGrid, names: &[&str], q: &[f64]) -> Result<(), RunError> {
    let cells = grid.nx * grid.ny;
    let fields: Vec<dg_core::vtu::Field<'_>> =
        names.iter().zip(q.chunks(cells.max(1))).map(|(name, values)| dg_core::vtu::Field { name, values }).collect();
    Ok(dg_core::vtu::write_vtu_grid(path, grid, &fields)?)
}

fn cpu_loop(
    law: &dg_laws::mhd2d::Law,
    grid: &FvGrid,
    reconstruction: Reconstruction,
    q0: Vec<f64>,
    (t_end, cfl): (f64, f64),
    divergence: &mut Vec<(f64, f64)>,
    (every, files, progress): Sampling<'_, '_>,
) -> Result<dg_fv::FvRun, RunError> {
    let mut next = every;
    files.output(0.0, &q0)?;
    let mut written = Ok(());
    let run = dg_fv::run(law, grid, reconstruction, q0, (t_end, cfl), &mut |t, q| {
        if t >= next * (1.0 - 1e-12) {
            divergence.push((t, max_divergence(grid, q)));
            while next <= t * (1.0 + 1e-12) {
                next += every;
            }
        }
        // (the end's file is written once the run is through)
        if written.is_ok() && t < t_end * (1.0 - 1e-14) {
            written = files.output(t, q);
        }
        progress(t, t_end);
    })
    .map_err(fv_error)?;
    written.map(|()| run)
}

fn fv_error(e: FvError) -> RunError {
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
/// admissible; the state is then read back to name it) and the split step; the state is read back at the
/// divergence samples and at the end.
fn device_loop<T: Real>(
    device: &mut dyn Device,
    law: &dg_laws::mhd2d::Law,
    grid: &FvGrid,
    opts: &FvOptions,
    (q0, t_end): (Vec<f64>, f64),
    divergence: &mut Vec<(f64, f64)>,
    (every, files, progress): Sampling<'_, '_>,
) -> Result<(dg_fv::FvRun, FvDeviceInfo), RunError> {
    let given = match &opts.variant {
        Some(spec) => Some(spec.parse::<FvVariant>()?.to_string()),
        None => None,
    };
    let cells = grid.cells() as u64;
    let choice =
        given_or_chosen::<_, T>(FormulationId::Fv, device, law, opts.order, cells, given.as_deref(), opts.no_tune)?;
    let variant: FvVariant = choice.variant.parse()?;
    let ir = dg_runtime::formulation::law_ir(law)?;
    let params = law.param_values();
    let target = dg_runtime::formulation::target_of(device);
    let op = FvDeviceOperator::<T>::new(device, target, (&ir, &params, law.numerical_flux_name()), grid)?;
    let q = op.buffers.q;
    op.write_state(device, q, &crate::narrowed::<T>(&q0))?;
    files.output(0.0, &q0)?;
    let read =
        |device: &mut dyn Device| -> Result<Vec<f64>, RunError> { Ok(crate::widened(&op.read_state(device, q)?)) };
    let (mut t, mut steps, mut dt_range, mut kernel_seconds) = (0.0, 0u64, [f64::INFINITY, 0.0f64], 0.0);
    let mut next = every;
    loop {
        let (limit, admissible, seconds) = op.limit(device, q)?;
        kernel_seconds += seconds;
        if !admissible || !limit.is_finite() || limit <= 0.0 {
            let state = read(device)?;
            dg_fv::cpu::admissible(law, grid, &state, steps, t).map_err(fv_error)?;
            return Err(RunError::Stopped {
                step: steps,
                time: t,
                reason: format!("the step limit is {limit} (no finite positive wave-speed bound)"),
            });
        }
        if t >= t_end * (1.0 - 1e-14) {
            break;
        }
        let dt = (opts.cfl * limit).min(t_end - t);
        kernel_seconds += op.submit(device, &op.step_steps(&variant, opts.order, dt, t))?;
        t += dt;
        steps += 1;
        dt_range = [dt_range[0].min(dt), dt_range[1].max(dt)];
        let sample = t >= next * (1.0 - 1e-12);
        let output = files.due(t) && t < t_end * (1.0 - 1e-14);
        if sample || output {
            let state = read(device)?;
            if sample {
                divergence.push((t, max_divergence(grid, &state)));
                while next <= t * (1.0 + 1e-12) {
                    next += every;
                }
            }
            if output {
                files.output(t, &state)?;
            }
        }
        progress(t, t_end);
    }
    kernel_seconds += device.settle()?;
    let state = read(device)?;
    let info = FvDeviceInfo {
        device: crate::device_name(Some(device)),
        variant: variant.to_string(),
        choice: format!("{}: {}", choice.source, choice.detail),
        kernel_seconds,
        seconds_per_step: 0.0,
    };
    device.free_buffers();
    Ok((dg_fv::FvRun { q: state, steps, dt_range }, info))
}

/// max over cells of |∂Bx/∂x + ∂By/∂y| by central differences (one-sided next to a closed side; a direction of
/// one cell contributes nothing).
pub fn max_divergence(grid: &FvGrid, q: &[f64]) -> f64 {
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
    (0..ny)
        .flat_map(|j| (0..nx).map(move |i| (i, j)))
        .map(|(i, j)| (derivative(bx, i, j, 0) + derivative(by, i, j, 1)).abs())
        .fold(0.0, dg_core::max_or_nan)
}
