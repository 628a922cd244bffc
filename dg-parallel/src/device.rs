//! A rank's right-hand side on a compute device, its halo exchanged through the host before every evaluation,
//! in one of three schedules (seed 003's task graph):
//!
//! - [`Schedule::Synchronous`]: pack the traces, copy them to the host, exchange, copy back and unpack, then
//!   the whole right-hand side. The device idles while the traces travel.
//! - [`Schedule::Asynchronous`]: the traces are packed and copied on the device's transfer lane while the
//!   interior elements' right-hand side runs; the elements next to the halo follow once the traces are back.
//! - [`Schedule::Eager`]: as the asynchronous one, but the elements next to the halo run on the transfer lane
//!   right after the unpacking, beside the interior's last work groups instead of after them.
//!
//! The traces travel in one of two ways ([`Exchange`]): through the host (device → host, MPI, host → device), or
//! device to device over NCCL (no host copy, nothing for the host to wait for).
//!
//! Formulations take part through [`RangedDeviceRhs`]; the packing kernels gather and scatter at listed offsets,
//! so every layout shares them.

use crate::comm::Communicator;
use crate::trace::TracePlan;
use crate::ParallelError;
use dg_codegen::halo::{halo_source, HALO_GROUP, HALO_PACK_KERNEL, HALO_UNPACK_KERNEL};
use dg_codegen::Target;
use dg_core::Real;
use dg_runtime::backend::{as_bytes, as_bytes_mut, Arg, BackendError, BufferId, Device, Launch, ProgramId, Step};
use dg_runtime::time::OdeSystem;
use std::ops::Range;
use std::time::Instant;

/// What a formulation's device operator offers a run split over ranks.
pub trait RangedDeviceRhs {
    /// The program holding the right-hand-side and update kernels.
    fn program(&self) -> ProgramId;
    /// The steps computing the right-hand side of state `q` into `out` for the elements `elements` only
    /// (`elements.start` a multiple of [`RangedDeviceRhs::element_quantum`]).
    fn rhs_steps(&self, q: BufferId, out: BufferId, t: f64, elements: Range<usize>)
        -> Result<Vec<Step>, ParallelError>;
    /// Where element ranges may start.
    fn element_quantum(&self) -> usize;
    /// Offset of variable `variable` at node `node` of local element `element` in a state buffer.
    fn value_offset(&self, element: usize, variable: usize, node: usize) -> usize;
    /// Variables per node.
    fn nvars(&self) -> usize;
    /// A new zero-filled state buffer.
    fn new_state(&self, device: &mut dyn Device) -> Result<BufferId, BackendError>;
    /// The steps of y ← a·y + Σ cᵢxᵢ.
    fn update_steps(&self, y: BufferId, a: f64, terms: &[(f64, BufferId)]) -> Result<Vec<Step>, ParallelError>;
    /// Whether [`RangedDeviceRhs::stage_steps`] folds a low-storage stage into the right-hand side's kernels.
    fn folds_stages(&self) -> bool {
        false
    }
    /// The steps of one low-storage stage of `q` on the elements `elements` only, folded into the right-hand
    /// side's store: r ← a·r + c·L(q), z ← q + b·r (`stage` = (r, z, a, c, b)); `None` where the operator cannot.
    fn stage_steps(
        &self,
        q: BufferId,
        t: f64,
        elements: Range<usize>,
        stage: (BufferId, BufferId, f64, f64, f64),
    ) -> Option<Vec<Step>> {
        let _ = (q, t, elements, stage);
        None
    }
}

/// How a rank orders its halo exchange and its right-hand side.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Schedule {
    /// Exchange, then the whole right-hand side.
    #[serde(rename = "sync")]
    Synchronous,
    /// The interior's right-hand side while the traces travel, the rest after.
    #[serde(rename = "async")]
    Asynchronous,
    /// The interior's right-hand side while the traces travel, the rest on the transfer lane as soon as they are
    /// unpacked (beside the interior's tail; both write their own elements only).
    #[serde(rename = "eager")]
    Eager,
}

impl Schedule {
    /// All three, synchronous first.
    pub const ALL: [Schedule; 3] = [Schedule::Synchronous, Schedule::Asynchronous, Schedule::Eager];

