//! A modal-triangle Euler run split over MPI ranks on the native CPU path (seed 003's domain decomposition applied
//! to seed 001's formulation): each rank steps its elements, whole halo elements exchanged before every right-hand
//! side and, with the limiter on, before every limiting (the limiter bounds an element by its neighbours' means);
//! seed 001's adaptive step from the largest wave speed over all ranks; one report for the whole run.

use crate::error::RunError;
use crate::euler_run::{default_step_rule, euler_step_rule, prepare_on, EulerOptions};
use crate::euler_run::{EulerReport, Prepared};
use crate::partitioned::{agreed, from_rank_0, gather_ranks, refuse_unsplit, run_without_outputs, write_pieces};
use crate::partitioned::{RankReport, SplitOutcome};
use crate::Precision;
use dg_cases::euler::{pressure, EulerCase};
use dg_core::law::ConservationLaw;
use dg_core::mesh::TriMesh;
use dg_core::space::DgSpace2d;
use dg_core::Real;
use dg_laws::euler2d;
use dg_parallel::comm::{max_over, Communicator};
use dg_parallel::exchange::HaloExchanged;
use dg_parallel::tri::tri_part;
use dg_runtime::run_loop::{Integrated, StepRule};
use dg_runtime::stability::StabilityLimit;
use std::time::Instant;

/// The whole run's report (rank 0) and every rank's part.
pub type EulerPartitionedOutcome = SplitOutcome<EulerReport>;

/// Runs `case` on `mesh` split over the ranks of `comm` with the modal formulation on the native CPU path of every
/// rank. Every rank takes the step a one-process run takes (the smallest inscribed diameter and the largest mean
/// wave speed reduced over the ranks; a step or Courant number to check against the stability limit is checked by
/// rank 0 on the whole mesh), so every own element evolves as in one process. `--out FILE.vtu` gives FILE.pvtu and
/// FILE-R.vtu per rank. Checkpoints, time series and variants are refused (not yet split).
pub fn run_euler_partitioned(
    precision: Precision,
    case: &dyn EulerCase,
    mesh: &TriMesh,
    opts: &EulerOptions,
    comm: &dyn Communicator,
    progress: &mut dyn FnMut(f64, f64),
) -> Result<EulerPartitionedOutcome, RunError> {
    match precision {
        Precision::F32 => run_euler_partitioned_in::<f32>(case, mesh, opts, comm, progress),
        Precision::F64 => run_euler_partitioned_in::<f64>(case, mesh, opts, comm, progress),
    }
}

