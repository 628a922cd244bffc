//! A nodal-triangle run split over MPI ranks (seed 003's domain decomposition): each rank steps its part of the
//! mesh on the native CPU path or on its device, the halo exchanged before every right-hand side (on a device in
//! the synchronous or the asynchronous schedule); one report for the whole run.

use crate::error::RunError;
use crate::formulations::FormulationId;
use crate::maxwell_run::{step_limit, RunOptions, RunReport};
use crate::output::{named, per_variable};
use crate::split_device::{rank_0_variant, step_split_device, DeviceSplit, DeviceSplitEnd};
use crate::winners::{given_or_chosen, VariantChoice};
use crate::Precision;
use dg_cases::MaxwellCase;
use dg_core::law::ConservationLaw;
use dg_core::mesh::TriMesh;
use dg_core::space::DgSpace2d;
use dg_core::Real;
use dg_nodal_tri::device::DeviceOperator;
use dg_nodal_tri::NodalOperator2d;
use dg_nodal_tri::Variant;
use dg_parallel::comm::Communicator;
use dg_parallel::device::{DeviceHalo, Exchange, Schedule};
use dg_parallel::exchange::HaloExchanged;
use dg_parallel::partition::Partition;
use dg_parallel::tri::{tri_part, TriPart};
use dg_runtime::backend::{BufferId, Device};
use dg_runtime::cpu::BoundaryBinding;
use dg_runtime::formulation::{law_ir, target_of};
use dg_runtime::run_loop::{Integrated, StepPoint, StepRule};
use dg_runtime::stability::StabilityLimit;
use dg_runtime::time::OdeSystem;
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
    /// The CUDA device it ran on (its ordinal), on a device run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu: Option<usize>,
    /// Seconds computing: on the CPU its right-hand sides and updates; on a device the kernels' time (events).
    pub compute_seconds: f64,
    /// Seconds in the halo exchange between ranks (on the CPU: packing and unpacking too).
    pub exchange_seconds: f64,
    /// Device runs: seconds the host waited for the traces to reach it and for their copy back.
    pub wait_seconds: f64,
    /// Halo exchanges.
    pub exchanges: u64,
    /// Values sent.
    pub values_sent: u64,
    /// Wall time of its time loop.
    pub loop_seconds: f64,
    /// Of the loop, seconds inspecting states (the per-step check and the agreement of all ranks on it; read-backs).
    pub inspecting_seconds: f64,
}

impl RankReport {
    /// The report of `rank` on the native CPU path: its part (`plan`), what its halo exchanges measured, and its
    /// loop's wall and inspecting seconds.
    pub(crate) fn on_cpu(
        rank: usize,
        plan: &dg_parallel::halo::HaloPlan,
        t: dg_parallel::exchange::RankTimes,
        [loop_seconds, inspecting_seconds]: [f64; 2],
    ) -> Self {
        RankReport {
            rank,
            elements: plan.owned.len(),
            halo_elements: plan.halo.len(),
            neighbours: plan.sends.len(),
            gpu: None,
            compute_seconds: t.compute_seconds,
            exchange_seconds: t.exchange_seconds,
            wait_seconds: 0.0,
            exchanges: t.exchanges,
            values_sent: t.values_sent,
            loop_seconds,
            inspecting_seconds,
        }
    }
}

/// How a device run exchanged its halo and in which schedule, and what it measured to choose.
#[derive(Debug, Clone, Serialize)]
pub struct ScheduleReport {
    /// The schedule of the run.
    pub chosen: Schedule,
    /// How the traces travelled.
    pub exchange: Exchange,
    /// `given` (--schedule and --exchange both given) or `tuned` (the combinations timed on the run's first state,
    /// the fastest taken).
    pub how: &'static str,
    /// Why the device-to-device exchange was not offered, if it was not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub no_device_to_device: Option<String>,
    /// Seconds per right-hand side with its exchange, of each combination allowed (the slowest rank's).
    pub trials: Vec<ScheduleTrial>,
    /// Seconds per halo exchange alone, of each exchange offered (the slowest rank's).
    pub exchange_seconds: Vec<(Exchange, f64)>,
    /// Seconds per right-hand side without exchange on all own elements and on those computed while the traces
    /// travel (the slowest rank's): what the asynchronous schedule can hide the exchange behind.
    pub compute_seconds: [f64; 2],
    /// Rank 0's own elements computed while its traces travel (asynchronous schedule), and all its own elements.
    pub overlapped_elements: [usize; 2],
    /// Values the busiest rank sends per exchange, and bytes per value.
    pub halo_values: [usize; 2],
    /// Whether each low-storage Runge–Kutta stage is folded into the right-hand side's kernels (the register and
    /// the new state written where L is computed).
    pub stages_folded: bool,
}

