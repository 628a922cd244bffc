//! The ranks of a run and what they do together: reductions, a broadcast, a gather, a halo exchange.

use crate::ParallelError;

/// The processes of a run. [`Solo`] is one process; `MpiCommunicator` (feature `mpi`) the ranks of an MPI job.
/// Every rank calls every method in the same order (they are collective).
pub trait Communicator {
    /// This process's rank, 0..size.
    fn rank(&self) -> usize;
    /// Number of ranks.
    fn size(&self) -> usize;
    /// Element-wise sum over the ranks, in place (every rank gets the sums).
    fn sum(&self, values: &mut [f64]);
    /// The smallest `value` of all ranks (a NaN anywhere gives NaN).
    fn min(&self, value: f64) -> f64;
    /// Rank 0's `values` on every rank.
    fn broadcast(&self, values: &mut [f64]);
    /// Every rank's `values` (all of the same length), concatenated by rank, on rank 0; empty elsewhere.
    fn gather(&self, values: &[f64]) -> Vec<f64>;
    /// Sends each `(rank, values)` of `sends` and fills each `(rank, buffer)` of `receives` with what that rank
    /// sends here; returns when all have arrived. A buffer's length is the size expected.
    fn exchange(&self, sends: &[(usize, Vec<f64>)], receives: &mut [(usize, Vec<f64>)]) -> Result<(), ParallelError>;
}

/// The largest `value` of all ranks (a NaN anywhere gives NaN).
pub fn max_over<C: Communicator + ?Sized>(comm: &C, value: f64) -> f64 {
    -comm.min(-value)
}

/// Rank 0's `text` on every rank (the others' is ignored); `None` if rank 0 has none.
pub fn broadcast_text<C: Communicator + ?Sized>(comm: &C, text: Option<&str>) -> Option<String> {
    let bytes = text.map(str::as_bytes).unwrap_or_default();
    // first the length (−1: none), then the bytes, one per value
    let mut length = [text.map_or(-1.0, |_| bytes.len() as f64)];
    comm.broadcast(&mut length);
    if length[0] < 0.0 {
        return None;
    }
    let mut values: Vec<f64> = (0..length[0] as usize).map(|i| bytes.get(i).map_or(0.0, |&b| f64::from(b))).collect();
    comm.broadcast(&mut values);
    Some(String::from_utf8_lossy(&values.iter().map(|&v| v as u8).collect::<Vec<u8>>()).into_owned())
}

/// One process: rank 0 of 1.
#[derive(Debug, Default, Clone, Copy)]
pub struct Solo;

impl Communicator for Solo {
    fn rank(&self) -> usize {
        0
    }
    fn size(&self) -> usize {
        1
    }
    fn sum(&self, _values: &mut [f64]) {}
    fn min(&self, value: f64) -> f64 {
        value
    }
    fn broadcast(&self, _values: &mut [f64]) {}
    fn gather(&self, values: &[f64]) -> Vec<f64> {
        values.to_vec()
    }
    fn exchange(&self, sends: &[(usize, Vec<f64>)], receives: &mut [(usize, Vec<f64>)]) -> Result<(), ParallelError> {
        match (sends.first(), receives.first()) {
            (None, None) => Ok(()),
            (Some((rank, v)), _) | (None, Some((rank, v))) => {
                Err(ParallelError::MessageSize { rank: *rank, got: v.len(), expected: 0 })
            }
        }
    }
}

/// Whether this process was started by an MPI launcher (`mpirun`, `srun`): Open MPI's, PMI's or PMIx's variables.
pub fn launched_by_mpi() -> bool {
    ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"].iter().any(|v| std::env::var_os(v).is_some())
}

#[cfg(feature = "mpi")]
pub use with_mpi::MpiCommunicator;

#[cfg(feature = "mpi")]
mod with_mpi {
    use super::Communicator as Ranks;
    use crate::ParallelError;
    use mpi::collective::SystemOperation;
    use mpi::traits::*;

    /// The ranks of an MPI job (`MPI_COMM_WORLD`), through rsmpi. MPI is finalised when this is dropped.
    pub struct MpiCommunicator {
        world: mpi::topology::SimpleCommunicator,
        _universe: mpi::environment::Universe,
    }

    impl MpiCommunicator {
        /// Initialises MPI (once per process); `None` if it was initialised before.
        pub fn init() -> Option<Self> {
            let universe = mpi::initialize()?;
            let world = universe.world();
            Some(Self { world, _universe: universe })
        }
    }

    impl Ranks for MpiCommunicator {
        fn rank(&self) -> usize {
            self.world.rank() as usize
        }
        fn size(&self) -> usize {
            self.world.size() as usize
        }
        fn sum(&self, values: &mut [f64]) {
            let local = values.to_vec();
            self.world.all_reduce_into(&local[..], values, SystemOperation::sum());
        }
        fn min(&self, value: f64) -> f64 {
            // MPI's min drops NaN on some implementations: count them apart
            let mut out = [0.0, 0.0];
            let local = [if value.is_nan() { f64::INFINITY } else { value }, f64::from(u8::from(value.is_nan()))];
            self.world.all_reduce_into(&local[..1], &mut out[..1], SystemOperation::min());
            self.world.all_reduce_into(&local[1..], &mut out[1..], SystemOperation::sum());
            if out[1] > 0.0 {
                f64::NAN
            } else {
                out[0]
            }
        }
        fn broadcast(&self, values: &mut [f64]) {
            self.world.process_at_rank(0).broadcast_into(values);
        }
        fn gather(&self, values: &[f64]) -> Vec<f64> {
            let root = self.world.process_at_rank(0);
            if self.rank() == 0 {
                let mut all = vec![0.0; values.len() * self.size()];
                root.gather_into_root(values, &mut all[..]);
                all
            } else {
                root.gather_into(values);
                Vec::new()
            }
        }
        fn exchange(
            &self,
            sends: &[(usize, Vec<f64>)],
            receives: &mut [(usize, Vec<f64>)],
        ) -> Result<(), ParallelError> {
            mpi::request::scope(|scope| {
                let mut pending = Vec::with_capacity(sends.len() + receives.len());
                for (rank, buffer) in receives.iter_mut() {
                    let from = self.world.process_at_rank(*rank as i32);
                    pending.push(from.immediate_receive_into(scope, &mut buffer[..]));
                }
                for (rank, values) in sends {
                    let to = self.world.process_at_rank(*rank as i32);
                    pending.push(to.immediate_send(scope, &values[..]));
                }
                for request in pending {
                    request.wait();
                }
            });
            Ok(())
        }
    }
}
