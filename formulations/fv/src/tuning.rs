//! The finite-volume formulation as the runtime sees it ([`Fv`]), its cost model and its tuner: the tuning
//! "order" is the reconstruction (1: first order, 2: MUSCL–Hancock); a variant is verified as one whole step on
//! the two verification grids and timed as one step (both sweeps, the transposes, the source) on a periodic
//! square grid of about the requested cells.

use crate::device::FvDeviceOperator;
use crate::grid::FvGrid;
use crate::render::{render_fv, TEMPLATES};
use crate::variant::{Faces, FvVariant, Transpose, SWEEP_WIDTHS};
use crate::verify::{cpu_step, grid_state, verify_fv_variants};
use dg_codegen::{DeviceLimits, Precision, Target};
use dg_core::law::ConservationLaw;
use dg_core::Real;
use dg_ir::LawIr;
use dg_runtime::backend::Device;
use dg_runtime::formulation::{
    outcomes_of_specs, outcomes_or_failure, precision_of, supported_ir, target_of, Formulation, FormulationError,
    LawCall, TimingPlan, TuneTarget, Tuner, UnitCost,
};
use dg_runtime::tuning_db::{ArithmeticUnits, KernelFamily, TuningKey};
use dg_runtime::verify::{relative_l2, VerifyOutcome};
use dg_runtime::DeviceOperatorError;
use std::sync::OnceLock;

/// Finite volumes on a regular 2D grid (seed 003).
#[derive(Debug, Clone, Copy, Default)]
pub struct Fv;

/// The code fingerprint of the finite-volume kernels: their templates and generator source.
pub fn code_hash() -> &'static str {
    static HASH: OnceLock<String> = OnceLock::new();
    HASH.get_or_init(|| {
        let mut inputs: Vec<&str> = TEMPLATES.iter().map(|(_, t)| *t).collect();
        inputs.extend([include_str!("variant.rs"), include_str!("render.rs"), include_str!("device.rs")]);
        dg_codegen::fingerprint::code_hash(&inputs)
    })
}

/// Every variant in `precision`.
pub fn all_variants(precision: Precision) -> Vec<FvVariant> {
    let mut out = Vec::new();
    for transpose in Transpose::ALL {
        for faces in Faces::ALL {
            out.extend(SWEEP_WIDTHS.map(|width| FvVariant { transpose, faces, width, precision }));
        }
    }
    out
}

/// Flops and bytes of one step of `variant` on `cells` cells at reconstruction `order`. Bytes: each sweep reads
/// and writes the state once (a cell's neighbours are its neighbours' own reads: assumed cached), each transpose
/// reads and writes it once. Flops: per cell and sweep, two numerical fluxes and the update; MUSCL–Hancock adds
/// three reconstructions (slopes, two fluxes, the half-step change each).
pub fn step_cost(ir: &LawIr, nflux: &str, order: usize, cells: usize, variant: &FvVariant) -> UnitCost {
    let nv = ir.variables.len() as f64;
    let b = variant.precision.bytes() as f64;
    let flux = ir.function("flux").map_or(0, |f| f.flops().total) as f64;
    let numerical = ir.function(&format!("numerical_flux:{nflux}")).map_or(0, |f| f.flops().total) as f64;
    let (faces, reconstructions) = match variant.faces {
        Faces::Twice => (2.0, 3.0),
        Faces::Once => (1.0, 1.0),
    };
    let mut per_sweep = faces * numerical + 3.0 * nv;
    if order == 2 {
        per_sweep += reconstructions * (2.0 * flux + 10.0 * nv);
    }
    let passes = match variant.transpose {
        Transpose::Tiled | Transpose::Naive => 4.0,
        Transpose::Strided | Transpose::Across => 2.0,
    };
    let cells = cells as f64;
    UnitCost { flops: cells * 2.0 * per_sweep, bytes: cells * passes * 2.0 * nv * b, units: ArithmeticUnits::Fma }
}

/// The finite volumes' orders: 1 (first order) and 2 (MUSCL–Hancock).
const FV_ORDERS: std::ops::RangeInclusive<usize> = 1..=2;

