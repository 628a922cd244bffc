//! The tetrahedral formulation as the runtime sees it ([`NodalTet`]), and its tuner: a variant (volume and surface
//! strategy, update block) is verified kernel by kernel and as a whole right-hand side on the verification box,
//! and timed as one whole AB3 step (volume, surface, fused update) on a cube of about the requested nodes.

use crate::bench::bench_space;
use crate::cost::step_cost;
use crate::device::TetDeviceOperator;
use crate::render::{render_tet, TetProgram, TetRole, TEMPLATES};
use crate::variant::{GemmEngine, Strategy, TetLimits, TetVariant, KU_CHOICES};
use crate::verify::{check_strategy, cpu_rhs, every_condition, kernel_labels, verify_tet_variants};
use dg_codegen::{DeviceLimits, Precision, Target};
use dg_core::law::ConservationLaw;
use dg_core::space3d::DgSpace3d;
use dg_core::tetrahedron::ReferenceTetrahedron;
use dg_core::Real;
use dg_ir::LawIr;
use dg_runtime::backend::Device;
use dg_runtime::cpu::BoundaryBinding;
use dg_runtime::formulation::{
    precision_of, supported_ir, target_of, Formulation, FormulationError, KernelReport, LawCall, TimingPlan,
    TuneTarget, Tuner, UnitCost,
};
use dg_runtime::tuning_db::{ArithmeticUnits, KernelFamily, TuningKey};
use dg_runtime::verify::{random_state, VerifyOutcome};
use dg_runtime::DeviceOperatorError;
use std::sync::OnceLock;

/// The nodal strong form on tetrahedra (seed 002).
#[derive(Debug, Clone, Copy, Default)]
pub struct NodalTet;

/// The code fingerprint of the tetrahedral kernels: their templates and generator source, the reference element's too.
pub fn code_hash() -> &'static str {
    static HASH: OnceLock<String> = OnceLock::new();
    HASH.get_or_init(|| {
        let mut inputs: Vec<&str> = TEMPLATES.iter().map(|(_, t)| *t).collect();
        inputs.extend([
            include_str!("variant.rs"),
            include_str!("render.rs"),
            include_str!("plan.rs"),
            include_str!("mma.rs"),
        ]);
        // the reference tetrahedron's nodes and operators (the kernels' face masks)
        inputs.extend(dg_core::tetrahedron::GENERATOR_SOURCES);
        dg_codegen::fingerprint::code_hash(&inputs)
    })
}

/// The variants a program offers: node per thread with every volume and surface block it holds, element per
/// thread at every width held for both terms, GEMM where the device has a BLAS (`gemm`), with its products on the
/// tensor cores where the program has those kernels and the device may run them (`mma`: the lift alone beside the
/// BLAS, or all three); each with every update block held in the kind it needs (with the traces written, or for
/// GEMM without).
pub fn program_variants(program: &TetProgram, (gemm, mma): (bool, bool)) -> Vec<TetVariant> {
    let (mut vol, mut surf, mut elem_v, mut elem_s) = (vec![], vec![], vec![], vec![]);
    let (mut upd_traces, mut upd_bare) = (vec![], vec![]);
    for k in &program.kernels {
        match k.role {
            TetRole::VolumeNode { kb } => vol.push(kb),
            TetRole::SurfaceNode { kb } => surf.push(kb),
            TetRole::VolumeElement { width } => elem_v.push(width),
            TetRole::SurfaceElement { width } => elem_s.push(width),
            TetRole::UpdateAb3 { ku, traces: true } => upd_traces.push(ku),
            TetRole::UpdateAb3 { ku, traces: false } => upd_bare.push(ku),
            _ => {}
        }
    }
    let mut strategies: Vec<Strategy> = Vec::new();
    for &v in &vol {
        for &s in &surf {
            strategies.push(Strategy::Node { volume: v, surface: s });
        }
    }
    strategies.extend(elem_v.iter().filter(|w| elem_s.contains(w)).map(|&width| Strategy::Element { width }));
    let mut engines = Vec::new();
    if gemm {
        engines.push(GemmEngine::Blas);
    }
    if mma && gemm && program.has_mma_lift() {
        engines.push(GemmEngine::MmaLift);
    }
    if mma && program.has_mma() {
        engines.push(GemmEngine::Mma);
    }
    for engine in engines {
        strategies.extend([false, true].map(|merged| Strategy::Gemm { merged, engine }));
    }
    // the update in the lift has no update block: one variant per strategy (with the smallest block, unused)
    let mut fused = Vec::new();
    if mma && program.has_mma_ab3() {
        fused.extend([false, true].map(|merged| Strategy::Gemm { merged, engine: GemmEngine::MmaAb3 }));
    }
    let precision = program.precision;
    let mut variants: Vec<TetVariant> = strategies
        .into_iter()
        .flat_map(|strategy| {
            let upd = if strategy.reads_traces() { &upd_traces } else { &upd_bare };
            upd.iter().map(move |&update| TetVariant { strategy, update, precision })
        })
        .collect();
    variants.extend(fused.into_iter().map(|strategy| TetVariant { strategy, update: KU_CHOICES[0], precision }));
    variants
}

