//! Finite volumes split over MPI ranks (seed 003's strips, `mpirun -n P dg run mhd-orszag-tang …`): each rank
//! steps a band of whole rows of the grid, with two ghost rows on each side that faces another rank (or wraps
//! around a periodic y), filled from the neighbours' rows before every step. One exchange a step suffices: the
//! x-sweep is row by row, so a ghost row swept along x on this rank is the neighbour's own row swept the same way,
//! and the y-sweep's stencil (MUSCL–Hancock: two cells each way) reaches no further than the ghost rows. The rank
//! steps its band and ghost rows as one grid whose y sides are the whole grid's (periodic, or the closed sides,
//! which only the first and last band reach); the ghost rows' own updates are discarded by the next exchange.
//! The step limit and the admissibility of every cell are reduced over the ranks each step, the samples of
//! max |∇·B| too; every rank keeps the run's one course (samples, series, checkpoints) and rank 0 writes its files
//! from the state it gathers, so that they are the one-process run's.

use crate::error::RunError;
use crate::fv_run::{
    choose_variant, device_operator, fv_error, initial_mass, max_divergence, max_divergence_rows, Course, FvDeviceInfo,
    FvOptions, FvOutcome, FvSetup,
};
use crate::Precision;
use dg_cases::fv::FvCase;
use dg_core::law::ConservationLaw;
use dg_core::Real;
use dg_fv::{FvGrid, FvPosition, FvVariant, Side};
use dg_parallel::comm::{broadcast_text, max_over, Communicator};
use dg_runtime::backend::Device;
use serde::Serialize;
use std::ops::Range;
use std::time::Instant;

/// Ghost rows on each side of a band that faces another band: the y-sweep's reach.
pub const GHOST_ROWS: usize = 2;

/// One rank's part of the grid.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Band {
    /// The rank.
    pub rank: usize,
    /// The grid's rows it owns.
    pub rows: Range<usize>,
    /// Ghost rows below its first row (0 on the first band of a grid closed in y).
    pub below: usize,
    /// Ghost rows above its last row.
    pub above: usize,
}

impl Band {
    /// Rows of its grid: ghost rows below, its own, ghost rows above.
    fn local_rows(&self) -> usize {
        self.below + self.rows.len() + self.above
    }

    /// Its own rows among the rows of its grid.
    fn own(&self) -> Range<usize> {
        self.below..self.below + self.rows.len()
    }
}

/// The bands of `ranks` ranks on a grid of `ny` rows, `periodic` in y or not: as equal as they can be (the first
/// `ny mod ranks` one row more), each at least [`GHOST_ROWS`] rows so that its neighbours' ghost rows are its own.
pub fn bands(ny: usize, ranks: usize, periodic: bool) -> Result<Vec<Band>, RunError> {
    if ranks == 0 || ny < GHOST_ROWS * ranks {
        return Err(RunError::InvalidOption(format!(
            "a finite-volume grid of {ny} row{} splits into bands of whole rows, at least {GHOST_ROWS} a rank: {ranks} \
             ranks need {} rows (a larger --nx, or fewer ranks)",
            if ny == 1 { "" } else { "s" },
            GHOST_ROWS * ranks.max(1)
        )));
    }
    let (base, extra) = (ny / ranks, ny % ranks);
    let mut start = 0;
    Ok((0..ranks)
        .map(|rank| {
            let rows = start..start + base + usize::from(rank < extra);
            start = rows.end;
            let below = if periodic || rank > 0 { GHOST_ROWS } else { 0 };
            let above = if periodic || rank + 1 < ranks { GHOST_ROWS } else { 0 };
            Band { rank, rows, below, above }
        })
        .collect())
}

/// The grid a band steps: its rows and ghost rows as a window of the whole grid (whose spacing and cell centres
/// it keeps bit for bit), the whole grid's sides.
pub fn band_grid(grid: &FvGrid, band: &Band) -> FvGrid {
    let first_row = band.rows.start as i64 - band.below as i64;
    FvGrid { ny: band.local_rows(), window: Some(dg_fv::Window { whole_rows: grid.ny, first_row }), ..grid.clone() }
}

