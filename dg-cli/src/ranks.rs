//! MPI ranks: under `mpirun -n P`, `dg run` splits a run over the P processes (`dg_run::partitioned`); every other
//! command refuses to run P times over.

use dg_parallel::comm::{launched_by_mpi, Communicator};
use dg_parallel::partition::Partition;
use dg_run::partitioned::{ExchangePick, Pick, SchedulePick};

/// The number of ranks the launcher announces, if any.
fn announced_size() -> Option<usize> {
    ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE"].iter().find_map(|v| std::env::var(v).ok()?.trim().parse().ok())
}

/// The ranks of this run when an MPI launcher started several: MPI initialised (once, for the process) and
/// `Some`; `None` for a plain process or a single rank (which then runs as a plain process).
pub fn join() -> anyhow::Result<Option<Box<dyn Communicator>>> {
    if !launched_by_mpi() {
        return Ok(None);
    }
    #[cfg(feature = "mpi")]
    {
        let comm = dg_parallel::comm::MpiCommunicator::init()
            .ok_or_else(|| anyhow::anyhow!("MPI was initialised twice in this process"))?;
        if comm.size() == 1 {
            return Ok(None);
        }
        Ok(Some(Box::new(comm)))
    }
    #[cfg(not(feature = "mpi"))]
    {
        match announced_size() {
            Some(size) if size > 1 => anyhow::bail!(
                "started by an MPI launcher with {size} ranks, but this dg was built without MPI: build it with \
                 `cargo build --release --features mpi` (needs libopenmpi-dev)"
            ),
            _ => Ok(None),
        }
    }
}

/// Fails when an MPI launcher started several copies of a command that does not split over ranks.
pub fn refuse_several() -> anyhow::Result<()> {
    match announced_size() {
        Some(size) if size > 1 => {
            anyhow::bail!("only `dg run` splits over MPI ranks; run this command in one process, not {size}")
        }
        _ => Ok(()),
    }
}

/// Whether this process is rank 0 of an MPI launch, or not launched by one (read from the launcher's environment,
/// so it holds before MPI is initialised and after a failure).
pub fn is_rank_0() -> bool {
    ["OMPI_COMM_WORLD_RANK", "PMI_RANK"]
        .iter()
        .find_map(|v| std::env::var(v).ok()?.trim().parse::<usize>().ok())
        .unwrap_or(0)
        == 0
}

/// This process's index among the ranks on its node (Open MPI, MPICH and Slurm announce it), if launched so.
fn local_rank() -> Option<usize> {
    ["OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID"]
        .iter()
        .find_map(|v| std::env::var(v).ok()?.trim().parse().ok())
}

/// The device a rank opens for `--device choice`: `cuda`, and `auto` where CUDA devices are found, become
/// `cuda:R` with R = this rank's index on its node mod the node's CUDA devices; anything else as given.
pub fn rank_device(choice: &str) -> String {
    if choice != "cuda" && choice != "auto" {
        return choice.to_string();
    }
    let count = dg_runtime::backend::cuda::enumerate().map_or(0, |list| list.len());
    match (count, local_rank()) {
        (0, _) => choice.to_string(),
        (n, local) => format!("cuda:{}", local.unwrap_or(0) % n),
    }
}

/// The error of a split run's refusal once every rank has printed what it had to say (see [`agree`]): `dg` exits
/// with a failure and prints nothing more.
#[derive(Debug)]
pub struct AlreadyPrinted;

impl std::fmt::Display for AlreadyPrinted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the run was refused (the message is above)")
    }
}

impl std::error::Error for AlreadyPrinted {}

/// Every rank's verdict on its own checks of a split run, which each rank reaches before any other collective
/// step (`local`): where all passed, `local`. Otherwise each rank prints what [`shown`] says (with `--json`,
/// rank 0 its line as JSON on stdout too), waits until every rank has (the launcher ends the job when the first
/// rank exits with a failure), and returns [`AlreadyPrinted`]: a refusal every rank meets alike is printed once.
pub fn agree<T>(comm: &dyn Communicator, json: bool, local: anyhow::Result<T>) -> anyhow::Result<T> {
    let message = local.as_ref().err().map(super::error_line);
    let digest = digest(message.as_deref());
    let (lowest, highest) = (comm.min(digest), dg_parallel::comm::max_over(comm, digest));
    if highest < 0.0 {
        return local;
    }
    if let Some(line) = shown(comm.rank(), message, lowest == highest) {
        super::print_error(&line, json && comm.rank() == 0);
    }
    comm.min(0.0);
    Err(anyhow::Error::new(AlreadyPrinted))
}

/// What rank `rank` prints when some rank refused a split run: its `message` (`None` where it passed) where all
/// refused `alike` and it is rank 0; its message with its rank where they differ; on rank 0, where it passed, that
/// another refused; nothing otherwise.
fn shown(rank: usize, message: Option<String>, alike: bool) -> Option<String> {
    match message {
        Some(m) if alike => (rank == 0).then_some(m),
        Some(m) => Some(format!("rank {rank}: {m}")),
        None => (rank == 0).then(|| "another rank refused the run (its message says why)".to_string()),
    }
}

