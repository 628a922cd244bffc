//! The hexahedral formulation as the runtime sees it ([`Hex`]), its cost model and its tuner: a variant is
//! verified as a whole right-hand side on the verification box (box and trilinear cells, every boundary
//! condition) and timed as one right-hand side on a periodic cube of axis-aligned cells of about the requested
//! nodes.

use crate::device::HexDeviceOperator;
use crate::render::{render_hex, HexLimits, HexProgram, TEMPLATES};
use crate::variant::{HexVariant, Layout, Surface};
use crate::verify::{check_variant, cpu_rhs, program_variants, verify_hex_variants, CheckProblem};
use dg_codegen::{DeviceLimits, Precision, Target};
use dg_core::hexahedron::ReferenceHexahedron;
use dg_core::hexmesh::{hex_box_mesh, HexBoxSpec};
use dg_core::law::ConservationLaw;
use dg_core::space_hex::HexSpace;
use dg_core::Real;
use dg_ir::LawIr;
use dg_runtime::backend::Device;
use dg_runtime::cpu::BoundaryBinding;
use dg_runtime::formulation::{
    outcomes_of_specs, outcomes_or_failure, precision_of, supported_ir, target_of, Formulation, FormulationError,
    LawCall, TimingPlan, TuneTarget, Tuner, UnitCost,
};
use dg_runtime::step_system::StepOperator;
use dg_runtime::tuning_db::{ArithmeticUnits, KernelFamily, TuningKey};
use dg_runtime::verify::{random_state, VerifyOutcome};
use dg_runtime::DeviceOperatorError;
use std::sync::OnceLock;

/// The nodal weak form on hexahedra (seed 003).
#[derive(Debug, Clone, Copy, Default)]
pub struct Hex;

/// The code fingerprint of the hexahedral kernels: their templates and generator source, the reference element's too.
pub fn code_hash() -> &'static str {
    static HASH: OnceLock<String> = OnceLock::new();
    HASH.get_or_init(|| {
        let mut inputs: Vec<&str> = TEMPLATES.iter().map(|(_, t)| *t).collect();
        inputs.extend([include_str!("variant.rs"), include_str!("render.rs"), include_str!("device.rs")]);
        // the reference hexahedron's points and weights (written into the kernels)
        inputs.extend(dg_core::hexahedron::GENERATOR_SOURCES);
        dg_codegen::fingerprint::code_hash(&inputs)
    })
}

/// The program for states of the verification box in `layout` (the kernels a device compiles for a mesh differ
/// from it only in the compiled-in strides of the state).
fn program(
    law: &LawCall<'_>,
    (order, layout): (usize, Layout),
    precision: Precision,
    target: Target,
    limits: &DeviceLimits,
) -> Result<HexProgram, FormulationError> {
    let element = ReferenceHexahedron::new(order);
    let limits = HexLimits { max_work_group: limits.max_work_group, local_memory: limits.local_memory };
    let state = (layout, crate::verify::VERIFICATION_CELLS.iter().product());
    render_hex(&law.input(), &element, precision, target, limits, state)
        .map_err(|e| FormulationError::Operator(e.into()))
}

/// Flops and bytes of one right-hand side of `variant` on `k` cells, all of them axis-aligned boxes when
/// `boxes`. Flops: the law's flux at every node, the contravariant fluxes, the three sum-factorised derivatives,
/// the face extrapolations, numerical fluxes and the lift (2 per multiply-add). Bytes: what must cross device
/// memory — the state read and the right-hand side written once (neighbour lines are assumed to hit the caches),
/// the geometry the variant reads (a box's 6 values, or a trilinear cell's 10 per node and 4 per face point, with
/// the face map), and for the split surface the right-hand side read and written again, the state read again by
/// the flux kernels and the face fluxes written and read.
pub fn rhs_cost(ir: &LawIr, nflux: &str, order: usize, k: usize, variant: &HexVariant, boxes: bool) -> UnitCost {
    let n1 = (order + 1) as f64;
    let (np, nface) = (n1 * n1 * n1, 6.0 * n1 * n1);
    let nv = ir.variables.len() as f64;
    let nmat = ir.materials.len() as f64;
    let b = variant.precision.bytes() as f64;
    let flux = ir.function("flux").map_or(0, |f| f.flops().total) as f64;
    let numerical = ir.function(&format!("numerical_flux:{nflux}")).map_or(0, |f| f.flops().total) as f64;
    let metric_boxes = boxes && variant.specialised;
    let contravariant = if metric_boxes { 3.0 * nv } else { 15.0 * nv };
    let flops = np * (flux + contravariant + 3.0 * nv * 2.0 * n1 + 12.0 * nv + nv)
        + nface * (2.0 * nv * 2.0 * n1 + numerical + nv);
    let geometry = if metric_boxes { 6.0 * b } else { 10.0 * np * b + 4.0 * nface * b + 4.0 * nface };
    let mut bytes = 2.0 * nv * np * b + geometry + nmat * b + 6.0 * 4.0 + 4.0;
    if variant.surface == Surface::Split {
        bytes += 3.0 * nv * np * b + 2.0 * nv * nface * b;
    }
    let k = k as f64;
    UnitCost { flops: k * flops, bytes: k * bytes, units: ArithmeticUnits::Fma }
}