/// The ranks of the bands a band sends to and receives from: (below, above).
fn neighbours(band: &Band, ranks: usize) -> (Option<usize>, Option<usize>) {
    let below = (band.below > 0).then(|| (band.rank + ranks - 1) % ranks);
    let above = (band.above > 0).then(|| (band.rank + 1) % ranks);
    (below, above)
}

/// Where a band's state is: on the host (the native CPU path) or in a device buffer.
trait Rows {
    /// Rows `rows` of every variable, variable after variable.
    fn rows(&mut self, rows: Range<usize>) -> Result<Vec<f64>, RunError>;
    /// Writes `values` (as [`Rows::rows`] gives them) into rows `rows`.
    fn set_rows(&mut self, rows: Range<usize>, values: &[f64]) -> Result<(), RunError>;
}

/// The band's state on the host.
struct HostRows<'a> {
    q: &'a mut [f64],
    nx: usize,
    nv: usize,
}

impl Rows for HostRows<'_> {
    fn rows(&mut self, rows: Range<usize>) -> Result<Vec<f64>, RunError> {
        let plane = self.q.len() / self.nv;
        Ok((0..self.nv)
            .flat_map(|v| self.q[v * plane + rows.start * self.nx..v * plane + rows.end * self.nx].to_vec())
            .collect())
    }
    fn set_rows(&mut self, rows: Range<usize>, values: &[f64]) -> Result<(), RunError> {
        let (plane, len) = (self.q.len() / self.nv, rows.len() * self.nx);
        for (v, chunk) in values.chunks(len).enumerate().take(self.nv) {
            self.q[v * plane + rows.start * self.nx..v * plane + rows.end * self.nx].copy_from_slice(chunk);
        }
        Ok(())
    }
}

/// The band's state in a device buffer of `T` (variable-major, as the host's).
struct DeviceRows<'a, T> {
    device: &'a mut dyn Device,
    buffer: dg_runtime::backend::BufferId,
    plane: usize,
    nx: usize,
    nv: usize,
    _t: std::marker::PhantomData<T>,
}

impl<T: Real> Rows for DeviceRows<'_, T> {
    fn rows(&mut self, rows: Range<usize>) -> Result<Vec<f64>, RunError> {
        let bytes = std::mem::size_of::<T>();
        let mut out = Vec::with_capacity(self.nv * rows.len() * self.nx);
        let mut part = vec![T::zero(); rows.len() * self.nx];
        for v in 0..self.nv {
            let offset = (v * self.plane + rows.start * self.nx) * bytes;
            self.device.download_range(self.buffer, offset, dg_runtime::backend::as_bytes_mut(&mut part))?;
            out.extend(part.iter().map(|x| x.as_f64()));
        }
        Ok(out)
    }
    fn set_rows(&mut self, rows: Range<usize>, values: &[f64]) -> Result<(), RunError> {
        let bytes = std::mem::size_of::<T>();
        let len = rows.len() * self.nx;
        for (v, chunk) in values.chunks(len).enumerate().take(self.nv) {
            let part: Vec<T> = crate::narrowed(chunk);
            let offset = (v * self.plane + rows.start * self.nx) * bytes;
            self.device.upload_range(self.buffer, offset, dg_runtime::backend::as_bytes(&part))?;
        }
        Ok(())
    }
}

