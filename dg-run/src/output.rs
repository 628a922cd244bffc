//! What a run writes besides its report, for every formulation: the final state as VTU, a `.pvd` time series,
//! restart files (checkpoints every few steps, and the last good state of a run that stops), and the state a
//! run continues from. Each run hands the shared loop its stepper and a function that writes one state (CPU
//! layout, f64) as VTU; this module does the rest.

use crate::error::RunError;
use dg_runtime::restart::{self, LoopState, RestartFile};
use dg_runtime::run_loop::{self, LoopError, LoopStats, Persistence, StateEvent, StepRule, Stepper};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Writes one state (CPU layout, as f64) of a run as a VTU file.
pub type VtuWriter<'a> = dyn Fn(&Path, &[f64]) -> Result<(), RunError> + 'a;

/// What a run writes and where it starts.
#[derive(Debug, Clone, Default)]
pub struct RunOutput {
    /// Write the final state to this VTU file.
    pub vtu: Option<PathBuf>,
    /// Also write the state every this much simulated time (at the first step at or past each multiple, and at
    /// the start and the end) as `<vtu stem>_NNNN.vtu`, listed with their times in `<vtu stem>.pvd`.
    pub vtu_every: Option<f64>,
    /// Write a restart file every this many steps.
    pub checkpoint_every: Option<u64>,
    /// The restart file the checkpoints go to (replaced each time).
    pub checkpoint: Option<PathBuf>,
    /// When the run stops with an inadmissible state: write its last good state to `<stem>.restart` and
    /// `<stem>.vtu`.
    pub last_good: Option<PathBuf>,
    /// What started the run, stored in every restart file (the program's command line).
    pub command: serde_json::Value,
    /// Continue from this state instead of the initial one.
    pub resume: Option<Arc<LoopState>>,
}

impl RunOutput {
    /// The `.pvd` file of the time series and the stem of its VTU files.
    pub(crate) fn series(&self) -> Option<(PathBuf, String)> {
        let vtu = self.vtu.as_ref()?;
        self.vtu_every?;
        let stem = vtu.file_stem().map(|s| s.to_string_lossy().to_string()).unwrap_or_else(|| "run".into());
        Some((vtu.with_extension("pvd"), stem))
    }

    pub(crate) fn check(&self) -> Result<(), RunError> {
        let refuse = |m: &str| Err(RunError::InvalidOption(m.into()));
        if self.vtu_every.is_some() && self.vtu.is_none() {
            return refuse("--out-every needs --out FILE.vtu (the series is FILE.pvd with FILE_NNNN.vtu)");
        }
        if self.vtu_every.is_some_and(|t| !(t.is_finite() && t > 0.0)) {
            return refuse("--out-every must be a positive finite time");
        }
        if self.checkpoint_every == Some(0) {
            return refuse("--checkpoint-every must be at least 1 step");
        }
        if self.checkpoint_every.is_some() && self.checkpoint.is_none() {
            return refuse("--checkpoint-every needs the file to write (--checkpoint FILE)");
        }
        Ok(())
    }

    /// Writes the final state `q` (CPU layout) to [`RunOutput::vtu`], if asked.
    pub fn write_final(&self, write_vtu: &VtuWriter<'_>, q: &[f64]) -> Result<(), RunError> {
        match &self.vtu {
            Some(path) => write_vtu(path, q),
            None => Ok(()),
        }
    }
}

/// Beyond step 32, a run keeps its last good state at most this often (seconds of wall time): a large device
/// state costs a read-back, and a blow-up is caught within a few steps of its start anyway.
pub const LAST_GOOD_INTERVAL: f64 = 10.0;

