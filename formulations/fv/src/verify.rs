//! Verification of the finite-volume variants against the CPU sweeps: one whole split step (x-sweep, y-sweep as
//! the variant reaches the columns, the source) of a random admissible state on two grids of odd sizes — one
//! closed along x by the law's conditions and periodic along y, one the other way round — written to a buffer
//! poisoned with NaN (the scratch buffers too), and the step limit and admissibility flag of the reduction
//! against the CPU's.

use crate::cpu::{add_source, stable_step, sweep, Reconstruction};
use crate::device::FvDeviceOperator;
use crate::grid::{FvGrid, Side};
use crate::variant::FvVariant;
use dg_codegen::Target;
use dg_core::law::ConservationLaw;
use dg_core::Real;
use dg_ir::LawIr;
use dg_runtime::backend::Device;
use dg_runtime::verify::{random_state, relative_l2, worst, VerifyOutcome};
use dg_runtime::DeviceOperatorError;

/// The verification grids of a law with `conditions` boundary conditions: 263 × 37 cells closed along x (the
/// conditions in turn on the two sides) and periodic along y, and 37 × 263 the other way round. No size is a
/// multiple of a work group, a transpose tile or a marching segment; lines of 263 cells span two segments of the
/// widest shared-memory sweep, and every sweep kernel launches several work groups.
pub fn verification_grids(conditions: usize) -> Vec<FvGrid> {
    let closed = |k: usize| if conditions == 0 { Side::Periodic } else { Side::Condition(k % conditions) };
    let (lower, upper) = ([0.0, 0.0], [1.0, 0.8]);
    vec![
        FvGrid {
            nx: 263,
            ny: 37,
            lower,
            upper,
            sides: [closed(0), closed(1), Side::Periodic, Side::Periodic],
            window: None,
        },
        FvGrid {
            nx: 37,
            ny: 263,
            lower,
            upper,
            sides: [Side::Periodic, Side::Periodic, closed(1), closed(2)],
            window: None,
        },
    ]
}

/// A random admissible state of `grid` in the variable-major layout, rounded to `T`.
pub fn grid_state<L: ConservationLaw, T: Real>(law: &L, grid: &FvGrid, seed: u64) -> Vec<T> {
    let (nv, n) = (L::NVARS, grid.cells());
    let cell_major: Vec<T> = random_state::<T>(law.variable_names(), 1, n, seed);
    (0..nv * n).map(|g| cell_major[(g % n) * nv + g / n]).collect()
}

/// The CPU's step of `state` (f64, rounded to `T`) and the step it takes.
pub fn cpu_step<L: ConservationLaw, T: Real>(
    law: &L,
    grid: &FvGrid,
    order: usize,
    state: &[T],
    (cfl, t): (f64, f64),
) -> (Vec<T>, f64, f64) {
    let q: Vec<f64> = state.iter().map(|v| v.as_f64()).collect();
    let reconstruction = if order == 1 { Reconstruction::FirstOrder } else { Reconstruction::MusclHancock };
    let limit = stable_step(law, grid, &q);
    let dt = T::from_f64(cfl * limit).as_f64();
    let mut half = vec![f64::NAN; q.len()];
    let mut out = vec![f64::NAN; q.len()];
    sweep(law, grid, reconstruction, &q, 0, dt, t, &mut half);
    sweep(law, grid, reconstruction, &half, 1, dt, t, &mut out);
    if law.has_source() {
        add_source(law, grid, &mut out, dt, t);
    }
    (out.iter().map(|&v| T::from_f64(v)).collect(), dt, limit)
}

/// Verifies `variants` at reconstruction `order` (1, 2) on both verification grids; a variant passes when its
/// step matches the CPU's on both within the precision's tolerance, and the reduction's step limit matches too.
pub fn verify_fv_variants<L: ConservationLaw, T: Real>(
    device: &mut dyn Device,
    target: Target,
    law: &L,
    ir: &LawIr,
    order: usize,
    variants: &[FvVariant],
) -> Result<Vec<VerifyOutcome>, DeviceOperatorError> {
    let mut errors: Vec<Result<f64, DeviceOperatorError>> = variants.iter().map(|_| Ok(0.0)).collect();
    let params = law.param_values();
    for (index, grid) in verification_grids(law.boundary_names().len()).iter().enumerate() {
        let state = grid_state::<L, T>(law, grid, 11 + 7 * index as u64 + order as u64);
        let t = 0.125;
        let (reference, dt, limit) = cpu_step(law, grid, order, &state, (0.45, t));
        let result = (|| -> Result<(), DeviceOperatorError> {
            let op = FvDeviceOperator::<T>::new(device, target, (ir, &params, law.numerical_flux_name()), grid)?;
            let b = op.buffers;
            op.write_state(device, b.q, &state)?;
            let (device_limit, admissible, _) = op.limit(device, b.q)?;
            let limit_error = if admissible { ((device_limit - limit) / limit).abs() } else { f64::NAN };
            for (variant, error) in variants.iter().zip(errors.iter_mut()) {
                let so_far = match error {
                    Ok(e) => *e,
                    Err(_) => continue,
                };
                let nan = T::from_f64(f64::NAN);
                for buffer in [b.result, b.scratch, b.transposed, b.transposed_out] {
                    op.fill_state(device, buffer, nan)?;
                }
                let steps = op.step_steps_into(variant, order, (dt, t), b.result);
                let checked = op
                    .run(device, &steps, 1)
                    .map_err(DeviceOperatorError::from)
                    .and_then(|_| Ok(relative_l2(&op.read_state(device, b.result)?, &reference)));
                *error = checked.map(|e| worst(worst(so_far, e), limit_error));
            }
            Ok(())
        })();
        device.free_buffers();
        result?;
    }
    Ok(variants.iter().zip(errors).map(|(v, e)| VerifyOutcome::of::<T>(v.to_string(), e)).collect())
}
