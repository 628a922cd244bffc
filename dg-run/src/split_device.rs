//! The time loop of a run split over MPI ranks on devices, shared by every formulation that joins through
//! [`RangedDeviceRhs`]: rank 0's variant for every rank, the device-to-device link, the schedule and exchange
//! (given or timed), the per-step state check agreed over the ranks, and each rank's report.

use crate::error::RunError;
use crate::partitioned::{ExchangePick, Pick, RankReport, SchedulePick, ScheduleReport, ScheduleTrial};
use crate::winners::VariantChoice;
use crate::StepCheck;
use dg_core::Real;
use dg_parallel::comm::{broadcast_text, max_over, Communicator};
use dg_parallel::device::{join_peer_link, DeviceHalo, DevicePartSystem, Exchange, RangedDeviceRhs, Schedule};
use dg_parallel::halo::HaloPlan;
use dg_runtime::backend::{BufferId, Device};
use dg_runtime::run_loop::{Integrated, LoopStats, StepPoint, StepRule};
use dg_runtime::time::{OdeSystem, Scheme};
use std::time::Instant;

/// Steps between the device runs' state checks (non-finite values, growth) and the ranks' agreement on them: a
/// blow-up stops the run at most this many steps late, and the host enqueues that far ahead of the devices.
pub(crate) const CHECK_EVERY: u64 = 8;

/// Right-hand sides (or exchanges) each choice is timed over (after untimed ones).
const SCHEDULE_TRIALS: usize = 30;

/// The variant every rank runs: rank 0's `on_rank_0` (the given one, the tuning database's, or tuned on its
/// device), sent to every rank. Fails on every rank when rank 0 could not choose.
pub(crate) fn rank_0_variant(
    comm: &dyn Communicator,
    on_rank_0: impl FnOnce() -> Result<VariantChoice, RunError>,
) -> Result<VariantChoice, RunError> {
    let (choice, error) = match (comm.rank() == 0).then(on_rank_0) {
        Some(Ok(choice)) => (Some(choice), None),
        Some(Err(e)) => (None, Some(e)),
        None => (None, None),
    };
    let Some(spec) = broadcast_text(comm, choice.as_ref().map(|c| c.variant.as_str())) else {
        return Err(error.unwrap_or_else(|| RunError::InvalidOption("rank 0 could not choose a variant".into())));
    };
    Ok(choice.unwrap_or_else(|| VariantChoice::given(spec)))
}

/// A rank's device run, ready to step: the kernels over its element ranges, its halo, its state and its check.
pub(crate) struct DeviceSplit<'a, T: Real> {
    /// The rank's device.
    pub device: &'a mut dyn Device,
    /// The formulation's kernels over element ranges.
    pub ranged: &'a dyn RangedDeviceRhs,
    /// The traces' packing and messages.
    pub halo: DeviceHalo<T>,
    /// The state, the initial one written.
    pub q: BufferId,
    /// The rank's part.
    pub plan: &'a HaloPlan,
    /// The per-step check (non-finite values, growth).
    pub step_check: &'a StepCheck,
}

/// Reads a device state back into the host layout.
pub(crate) type ReadState<'a, T> = &'a dyn Fn(&mut dyn Device, BufferId) -> Result<Vec<T>, RunError>;

/// What a rank's device loop left.
pub(crate) struct DeviceSplitEnd<T> {
    /// The loop's statistics.
    pub stats: LoopStats,
    /// The final local state (host layout, own elements first).
    pub state: Vec<T>,
    /// This rank's part and times.
    pub mine: RankReport,
    /// The schedule and exchange, and what was timed to choose them.
    pub schedule: ScheduleReport,
}

