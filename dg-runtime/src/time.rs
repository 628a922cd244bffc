//! Explicit time integrators over an abstract state.
//!
//! A backend implements [`OdeSystem`]: the right-hand side and one linear-combination update. The schemes
//! here never look inside a state, so the same code steps CPU vectors and device buffers.

/// A semi-discrete system dq/dt = L(t, q) and the vector operations the integrators need.
pub trait OdeSystem {
    /// The state (a CPU vector, a device buffer, …).
    type State;
    /// What can go wrong (a kernel launch, say).
    type Error;

    /// Writes L(t, q) into `out`.
    fn rhs(&mut self, t: f64, q: &Self::State, out: &mut Self::State) -> Result<(), Self::Error>;
    /// A new state of the same shape as `like`, zero-filled.
    fn zeros_like(&mut self, like: &Self::State) -> Result<Self::State, Self::Error>;
    /// y ← a·y + Σ cᵢ·xᵢ.
    fn update(&mut self, y: &mut Self::State, a: f64, terms: &[(f64, &Self::State)]) -> Result<(), Self::Error>;
    /// Post-processes a state the scheme is about to differentiate or return (a slope limiter); applied to every
    /// Runge–Kutta stage state and to the new time level. Nothing by default.
    fn limit(&mut self, q: &mut Self::State) -> Result<(), Self::Error> {
        let _ = q;
        Ok(())
    }
    /// One Runge–Kutta stage: k ← L(t, q), then y ← a·y + c·k + Σ cᵢ·xᵢ. `y` is neither `q` nor `k` (the caller
    /// double-buffers), and a term may be `q`. With `keep_k` false the caller never reads `k` afterwards, so a
    /// backend that folds the update into the right-hand side's last kernel need not store it. By default: the
    /// right-hand side, then one update.
    #[allow(clippy::too_many_arguments)]
    fn rhs_update(
        &mut self,
        t: f64,
        q: &Self::State,
        k: &mut Self::State,
        keep_k: bool,
        y: &mut Self::State,
        (a, c): (f64, f64),
        terms: &[(f64, &Self::State)],
    ) -> Result<(), Self::Error> {
        let _ = keep_k;
        rhs_then_update(self, t, q, k, y, (a, c), terms)
    }
    /// Whether [`OdeSystem::low_storage_stage`] folds the stage into the right-hand side's last kernel (the
    /// integrator then keeps one more scratch state for it). False by default.
    fn folds_low_storage(&self) -> bool {
        false
    }
    /// One stage of a two-register low-storage scheme: r ← a·r + c·L(t, q), then q ← q + b·r. A system that
    /// folds it ([`OdeSystem::folds_low_storage`]) writes the new state into `spare` while its kernels still read
    /// `q`, and swaps the two handles (`q` then names the other buffer; `k` is not written). By default: the
    /// right-hand side into `k`, then the two updates in place.
    #[allow(clippy::too_many_arguments)]
    fn low_storage_stage(
        &mut self,
        t: f64,
        q: &mut Self::State,
        k: &mut Self::State,
        r: &mut Self::State,
        spare: &mut Self::State,
        (a, c, b): (f64, f64, f64),
    ) -> Result<(), Self::Error> {
        let _ = spare;
        low_storage_unfolded(self, t, q, k, r, (a, c, b))
    }
}

/// [`OdeSystem::rhs_update`] unfused: k ← L(t, q), then y ← a·y + c·k + Σ cᵢ·xᵢ as one update. The default, and
/// the fallback of a system that folds the update only where it can.
pub fn rhs_then_update<S: OdeSystem + ?Sized>(
    sys: &mut S,
    t: f64,
    q: &S::State,
    k: &mut S::State,
    y: &mut S::State,
    (a, c): (f64, f64),
    terms: &[(f64, &S::State)],
) -> Result<(), S::Error> {
    sys.rhs(t, q, k)?;
    let k: &S::State = k;
    let mut all = Vec::with_capacity(terms.len() + 1);
    all.push((c, k));
    all.extend_from_slice(terms);
    sys.update(y, a, &all)
}

