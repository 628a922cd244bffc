//! The options every time-dependent run takes, whatever its formulation: the step, the final time, the boundary
//! bindings, the kernel choice on a device, what the run writes and how MPI ranks split the mesh. Each
//! formulation's options ([`crate::maxwell_run::RunOptions`], [`crate::euler_run::EulerOptions`],
//! [`crate::wave_run::WaveOptions`], [`crate::hex_run::HexOptions`]) hold them as `common`, beside their own.

use crate::output::RunOutput;
use std::collections::HashMap;

/// The options every time-dependent run takes.
#[derive(Debug, Clone)]
pub struct CommonRunOptions {
    /// Courant number (each formulation's rule and default: see its options type); `None`: the formulation's
    /// default, or the scheme's stability limit on the problem when that is smaller.
    pub cfl: Option<f64>,
    /// Fixed time step instead of the CFL rule (rounded down so that the run ends exactly at `t_end`).
    pub dt: Option<f64>,
    /// Final time (the case's default when `None`).
    pub t_end: Option<f64>,
    /// Accept a `cfl` or `dt` above the scheme's stability limit (the run still stops if it blows up).
    pub allow_unstable: bool,
    /// Multiplies the step after the stability check (convergence studies shrink it on finer levels).
    pub step_scale: f64,
    /// Boundary tag → condition name, over the case's own bindings (`--bc`); unlisted tags use the condition of
    /// the same name or the law's only condition.
    pub boundary: HashMap<String, String>,
    /// On a device: the kernel variant (SPEC) instead of the tuning database's.
    pub variant: Option<String>,
    /// On a device without a tuning result for the run's key: take the baseline variant instead of tuning.
    pub no_tune: bool,
    /// What the run writes (VTU, series, restart files) and where it starts.
    pub output: RunOutput,
    /// Under `mpirun`: how the mesh is split over the ranks (blocks of a structured box where a grid fits, METIS
    /// otherwise, by default).
    pub partition: dg_parallel::partition::Partitioner,
}

impl Default for CommonRunOptions {
    fn default() -> Self {
        Self {
            cfl: None,
            dt: None,
            t_end: None,
            allow_unstable: false,
            step_scale: 1.0,
            boundary: HashMap::new(),
            variant: None,
            no_tune: false,
            output: RunOutput::default(),
            partition: Default::default(),
        }
    }
}