/// A rank's verdict for [`agree`]: −1 where it passed, else a 32-bit FNV-1a digest of its message (exact in an f64).
fn digest(message: Option<&str>) -> f64 {
    message.map_or(-1.0, |m| {
        f64::from(m.bytes().fold(0x811c_9dc5u32, |h, b| (h ^ u32::from(b)).wrapping_mul(0x0100_0193)))
    })
}

/// Whether `e` is a refusal [`agree`] printed already.
pub fn already_printed(e: &anyhow::Error) -> bool {
    e.downcast_ref::<AlreadyPrinted>().is_some()
}

/// Refuses a device for a run over ranks of a family that splits on the native CPU path only (`what`: "a
/// hexahedral", …).
pub fn refuse_devices(args: &super::run::RunArgs, what: &str) -> anyhow::Result<()> {
    if let Some(device) = args.backend.device.as_deref().filter(|d| *d != "cpu") {
        anyhow::bail!("--device {device}: {what} run over MPI ranks runs on the native CPU path (give --device cpu)");
    }
    if args.schedule.is_some() || args.exchange.is_some() {
        anyhow::bail!(
            "--schedule and --exchange apply to runs on devices (on the native CPU path the halo is exchanged whole)"
        );
    }
    Ok(())
}

/// A rank's device for `--device` (`cuda` and `auto`: GPU local rank mod GPUs per node; `None` for the native CPU
/// path) and the schedule and exchange to pick (`--schedule`, `--exchange`, tuned by default; refused on the CPU).
#[allow(clippy::type_complexity)]
pub fn open_rank_device(
    args: &super::run::RunArgs,
    comm: &dyn Communicator,
) -> anyhow::Result<(Option<Box<dyn dg_runtime::backend::Device>>, (SchedulePick, ExchangePick))> {
    use anyhow::Context;
    let choice = rank_device(args.backend.device.as_deref().unwrap_or("auto"));
    // one device line for the run (rank 0's); the report names every rank's GPU
    dg_commands::devices::set_announced(comm.rank() == 0);
    let device = super::run::pick_device(&choice).with_context(|| format!("rank {}: opening {choice}", comm.rank()))?;
    if device.is_none() && (args.schedule.is_some() || args.exchange.is_some()) {
        anyhow::bail!(
            "--schedule and --exchange apply to runs on devices (on the native CPU path the halo is exchanged whole)"
        );
    }
    Ok((device, (args.schedule.unwrap_or(Pick::Tuned), args.exchange.unwrap_or(Pick::Tuned))))
}

/// Rank 0's progress bar over simulated time (hidden elsewhere and with `--json`).
pub fn rank_bar(args: &super::run::RunArgs, comm: &dyn Communicator, what: String) -> indicatif::ProgressBar {
    if comm.rank() == 0 && !args.json {
        super::run::time_bar(format!("{what} on {} ranks", comm.size()))
    } else {
        indicatif::ProgressBar::hidden()
    }
}

/// A split run's report as JSON with its ranks (`"ranks"`), how the mesh was split (`"partition"`) and, on
/// devices, the device, variant and schedule (`"device"`).
pub fn print_json<R: serde::Serialize>(
    report: &R,
    ranks: &[dg_run::partitioned::RankReport],
    device: Option<&dg_run::partitioned::PartitionedDevice>,
    partition: Option<&Partition>,
) -> anyhow::Result<()> {
    let mut doc = serde_json::to_value(report)?;
    doc["ranks"] = serde_json::to_value(ranks)?;
    if let Some(partition) = partition {
        doc["partition"] = serde_json::to_value(partition)?;
    }
    if let Some(info) = device {
        doc["device"] = serde_json::to_value(info)?;
    }
    println!("{}", serde_json::to_string_pretty(&doc)?);
    Ok(())
}

/// How the mesh was split, each rank's line of a split run, and the pieces `--out` wrote.
pub fn print_ranks(
    ranks: &[dg_run::partitioned::RankReport],
    partition: Option<&Partition>,
    out: Option<&std::path::Path>,
    size: usize,
) {
    if let Some(partition) = partition {
        println!("partition  {partition}");
    }
    for r in ranks {
        println!(
            "rank {:<6} {} elements + {} halo, {} neighbours: {:.3} s computing, {:.3} s exchanging",
            r.rank, r.elements, r.halo_elements, r.neighbours, r.compute_seconds, r.exchange_seconds
        );
    }
    if let Some(out) = out {
        println!("wrote {} ({size} pieces)", out.with_extension("pvtu").display());
    }
}