fn limits_of(limits: &DeviceLimits) -> TetLimits {
    TetLimits {
        max_work_group: limits.max_work_group,
        local_memory: limits.local_memory,
        tensor_cores: limits.tensor_cores,
    }
}

fn program(
    law: &LawCall<'_>,
    order: usize,
    precision: Precision,
    target: Target,
    limits: &DeviceLimits,
) -> Result<TetProgram, FormulationError> {
    let element = ReferenceTetrahedron::new(order).map_err(|e| FormulationError::Problem(e.to_string()))?;
    render_tet(&law.input(), &element, precision, target, limits_of(limits))
        .map_err(|e| FormulationError::Operator(e.into()))
}

impl Formulation for NodalTet {
    fn name(&self) -> &'static str {
        "nodal-tet"
    }

    fn summary(&self) -> &'static str {
        "nodal strong form on tetrahedra with AB3 (seed 002): node/element per thread, cuBLAS GEMM, fused update"
    }

    fn family(&self) -> KernelFamily {
        KernelFamily { formulation: "nodal-strong", element: "tet", code: code_hash() }
    }

    fn supports(&self, ir: &LawIr) -> Result<(), String> {
        if ir.dim != 3 {
            return Err(format!("it needs a 3D law (this one is {}D)", ir.dim));
        }
        // (a source term is added by the program's `tet_source` kernel)
        Ok(())
    }

    fn orders(&self) -> std::ops::RangeInclusive<usize> {
        dg_core::tetrahedron::MIN_ORDER..=dg_core::tetrahedron::MAX_ORDER
    }

    fn variants(
        &self,
        law: &LawCall<'_>,
        order: usize,
        precision: Precision,
        limits: &DeviceLimits,
    ) -> Vec<(String, Option<String>)> {
        match program(law, order, precision, Target::Cuda, limits) {
            Ok(p) => program_variants(&p, (true, true)).iter().map(|v| (v.to_string(), None)).collect(),
            Err(e) => vec![(format!("tet/*/{}", precision.name()), Some(e.to_string()))],
        }
    }

    fn default_variant(&self, precision: Precision) -> String {
        TetVariant { strategy: Strategy::Node { volume: 2, surface: 1 }, update: 2, precision }.to_string()
    }

    fn emit(&self, law: &LawCall<'_>, order: usize, spec: &str, target: Target) -> Result<String, FormulationError> {
        // one program holds every kernel of every strategy; the SPEC picks the precision
        let variant: TetVariant = spec.parse()?;
        // a current GPU with tensor cores (CUDA): the program such a device compiles
        let gpu = DeviceLimits { tensor_cores: target == Target::Cuda, ..DeviceLimits::current_gpu() };
        Ok(program(law, order, variant.precision, target, &gpu)?.source)
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
        let program = program(&call, target.order, precision_of::<T>(), lang, &limits)?;
        // the GEMM strategies join the list once the device's BLAS is known to load (asked only when needed:
        // loading cuBLAS costs a run's start-up time)
        let tensor_cores = device.supports_tensor_cores();
        let valid = program_variants(&program, (false, tensor_cores));
        let library_backed: Vec<TetVariant> = match lang {
            Target::Cuda => {
                program_variants(&program, (true, tensor_cores)).into_iter().filter(|v| !valid.contains(v)).collect()
            }
            Target::OpenCl => Vec::new(),
        };
        let np = dg_core::tetrahedron::num_nodes(target.order);
        let n = ((target.timing_dofs as f64 / (6.0 * np as f64)).cbrt().round() as usize).max(1);
        Ok(Box::new(NodalTetTuner::<L, T> {
            law: law.clone(),
            ir,
            order: target.order,
            valid,
            library_backed,
            blas_asked: false,
            nodes: target.timing_dofs as usize,
            elements: 6 * n * n * n,
            np,
            timing: None,
            op: None,
            checked: Vec::new(),
            target: lang,
            family: self.family(),
            real: std::marker::PhantomData,
        }))
    }
}