/// Fills the band's ghost rows from its neighbours' own rows (every rank at once); `width`: values in a row of
/// every variable.
fn exchange(comm: &dyn Communicator, band: &Band, width: usize, state: &mut dyn Rows) -> Result<(), RunError> {
    let (below, above) = neighbours(band, comm.size());
    let own = band.own();
    if comm.size() == 1 {
        // one band of a periodic grid: its ghost rows are its own rows across the wrap
        if below.is_some() && above.is_some() {
            let (top, bottom) =
                (state.rows(own.end - GHOST_ROWS..own.end)?, state.rows(own.start..own.start + GHOST_ROWS)?);
            state.set_rows(0..GHOST_ROWS, &top)?;
            state.set_rows(own.end..own.end + GHOST_ROWS, &bottom)?;
        }
        return Ok(());
    }
    // sends in the order (above, below) and receives in the order (below, above): with two ranks on a periodic
    // grid both neighbours are one rank, and its messages arrive in the order it sent them
    let mut sends = Vec::new();
    if let Some(rank) = above {
        sends.push((rank, state.rows(own.end - GHOST_ROWS..own.end)?));
    }
    if let Some(rank) = below {
        sends.push((rank, state.rows(own.start..own.start + GHOST_ROWS)?));
    }
    let size = |n: usize| vec![0.0; n * width];
    let mut receives = Vec::new();
    if let Some(rank) = below {
        receives.push((rank, size(GHOST_ROWS)));
    }
    if let Some(rank) = above {
        receives.push((rank, size(GHOST_ROWS)));
    }
    comm.exchange(&sends, &mut receives)?;
    let mut received = receives.into_iter().map(|(_, values)| values);
    if below.is_some() {
        state.set_rows(0..GHOST_ROWS, &received.next().unwrap_or_default())?;
    }
    if above.is_some() {
        state.set_rows(own.end..own.end + GHOST_ROWS, &received.next().unwrap_or_default())?;
    }
    Ok(())
}

/// What a finite-volume run split over ranks reports besides the one-process report: its bands.
#[derive(Debug, Clone, Serialize)]
pub struct FvRanks {
    /// Every rank's band.
    pub bands: Vec<Band>,
    /// Every rank's device (`cpu` on the native CPU path).
    pub devices: Vec<String>,
}

/// Runs `case` split over the ranks of `comm` (rank 0 returns the outcome, with the whole final state; the others
/// `None`), on the native CPU path or, given `device`, with the generated kernels in `precision`.
pub fn run_fv_over_ranks(
    precision: Precision,
    case: &dyn FvCase,
    opts: &FvOptions,
    comm: &dyn Communicator,
    device: Option<&mut dyn Device>,
    progress: &mut dyn FnMut(f64, f64),
) -> Result<Option<(FvOutcome, FvRanks)>, RunError> {
    match precision {
        Precision::F32 => run_in::<f32>(case, opts, comm, device, progress),
        Precision::F64 => run_in::<f64>(case, opts, comm, device, progress),
    }
}

/// Refuses, before any rank opens a device or steps, what `case` with `opts` cannot run on `ranks` ranks: the
/// options the run refuses in one process (but `--variant` on the CPU, which depends on the device each rank
/// finds) and a split into bands of fewer than two rows.
pub fn check_split(case: &dyn FvCase, opts: &FvOptions, ranks: usize) -> Result<(), RunError> {
    let grid = FvSetup::of(case, opts, true)?.grid;
    bands(grid.ny, ranks, grid.sides[2] == Side::Periodic).map(|_| ())
}