/// The lines of a device run's variant, schedule, exchange and what was timed to choose them.
pub fn schedule_lines(info: &dg_run::partitioned::PartitionedDevice) -> Vec<String> {
    let mut lines = Vec::new();
    let s = &info.schedule;
    let trials: Vec<String> = s
        .trials
        .iter()
        .map(|t| format!("{} {} {:.3} ms", t.exchange.name(), t.schedule.name(), t.seconds_per_rhs * 1e3))
        .collect();
    let exchanges: Vec<String> =
        s.exchange_seconds.iter().map(|(e, t)| format!("{} {:.3} ms", e.name(), t * 1e3)).collect();
    lines.push(format!("device     {}, variant {} ({})", info.device, info.choice.variant, info.choice.source));
    lines.push(format!(
        "schedule   {} with {} exchange ({}); {} of rank 0's {} elements computed while its traces travel",
        s.chosen.name(),
        s.exchange.name(),
        s.how,
        s.overlapped_elements[0],
        s.overlapped_elements[1]
    ));
    if !trials.is_empty() {
        lines.push(format!("trials     per right-hand side: {}", trials.join(", ")));
    }
    lines.push(format!(
        "alone      exchange {}; right-hand side {:.3} ms, of which the overlapped elements {:.3} ms",
        exchanges.join(", "),
        s.compute_seconds[0] * 1e3,
        s.compute_seconds[1] * 1e3
    ));
    if let Some(why) = &s.no_device_to_device {
        lines.push(format!("no nccl    {why}"));
    }
    lines
}

/// Prints [`schedule_lines`].
pub fn print_schedule(info: &dg_run::partitioned::PartitionedDevice) {
    for line in schedule_lines(info) {
        println!("{line}");
    }
}

#[cfg(test)]
mod tests {
    use super::{agree, already_printed, digest, shown};
    use dg_parallel::comm::Communicator;

    /// One rank of a run whose other ranks' verdicts are `others`: `agree`'s two reductions (the smallest verdict,
    /// then through `max_over` the smallest negated one), then its wait.
    struct Rank {
        rank: usize,
        others: Vec<f64>,
        calls: std::cell::Cell<usize>,
    }

    impl Communicator for Rank {
        fn rank(&self) -> usize {
            self.rank
        }
        fn size(&self) -> usize {
            self.others.len() + 1
        }
        fn sum(&self, _values: &mut [f64]) {
            unreachable!("agree only reduces to the smallest")
        }
        fn min(&self, value: f64) -> f64 {
            let sign = if self.calls.replace(self.calls.get() + 1) == 0 { 1.0 } else { -1.0 };
            self.others.iter().map(|&v| sign * v).fold(value, f64::min)
        }
        fn broadcast(&self, _values: &mut [f64]) {}
        fn gather(&self, _values: &[f64]) -> Vec<f64> {
            Vec::new()
        }
        fn exchange(
            &self,
            _sends: &[(usize, Vec<f64>)],
            _receives: &mut [(usize, Vec<f64>)],
        ) -> Result<(), dg_parallel::ParallelError> {
            Ok(())
        }
    }

    /// Three ranks whose own checks gave `verdicts` (`None`: passed; `Some(m)`: refused with `m`): what each rank
    /// prints (`""` where it passed and the run goes on), and whether `agree` let every rank go on.
    fn printed(verdicts: [Option<&str>; 3]) -> (Vec<Option<String>>, bool) {
        let digests: Vec<f64> = verdicts.iter().map(|v| digest(*v)).collect();
        let alike = digests.iter().all(|&d| d == digests[0]);
        let mut all_go_on = true;
        let shown_by = (0..3)
            .map(|rank| {
                let others: Vec<f64> = (0..3).filter(|&r| r != rank).map(|r| digests[r]).collect();
                let local = match verdicts[rank] {
                    None => Ok(()),
                    Some(m) => Err(anyhow::anyhow!("{m}")),
                };
                let result = agree(&Rank { rank, others, calls: Default::default() }, false, local);
                all_go_on &= result.is_ok();
                assert!(result.as_ref().err().is_none_or(already_printed), "{result:?}");
                match result {
                    Ok(()) => Some(String::new()),
                    Err(_) => shown(rank, verdicts[rank].map(str::to_string), alike),
                }
            })
            .collect();
        (shown_by, all_go_on)
    }

    #[test]
    fn a_refusal_every_rank_meets_is_printed_once() {
        let passed = Some(String::new());
        assert_eq!(printed([None, None, None]), (vec![passed.clone(), passed.clone(), passed], true));
        let same = "--png applies to Euler cases";
        assert_eq!(printed([Some(same); 3]), (vec![Some(same.to_string()), None, None], false));
        // one rank refuses: it says so with its rank, rank 0 says another refused, the third stays quiet
        let (got, go_on) = printed([None, Some("no such mesh file"), None]);
        assert!(!go_on);
        assert_eq!(got[1].as_deref(), Some("rank 1: no such mesh file"));
        assert!(got[0].as_deref().is_some_and(|m| m.contains("another rank refused")), "{got:?}");
        assert_eq!(got[2], None);
        // refusals that differ are each printed with their rank
        let (got, _) = printed([Some("a"), Some("b"), Some("a")]);
        assert_eq!(got, [Some("rank 0: a".to_string()), Some("rank 1: b".to_string()), Some("rank 2: a".to_string())]);
    }
}