/// [`OdeSystem::low_storage_stage`] unfolded: k ← L(t, q), r ← a·r + c·k, q ← q + b·r. The default, and the
/// fallback of a system that folds the stage only where it can.
pub fn low_storage_unfolded<S: OdeSystem + ?Sized>(
    sys: &mut S,
    t: f64,
    q: &mut S::State,
    k: &mut S::State,
    r: &mut S::State,
    (a, c, b): (f64, f64, f64),
) -> Result<(), S::Error> {
    sys.rhs(t, q, k)?;
    sys.update(r, a, &[(c, k)])?;
    sys.update(q, 1.0, &[(b, r)])
}

/// A system borrowed mutably is a system: a run can step an operator it keeps using afterwards.
impl<S: OdeSystem + ?Sized> OdeSystem for &mut S {
    type State = S::State;
    type Error = S::Error;

    fn rhs(&mut self, t: f64, q: &Self::State, out: &mut Self::State) -> Result<(), Self::Error> {
        (**self).rhs(t, q, out)
    }
    fn zeros_like(&mut self, like: &Self::State) -> Result<Self::State, Self::Error> {
        (**self).zeros_like(like)
    }
    fn update(&mut self, y: &mut Self::State, a: f64, terms: &[(f64, &Self::State)]) -> Result<(), Self::Error> {
        (**self).update(y, a, terms)
    }
    fn limit(&mut self, q: &mut Self::State) -> Result<(), Self::Error> {
        (**self).limit(q)
    }
    fn rhs_update(
        &mut self,
        t: f64,
        q: &Self::State,
        k: &mut Self::State,
        keep_k: bool,
        y: &mut Self::State,
        coefficients: (f64, f64),
        terms: &[(f64, &Self::State)],
    ) -> Result<(), Self::Error> {
        (**self).rhs_update(t, q, k, keep_k, y, coefficients, terms)
    }
    fn folds_low_storage(&self) -> bool {
        (**self).folds_low_storage()
    }
    fn low_storage_stage(
        &mut self,
        t: f64,
        q: &mut Self::State,
        k: &mut Self::State,
        r: &mut Self::State,
        spare: &mut Self::State,
        coefficients: (f64, f64, f64),
    ) -> Result<(), Self::Error> {
        (**self).low_storage_stage(t, q, k, r, spare, coefficients)
    }
}

/// The available schemes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scheme {
    /// Carpenter–Kennedy low-storage RK, 4th order, 5 stages, 2 registers.
    Lsrk45,
    /// Shu–Osher strong-stability-preserving RK, 3rd order, 3 stages.
    SspRk3,
    /// Classical 4th-order RK.
    Rk4,
    /// 3rd-order Adams–Bashforth (started with two classical RK4 steps); needs a constant step.
    Ab3,
    /// Explicit midpoint rule, 2nd order, 2 stages (seed 001's RK2).
    Rk2,
}

impl Scheme {
    /// All schemes.
    pub const ALL: [Scheme; 5] = [Scheme::Lsrk45, Scheme::SspRk3, Scheme::Rk4, Scheme::Ab3, Scheme::Rk2];

    /// Formal order of accuracy.
    pub fn order(self) -> usize {
        match self {
            Scheme::Lsrk45 | Scheme::Rk4 => 4,
            Scheme::SspRk3 | Scheme::Ab3 => 3,
            Scheme::Rk2 => 2,
        }
    }

    /// Right-hand-side evaluations per step (after start-up for AB3).
    pub fn rhs_per_step(self) -> usize {
        match self {
            Scheme::Lsrk45 => 5,
            Scheme::SspRk3 => 3,
            Scheme::Rk4 => 4,
            Scheme::Ab3 => 1,
            Scheme::Rk2 => 2,
        }
    }

