//! A nodal-triangle run split over MPI ranks (seed 003's domain decomposition on dg's native CPU path): each rank
//! steps its part of the mesh, the halo exchanged before every right-hand side; one report for the whole run.

use crate::error::RunError;
use crate::maxwell_run::{step_limit, RunOptions, RunReport};
use crate::output::{named, per_variable};
use dg_cases::MaxwellCase;
use dg_core::law::ConservationLaw;
use dg_core::mesh::TriMesh;
use dg_core::space::DgSpace2d;
use dg_core::Real;
use dg_nodal_tri::NodalOperator2d;
use dg_parallel::comm::Communicator;
use dg_parallel::exchange::{HaloExchanged, RankTimes};
use dg_parallel::tri::tri_part;
use dg_runtime::cpu::BoundaryBinding;
use dg_runtime::run_loop::{Integrated, StepRule};
use dg_runtime::stability::StabilityLimit;
use serde::Serialize;
use std::path::Path;
use std::time::Instant;

/// What one rank held and spent.
#[derive(Debug, Clone, Serialize)]
pub struct RankReport {
    /// The rank.
    pub rank: usize,
    /// Its own elements.
    pub elements: usize,
    /// Its halo elements (other ranks' elements across a face from its own).
    pub halo_elements: usize,
    /// Its neighbouring ranks.
    pub neighbours: usize,
    /// Seconds in its right-hand sides and updates, in halo exchanges, and of the whole time loop.
    #[serde(flatten)]
    pub times: RankTimes,
    /// Wall time of its time loop.
    pub loop_seconds: f64,
}

/// The whole run's report (on rank 0; `None` elsewhere) and each rank's part.
pub struct PartitionedOutcome {
    /// The report, as a one-process run gives it (norms and errors over the whole mesh).
    pub report: Option<RunReport>,
    /// Every rank's part and times (rank 0; empty elsewhere).
    pub ranks: Vec<RankReport>,
}

/// Runs `case` with `law` on `mesh` at order `order`, split over the ranks of `comm` (the native CPU path on every
/// rank). The step is rank 0's stability limit on the whole mesh, so every rank and a one-process run take the same
/// steps; the state of each own element evolves as in the one-process run. `--out FILE.vtu` gives FILE.pvtu and
/// FILE-R.vtu per rank R. Checkpoints, time series and devices are refused (not yet split).
pub fn run_partitioned<L: ConservationLaw + Clone + Send + Sync + 'static, T: Real>(
    mesh: &TriMesh,
    order: usize,
    law: L,
    case: &dyn MaxwellCase,
    opts: &RunOptions,
    comm: &dyn Communicator,
    progress: &mut dyn FnMut(f64, f64),
) -> Result<PartitionedOutcome, RunError> {
    let out = &opts.output;
    if out.vtu_every.is_some() || out.checkpoint_every.is_some() || out.resume.is_some() || opts.variant.is_some() {
        return Err(RunError::InvalidOption(
            "a run over MPI ranks takes no --out-every, --checkpoint-every, --restart or --variant yet".into(),
        ));
    }
    let nv = L::NVARS;
    let (rank, size) = (comm.rank(), comm.size());
    let part = tri_part(mesh, order, size, rank)?;
    let np = part.space.element.np;
    let owned_values = part.plan.owned.len() * nv * np;
    crate::check_bindings(&opts.boundary, &part.space.connectivity.tag_names)?;
    let binding = BoundaryBinding::for_law(&law, &part.space, &opts.boundary)?;
    let t_end = opts.t_end.unwrap_or_else(|| case.default_t_end());
    // the step: rank 0's limit on the whole mesh (what the one-process run takes), sent to every rank
    let mut shared = [f64::NAN, f64::NAN, 0.0];
    let mut limit_error = None;
    if rank == 0 {
        match global_step::<L>(mesh, order, &law, case, opts) {
            Ok((dt, limit)) => shared = [dt, limit.spectral_radius, limit.arnoldi_steps as f64],
            Err(e) => limit_error = Some(e),
        }
    }
    comm.broadcast(&mut shared);
    if let Some(e) = limit_error {
        return Err(e);
    }
    let [dt, spectral_radius, arnoldi_steps] = shared;
    if !dt.is_finite() {
        return Err(RunError::InvalidOption("rank 0 could not set the time step".into()));
    }
    let rule = StepRule::Uniform(dt);
    let q0: Vec<T> = part.space.interpolate(nv, |x, y, q| case.initial(x, y, q));
    // energy and non-finite values of the own elements, summed over the ranks: every rank reaches the same verdict
    let global = |q: &[T]| -> (f64, f64) {
        let own = &q[..owned_values];
        let mut v = [0.5 * part.owned.square_norm(nv, own), own.iter().filter(|x| !x.is_finite()).count() as f64];
        comm.sum(&mut v);
        (v[0], v[1])
    };
    let (energy_initial, _) = global(&q0);
    let linear = energy_initial > 0.0 && dg_runtime::formulation::law_ir(&law).is_ok_and(|ir| ir.is_linear());
    let op = NodalOperator2d::<L, T>::new(law.clone(), &part.space, &binding);
    let system = HaloExchanged::new(op, comm, &part.plan, nv * np);
    let mut history = Vec::new();
    let loop_started = Instant::now();
    let mut stepper = Integrated::new(system, q0.clone(), opts.scheme).with_inspect(|_, q: &Vec<T>, _| {
        let (e, non_finite) = global(q);
        if opts.energy_history {
            history.push(e);
        }
        Ok(if non_finite > 0.0 {
            Some(format!("{non_finite} values are not finite numbers"))
        } else if linear {
            crate::energy_growth(energy_initial, e)
        } else {
            None
        })
    });
    let silent = crate::output::RunOutput::default();
    let no_vtu = |_: &Path, _: &[f64]| -> Result<(), RunError> { Ok(()) };
    let mut quiet = |_: f64, _: f64| {};
    let progress: &mut dyn FnMut(f64, f64) = if rank == 0 { progress } else { &mut quiet };
    let stats = crate::output::run_stepper(&mut stepper, t_end, rule, &silent, &no_vtu, progress)?;
    let loop_seconds = loop_started.elapsed().as_secs_f64();
    let (system, q) = stepper.into_parts();
    let own = &q[..owned_values];
    let mut sums = [0.0, 0.5 * part.owned.square_norm(nv, own)];
    if case.has_exact() {
        let e = part.owned.l2_error(nv, own, |x, y, out| {
            case.exact(x, y, stats.t_end, out);
        })?;
        sums[0] = e * e;
    }
    comm.sum(&mut sums);
    if let Some(path) = &out.vtu {
        write_pieces(path, &part.owned, law.variable_names(), &crate::widened(own), comm)?;
    }
    let mine = [
        part.plan.owned.len() as f64,
        part.plan.halo.len() as f64,
        part.plan.sends.len() as f64,
        system.times.compute_seconds,
        system.times.exchange_seconds,
        system.times.exchanges as f64,
        system.times.values_sent as f64,
        loop_seconds,
    ];
    let all = comm.gather(&mine);
    if rank != 0 {
        return Ok(PartitionedOutcome { report: None, ranks: Vec::new() });
    }
    let ranks = all
        .chunks_exact(mine.len())
        .enumerate()
        .map(|(r, v)| RankReport {
            rank: r,
            elements: v[0] as usize,
            halo_elements: v[1] as usize,
            neighbours: v[2] as usize,
            times: RankTimes {
                compute_seconds: v[3],
                exchange_seconds: v[4],
                exchanges: v[5] as u64,
                values_sent: v[6] as u64,
            },
            loop_seconds: v[7],
        })
        .collect();
    let dofs = mesh.num_elements() * np * nv;
    let report = RunReport {
        case: case.name().to_string(),
        law: law.name().to_string(),
        order,
        precision: T::NAME,
        elements: mesh.num_elements(),
        dofs,
        h: mesh.max_edge_length(),
        scheme: opts.scheme.name(),
        stability_limit: StabilityLimit { dt, spectral_radius, arnoldi_steps: arnoldi_steps as usize },
        steps: stats.steps,
        dt: stats.dt_range[1],
        t_end: stats.t_end,
        l2_error: case.has_exact().then(|| sums[0].sqrt()),
        energy_initial,
        energy_final: sums[1],
        energy_history: history,
        rhs_evaluations: stats.rhs_evaluations,
        wall_seconds: stats.wall_seconds,
        throughput: dofs as f64 * stats.rhs_evaluations as f64 / stats.wall_seconds.max(1e-12),
    };
    Ok(PartitionedOutcome { report: Some(report), ranks })
}