/// [`run_euler_partitioned`] in precision `T` (instantiated in this crate only, for both precisions).
pub(crate) fn run_euler_partitioned_in<T: Real>(
    case: &dyn EulerCase,
    mesh: &TriMesh,
    opts: &EulerOptions,
    comm: &dyn Communicator,
    progress: &mut dyn FnMut(f64, f64),
) -> Result<EulerPartitionedOutcome, RunError> {
    refuse_unsplit(&opts.common.output, opts.common.variant.is_some(), "a modal-triangle Euler")?;
    let part =
        agreed(comm, tri_part(mesh, 1, (comm.size(), comm.rank()), opts.common.partition).map_err(RunError::from))?;
    let prepared: Prepared<T> = agreed(comm, prepare_on(case, part.space.clone(), opts))?;
    // the own elements alone: norms, totals and extrema (their states are the first elements of the local ones)
    let owned: Prepared<T> = agreed(comm, prepare_on(case, part.owned.clone(), opts))?;
    let (scheme, t_end, order) = (prepared.scheme, prepared.t_end, prepared.order);
    let nm = prepared.op.element().nmodes;
    let block = 4 * nm;
    let owned_values = part.plan.owned.len() * block;
    let d_min = comm.min(owned.op.min_inscribed_diameter());
    let denominator = (2 * order + 1) as f64;
    // seed 001's step over every rank's elements: dt = cfl · d_min / (λ_max (2p + 1)), `None` when some rank's
    // mean has no finite speed
    let global_step = |op: &dg_modal_tri::ModalOperator2d<euler2d::Law, T>, q: &[T], cfl: f64| -> Option<f64> {
        let speed = op.max_mean_speed(&q[..owned_values]);
        let mut bad = [f64::from(u8::from(!speed.is_finite()))];
        comm.sum(&mut bad);
        let speed = max_over(comm, if speed.is_finite() { speed } else { 0.0 });
        (bad[0] == 0.0 && speed > 0.0).then(|| cfl * d_min / (speed * denominator))
    };
    let needs_limit = opts.common.cfl.is_some() || opts.common.dt.is_some() || scheme != case.default_scheme().0;
    let (rule, cfl) = if needs_limit {
        // rank 0 checks the step against the stability limit on the whole mesh: the checked --dt, or the Courant
        // number to use
        let value = from_rank_0(comm, || {
            let mut whole: Prepared<T> = prepare_on(case, DgSpace2d::new(mesh.clone(), 1)?, opts)?;
            let q0: Vec<f64> = crate::widened(&whole.q0);
            let dt0 = whole.op.stable_time_step(&whole.q0, whole.cfl);
            let Ok(limit) = StabilityLimit::of(&mut whole.op, &q0, 0.0, scheme);
            match euler_step_rule(opts, scheme, whole.cfl, dt0, &limit)? {
                (StepRule::Uniform(dt), _) => Ok(dt),
                (_, cfl) => Ok(cfl),
            }
        })?;
        match opts.common.dt {
            Some(_) => (StepRule::Uniform(value), prepared.cfl),
            None => (StepRule::Adaptive, value),
        }
    } else {
        default_step_rule(global_step(&prepared.op, &prepared.q0, prepared.cfl), prepared.cfl)?
    };
    let scale = opts.common.step_scale;
    let mass0 = summed(comm, owned.op.totals(&prepared.q0[..owned_values])[0]);
    let system = HaloExchanged::new(prepared.op, comm, &part.plan, block);
    // the limiter bounds an element by its neighbours' means: the halo's must be the owners' before it runs
    let system = if prepared.limiter { system.refreshing_before_limit() } else { system };
    let loop_started = Instant::now();
    let mut stepper = Integrated::new(system, prepared.q0, scheme)
        .with_stable_dt(|sys, q: &Vec<T>| Ok(global_step(sys.inner(), q, cfl).map(|dt| dt * scale)))
        .with_inspect(|sys, q: &Vec<T>, _| {
            // every rank stops at the same step: the counts are summed over the ranks
            let own = &q[..owned_values];
            let mut counts = [own.iter().filter(|v| !v.is_finite()).count() as f64, 0.0];
            if counts[0] == 0.0 {
                counts[1] = bad_means(sys.inner(), own) as f64;
            }
            comm.sum(&mut counts);
            Ok(match counts {
                [n, _] if n > 0.0 => Some(format!("{n} values are not finite numbers")),
                [_, n] if n > 0.0 => Some(format!(
                    "{n} element means left the admissible set; reduce --cfl or --dt, or turn the limiter on"
                )),
                _ => None,
            })
        });
    let stats = run_without_outputs(&mut stepper, t_end, rule, progress)?;
    let loop_seconds = loop_started.elapsed().as_secs_f64();
    let (system, q) = stepper.into_parts();
    let mine =
        RankReport::on_cpu(comm.rank(), &part.plan, system.times, [loop_seconds, stats.split.inspecting_seconds]);
    let own = &q[..owned_values];
    let op = &owned.op;
    let density_l2_error = case.has_exact().then(|| {
        let e = op.l2_error(own, &[0], |x, y, out| {
            case.exact(x, y, t_end, out);
        });
        summed(comm, e * e).sqrt()
    });
    let (mut min_density, mut min_pressure) = (f64::INFINITY, f64::INFINITY);
    let nq = op.element().volume.w.len();
    for k in 0..part.plan.owned.len() {
        let values = op.values_at_cubature(own, k);
        for p in 0..nq {
            let state = [values[p], values[nq + p], values[2 * nq + p], values[3 * nq + p]];
            min_density = min_density.min(state[0]);
            min_pressure = min_pressure.min(pressure(&state));
        }
    }
    let (min_density, min_pressure) = (comm.min(min_density), comm.min(min_pressure));
    let mass1 = summed(comm, op.totals(own)[0]);
    let names = euler2d::Law::default().variable_names();
    write_pieces(opts.common.output.vtu.as_deref(), names, (own, nm), comm, |piece, fields| {
        Ok(dg_core::vtu::write_vtu_modal(piece, &part.owned.mesh, order, fields)?)
    })?;
    let Some(ranks) = gather_ranks(comm, &mine) else {
        return Ok(EulerPartitionedOutcome { report: None, ranks: Vec::new(), device: None, partition: None });
    };
    let dofs = mesh.num_elements() * block;
    let report = EulerReport {
        case: case.name().to_string(),
        flux: prepared.flux,
        order,
        precision: T::NAME,
        elements: mesh.num_elements(),
        dofs,
        h: mesh.max_edge_length(),
        scheme: scheme.name(),
        limiter: prepared.limiter,
        steps: stats.steps,
        dt_range: stats.dt_range,
        t_end,
        density_l2_error,
        mass: [mass0, mass1],
        min_density,
        min_pressure,
        rhs_evaluations: stats.rhs_evaluations,
        wall_seconds: stats.wall_seconds,
        throughput: dofs as f64 * stats.rhs_evaluations as f64 / stats.wall_seconds.max(1e-12),
    };
    Ok(EulerPartitionedOutcome { report: Some(report), ranks, device: None, partition: Some(part.partition.clone()) })
}

/// `value` summed over the ranks.
fn summed(comm: &dyn Communicator, value: f64) -> f64 {
    let mut v = [value];
    comm.sum(&mut v);
    v[0]
}

/// How many element means of `q` (the first elements of the operator's) have a non-positive density or pressure
/// (NaN included).
fn bad_means<T: Real>(op: &dg_modal_tri::ModalOperator2d<euler2d::Law, T>, q: &[T]) -> usize {
    let (nm, phi0) = (op.element().nmodes, op.element().phi[(0, 0)]);
    (0..q.len() / (4 * nm))
        .filter(|&k| {
            let mean: [f64; 4] = std::array::from_fn(|v| q[(k * 4 + v) * nm].as_f64() * phi0);
            let p = pressure(&mean);
            !(mean[0] > 0.0 && p > 0.0)
        })
        .count()
}
