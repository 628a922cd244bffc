//! The CPU reference of the finite-volume scheme: dimensional splitting (an x-sweep with the step dt, then a
//! y-sweep of the updated state), each sweep a 1D conservative update with the law's numerical flux,
//!
//! q_c ← q_c − dt/h (F*_{c+½} − F*_{c−½}),
//!
//! from cell means (first order) or from MUSCL–Hancock states: minmod-limited slopes s of the conserved variables,
//! face values q ± s/2 advanced half a step by the flux difference across the cell. The law's source (if any)
//! follows the sweeps as an explicit Euler step. Boundary ghost cells are the law's ghost states of the edge cells.

use crate::grid::{FvGrid, Side};
use dg_core::law::ConservationLaw;
use rayon::prelude::*;

/// How face states are reconstructed from cell means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reconstruction {
    /// Cell means on both sides (first order).
    FirstOrder,
    /// MUSCL–Hancock with the minmod limiter (second order in smooth regions).
    MusclHancock,
}

/// Why a finite-volume run stopped.
#[derive(Debug, thiserror::Error)]
pub enum FvError {
    /// The grid or the state does not fit the law.
    #[error("{0}")]
    Setup(String),
    /// A cell left the law's admissible set (or became NaN).
    #[error("step {step} (t = {t:.6}): cell ({i}, {j}) left the admissible set (variable values {values:?})")]
    NotAdmissible {
        /// The step that produced it.
        step: u64,
        /// The time reached.
        t: f64,
        /// Cell index along x.
        i: usize,
        /// Cell index along y.
        j: usize,
        /// Its values.
        values: Vec<f64>,
    },
}

/// A finished run.
#[derive(Debug, Clone)]
pub struct FvRun {
    /// The final state.
    pub q: Vec<f64>,
    /// Steps taken.
    pub steps: u64,
    /// Smallest and largest step.
    pub dt_range: [f64; 2],
}

/// Where a run stands: the time reached, the steps taken and the smallest and largest step so far.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FvPosition {
    /// Time reached.
    pub t: f64,
    /// Steps taken.
    pub steps: u64,
    /// Smallest and largest step so far ([∞, 0] before the first).
    pub dt_range: [f64; 2],
}

impl FvPosition {
    /// A run's start: t = 0, no step taken.
    pub const START: Self = Self { t: 0.0, steps: 0, dt_range: [f64::INFINITY, 0.0] };

    /// The position after one more step of `dt`.
    pub fn after(self, dt: f64) -> Self {
        Self { t: self.t + dt, steps: self.steps + 1, dt_range: [self.dt_range[0].min(dt), self.dt_range[1].max(dt)] }
    }
}

/// Runs `q0`, the state at `from` (a run's start, or a saved state), to `t_end` with steps of `cfl` times the 1D
/// limit of each sweep (stable up to 1; above, a run is expected to end with [`FvError::NotAdmissible`]);
/// `observe(position, q)` after each step, with a state that passed the admissibility check.
pub fn run<L: ConservationLaw>(
    law: &L,
    grid: &FvGrid,
    reconstruction: Reconstruction,
    (q0, from): (Vec<f64>, FvPosition),
    (t_end, cfl): (f64, f64),
    observe: &mut dyn FnMut(FvPosition, &[f64]),
) -> Result<FvRun, FvError> {
    check(law, grid, &q0)?;
    if !(cfl > 0.0 && cfl.is_finite()) {
        return Err(FvError::Setup(format!("the CFL number must be positive and finite (got {cfl})")));
    }
    if !(t_end.is_finite() && t_end > 0.0) {
        return Err(FvError::Setup(format!("the final time must be positive and finite (got {t_end})")));
    }
    let mut q = q0;
    let mut scratch = vec![0.0; q.len()];
    let mut at = from;
    admissible(law, grid, &q, at.steps, at.t)?;
    while at.t < t_end * (1.0 - 1e-14) {
        let dt = (cfl * stable_step(law, grid, &q)).min(t_end - at.t);
        step(law, grid, reconstruction, (&mut q, &mut scratch), dt, at.t);
        at = at.after(dt);
        admissible(law, grid, &q, at.steps, at.t)?;
        observe(at, &q);
    }
    Ok(FvRun { q, steps: at.steps, dt_range: at.dt_range })
}

fn check<L: ConservationLaw>(law: &L, grid: &FvGrid, q: &[f64]) -> Result<(), FvError> {
    grid.check().map_err(FvError::Setup)?;
    if L::DIM != 2 || L::NMATERIALS != 0 {
        return Err(FvError::Setup(format!(
            "finite volumes on a 2D grid take a 2D law without materials (`{}` is {}D with {} materials)",
            law.name(),
            L::DIM,
            L::NMATERIALS
        )));
    }
    for side in grid.sides {
        if let Side::Condition(bc) = side {
            if bc >= law.boundary_names().len() {
                return Err(FvError::Setup(format!("law `{}` has no boundary condition number {bc}", law.name())));
            }
        }
    }
    if q.len() != L::NVARS * grid.cells() {
        return Err(FvError::Setup(format!(
            "a state of {} values on {} cells of {} variables",
            q.len(),
            grid.cells(),
            L::NVARS
        )));
    }
    Ok(())
}

