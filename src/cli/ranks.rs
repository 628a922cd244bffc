//! MPI ranks: under `mpirun -n P`, `dg run` splits a run over the P processes (`dg::partitioned`); every other
//! command refuses to run P times over.

use dg::dg_parallel::comm::{launched_by_mpi, Communicator};

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
        let comm = dg::dg_parallel::comm::MpiCommunicator::init()
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
