//! Stability limits of the time integrators on a given discrete operator.
//!
//! The largest stable step of a scheme depends on where the operator's eigenvalues lie and on the scheme's
//! stability region. [`ritz_values`] estimates the outer spectrum of the operator's Jacobian at a state by a
//! Jacobian-free Arnoldi iteration (a few right-hand sides; exact for linear operators, affine forcing cancels);
//! [`stable_dt`] finds, for every Ritz value λ, how far along its ray dt·λ stays inside the scheme's stability
//! region ([`amplification`]: one step of the scheme on y' = z·y for the Runge–Kutta schemes, the largest root of
//! the characteristic polynomial for AB3), and takes the smallest. [`StabilityLimit::of`] does both for a CPU
//! system. Runs use the limit as their default step and refuse `--cfl` or `--dt` beyond it.

use crate::time::{Integrator, OdeSystem, Scheme};
use nalgebra::{Complex, DMatrix};

/// Fraction of the estimated limit a run may use: Ritz values approximate the outer spectrum from inside.
pub const SAFETY: f64 = 0.95;

/// How much an amplification factor may exceed 1 and still count as stable (rounding in the region's edge).
const GROWTH_TOLERANCE: f64 = 1e-8;

/// One step of a Runge–Kutta scheme on y' = z·y, the state a complex number stored as `[re, im]`.
struct Scalar {
    z: Complex<f64>,
}

impl OdeSystem for Scalar {
    type State = [f64; 2];
    type Error = std::convert::Infallible;

    fn rhs(&mut self, _t: f64, q: &[f64; 2], out: &mut [f64; 2]) -> Result<(), Self::Error> {
        let w = self.z * Complex::new(q[0], q[1]);
        *out = [w.re, w.im];
        Ok(())
    }
    fn zeros_like(&mut self, _like: &[f64; 2]) -> Result<[f64; 2], Self::Error> {
        Ok([0.0; 2])
    }
    fn update(&mut self, y: &mut [f64; 2], a: f64, terms: &[(f64, &[f64; 2])]) -> Result<(), Self::Error> {
        for (i, v) in y.iter_mut().enumerate() {
            *v = a * *v + terms.iter().map(|(c, x)| c * x[i]).sum::<f64>();
        }
        Ok(())
    }
}

/// The growth per step of `scheme` on y' = z·y with a unit step: |R(z)| for the Runge–Kutta schemes, the largest
/// root modulus of ζ³ − ζ² − z(23ζ² − 16ζ + 5)/12 for AB3. Stable where it is at most 1.
pub fn amplification(scheme: Scheme, z: Complex<f64>) -> f64 {
    if scheme == Scheme::Ab3 {
        let twelfth = z / 12.0;
        let coefficients = [-Complex::new(1.0, 0.0) - twelfth * 23.0, twelfth * 16.0, -twelfth * 5.0];
        return cubic_roots(coefficients).iter().map(|r| r.norm()).fold(0.0, f64::max);
    }
    let mut system = Scalar { z };
    let mut q = [1.0, 0.0];
    let Ok(()) = Integrator::new(scheme).step(&mut system, 0.0, 1.0, &mut q);
    Complex::new(q[0], q[1]).norm()
}

/// Roots of ζ³ + a ζ² + b ζ + c (Durand–Kerner iteration).
fn cubic_roots([a, b, c]: [Complex<f64>; 3]) -> [Complex<f64>; 3] {
    let p = |x: Complex<f64>| ((x + a) * x + b) * x + c;
    let seed = Complex::new(0.4, 0.9);
    let mut r = [Complex::new(1.0, 0.0), seed, seed * seed];
    for _ in 0..500 {
        let mut change = 0.0f64;
        for i in 0..3 {
            let mut denominator = Complex::new(1.0, 0.0);
            for j in 0..3 {
                if i != j {
                    denominator *= r[i] - r[j];
                }
            }
            if denominator.norm() == 0.0 {
                r[i] += Complex::new(1e-9, 1e-9);
                continue;
            }
            let delta = p(r[i]) / denominator;
            r[i] -= delta;
            change = change.max(delta.norm());
        }
        if change < 1e-15 {
            break;
        }
    }
    r
}

