//! A hexahedral run split over MPI ranks on the native CPU path (seed 003's domain decomposition): each rank steps
//! its cells, whole halo cells exchanged before every right-hand side; one report for the whole run.

use crate::error::RunError;
use crate::hex_run::{check_state_size, cpu_limit, hex_binding, select_flux, step_rule, wave_speed};
use crate::hex_run::{HexOptions, HexReport};
use crate::output::{named, per_variable};
use crate::partitioned::{agreed, from_rank_0, gather_ranks, refuse_unsplit, split_l2, step_split_cpu, write_pieces};
use crate::partitioned::{SplitLoop, SplitOutcome};
use dg_cases::hex::{HexCase, HexLaw};
use dg_core::hexmesh::{GeometryClass, HexMesh};
use dg_core::law::ConservationLaw;
use dg_core::space_hex::HexSpace;
use dg_core::Real;
use dg_hex::HexOperator;
use dg_laws::{euler3d, maxwell3d};
use dg_parallel::comm::Communicator;
use dg_parallel::hex::hex_part;
use dg_parallel::partition::MeshPart;
use dg_runtime::run_loop::StepRule;

/// The whole run's report (rank 0) and every rank's part.
pub type HexPartitionedOutcome = SplitOutcome<HexReport>;

/// Runs `case` on `mesh` split over the ranks of `comm` (the native CPU path on every rank). The step is rank 0's
/// on the whole mesh (its stability limit and wave speed), so every rank and a one-process run take the same
/// steps and every own cell evolves as in one process. `--out FILE.vtu` gives FILE.pvtu and FILE-R.vtu per rank.
pub fn run_hex_partitioned<T: Real>(
    case: &dyn HexCase,
    mesh: &HexMesh,
    opts: &HexOptions,
    comm: &dyn Communicator,
    progress: &mut dyn FnMut(f64, f64),
) -> Result<HexPartitionedOutcome, RunError> {
    refuse_unsplit(&opts.output, opts.variant.is_some(), "a hexahedral")?;
    match case.law() {
        HexLaw::Maxwell => over_ranks::<_, T>(maxwell3d::Law::default(), case, mesh, opts, comm, progress),
        HexLaw::Euler => over_ranks::<_, T>(euler3d::Law::default(), case, mesh, opts, comm, progress),
    }
}

/// Rank 0's step on the whole mesh: the CFL rule at the initial state's largest wave speed, checked against the
/// scheme's stability limit there.
fn whole_mesh_step<L: ConservationLaw + Clone + Send + Sync + 'static>(
    law: &L,
    case: &dyn HexCase,
    mesh: &HexMesh,
    opts: &HexOptions,
) -> Result<f64, RunError> {
    let space = HexSpace::new(mesh.clone(), opts.order)?;
    let binding = hex_binding(law, case, &space, opts)?;
    let q0: Vec<f64> = space.interpolate(L::NVARS, |x, q| case.initial(x, q));
    let speed = wave_speed(law, &q0, space.element.np)?;
    let limit = cpu_limit(law, &space, &binding, &q0, opts.scheme);
    match step_rule(&space, speed, q0.len(), opts, &limit)? {
        StepRule::Uniform(dt) => Ok(dt),
        StepRule::Adaptive => Err(RunError::InvalidOption("hexahedral runs take uniform steps".into())),
    }
}

fn over_ranks<L: ConservationLaw + Clone + Send + Sync + 'static, T: Real>(
    mut law: L,
    case: &dyn HexCase,
    mesh: &HexMesh,
    opts: &HexOptions,
    comm: &dyn Communicator,
    progress: &mut dyn FnMut(f64, f64),
) -> Result<HexPartitionedOutcome, RunError> {
    select_flux(&mut law, case, opts)?;
    check_state_size(mesh.num_elements(), opts.order, L::NVARS)?;
    let (nv, rank) = (L::NVARS, comm.rank());
    let part: MeshPart<HexSpace> = agreed(comm, hex_part(mesh, opts.order, comm.size(), rank).map_err(RunError::from))?;
    let dt = from_rank_0(comm, || whole_mesh_step(&law, case, mesh, opts))?;
    let binding = agreed(comm, hex_binding(&law, case, &part.space, opts))?;
    let np = part.space.element.np;
    let owned_values = part.plan.owned.len() * nv * np;
    let q0: Vec<T> = part.space.interpolate(nv, |x, q| case.initial(x, q));
    let op = HexOperator::<L, T>::new(law.clone(), &part.space, &binding, &[]);
    let t_end = opts.t_end.unwrap_or_else(|| case.default_t_end());
    let SplitLoop { stats, q, mine } =
        step_split_cpu(op, &part.plan, nv * np, q0, (opts.scheme, t_end, dt), comm, progress)?;
    let own = &q[..owned_values];
    // per variable: the squared errors and the squared norms of the exact solution, summed over the ranks
    let errors = part.owned.l2_errors(nv, own, |x, e| case.exact(x, stats.t_end, e))?;
    let norms = part.owned.l2_errors(nv, &vec![0.0f64; own.len()], |x, e| case.exact(x, stats.t_end, e))?;
    let boxes = part.owned.class.iter().filter(|&&c| c == GeometryClass::Box).count();
    let (l2_error, norm) = split_l2(comm, &errors, &norms);
    let mut boxes = [boxes as f64];
    comm.sum(&mut boxes);
    if let Some(path) = &opts.output.vtu {
        let names = law.variable_names();
        let values = per_variable(&crate::widened(own), nv, np);
        write_pieces(path, names, comm, |piece| {
            Ok(dg_core::vtu::write_vtu_hex(piece, &part.owned, &named(names, &values))?)
        })?;
    }
    let Some(ranks) = gather_ranks(comm, &mine) else {
        return Ok(HexPartitionedOutcome { report: None, ranks: Vec::new() });
    };
    let report = HexReport {
        case: case.name().into(),
        law: law.name().into(),
        flux: law.numerical_flux_name().into(),
        order: opts.order,
        elements: mesh.num_elements(),
        box_cells: boxes[0] as usize,
        nodes: mesh.num_elements() * np,
        h: mesh.max_edge_length(),
        scheme: opts.scheme.name().into(),
        steps: stats.steps,
        dt: stats.dt_range[1],
        t_end: stats.t_end,
        l2_error,
        relative_l2_error: l2_error / norm.max(f64::MIN_POSITIVE),
        wall_seconds: stats.wall_seconds,
    };
    Ok(HexPartitionedOutcome { report: Some(report), ranks })
}
