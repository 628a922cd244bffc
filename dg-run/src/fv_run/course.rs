//! What a finite-volume run keeps and writes along the way, the same on the CPU and on a device: its position,
//! the samples of max |∇·B| for the report, the VTU files of `--out` and `--out-every` (cell means as VTK_QUAD
//! cells, one cell field per variable), the restart files of `--checkpoint-every`, from which `dg run
//! --restart` continues the run bit for bit, and — in a one-process run that asks for it — the last state known to
//! be admissible, written as a restart file and a VTU file when the run stops.

use super::max_divergence;
use crate::error::RunError;
use crate::output::{RunOutput, LAST_GOOD_INTERVAL};
use dg_fv::{FvGrid, FvPosition};
use dg_runtime::restart::{self, LoopPosition, LoopState, RestartFile, Schedule, Snapshot};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The counters a finite-volume restart file holds besides the state: the report's samples so far.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Counters {
    /// Which formulation wrote the file (`fv`).
    formulation: String,
    /// (t, max |∇·B|) sampled so far.
    divergence: Vec<(f64, f64)>,
    /// The next sample's time.
    next_sample: f64,
    /// The next file's time of the `--out-every` series, if the run writes one.
    next_output: Option<f64>,
}

/// A finite-volume run's course: where it stands and what it has sampled and written.
pub(crate) struct Course<'a> {
    grid: &'a FvGrid,
    names: &'static [&'static str],
    t_end: f64,
    /// Where the run stands.
    pub at: FvPosition,
    /// (t, max |∇·B|) at the start and sampled every `every` since.
    pub divergence: Vec<(f64, f64)>,
    every: f64,
    next_sample: f64,
    out: &'a RunOutput,
    series: Option<Series>,
    /// Whether this process writes the files (rank 0 of a run split over ranks; the others keep the same counters).
    writer: bool,
    /// The last good state, where [`Course::keep_last_good`] asked for it.
    last_good: Option<LastGood>,
}

/// The states a run that stops leaves behind: the last one known admissible, and one kept since and not yet marked
/// checked ([`Course::admissible`] marks it; both loops record a state only after its check passed).
struct LastGood {
    /// The last state that passed the admissibility check, as a restart file holds it (kept on a device: without
    /// arrays until [`Course::fill_checked`] gives its values).
    checked: Option<LoopState>,
    /// The state kept after the last check.
    unchecked: Option<LoopState>,
    /// When a state was last kept.
    kept_at: Instant,
    /// Whether the states are kept on a device (in a buffer the device loop owns) rather than read back.
    on_device: bool,
}

/// A time series of VTU files listed in a `.pvd`.
struct Series {
    /// The `.pvd` file; the numbered files go beside it.
    pvd: PathBuf,
    /// The numbered files' stem.
    stem: String,
    /// Simulated time between files.
    every: f64,
    /// The next file's time.
    next: f64,
    /// (time, file) of the files so far.
    entries: Vec<(f64, String)>,
}

