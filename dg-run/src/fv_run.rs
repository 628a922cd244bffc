//! Running the finite-volume cases (seed 003) on the native CPU path: the split sweeps of `dg-fv` to the final
//! time, with the largest discrete divergence of B sampled over the run (with and without GLM cleaning), the
//! change of the conserved totals and the time per step.

use crate::error::RunError;
use dg_cases::fv::FvCase;
use dg_core::law::ConservationLaw;
use dg_fv::{FvError, FvGrid, Reconstruction, Side};
use serde::Serialize;
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
}

impl Default for FvOptions {
    fn default() -> Self {
        Self { cells: None, order: 2, cfl: 0.8, t_end: None, no_cleaning: false, samples: 20 }
    }
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

/// Runs `case` with `opts`; `progress(t, t_end)` after each step.
pub fn run_fv(case: &dyn FvCase, opts: &FvOptions, progress: &mut dyn FnMut(f64, f64)) -> Result<FvOutcome, RunError> {
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
            "{} × {} cells are above the {MAX_CELLS} a CPU run allocates; use a smaller --nx",
            grid.nx, grid.ny
        )));
    }
    let t_end = opts.t_end.unwrap_or(case.default_t_end());
    let nv = <dg_laws::mhd2d::Law as ConservationLaw>::NVARS;
    let q0 = grid.sample(nv, |x, q| case.initial(x, q));
    let cells = grid.cells();
    let mass0: f64 = q0[..cells].iter().sum();
    let mut divergence = vec![(0.0, max_divergence(&grid, &q0))];
    let every = t_end / opts.samples.max(1) as f64;
    let mut next = every;
    let started = Instant::now();
    let out = dg_fv::run(&law, &grid, reconstruction, q0, (t_end, opts.cfl), &mut |t, q| {
        if t >= next * (1.0 - 1e-12) {
            divergence.push((t, max_divergence(&grid, q)));
            while next <= t * (1.0 + 1e-12) {
                next += every;
            }
        }
        progress(t, t_end);
    })
    .map_err(|e| match e {
        FvError::Setup(m) => RunError::InvalidOption(m),
        FvError::NotAdmissible { step, t, i, j, values } => RunError::Stopped {
            step,
            time: t,
            reason: format!("cell ({i}, {j}) left the admissible set (ρ or p not positive, or not finite): {values:?}"),
        },
    })?;
    let wall_seconds = started.elapsed().as_secs_f64();
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
    };
    Ok(FvOutcome { report, grid, q: out.q })
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