/// One combination's time per right-hand side.
#[derive(Debug, Clone, Serialize)]
pub struct ScheduleTrial {
    /// The exchange.
    pub exchange: Exchange,
    /// The schedule.
    pub schedule: Schedule,
    /// Seconds per right-hand side, the slowest rank's.
    pub seconds_per_rhs: f64,
}

/// What a device run adds to the report (rank 0's view).
#[derive(Debug, Clone, Serialize)]
pub struct PartitionedDevice {
    /// Rank 0's device name and selector.
    pub device: String,
    /// The kernel variant every rank runs and how rank 0 chose it.
    pub choice: VariantChoice,
    /// The schedule.
    pub schedule: ScheduleReport,
}

/// The whole run's report (on rank 0; `None` elsewhere) and each rank's part.
pub struct PartitionedOutcome {
    /// The report, as a one-process run gives it (norms and errors over the whole mesh).
    pub report: Option<RunReport>,
    /// Every rank's part and times (rank 0; empty elsewhere).
    pub ranks: Vec<RankReport>,
    /// Device runs: the device, variant and schedule (rank 0).
    pub device: Option<PartitionedDevice>,
    /// How the mesh was split (rank 0).
    pub partition: Option<Partition>,
}

/// How a device run over ranks picks its schedule or its exchange: given, or tuned (every choice timed on the first
/// state, the fastest runs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pick<C> {
    /// This one.
    Given(C),
    /// Timed.
    Tuned,
}

/// The schedule pick (`sync`, `async`, `tuned`).
pub type SchedulePick = Pick<Schedule>;
/// The exchange pick (`host-staged`, `nccl`, `tuned`).
pub type ExchangePick = Pick<Exchange>;

/// What a [`Pick`] chooses among, by name on the command line.
pub trait Choice: Copy + 'static {
    /// What is chosen (`schedule`, `exchange`).
    const WHAT: &'static str;
    /// Every choice with its name.
    const CHOICES: &'static [(&'static str, Self)];
}

impl Choice for Schedule {
    const WHAT: &'static str = "schedule";
    const CHOICES: &'static [(&'static str, Self)] =
        &[("sync", Schedule::Synchronous), ("async", Schedule::Asynchronous), ("eager", Schedule::Eager)];
}

impl Choice for Exchange {
    const WHAT: &'static str = "exchange";
    const CHOICES: &'static [(&'static str, Self)] =
        &[("host-staged", Exchange::HostStaged), ("nccl", Exchange::DeviceToDevice)];
}

impl<C: Choice> std::str::FromStr for Pick<C> {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        if s == "tuned" {
            return Ok(Self::Tuned);
        }
        C::CHOICES.iter().find(|(name, _)| *name == s).map(|(_, c)| Self::Given(*c)).ok_or_else(|| {
            let names: Vec<&str> = C::CHOICES.iter().map(|(name, _)| *name).collect();
            format!("unknown {} `{s}`: use {} or tuned", C::WHAT, names.join(", "))
        })
    }
}

impl<C: Copy> Pick<C> {
    /// The choices this pick allows among `all`.
    pub(crate) fn among(self, all: &[C]) -> Vec<C> {
        match self {
            Pick::Given(c) => vec![c],
            Pick::Tuned => all.to_vec(),
        }
    }
}

