//! A hexahedral run split over MPI ranks (seed 003's domain decomposition): each rank steps its cells on the native
//! CPU path or on its device (the halo cells' values exchanged before every right-hand side, on a device in the
//! synchronous or the asynchronous schedule); one report for the whole run.

use crate::error::RunError;
use crate::formulations::FormulationId;
use crate::hex_run::{
    check_state_size, cpu_limit, hex_binding, select_flux, step_rule, wave_speed, WHOLE_MESH_LEAST_BYTES_PER_VALUE,
};
use crate::hex_run::{HexOptions, HexReport};
use crate::partitioned::{
    agreed, energy_cannot_grow, from_rank_0, gather_ranks, refuse_unsplit, split_l2, step_split_cpu, write_pieces,
};
use crate::partitioned::{ExchangePick, PartitionedDevice, SchedulePick, SplitLoop, SplitOutcome};
use crate::split_device::{rank_0_variant, step_split_device, DeviceSplit, DeviceSplitEnd};
use crate::winners::given_or_chosen;
use crate::Precision;
use dg_cases::hex::{HexCase, HexLaw};
use dg_core::hexmesh::{GeometryClass, HexMesh};
use dg_core::law::ConservationLaw;
use dg_core::space_hex::HexSpace;
use dg_core::Real;
use dg_hex::{HexDeviceOperator, HexOperator, HexVariant};
use dg_laws::{euler3d, maxwell3d};
use dg_parallel::comm::Communicator;
use dg_parallel::device::DeviceHalo;
use dg_parallel::hex::{hex_part, HexRanges};
use dg_parallel::partition::MeshPart;
use dg_parallel::trace::TracePlan;
use dg_runtime::backend::{BufferId, Device};
use dg_runtime::cpu::BoundaryBinding;
use dg_runtime::run_loop::StepPoint;
use dg_runtime::run_loop::StepRule;

/// The whole run's report (rank 0) and every rank's part.
pub type HexPartitionedOutcome = SplitOutcome<HexReport>;

/// Runs `case` on `mesh` split over the ranks of `comm`: on the native CPU path (`device` `None`) or on each rank's
/// device in the schedule and exchange `device` picks, the variant rank 0's (`--variant`, the tuning database's,
/// or tuned on its device), the mesh split as `opts.common.partition` asks (blocks of the case's box by default). The step is rank 0's on the whole mesh (its stability limit and wave speed), so every
/// rank and a one-process run take the same steps and every own cell evolves as in one process. `--out FILE.vtu`
/// gives FILE.pvtu and FILE-R.vtu per rank.
pub fn run_hex_partitioned(
    precision: Precision,
    case: &dyn HexCase,
    mesh: &HexMesh,
    opts: &HexOptions,
    comm: &dyn Communicator,
    device: Option<(&mut dyn Device, SchedulePick, ExchangePick)>,
    progress: &mut dyn FnMut(f64, f64),
) -> Result<HexPartitionedOutcome, RunError> {
    match precision {
        Precision::F32 => run_hex_partitioned_in::<f32>(case, mesh, opts, comm, device, progress),
        Precision::F64 => run_hex_partitioned_in::<f64>(case, mesh, opts, comm, device, progress),
    }
}