    /// `sync`, `async` or `eager`.
    pub fn name(self) -> &'static str {
        match self {
            Schedule::Synchronous => "sync",
            Schedule::Asynchronous => "async",
            Schedule::Eager => "eager",
        }
    }
}

/// How the traces travel between the ranks' devices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Exchange {
    /// Device → host, MPI between the hosts, host → device.
    #[serde(rename = "host-staged")]
    HostStaged,
    /// Device to device over NCCL (on the transfer lane).
    #[serde(rename = "nccl")]
    DeviceToDevice,
}

impl Exchange {
    /// `host-staged` or `nccl`.
    pub fn name(self) -> &'static str {
        match self {
            Exchange::HostStaged => "host-staged",
            Exchange::DeviceToDevice => "nccl",
        }
    }
}

/// Joins every rank's device to one device-to-device link (NCCL) when every rank's device offers it: `Ok(None)`
/// when it does, else why not (then only [`Exchange::HostStaged`] runs). Every rank calls this together.
pub fn join_peer_link<C: Communicator + ?Sized>(device: &mut dyn Device, comm: &C) -> Option<String> {
    let mut unavailable = [f64::from(u8::from(!device.peer_link_available()))];
    comm.sum(&mut unavailable);
    if unavailable[0] > 0.0 {
        return Some(format!("{} of {} ranks' devices offer no NCCL link (libnccl.so)", unavailable[0], comm.size()));
    }
    if let Some(shared) = ranks_sharing_a_device(device, comm) {
        return Some(shared);
    }
    // rank 0 creates the link's id: a flag (1: made) and its bytes, to every rank
    let mut id = vec![0.0; 129];
    let mut failure = None;
    if comm.rank() == 0 {
        match device.peer_id() {
            Ok(bytes) if bytes.len() == 128 => {
                id[0] = 1.0;
                for (slot, b) in id[1..].iter_mut().zip(bytes) {
                    *slot = f64::from(b);
                }
            }
            Ok(_) => failure = Some("NCCL gave an id of an unexpected size".to_string()),
            Err(e) => failure = Some(e.to_string()),
        }
    }
    comm.broadcast(&mut id);
    if id[0] != 1.0 {
        return Some(failure.unwrap_or_else(|| "rank 0 could not create the NCCL link".into()));
    }
    let bytes: Vec<u8> = id[1..].iter().map(|&v| v as u8).collect();
    let joined = device.peer_join(comm.rank(), comm.size(), &bytes);
    let mut failed = [f64::from(u8::from(joined.is_err()))];
    comm.sum(&mut failed);
    match joined {
        Err(e) => Some(e.to_string()),
        Ok(()) if failed[0] > 0.0 => Some(format!("{} ranks could not join the NCCL link", failed[0])),
        Ok(()) => None,
    }
}

/// Two ranks on one device, which NCCL refuses (it joins one rank per GPU): which ranks and what to do instead. The
/// device's identity is its host, its selector and `CUDA_VISIBLE_DEVICES`, hashed to 48 bits (exact in an f64) and
/// gathered through a sum of one slot per rank.
fn ranks_sharing_a_device<C: Communicator + ?Sized>(device: &dyn Device, comm: &C) -> Option<String> {
    use std::hash::{Hash, Hasher};
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
    let visible = std::env::var("CUDA_VISIBLE_DEVICES").unwrap_or_default();
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    (host.trim(), &device.fingerprint().selector, visible).hash(&mut hasher);
    let mut ids = vec![0.0; comm.size()];
    ids[comm.rank()] = (hasher.finish() >> 16) as f64;
    comm.sum(&mut ids);
    let first = (0..ids.len()).find_map(|a| ((a + 1)..ids.len()).find(|&b| ids[a] == ids[b]).map(|b| (a, b)))?;
    Some(format!(
        "ranks {} and {} share one device ({}): NCCL joins one rank per GPU; run as many ranks per host as it has \
         GPUs, or use --exchange host-staged",
        first.0,
        first.1,
        device.fingerprint().selector
    ))
}

/// Seconds and traffic of one rank's device run.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize)]
pub struct DeviceRankTimes {
    /// Device time of the kernels on the compute lane (right-hand sides, updates; the synchronous schedule's
    /// packing), measured with device events.
    pub compute_seconds: f64,
    /// Host time exchanging the traces: host-staged, in MPI; device to device, enqueueing the packing, the NCCL
    /// group and the unpacking (the devices do the rest without the host).
    pub exchange_seconds: f64,
    /// Host-staged: host time waiting for the traces to reach the host and for their copy back to be enqueued.
    pub wait_seconds: f64,
    /// Halo exchanges.
    pub exchanges: u64,
    /// Values sent.
    pub values_sent: u64,
}