/// How far along the ray of the unit direction `d` (with Re d ≤ 0) the scheme stays stable: the largest s with
/// amplification(s·d) ≤ 1 for all smaller s (scanned in steps of 0.01, then bisected).
fn ray_extent(scheme: Scheme, d: Complex<f64>) -> f64 {
    let stable = |s: f64| amplification(scheme, d * s) <= 1.0 + GROWTH_TOLERANCE;
    let h = 0.01;
    let mut s = h;
    while s <= 8.0 && stable(s) {
        s += h;
    }
    let (mut lo, mut hi) = (s - h, s);
    for _ in 0..40 {
        let mid = 0.5 * (lo + hi);
        if stable(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// The largest step with every `spectrum` value inside `scheme`'s stability region (before [`SAFETY`]). Values
/// with a positive real part (Arnoldi's approximation of an operator that does not grow) count as imaginary;
/// values within 10⁻⁶ of the spectral radius of zero (the operator's null space, blurred by rounding and by
/// the differences of the Jacobian-vector products) and positive real ones constrain nothing.
pub fn stable_dt(scheme: Scheme, spectrum: &[Complex<f64>]) -> f64 {
    let radius = spectrum.iter().map(|l| l.norm()).fold(0.0, f64::max);
    spectrum
        .iter()
        .filter(|l| l.norm() > 1e-6 * radius)
        .filter_map(|l| {
            let direction = Complex::new(l.re.min(0.0), l.im);
            (direction.norm() > 1e-6 * radius).then(|| ray_extent(scheme, direction / direction.norm()) / l.norm())
        })
        .fold(f64::INFINITY, f64::min)
}

/// Ritz values of the Jacobian of `rhs` at `q0` after `steps` Arnoldi steps (Jacobian-vector products by
/// one-sided differences with a step of √`rounding` relative to the state; exact up to rounding for linear or
/// affine operators). Fewer when the Krylov space is exhausted.
pub fn ritz_values(
    rhs: &mut dyn FnMut(&[f64], &mut [f64]),
    q0: &[f64],
    steps: usize,
    rounding: f64,
) -> Vec<Complex<f64>> {
    use rayon::prelude::*;
    let n = q0.len();
    let dot = |a: &[f64], b: &[f64]| a.par_iter().zip(b).map(|(x, y)| x * y).sum::<f64>();
    let norm = |v: &[f64]| dot(v, v).sqrt();
    let mut f0 = vec![0.0; n];
    rhs(q0, &mut f0);
    let epsilon = rounding.sqrt() * (1.0 + norm(q0));
    // a fixed pseudo-random start vector: every mode present, the same every run
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut v: Vec<f64> = (0..n)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) as f64 / (1u64 << 53) as f64 - 0.5
        })
        .collect();
    let v_norm = norm(&v);
    v.iter_mut().for_each(|x| *x /= v_norm);
    let mut basis = vec![v];
    let mut h = DMatrix::<f64>::zeros(steps + 1, steps);
    let (mut shifted, mut w) = (vec![0.0; n], vec![0.0; n]);
    let mut m = 0;
    for j in 0..steps.min(n) {
        shifted.par_iter_mut().zip(q0.par_iter().zip(&basis[j])).for_each(|(s, (q, v))| *s = q + epsilon * v);
        rhs(&shifted, &mut w);
        w.par_iter_mut().zip(&f0).for_each(|(x, f)| *x = (*x - f) / epsilon);
        for (i, b) in basis.iter().enumerate() {
            let c = dot(&w, b);
            h[(i, j)] = c;
            w.par_iter_mut().zip(b).for_each(|(x, y)| *x -= c * y);
        }
        let next = norm(&w);
        h[(j + 1, j)] = next;
        m = j + 1;
        if next.is_nan() || next <= 1e-12 * h.column(j).norm() {
            break;
        }
        basis.push(w.par_iter().map(|x| x / next).collect());
    }
    let square = h.view((0, 0), (m, m)).into_owned();
    square.complex_eigenvalues().iter().copied().filter(|z| z.re.is_finite() && z.im.is_finite()).collect()
}

/// A right-hand side on f64 vectors in the CPU layout: `rhs(q, out)`.
pub type RhsOf<'a, E> = dyn FnMut(&[f64], &mut [f64]) -> Result<(), E> + 'a;
/// Moves a CPU-layout state into a device state of system `S`.
pub type WriteState<'a, S> =
    dyn FnMut(&mut S, &mut <S as OdeSystem>::State, &[f64]) -> Result<(), <S as OdeSystem>::Error> + 'a;
/// Reads a device state of system `S` back in the CPU layout.
pub type ReadState<'a, S> =
    dyn FnMut(&mut S, &<S as OdeSystem>::State) -> Result<Vec<f64>, <S as OdeSystem>::Error> + 'a;

/// The stability limit of a scheme on an operator at a state.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct StabilityLimit {
    /// The largest stable step, [`SAFETY`] applied.
    pub dt: f64,
    /// The largest |λ| found (the spectral radius estimate).
    pub spectral_radius: f64,
    /// Arnoldi steps taken (right-hand sides evaluated, plus one).
    pub arnoldi_steps: usize,
}

