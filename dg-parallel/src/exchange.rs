//! A right-hand side whose halo is refreshed from the neighbouring ranks before every evaluation.

use crate::comm::Communicator;
use crate::halo::HaloPlan;
use crate::ParallelError;
use dg_core::Real;
use dg_runtime::time::OdeSystem;
use std::time::Instant;

/// Seconds one rank spent computing and exchanging.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize)]
pub struct RankTimes {
    /// In the local right-hand sides and updates.
    pub compute_seconds: f64,
    /// Packing, sending, waiting for and unpacking halo states (the synchronous schedule: nothing overlaps).
    pub exchange_seconds: f64,
    /// Halo exchanges.
    pub exchanges: u64,
    /// Values (f64) sent.
    pub values_sent: u64,
}

/// Wraps a rank's [`OdeSystem`] on its own elements and halo (element-major states, `block` values per element):
/// before each right-hand side the halo elements' values are replaced by their owners' (the synchronous schedule:
/// pack, exchange, then the whole right-hand side). The halo's own right-hand side is computed and never used.
pub struct HaloExchanged<'c, S, C: Communicator + ?Sized> {
    inner: S,
    comm: &'c C,
    plan: &'c HaloPlan,
    block: usize,
    sends: Vec<(usize, Vec<f64>)>,
    receives: Vec<(usize, Vec<f64>)>,
    refresh_before_limit: bool,
    /// What this rank spent.
    pub times: RankTimes,
}

impl<'c, S, C: Communicator + ?Sized> HaloExchanged<'c, S, C> {
    /// `inner` over the local elements of `plan` (own, then halo), `block` values per element.
    pub fn new(inner: S, comm: &'c C, plan: &'c HaloPlan, block: usize) -> Self {
        let sends = plan.sends.iter().map(|(r, list)| (*r, vec![0.0; list.len() * block])).collect();
        let receives = plan.receives.iter().map(|(r, list)| (*r, vec![0.0; list.len() * block])).collect();
        Self { inner, comm, plan, block, sends, receives, refresh_before_limit: false, times: RankTimes::default() }
    }

    /// Also refreshes the halo before every [`OdeSystem::limit`]: for a limiter that reads the neighbours' values
    /// (a slope limiter bounds an element by its neighbours' means). Without it the wrapped system's limiter runs
    /// on the halo as the last right-hand side left it, which is right only for limiters that read the element
    /// alone.
    pub fn refreshing_before_limit(mut self) -> Self {
        self.refresh_before_limit = true;
        self
    }

    /// The wrapped system.
    pub fn inner(&self) -> &S {
        &self.inner
    }

    /// Overwrites the halo elements of `q` with their owners' values.
    pub fn refresh_halo<T: Real>(&mut self, q: &mut [T]) -> Result<(), ParallelError> {
        let started = Instant::now();
        let b = self.block;
        for ((_, list), (_, buffer)) in self.plan.sends.iter().zip(&mut self.sends) {
            for (chunk, &l) in buffer.chunks_exact_mut(b).zip(list) {
                for (slot, v) in chunk.iter_mut().zip(&q[l * b..(l + 1) * b]) {
                    *slot = v.as_f64();
                }
            }
            self.times.values_sent += buffer.len() as u64;
        }
        self.comm.exchange(&self.sends, &mut self.receives)?;
        for ((_, list), (_, buffer)) in self.plan.receives.iter().zip(&self.receives) {
            for (chunk, &l) in buffer.chunks_exact(b).zip(list) {
                for (slot, &v) in q[l * b..(l + 1) * b].iter_mut().zip(chunk) {
                    *slot = T::from_f64(v);
                }
            }
        }
        self.times.exchanges += 1;
        self.times.exchange_seconds += started.elapsed().as_secs_f64();
        Ok(())
    }
}

impl<S, C, T> OdeSystem for HaloExchanged<'_, S, C>
where
    S: OdeSystem<State = Vec<T>>,
    ParallelError: From<S::Error>,
    C: Communicator + ?Sized,
    T: Real,
{
    type State = Vec<T>;
    type Error = ParallelError;

    fn rhs(&mut self, t: f64, q: &Vec<T>, out: &mut Vec<T>) -> Result<(), ParallelError> {
        let mut with_halo = q.clone();
        self.refresh_halo(&mut with_halo)?;
        let started = Instant::now();
        let result = self.inner.rhs(t, &with_halo, out);
        self.times.compute_seconds += started.elapsed().as_secs_f64();
        Ok(result?)
    }
    fn zeros_like(&mut self, like: &Vec<T>) -> Result<Vec<T>, ParallelError> {
        Ok(self.inner.zeros_like(like)?)
    }
    fn update(&mut self, y: &mut Vec<T>, a: f64, terms: &[(f64, &Vec<T>)]) -> Result<(), ParallelError> {
        let started = Instant::now();
        let result = self.inner.update(y, a, terms);
        self.times.compute_seconds += started.elapsed().as_secs_f64();
        Ok(result?)
    }
    fn limit(&mut self, q: &mut Vec<T>) -> Result<(), ParallelError> {
        if self.refresh_before_limit {
            self.refresh_halo(q)?;
        }
        let started = Instant::now();
        let result = self.inner.limit(q);
        self.times.compute_seconds += started.elapsed().as_secs_f64();
        Ok(result?)
    }
}