/// The device buffers and host staging of one rank's halo exchange.
pub struct DeviceHalo<T: Real> {
    program: ProgramId,
    send_offsets: BufferId,
    receive_offsets: BufferId,
    send: BufferId,
    receive: BufferId,
    send_values: usize,
    receive_values: usize,
    host_send: Vec<T>,
    host_receive: Vec<T>,
    sends: Vec<(usize, Vec<f64>)>,
    receives: Vec<(usize, Vec<f64>)>,
    /// Per neighbour, the bytes of the send and receive buffers its message takes (device-to-device exchange).
    send_bytes: Vec<(usize, Range<usize>)>,
    receive_bytes: Vec<(usize, Range<usize>)>,
}

/// Per neighbour, consecutive byte ranges of `values_each` values of `real` bytes per listed node.
fn byte_ranges(lists: &[(usize, Vec<(usize, usize)>)], values_each: usize, real: usize) -> Vec<(usize, Range<usize>)> {
    let mut start = 0;
    lists
        .iter()
        .map(|(r, list)| {
            let end = start + list.len() * values_each * real;
            let range = start..end;
            start = end;
            (*r, range)
        })
        .collect()
}

impl<T: Real> DeviceHalo<T> {
    /// Compiles the packing kernels for `target` and uploads the offsets of `traces` in `op`'s layout.
    pub fn new(
        device: &mut dyn Device,
        target: Target,
        op: &dyn RangedDeviceRhs,
        traces: &TracePlan,
    ) -> Result<Self, ParallelError> {
        let double = T::NAME == "f64";
        let source = halo_source(target, double).map_err(|e| ParallelError::Device(e.to_string()))?;
        let program = device.compile(&source, &[HALO_PACK_KERNEL.to_string(), HALO_UNPACK_KERNEL.to_string()])?;
        let nv = op.nvars();
        // message order: per neighbour, per variable, every listed node (the layouts keep a variable's nodes of an
        // element together, so neighbouring work items of the packing kernels touch neighbouring values)
        let offsets = |lists: &[(usize, Vec<(usize, usize)>)]| -> Result<Vec<i32>, ParallelError> {
            lists
                .iter()
                .flat_map(|(_, list)| (0..nv).flat_map(move |v| list.iter().map(move |&(l, i)| (l, v, i))))
                .map(|(l, v, i)| {
                    i32::try_from(op.value_offset(l, v, i))
                        .map_err(|_| ParallelError::Device("a state offset exceeds 32-bit indexing".into()))
                })
                .collect()
        };
        let send_offsets = offsets(&traces.sends)?;
        let receive_offsets = offsets(&traces.receives)?;
        let upload = |device: &mut dyn Device, values: &[i32]| -> Result<BufferId, BackendError> {
            let id = device.alloc(std::mem::size_of_val(values).max(4))?;
            device.upload(id, as_bytes(values))?;
            Ok(id)
        };
        let real = std::mem::size_of::<T>();
        let (send_values, receive_values) = (send_offsets.len(), receive_offsets.len());
        Ok(Self {
            program,
            send_offsets: upload(device, &send_offsets)?,
            receive_offsets: upload(device, &receive_offsets)?,
            send: device.alloc((send_values * real).max(real))?,
            receive: device.alloc((receive_values * real).max(real))?,
            send_values,
            receive_values,
            host_send: vec![T::zero(); send_values],
            host_receive: vec![T::zero(); receive_values],
            sends: traces.sends.iter().map(|(r, list)| (*r, vec![0.0; list.len() * nv])).collect(),
            receives: traces.receives.iter().map(|(r, list)| (*r, vec![0.0; list.len() * nv])).collect(),
            send_bytes: byte_ranges(&traces.sends, nv, real),
            receive_bytes: byte_ranges(&traces.receives, nv, real),
        })
    }