/// What every rank shares before stepping: its part, the law's bindings, the step and the initial state.
struct Prepared<'m, T> {
    part: TriPart,
    binding: BoundaryBinding,
    t_end: f64,
    rule: StepRule,
    limit: StabilityLimit,
    q0: Vec<T>,
    mesh: &'m TriMesh,
}

/// Runs `case` (its Maxwell law with `opts.alpha`) in `precision` on `mesh` at order `order`, split over the ranks of `comm`: on the native CPU path
/// (`device` `None`) or on each rank's device in the schedule `device.1` picks. The step is rank 0's stability
/// limit on the whole mesh, so every rank and a one-process run take the same steps; the state of each own element
/// evolves as in the one-process run. `--out FILE.vtu` gives FILE.pvtu and FILE-R.vtu per rank. Checkpoints and
/// time series are refused (not yet split).
#[allow(clippy::too_many_arguments)]
pub fn run_partitioned(
    precision: Precision,
    mesh: &TriMesh,
    order: usize,
    case: &dyn MaxwellCase,
    opts: &RunOptions,
    comm: &dyn Communicator,
    device: Option<(&mut dyn Device, SchedulePick, ExchangePick)>,
    progress: &mut dyn FnMut(f64, f64),
) -> Result<PartitionedOutcome, RunError> {
    let law = case.law(opts.alpha);
    match precision {
        Precision::F32 => run_partitioned_in::<_, f32>(mesh, order, law, case, opts, comm, device, progress),
        Precision::F64 => run_partitioned_in::<_, f64>(mesh, order, law, case, opts, comm, device, progress),
    }
}

/// [`run_partitioned`] with `law`, in precision `T` (instantiated in this crate only, for both precisions).
#[allow(clippy::too_many_arguments)]
fn run_partitioned_in<L: ConservationLaw + Clone + Send + Sync + 'static, T: Real>(
    mesh: &TriMesh,
    order: usize,
    law: L,
    case: &dyn MaxwellCase,
    opts: &RunOptions,
    comm: &dyn Communicator,
    device: Option<(&mut dyn Device, SchedulePick, ExchangePick)>,
    progress: &mut dyn FnMut(f64, f64),
) -> Result<PartitionedOutcome, RunError> {
    let out = &opts.common.output;
    if out.vtu_every.is_some() || out.checkpoint_every.is_some() || out.resume.is_some() {
        return Err(RunError::InvalidOption(
            "a run over MPI ranks takes no --out-every, --checkpoint-every or --restart yet".into(),
        ));
    }
    if device.is_none() && opts.common.variant.is_some() {
        return Err(RunError::InvalidOption("--variant needs a device (--device cuda or opencl)".into()));
    }
    let prepared = agreed(comm, prepare::<L, T>(mesh, order, &law, case, opts, comm))?;
    let mut quiet = |_: f64, _: f64| {};
    let progress: &mut dyn FnMut(f64, f64) = if comm.rank() == 0 { progress } else { &mut quiet };
    match device {
        None => on_cpu(prepared, law, case, opts, comm, progress),
        Some((device, schedule, exchange)) => {
            on_device(prepared, law, case, opts, comm, device, (schedule, exchange), progress)
        }
    }
}

/// Fails on every rank when one fails (each rank with its own error, or a note that another rank failed): no rank
/// waits for a collective call the others never make.
pub(crate) fn agreed<V>(comm: &dyn Communicator, result: Result<V, RunError>) -> Result<V, RunError> {
    let mut failed = [f64::from(u8::from(result.is_err()))];
    comm.sum(&mut failed);
    match result {
        Err(e) => Err(e),
        Ok(_) if failed[0] > 0.0 => Err(RunError::InvalidOption(format!(
            "{} other ranks failed to set up their part (their messages say why)",
            failed[0]
        ))),
        Ok(v) => Ok(v),
    }
}