/// Runs `stepper` through the shared loop with the checkpoints, outputs and restart of `out`; a run that stops
/// with an inadmissible state leaves its last good state in files named in the error.
pub fn run_stepper<E>(
    stepper: &mut dyn Stepper<Error = E>,
    t_end: f64,
    rule: StepRule,
    out: &RunOutput,
    write_vtu: &VtuWriter<'_>,
    progress: &mut dyn FnMut(f64, f64),
) -> Result<LoopStats, RunError>
where
    RunError: From<E>,
{
    out.check()?;
    let series = out.series();
    let resumed_at = out.resume.as_ref().map(|r| r.position.t);
    let mut entries = match (&series, resumed_at) {
        // a continued series keeps the outputs written before the restart state
        (Some((pvd, _)), Some(t)) => {
            dg_core::vtu::read_pvd(pvd).into_iter().filter(|(time, _)| *time <= t * (1.0 + 1e-12)).collect()
        }
        _ => Vec::new(),
    };
    let mut sink = |event: StateEvent, state: &LoopState| -> Result<(), String> {
        let values = state.snapshot.array("state").ok_or("the saved state has no solution array")?;
        match event {
            StateEvent::Checkpoint => {
                let path = out.checkpoint.as_ref().ok_or("no checkpoint file")?;
                let file = RestartFile { run: out.command.clone(), state: state.clone() };
                restart::write(path, &file).map_err(|e| format!("cannot write the checkpoint: {e}"))
            }
            StateEvent::Output => {
                let Some((pvd, stem)) = &series else { return Ok(()) };
                let name = format!("{stem}_{:04}.vtu", entries.len());
                let path = pvd.with_file_name(&name);
                write_vtu(&path, values).map_err(|e| e.to_string())?;
                entries.push((state.position.t, name));
                dg_core::vtu::write_pvd(pvd, &entries).map_err(|e| e.to_string())
            }
        }
    };
    let mut persist = Persistence {
        resume: out.resume.as_deref(),
        checkpoint_every: out.checkpoint_every,
        output_every: out.vtu_every,
        sink: Some(&mut sink),
        keep_last_good: out.last_good.is_some(),
        last_good_interval: LAST_GOOD_INTERVAL,
    };
    match run_loop::run_persisted(stepper, t_end, rule, &mut persist, progress) {
        Ok(stats) => Ok(stats),
        Err(LoopError::NotAdmissible { step, time, reason, last_good: Some(state) }) => {
            let stem = out.last_good.clone().unwrap_or_else(|| PathBuf::from("last-good"));
            let saved = write_last_good(&stem, &state, out, write_vtu);
            Err(RunError::Stopped { step, time, reason: format!("{reason}; {saved}") })
        }
        Err(e) => Err(e.into()),
    }
}

/// Writes the last good state as `<stem>.restart` and `<stem>.vtu`; what was written, for the error message.
pub(crate) fn write_last_good(stem: &Path, state: &LoopState, out: &RunOutput, write_vtu: &VtuWriter<'_>) -> String {
    let (restart_path, vtu_path) = (stem.with_extension("restart"), stem.with_extension("vtu"));
    let at = format!("step {}, t = {:.6e}", state.position.step, state.position.t);
    let file = RestartFile { run: out.command.clone(), state: state.clone() };
    let restart = restart::write(&restart_path, &file);
    let vtu = match state.snapshot.array("state") {
        Some(values) => write_vtu(&vtu_path, values),
        None => Err(RunError::InvalidOption("the saved state has no solution array".into())),
    };
    match (restart, vtu) {
        (Ok(()), Ok(())) => {
            format!("the last good state ({at}) is in {} and {}", restart_path.display(), vtu_path.display())
        }
        (r, v) => format!(
            "the last good state ({at}) could not be written: {}",
            [r.err().map(|e| e.to_string()), v.err().map(|e| e.to_string())]
                .into_iter()
                .flatten()
                .collect::<Vec<_>>()
                .join("; ")
        ),
    }
}

/// Splits a nodal state (layout `(k · nv + v) · np + i`) into one array per variable (`k · np + i`).
pub fn per_variable(q: &[f64], nv: usize, np: usize) -> Vec<Vec<f64>> {
    let k_count = q.len() / (nv * np).max(1);
    (0..nv)
        .map(|v| (0..k_count).flat_map(|k| q[(k * nv + v) * np..(k * nv + v + 1) * np].iter().copied()).collect())
        .collect()
}

/// [`dg_core::vtu::Field`]s named `names` over per-variable arrays.
pub fn named<'a>(names: &'a [&'a str], values: &'a [Vec<f64>]) -> Vec<dg_core::vtu::Field<'a>> {
    names.iter().zip(values).map(|(name, values)| dg_core::vtu::Field { name, values }).collect()
}