/// The timing problem: the cube, its binding and materials, a random state and the CPU right-hand side of it.
struct TimingProblem<T> {
    space: DgSpace3d,
    binding: BoundaryBinding,
    materials: Vec<f64>,
    state: Vec<T>,
}

struct NodalTetTuner<L, T: Real> {
    law: L,
    ir: LawIr,
    order: usize,
    /// The variants valid here: those built on no library, then (once the BLAS is known to load) the GEMM ones.
    valid: Vec<TetVariant>,
    /// The GEMM strategies' variants, valid where the device's BLAS loads.
    library_backed: Vec<TetVariant>,
    /// Whether the device was asked for its BLAS (and `library_backed` moved into `valid` if it loads).
    blas_asked: bool,
    nodes: usize,
    elements: usize,
    np: usize,
    timing: Option<TimingProblem<T>>,
    /// The operator on the timing problem, kept between timings (this tuner is the only one that frees the
    /// device's buffers while it works, and drops it when it does).
    op: Option<TetDeviceOperator<T>>,
    /// Outcomes of every variant on the verification mesh, computed once (the kernel checks cover them all).
    checked: Vec<VerifyOutcome>,
    target: Target,
    family: KernelFamily,
    real: std::marker::PhantomData<T>,
}

impl<L: ConservationLaw + Clone, T: Real> NodalTetTuner<L, T> {
    fn timing(&mut self) -> Result<&TimingProblem<T>, FormulationError> {
        if self.timing.is_none() {
            let problem = |e: &dyn std::fmt::Display| FormulationError::Problem(format!("timing mesh: {e}"));
            let space = bench_space(self.order, self.nodes).map_err(|e| problem(&e))?;
            let binding = BoundaryBinding::for_law_on_tets(&self.law, &space, &every_condition(&self.law))
                .map_err(|e| problem(&e))?;
            let k = space.num_elements();
            let materials: Vec<f64> = (0..k * L::NMATERIALS).map(|i| 1.0 + 0.1 * (i % 3) as f64).collect();
            let state = random_state::<T>(self.law.variable_names(), space.element.np, k, 5);
            self.timing = Some(TimingProblem { space, binding, materials, state });
        }
        self.timing.as_ref().ok_or_else(|| FormulationError::Problem("no timing problem".into()))
    }

    /// The operator on the timing problem with the state written and its traces extracted (built once).
    fn operator(&mut self, device: &mut dyn Device) -> Result<&TetDeviceOperator<T>, FormulationError> {
        if self.op.is_none() {
            let (ir, params, target) = (self.ir.clone(), self.law.param_values(), self.target);
            let nflux = self.law.numerical_flux_name();
            let p = self.timing()?;
            let (space, binding, materials, state) = (&p.space, &p.binding, &p.materials, p.state.clone());
            let op = TetDeviceOperator::<T>::new(device, target, (&ir, &params, nflux), space, binding, materials)?;
            op.write_state(device, op.buffers.q, &state)?;
            op.run(device, &[op.trace_step(op.buffers.q)?], 1)?;
            self.op = Some(op);
        }
        self.op.as_ref().ok_or_else(|| FormulationError::Problem("no operator".into()))
    }