/// This rank's part, the step (rank 0's, sent to all) and the initial state.
fn prepare<'m, L: ConservationLaw + Clone + Send + Sync + 'static, T: Real>(
    mesh: &'m TriMesh,
    order: usize,
    law: &L,
    case: &dyn MaxwellCase,
    opts: &RunOptions,
    comm: &dyn Communicator,
) -> Result<Prepared<'m, T>, RunError> {
    let (rank, size) = (comm.rank(), comm.size());
    let part = tri_part(mesh, order, (size, rank), opts.common.partition);
    // the step: rank 0's limit on the whole mesh (what the one-process run takes), sent to every rank
    let mut shared = [f64::NAN, f64::NAN, 0.0];
    let mut limit_error = None;
    if rank == 0 {
        match global_step::<L>(mesh, order, law, case, opts) {
            Ok((dt, limit)) => shared = [dt, limit.spectral_radius, limit.arnoldi_steps as f64],
            Err(e) => limit_error = Some(e),
        }
    }
    comm.broadcast(&mut shared);
    if let Some(e) = limit_error {
        return Err(e);
    }
    let part = part?;
    crate::check_bindings(&opts.common.boundary, &part.space.connectivity.tag_names)?;
    let binding = BoundaryBinding::for_law(law, &part.space, &opts.common.boundary)?;
    let [dt, spectral_radius, arnoldi_steps] = shared;
    if !dt.is_finite() {
        return Err(RunError::InvalidOption("rank 0 could not set the time step".into()));
    }
    let limit = StabilityLimit { dt, spectral_radius, arnoldi_steps: arnoldi_steps as usize };
    let q0: Vec<T> = part.space.interpolate(L::NVARS, |x, y, q| case.initial(x, y, q));
    let t_end = opts.common.t_end.unwrap_or_else(|| case.default_t_end());
    Ok(Prepared { part, binding, t_end, rule: StepRule::Uniform(dt), limit, q0, mesh })
}

/// Energy and non-finite values of the own elements of `q`, summed over the ranks: every rank reaches the same
/// verdict.
fn global_energy<T: Real>(part: &TriPart, nv: usize, q: &[T], comm: &dyn Communicator) -> (f64, f64) {
    let own = &q[..part.plan.owned.len() * nv * part.space.element.np];
    let mut v = [0.5 * part.owned.square_norm(nv, own), own.iter().filter(|x| !x.is_finite()).count() as f64];
    comm.sum(&mut v);
    (v[0], v[1])
}

/// Whether energy growth of `law` from a positive initial energy is a blow-up ([`crate::energy_cannot_grow`]) on
/// every rank: a part without an inflow boundary gains what another part's inflow brings in.
fn energy_growth_is_blow_up<L: ConservationLaw>(
    law: &L,
    binding: &BoundaryBinding,
    energy_initial: f64,
    comm: &dyn Communicator,
) -> bool {
    energy_initial > 0.0 && energy_cannot_grow(law, binding, comm)
}

/// [`crate::energy_cannot_grow`] on every rank's part: true only where it holds on each (every rank the same).
pub(crate) fn energy_cannot_grow<L: ConservationLaw>(
    law: &L,
    binding: &BoundaryBinding,
    comm: &dyn Communicator,
) -> bool {
    let mut parts_that_may_grow = [if crate::energy_cannot_grow(law, binding) { 0.0 } else { 1.0 }];
    comm.sum(&mut parts_that_may_grow);
    parts_that_may_grow[0] == 0.0
}

/// The native CPU path on every rank: whole elements exchanged before every right-hand side.
fn on_cpu<L: ConservationLaw + Clone + Send + Sync + 'static, T: Real>(
    prepared: Prepared<'_, T>,
    law: L,
    case: &dyn MaxwellCase,
    opts: &RunOptions,
    comm: &dyn Communicator,
    progress: &mut dyn FnMut(f64, f64),
) -> Result<PartitionedOutcome, RunError> {
    let nv = L::NVARS;
    let part = &prepared.part;
    let (energy_initial, _) = global_energy(part, nv, &prepared.q0, comm);
    let linear = energy_growth_is_blow_up(&law, &prepared.binding, energy_initial, comm);
    let op = NodalOperator2d::<L, T>::new(law.clone(), &part.space, &prepared.binding);
    let system = HaloExchanged::new(op, comm, &part.plan, nv * part.space.element.np);
    let mut history = Vec::new();
    let loop_started = Instant::now();
    let mut stepper = Integrated::new(system, prepared.q0.clone(), opts.scheme).with_inspect(|_, q: &Vec<T>, _| {
        let (e, non_finite) = global_energy(part, nv, q, comm);
        if opts.energy_history {
            history.push(e);
        }
        Ok(verdict(non_finite, linear, energy_initial, e))
    });
    let stats = run_without_outputs(&mut stepper, prepared.t_end, prepared.rule, progress)?;
    let loop_seconds = loop_started.elapsed().as_secs_f64();
    let (system, q) = stepper.into_parts();
    let mine =
        RankReport::on_cpu(comm.rank(), &part.plan, system.times, [loop_seconds, stats.split.inspecting_seconds]);
    let ended = Ended { stats, energy_initial, history, q: &q, mine };
    finish(&prepared, &law, case, opts, comm, ended, None)
}

