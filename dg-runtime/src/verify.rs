//! What every formulation's verification shares: random (not zero) states, the relative L2 difference that any
//! NaN or infinity fails, the tolerance per precision, and the outcome of checking one variant, which only this
//! crate can make (so a `passed` was set by a comparison with a CPU reference). Outputs are poisoned with NaN
//! before each launch by the formulations' checks.

use crate::operator_error::DeviceOperatorError;
use dg_core::Real;
use rand::{Rng, SeedableRng};

/// Whether `ir`'s numerical flux `name` is conservative ([`dg_ir::LawIr::numerical_flux_is_conservative`]) at the
/// states the verifications use ([`random_state`]): what variants that compute each face's flux once and give the
/// neighbour its negative need.
pub fn numerical_flux_is_conservative(ir: &dg_ir::LawIr, name: &str) -> bool {
    let names: Vec<&str> = ir.variables.iter().map(String::as_str).collect();
    let mut seed = 0;
    ir.numerical_flux_is_conservative(name, &mut || {
        seed += 1;
        random_state::<f64>(&names, 1, 1, 0x5eed_0000 + seed)
    })
}

/// Tolerance on the relative L2 difference: 1e-5 in f32, 1e-12 in f64.
pub fn tolerance<T: Real>() -> f64 {
    if T::NAME == "f32" {
        1e-5
    } else {
        1e-12
    }
}

/// A random state valid for the law: positive density, pressure or depth where the variables say so
/// (`rho`…`bx`…: magnetohydrodynamics; `rho`…`e`: gas dynamics; `h`: shallow water), uniform in [−1, 1]
/// otherwise.
pub fn random_state<T: Real>(variables: &[&str], np: usize, k: usize, seed: u64) -> Vec<T> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let nv = variables.len();
    let mut q = vec![T::zero(); k * nv * np];
    for e in 0..k {
        for i in 0..np {
            let mut u = |a: f64, b: f64| rng.random_range(a..b);
            let values: Vec<f64> = if variables.first() == Some(&"rho") && variables.contains(&"bx") {
                // magnetohydrodynamics (ρ, ρu, ρv, ρw, E, Bx, By, Bz, ψ): E from a positive pressure with γ = 5/3
                // (p stays positive for any γ > 1), ψ small
                let rho = u(0.8, 1.2);
                let vel = [u(-0.3, 0.3), u(-0.3, 0.3), u(-0.3, 0.3)];
                let b = [u(-0.5, 0.5), u(-0.5, 0.5), u(-0.5, 0.5)];
                let p = u(0.8, 1.2);
                let kinetic = 0.5 * rho * vel.iter().map(|v| v * v).sum::<f64>();
                let magnetic = 0.5 * b.iter().map(|v| v * v).sum::<f64>();
                variables
                    .iter()
                    .map(|&name| match name {
                        "rho" => rho,
                        "mx" => rho * vel[0],
                        "my" => rho * vel[1],
                        "mz" => rho * vel[2],
                        "e" => p / (2.0 / 3.0) + kinetic + magnetic,
                        "bx" => b[0],
                        "by" => b[1],
                        "bz" => b[2],
                        _ => u(-0.1, 0.1),
                    })
                    .collect()
            } else if variables.first() == Some(&"rho") && variables.last() == Some(&"e") {
                let rho = u(0.8, 1.2);
                let vel: Vec<f64> = (1..nv - 1).map(|_| u(-0.3, 0.3)).collect();
                let p = u(0.8, 1.2);
                let mut s = vec![rho];
                s.extend(vel.iter().map(|v| rho * v));
                s.push(p / 0.4 + 0.5 * rho * vel.iter().map(|v| v * v).sum::<f64>());
                s
            } else if variables.first() == Some(&"h") {
                let h = u(0.8, 1.2);
                (0..nv).map(|v| if v == 0 { h } else { h * u(-0.3, 0.3) }).collect()
            } else {
                (0..nv).map(|_| u(-1.0, 1.0)).collect()
            };
            for v in 0..nv {
                q[(e * nv + v) * np + i] = T::from_f64(values[v]);
            }
        }
    }
    q
}

/// Result of verifying one variant. Outcomes are made only in this crate, by the code that verified
/// ([`VerifyOutcome::of`], [`VerifyOutcome::rejected`]): `non_exhaustive` keeps other crates from writing one,
/// so a `passed` they read was set by a comparison with the CPU reference.
#[derive(Debug, Clone, serde::Serialize)]
#[non_exhaustive]
pub struct VerifyOutcome {
    /// The variant.
    pub variant: String,
    /// Relative L2 difference to the CPU operator (NaN if something was not written).
    pub relative_error: f64,
    /// Whether it is within tolerance.
    pub passed: bool,
    /// Why it failed to build or run, if it did.
    pub error: Option<String>,
    /// Whether the device refused it before any launch (resources), so it is not a failure of the generator.
    pub rejected: bool,
}

/// The larger of two errors, NaN when either is NaN: `f64::max` returns the other operand for a NaN, so an output
/// left at its NaN poison would pass.
pub fn worst(a: f64, b: f64) -> f64 {
    dg_core::max_or_nan(a, b)
}

/// Relative L2 difference (NaN anywhere gives NaN).
pub fn relative_l2<T: Real>(got: &[T], reference: &[T]) -> f64 {
    let mut diff = 0.0;
    let mut norm = 0.0;
    for (a, b) in got.iter().zip(reference) {
        let (a, b) = (a.as_f64(), b.as_f64());
        diff += (a - b) * (a - b);
        norm += b * b;
    }
    if got.iter().any(|v| !v.is_finite()) {
        return f64::NAN;
    }
    (diff / norm.max(f64::MIN_POSITIVE)).sqrt()
}

impl VerifyOutcome {
    /// The outcome of checking `variant` in precision `T`: its relative difference to the CPU operator, or why
    /// it could not be checked (a variant the device refuses counts as rejected, not failed).
    pub fn of<T: Real>(variant: String, result: Result<f64, DeviceOperatorError>) -> Self {
        match result {
            Ok(err) => Self {
                variant,
                relative_error: err,
                passed: err.is_finite() && err <= tolerance::<T>(),
                error: None,
                rejected: false,
            },
            Err(e) => Self {
                variant,
                relative_error: f64::NAN,
                passed: false,
                rejected: matches!(e, DeviceOperatorError::Variant(_)),
                error: Some(e.to_string()),
            },
        }
    }

    /// A kernel the device refused before any launch (resources), with the reason.
    pub fn rejected(variant: String, why: String) -> Self {
        Self { variant, relative_error: f64::NAN, passed: false, error: Some(why), rejected: true }
    }

    /// The outcome of a formulation's own comparison with its CPU reference (one whose outputs are not a
    /// right-hand side, such as HDG's element matrices): passed exactly when `relative_error` is finite and within
    /// `tolerance`.
    pub fn compared(variant: String, relative_error: f64, tolerance: f64) -> Self {
        let passed = relative_error.is_finite() && relative_error <= tolerance;
        Self { variant, relative_error, passed, error: None, rejected: false }
    }

    /// A variant that failed to build or run, or whose comparison failed, with the reason.
    pub fn failed(variant: String, why: String) -> Self {
        Self { variant, relative_error: f64::NAN, passed: false, error: Some(why), rejected: false }
    }
}