/// Steps a rank's device run from its state to `t_end` in the schedule and exchange `pick` allows (timed on the
/// initial state when tuned). Every [`CHECK_EVERY`] steps and at the last the per-step check runs and the ranks
/// agree on it; where `reads_state(at)` the state is also read back (`read_state`) and `judge` gives the verdict
/// on it (it may reduce over the ranks: every rank calls it at the same steps).
#[allow(clippy::too_many_arguments)]
pub(crate) fn step_split_device<T: Real>(
    run: DeviceSplit<'_, T>,
    pick: (SchedulePick, ExchangePick),
    (scheme, t_end, rule): (Scheme, f64, StepRule),
    comm: &dyn Communicator,
    read_state: ReadState<'_, T>,
    reads_state: &dyn Fn(StepPoint) -> bool,
    judge: &mut dyn FnMut(&[T]) -> Option<String>,
    progress: &mut dyn FnMut(f64, f64),
) -> Result<DeviceSplitEnd<T>, RunError> {
    let DeviceSplit { device, ranged, halo, q, plan, step_check } = run;
    let (owned, interior) = (plan.owned.len(), plan.interior);
    let gpu = device.fingerprint().selector.strip_prefix("cuda:").and_then(|n| n.parse().ok());
    let no_device_to_device = match pick.1 {
        Pick::Given(Exchange::HostStaged) => Some("--exchange host-staged".to_string()),
        _ => join_peer_link(device, comm),
    };
    if let (Pick::Given(Exchange::DeviceToDevice), Some(why)) = (pick.1, &no_device_to_device) {
        return Err(RunError::InvalidOption(format!("--exchange nccl: {why}")));
    }
    let mut system = DevicePartSystem::new(device, ranged, halo, comm, Schedule::Synchronous, (owned, interior));
    let exchanges = if no_device_to_device.is_none() {
        pick.1.among(&[Exchange::HostStaged, Exchange::DeviceToDevice])
    } else {
        vec![Exchange::HostStaged]
    };
    let mut schedule = pick_schedule(&mut system, q, (pick.0.among(&Schedule::ALL), exchanges), comm)?;
    schedule.no_device_to_device = no_device_to_device;
    schedule.stages_folded = scheme == Scheme::Lsrk45 && system.folds_low_storage();
    if !matches!(pick, (Pick::Tuned, _) | (_, Pick::Tuned)) {
        schedule.how = "given";
    }
    let loop_started = Instant::now();
    // the state the last inspection read back (the final one when the last step was judged): not read twice
    let mut last_read: Option<(u64, Vec<T>)> = None;
    let mut stepper = Integrated::new(system, q, scheme).with_inspect(|sys, q: &BufferId, at| {
        // the check waits for the device and for every rank: every few steps, so that the host enqueues ahead
        let read = reads_state(at);
        if at.step % CHECK_EVERY != 0 && !at.last && !read {
            return Ok(None);
        }
        let local = step_check.after_step(sys.device, *q, &mut sys.times.compute_seconds)?;
        let mut stopped = [f64::from(u8::from(local.is_some()))];
        comm.sum(&mut stopped);
        if stopped[0] > 0.0 {
            return Ok(Some(
                local.unwrap_or_else(|| "another rank's state is not finite or grew past its bound".into()),
            ));
        }
        if !read {
            return Ok(None);
        }
        let state = read_state(sys.device, *q).map_err(|e| dg_parallel::ParallelError::Device(e.to_string()))?;
        let verdict = judge(&state);
        last_read = at.last.then_some((at.step, state));
        Ok(verdict)
    });
    let stats = crate::partitioned::run_without_outputs(&mut stepper, t_end, rule, progress)?;
    let (mut system, q) = stepper.into_parts();
    system.settle()?;
    let loop_seconds = loop_started.elapsed().as_secs_f64();
    let state = match last_read {
        Some((step, state)) if step == stats.steps => state,
        _ => read_state(system.device, q)?,
    };
    let t = system.times;
    system.device.free_buffers();
    let mine = RankReport {
        rank: comm.rank(),
        elements: owned,
        halo_elements: plan.halo.len(),
        neighbours: plan.sends.len(),
        gpu,
        compute_seconds: t.compute_seconds,
        exchange_seconds: t.exchange_seconds,
        wait_seconds: t.wait_seconds,
        exchanges: t.exchanges,
        values_sent: t.values_sent,
        loop_seconds,
        inspecting_seconds: stats.split.inspecting_seconds,
    };
    Ok(DeviceSplitEnd { stats, state, mine, schedule })
}

/// The schedule and exchange of a device run: each exchange and the compute timed alone (for the report and the
/// model of larger runs), then each allowed combination timed on the initial state (every rank the same
/// evaluations; the slowest rank's time counts) and the fastest taken.
fn pick_schedule<T: Real>(
    system: &mut DevicePartSystem<'_, T, dyn Communicator + '_>,
    q: BufferId,
    (schedules, exchanges): (Vec<Schedule>, Vec<Exchange>),
    comm: &dyn Communicator,
) -> Result<ScheduleReport, RunError> {
    let overlapped_elements = [system.overlapped_elements(), system.owned_elements()];
    let mut out = system.zeros_like(&q)?;
    let slowest = |seconds: f64| max_over(comm, seconds);
    let mut exchange_seconds = Vec::new();
    for &exchange in &exchanges {
        system.exchange = exchange;
        comm.sum(&mut [0.0]);
        exchange_seconds.push((exchange, slowest(system.time_exchange(q, SCHEDULE_TRIALS)?)));
    }
    let all = slowest(system.time_compute(q, out, 0..overlapped_elements[1], SCHEDULE_TRIALS)?);
    let interior = slowest(system.time_compute(q, out, 0..overlapped_elements[0], SCHEDULE_TRIALS)?);
    let mut trials = Vec::new();
    let combinations: Vec<(Exchange, Schedule)> =
        exchanges.iter().flat_map(|&e| schedules.iter().map(move |&s| (e, s))).collect();
    for &(exchange, schedule) in &combinations {
        (system.exchange, system.schedule) = (exchange, schedule);
        for _ in 0..2 {
            system.rhs(0.0, &q, &mut out)?;
        }
        system.settle()?;
        comm.sum(&mut [0.0]);
        let started = Instant::now();
        for _ in 0..SCHEDULE_TRIALS {
            system.rhs(0.0, &q, &mut out)?;
        }
        system.settle()?;
        let seconds = slowest(started.elapsed().as_secs_f64()) / SCHEDULE_TRIALS as f64;
        trials.push(ScheduleTrial { exchange, schedule, seconds_per_rhs: seconds });
    }
    let best = trials.iter().min_by(|a, b| a.seconds_per_rhs.total_cmp(&b.seconds_per_rhs));
    let (exchange, chosen) = best.map_or(combinations[0], |t| (t.exchange, t.schedule));
    (system.exchange, system.schedule) = (exchange, chosen);
    system.times = Default::default();
    let sent = slowest(system.halo_traffic().0 as f64) as usize;
    Ok(ScheduleReport {
        chosen,
        exchange,
        how: "tuned",
        no_device_to_device: None,
        trials,
        exchange_seconds,
        compute_seconds: [all, interior],
        overlapped_elements,
        halo_values: [sent, std::mem::size_of::<T>()],
        stages_folded: false,
    })
}