/// The verdict of an inspected step: non-finite values anywhere, or a linear law's energy growth.
fn verdict(non_finite: f64, linear: bool, energy_initial: f64, energy: f64) -> Option<String> {
    if non_finite > 0.0 {
        Some(format!("{non_finite} values are not finite numbers"))
    } else if linear {
        crate::energy_growth(energy_initial, energy)
    } else {
        None
    }
}

/// Every rank's device (its GPU: rank mod GPUs per node, chosen by the caller): the variant rank 0 takes (from
/// the tuning database, tuned on its device, or `--variant`), the traces exchanged through the host.
#[allow(clippy::too_many_arguments)]
fn on_device<L: ConservationLaw + Clone + Send + Sync + 'static, T: Real>(
    prepared: Prepared<'_, T>,
    law: L,
    case: &dyn MaxwellCase,
    opts: &RunOptions,
    comm: &dyn Communicator,
    device: &mut dyn Device,
    pick: (SchedulePick, ExchangePick),
    progress: &mut dyn FnMut(f64, f64),
) -> Result<PartitionedOutcome, RunError> {
    let nv = L::NVARS;
    let part = &prepared.part;
    let np = part.space.element.np;
    let owned = part.plan.owned.len();
    if let Some(spec) = &opts.common.variant {
        spec.parse::<Variant>()?;
    }
    // rank 0 chooses the variant (tuning on its device if need be), every rank runs it
    let choice = rank_0_variant(comm, || {
        let dofs = (owned * np * nv) as u64;
        let given = opts.common.variant.as_deref();
        let order = part.space.element.order;
        Ok(given_or_chosen::<L, T>(FormulationId::NodalTri, device, &law, order, dofs, given, opts.common.no_tune)?)
    })?;
    let variant: Variant = choice.variant.parse()?;
    let target = target_of(device);
    let built = (|| -> Result<_, RunError> {
        let ir = law_ir(&law)?;
        let nflux = law.numerical_flux_name();
        let op = DeviceOperator::<T>::new(
            device,
            target,
            &ir,
            &law.param_values(),
            nflux,
            &part.space,
            &prepared.binding,
            &[],
            &variant,
        )?;
        let halo = DeviceHalo::<T>::new(device, target, &op, &part.traces)?;
        let q = op.new_state(device)?;
        op.write_state(device, q, &prepared.q0)?;
        Ok((op, halo, q))
    })();
    let (op, halo, q) = agreed(comm, built)?;
    let (energy_initial, _) = global_energy(part, nv, &prepared.q0, comm);
    let linear = energy_growth_is_blow_up(&law, &prepared.binding, energy_initial, comm);
    let step_check = agreed(comm, crate::StepCheck::new(device, &prepared.q0, linear))?;
    let fingerprint = device.fingerprint().clone();
    let mut history = Vec::new();
    let run = DeviceSplit { device, ranged: &op, halo, q, plan: &part.plan, step_check: &step_check };
    let read_state = |device: &mut dyn Device, q: BufferId| Ok(op.read_state(device, q)?);
    // the whole state (energy) is read back at the end and when its history is asked for (the per-step check
    // stops a blow-up on any rank)
    let reads_state = |at: StepPoint| opts.energy_history || at.last;
    let mut judge = |state: &[T]| {
        let (e, non_finite) = global_energy(part, nv, state, comm);
        if opts.energy_history {
            history.push(e);
        }
        verdict(non_finite, linear, energy_initial, e)
    };
    let end = step_split_device(
        run,
        pick,
        (opts.scheme, prepared.t_end, prepared.rule),
        comm,
        &read_state,
        &reads_state,
        &mut judge,
        progress,
    )?;
    let DeviceSplitEnd { stats, state, mine, schedule } = end;
    let info =
        PartitionedDevice { device: format!("{} ({})", fingerprint.name, fingerprint.selector), choice, schedule };
    let ended = Ended { stats, energy_initial, history, q: &state, mine };
    finish(&prepared, &law, case, opts, comm, ended, Some(info))
}