    /// Name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Scheme::Lsrk45 => "lsrk45",
            Scheme::SspRk3 => "ssprk3",
            Scheme::Rk4 => "rk4",
            Scheme::Ab3 => "ab3",
            Scheme::Rk2 => "rk2",
        }
    }

    /// Parses a command-line name.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.name() == name)
    }

    /// Largest stable |λ·dt| on the imaginary axis relative to LSRK45, for scaling the step: the CFL number
    /// of the case is given for LSRK45.
    pub fn relative_stability(self) -> f64 {
        match self {
            Scheme::Lsrk45 => 1.0,
            // imaginary-axis limits: LSRK45 ≈ 3.34, RK4 ≈ 2.83, SSP-RK3 ≈ 1.73, AB3 ≈ 0.72
            Scheme::Rk4 => 2.83 / 3.34,
            Scheme::SspRk3 => 1.73 / 3.34,
            Scheme::Ab3 => 0.72 / 3.34,
            // the midpoint rule is unstable on the imaginary axis; with upwind dissipation its DG limit is about
            // a third of RK4's (seed 001 uses CFL 0.7 with RK2 vs 0.5 with RK4 on a 1/(2p+1) scale)
            Scheme::Rk2 => 1.0 / 3.34,
        }
    }
}

const LSRK_A: [f64; 5] = [
    0.0,
    -567_301_805_773.0 / 1_357_537_059_087.0,
    -2_404_267_990_393.0 / 2_016_746_695_238.0,
    -3_550_918_686_646.0 / 2_091_501_179_385.0,
    -1_275_806_237_668.0 / 842_570_457_699.0,
];
const LSRK_B: [f64; 5] = [
    1_432_997_174_477.0 / 9_575_080_441_755.0,
    5_161_836_677_717.0 / 13_612_068_292_357.0,
    1_720_146_321_549.0 / 2_090_206_949_498.0,
    3_134_564_353_537.0 / 4_481_467_310_338.0,
    2_277_821_191_437.0 / 14_882_151_754_819.0,
];
const LSRK_C: [f64; 5] = [
    0.0,
    1_432_997_174_477.0 / 9_575_080_441_755.0,
    2_526_269_341_429.0 / 6_820_363_962_896.0,
    2_006_345_519_317.0 / 3_224_310_063_776.0,
    2_802_321_613_138.0 / 2_924_317_926_251.0,
];

/// What an [`Integrator`] carries from step to step besides its scratch: saved in checkpoints.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct IntegratorState {
    /// The scheme's name.
    pub scheme: String,
    /// AB3: how many stored right-hand sides are valid (the history arrays of a snapshot, newest first).
    pub valid: usize,
    /// AB3: the step of the stored right-hand sides.
    pub last_dt: Option<f64>,
    /// Right-hand-side evaluations so far.
    pub rhs_evaluations: u64,
}

/// Steps a system with one scheme, owning the scratch states it needs.
pub struct Integrator<S: OdeSystem> {
    scheme: Scheme,
    scratch: Vec<S::State>,
    /// AB3: slots of f_n, f_{n−1}, f_{n−2} in `scratch`, newest first, and how many are valid.
    history: [usize; 3],
    valid: usize,
    last_dt: Option<f64>,
    rhs_evaluations: u64,
}

impl<S: OdeSystem> Integrator<S> {
    /// A new integrator; scratch states are allocated at the first step.
    pub fn new(scheme: Scheme) -> Self {
        Self { scheme, scratch: Vec::new(), history: [0, 1, 2], valid: 0, last_dt: None, rhs_evaluations: 0 }
    }

    /// The scheme.
    pub fn scheme(&self) -> Scheme {
        self.scheme
    }

    /// Right-hand-side evaluations so far.
    pub fn rhs_evaluations(&self) -> u64 {
        self.rhs_evaluations
    }