impl Formulation for Hex {
    fn name(&self) -> &'static str {
        "hex"
    }

    fn summary(&self) -> &'static str {
        "nodal weak form on hexahedra (seed 003): sum factorisation, fused or split surface, specialised per zone \
         (order, geometry class, parameters) or generic"
    }

    fn family(&self) -> KernelFamily {
        KernelFamily { formulation: "nodal-weak", element: "hex", code: code_hash() }
    }

    fn supports(&self, ir: &LawIr) -> Result<(), String> {
        if ir.dim != 3 {
            return Err(format!("it needs a 3D law (this one is {}D)", ir.dim));
        }
        // (a source term is added by the program's `hex_source` kernel)
        Ok(())
    }

    fn orders(&self) -> std::ops::RangeInclusive<usize> {
        0..=dg_core::space_hex::MAX_HEX_ORDER
    }

    fn variants(
        &self,
        law: &LawCall<'_>,
        order: usize,
        precision: Precision,
        limits: &DeviceLimits,
    ) -> Vec<(String, Option<String>)> {
        match program(law, (order, Layout::Kvi), precision, Target::Cuda, limits) {
            Ok(p) => {
                let valid = program_variants(&p);
                let mut out: Vec<(String, Option<String>)> = valid.iter().map(|v| (v.to_string(), None)).collect();
                out.extend(p.rejected.iter().map(|(name, why)| (name.clone(), Some(why.clone()))));
                out
            }
            Err(e) => vec![(format!("hex/*/{}", precision.name()), Some(e.to_string()))],
        }
    }

    fn default_variant(&self, precision: Precision) -> String {
        HexVariant { surface: Surface::Fused, specialised: true, cells: 1, layout: Layout::Kvi, precision }.to_string()
    }

    fn emit(&self, law: &LawCall<'_>, order: usize, spec: &str, target: Target) -> Result<String, FormulationError> {
        let variant: HexVariant = spec.parse()?;
        let gpu = DeviceLimits::current_gpu();
        let p = program(law, (order, variant.layout), variant.precision, target, &gpu)?;
        let cells = p.state.1;
        Ok(format!(
            "/* states of {cells} cells (the verification box): a run compiles its own mesh's strides */\n{}",
            p.source
        ))
    }

    fn tuner<L: ConservationLaw + Clone + Send + Sync + 'static, T: Real>(
        &self,
        law: &L,
        device: &mut dyn Device,
        target: TuneTarget,
    ) -> Result<Box<dyn Tuner>, FormulationError> {
        let ir = supported_ir(self, law)?;
        let limits = dg_runtime::backend::limits_of(device);
        let params = law.param_values();
        let call = LawCall { ir: &ir, params: &params, numerical_flux: law.numerical_flux_name() };
        let lang = target_of(device);
        let program = program(&call, (target.order, Layout::Kvi), precision_of::<T>(), lang, &limits)?;
        let valid = program_variants(&program);
        let np = (target.order + 1).pow(3);
        let n =
            ((target.timing_dofs as f64 / np as f64).cbrt().round() as usize).max(dg_core::mesh::MIN_PERIODIC_CELLS);
        Ok(Box::new(HexTuner::<L, T> {
            law: law.clone(),
            ir,
            order: target.order,
            valid,
            n,
            timing: None,
            op: None,
            checked: Vec::new(),
            target: lang,
            family: self.family(),
        }))
    }
}

/// The timing mesh: a periodic unit cube of n³ axis-aligned cells.
pub fn timing_space(order: usize, n: usize) -> Result<HexSpace, dg_core::space::SpaceError> {
    HexSpace::new(hex_box_mesh(&HexBoxSpec::unit_cube(n, true))?, order)
}

struct HexTuner<L, T: Real> {
    law: L,
    ir: LawIr,
    order: usize,
    valid: Vec<HexVariant>,
    n: usize,
    timing: Option<CheckProblem<T>>,
    op: Option<HexDeviceOperator<T>>,
    checked: Vec<VerifyOutcome>,
    target: Target,
    family: KernelFamily,
}

impl<L: ConservationLaw + Clone, T: Real> HexTuner<L, T> {
    fn elements(&self) -> usize {
        self.n * self.n * self.n
    }