/// What a rank's time loop left.
struct Ended<'q, T> {
    stats: dg_runtime::run_loop::LoopStats,
    energy_initial: f64,
    history: Vec<f64>,
    q: &'q [T],
    mine: RankReport,
}

/// Errors and energies over the ranks, the pieces of `--out`, and (rank 0) the report.
fn finish<L: ConservationLaw, T: Real>(
    prepared: &Prepared<'_, T>,
    law: &L,
    case: &dyn MaxwellCase,
    opts: &RunOptions,
    comm: &dyn Communicator,
    ended: Ended<'_, T>,
    device: Option<PartitionedDevice>,
) -> Result<PartitionedOutcome, RunError> {
    let nv = L::NVARS;
    let part = &prepared.part;
    let np = part.space.element.np;
    let stats = &ended.stats;
    let own = &ended.q[..part.plan.owned.len() * nv * np];
    let mut sums = [0.0, 0.5 * part.owned.square_norm(nv, own)];
    if case.has_exact() {
        let e = part.owned.l2_error(nv, own, |x, y, out| {
            case.exact(x, y, stats.t_end, out);
        })?;
        sums[0] = e * e;
    }
    comm.sum(&mut sums);
    write_pieces(opts.common.output.vtu.as_deref(), law.variable_names(), (own, np), comm, |piece, fields| {
        Ok(dg_core::vtu::write_vtu(piece, &part.owned, fields)?)
    })?;
    let Some(ranks) = gather_ranks(comm, &ended.mine) else {
        return Ok(PartitionedOutcome { report: None, ranks: Vec::new(), device: None, partition: None });
    };
    let mesh = prepared.mesh;
    let dofs = mesh.num_elements() * np * nv;
    let report = RunReport {
        case: case.name().to_string(),
        law: law.name().to_string(),
        order: part.space.element.order,
        precision: T::NAME,
        elements: mesh.num_elements(),
        dofs,
        h: mesh.max_edge_length(),
        scheme: opts.scheme.name(),
        stability_limit: prepared.limit,
        steps: stats.steps,
        dt: stats.dt_range[1],
        t_end: stats.t_end,
        l2_error: case.has_exact().then(|| sums[0].sqrt()),
        energy_initial: ended.energy_initial,
        energy_final: sums[1],
        energy_history: ended.history,
        rhs_evaluations: stats.rhs_evaluations,
        wall_seconds: stats.wall_seconds,
        throughput: dofs as f64 * stats.rhs_evaluations as f64 / stats.wall_seconds.max(1e-12),
    };
    Ok(PartitionedOutcome { report: Some(report), ranks, device, partition: Some(part.partition.clone()) })
}

/// Rank 0's value of `on_rank_0` (a step on the whole mesh) on every rank; its error on rank 0, and a plain refusal
/// elsewhere, when it fails.
pub(crate) fn from_rank_0(
    comm: &dyn Communicator,
    on_rank_0: impl FnOnce() -> Result<f64, RunError>,
) -> Result<f64, RunError> {
    let mut value = [f64::NAN];
    let mut error = None;
    if comm.rank() == 0 {
        match on_rank_0() {
            Ok(v) => value[0] = v,
            Err(e) => error = Some(e),
        }
    }
    comm.broadcast(&mut value);
    match error {
        Some(e) => Err(e),
        None if !value[0].is_finite() => Err(RunError::InvalidOption("rank 0 could not set the time step".into())),
        None => Ok(value[0]),
    }
}