fn run_in<T: Real>(
    case: &dyn FvCase,
    opts: &FvOptions,
    comm: &dyn Communicator,
    device: Option<&mut dyn Device>,
    progress: &mut dyn FnMut(f64, f64),
) -> Result<Option<(FvOutcome, FvRanks)>, RunError> {
    let setup = FvSetup::of(case, opts, device.is_some())?;
    let grid = &setup.grid;
    let all = bands(grid.ny, comm.size(), grid.sides[2] == Side::Periodic)?;
    let band = all[comm.rank()].clone();
    let local = band_grid(grid, &band);
    let nv = <dg_laws::mhd2d::Law as ConservationLaw>::NVARS;
    // every rank begins the one course of the run (rank 0 writes its files): from the case's initial state or
    // the saved one, of which each rank takes its band
    let q0 = grid.sample(nv, |x, q| case.initial(x, q));
    let (divergence0, mass0) = (max_divergence(grid, &q0), initial_mass(grid, &q0));
    let names = setup.law.variable_names();
    let span = (setup.t_end, opts.samples);
    let (mut course, start) = Course::begin(grid, names, (q0, divergence0), span, &opts.output, comm.rank() == 0)?;
    let q_local = band_state(grid, &band, &start, nv);
    drop(start);
    let from = course.at;
    let started = Instant::now();
    let mut stepping = Stepping { comm, bands: &all, band: &band, grid: &local, whole: grid, course: &mut course };
    let (q_end, device_info) = match device {
        None => (stepping.cpu(&setup, opts.cfl, q_local, progress)?, None),
        Some(device) => {
            let (q, info) = stepping.device::<T>(device, &setup.law, opts, q_local, progress)?;
            (q, Some(info))
        }
    };
    let whole = gather_bands(comm, &all, &band, &local, &q_end);
    course.finish(whole.as_deref())?;
    let wall_seconds = max_over(comm, started.elapsed().as_secs_f64());
    let device_name = device_info.as_ref().map_or_else(|| "cpu".to_string(), |d: &FvDeviceInfo| d.device.clone());
    let devices = gather_text(comm, &device_name);
    let Some(q) = whole else { return Ok(None) };
    let (at, steps_here) = (course.at, course.at.steps - from.steps);
    let divergence = std::mem::take(&mut course.divergence);
    drop(course);
    let mut info = device_info;
    if let Some(info) = &mut info {
        info.seconds_per_step = wall_seconds / steps_here.max(1) as f64;
    }
    let report = setup.report::<T>(case, opts, (mass0, &q), (at, divergence), (steps_here, wall_seconds), info);
    let outcome = FvOutcome { report, grid: setup.grid.clone(), q };
    Ok(Some((outcome, FvRanks { bands: all, devices })))
}

/// A band's state (its rows and ghost rows, across a periodic wrap) cut from the whole grid's `q`.
fn band_state(grid: &FvGrid, band: &Band, q: &[f64], nv: usize) -> Vec<f64> {
    let (nx, ny, cells) = (grid.nx, grid.ny, grid.cells());
    let rows = band.local_rows();
    let mut out = vec![0.0; nv * rows * nx];
    for v in 0..nv {
        for r in 0..rows {
            let j = (band.rows.start + ny + r - band.below) % ny;
            out[(v * rows + r) * nx..(v * rows + r + 1) * nx]
                .copy_from_slice(&q[v * cells + j * nx..v * cells + (j + 1) * nx]);
        }
    }
    out
}

/// The whole grid's state on rank 0 (`None` elsewhere), gathered from every band's own rows (each padded to the
/// largest band: the gather takes equal parts).
fn gather_bands(comm: &dyn Communicator, all: &[Band], band: &Band, local: &FvGrid, q: &[f64]) -> Option<Vec<f64>> {
    let nx = local.nx;
    let nv = q.len() / local.cells().max(1);
    let widest = all.iter().map(|b| b.rows.len()).max().unwrap_or(0);
    let plane = local.cells();
    let mut mine = vec![0.0; nv * widest * nx];
    for v in 0..nv {
        let own = &q[v * plane + band.own().start * nx..v * plane + band.own().end * nx];
        mine[v * widest * nx..v * widest * nx + own.len()].copy_from_slice(own);
    }
    let gathered = comm.gather(&mine);
    if comm.rank() != 0 {
        return None;
    }
    let ny: usize = all.iter().map(|b| b.rows.len()).sum();
    let cells = nx * ny;
    let mut whole = vec![0.0; nv * cells];
    for (b, part) in all.iter().zip(gathered.chunks(nv * widest * nx)) {
        for v in 0..nv {
            let rows = &part[v * widest * nx..v * widest * nx + b.rows.len() * nx];
            whole[v * cells + b.rows.start * nx..v * cells + b.rows.end * nx].copy_from_slice(rows);
        }
    }
    Some(whole)
}

/// `e` with the rank that found it in its reason.
fn on_rank(e: RunError, rank: usize) -> RunError {
    match e {
        RunError::Stopped { step, time, reason } => {
            RunError::Stopped { step, time, reason: format!("rank {rank}: {reason}") }
        }
        other => other,
    }
}

