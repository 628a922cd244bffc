//! Domain decomposition for dg's time-dependent formulations.
//!
//! A mesh is split into one part per rank ([`partition`]: METIS k-way on the element graph, periodic faces
//! included, or a structured box into blocks, [`blocks`]); each rank keeps its own elements and, behind them, the *halo*: the other ranks' elements that share
//! a face with its own ([`halo::HaloPlan`]). Before every right-hand side the halo elements' states are exchanged
//! ([`exchange::HaloExchanged`], over a [`comm::Communicator`]: one process, or MPI ranks with the `mpi`
//! feature), so each rank's own elements see exactly the neighbours the whole mesh gives them and a run on P ranks
//! computes what one process computes, to round-off in the reductions (norms, energies).
//!
//! [`tri`] builds a rank's part of a triangle mesh as a [`dg_core::space::DgSpace2d`] whose face connectivity is
//! the whole mesh's: own elements first (the interior, then those next to other ranks), then the halo, whose faces
//! to elements outside the part are linked to themselves.
//!
//! On devices ([`device`]) only the traces travel ([`trace::TracePlan`]: the nodes of the faces two ranks share),
//! host-staged or device to device over NCCL, in the synchronous or the asynchronous schedule (the interior's
//! right-hand side while the traces travel); the formulation computes its own elements over element ranges.

pub mod blocks;
pub mod comm;
pub mod device;
pub mod exchange;
pub mod halo;
pub mod hex;
pub mod partition;
pub mod tet;
pub mod trace;
pub mod tri;

/// What can go wrong decomposing a mesh or exchanging between ranks.
#[derive(Debug, thiserror::Error)]
pub enum ParallelError {
    /// More parts asked than the mesh has elements, or none.
    #[error("cannot split {elements} elements into {parts} parts (every rank needs at least one element)")]
    TooManyParts {
        /// Elements of the mesh.
        elements: usize,
        /// Parts asked.
        parts: usize,
    },
    /// Blocks were asked of a mesh they do not split.
    #[error("--partition blocks: {0}")]
    NoBlocks(String),
    /// The graph partitioner failed or left a part empty.
    #[error("the graph partitioner failed: {0}")]
    Partitioner(String),
    /// The mesh's part could not be built.
    #[error("cannot build this rank's part of the mesh: {0}")]
    Space(#[from] dg_core::space::SpaceError),
    /// A device call of the halo exchange or the right-hand side failed.
    #[error("device: {0}")]
    Device(String),
    /// A message between ranks did not have the size the halo plan gives.
    #[error("rank {rank} sent {got} values where the halo plan expects {expected}")]
    MessageSize {
        /// The sending rank.
        rank: usize,
        /// Values received.
        got: usize,
        /// Values expected.
        expected: usize,
    },
}

impl From<dg_runtime::backend::BackendError> for ParallelError {
    fn from(e: dg_runtime::backend::BackendError) -> Self {
        ParallelError::Device(e.to_string())
    }
}

impl From<std::convert::Infallible> for ParallelError {
    fn from(never: std::convert::Infallible) -> Self {
        match never {}
    }
}