/// The time loop of a split run: no time series, checkpoints or outputs during the run (the final pieces are
/// written after it).
pub(crate) fn run_without_outputs<S: dg_runtime::run_loop::Stepper>(
    stepper: &mut S,
    t_end: f64,
    rule: StepRule,
    progress: &mut dyn FnMut(f64, f64),
) -> Result<dg_runtime::run_loop::LoopStats, RunError>
where
    RunError: From<S::Error>,
{
    let no_vtu = |_: &Path, _: &[f64]| -> Result<(), RunError> { Ok(()) };
    crate::output::run_stepper(stepper, t_end, rule, &crate::output::RunOutput::default(), &no_vtu, progress)
}

/// What a rank's split time loop on the CPU left: the loop's statistics, the local state (own elements first) and
/// the rank's report.
pub(crate) struct SplitLoop<T> {
    /// The loop's statistics.
    pub stats: dg_runtime::run_loop::LoopStats,
    /// The final local state.
    pub q: Vec<T>,
    /// This rank's part and times.
    pub mine: RankReport,
}

/// Steps `op` (the rank's operator on its own elements and halo, `block` values per element) from `q0` to `t_end`
/// in steps of `dt` on the native CPU path, whole halo elements exchanged before every right-hand side; every rank
/// stops at the first step where some rank has a value that is not finite, or, for a `linear` law (one whose energy
/// cannot grow, on every rank), where the largest |value| over the ranks exceeds [`crate::MAX_VALUE_GROWTH`] times
/// the initial state's (the one-process run's check, [`crate::host_step_verdict`]).
#[allow(clippy::too_many_arguments)]
pub(crate) fn step_split_cpu<S, T>(
    op: S,
    plan: &dg_parallel::halo::HaloPlan,
    block: usize,
    (q0, linear): (Vec<T>, bool),
    (scheme, t_end, dt): (dg_runtime::time::Scheme, f64, f64),
    comm: &dyn Communicator,
    progress: &mut dyn FnMut(f64, f64),
) -> Result<SplitLoop<T>, RunError>
where
    S: OdeSystem<State = Vec<T>>,
    dg_parallel::ParallelError: From<S::Error>,
    T: Real,
{
    let owned_values = plan.owned.len() * block;
    let largest = |q: &[T]| {
        let own = q[..owned_values].iter().map(|v| v.as_f64().abs()).fold(0.0, dg_core::max_or_nan);
        dg_parallel::comm::max_over(comm, own)
    };
    let initial = largest(&q0);
    let growth = (linear && initial > 0.0).then_some(crate::MAX_VALUE_GROWTH);
    let system = HaloExchanged::new(op, comm, plan, block);
    let loop_started = Instant::now();
    let mut stepper = Integrated::new(system, q0, scheme).with_inspect(|_, q: &Vec<T>, _| {
        // (with a growth bound, one pass and one reduction per step: the largest |value| over the ranks is not
        // finite exactly when some value is not, and only then are they counted; every rank takes the same branch)
        if growth.is_some() {
            let l = largest(q);
            if l.is_finite() {
                return Ok(dg_runtime::state_check::verdict(l, initial, growth));
            }
        }
        let mut bad = [q[..owned_values].iter().filter(|v| !v.is_finite()).count() as f64];
        comm.sum(&mut bad);
        Ok((bad[0] > 0.0).then(|| format!("{} values are not finite numbers", bad[0])))
    });
    let stats = run_without_outputs(&mut stepper, t_end, StepRule::Uniform(dt), progress)?;
    let loop_seconds = loop_started.elapsed().as_secs_f64();
    let (system, q) = stepper.into_parts();
    let mine = RankReport::on_cpu(comm.rank(), plan, system.times, [loop_seconds, stats.split.inspecting_seconds]);
    Ok(SplitLoop { stats, q, mine })
}

