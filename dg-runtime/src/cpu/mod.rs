//! The native CPU backend.

pub use boundary::{BoundaryBinding, BoundaryError};
pub use modal::{GhostRule, LimiterError, ModalDeviceData, ModalOperator2d, PrescribedState};
pub use operator::NodalOperator2d;
pub use operator3d::NodalOperator3d;

/// `OdeSystem` for a CPU operator type `$ty<L, T>` with `apply(&self, q, t, out)`: the state is a `Vec<T>`,
/// and the update is [`linear_combination`]; with `limit = method`, `self.method(q)` limits every stage.
macro_rules! cpu_ode_system {
    ($ty:ident) => {
        super::cpu_ode_system!($ty, limit = no_limit);
        impl<L: ConservationLaw, T: Real> $ty<L, T> {
            fn no_limit(&self, _q: &mut [T]) {}
        }
    };
    ($ty:ident, limit = $limit:ident) => {
        impl<L: ConservationLaw, T: Real> crate::time::OdeSystem for $ty<L, T> {
            type State = Vec<T>;
            type Error = std::convert::Infallible;

            fn rhs(&mut self, t: f64, q: &Vec<T>, out: &mut Vec<T>) -> Result<(), Self::Error> {
                self.apply(q, t, out);
                Ok(())
            }

            fn zeros_like(&mut self, like: &Vec<T>) -> Result<Vec<T>, Self::Error> {
                Ok(vec![T::zero(); like.len()])
            }

            fn update(&mut self, y: &mut Vec<T>, a: f64, terms: &[(f64, &Vec<T>)]) -> Result<(), Self::Error> {
                super::linear_combination(y, a, terms);
                Ok(())
            }

            fn limit(&mut self, q: &mut Vec<T>) -> Result<(), Self::Error> {
                self.$limit(q);
                Ok(())
            }
        }
    };
}
pub(crate) use cpu_ode_system;

mod boundary;
mod modal;
mod operator;
mod operator3d;

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
