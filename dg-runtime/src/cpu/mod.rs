//! The native CPU backend.

mod boundary;
mod modal;
mod operator;

pub use boundary::{BoundaryBinding, BoundaryError};
pub use modal::ModalOperator2d;
pub use operator::NodalOperator2d;

/// Number of worker threads the CPU backend uses (rayon's pool; set `RAYON_NUM_THREADS` to change it).
pub fn thread_count() -> usize {
    rayon::current_num_threads()
}