/// A split run's report (rank 0; `None` elsewhere) and every rank's part (rank 0; empty elsewhere).
pub struct SplitOutcome<R> {
    /// The report, as a one-process run gives it.
    pub report: Option<R>,
    /// Every rank's elements and times.
    pub ranks: Vec<RankReport>,
    /// Device runs: the device, variant and schedule (rank 0).
    pub device: Option<PartitionedDevice>,
    /// How the mesh was split (rank 0).
    pub partition: Option<Partition>,
}

/// Refuses what split runs on the native CPU path do not do yet (`what`: "a hexahedral", …).
pub(crate) fn refuse_unsplit(out: &crate::output::RunOutput, variant: bool, what: &str) -> Result<(), RunError> {
    if out.vtu_every.is_some() || out.checkpoint_every.is_some() || out.resume.is_some() || variant {
        return Err(RunError::InvalidOption(format!(
            "{what} run over MPI ranks takes no --out-every, --checkpoint-every, --restart or --variant yet"
        )));
    }
    Ok(())
}

/// The L2 error and the exact solution's L2 norm over all ranks from each rank's per-variable `errors` and
/// `norms` (sums of squares).
pub(crate) fn split_l2(comm: &dyn Communicator, errors: &[f64], norms: &[f64]) -> (f64, f64) {
    let mut sums: Vec<f64> = errors.iter().chain(norms).map(|e| e * e).collect();
    comm.sum(&mut sums);
    let (e, n) = sums.split_at(errors.len());
    (e.iter().sum::<f64>().sqrt(), n.iter().sum::<f64>().sqrt())
}

/// Every rank's report on rank 0 (`None` elsewhere).
pub(crate) fn gather_ranks(comm: &dyn Communicator, m: &RankReport) -> Option<Vec<RankReport>> {
    let mine = [
        m.elements as f64,
        m.halo_elements as f64,
        m.neighbours as f64,
        m.gpu.map_or(-1.0, |g| g as f64),
        m.compute_seconds,
        m.exchange_seconds,
        m.wait_seconds,
        m.exchanges as f64,
        m.values_sent as f64,
        m.loop_seconds,
        m.inspecting_seconds,
    ];
    let all = comm.gather(&mine);
    (comm.rank() == 0).then(|| {
        all.chunks_exact(mine.len())
            .enumerate()
            .map(|(r, v)| RankReport {
                rank: r,
                elements: v[0] as usize,
                halo_elements: v[1] as usize,
                neighbours: v[2] as usize,
                gpu: (v[3] >= 0.0).then_some(v[3] as usize),
                compute_seconds: v[4],
                exchange_seconds: v[5],
                wait_seconds: v[6],
                exchanges: v[7] as u64,
                values_sent: v[8] as u64,
                loop_seconds: v[9],
                inspecting_seconds: v[10],
            })
            .collect()
    })
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
    let binding = BoundaryBinding::for_law(law, &space, &opts.common.boundary)?;
    let q0: Vec<f64> = space.interpolate(L::NVARS, |x, y, q| case.initial(x, y, q));
    let op = || NodalOperator2d::<L, f64>::new(law.clone(), &space, &binding);
    let Ok(limit) = StabilityLimit::of_built(op, &q0, 0.0, opts.scheme);
    crate::note_unestimated(&limit, q0.len());
    Ok((step_limit(&space, opts, &limit)? * opts.common.step_scale, limit))
}

/// `--out PATH`, when given, of a split run: each rank's own elements' values `own` (`np` per element and variable,
/// element-major) as the fields `names` of `STEM-R.vtu` beside `path` (written by `write_piece`), and (rank 0)
/// `STEM.pvtu` listing them.
pub(crate) fn write_pieces<T: Real>(
    path: Option<&Path>,
    names: &[&str],
    (own, np): (&[T], usize),
    comm: &dyn Communicator,
    write_piece: impl FnOnce(&Path, &[dg_core::vtu::Field<'_>]) -> Result<(), RunError>,
) -> Result<(), RunError> {
    let Some(path) = path else { return Ok(()) };
    let values = per_variable(&crate::widened(own), names.len(), np);
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "run".into());
    let piece = |r: usize| format!("{stem}-{r}.vtu");
    let written = write_piece(&path.with_file_name(piece(comm.rank())), &named(names, &values));
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
