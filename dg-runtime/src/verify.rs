//! Verification of generated kernels against the native CPU operator: random (not zero) states, outputs
//! poisoned with NaN before each launch, relative L2 difference of the right-hand sides.

use crate::backend::Device;
use crate::cpu::{BoundaryBinding, NodalOperator2d};
use crate::device_operator::{DeviceOperator, DeviceOperatorError};
use dg_codegen::batch::batches;
use dg_codegen::render::{render, LawInput};
use dg_codegen::variant::{DeviceLimits, LawShape, Variant};
use dg_codegen::Target;
use dg_core::law::ConservationLaw;
use dg_core::space::DgSpace2d;
use dg_core::Real;
use rand::{Rng, SeedableRng};

/// Tolerance on the relative L2 difference: 1e-5 in f32, 1e-12 in f64.
pub fn tolerance<T: Real>() -> f64 {
    if T::NAME == "f32" {
        1e-5
    } else {
        1e-12
    }
}

/// A random state valid for the law: positive density, pressure or depth where the variables say so
/// (`rho`…`e`: gas dynamics; `h`: shallow water), uniform in [−1, 1] otherwise.
pub fn random_state<T: Real>(variables: &[&str], np: usize, k: usize, seed: u64) -> Vec<T> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let nv = variables.len();
    let mut q = vec![T::zero(); k * nv * np];
    for e in 0..k {
        for i in 0..np {
            let mut u = |a: f64, b: f64| rng.random_range(a..b);
            let values: Vec<f64> = if variables.first() == Some(&"rho") && variables.last() == Some(&"e") {
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

/// What the kernels are checked on: a law (with its IR), a space, its boundary binding and per-element materials.
pub struct VerifyProblem<'a, L> {
    /// The law.
    pub law: &'a L,
    /// Its IR.
    pub ir: &'a dg_ir::LawIr,
    /// The space (mesh and order).
    pub space: &'a DgSpace2d,
    /// Tag → boundary condition.
    pub binding: &'a BoundaryBinding,
    /// Per-element materials (`NMATERIALS` each).
    pub materials: &'a [f64],
}

/// Verifies `variant` of the problem's law on its space: the device right-hand side of a random state against
/// the CPU one.
pub fn verify_variant<L: ConservationLaw + Clone, T: Real>(
    device: &mut dyn Device,
    target: Target,
    problem: &VerifyProblem<'_, L>,
    variant: &Variant,
    seed: u64,
) -> VerifyOutcome {
    let VerifyProblem { law, ir, space, binding, materials } = *problem;
    let build = |device: &mut dyn Device| {
        let nflux = law.numerical_flux_name();
        DeviceOperator::<T>::new(device, target, ir, &law.param_values(), nflux, space, binding, materials, variant)
    };
    check_operator::<L, T>(device, problem, variant, seed, build)
}

/// Verifies many variants, compiling them `batch_size` at a time into one program (kernel compilers pay a large
/// fixed cost per program; PoCL most of all). A batch that does not compile is retried variant by variant, so
/// that the failure is pinned on the variants that cause it. `progress` is called after each variant; the
/// outcomes come in the order of `variants`.
pub fn verify_variants<L: ConservationLaw + Clone, T: Real>(
    device: &mut dyn Device,
    target: Target,
    problem: &VerifyProblem<'_, L>,
    variants: &[Variant],
    batch_size: usize,
    progress: &mut dyn FnMut(&VerifyOutcome),
) -> Vec<VerifyOutcome> {
    let VerifyProblem { law, ir, space, binding, materials } = *problem;
    let params = law.param_values();
    let input = LawInput { ir, params: &params, numerical_flux: law.numerical_flux_name() };
    let limits = DeviceLimits { local_memory: device.local_memory(), max_work_group: device.max_work_group() };
    let seed_of = |variant: &Variant| 100 + variants.iter().position(|v| v == variant).unwrap_or(0) as u64;
    let mut outcomes: Vec<Option<VerifyOutcome>> = vec![None; variants.len()];
    let mut sources = Vec::new();
    for (i, variant) in variants.iter().enumerate() {
        let rendered = variant
            .check(space.element.order, &LawShape::of(ir), &limits)
            .map_err(DeviceOperatorError::from)
            .and_then(|()| render(&input, &space.element, variant, target).map_err(DeviceOperatorError::from));
        match rendered {
            Ok(source) => sources.push(source),
            Err(e) => {
                let outcome = failed(variant, e);
                progress(&outcome);
                outcomes[i] = Some(outcome);
            }
        }
    }
    let batches = batches(sources, batch_size);
    device.prepare(&batches.iter().map(|b| b.source.clone()).collect::<Vec<_>>());
    for batch in batches {
        let program = device.compile(&batch.source, &batch.kernels);
        for member in batch.members {
            let variant = member.variant;
            let seed = seed_of(&variant);
            let outcome = match program {
                Ok(program) => {
                    let build = |device: &mut dyn Device| {
                        DeviceOperator::<T>::with_program(device, member, program, space, binding, materials)
                    };
                    check_operator::<L, T>(device, problem, &variant, seed, build)
                }
                Err(_) => verify_variant::<L, T>(device, target, problem, &variant, seed),
            };
            progress(&outcome);
            if let Some(i) = variants.iter().position(|v| *v == variant) {
                outcomes[i] = Some(outcome);
            }
        }
    }
    outcomes.into_iter().zip(variants).map(|(o, v)| o.unwrap_or_else(|| failed(v, missing()))).collect()
}

fn missing() -> DeviceOperatorError {
    DeviceOperatorError::Precision("the variant was not verified (listed twice?)".into())
}

fn failed(variant: &Variant, e: DeviceOperatorError) -> VerifyOutcome {
    VerifyOutcome::of::<f32>(variant.to_string(), Err(e))
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
}

/// Builds the operator with `build`, applies it to a random state with its output poisoned, and compares
/// with the CPU operator.
fn check_operator<L: ConservationLaw + Clone, T: Real>(
    device: &mut dyn Device,
    problem: &VerifyProblem<'_, L>,
    variant: &Variant,
    seed: u64,
    build: impl FnOnce(&mut dyn Device) -> Result<DeviceOperator<T>, DeviceOperatorError>,
) -> VerifyOutcome {
    let VerifyProblem { law, space, binding, materials, .. } = *problem;
    let run = |device: &mut dyn Device| -> Result<f64, DeviceOperatorError> {
        let op = build(device)?;
        let cpu = NodalOperator2d::<L, T>::with_materials(law.clone(), space, binding, materials);
        let q = random_state::<T>(law.variable_names(), space.element.np, space.num_elements(), seed);
        let mut reference = vec![T::nan(); q.len()];
        cpu.apply(&q, 0.3, &mut reference);
        op.upload_state(device, &q)?;
        op.poison_rhs(device)?;
        op.apply(device, 0.3, 1)?;
        let got = op.download_rhs(device)?;
        Ok(relative_l2(&got, &reference))
    };
    let outcome = run(device);
    device.free_buffers();
    VerifyOutcome::of::<T>(variant.to_string(), outcome)
}