/// The step of the one-process run on the whole mesh, and the stability limit behind it.
fn global_step<L: ConservationLaw + Clone + Send + Sync + 'static>(
    mesh: &TriMesh,
    order: usize,
    law: &L,
    case: &dyn MaxwellCase,
    opts: &RunOptions,
) -> Result<(f64, StabilityLimit), RunError> {
    let space = DgSpace2d::new(mesh.clone(), order).map_err(|e| RunError::InvalidOption(e.to_string()))?;
    let binding = BoundaryBinding::for_law(law, &space, &opts.boundary)?;
    let q0: Vec<f64> = space.interpolate(L::NVARS, |x, y, q| case.initial(x, y, q));
    let mut op = NodalOperator2d::<L, f64>::new(law.clone(), &space, &binding);
    let Ok(limit) = StabilityLimit::of(&mut op, &q0, 0.0, opts.scheme);
    crate::note_unestimated(&limit, q0.len());
    Ok((step_limit(&space, opts, &limit)? * opts.step_scale, limit))
}

/// Each rank's own elements as `STEM-R.vtu` beside `path`, and (rank 0) `STEM.pvtu` listing them.
fn write_pieces(
    path: &Path,
    owned: &DgSpace2d,
    names: &[&str],
    q: &[f64],
    comm: &dyn Communicator,
) -> Result<(), RunError> {
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "run".into());
    let piece = |r: usize| format!("{stem}-{r}.vtu");
    let values = per_variable(q, names.len(), owned.element.np);
    let written = dg_core::vtu::write_vtu(&path.with_file_name(piece(comm.rank())), owned, &named(names, &values));
    // every rank learns whether every piece was written before rank 0 lists them
    let mut failed = [f64::from(u8::from(written.is_err()))];
    comm.sum(&mut failed);
    written?;
    if failed[0] > 0.0 {
        return Err(RunError::Output(format!("{} ranks could not write their piece of {}", failed[0], path.display())));
    }
    if comm.rank() == 0 {
        let pieces: Vec<String> = (0..comm.size()).map(piece).collect();
        dg_core::vtu::write_pvtu(&path.with_extension("pvtu"), names, &pieces)?;
    }
    Ok(())
}