/// Every rank's `text` on rank 0, in rank order (empty elsewhere).
fn gather_text(comm: &dyn Communicator, text: &str) -> Vec<String> {
    // as bytes padded to the longest, one value each
    let longest = max_over(comm, text.len() as f64) as usize;
    let mut bytes: Vec<f64> = text.bytes().map(f64::from).collect();
    bytes.resize(longest, 0.0);
    let all = comm.gather(&bytes);
    if comm.rank() != 0 {
        return Vec::new();
    }
    all.chunks(longest.max(1))
        .take(comm.size())
        .map(|c| {
            String::from_utf8_lossy(&c.iter().map(|&b| b as u8).filter(|&b| b != 0).collect::<Vec<u8>>()).into_owned()
        })
        .collect()
}

/// The loop every rank runs, on the host or a device: exchange, the course's samples and files, limit, step.
struct Stepping<'a, 'c> {
    comm: &'a dyn Communicator,
    bands: &'a [Band],
    band: &'a Band,
    /// The band's grid (its rows and ghost rows).
    grid: &'a FvGrid,
    /// The whole grid.
    whole: &'a FvGrid,
    /// The run's course, the same on every rank (rank 0 writes its files).
    course: &'a mut Course<'c>,
}

impl Stepping<'_, '_> {
    /// After the exchange and the check (on every rank) that follow the step that reached `at` (none at the run's
    /// first position): the course's sample of max |∇·B| (reduced over the ranks) and files (the whole state
    /// gathered on rank 0), where due. `state` reads the band's state.
    fn after_step(
        &mut self,
        at: FvPosition,
        state: &mut dyn FnMut() -> Result<Vec<f64>, RunError>,
    ) -> Result<(), RunError> {
        let (sample_due, files_due) = (self.course.sample_due(at.t), self.course.files_due(at));
        let q = if sample_due || files_due { Some(state()?) } else { None };
        let sample = match (&q, sample_due) {
            (Some(q), true) => Some(max_over(self.comm, max_divergence_rows(self.grid, q, self.band.own()))),
            _ => None,
        };
        let whole = match (&q, files_due) {
            (Some(q), true) => gather_bands(self.comm, self.bands, self.band, self.grid, q),
            _ => None,
        };
        self.course.record(at, sample, whole.as_deref())
    }

    /// The smallest step limit of all ranks, and whether every rank's cells are admissible.
    fn reduce(&self, limit: f64, admissible: bool) -> (f64, bool) {
        let limit = self.comm.min(limit);
        let everywhere = self.comm.min(if admissible { 1.0 } else { 0.0 }) > 0.5;
        (limit, everywhere)
    }

    /// The stop of every rank when a cell of some rank left the admissible set: this rank's cell named (its row in
    /// the whole grid), if it has one.
    fn stopped(&self, law: &dg_laws::mhd2d::Law, q: &[f64], at: FvPosition) -> RunError {
        let rank = self.comm.rank();
        match dg_fv::cpu::admissible_rows(law, self.grid, q, self.band.own(), at.steps, at.t) {
            Err(dg_fv::FvError::NotAdmissible { step, t, i, j, values }) => {
                let j = (j + self.band.rows.start + self.whole.ny - self.band.below) % self.whole.ny;
                on_rank(fv_error(dg_fv::FvError::NotAdmissible { step, t, i, j, values }), rank)
            }
            Err(other) => on_rank(fv_error(other), rank),
            Ok(()) => RunError::Stopped {
                step: at.steps,
                time: at.t,
                reason: "a cell of another rank left the admissible set (that rank names it)".into(),
            },
        }
    }