impl<'a> Course<'a> {
    /// The course of a run from `q0` (the case's initial state, its max |∇·B| `divergence0`), or from the state
    /// `out.resume` holds, which it returns in place of `q0`; `samples` divergence samples over the run. Only a
    /// `writer` writes files (the others keep the same counters and return the resumed state as well).
    pub fn begin(
        grid: &'a FvGrid,
        names: &'static [&'static str],
        (q0, divergence0): (Vec<f64>, f64),
        (t_end, samples): (f64, usize),
        out: &'a RunOutput,
        writer: bool,
    ) -> Result<(Self, Vec<f64>), RunError> {
        out.check()?;
        let every = t_end / samples.max(1) as f64;
        let fresh = Self {
            grid,
            names,
            t_end,
            at: FvPosition::START,
            divergence: vec![(0.0, divergence0)],
            every,
            next_sample: every,
            out,
            series: None,
            writer,
            last_good: None,
        };
        let (mut course, q, next_output) = match &out.resume {
            None => (fresh, q0, None),
            Some(saved) => fresh.resumed(saved, q0.len())?,
        };
        course.series = out.series().map(|(pvd, stem)| {
            let every = out.vtu_every.unwrap_or(f64::INFINITY);
            // a continued series keeps the files written up to the saved state
            let entries: Vec<(f64, String)> = match &out.resume {
                Some(saved) => dg_core::vtu::read_pvd(&pvd)
                    .into_iter()
                    .filter(|(t, _)| *t <= saved.position.t * (1.0 + 1e-12))
                    .collect(),
                None => Vec::new(),
            };
            let next = next_output.unwrap_or(course.at.t);
            Series { pvd, stem, every, next, entries }
        });
        // the start's file (a fresh run's t = 0; a continued run's state, if its series has none at that time)
        let start = course.at.t;
        course.write_series(start, Some(&q))?;
        Ok((course, q))
    }

    /// This course continued from `saved`, a finite-volume run's state of `len` values: the course, the state and
    /// the next file's time of the series the saved run wrote, if it wrote one.
    fn resumed(mut self, saved: &LoopState, len: usize) -> Result<(Self, Vec<f64>, Option<f64>), RunError> {
        let refuse = |m: String| Err(RunError::InvalidOption(format!("cannot continue from the restart file: {m}")));
        let counters: Counters = match serde_json::from_value(saved.snapshot.stepper.clone()) {
            Ok(c) => c,
            Err(e) => return refuse(format!("it holds no finite-volume run ({e})")),
        };
        if counters.formulation != "fv" {
            return refuse(format!("it holds a {} run, not a finite-volume one", counters.formulation));
        }
        let Some(q) = saved.snapshot.array("state") else { return refuse("it has no state array".into()) };
        if q.len() != len {
            return refuse(format!("its state has {} values, this grid's {len}", q.len()));
        }
        let p = &saved.position;
        if p.t_end != self.t_end || !(p.t.is_finite() && p.t >= 0.0 && p.t <= p.t_end) {
            return refuse(format!("it stands at t = {} of {}, this run ends at {}", p.t, p.t_end, self.t_end));
        }
        self.at = FvPosition { t: p.t, steps: p.step, dt_range: p.dt_range };
        self.divergence = counters.divergence;
        self.next_sample = counters.next_sample;
        Ok((self, q.to_vec(), counters.next_output))
    }

    /// The run's final time.
    pub fn t_end(&self) -> f64 {
        self.t_end
    }

    /// Whether the step that reached `at` needs the state: a divergence sample, a file of the series or a
    /// checkpoint is due (the end's files are written by [`Course::finish`]).
    pub fn wants_state(&self, at: FvPosition) -> bool {
        self.sample_due(at.t) || self.files_due(at) || (self.keep_due(at) && !self.keeps_on_device())
    }

    /// Keeps the last good state from here on: `q`, the state at the course's position (unchecked), and after steps
    /// 1, 2, 4 … 32, then at most once per [`LAST_GOOD_INTERVAL`] of wall time (each a copy of the whole state on
    /// the host: on a device that cannot hold a copy of its own, a read-back); [`Course::admissible`] marks the kept
    /// state as checked and [`Course::stopped`] writes the last checked one.
    pub fn keep_last_good(&mut self, q: &[f64]) -> Result<(), RunError> {
        let unchecked = Some(self.loop_state(q)?);
        self.last_good = Some(LastGood { checked: None, unchecked, kept_at: Instant::now(), on_device: false });
        Ok(())
    }

    /// [`Course::keep_last_good`] with the states kept on a device: the state at the course's position was copied
    /// into the device loop's buffer, and the loop copies each later one there and says so with
    /// [`Course::kept_on_device`] wherever [`Course::device_keep_due`] says (no read-back until the run stops).
    pub fn keep_last_good_on_device(&mut self) -> Result<(), RunError> {
        let unchecked = Some(self.kept_apart()?);
        self.last_good = Some(LastGood { checked: None, unchecked, kept_at: Instant::now(), on_device: true });
        Ok(())
    }

    /// Whether the last good state is kept, and on a device.
    fn keeps_on_device(&self) -> bool {
        self.last_good.as_ref().is_some_and(|g| g.on_device)
    }

    /// Whether the step that reached `at` keeps its state as the last good one.
    fn keep_due(&self, at: FvPosition) -> bool {
        self.last_good.as_ref().is_some_and(|g| {
            (at.steps.is_power_of_two() && at.steps <= 32) || g.kept_at.elapsed().as_secs_f64() >= LAST_GOOD_INTERVAL
        })
    }

    /// Whether the state at the course's position is to be copied into the device loop's buffer now.
    pub fn device_keep_due(&self) -> bool {
        self.keeps_on_device() && self.keep_due(self.at)
    }

    /// The state at the course's position (its check passed) was copied into the device loop's buffer.
    pub fn kept_on_device(&mut self) -> Result<(), RunError> {
        let state = self.kept_apart()?;
        if let Some(g) = &mut self.last_good {
            (g.unchecked, g.kept_at) = (Some(state), Instant::now());
        }
        Ok(())
    }

    /// The run at its position as a restart file holds it, its state's values kept elsewhere (no arrays yet).
    fn kept_apart(&self) -> Result<LoopState, RunError> {
        let mut state = self.loop_state(&[])?;
        state.snapshot.arrays.clear();
        Ok(state)
    }

    /// Whether the last checked state is on the device and not yet read.
    pub fn checked_on_device(&self) -> bool {
        self.last_good.as_ref().and_then(|g| g.checked.as_ref()).is_some_and(|k| k.snapshot.arrays.is_empty())
    }

    /// The values of the last checked state, read from the device (before [`Course::stopped`] writes it).
    pub fn fill_checked(&mut self, values: Vec<f64>) {
        if let Some(kept) = self.last_good.as_mut().and_then(|g| g.checked.as_mut()) {
            kept.snapshot.arrays = vec![("state".into(), values)];
        }
    }

    /// The state at the course's position passed the admissibility check: the state kept since the last check
    /// (if any) is the last good one.
    pub fn admissible(&mut self) {
        if let Some(g) = &mut self.last_good {
            if let Some(state) = g.unchecked.take() {
                g.checked = Some(state);
            }
        }
    }

    /// The error `e` of a run that stopped, with the last good state written beside it where one was kept: as
    /// `<stem>.restart` (from which `dg run --restart` continues) and `<stem>.vtu`, named in the message. A state
    /// still on the device ([`Course::fill_checked`] not called) is not written.
    pub fn stopped(&self, e: RunError) -> RunError {
        let checked =
            self.last_good.as_ref().and_then(|g| g.checked.as_ref()).filter(|k| !k.snapshot.arrays.is_empty());
        let (RunError::Stopped { step, time, reason }, Some(state), Some(stem)) = (&e, checked, &self.out.last_good)
        else {
            return e;
        };
        let (grid, names) = (self.grid, self.names);
        let write_vtu = |path: &Path, q: &[f64]| write_cells(path, grid, names, q);
        let saved = crate::output::write_last_good(stem, state, self.out, &write_vtu);
        RunError::Stopped { step: *step, time: *time, reason: format!("{reason}; {saved}") }
    }

    /// Whether a sample of max |∇·B| is due at `t`.
    pub fn sample_due(&self, t: f64) -> bool {
        t >= self.next_sample * (1.0 - 1e-12)
    }

    /// Whether a file of the series or a checkpoint is due after the step that reached `at`.
    pub fn files_due(&self, at: FvPosition) -> bool {
        let before_end = at.t < self.t_end * (1.0 - 1e-14);
        (before_end && self.series.as_ref().is_some_and(|s| at.t >= s.next * (1.0 - 1e-12)))
            || self.checkpoint_due(at.steps)
    }

    fn checkpoint_due(&self, steps: u64) -> bool {
        self.out.checkpoint_every.is_some_and(|n| steps.is_multiple_of(n.max(1)))
    }

    /// A step reached `at`; `q` is the state there where [`Course::wants_state`] said so (else `None`).
    pub fn step_taken(&mut self, at: FvPosition, q: Option<&[f64]>) -> Result<(), RunError> {
        let sample = match q {
            Some(q) if self.sample_due(at.t) => Some(max_divergence(self.grid, q)),
            _ => None,
        };
        self.record(at, sample, q)
    }

    /// A step reached `at`, with the sample of max |∇·B| there where one was due, and the state where
    /// [`Course::files_due`] said so and this process writes (else `None`): the counters move on alike everywhere.
    pub fn record(&mut self, at: FvPosition, sample: Option<f64>, q: Option<&[f64]>) -> Result<(), RunError> {
        self.at = at;
        if let Some(value) = sample.filter(|_| self.sample_due(at.t)) {
            self.divergence.push((at.t, value));
            while self.next_sample <= at.t * (1.0 + 1e-12) {
                self.next_sample += self.every;
            }
        }
        if at.t < self.t_end * (1.0 - 1e-14) {
            self.write_series(at.t, q)?;
        }
        if self.checkpoint_due(at.steps) {
            self.checkpoint(q)?;
        }
        if let (true, false, Some(q)) = (self.keep_due(at), self.keeps_on_device(), q) {
            let state = self.loop_state(q)?;
            if let Some(g) = &mut self.last_good {
                (g.unchecked, g.kept_at) = (Some(state), Instant::now());
            }
        }
        Ok(())
    }

    /// The end of the run with state `q` (where this process writes): the series' last file (unless one is at
    /// that time already) and the `--out` file.
    pub fn finish(&mut self, q: Option<&[f64]>) -> Result<(), RunError> {
        let t = self.at.t;
        if let Some(s) = &mut self.series {
            if s.entries.last().is_none_or(|(time, _)| *time < t) {
                s.next = t;
            }
        }
        self.write_series(t, q)?;
        match (&self.out.vtu, q.filter(|_| self.writer)) {
            (Some(path), Some(q)) => write_cells(path, self.grid, self.names, q),
            _ => Ok(()),
        }
    }

    /// Writes `q` at time `t` as the series' next file, where one is due (a process that does not write counts
    /// the file alike).
    fn write_series(&mut self, t: f64, q: Option<&[f64]>) -> Result<(), RunError> {
        let (grid, names, writer) = (self.grid, self.names, self.writer);
        let Some(s) = &mut self.series else { return Ok(()) };
        if t < s.next * (1.0 - 1e-12) {
            return Ok(());
        }
        let name = format!("{}_{:04}.vtu", s.stem, s.entries.len());
        if let Some(q) = q.filter(|_| writer) {
            write_cells(&s.pvd.with_file_name(&name), grid, names, q)?;
        }
        s.entries.push((t, name));
        if writer {
            dg_core::vtu::write_pvd(&s.pvd, &s.entries).map_err(|e| RunError::Output(e.to_string()))?;
        }
        while s.next <= t * (1.0 + 1e-12) {
            s.next += s.every;
        }
        Ok(())
    }

    /// Writes the restart file of the run at its position with state `q` (where this process writes).
    fn checkpoint(&self, q: Option<&[f64]>) -> Result<(), RunError> {
        let (Some(path), Some(q), true) = (&self.out.checkpoint, q, self.writer) else { return Ok(()) };
        let file = RestartFile { run: self.out.command.clone(), state: self.loop_state(q)? };
        restart::write(path, &file).map_err(|e| RunError::Output(format!("cannot write the checkpoint: {e}")))
    }

    /// The run at its position with state `q`, as a restart file holds it (the state copied; an allocation that
    /// fails is an error).
    fn loop_state(&self, q: &[f64]) -> Result<LoopState, RunError> {
        let counters = Counters {
            formulation: "fv".into(),
            divergence: self.divergence.clone(),
            next_sample: self.next_sample,
            next_output: self.series.as_ref().map(|s| s.next),
        };
        let stepper = serde_json::to_value(&counters).map_err(|e| RunError::Output(e.to_string()))?;
        let position = LoopPosition {
            step: self.at.steps,
            t: self.at.t,
            t_end: self.t_end,
            schedule: Schedule::Adaptive,
            dt_range: self.at.dt_range,
        };
        let mut values = Vec::new();
        values
            .try_reserve_exact(q.len())
            .map_err(|e| RunError::Output(format!("cannot hold a copy of the state ({} values): {e}", q.len())))?;
        values.extend_from_slice(q);
        Ok(LoopState { position, snapshot: Snapshot { stepper, arrays: vec![("state".into(), values)] } })
    }
}

/// Writes a variable-major state (`v * cells + j * nx + i`) as one cell field per variable.
pub(crate) fn write_cells(path: &Path, grid: &FvGrid, names: &[&str], q: &[f64]) -> Result<(), RunError> {
    let cells = grid.cells();
    let fields: Vec<dg_core::vtu::Field<'_>> =
        names.iter().zip(q.chunks(cells.max(1))).map(|(name, values)| dg_core::vtu::Field { name, values }).collect();
    let cell_grid = dg_core::vtu::CellGrid { nx: grid.nx, ny: grid.ny, lower: grid.lower, upper: grid.upper };
    Ok(dg_core::vtu::write_vtu_grid(path, &cell_grid, &fields)?)
}