    /// The integrator's state and, for AB3, its stored right-hand sides, newest first.
    pub fn saved(&self) -> (IntegratorState, Vec<&S::State>) {
        let valid = if self.scheme == Scheme::Ab3 { self.valid } else { 0 };
        let state = IntegratorState {
            scheme: self.scheme.name().to_string(),
            valid,
            last_dt: self.last_dt,
            rhs_evaluations: self.rhs_evaluations,
        };
        (state, self.history[..valid].iter().map(|&slot| &self.scratch[slot]).collect())
    }

    /// Takes over `state` (from [`Integrator::saved`]) and returns the slots of its stored right-hand sides,
    /// newest first, for the caller to fill; scratch is allocated like `q`. `Err(reason)` when `state` is not one
    /// of this scheme's.
    pub fn restore_slots(
        &mut self,
        sys: &mut S,
        q: &S::State,
        state: &IntegratorState,
    ) -> Result<Result<Vec<&mut S::State>, String>, S::Error> {
        if state.scheme != self.scheme.name() || state.valid > 3 || (self.scheme != Scheme::Ab3 && state.valid > 0) {
            return Ok(Err(format!(
                "the saved integrator ({}, {} stored right-hand sides) is not this run's {}",
                state.scheme,
                state.valid,
                self.scheme.name()
            )));
        }
        if self.scheme == Scheme::Ab3 {
            self.ensure_scratch(sys, q, 3 + RK4_SCRATCH - 1)?;
        }
        (self.history, self.valid, self.last_dt) = ([0, 1, 2], state.valid, state.last_dt);
        self.rhs_evaluations = state.rhs_evaluations;
        Ok(Ok(self.scratch[..state.valid].iter_mut().collect()))
    }

    fn ensure_scratch(&mut self, sys: &mut S, q: &S::State, count: usize) -> Result<(), S::Error> {
        while self.scratch.len() < count {
            self.scratch.push(sys.zeros_like(q)?);
        }
        Ok(())
    }

    /// Advances `q` from time `t` to `t + dt`.
    pub fn step(&mut self, sys: &mut S, t: f64, dt: f64, q: &mut S::State) -> Result<(), S::Error> {
        match self.scheme {
            Scheme::Lsrk45 => self.lsrk45(sys, t, dt, q),
            Scheme::SspRk3 => self.ssprk3(sys, t, dt, q),
            Scheme::Rk4 => {
                self.ensure_scratch(sys, q, RK4_SCRATCH)?;
                let [k1, k2, k3, k4, stage, stage2] = &mut self.scratch[..RK4_SCRATCH] else {
                    unreachable!("six scratch states")
                };
                sys.rhs_update(t, q, k1, true, stage, (0.0, 0.5 * dt), &[(1.0, q)])?;
                self.rhs_evaluations += 1;
                rk4_after_k1(sys, t, dt, q, k1, Rk4Scratch { k2, k3, k4, stage, stage2 }, &mut self.rhs_evaluations)
            }
            Scheme::Ab3 => self.ab3(sys, t, dt, q),
            Scheme::Rk2 => self.rk2(sys, t, dt, q),
        }
    }

    fn rk2(&mut self, sys: &mut S, t: f64, dt: f64, q: &mut S::State) -> Result<(), S::Error> {
        self.ensure_scratch(sys, q, 2)?;
        let [stage, k] = &mut self.scratch[..2] else { unreachable!("two scratch states") };
        sys.rhs_update(t, q, k, false, stage, (0.0, 0.5 * dt), &[(1.0, q)])?;
        sys.limit(stage)?;
        sys.rhs_update(t + 0.5 * dt, stage, k, false, q, (1.0, dt), &[])?;
        self.rhs_evaluations += 2;
        sys.limit(q)
    }