/// One split step of `dt` from time `t`, in place: the x-sweep into `scratch`, the y-sweep back into `q`, then the
/// law's source.
pub fn step<L: ConservationLaw>(
    law: &L,
    grid: &FvGrid,
    reconstruction: Reconstruction,
    (q, scratch): (&mut [f64], &mut [f64]),
    dt: f64,
    t: f64,
) {
    sweep(law, grid, reconstruction, q, 0, dt, t, scratch);
    sweep(law, grid, reconstruction, scratch, 1, dt, t, q);
    if law.has_source() {
        add_source(law, grid, q, dt, t);
    }
}

/// The largest step each 1D sweep allows: min over cells of h_d / (largest wave speed along d).
pub fn stable_step<L: ConservationLaw>(law: &L, grid: &FvGrid, q: &[f64]) -> f64 {
    let (nv, n) = (L::NVARS, grid.cells());
    let h = grid.spacing();
    (0..n)
        .into_par_iter()
        .map(|c| {
            let state: Vec<f64> = (0..nv).map(|v| q[v * n + c]).collect();
            let sx = law.max_speed(&state, &[], &[1.0, 0.0]);
            let sy = law.max_speed(&state, &[], &[0.0, 1.0]);
            (h[0] / sx).min(h[1] / sy)
        })
        .reduce(|| f64::INFINITY, f64::min)
}

/// One sweep along `axis` (0: x, 1: y) of `q` with step `dt` into `out`.
#[allow(clippy::too_many_arguments)]
pub fn sweep<L: ConservationLaw>(
    law: &L,
    grid: &FvGrid,
    reconstruction: Reconstruction,
    q: &[f64],
    axis: usize,
    dt: f64,
    t: f64,
    out: &mut [f64],
) {
    let (nv, n) = (L::NVARS, grid.cells());
    let (len, lines, stride, line_step) =
        if axis == 0 { (grid.nx, grid.ny, 1, grid.nx) } else { (grid.ny, grid.nx, grid.nx, 1) };
    let h = grid.spacing()[axis];
    let updated: Vec<Vec<f64>> = (0..lines)
        .into_par_iter()
        .map(|line| {
            let start = line * line_step;
            let padded = padded_line(law, grid, q, (axis, line, start, stride, len), t);
            let fluxes = face_fluxes(law, reconstruction, &padded, len, axis, dt / h);
            let mut result = vec![0.0; nv * len];
            for c in 0..len {
                for v in 0..nv {
                    let cell = padded[(c + 2) * nv + v];
                    result[v * len + c] = cell - dt / h * (fluxes[(c + 1) * nv + v] - fluxes[c * nv + v]);
                }
            }
            result
        })
        .collect();
    for (line, values) in updated.iter().enumerate() {
        let start = line * line_step;
        for c in 0..len {
            for v in 0..nv {
                out[v * n + start + c * stride] = values[v * len + c];
            }
        }
    }
}

/// The cells of one line with two ghost cells at either end, cell-major (`(c + 2) * nv + v` for cell c).
fn padded_line<L: ConservationLaw>(
    law: &L,
    grid: &FvGrid,
    q: &[f64],
    (axis, line, start, stride, len): (usize, usize, usize, usize, usize),
    t: f64,
) -> Vec<f64> {
    let (nv, n) = (L::NVARS, grid.cells());
    let mut padded = vec![0.0; (len + 4) * nv];
    let cell = |c: usize, v: usize| q[v * n + start + c * stride];
    for c in 0..len {
        for v in 0..nv {
            padded[(c + 2) * nv + v] = cell(c, v);
        }
    }
    for (end, side) in [(0usize, grid.sides[2 * axis]), (1, grid.sides[2 * axis + 1])] {
        for layer in 0..2 {
            let slot = if end == 0 { 1 - layer } else { len + 2 + layer };
            match side {
                Side::Periodic => {
                    // modulo the line's length: a line of one cell is its own periodic neighbour
                    let source = if end == 0 { (2 * len - 1 - layer) % len } else { layer % len };
                    for v in 0..nv {
                        padded[slot * nv + v] = cell(source, v);
                    }
                }
                Side::Condition(bc) => {
                    let edge = if end == 0 { 0 } else { len - 1 };
                    let inside: Vec<f64> = (0..nv).map(|v| cell(edge, v)).collect();
                    let mut normal = [0.0; 2];
                    normal[axis] = if end == 0 { -1.0 } else { 1.0 };
                    let (i, j) = if axis == 0 { (edge, line) } else { (line, edge) };
                    let mut x = grid.center(i, j);
                    x[axis] += normal[axis] * 0.5 * grid.spacing()[axis];
                    let mut ghost = vec![0.0; nv];
                    law.boundary_state(bc, &inside, &[], &normal, &x, t, &mut ghost);
                    padded[slot * nv..(slot + 1) * nv].copy_from_slice(&ghost);
                }
            }
        }
    }
    padded
}

