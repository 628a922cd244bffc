//! A tetrahedral wave run split over MPI ranks on the native CPU path (seed 003's domain decomposition applied to
//! seed 002's formulation): each rank steps its elements, whole halo elements exchanged before every right-hand
//! side; one report for the whole run.

use crate::error::RunError;
use crate::partitioned::{agreed, from_rank_0, gather_ranks, refuse_unsplit, split_l2, step_split_cpu, write_pieces};
use crate::partitioned::{SplitLoop, SplitOutcome};
use crate::wave_run::{prepare, problem_on, step_limit, WaveOptions, WaveReport};
use crate::Precision;
use dg_cases::waves::{WaveCase, WaveLaw};
use dg_core::law::ConservationLaw;
use dg_core::mesh3d::TetMesh;
use dg_core::space3d::DgSpace3d;
use dg_core::Real;
use dg_laws::{acoustics3d, elastic3d};
use dg_nodal_tet::NodalOperator3d;
use dg_parallel::comm::Communicator;
use dg_parallel::partition::MeshPart;
use dg_parallel::tet::tet_part;
use dg_runtime::stability::StabilityLimit;

/// The whole run's report (rank 0) and every rank's part.
pub type TetPartitionedOutcome = SplitOutcome<WaveReport>;

/// Runs `case` on `mesh` split over the ranks of `comm` (the native CPU path on every rank). The step is rank 0's
/// on the whole mesh, so every rank and a one-process run take the same steps and every own element evolves as in
/// one process. `--out FILE.vtu` gives FILE.pvtu and FILE-R.vtu per rank. Cases that measure reflection and
/// transmission coefficients, checkpoints, time series and variants are refused (not yet split).
pub fn run_tet_partitioned(
    precision: Precision,
    case: &dyn WaveCase,
    mesh: &TetMesh,
    opts: &WaveOptions,
    comm: &dyn Communicator,
    progress: &mut dyn FnMut(f64, f64),
) -> Result<TetPartitionedOutcome, RunError> {
    match precision {
        Precision::F32 => run_tet_partitioned_in::<f32>(case, mesh, opts, comm, progress),
        Precision::F64 => run_tet_partitioned_in::<f64>(case, mesh, opts, comm, progress),
    }
}

/// [`run_tet_partitioned`] in precision `T` (instantiated in this crate only, for both precisions).
pub(crate) fn run_tet_partitioned_in<T: Real>(
    case: &dyn WaveCase,
    mesh: &TetMesh,
    opts: &WaveOptions,
    comm: &dyn Communicator,
    progress: &mut dyn FnMut(f64, f64),
) -> Result<TetPartitionedOutcome, RunError> {
    refuse_unsplit(&opts.common.output, opts.common.variant.is_some(), "a tetrahedral")?;
    if case.analytic_coefficients().is_some() {
        return Err(RunError::InvalidOption(format!(
            "`{}` measures reflection and transmission coefficients, which a run over MPI ranks does not split yet; \
             run it in one process",
            case.name()
        )));
    }
    match case.law() {
        WaveLaw::Acoustic => over_ranks::<_, T>(acoustics3d::Law::default(), case, mesh, opts, comm, progress),
        WaveLaw::Elastic => over_ranks::<_, T>(elastic3d::Law::default(), case, mesh, opts, comm, progress),
    }
}

/// Rank 0's step on the whole mesh: the CFL rule at the materials' largest wave speed, checked against the
/// scheme's stability limit there.
fn whole_mesh_step<L: ConservationLaw + Clone + Send + Sync + 'static>(
    law: &L,
    case: &dyn WaveCase,
    mesh: &TetMesh,
    opts: &WaveOptions,
) -> Result<f64, RunError> {
    let problem = prepare(law, case, mesh.clone(), opts)?;
    let q0: Vec<f64> = problem.space.interpolate(L::NVARS, |x, q| case.initial(x, q));
    let op64 = || NodalOperator3d::<L, f64>::new(law.clone(), &problem.space, &problem.binding, &problem.materials);
    let Ok(limit) = StabilityLimit::of_built(op64, &q0, 0.0, opts.scheme);
    crate::note_unestimated(&limit, q0.len());
    Ok(step_limit(law, &problem, opts, &limit)? * opts.common.step_scale)
}

fn over_ranks<L: ConservationLaw + Clone + Send + Sync + 'static, T: Real>(
    law: L,
    case: &dyn WaveCase,
    mesh: &TetMesh,
    opts: &WaveOptions,
    comm: &dyn Communicator,
    progress: &mut dyn FnMut(f64, f64),
) -> Result<TetPartitionedOutcome, RunError> {
    let nv = L::NVARS;
    let part: MeshPart<DgSpace3d> = agreed(
        comm,
        tet_part(mesh, opts.order, (comm.size(), comm.rank()), opts.common.partition).map_err(RunError::from),
    )?;
    let dt = from_rank_0(comm, || whole_mesh_step(&law, case, mesh, opts))?;
    let problem = agreed(comm, problem_on(&law, case, part.space.clone(), opts))?;
    let np = problem.space.element.np;
    let q0: Vec<T> = problem.space.interpolate(nv, |x, q| case.initial(x, q));
    let op = NodalOperator3d::<L, T>::new(law.clone(), &problem.space, &problem.binding, &problem.materials);
    let linear = crate::partitioned::energy_cannot_grow(&law, &problem.binding, comm);
    let t_end = opts.common.t_end.unwrap_or_else(|| case.default_t_end());
    let SplitLoop { stats, q, mine } =
        step_split_cpu(op, &part.plan, nv * np, (q0, linear), (opts.scheme, t_end, dt), comm, progress)?;
    let own = &q[..part.plan.owned.len() * nv * np];
    // per variable: the squared errors and the squared norms of the exact solution, summed over the ranks
    let errors = part.owned.l2_errors(nv, own, |x, e| case.exact(x, stats.t_end, e))?;
    let norms = part.owned.l2_errors(nv, &vec![0.0f64; own.len()], |x, e| case.exact(x, stats.t_end, e))?;
    let (l2_error, norm) = split_l2(comm, &errors, &norms);
    write_pieces(opts.common.output.vtu.as_deref(), law.variable_names(), (own, np), comm, |piece, fields| {
        Ok(dg_core::vtu::write_vtu_tet(piece, &part.owned, fields)?)
    })?;
    let Some(ranks) = gather_ranks(comm, &mine) else {
        return Ok(TetPartitionedOutcome { report: None, ranks: Vec::new(), device: None, partition: None });
    };
    let report = WaveReport {
        case: case.name().into(),
        law: law.name().into(),
        order: opts.order,
        elements: mesh.num_elements(),
        nodes: mesh.num_elements() * np,
        h: mesh.max_edge_length(),
        scheme: opts.scheme.name().into(),
        steps: stats.steps,
        dt: stats.dt_range[1],
        t_end: stats.t_end,
        l2_error,
        relative_l2_error: l2_error / norm.max(f64::MIN_POSITIVE),
        wall_seconds: stats.wall_seconds,
        coefficients: None,
    };
    Ok(TetPartitionedOutcome { report: Some(report), ranks, device: None, partition: Some(part.partition.clone()) })
}