    fn lsrk45(&mut self, sys: &mut S, t: f64, dt: f64, q: &mut S::State) -> Result<(), S::Error> {
        self.ensure_scratch(sys, q, if sys.folds_low_storage() { 3 } else { 2 })?;
        let (res, rest) = self.scratch.split_at_mut(1);
        let (res, (k, spare)) = (&mut res[0], rest.split_at_mut(1));
        let (k, mut spare) = (&mut k[0], spare.first_mut());
        for stage in 0..5 {
            let (tc, coefficients) = (t + LSRK_C[stage] * dt, (LSRK_A[stage], dt, LSRK_B[stage]));
            match spare.as_deref_mut() {
                Some(spare) if sys.folds_low_storage() => sys.low_storage_stage(tc, q, k, res, spare, coefficients)?,
                _ => {
                    sys.rhs(tc, q, k)?;
                    sys.update(res, LSRK_A[stage], &[(dt, k)])?;
                    sys.update(q, 1.0, &[(LSRK_B[stage], res)])?;
                }
            }
            self.rhs_evaluations += 1;
            sys.limit(q)?;
        }
        Ok(())
    }

    fn ssprk3(&mut self, sys: &mut S, t: f64, dt: f64, q: &mut S::State) -> Result<(), S::Error> {
        self.ensure_scratch(sys, q, 3)?;
        let [u1, u2, k] = &mut self.scratch[..3] else { unreachable!("three scratch states") };
        sys.rhs_update(t, q, k, false, u1, (0.0, dt), &[(1.0, q)])?;
        sys.limit(u1)?;
        sys.rhs_update(t + dt, u1, k, false, u2, (0.0, 0.25 * dt), &[(0.75, q), (0.25, u1)])?;
        sys.limit(u2)?;
        sys.rhs_update(t + 0.5 * dt, u2, k, false, q, (1.0 / 3.0, 2.0 / 3.0 * dt), &[(2.0 / 3.0, u2)])?;
        self.rhs_evaluations += 3;
        sys.limit(q)
    }

    fn ab3(&mut self, sys: &mut S, t: f64, dt: f64, q: &mut S::State) -> Result<(), S::Error> {
        self.ensure_scratch(sys, q, 3 + RK4_SCRATCH - 1)?;
        if self.last_dt.is_some_and(|d| (d - dt).abs() > 1e-14 * dt.abs()) {
            self.valid = 0; // a new step size invalidates the history: restart
        }
        self.last_dt = Some(dt);
        self.history = [self.history[2], self.history[0], self.history[1]];
        let [h0, h1, h2] = self.history;
        let (hist, work) = self.scratch.split_at_mut(3);
        self.valid = (self.valid + 1).min(3);
        if self.valid < 3 {
            // the start-up: a classical RK4 step whose first stage stores f_n in the history
            let [k2, k3, k4, stage, stage2] = work else { unreachable!("five work states") };
            sys.rhs_update(t, q, &mut hist[h0], true, stage, (0.0, 0.5 * dt), &[(1.0, q)])?;
            self.rhs_evaluations += 1;
            let scratch = Rk4Scratch { k2, k3, k4, stage, stage2 };
            return rk4_after_k1(sys, t, dt, q, &hist[h0], scratch, &mut self.rhs_evaluations);
        }
        sys.rhs(t, q, &mut hist[h0])?;
        self.rhs_evaluations += 1;
        sys.update(
            q,
            1.0,
            &[(23.0 / 12.0 * dt, &hist[h0]), (-16.0 / 12.0 * dt, &hist[h1]), (5.0 / 12.0 * dt, &hist[h2])],
        )?;
        sys.limit(q)
    }
}

/// Scratch states of one classical RK4 step: k1 and (besides it) the later stage derivatives and two stage states.
const RK4_SCRATCH: usize = 6;

/// Scratch states of one classical RK4 step after k1: the stage derivatives k2, k3 (kept for the final sum) and
/// k4 (not), and two stage states (a stage's right-hand side reads one while its update writes the other).
struct Rk4Scratch<'a, T> {
    k2: &'a mut T,
    k3: &'a mut T,
    k4: &'a mut T,
    stage: &'a mut T,
    stage2: &'a mut T,
}