fn check_order(order: usize) -> Result<(), FormulationError> {
    if FV_ORDERS.contains(&order) {
        Ok(())
    } else {
        Err(FormulationError::Problem(format!(
            "finite volumes have orders 1 (first order) and 2 (MUSCL–Hancock), not {order}"
        )))
    }
}

impl Formulation for Fv {
    fn name(&self) -> &'static str {
        "fv"
    }

    fn summary(&self) -> &'static str {
        "finite volumes on a regular 2D grid (seed 003): split sweeps, first order or MUSCL–Hancock, the y-sweep \
         through tiled or naive transposes or strided"
    }

    fn family(&self) -> KernelFamily {
        KernelFamily { formulation: "finite-volume", element: "quad-grid", code: code_hash() }
    }

    fn supports(&self, ir: &LawIr) -> Result<(), String> {
        if ir.dim != 2 {
            return Err(format!("it needs a 2D law (this one is {}D)", ir.dim));
        }
        if !ir.materials.is_empty() {
            return Err("it takes laws without per-cell materials".into());
        }
        Ok(())
    }

    fn orders(&self) -> std::ops::RangeInclusive<usize> {
        FV_ORDERS
    }

    fn variants(
        &self,
        law: &LawCall<'_>,
        order: usize,
        precision: Precision,
        _limits: &DeviceLimits,
    ) -> Vec<(String, Option<String>)> {
        if let Err(e) = check_order(order) {
            return vec![(format!("fv/*/{}", precision.name()), Some(e.to_string()))];
        }
        match render_fv(&law.input(), precision, Target::Cuda) {
            Ok(_) => all_variants(precision).iter().map(|v| (v.to_string(), None)).collect(),
            Err(e) => vec![(format!("fv/*/{}", precision.name()), Some(e.to_string()))],
        }
    }

    fn default_variant(&self, precision: Precision) -> String {
        FvVariant { transpose: Transpose::Across, faces: Faces::Once, width: 128, precision }.to_string()
    }

    fn emit(&self, law: &LawCall<'_>, _order: usize, spec: &str, target: Target) -> Result<String, FormulationError> {
        let variant: FvVariant = spec.parse()?;
        Ok(render_fv(&law.input(), variant.precision, target).map_err(|e| FormulationError::Operator(e.into()))?.source)
    }

    fn tuner<L: ConservationLaw + Clone + Send + Sync + 'static, T: Real>(
        &self,
        law: &L,
        device: &mut dyn Device,
        target: TuneTarget,
    ) -> Result<Box<dyn Tuner>, FormulationError> {
        let ir = supported_ir(self, law)?;
        check_order(target.order)?;
        let n = ((target.timing_dofs as f64).sqrt().round() as usize).max(2);
        Ok(Box::new(FvTuner::<L, T> {
            law: law.clone(),
            ir,
            order: target.order,
            valid: all_variants(precision_of::<T>()),
            grid: FvGrid::periodic(n, n, [0.0, 0.0], [1.0, 1.0]),
            timing: None,
            checked: Vec::new(),
            target: target_of(device),
            family: self.family(),
        }))
    }
}

/// The operator on the timing grid with its state written, and the step it takes.
struct Timing<T: Real> {
    op: FvDeviceOperator<T>,
    state: Vec<T>,
    dt: f64,
}

struct FvTuner<L, T: Real> {
    law: L,
    ir: LawIr,
    order: usize,
    valid: Vec<FvVariant>,
    grid: FvGrid,
    timing: Option<Timing<T>>,
    checked: Vec<VerifyOutcome>,
    target: Target,
    family: KernelFamily,
}

impl<L: ConservationLaw + Clone, T: Real> FvTuner<L, T> {
    fn timing(&mut self, device: &mut dyn Device) -> Result<&Timing<T>, FormulationError> {
        if self.timing.is_none() {
            let params = self.law.param_values();
            let nflux = self.law.numerical_flux_name();
            let op = FvDeviceOperator::<T>::new(device, self.target, (&self.ir, &params, nflux), &self.grid)?;
            let state = grid_state::<L, T>(&self.law, &self.grid, 5);
            op.write_state(device, op.buffers.q, &state)?;
            let (limit, _, _) = op.limit(device, op.buffers.q)?;
            self.timing = Some(Timing { op, state, dt: 0.45 * limit });
        }
        self.timing.as_ref().ok_or_else(|| FormulationError::Problem("no timing problem".into()))
    }