/// The numerical fluxes at the len + 1 faces of a padded line (face f between cells f − 1 and f).
fn face_fluxes<L: ConservationLaw>(
    law: &L,
    reconstruction: Reconstruction,
    padded: &[f64],
    len: usize,
    axis: usize,
    ratio: f64,
) -> Vec<f64> {
    let nv = L::NVARS;
    let mut normal = [0.0; 2];
    normal[axis] = 1.0;
    // face states of padded cells 1 ..= len + 2: (minus side value, plus side value) of each
    let mut minus = vec![0.0; (len + 4) * nv];
    let mut plus = vec![0.0; (len + 4) * nv];
    let mut flux = vec![0.0; 2 * nv];
    let mut flux_r = vec![0.0; 2 * nv];
    for p in 1..=len + 2 {
        let cell = &padded[p * nv..(p + 1) * nv];
        match reconstruction {
            Reconstruction::FirstOrder => {
                minus[p * nv..(p + 1) * nv].copy_from_slice(cell);
                plus[p * nv..(p + 1) * nv].copy_from_slice(cell);
            }
            Reconstruction::MusclHancock => {
                let slope: Vec<f64> = (0..nv)
                    .map(|v| minmod(cell[v] - padded[(p - 1) * nv + v], padded[(p + 1) * nv + v] - cell[v]))
                    .collect();
                let left: Vec<f64> = (0..nv).map(|v| cell[v] - 0.5 * slope[v]).collect();
                let right: Vec<f64> = (0..nv).map(|v| cell[v] + 0.5 * slope[v]).collect();
                law.flux(&left, &[], &mut flux);
                law.flux(&right, &[], &mut flux_r);
                for v in 0..nv {
                    let change = 0.5 * ratio * (flux_r[axis * nv + v] - flux[axis * nv + v]);
                    minus[p * nv + v] = left[v] - change;
                    plus[p * nv + v] = right[v] - change;
                }
            }
        }
    }
    let mut fluxes = vec![0.0; (len + 1) * nv];
    for f in 0..=len {
        let (a, b) = (f + 1, f + 2);
        law.numerical_flux(
            &plus[a * nv..(a + 1) * nv],
            &minus[b * nv..(b + 1) * nv],
            &[],
            &[],
            &normal,
            &mut fluxes[f * nv..(f + 1) * nv],
        );
    }
    fluxes
}

/// minmod(a, b): the smaller in magnitude when both have the same sign, else 0.
pub fn minmod(a: f64, b: f64) -> f64 {
    if a * b <= 0.0 {
        0.0
    } else if a.abs() < b.abs() {
        a
    } else {
        b
    }
}

/// Adds the law's source over a step (explicit Euler at the cell centres, time `t`).
pub fn add_source<L: ConservationLaw>(law: &L, grid: &FvGrid, q: &mut [f64], dt: f64, t: f64) {
    let (nv, n) = (L::NVARS, grid.cells());
    let (mut state, mut s) = (vec![0.0; nv], vec![0.0; nv]);
    for c in 0..n {
        for v in 0..nv {
            state[v] = q[v * n + c];
        }
        law.source(&state, &[], &grid.center(c % grid.nx, c / grid.nx), t, &mut s);
        for v in 0..nv {
            q[v * n + c] += dt * s[v];
        }
    }
}

/// The first cell that is not finite or not admissible, as the error of step `step` at time `t`.
pub fn admissible<L: ConservationLaw>(law: &L, grid: &FvGrid, q: &[f64], step: u64, t: f64) -> Result<(), FvError> {
    admissible_rows(law, grid, q, 0..grid.ny, step, t)
}

/// [`admissible`] over the rows `rows` of the grid alone (the cell's row in the error counts from the grid's first).
pub fn admissible_rows<L: ConservationLaw>(
    law: &L,
    grid: &FvGrid,
    q: &[f64],
    rows: std::ops::Range<usize>,
    step: u64,
    t: f64,
) -> Result<(), FvError> {
    let (nv, n) = (L::NVARS, grid.cells());
    let cells = rows.start * grid.nx..rows.end.min(grid.ny) * grid.nx;
    let bad = cells.into_par_iter().find_first(|&c| {
        let state: Vec<f64> = (0..nv).map(|v| q[v * n + c]).collect();
        !state.iter().all(|v| v.is_finite()) || law.admissibility(&state, &[]).is_some_and(|a| a.is_nan() || a <= 0.0)
    });
    match bad {
        None => Ok(()),
        Some(c) => Err(FvError::NotAdmissible {
            step,
            t,
            i: c % grid.nx,
            j: c / grid.nx,
            values: (0..nv).map(|v| q[v * n + c]).collect(),
        }),
    }
}