/// [`run_hex_partitioned`] in precision `T` (instantiated in this crate only, for both precisions).
pub(crate) fn run_hex_partitioned_in<T: Real>(
    case: &dyn HexCase,
    mesh: &HexMesh,
    opts: &HexOptions,
    comm: &dyn Communicator,
    device: Option<(&mut dyn Device, SchedulePick, ExchangePick)>,
    progress: &mut dyn FnMut(f64, f64),
) -> Result<HexPartitionedOutcome, RunError> {
    refuse_unsplit(&opts.common.output, false, "a hexahedral")?;
    if device.is_none() && opts.common.variant.is_some() {
        return Err(RunError::InvalidOption("--variant needs a device (--device cuda or opencl)".into()));
    }
    let mut quiet = |_: f64, _: f64| {};
    let progress: &mut dyn FnMut(f64, f64) = if comm.rank() == 0 { progress } else { &mut quiet };
    match case.law() {
        HexLaw::Maxwell => over_ranks::<_, T>(maxwell3d::Law::default(), case, mesh, opts, comm, device, progress),
        HexLaw::Euler => over_ranks::<_, T>(euler3d::Law::default(), case, mesh, opts, comm, device, progress),
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
    device: Option<(&mut dyn Device, SchedulePick, ExchangePick)>,
    progress: &mut dyn FnMut(f64, f64),
) -> Result<HexPartitionedOutcome, RunError> {
    select_flux(&mut law, case, opts)?;
    check_state_size(mesh.num_elements(), opts.order, L::NVARS, WHOLE_MESH_LEAST_BYTES_PER_VALUE)?;
    let (nv, rank) = (L::NVARS, comm.rank());
    let part: MeshPart<HexSpace> =
        agreed(comm, hex_part(mesh, opts.order, (comm.size(), rank), opts.common.partition).map_err(RunError::from))?;
    let dt = from_rank_0(comm, || whole_mesh_step(&law, case, mesh, opts))?;
    let binding = agreed(comm, hex_binding(&law, case, &part.space, opts))?;
    let np = part.space.element.np;
    let owned_values = part.plan.owned.len() * nv * np;
    let q0: Vec<T> = part.space.interpolate(nv, |x, q| case.initial(x, q));
    let t_end = opts.common.t_end.unwrap_or_else(|| case.default_t_end());
    let (stats, q, mine, info) = match device {
        None => {
            let op = HexOperator::<L, T>::new(law.clone(), &part.space, &binding, &[]);
            let linear = energy_cannot_grow(&law, &binding, comm);
            let SplitLoop { stats, q, mine } =
                step_split_cpu(op, &part.plan, nv * np, (q0, linear), (opts.scheme, t_end, dt), comm, progress)?;
            (stats, q, mine, None)
        }
        Some((device, schedule, exchange)) => {
            let on = OnDevice { part: &part, binding: &binding, q0: &q0, pick: (schedule, exchange) };
            let (end, info) = on_device(&law, opts, on, (t_end, dt), comm, device, progress)?;
            (end.stats, end.state, end.mine, Some(info))
        }
    };
    let own = &q[..owned_values];
    // per variable: the squared errors and the squared norms of the exact solution, summed over the ranks
    let (errors, norms) = part.owned.l2_errors_and_norms(nv, own, |x, e| case.exact(x, stats.t_end, e))?;
    let boxes = part.owned.class.iter().filter(|&&c| c == GeometryClass::Box).count();
    let (l2_error, norm) = split_l2(comm, &errors, &norms);
    let mut boxes = [boxes as f64];
    comm.sum(&mut boxes);
    write_pieces(opts.common.output.vtu.as_deref(), law.variable_names(), (own, np), comm, |piece, fields| {
        Ok(dg_core::vtu::write_vtu_hex(piece, &part.owned, fields)?)
    })?;
    let Some(ranks) = gather_ranks(comm, &mine) else {
        return Ok(HexPartitionedOutcome { report: None, ranks: Vec::new(), device: None, partition: None });
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
    Ok(HexPartitionedOutcome { report: Some(report), ranks, device: info, partition: Some(part.partition.clone()) })
}

/// What a rank's device run starts from.
struct OnDevice<'p, T> {
    part: &'p MeshPart<HexSpace>,
    binding: &'p BoundaryBinding,
    q0: &'p [T],
    pick: (SchedulePick, ExchangePick),
}

/// Every rank's device (its GPU: rank mod GPUs per node, chosen by the caller): rank 0's variant, the cell
/// kernels over the rank's interior and halo-adjacent cells (zone lists), whole halo cells exchanged (a face value
/// is extrapolated from every node of the cell across).
fn on_device<L: ConservationLaw + Clone + Send + Sync + 'static, T: Real>(
    law: &L,
    opts: &HexOptions,
    on: OnDevice<'_, T>,
    (t_end, dt): (f64, f64),
    comm: &dyn Communicator,
    device: &mut dyn Device,
    progress: &mut dyn FnMut(f64, f64),
) -> Result<(DeviceSplitEnd<T>, PartitionedDevice), RunError> {
    let OnDevice { part, binding, q0, pick } = on;
    let (nv, np) = (L::NVARS, part.space.element.np);
    let (owned, interior) = (part.plan.owned.len(), part.plan.interior);
    if let Some(spec) = &opts.common.variant {
        spec.parse::<HexVariant>()?;
    }
    let choice = rank_0_variant(comm, || {
        let given = opts.common.variant.as_deref();
        let nodes = (owned * np) as u64;
        Ok(given_or_chosen::<L, T>(FormulationId::Hex, device, law, opts.order, nodes, given, opts.common.no_tune)?)
    })?;
    let variant: HexVariant = choice.variant.parse()?;
    let ir = dg_runtime::formulation::law_ir(law)?;
    let target = dg_runtime::formulation::target_of(device);
    let built = (|| -> Result<_, RunError> {
        let flux = law.numerical_flux_name();
        let mesh = (&part.space, binding);
        let op =
            HexDeviceOperator::<T>::new(device, target, (&ir, &law.param_values(), flux), mesh, &[], variant.layout)?;
        op.write_state(device, op.buffers.q, q0)?;
        Ok(op)
    })();
    let op = agreed(comm, built)?;
    let ranged = agreed(comm, HexRanges::new(device, &op, variant, (owned, interior)).map_err(RunError::from))?;
    let traces = TracePlan::whole_elements(&part.plan, np);
    let halo = agreed(comm, DeviceHalo::<T>::new(device, target, &ranged, &traces).map_err(RunError::from))?;
    let step_check = agreed(comm, crate::StepCheck::new(device, q0, energy_cannot_grow(law, binding, comm)))?;
    let fingerprint = device.fingerprint().clone();
    let run = DeviceSplit { device, ranged: &ranged, halo, q: op.buffers.q, plan: &part.plan, step_check: &step_check };
    let read_state = |device: &mut dyn Device, q: BufferId| Ok(op.read_state(device, q)?);
    let owned_values = owned * nv * np;
    let mut judge = |state: &[T]| {
        let mut bad = [state[..owned_values].iter().filter(|v| !v.is_finite()).count() as f64];
        comm.sum(&mut bad);
        (bad[0] > 0.0).then(|| format!("{} values are not finite numbers", bad[0]))
    };
    let reads_state = |at: StepPoint| at.last;
    let rule = (opts.scheme, t_end, StepRule::Uniform(dt));
    let end = step_split_device(run, pick, rule, comm, &read_state, &reads_state, &mut judge, progress)?;
    let device = format!("{} ({})", fingerprint.name, fingerprint.selector);
    let info = PartitionedDevice { device, choice, schedule: end.schedule.clone() };
    Ok((end, info))
}
