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