    fn timing(&mut self) -> Result<&CheckProblem<T>, FormulationError> {
        if self.timing.is_none() {
            let problem = |e: &dyn std::fmt::Display| FormulationError::Problem(format!("timing mesh: {e}"));
            let space = timing_space(self.order, self.n).map_err(|e| problem(&e))?;
            let binding =
                BoundaryBinding::for_law_on_hexes(&self.law, &space, &Default::default()).map_err(|e| problem(&e))?;
            let k = space.num_elements();
            let materials: Vec<f64> = (0..k * L::NMATERIALS).map(|i| 1.0 + 0.1 * (i % 3) as f64).collect();
            let state = random_state::<T>(self.law.variable_names(), space.element.np, k, 5);
            self.timing = Some(CheckProblem { space, binding, materials, state });
        }
        self.timing.as_ref().ok_or_else(|| FormulationError::Problem("no timing problem".into()))
    }

    /// The timing operator for states in `layout` (rebuilt when the layout changes: the candidates come layout by
    /// layout).
    fn operator(&mut self, device: &mut dyn Device, layout: Layout) -> Result<&HexDeviceOperator<T>, FormulationError> {
        if self.op.as_ref().is_some_and(|op| op.layout() != layout) {
            self.release(device);
        }
        if self.op.is_none() {
            let (ir, params, target) = (self.ir.clone(), self.law.param_values(), self.target);
            let nflux = self.law.numerical_flux_name();
            let p = self.timing()?;
            let space = (&p.space, &p.binding);
            let op = HexDeviceOperator::<T>::new(device, target, (&ir, &params, nflux), space, &p.materials, layout)?;
            let state = p.state.clone();
            op.write_state(device, op.buffers.q, &state)?;
            self.op = Some(op);
        }
        self.op.as_ref().ok_or_else(|| FormulationError::Problem("no operator".into()))
    }

    fn release(&mut self, device: &mut dyn Device) {
        self.op = None;
        device.free_buffers();
    }
}

impl<L: ConservationLaw + Clone, T: Real> Tuner for HexTuner<L, T> {
    fn key(&self) -> TuningKey {
        let nflux = self.law.numerical_flux_name();
        let nodes = self.timing_dofs();
        TuningKey::new(self.family, self.law.name(), &self.ir.hash(), nflux, self.order, T::NAME, "rhs", nodes)
    }

    fn timing_dofs(&self) -> u64 {
        (self.elements() * (self.order + 1).pow(3)) as u64
    }

    fn verification_elements(&self) -> usize {
        crate::verify::VERIFICATION_CELLS.iter().product()
    }

    fn candidates(&mut self, _device: &mut dyn Device) -> Vec<String> {
        self.valid.iter().map(HexVariant::to_string).collect()
    }

    fn baseline(&self) -> Option<String> {
        Some(Hex.default_variant(precision_of::<T>()))
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
                verify_hex_variants::<L, T>(device, self.target, &self.law, &self.ir, self.order, &self.valid);
            self.checked = outcomes_or_failure::<T, _>(verified, &self.valid);
        }
        outcomes_of_specs::<T, HexVariant>(&self.checked, specs, progress)
    }

    fn time(&mut self, device: &mut dyn Device, spec: &str, plan: &TimingPlan) -> Result<(f64, f64), FormulationError> {
        let variant: HexVariant = spec.parse()?;
        let result = (|| -> Result<(f64, f64), FormulationError> {
            let op = self.operator(device, variant.layout)?;
            let steps = op.rhs_steps(&variant, op.buffers.q, op.buffers.rhs, 0.0)?;
            Ok(plan.measure(|n| op.run(device, &steps, n))?)
        })();
        if result.is_err() {
            self.release(device);
        }
        result
    }

    fn check_at_size(&mut self, device: &mut dyn Device, spec: &str) -> VerifyOutcome {
        let variant: HexVariant = match spec.parse() {
            Ok(v) => v,
            Err(e) => return VerifyOutcome::of::<T>(spec.into(), Err(DeviceOperatorError::from(e))),
        };
        let result = (|| -> Result<VerifyOutcome, FormulationError> {
            let law = self.law.clone();
            let reference = cpu_rhs(&law, self.timing()?, 0.0);
            self.release(device);
            let op = self.operator(device, variant.layout)?;
            Ok(check_variant(device, op, &variant, &reference, 0.0))
        })();
        self.release(device);
        result.unwrap_or_else(|e| VerifyOutcome::rejected(spec.into(), e.to_string()))
    }

    fn cost(&self, spec: &str) -> Result<UnitCost, FormulationError> {
        let variant: HexVariant = spec.parse()?;
        let nflux = self.law.numerical_flux_name();
        Ok(rhs_cost(&self.ir, nflux, self.order, self.elements(), &variant, true))
    }
}