    fn release(&mut self, device: &mut dyn Device) {
        self.timing = None;
        device.free_buffers();
    }
}

impl<L: ConservationLaw + Clone, T: Real> Tuner for FvTuner<L, T> {
    fn key(&self) -> TuningKey {
        let nflux = self.law.numerical_flux_name();
        let cells = self.grid.cells() as u64;
        TuningKey::new(self.family, self.law.name(), &self.ir.hash(), nflux, self.order, T::NAME, "fv-step", cells)
    }

    fn timing_dofs(&self) -> u64 {
        self.grid.cells() as u64
    }

    fn verification_elements(&self) -> usize {
        263 * 37
    }

    fn candidates(&mut self, _device: &mut dyn Device) -> Vec<String> {
        self.valid.iter().map(FvVariant::to_string).collect()
    }

    fn baseline(&self) -> Option<String> {
        Some(Fv.default_variant(precision_of::<T>()))
    }

    fn verify(
        &mut self,
        device: &mut dyn Device,
        specs: &[String],
        progress: &mut dyn FnMut(&VerifyOutcome),
    ) -> Vec<VerifyOutcome> {
        if self.checked.is_empty() && !specs.is_empty() {
            // every valid variant at once, on one verification problem
            self.release(device);
            let verified =
                verify_fv_variants::<L, T>(device, self.target, &self.law, &self.ir, self.order, &self.valid);
            self.checked = outcomes_or_failure::<T, _>(verified, &self.valid);
        }
        outcomes_of_specs::<T, FvVariant>(&self.checked, specs, progress)
    }

    fn time(&mut self, device: &mut dyn Device, spec: &str, plan: &TimingPlan) -> Result<(f64, f64), FormulationError> {
        let variant: FvVariant = spec.parse()?;
        let order = self.order;
        let result = (|| -> Result<(f64, f64), FormulationError> {
            let timing = self.timing(device)?;
            // into the result buffer: every repetition steps the same state
            let steps = timing.op.step_steps_into(&variant, order, (timing.dt, 0.0), timing.op.buffers.result);
            Ok(plan.measure(|n| timing.op.run(device, &steps, n))?)
        })();
        if result.is_err() {
            self.release(device);
        }
        result
    }

    fn check_at_size(&mut self, device: &mut dyn Device, spec: &str) -> VerifyOutcome {
        let variant: FvVariant = match spec.parse() {
            Ok(v) => v,
            Err(e) => return VerifyOutcome::of::<T>(spec.into(), Err(DeviceOperatorError::from(e))),
        };
        let (order, law, grid) = (self.order, self.law.clone(), self.grid.clone());
        let result = (|| -> Result<f64, FormulationError> {
            let timing = self.timing(device)?;
            let (reference, dt, _) = cpu_step(&law, &grid, order, &timing.state, (0.45, 0.0));
            let b = timing.op.buffers;
            timing.op.fill_state(device, b.result, T::from_f64(f64::NAN))?;
            let steps = timing.op.step_steps_into(&variant, order, (dt, 0.0), b.result);
            timing.op.run(device, &steps, 1)?;
            Ok(relative_l2(&timing.op.read_state(device, b.result)?, &reference))
        })();
        self.release(device);
        match result {
            Ok(e) => VerifyOutcome::of::<T>(spec.into(), Ok(e)),
            Err(e) => VerifyOutcome::rejected(spec.into(), e.to_string()),
        }
    }

    fn cost(&self, spec: &str) -> Result<UnitCost, FormulationError> {
        let variant: FvVariant = spec.parse()?;
        Ok(step_cost(&self.ir, self.law.numerical_flux_name(), self.order, self.grid.cells(), &variant))
    }
}