    /// The native CPU path: the band's state `q` stepped to the end; its final state.
    fn cpu(
        &mut self,
        setup: &FvSetup,
        cfl: f64,
        mut q: Vec<f64>,
        progress: &mut dyn FnMut(f64, f64),
    ) -> Result<Vec<f64>, RunError> {
        let (law, grid, t_end) = (&setup.law, self.grid, self.course.t_end());
        let nv = <dg_laws::mhd2d::Law as ConservationLaw>::NVARS;
        let mut scratch = vec![0.0; q.len()];
        let (from, mut at) = (self.course.at, self.course.at);
        loop {
            exchange(self.comm, self.band, nv * grid.nx, &mut HostRows { q: &mut q, nx: grid.nx, nv })?;
            let own_ok = dg_fv::cpu::admissible_rows(law, grid, &q, self.band.own(), at.steps, at.t).is_ok();
            let (limit, ok) = self.reduce(dg_fv::cpu::stable_step(law, grid, &q), own_ok);
            if !ok || !limit.is_finite() || limit <= 0.0 {
                return Err(self.stopped(law, &q, at));
            }
            // (a step's state is sampled and written only once every rank's check of it passed)
            if at != from {
                self.after_step(at, &mut || Ok(q.clone()))?;
            }
            if at.t >= t_end * (1.0 - 1e-14) {
                return Ok(q);
            }
            let dt = (cfl * limit).min(t_end - at.t);
            dg_fv::cpu::step(law, grid, setup.reconstruction, (&mut q, &mut scratch), dt, at.t);
            at = at.after(dt);
            progress(at.t, t_end);
        }
    }

    /// On the rank's device: the band's state `q0` stepped to the end; its final state and what the device spent.
    fn device<T: Real>(
        &mut self,
        device: &mut dyn Device,
        law: &dg_laws::mhd2d::Law,
        opts: &FvOptions,
        q0: Vec<f64>,
        progress: &mut dyn FnMut(f64, f64),
    ) -> Result<(Vec<f64>, FvDeviceInfo), RunError> {
        let (grid, t_end) = (self.grid, self.course.t_end());
        let nv = <dg_laws::mhd2d::Law as ConservationLaw>::NVARS;
        // rank 0 chooses the variant (for the whole grid's size) and every rank runs it
        let chosen = match self.comm.rank() {
            0 => Some(choose_variant::<T>(device, law, opts, self.whole.cells() as u64)?),
            _ => None,
        };
        let spec = broadcast_text(self.comm, chosen.as_ref().map(|c| c.variant.as_str())).unwrap_or_default();
        let variant: FvVariant = spec.parse()?;
        let (op, q) = device_operator::<T>(device, law, grid, &q0)?;
        let (from, mut at, mut kernel_seconds) = (self.course.at, self.course.at, 0.0);
        loop {
            let mut rows = DeviceRows::<T> {
                device: &mut *device,
                buffer: q,
                plane: grid.cells(),
                nx: grid.nx,
                nv,
                _t: std::marker::PhantomData,
            };
            exchange(self.comm, self.band, nv * grid.nx, &mut rows)?;
            let (limit, admissible, seconds) = op.limit(device, q)?;
            kernel_seconds += seconds;
            let (limit, ok) = self.reduce(limit, admissible);
            if !ok || !limit.is_finite() || limit <= 0.0 {
                let state = crate::widened(&op.read_state(device, q)?);
                return Err(self.stopped(law, &state, at));
            }
            // (a step's state is sampled and written only once every rank's check of it passed)
            if at != from {
                self.after_step(at, &mut || Ok(crate::widened(&op.read_state(&mut *device, q)?)))?;
            }
            if at.t >= t_end * (1.0 - 1e-14) {
                break;
            }
            let dt = (opts.cfl * limit).min(t_end - at.t);
            kernel_seconds += op.submit(device, &op.step_steps(&variant, opts.order, dt, at.t))?;
            at = at.after(dt);
            progress(at.t, t_end);
        }
        kernel_seconds += device.settle()?;
        let state = crate::widened(&op.read_state(device, q)?);
        let (source, detail) = chosen.map_or(("rank 0", String::new()), |c| (c.source, c.detail));
        let info = FvDeviceInfo {
            device: crate::device_name(Some(device)),
            variant: variant.to_string(),
            choice: format!("{source}: {detail}"),
            kernel_seconds: max_over(self.comm, kernel_seconds),
            seconds_per_step: 0.0,
        };
        device.free_buffers();
        Ok((state, info))
    }
}