    fn launch(&self, kernel: &str, q: BufferId, offsets: BufferId, message: BufferId, n: usize) -> Step {
        Step::Kernel(Launch {
            kernel: kernel.to_string(),
            groups: n.div_ceil(HALO_GROUP).max(1),
            local: HALO_GROUP,
            args: vec![Arg::Buffer(q), Arg::Buffer(offsets), Arg::Buffer(message), Arg::I32(n as i32)],
        })
    }

    /// Gathers the traces of `q` into the send buffer.
    fn pack(&self, q: BufferId) -> Step {
        self.launch(HALO_PACK_KERNEL, q, self.send_offsets, self.send, self.send_values)
    }

    /// Scatters the receive buffer into the halo of `q`.
    fn unpack(&self, q: BufferId) -> Step {
        self.launch(HALO_UNPACK_KERNEL, q, self.receive_offsets, self.receive, self.receive_values)
    }

    /// Whether this rank exchanges anything.
    fn is_empty(&self) -> bool {
        self.sends.is_empty() && self.receives.is_empty()
    }

    /// The host part: the packed traces (already on the host) to the neighbours, theirs into the receive
    /// staging.
    fn exchange_on_host<C: Communicator + ?Sized>(&mut self, comm: &C) -> Result<(), ParallelError> {
        let mut values = self.host_send.iter();
        for (_, message) in &mut self.sends {
            for (slot, v) in message.iter_mut().zip(&mut values) {
                *slot = v.as_f64();
            }
        }
        comm.exchange(&self.sends, &mut self.receives)?;
        let mut slots = self.host_receive.iter_mut();
        for (_, message) in &self.receives {
            for (v, slot) in message.iter().zip(&mut slots) {
                *slot = T::from_f64(*v);
            }
        }
        Ok(())
    }
}

/// A rank's [`OdeSystem`] on a device: its own elements' right-hand side (the halo is read, never computed),
/// the halo refreshed before every evaluation in the chosen [`Schedule`].
pub struct DevicePartSystem<'a, T: Real, C: Communicator + ?Sized> {
    /// The device.
    pub device: &'a mut dyn Device,
    op: &'a dyn RangedDeviceRhs,
    halo: DeviceHalo<T>,
    comm: &'a C,
    /// The schedule of every right-hand side.
    pub schedule: Schedule,
    /// How the traces travel ([`Exchange::DeviceToDevice`] only after [`join_peer_link`] succeeded).
    pub exchange: Exchange,
    owned: usize,
    split: usize,
    /// What this rank spent.
    pub times: DeviceRankTimes,
}

impl<'a, T: Real, C: Communicator + ?Sized> DevicePartSystem<'a, T, C> {
    /// The system of a rank owning local elements `0..owned`, of which `0..interior` have no face to another
    /// rank's element.
    pub fn new(
        device: &'a mut dyn Device,
        op: &'a dyn RangedDeviceRhs,
        halo: DeviceHalo<T>,
        comm: &'a C,
        schedule: Schedule,
        (owned, interior): (usize, usize),
    ) -> Self {
        let quantum = op.element_quantum().max(1);
        let split = interior.min(owned) / quantum * quantum;
        let exchange = Exchange::HostStaged;
        Self { device, op, halo, comm, schedule, exchange, owned, split, times: DeviceRankTimes::default() }
    }

    /// The own elements computed while the traces travel (asynchronous schedule): the interior, rounded down to
    /// where the kernels' ranges may start.
    pub fn overlapped_elements(&self) -> usize {
        self.split
    }

    /// The own elements (every right-hand side computes them).
    pub fn owned_elements(&self) -> usize {
        self.owned
    }

    fn submit(&mut self, steps: &[Step]) -> Result<(), BackendError> {
        if steps.is_empty() {
            return Ok(());
        }
        self.times.compute_seconds += self.device.submit(self.op.program(), steps)?;
        Ok(())
    }

    /// Waits for the device and adds the device time not yet counted.
    pub fn settle(&mut self) -> Result<(), BackendError> {
        self.times.compute_seconds += self.device.settle()?;
        Ok(())
    }