/// Classical RK4 after its first stage: `stage` = q + dt/2·k1 (limited by the caller's system, if it limits) and
/// k1 = L(t, q). Each stage's update is one [`OdeSystem::rhs_update`], so a backend can fold it into the
/// right-hand side: stage states q + dt/2·k2 and q + dt·k3, then q ← q + dt/6·(k1 + 2k2 + 2k3 + k4).
fn rk4_after_k1<S: OdeSystem>(
    sys: &mut S,
    t: f64,
    dt: f64,
    q: &mut S::State,
    k1: &S::State,
    scratch: Rk4Scratch<'_, S::State>,
    evaluations: &mut u64,
) -> Result<(), S::Error> {
    let Rk4Scratch { k2, k3, k4, stage, stage2 } = scratch;
    sys.limit(stage)?;
    sys.rhs_update(t + 0.5 * dt, stage, k2, true, stage2, (0.0, 0.5 * dt), &[(1.0, q)])?;
    sys.limit(stage2)?;
    sys.rhs_update(t + 0.5 * dt, stage2, k3, true, stage, (0.0, dt), &[(1.0, q)])?;
    sys.limit(stage)?;
    let terms = [(dt / 6.0, k1), (dt / 3.0, &*k2), (dt / 3.0, &*k3)];
    sys.rhs_update(t + dt, stage, k4, false, q, (1.0, dt / 6.0), &terms)?;
    *evaluations += 3;
    sys.limit(q)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The harmonic oscillator y' = (y₁, −y₀), exact solution (sin t, cos t) from (0, 1).
    struct Oscillator;

    impl OdeSystem for Oscillator {
        type State = Vec<f64>;
        type Error = std::convert::Infallible;
        fn rhs(&mut self, _t: f64, q: &Vec<f64>, out: &mut Vec<f64>) -> Result<(), Self::Error> {
            out[0] = q[1];
            out[1] = -q[0];
            Ok(())
        }
        fn zeros_like(&mut self, like: &Vec<f64>) -> Result<Vec<f64>, Self::Error> {
            Ok(vec![0.0; like.len()])
        }
        fn update(&mut self, y: &mut Vec<f64>, a: f64, terms: &[(f64, &Vec<f64>)]) -> Result<(), Self::Error> {
            for i in 0..y.len() {
                y[i] = a * y[i] + terms.iter().map(|(c, x)| c * x[i]).sum::<f64>();
            }
            Ok(())
        }
    }

    /// A time-dependent forcing: y' = cos(t), y(0) = 0, exact sin(t); checks the stage times.
    struct Forced;

    impl OdeSystem for Forced {
        type State = Vec<f64>;
        type Error = std::convert::Infallible;
        fn rhs(&mut self, t: f64, _q: &Vec<f64>, out: &mut Vec<f64>) -> Result<(), Self::Error> {
            out[0] = t.cos();
            Ok(())
        }
        fn zeros_like(&mut self, like: &Vec<f64>) -> Result<Vec<f64>, Self::Error> {
            Ok(vec![0.0; like.len()])
        }
        fn update(&mut self, y: &mut Vec<f64>, a: f64, terms: &[(f64, &Vec<f64>)]) -> Result<(), Self::Error> {
            Oscillator.update(y, a, terms)
        }
    }

    /// The oscillator stepped through a fused stage that, like a device kernel folding the update into the
    /// right-hand side, writes `y` while it reads `q`: it first checks that every scheme keeps them (and `k`)
    /// apart, then fills `y` before `k` so that an aliasing scheme would compute garbage.
    struct Fused {
        stages: usize,
    }

    impl OdeSystem for Fused {
        type State = Vec<f64>;
        type Error = std::convert::Infallible;
        fn rhs(&mut self, t: f64, q: &Vec<f64>, out: &mut Vec<f64>) -> Result<(), Self::Error> {
            Oscillator.rhs(t, q, out)
        }
        fn zeros_like(&mut self, like: &Vec<f64>) -> Result<Vec<f64>, Self::Error> {
            Ok(vec![0.0; like.len()])
        }
        fn update(&mut self, y: &mut Vec<f64>, a: f64, terms: &[(f64, &Vec<f64>)]) -> Result<(), Self::Error> {
            Oscillator.update(y, a, terms)
        }
        fn rhs_update(
            &mut self,
            t: f64,
            q: &Vec<f64>,
            k: &mut Vec<f64>,
            keep_k: bool,
            y: &mut Vec<f64>,
            (a, c): (f64, f64),
            terms: &[(f64, &Vec<f64>)],
        ) -> Result<(), Self::Error> {
            assert!(!std::ptr::eq(&*y, q) && !std::ptr::eq(&*y, &*k), "the stage's output aliases its input");
            self.stages += 1;
            let mut l = vec![0.0; q.len()];
            Oscillator.rhs(t, q, &mut l)?;
            for i in 0..y.len() {
                y[i] = a * y[i] + c * l[i] + terms.iter().map(|(ci, x)| ci * x[i]).sum::<f64>();
            }
            if keep_k {
                k.copy_from_slice(&l);
            } else {
                k.fill(f64::NAN); // a scheme that reads a k it did not keep gets NaN
            }
            Ok(())
        }
        fn folds_low_storage(&self) -> bool {
            true
        }
        fn low_storage_stage(
            &mut self,
            t: f64,
            q: &mut Vec<f64>,
            k: &mut Vec<f64>,
            r: &mut Vec<f64>,
            spare: &mut Vec<f64>,
            (a, c, b): (f64, f64, f64),
        ) -> Result<(), Self::Error> {
            let distinct = [&*k, &*r, &*spare].iter().all(|x| !std::ptr::eq(*x, &*q)) && !std::ptr::eq(&*r, &*spare);
            assert!(distinct, "the low-storage stage's buffers alias");
            self.stages += 1;
            let mut l = vec![0.0; q.len()];
            Oscillator.rhs(t, q, &mut l)?;
            spare.fill(f64::NAN); // a scheme that expects the spare to hold anything gets NaN
            for i in 0..q.len() {
                r[i] = a * r[i] + c * l[i];
                spare[i] = q[i] + b * r[i];
            }
            q.fill(f64::NAN); // the old state is not read after the swap
            std::mem::swap(q, spare);
            k.fill(f64::NAN);
            Ok(())
        }
    }

    #[test]
    fn fused_stages_keep_input_and_output_apart_and_give_the_same_solution() {
        for scheme in Scheme::ALL {
            let mut fused = Fused { stages: 0 };
            let got = solve(&mut fused, scheme, vec![0.0, 1.0], 40, 1.0);
            let want = solve(&mut Oscillator, scheme, vec![0.0, 1.0], 40, 1.0);
            for (g, w) in got.iter().zip(&want) {
                assert!((g - w).abs() <= 1e-14, "{scheme:?}: fused {got:?}, plain {want:?}");
            }
            // every Runge–Kutta stage goes through one fused call (AB3: its two start-up steps only; LSRK45: the
            // low-storage stage, which swaps the state with its spare)
            let expected = if scheme == Scheme::Ab3 { 2 * 4 } else { 40 * scheme.rhs_per_step() };
            assert_eq!(fused.stages, expected, "{scheme:?}");
        }
    }

    fn solve<S: OdeSystem<State = Vec<f64>, Error = std::convert::Infallible>>(
        sys: &mut S,
        scheme: Scheme,
        q0: Vec<f64>,
        steps: usize,
        t_end: f64,
    ) -> Vec<f64> {
        let mut integ = Integrator::new(scheme);
        let mut q = q0;
        let dt = t_end / steps as f64;
        for n in 0..steps {
            integ.step(sys, n as f64 * dt, dt, &mut q).unwrap();
        }
        q
    }

    fn observed_order<S: OdeSystem<State = Vec<f64>, Error = std::convert::Infallible>>(
        sys: &mut S,
        scheme: Scheme,
        q0: &[f64],
        exact: &[f64],
    ) -> f64 {
        let mut err = |steps| {
            let q = solve(sys, scheme, q0.to_vec(), steps, 2.0);
            q.iter().zip(exact).map(|(a, b)| (a - b).powi(2)).sum::<f64>().sqrt()
        };
        let (e1, e2) = (err(40), err(80));
        (e1 / e2).log2()
    }

    #[test]
    fn every_scheme_reaches_its_order_on_the_oscillator() {
        let exact = [2f64.sin(), 2f64.cos()];
        for scheme in Scheme::ALL {
            let p = observed_order(&mut Oscillator, scheme, &[0.0, 1.0], &exact);
            assert!((p - scheme.order() as f64).abs() < 0.2, "{scheme:?}: observed order {p}");
        }
    }

    #[test]
    fn every_scheme_reaches_its_order_with_time_dependent_forcing() {
        for scheme in Scheme::ALL {
            // pure quadrature: SSP-RK3 becomes Simpson's rule, one order better than its ODE order; a wrong
            // stage time would drop any scheme to first or second order
            let p = observed_order(&mut Forced, scheme, &[0.0], &[2f64.sin()]);
            assert!(p > scheme.order() as f64 - 0.3, "{scheme:?}: observed order {p}");
        }
    }

    /// Counts how often the scheme hands a state to the limiter.
    struct CountingLimiter {
        calls: usize,
    }

    impl OdeSystem for CountingLimiter {
        type State = Vec<f64>;
        type Error = std::convert::Infallible;
        fn rhs(&mut self, t: f64, q: &Vec<f64>, out: &mut Vec<f64>) -> Result<(), Self::Error> {
            Oscillator.rhs(t, q, out)
        }
        fn zeros_like(&mut self, like: &Vec<f64>) -> Result<Vec<f64>, Self::Error> {
            Ok(vec![0.0; like.len()])
        }
        fn update(&mut self, y: &mut Vec<f64>, a: f64, terms: &[(f64, &Vec<f64>)]) -> Result<(), Self::Error> {
            Oscillator.update(y, a, terms)
        }
        fn limit(&mut self, _q: &mut Vec<f64>) -> Result<(), Self::Error> {
            self.calls += 1;
            Ok(())
        }
    }

    #[test]
    fn every_stage_state_and_the_new_level_are_limited() {
        // one call per stage that feeds a later stage, plus one for the new time level
        for (scheme, per_step) in [(Scheme::Rk2, 2), (Scheme::SspRk3, 3), (Scheme::Rk4, 4), (Scheme::Lsrk45, 5)] {
            let mut sys = CountingLimiter { calls: 0 };
            let mut integ = Integrator::new(scheme);
            let mut q = vec![0.0, 1.0];
            for n in 0..3 {
                integ.step(&mut sys, n as f64 * 0.1, 0.1, &mut q).unwrap();
            }
            assert_eq!(sys.calls, 3 * per_step, "{scheme:?}");
        }
    }

    #[test]
    fn rhs_evaluations_are_counted() {
        for scheme in Scheme::ALL {
            let mut integ = Integrator::new(scheme);
            let mut q = vec![0.0, 1.0];
            for n in 0..10 {
                integ.step(&mut Oscillator, n as f64 * 0.1, 0.1, &mut q).unwrap();
            }
            let expected = match scheme {
                Scheme::Ab3 => 2 * 4 + 8,
                s => 10 * s.rhs_per_step() as u64 as usize,
            };
            assert_eq!(integ.rhs_evaluations(), expected as u64, "{scheme:?}");
        }
    }
}