impl StabilityLimit {
    /// Arnoldi steps a run spends on its limit.
    pub const STEPS: usize = 24;

    /// The largest state (values) whose limit a run estimates: the Arnoldi basis holds 25 copies of the state
    /// on the host, so larger runs take the CFL rule unchecked ([`StabilityLimit::not_estimated`]).
    pub const MAX_VALUES: usize = 8 << 20;

    /// No estimate (a state above [`Self::MAX_VALUES`]): every step passes [`Self::check`].
    pub fn not_estimated() -> StabilityLimit {
        StabilityLimit { dt: f64::INFINITY, spectral_radius: f64::NAN, arnoldi_steps: 0 }
    }

    /// Whether the limit was estimated.
    pub fn is_estimated(&self) -> bool {
        self.arnoldi_steps > 0
    }

    /// The limit of `scheme` on the operator whose right-hand side `rhs(q, out)` evaluates (on any backend; f64
    /// vectors, evaluated in a precision of unit roundoff `rounding`), linearised at `q0`.
    pub fn estimate<E>(rhs: &mut RhsOf<'_, E>, q0: &[f64], scheme: Scheme, rounding: f64) -> Result<StabilityLimit, E> {
        let mut failure = None;
        let mut infallible = |q: &[f64], out: &mut [f64]| {
            if failure.is_none() {
                if let Err(e) = rhs(q, out) {
                    failure = Some(e);
                }
            }
        };
        let ritz = ritz_values(&mut infallible, q0, Self::STEPS, rounding);
        if let Some(e) = failure {
            return Err(e);
        }
        let spectral_radius = ritz.iter().map(|l| l.norm()).fold(0.0, f64::max);
        Ok(StabilityLimit { dt: SAFETY * stable_dt(scheme, &ritz), spectral_radius, arnoldi_steps: ritz.len() })
    }

    /// The limit of `scheme` on the CPU system `system` at state `q0` and time `t` (not estimated above
    /// [`Self::MAX_VALUES`], as on a device: the Arnoldi basis alone would take `STEPS` copies of the state).
    pub fn of<T: dg_core::Real, S: OdeSystem<State = Vec<T>>>(
        system: &mut S,
        q0: &[f64],
        t: f64,
        scheme: Scheme,
    ) -> Result<StabilityLimit, S::Error> {
        if q0.len() > Self::MAX_VALUES {
            return Ok(Self::not_estimated());
        }
        let mut rhs = |q: &[f64], out: &mut [f64]| {
            let mut o = vec![T::zero(); out.len()];
            system.rhs(t, &q.iter().map(|&v| T::from_f64(v)).collect(), &mut o)?;
            out.iter_mut().zip(&o).for_each(|(x, y)| *x = y.as_f64());
            Ok(())
        };
        Self::estimate(&mut rhs, q0, scheme, T::epsilon().as_f64())
    }

    /// [`Self::of`] on a CPU system that `build` makes only when the limit is estimated: above
    /// [`Self::MAX_VALUES`] nothing is built (an f64 operator made for the estimate alone took as much memory again
    /// as the run's own), and the system built is dropped once the estimate is done.
    pub fn of_built<T: dg_core::Real, S: OdeSystem<State = Vec<T>>>(
        build: impl FnOnce() -> S,
        q0: &[f64],
        t: f64,
        scheme: Scheme,
    ) -> Result<StabilityLimit, S::Error> {
        if q0.len() > Self::MAX_VALUES {
            return Ok(Self::not_estimated());
        }
        Self::of(&mut build(), q0, t, scheme)
    }

    /// The limit of `scheme` on a device system (any [`OdeSystem`] whose states live on a device) at state `q0`:
    /// `write` and `read` move a state between the CPU layout and a device state; two scratch states are made.
    /// Not estimated without a state (`None`: the caller did not widen one so large) or above
    /// [`Self::MAX_VALUES`].
    pub fn of_device<S: OdeSystem>(
        system: &mut S,
        like: &S::State,
        q0: Option<&[f64]>,
        scheme: Scheme,
        rounding: f64,
        write: &mut WriteState<'_, S>,
        read: &mut ReadState<'_, S>,
    ) -> Result<StabilityLimit, S::Error> {
        let Some(q0) = q0.filter(|q0| q0.len() <= Self::MAX_VALUES) else {
            return Ok(Self::not_estimated());
        };
        let mut input = system.zeros_like(like)?;
        let mut output = system.zeros_like(like)?;
        let mut rhs = |q: &[f64], out: &mut [f64]| {
            write(system, &mut input, q)?;
            system.rhs(0.0, &input, &mut output)?;
            out.copy_from_slice(&read(system, &output)?);
            Ok(())
        };
        Self::estimate(&mut rhs, q0, scheme, rounding)
    }