    /// Asks the device for its BLAS once, adding the GEMM strategies' variants to `valid` where it loads.
    fn ask_blas(&mut self, device: &mut dyn Device) {
        if !self.blas_asked {
            self.blas_asked = true;
            if !self.library_backed.is_empty() && device.supports_gemm() {
                self.valid.append(&mut self.library_backed);
            }
        }
    }

    /// Frees the device's buffers (and forgets the operator that lived in them).
    fn release(&mut self, device: &mut dyn Device) {
        self.op = None;
        device.free_buffers();
    }
}

impl<L: ConservationLaw + Clone, T: Real> Tuner for NodalTetTuner<L, T> {
    fn key(&self) -> TuningKey {
        let nflux = self.law.numerical_flux_name();
        let nodes = (self.elements * self.np) as u64;
        TuningKey::new(self.family, self.law.name(), &self.ir.hash(), nflux, self.order, T::NAME, "ab3-step", nodes)
    }

    fn timing_dofs(&self) -> u64 {
        (self.elements * self.np) as u64
    }

    fn verification_elements(&self) -> usize {
        let [a, b, c] = crate::verify::VERIFICATION_CELLS;
        5 * a * b * c
    }

    fn candidates(&mut self, device: &mut dyn Device) -> Vec<String> {
        self.ask_blas(device);
        self.valid.iter().map(TetVariant::to_string).collect()
    }

    fn accepts(&mut self, device: &mut dyn Device, spec: &str) -> bool {
        let Ok(variant) = spec.parse::<TetVariant>() else { return false };
        // a variant built on no library is answered without loading the BLAS
        self.valid.contains(&variant) || self.candidates(device).iter().any(|c| c == spec)
    }

    fn baseline(&self) -> Option<String> {
        Some(NodalTet.default_variant(precision_of::<T>()))
    }

    fn neighbours(&self, spec: &str) -> Vec<String> {
        let Ok(best) = spec.parse::<TetVariant>() else { return Vec::new() };
        let one_axis = |v: &TetVariant| {
            let same_kind = std::mem::discriminant(&v.strategy) == std::mem::discriminant(&best.strategy);
            (v.strategy == best.strategy) != (v.update == best.update)
                || (!same_kind && v.update == best.update)
                || match (v.strategy, best.strategy) {
                    (Strategy::Node { volume: a, surface: b }, Strategy::Node { volume: c, surface: d }) => {
                        (a == c) != (b == d) && v.update == best.update
                    }
                    _ => false,
                }
        };
        self.valid.iter().filter(|v| **v != best && one_axis(v)).map(TetVariant::to_string).collect()
    }

    fn verify(
        &mut self,
        device: &mut dyn Device,
        specs: &[String],
        progress: &mut dyn FnMut(&VerifyOutcome),
    ) -> Vec<VerifyOutcome> {
        self.ask_blas(device);
        let mut parsed = Vec::new();
        let mut outcomes: Vec<Option<VerifyOutcome>> = vec![None; specs.len()];
        for (i, spec) in specs.iter().enumerate() {
            match spec.parse::<TetVariant>() {
                Ok(v) if self.valid.contains(&v) => parsed.push((i, v)),
                Ok(_) => {
                    outcomes[i] = Some(VerifyOutcome::rejected(spec.clone(), "not among this device's variants".into()))
                }
                Err(e) => outcomes[i] = Some(VerifyOutcome::of::<T>(spec.clone(), Err(e.into()))),
            }
        }
        if self.checked.is_empty() && !parsed.is_empty() {
            // every valid variant at once: the kernel checks behind them run once
            self.op = None;
            self.checked =
                match verify_tet_variants::<L, T>(device, self.target, &self.law, &self.ir, self.order, &self.valid) {
                    Ok(checked) => checked,
                    Err(e) => self
                        .valid
                        .iter()
                        .map(|v| {
                            VerifyOutcome::of::<T>(v.to_string(), Err(DeviceOperatorError::Precision(e.to_string())))
                        })
                        .collect(),
                };
        }
        for (i, v) in parsed {
            let spec = v.to_string();
            outcomes[i] = self.checked.iter().find(|c| c.variant == spec).cloned();
        }
        let out: Vec<VerifyOutcome> = outcomes
            .into_iter()
            .zip(specs)
            .map(|(o, s)| o.unwrap_or_else(|| VerifyOutcome::rejected(s.clone(), "not verified".into())))
            .collect();
        out.iter().for_each(progress);
        out
    }

