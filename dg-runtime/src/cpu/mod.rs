//! The native CPU backend.

mod boundary;
mod operator;

pub use boundary::{BoundaryBinding, BoundaryError};
pub use operator::NodalOperator2d;

/// Number of worker threads the CPU backend uses (rayon's pool; set `RAYON_NUM_THREADS` to change it).
pub fn thread_count() -> usize {
    rayon::current_num_threads()
}