    /// Checks the step `dt` that option `option` = `value` gives against the limit: the step, or (unless
    /// `allow_unstable`) why it is refused, with the largest stable value of the option.
    pub fn check(
        &self,
        dt: f64,
        (option, value): (&str, f64),
        scheme: Scheme,
        allow_unstable: bool,
    ) -> Result<f64, String> {
        if dt <= self.dt || allow_unstable {
            return Ok(dt);
        }
        Err(format!(
            "{option} {} gives a time step of {dt:.4e}, above the stability limit {:.4e} of {} on this problem \
             (spectral radius ≈ {:.4e}, from {} Arnoldi steps at the initial state); the largest stable {option} is \
             about {:.4e}, or pass --allow-unstable",
            compact(value),
            self.dt,
            scheme.name(),
            self.spectral_radius,
            self.arnoldi_steps,
            value * self.dt / dt
        ))
    }
}

/// A number as a user would write it: plain in 10⁻³..10⁶, else in exponent form.
fn compact(v: f64) -> String {
    if (1e-3..1e6).contains(&v.abs()) {
        format!("{v}")
    } else {
        format!("{v:e}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn extent(scheme: Scheme, angle_deg: f64) -> f64 {
        let a = angle_deg.to_radians();
        ray_extent(scheme, Complex::new(a.cos(), a.sin()))
    }

    #[test]
    fn textbook_stability_intervals() {
        // negative real axis: RK4 2.785, SSPRK3 2.513, RK2 2, AB3 6/11
        let cases = [(Scheme::Rk4, 2.7853), (Scheme::SspRk3, 2.5127), (Scheme::Rk2, 2.0), (Scheme::Ab3, 6.0 / 11.0)];
        for (scheme, expected) in cases {
            let got = extent(scheme, 180.0);
            assert!((got - expected).abs() < 2e-3, "{scheme:?} on the real axis: {got}, expected {expected}");
        }
        // imaginary axis: RK4 2√2, SSPRK3 √3, AB3 0.7236
        let cases = [(Scheme::Rk4, 2.0 * 2f64.sqrt()), (Scheme::SspRk3, 3f64.sqrt()), (Scheme::Ab3, 0.7236)];
        for (scheme, expected) in cases {
            let got = extent(scheme, 90.0);
            assert!((got - expected).abs() < 5e-3, "{scheme:?} on the imaginary axis: {got}, expected {expected}");
        }
        // the explicit midpoint rule is unstable on the imaginary axis
        assert!(extent(Scheme::Rk2, 90.0) < 0.05);
        // Carpenter–Kennedy's LSRK45 reaches further than RK4 on both axes
        assert!(extent(Scheme::Lsrk45, 180.0) > 4.0 && extent(Scheme::Lsrk45, 90.0) > 3.0);
    }

    #[test]
    fn arnoldi_finds_the_spectrum_of_a_known_operator() {
        // a block-diagonal real operator with eigenvalues −1 ± 10i, −3, −0.5 ± 2i: dq/dt = A q + forcing
        let blocks = [(-1.0, 10.0), (-0.5, 2.0)];
        let mut rhs = |q: &[f64], out: &mut [f64]| {
            for (b, (re, im)) in blocks.iter().enumerate() {
                let (x, y) = (q[2 * b], q[2 * b + 1]);
                out[2 * b] = re * x - im * y + 1.0;
                out[2 * b + 1] = im * x + re * y;
            }
            out[4] = -3.0 * q[4] + 7.0;
        };
        let q0 = [0.3, -0.2, 1.0, 2.0, 0.5];
        let mut ritz = ritz_values(&mut rhs, &q0, 10, f64::EPSILON);
        ritz.sort_by(|a, b| a.norm().total_cmp(&b.norm()));
        let radius = ritz.last().unwrap().norm();
        assert!((radius - 101f64.sqrt()).abs() < 1e-5, "{ritz:?}");
        // RK4: the pair −1 ± 10i limits the step; along its ray the region ends near |z| = 2.8
        let dt = stable_dt(Scheme::Rk4, &ritz);
        let z = Complex::new(-1.0, 10.0) * dt;
        assert!((amplification(Scheme::Rk4, z) - 1.0).abs() < 1e-6, "dt {dt}");
        assert!(amplification(Scheme::Rk4, z * 1.01) > 1.0);
    }
}