    /// The traces of `q` through the host into its halo: packed (on the transfer lane, `between` submitted to the
    /// compute lane meanwhile, or on the compute lane after everything before), copied to the host, exchanged,
    /// copied back and unpacked on the transfer lane, `after` following there.
    fn through_host(
        &mut self,
        q: BufferId,
        on_transfer_lane: bool,
        (between, after): (&[Step], &[Step]),
    ) -> Result<(), ParallelError> {
        let program = self.halo.program;
        let started = Instant::now();
        if on_transfer_lane {
            self.device.transfer_after_compute()?;
            self.device.submit_transfer(program, &[self.halo.pack(q)])?;
            self.submit(between)?;
            self.device.download_transfer(self.halo.send, as_bytes_mut(&mut self.halo.host_send))?;
        } else {
            self.times.compute_seconds += self.device.submit(program, &[self.halo.pack(q)])?;
            self.device.download(self.halo.send, as_bytes_mut(&mut self.halo.host_send))?;
        }
        let waited = started.elapsed().as_secs_f64();
        let exchanged = Instant::now();
        self.halo.exchange_on_host(self.comm)?;
        self.times.exchange_seconds += exchanged.elapsed().as_secs_f64();
        let back = Instant::now();
        self.device.upload_transfer(self.halo.receive, as_bytes(&self.halo.host_receive))?;
        self.device.submit_transfer(program, &[self.halo.unpack(q)])?;
        self.after_unpacking(after)?;
        self.times.wait_seconds += waited + back.elapsed().as_secs_f64();
        Ok(())
    }

    /// The traces of `q` device to device into its halo, all on the transfer lane (the host waits for nothing);
    /// `between` is submitted to the compute lane meanwhile, `after` to the transfer lane after the unpacking.
    fn device_to_device(&mut self, q: BufferId, (between, after): (&[Step], &[Step])) -> Result<(), ParallelError> {
        let program = self.halo.program;
        let started = Instant::now();
        self.device.transfer_after_compute()?;
        self.device.submit_transfer(program, &[self.halo.pack(q)])?;
        self.submit(between)?;
        let h = &self.halo;
        self.device.peer_exchange(h.send, &h.send_bytes, h.receive, &h.receive_bytes)?;
        self.device.submit_transfer(program, &[self.halo.unpack(q)])?;
        self.after_unpacking(after)?;
        self.times.exchange_seconds += started.elapsed().as_secs_f64();
        Ok(())
    }

    /// `after` (kernels reading the unpacked halo) on the transfer lane behind the unpacking, and the compute lane
    /// made to wait for all of it. Steps the transfer lane does not run (matrix products) go to the compute lane
    /// after the wait instead.
    fn after_unpacking(&mut self, after: &[Step]) -> Result<(), ParallelError> {
        if after.iter().all(|s| matches!(s, Step::Kernel(_))) {
            if !after.is_empty() {
                self.device.submit_transfer(self.op.program(), after)?;
            }
            self.device.compute_after_transfer()?;
        } else {
            self.device.compute_after_transfer()?;
            self.submit(after)?;
        }
        Ok(())
    }

    /// One halo refresh of `q`, `between` submitted to the compute lane while the traces travel (where the
    /// exchange lets anything run meanwhile; else before it), `after` to the transfer lane once they are unpacked.
    fn refresh(&mut self, q: BufferId, steps: (&[Step], &[Step])) -> Result<(), ParallelError> {
        self.times.exchanges += 1;
        self.times.values_sent += self.halo.send_values as u64;
        match (self.exchange, self.schedule) {
            (Exchange::DeviceToDevice, _) => self.device_to_device(q, steps),
            (Exchange::HostStaged, Schedule::Asynchronous | Schedule::Eager) => self.through_host(q, true, steps),
            (Exchange::HostStaged, Schedule::Synchronous) => {
                self.submit(steps.0)?;
                self.through_host(q, false, (&[], steps.1))
            }
        }
    }

    /// Seconds per halo refresh of `q` alone (no right-hand side), over `repeats` refreshes after one untimed.
    pub fn time_exchange(&mut self, q: BufferId, repeats: usize) -> Result<f64, ParallelError> {
        if self.halo.is_empty() {
            return Ok(0.0);
        }
        self.refresh(q, (&[], &[]))?;
        self.settle()?;
        let started = Instant::now();
        for _ in 0..repeats {
            self.refresh(q, (&[], &[]))?;
        }
        self.settle()?;
        Ok(started.elapsed().as_secs_f64() / repeats.max(1) as f64)
    }