    fn time(&mut self, device: &mut dyn Device, spec: &str, plan: &TimingPlan) -> Result<(f64, f64), FormulationError> {
        let variant: TetVariant = spec.parse()?;
        let result = (|| -> Result<(f64, f64), FormulationError> {
            let op = self.operator(device)?;
            let steps = op.ab3_steps(&variant, op.buffers.rhs, 0.0, 1e-9)?;
            Ok(plan.measure(|n| op.run(device, &steps, n))?)
        })();
        if result.is_err() {
            self.release(device);
        }
        result
    }

    fn check_at_size(&mut self, device: &mut dyn Device, spec: &str) -> VerifyOutcome {
        let variant: TetVariant = match spec.parse() {
            Ok(v) => v,
            Err(e) => return VerifyOutcome::of::<T>(spec.into(), Err(DeviceOperatorError::from(e))),
        };
        let result = (|| -> Result<VerifyOutcome, FormulationError> {
            let law = self.law.clone();
            let p = self.timing()?;
            let state = p.state.clone();
            let reference = cpu_rhs(&law, &p.space, &p.binding, &p.materials, &state, 0.0);
            // a fresh operator: the timings moved its state
            self.release(device);
            let order = self.order;
            let op = self.operator(device)?;
            // the kernel checks were done on the verification mesh; here the whole right-hand side at this size
            let passed: Vec<VerifyOutcome> = kernel_labels(&variant, order, T::NAME)
                .into_iter()
                .map(|l| VerifyOutcome::of::<T>(l, Ok(0.0)))
                .collect();
            Ok(check_strategy(device, op, &variant, &passed, &reference, order))
        })();
        self.release(device);
        result.unwrap_or_else(|e| VerifyOutcome::rejected(spec.into(), e.to_string()))
    }

    fn kernel_report(
        &mut self,
        device: &mut dyn Device,
        repeats: usize,
        ceilings: &dg_runtime::tuning_db::Ceilings,
    ) -> Option<Result<KernelReport, FormulationError>> {
        let nodes = self.timing_dofs() as usize;
        let precision = precision_of::<T>();
        self.op = None; // the report builds its own problems and frees the device's buffers
        let report = crate::bench::bench_one(&self.law, device, self.order, nodes, precision, repeats, ceilings)
            .map_err(FormulationError::from)
            .and_then(|b| {
                let detail = serde_json::to_value(&b).map_err(|e| FormulationError::Problem(e.to_string()))?;
                Ok(KernelReport { summary: crate::bench::summary_line(&b), detail })
            });
        Some(report)
    }

    fn cost(&self, spec: &str) -> Result<UnitCost, FormulationError> {
        let variant: TetVariant = spec.parse()?;
        let c = step_cost(&self.ir, self.law.numerical_flux_name(), self.order, self.elements, variant.precision);
        Ok(UnitCost {
            flops: c.flops,
            bytes: c.bytes,
            units: match variant.strategy {
                Strategy::Gemm { engine: GemmEngine::Mma, .. } => ArithmeticUnits::SplitTf32,
                Strategy::Gemm { .. } => ArithmeticUnits::LibraryGemm,
                _ => ArithmeticUnits::Fma,
            },
        })
    }
}
