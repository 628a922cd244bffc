//! Running a case on the native CPU path: time stepping, error against the exact solution, energy,
//! throughput; and convergence studies over orders and refinement levels.

use dg_cases::MaxwellCase;
use dg_core::law::ConservationLaw;
use dg_core::mesh::{refine_uniform, TriMesh};
use dg_core::space::{DgSpace2d, SpaceError};
use dg_core::{CoreError, Real};
use dg_laws::MaxwellTm;
use dg_nodal_tri::NodalOperator2d;
use dg_runtime::cpu::{BoundaryBinding, BoundaryError};
use dg_runtime::time::{Integrator, Scheme};
use serde::Serialize;
use std::collections::HashMap;
use std::time::Instant;

/// Errors of a simulation.
#[derive(Debug, thiserror::Error)]
pub enum SimulateError {
    /// A boundary tag has no condition.
    #[error(transparent)]
    Boundary(#[from] BoundaryError),
    /// The reference element or output failed.
    #[error(transparent)]
    Core(#[from] CoreError),
    /// The mesh or space is invalid.
    #[error(transparent)]
    Space(#[from] SpaceError),
    /// An option is out of range.
    #[error("invalid option: {0}")]
    InvalidOption(String),
    /// The solution blew up.
    #[error("the solution is no longer finite at step {step} (t = {time:.4}); reduce --cfl")]
    NotFinite {
        /// Step at which it was seen.
        step: u64,
        /// Time reached.
        time: f64,
    },
}

/// How to run a case.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Time integrator.
    pub scheme: Scheme,
    /// Courant number relative to the LSRK45 limit (the step is scaled for other schemes).
    pub cfl: f64,
    /// Final time (the case's default when `None`).
    pub t_end: Option<f64>,
    /// Fixed time step (overrides `cfl`; rounded down so that the run ends exactly at `t_end`).
    pub dt: Option<f64>,
    /// Flux parameter α (1 upwind, 0 central).
    pub alpha: f64,
    /// Boundary tag → boundary condition name; unlisted tags use the condition of the same name or the law's
    /// only condition.
    pub boundary: HashMap<String, String>,
    /// Record the energy after every step (else only at the start and the end).
    pub energy_history: bool,
}

impl Default for RunOptions {
    fn default() -> Self {
        Self {
            scheme: Scheme::Lsrk45,
            cfl: 0.75,
            t_end: None,
            dt: None,
            alpha: 1.0,
            boundary: HashMap::new(),
            energy_history: false,
        }
    }
}

/// What a run measured.
#[derive(Debug, Clone, Serialize)]
pub struct RunReport {
    /// MaxwellCase name.
    pub case: String,
    /// Law name.
    pub law: String,
    /// Polynomial order.
    pub order: usize,
    /// Precision (`f32` or `f64`).
    pub precision: &'static str,
    /// Number of elements.
    pub elements: usize,
    /// Degrees of freedom: elements × nodes × variables.
    pub dofs: usize,
    /// Mesh size h (longest edge).
    pub h: f64,
    /// Time integrator.
    pub scheme: &'static str,
    /// Steps taken.
    pub steps: u64,
    /// Time step.
    pub dt: f64,
    /// Final time.
    pub t_end: f64,
    /// L2 error against the exact solution at `t_end` (all variables), when the case has one.
    pub l2_error: Option<f64>,
    /// Energy ½∫|q|² at the start.
    pub energy_initial: f64,
    /// Energy at the end.
    pub energy_final: f64,
    /// Energy after each step, if requested.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub energy_history: Vec<f64>,
    /// Right-hand-side evaluations.
    pub rhs_evaluations: u64,
    /// Wall time of the time loop, seconds.
    pub wall_seconds: f64,
    /// DOF × RHS evaluations per second.
    pub throughput: f64,
}

/// A finished run: its report and final state (converted to f64, layout of the CPU operator).
pub struct RunOutcome {
    /// The report.
    pub report: RunReport,
    /// Final state.
    pub state: Vec<f64>,
}

/// The time step a run takes: the CFL limit scaled for the scheme, or the fixed step, rounded down so the
/// final time is hit exactly. Returns (steps, dt).
pub fn time_step(space: &DgSpace2d, opts: &RunOptions, t_end: f64) -> Result<(u64, f64), SimulateError> {
    if !(t_end.is_finite() && t_end > 0.0) {
        return Err(SimulateError::InvalidOption(format!("final time must be positive, got {t_end}")));
    }
    let dt_max = match opts.dt {
        Some(dt) if dt.is_finite() && dt > 0.0 => dt,
        Some(dt) => return Err(SimulateError::InvalidOption(format!("time step must be positive, got {dt}"))),
        None => {
            if !(opts.cfl.is_finite() && opts.cfl > 0.0) {
                return Err(SimulateError::InvalidOption(format!("CFL number must be positive, got {}", opts.cfl)));
            }
            // wave speed 1 for Maxwell in these units
            opts.cfl * opts.scheme.relative_stability() * space.dt_length_scale()
        }
    };
    let steps = (t_end / dt_max).ceil().max(1.0) as u64;
    Ok((steps, t_end / steps as f64))
}

/// Runs `case` on `space` in precision `T`. `progress(step, total)` is called after every step.
pub fn run<T: Real>(
    space: &DgSpace2d,
    case: &dyn MaxwellCase,
    opts: &RunOptions,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<RunOutcome, SimulateError> {
    run_with_law::<MaxwellTm, T>(space, case.law(opts.alpha), case, opts, progress)
}

/// Runs `case` with an explicitly given law (the case supplies the initial and exact states).
pub fn run_with_law<L: ConservationLaw, T: Real>(
    space: &DgSpace2d,
    law: L,
    case: &dyn MaxwellCase,
    opts: &RunOptions,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<RunOutcome, SimulateError> {
    let nv = L::NVARS;
    let binding = BoundaryBinding::for_law(&law, space, &opts.boundary)?;
    let law_name = law.name();
    let mut op = NodalOperator2d::<L, T>::new(law, space, &binding);
    let t_end = opts.t_end.unwrap_or_else(|| case.default_t_end());
    let (steps, dt) = time_step(space, opts, t_end)?;
    let mut q: Vec<T> = space.interpolate(nv, |x, y, q| case.initial(x, y, q));
    let energy = |q: &[T]| 0.5 * space.square_norm(nv, q);
    let energy_initial = energy(&q);
    let mut history = Vec::new();
    let mut integrator = Integrator::new(opts.scheme);
    let start = Instant::now();
    for step in 0..steps {
        let t = step as f64 * dt;
        integrator.step(&mut op, t, dt, &mut q).unwrap_or_else(|never| match never {});
        if opts.energy_history {
            history.push(energy(&q));
        }
        let check_now = (step + 1) % 64 == 0 || step + 1 == steps;
        if check_now && !q.iter().all(|v| v.is_finite()) {
            return Err(SimulateError::NotFinite { step: step + 1, time: t + dt });
        }
        progress(step + 1, steps);
    }
    let summary = LoopSummary {
        law: law_name,
        steps,
        dt,
        t_end,
        energy_initial,
        energy_history: history,
        rhs_evaluations: integrator.rhs_evaluations(),
        wall_seconds: start.elapsed().as_secs_f64(),
    };
    finish(space, case, opts, nv, &q, summary)
}

/// What a time loop hands to [`finish`].
pub struct LoopSummary {
    /// Law name.
    pub law: &'static str,
    /// Steps taken.
    pub steps: u64,
    /// Time step.
    pub dt: f64,
    /// Final time.
    pub t_end: f64,
    /// Energy at the start.
    pub energy_initial: f64,
    /// Energy after each step, if recorded.
    pub energy_history: Vec<f64>,
    /// Right-hand-side evaluations.
    pub rhs_evaluations: u64,
    /// Wall time of the loop.
    pub wall_seconds: f64,
}

/// The report of a finished run (error against the exact solution, final energy, throughput), whichever
/// backend stepped it; `q` is the final state in the CPU layout.
pub fn finish<T: Real>(
    space: &DgSpace2d,
    case: &dyn MaxwellCase,
    opts: &RunOptions,
    nv: usize,
    q: &[T],
    s: LoopSummary,
) -> Result<RunOutcome, SimulateError> {
    let l2_error = if case.has_exact() {
        Some(space.l2_error(nv, q, |x, y, out| {
            case.exact(x, y, s.t_end, out);
        })?)
    } else {
        None
    };
    let dofs = space.num_nodes() * nv;
    let report = RunReport {
        case: case.name().to_string(),
        law: s.law.to_string(),
        order: space.element.order,
        precision: T::NAME,
        elements: space.num_elements(),
        dofs,
        h: space.mesh.max_edge_length(),
        scheme: opts.scheme.name(),
        steps: s.steps,
        dt: s.dt,
        t_end: s.t_end,
        l2_error,
        energy_initial: s.energy_initial,
        energy_final: 0.5 * space.square_norm(nv, q),
        energy_history: s.energy_history,
        rhs_evaluations: s.rhs_evaluations,
        wall_seconds: s.wall_seconds,
        throughput: dofs as f64 * s.rhs_evaluations as f64 / s.wall_seconds.max(1e-12),
    };
    Ok(RunOutcome { report, state: q.iter().map(|v| v.as_f64()).collect() })
}

/// Errors and observed orders of one polynomial order over the refinement levels.
#[derive(Debug, Clone, Serialize)]
pub struct OrderResult {
    /// Polynomial order.
    pub order: usize,
    /// Mesh size per level.
    pub h: Vec<f64>,
    /// L2 error per level.
    pub l2: Vec<f64>,
    /// Observed order between consecutive levels: log(e_i / e_{i+1}) / log(h_i / h_{i+1}).
    pub rates: Vec<f64>,
    /// Wall time of each run's time loop, seconds.
    pub seconds: Vec<f64>,
}

/// A convergence study.
#[derive(Debug, Clone, Serialize)]
pub struct ConvergenceStudy {
    /// MaxwellCase name.
    pub case: String,
    /// Per order.
    pub results: Vec<OrderResult>,
}

/// Runs `case` for every order in `orders` on `levels` meshes: `base`, then uniformly refined `levels − 1`
/// times. The time step shrinks with the mesh as the CFL rule gives, and additionally like h^((N+1)/4) so that
/// the fourth-order time error stays below the spatial error of order N + 1. `progress(order, level)` is
/// called before each run.
pub fn convergence(
    case: &dyn MaxwellCase,
    base: &TriMesh,
    orders: std::ops::RangeInclusive<usize>,
    levels: usize,
    opts: &RunOptions,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<ConvergenceStudy, SimulateError> {
    if levels < 2 {
        return Err(SimulateError::InvalidOption(format!("a convergence study needs at least 2 levels, got {levels}")));
    }
    let mut meshes = vec![base.clone()];
    for _ in 1..levels {
        let next = refine_uniform(meshes.last().expect("at least one mesh"));
        meshes.push(next);
    }
    let mut results = Vec::new();
    for order in orders {
        let mut h = Vec::new();
        let mut l2 = Vec::new();
        let mut seconds = Vec::new();
        for (level, mesh) in meshes.iter().enumerate() {
            progress(order, level);
            let space = DgSpace2d::new(mesh.clone(), order)?;
            let mut level_opts = opts.clone();
            if level_opts.dt.is_none() {
                level_opts.cfl = opts.cfl * time_accuracy_factor(order, level);
            }
            let outcome = run::<f64>(&space, case, &level_opts, &mut |_, _| {})?;
            seconds.push(outcome.report.wall_seconds);
            h.push(outcome.report.h);
            l2.push(outcome.report.l2_error.ok_or_else(|| {
                SimulateError::InvalidOption(format!("case `{}` has no exact solution to converge to", case.name()))
            })?);
        }
        let rates = (1..h.len()).map(|i| (l2[i - 1] / l2[i]).ln() / (h[i - 1] / h[i]).ln()).collect();
        results.push(OrderResult { order, h, l2, rates, seconds });
    }
    Ok(ConvergenceStudy { case: case.name().to_string(), results })
}

/// Extra reduction of the CFL number at refinement `level` for order `order`: with dt ∝ h·2^(−level·s), the
/// O(dt⁴) time error falls like h^(4(1+s)); s = max(0, (N + 1)/4 − 1) keeps it at the spatial rate N + 1.
pub fn time_accuracy_factor(order: usize, level: usize) -> f64 {
    let s = ((order as f64 + 1.0) / 4.0 - 1.0).max(0.0);
    0.5f64.powf(level as f64 * s)
}