    /// Seconds per right-hand side of `q` on the own elements `elements` alone, no exchange, over `repeats`
    /// evaluations after one untimed.
    pub fn time_compute(
        &mut self,
        q: BufferId,
        out: BufferId,
        elements: Range<usize>,
        repeats: usize,
    ) -> Result<f64, ParallelError> {
        let steps = self.op.rhs_steps(q, out, 0.0, elements)?;
        self.submit(&steps)?;
        self.settle()?;
        let started = Instant::now();
        for _ in 0..repeats {
            self.submit(&steps)?;
        }
        self.settle()?;
        Ok(started.elapsed().as_secs_f64() / repeats.max(1) as f64)
    }

    /// Values this rank sends and receives per halo exchange.
    pub fn halo_traffic(&self) -> (usize, usize) {
        (self.halo.send_values, self.halo.receive_values)
    }
}

impl<T: Real, C: Communicator + ?Sized> OdeSystem for DevicePartSystem<'_, T, C> {
    type State = BufferId;
    type Error = ParallelError;

    fn rhs(&mut self, t: f64, q: &BufferId, out: &mut BufferId) -> Result<(), ParallelError> {
        let (q, out) = (*q, *out);
        if self.halo.is_empty() {
            let steps = self.op.rhs_steps(q, out, t, 0..self.owned)?;
            return Ok(self.submit(&steps)?);
        }
        match self.schedule {
            Schedule::Synchronous => {
                self.refresh(q, (&[], &[]))?;
                let steps = self.op.rhs_steps(q, out, t, 0..self.owned)?;
                Ok(self.submit(&steps)?)
            }
            Schedule::Asynchronous => {
                let interior = self.op.rhs_steps(q, out, t, 0..self.split)?;
                self.refresh(q, (&interior, &[]))?;
                let rest = self.op.rhs_steps(q, out, t, self.split..self.owned)?;
                Ok(self.submit(&rest)?)
            }
            Schedule::Eager => {
                let interior = self.op.rhs_steps(q, out, t, 0..self.split)?;
                let rest = self.op.rhs_steps(q, out, t, self.split..self.owned)?;
                self.refresh(q, (&interior, &rest))
            }
        }
    }

    fn zeros_like(&mut self, _like: &BufferId) -> Result<BufferId, ParallelError> {
        Ok(self.op.new_state(self.device)?)
    }

    fn folds_low_storage(&self) -> bool {
        self.op.folds_stages()
    }

    /// The stage folded into the right-hand side's kernels where the operator can ([`RangedDeviceRhs::stage_steps`]),
    /// in the run's schedule: the halo of `q` refreshed as for [`OdeSystem::rhs`], the register and the new state
    /// (own elements; its halo is refreshed before it is read) written by the kernels, then `q` and `spare` swapped.
    fn low_storage_stage(
        &mut self,
        t: f64,
        q: &mut BufferId,
        k: &mut BufferId,
        r: &mut BufferId,
        spare: &mut BufferId,
        (a, c, b): (f64, f64, f64),
    ) -> Result<(), ParallelError> {
        if !self.op.folds_stages() {
            return dg_runtime::time::low_storage_unfolded(self, t, q, k, r, (a, c, b));
        }
        let stage = (*r, *spare, a, c, b);
        let (q0, split, owned) = (*q, self.split, self.owned);
        let op = self.op;
        let steps = |range: Range<usize>| {
            op.stage_steps(q0, t, range, stage)
                .ok_or_else(|| ParallelError::Device("the low-storage stage's buffers alias one another".into()))
        };
        match (self.halo.is_empty(), self.schedule) {
            (true, _) => self.submit(&steps(0..owned)?)?,
            (false, Schedule::Synchronous) => {
                self.refresh(q0, (&[], &[]))?;
                self.submit(&steps(0..owned)?)?;
            }
            (false, Schedule::Asynchronous) => {
                self.refresh(q0, (&steps(0..split)?, &[]))?;
                self.submit(&steps(split..owned)?)?;
            }
            (false, Schedule::Eager) => self.refresh(q0, (&steps(0..split)?, &steps(split..owned)?))?,
        }
        std::mem::swap(q, spare);
        Ok(())
    }

    fn update(&mut self, y: &mut BufferId, a: f64, terms: &[(f64, &BufferId)]) -> Result<(), ParallelError> {
        let terms: Vec<(f64, BufferId)> = terms.iter().map(|(c, b)| (*c, **b)).collect();
        let steps = self.op.update_steps(*y, a, &terms)?;
        Ok(self.submit(&steps)?)
    }
}
