//! The native CPU backend.

mod boundary;
mod modal;
mod operator;

pub use boundary::{BoundaryBinding, BoundaryError};
pub use modal::ModalOperator2d;
pub use operator::NodalOperator2d;

/// y ← a·y + Σ cᵢ·xᵢ, in parallel (y is not read when a = 0): the one vector update the time integrators need.
pub(crate) fn linear_combination<T: dg_core::Real>(y: &mut [T], a: f64, terms: &[(f64, &Vec<T>)]) {
    use rayon::prelude::*;
    let a = T::from_f64(a);
    let coeffs: Vec<(T, &Vec<T>)> = terms.iter().map(|&(c, x)| (T::from_f64(c), x)).collect();
    y.par_chunks_mut(4096).enumerate().for_each(|(c, chunk)| {
        let base = c * 4096;
        for (i, yi) in chunk.iter_mut().enumerate() {
            let mut acc = if a == T::zero() { T::zero() } else { a * *yi };
            for (c, x) in &coeffs {
                acc += *c * x[base + i];
            }
            *yi = acc;
        }
    });
}

/// Number of worker threads the CPU backend uses (rayon's pool; set `RAYON_NUM_THREADS` to change it).
pub fn thread_count() -> usize {
    rayon::current_num_threads()
}
