//! The nodal triangle formulation as the runtime sees it ([`NodalTri`]), and its tuner: the verification problem,
//! a periodic square of at least the requested DOFs for timing, the CPU reference on both, seed 000's baseline and
//! one-axis neighbours for greedy search, and the cost model.

use crate::cost::{rhs_cost, stage_cost};
use crate::device::{DeviceOperator, FoldedStage};
use crate::render::{render_nodal_tri, KernelSource, TEMPLATES};
use crate::variant::{DeviceLimits, LawShape, Layout, Partition, Precision, Storage, Surface, Variant, VolumeForm};
use crate::verify::{valid_variants, verify_all, verify_variant, VerificationSetup, VerifyProblem};
use dg_codegen::LawInput;
use dg_codegen::Target;
use dg_core::law::ConservationLaw;
use dg_core::mesh::{rectangle, RectangleSpec};
use dg_core::space::DgSpace2d;
use dg_core::triangle::ReferenceTriangle;
use dg_core::Real;
use dg_ir::LawIr;
use dg_runtime::backend::{BufferId, Device, ProgramId};
use dg_runtime::cpu::BoundaryBinding;
use dg_runtime::formulation::{
    precision_of, supported_ir, target_of, Formulation, FormulationError, LawCall, TimedOperation, TimingPlan,
    TuneTarget, Tuner, UnitCost,
};
use dg_runtime::tuning_db::{ArithmeticUnits, KernelFamily, TuningKey};
use dg_runtime::verify::{random_state, VerifyOutcome};
use rand::{Rng, SeedableRng};
use std::collections::HashMap;
use std::sync::OnceLock;

/// The nodal strong form on triangles (seed 000).
#[derive(Debug, Clone, Copy, Default)]
pub struct NodalTri;

/// The code fingerprint of the nodal triangle kernels: their templates and generator source, the reference
/// element's too.
pub fn code_hash() -> &'static str {
    static HASH: OnceLock<String> = OnceLock::new();
    HASH.get_or_init(|| {
        let mut inputs: Vec<&str> = TEMPLATES.iter().map(|(_, t)| *t).collect();
        inputs.extend([
            include_str!("variant.rs"),
            include_str!("microblock.rs"),
            include_str!("render.rs"),
            include_str!("batch.rs"),
            // the mirror pairs, their order and the rows' shares (the mirror tiles' constants and blocks)
            include_str!("mirror.rs"),
            // the folded operators' tensor-core fragments, their sections and offsets (the mmamirror kernels)
            include_str!("mirror_mma.rs"),
            // the tiles' operator layout, written into the matrix-const kernels (`tile_matrices`)
            include_str!("device.rs"),
            // the mixed form's plan (which variables go flux-first, which gradients are shared)
            include_str!("../../../dg-ir/src/divergence.rs"),
        ]);
        // the reference triangle's nodes and operators (the matrix-const kernels' entries, face masks, mirror pairs)
        inputs.extend(dg_core::triangle::GENERATOR_SOURCES);
        dg_codegen::fingerprint::code_hash(&inputs)
    })
}

/// The highest order at which a tuning search visits the matrix-const storage ([`searched_at`]).
pub const MATRIX_CONST_SEARCHED_TO: usize = 4;

/// Whether a tuning search visits `variant` at order `order` (a valid variant a search leaves out stays valid on
/// request, `--variant`, and `dg verify` checks it): the matrix-const storage only up to [`MATRIX_CONST_SEARCHED_TO`].
/// Above it the fully unrolled operator is the largest program of a search to compile, and it lost every time it
/// was measured: on an H200 (2026-12-02, maxwell2d, exhaustive, both precisions) the best matrix-const candidate was
/// 1.39–2.06× slower than the winner at N = 5..8 (right-hand side) and 1.13–1.58× (stage). `dg autotune
/// --every-variant` searches it too. (A search rule, not a kernel's: it is not part of [`code_hash`].)
pub fn searched_at(variant: &Variant, order: usize) -> bool {
    variant.storage != Storage::MatrixConst || order <= MATRIX_CONST_SEARCHED_TO
}

/// Seed 000's demonstration layout: one microblock per group, node per thread, field in local memory, fused
/// surface.
pub fn seed_baseline(precision: Precision) -> Variant {
    Variant {
        partition: Partition::Node,
        group: 1,
        seq: 1,
        storage: Storage::FieldLocal,
        surface: Surface::Fused,
        layout: Layout::ElementMajor,
        precision,
        form: VolumeForm::FluxFirst,
    }
}

/// Cells per side of the periodic timing square (two triangles each) for at least `min_dofs` DOFs.
fn timing_cells(order: usize, nvars: usize, min_dofs: u64) -> usize {
    let np = dg_core::triangle::num_nodes(order) as f64;
    ((min_dofs as f64 / (2.0 * np * nvars as f64)).sqrt().ceil() as usize).max(dg_core::mesh::MIN_PERIODIC_CELLS)
}

/// The timing problem: a periodic unit square with at least `min_dofs` DOFs.
pub fn timing_space(order: usize, nvars: usize, min_dofs: u64) -> Result<DgSpace2d, FormulationError> {
    let n = timing_cells(order, nvars, min_dofs);
    let problem = |e: &dyn std::fmt::Display| FormulationError::Problem(format!("timing mesh: {e}"));
    let mesh = rectangle(&RectangleSpec { periodic_x: true, periodic_y: true, ..RectangleSpec::unit_square(n) })
        .map_err(|e| problem(&e))?;
    DgSpace2d::new(mesh, order).map_err(|e| problem(&e))
}

/// Per-element materials drawn in [0.5, 2] (coefficients that jump across every face).
pub fn random_materials<L: ConservationLaw>(elements: usize, seed: u64) -> Vec<f64> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    (0..elements * L::NMATERIALS).map(|_| rng.random_range(0.5..2.0)).collect()
}

fn differs_in_one_axis(a: &Variant, b: &Variant) -> bool {
    let axes = [
        a.partition != b.partition,
        a.group != b.group,
        a.seq != b.seq,
        a.storage != b.storage,
        a.surface != b.surface,
        a.layout != b.layout,
        a.form != b.form,
    ];
    axes.iter().filter(|&&d| d).count() == 1
        || (a.partition != b.partition && a.storage == b.storage && a.surface == b.surface)
}

impl Formulation for NodalTri {
    fn name(&self) -> &'static str {
        "nodal-tri"
    }

    fn summary(&self) -> &'static str {
        "nodal strong form on triangles, warp-and-blend nodes (seed 000): node/element per thread, microblocks, \
         operator storage, fused/split/merged surface, layouts"
    }

    fn family(&self) -> KernelFamily {
        KernelFamily { formulation: "nodal-strong", element: "tri", code: code_hash() }
    }

    fn supports(&self, ir: &LawIr) -> Result<(), String> {
        if ir.dim != 2 {
            return Err(format!("it needs a 2D law (this one is {}D)", ir.dim));
        }
        // (a source term is added in the store of the merged element, tile and tensor-core kernels, or by the
        // program's `source` kernel)
        Ok(())
    }

    fn orders(&self) -> std::ops::RangeInclusive<usize> {
        dg_core::triangle::MIN_ORDER..=dg_core::triangle::MAX_ORDER
    }

    fn variants(
        &self,
        law: &LawCall<'_>,
        order: usize,
        precision: Precision,
        limits: &DeviceLimits,
    ) -> Vec<(String, Option<String>)> {
        let shape = LawShape::of(law.ir);
        Variant::all(precision)
            .iter()
            .map(|v| (v.to_string(), v.check(order, &shape, limits).err().map(|e| e.to_string())))
            .collect()
    }

    fn searched_at(&self, spec: &str, order: usize) -> bool {
        spec.parse::<Variant>().is_ok_and(|v| searched_at(&v, order))
    }

    fn default_variant(&self, precision: Precision) -> String {
        seed_baseline(precision).to_string()
    }

    fn emit(&self, law: &LawCall<'_>, order: usize, spec: &str, target: Target) -> Result<String, FormulationError> {
        let variant: Variant = spec.parse()?;
        // the rules of the variant space; the device's own limits are checked where it compiles
        let unlimited = DeviceLimits {
            local_memory: usize::MAX,
            max_work_group: usize::MAX,
            tensor_cores: true,
            f64_mma_m16: true,
            blas: true,
            async_copies: true,
        };
        variant.check(order, &LawShape::of(law.ir), &unlimited)?;
        let element = ReferenceTriangle::new(order).map_err(|e| FormulationError::Problem(e.to_string()))?;
        let source = render_nodal_tri(&law.input(), &element, &variant, target)
            .map_err(|e| FormulationError::Operator(e.into()))?;
        Ok(source.source)
    }

    fn timed_operations(&self) -> &'static [TimedOperation] {
        &[TimedOperation::Unit, TimedOperation::LowStorageStage]
    }

    /// Runs step LSRK45 (low-storage stages) by default: a run looks for the stage's winner first.
    fn run_operation(&self) -> TimedOperation {
        TimedOperation::LowStorageStage
    }

    fn tuner<L: ConservationLaw + Clone + Send + Sync + 'static, T: Real>(
        &self,
        law: &L,
        device: &mut dyn Device,
        target: TuneTarget,
    ) -> Result<Box<dyn Tuner>, FormulationError> {
        self.check_operation(target.operation)?;
        let ir = supported_ir(self, law)?;
        // the device's BLAS is asked only when a library-backed variant's validity is needed (loading cuBLAS costs
        // a run's start-up time, and a run's stored winner is usually built on none)
        let without = dg_runtime::backend::limits_of(device);
        let shape = LawShape::of(&ir);
        let (valid, _) =
            valid_variants(target.order, &shape, precision_of::<T>(), &DeviceLimits { blas: true, ..without });
        let (plain, _) = valid_variants(target.order, &shape, precision_of::<T>(), &without);
        let library_backed: Vec<Variant> = valid.iter().filter(|v| !plain.contains(v)).cloned().collect();
        let setup = VerificationSetup::new(law, target.order)?;
        let n = timing_cells(target.order, L::NVARS, target.timing_dofs);
        let dofs = (2 * n * n * dg_core::triangle::num_nodes(target.order) * L::NVARS) as u64;
        Ok(Box::new(NodalTriTuner::<L, T> {
            law: law.clone(),
            ir,
            order: target.order,
            valid,
            library_backed,
            blas: None,
            setup,
            min_dofs: target.timing_dofs,
            dofs,
            timing: None,
            operation: target.operation,
            stage_buffers: None,
            loaded: Vec::new(),
            compiled: Vec::new(),
            target: target_of(device),
            family: self.family(),
            real: std::marker::PhantomData,
        }))
    }
}

/// The timing problem, built when first needed.
struct TimingProblem {
    space: DgSpace2d,
    binding: BoundaryBinding,
    materials: Vec<f64>,
}

struct NodalTriTuner<L, T: Real> {
    law: L,
    ir: LawIr,
    order: usize,
    /// The variants valid on the device if it has a BLAS, in the order a search visits them.
    valid: Vec<Variant>,
    /// Those of `valid` built on library GEMMs: candidates only where the device's BLAS loads.
    library_backed: Vec<Variant>,
    /// Whether the device's BLAS loads, once asked.
    blas: Option<bool>,
    setup: VerificationSetup,
    min_dofs: u64,
    dofs: u64,
    timing: Option<TimingProblem>,
    /// What is timed: the right-hand side, or one low-storage stage as a run steps it.
    operation: TimedOperation,
    /// A low-storage stage's register and new state on the device and the values each holds: allocated for the
    /// first stage timed, again for a layout whose state is larger (the element-major and node-major layouts pad
    /// the same elements differently), forgotten with the loaded operators.
    stage_buffers: Option<(BufferId, BufferId, usize)>,
    /// Operators holding the timing problem on the device, one per data layout (a random state uploaded once):
    /// every variant of that layout is timed on them. Forgotten whenever the device's buffers are freed.
    loaded: Vec<DeviceOperator<T>>,
    /// The programs verified variants ran in (kept by the device across buffer releases): timing runs them.
    compiled: Vec<(KernelSource, ProgramId)>,
    target: Target,
    family: KernelFamily,
    real: std::marker::PhantomData<T>,
}

impl<L: ConservationLaw + Clone, T: Real> NodalTriTuner<L, T> {
    /// The valid variants that `keep` keeps and the device can run (a library-backed one only where its BLAS loads).
    fn runnable(&mut self, device: &mut dyn Device, keep: impl Fn(&Variant) -> bool) -> Vec<String> {
        let blas = self.has_blas(device);
        self.valid
            .iter()
            .filter(|v| keep(v) && (blas || !self.library_backed.contains(v)))
            .map(Variant::to_string)
            .collect()
    }

    /// Whether the device's BLAS loads: asked once, and only if some candidate needs it.
    fn has_blas(&mut self, device: &mut dyn Device) -> bool {
        if self.library_backed.is_empty() {
            return false;
        }
        *self.blas.get_or_insert_with(|| device.supports_gemm())
    }

    /// The timing program of `variant`, rendered.
    fn timing_source(&self, variant: &Variant) -> Result<KernelSource, FormulationError> {
        let params = self.law.param_values();
        let input = LawInput { ir: &self.ir, params: &params, numerical_flux: self.law.numerical_flux_name() };
        let element = ReferenceTriangle::new(self.order).map_err(|e| FormulationError::Problem(e.to_string()))?;
        render_nodal_tri(&input, &element, variant, self.target).map_err(|e| FormulationError::Operator(e.into()))
    }

    /// An operator of `variant` on the timing problem: on the buffers of a loaded operator of the same data
    /// layout, else on a new upload (with a random state).
    fn timing_operator(
        &mut self,
        device: &mut dyn Device,
        variant: &Variant,
    ) -> Result<DeviceOperator<T>, FormulationError> {
        let (source, program) = match self.compiled.iter().find(|(s, _)| s.variant == *variant) {
            Some((source, program)) => (source.clone(), *program),
            None => {
                let source = self.timing_source(variant)?;
                let names: Vec<String> = source.symbols.iter().map(|(_, symbol)| symbol.clone()).collect();
                let program =
                    device.compile(&source.source, &names).map_err(|e| FormulationError::Operator(e.into()))?;
                (source, program)
            }
        };
        if let Some(loaded) = self.loaded.iter().find(|op| op.shares_data(&source)) {
            return Ok(loaded.with_kernels(device, source, program)?);
        }
        let law = self.law.clone();
        let problem = self.timing()?;
        let op = DeviceOperator::<T>::with_program(
            device,
            source,
            program,
            &problem.space,
            &problem.binding,
            &problem.materials,
        )?;
        let q = random_state::<T>(law.variable_names(), problem.space.element.np, problem.space.num_elements(), 7);
        op.upload_state(device, &q)?;
        let shared = op.with_kernels(device, op.source().clone(), program)?;
        self.loaded.push(op);
        Ok(shared)
    }

    /// Frees every device buffer and forgets the loaded operators.
    fn release(&mut self, device: &mut dyn Device) {
        device.free_buffers();
        self.forget_buffers();
    }

    /// Forgets the loaded operators and the stage's buffers (their device buffers were freed).
    fn forget_buffers(&mut self) {
        self.loaded.clear();
        self.stage_buffers = None;
    }

    /// The timed stage on `op`'s buffers: a register and a new state of the timing problem's shape in `op`'s
    /// layout, allocated once (the register zero, a = 0.5 keeps it bounded over any number of repetitions). Buffers
    /// of a smaller layout's state would let the stage's kernels write past their end: the caller frees them first
    /// ([`Tuner::time`]), and they are refused here.
    fn timed_stage(
        &mut self,
        device: &mut dyn Device,
        op: &DeviceOperator<T>,
    ) -> Result<FoldedStage, FormulationError> {
        let needed = op.state_values();
        let (r, z) = match self.stage_buffers {
            Some((r, z, values)) if values >= needed => (r, z),
            Some((_, _, values)) => {
                return Err(FormulationError::Problem(format!(
                    "the timed stage's buffers hold {values} values, the state {needed}: free them first"
                )))
            }
            None => {
                let (r, z) = (op.new_state(device)?, op.new_state(device)?);
                self.stage_buffers = Some((r, z, needed));
                (r, z)
            }
        };
        Ok(FoldedStage { r, z, a: 0.5, c: 1e-3, b: 0.1 })
    }

    fn timing(&mut self) -> Result<&TimingProblem, FormulationError> {
        if self.timing.is_none() {
            let space = timing_space(self.order, L::NVARS, self.min_dofs)?;
            let binding = BoundaryBinding::for_law(&self.law, &space, &HashMap::new())
                .map_err(|e| FormulationError::Problem(e.to_string()))?;
            let materials = random_materials::<L>(space.num_elements(), 23);
            self.timing = Some(TimingProblem { space, binding, materials });
        }
        self.timing.as_ref().ok_or_else(|| FormulationError::Problem("no timing problem".into()))
    }
}

impl<L: ConservationLaw + Clone, T: Real> Tuner for NodalTriTuner<L, T> {
    fn key(&self) -> TuningKey {
        let nflux = self.law.numerical_flux_name();
        let role = match self.operation {
            TimedOperation::Unit => "rhs",
            TimedOperation::LowStorageStage => "stage",
        };
        TuningKey::new(self.family, self.law.name(), &self.ir.hash(), nflux, self.order, T::NAME, role, self.dofs)
    }

    fn timing_dofs(&self) -> u64 {
        self.dofs
    }

    fn verification_elements(&self) -> usize {
        self.setup.space.num_elements()
    }

    fn candidates(&mut self, device: &mut dyn Device) -> Vec<String> {
        self.runnable(device, |_| true)
    }

    fn searched(&mut self, device: &mut dyn Device) -> Vec<String> {
        let order = self.order;
        self.runnable(device, |v| searched_at(v, order))
    }

    fn accepts(&mut self, device: &mut dyn Device, spec: &str) -> bool {
        let Ok(variant) = spec.parse::<Variant>() else { return false };
        // (the library-backed variants are some of `valid`)
        if self.library_backed.contains(&variant) {
            self.has_blas(device)
        } else {
            self.valid.contains(&variant)
        }
    }

    fn baseline(&self) -> Option<String> {
        Some(seed_baseline(precision_of::<T>()).to_string())
    }

    fn neighbours(&self, spec: &str) -> Vec<String> {
        let Ok(best) = spec.parse::<Variant>() else { return Vec::new() };
        let blas = self.blas == Some(true);
        self.valid
            .iter()
            .filter(|v| differs_in_one_axis(v, &best) && (blas || !self.library_backed.contains(v)))
            .map(Variant::to_string)
            .collect()
    }

    fn verify(
        &mut self,
        device: &mut dyn Device,
        specs: &[String],
        progress: &mut dyn FnMut(&VerifyOutcome),
    ) -> Vec<VerifyOutcome> {
        let mut outcomes: Vec<Option<VerifyOutcome>> = vec![None; specs.len()];
        let mut parsed = Vec::new();
        for (i, spec) in specs.iter().enumerate() {
            match spec.parse::<Variant>() {
                Ok(v) => parsed.push((i, v)),
                Err(e) => {
                    let outcome = VerifyOutcome::of::<T>(spec.clone(), Err(e.into()));
                    progress(&outcome);
                    outcomes[i] = Some(outcome);
                }
            }
        }
        let variants: Vec<Variant> = parsed.iter().map(|(_, v)| *v).collect();
        // verification frees the device's buffers when it is done
        self.forget_buffers();
        let (target, law, ir, setup) = (self.target, &self.law, &self.ir, &self.setup);
        let checked = verify_all::<L, T>(device, target, law, ir, setup, &variants, progress, &mut self.compiled);
        for ((i, _), outcome) in parsed.into_iter().zip(checked) {
            outcomes[i] = Some(outcome);
        }
        outcomes
            .into_iter()
            .zip(specs)
            .map(|(o, s)| o.unwrap_or_else(|| VerifyOutcome::rejected(s.clone(), "not verified".into())))
            .collect()
    }

    fn prepare(&mut self, device: &mut dyn Device, specs: &[String]) {
        let sources: Vec<String> = specs
            .iter()
            .filter_map(|spec| spec.parse::<Variant>().ok())
            .filter(|variant| !self.compiled.iter().any(|(s, _)| s.variant == *variant))
            .filter_map(|variant| self.timing_source(&variant).ok())
            .map(|source| source.source)
            .collect();
        device.prepare(&sources);
    }

    fn time(&mut self, device: &mut dyn Device, spec: &str, plan: &TimingPlan) -> Result<(f64, f64), FormulationError> {
        let variant: Variant = spec.parse()?;
        let result = (|| -> Result<(f64, f64), FormulationError> {
            let op = self.timing_operator(device, &variant)?;
            match self.operation {
                TimedOperation::Unit => Ok(plan.measure(|n| op.apply(device, 0.0, n))?),
                TimedOperation::LowStorageStage => {
                    // a stage's buffers too small for this layout's state: the device frees buffers all at once, so
                    // everything goes and the operator is loaded again (at most once per layout a tuning meets)
                    let op = match self.stage_buffers {
                        Some((_, _, values)) if values < op.state_values() => {
                            self.release(device);
                            self.timing_operator(device, &variant)?
                        }
                        _ => op,
                    };
                    let stage = self.timed_stage(device, &op)?;
                    Ok(plan.measure(|n| op.apply_stage(device, 0.0, &stage, n))?)
                }
            }
        })();
        if result.is_err() {
            self.release(device);
        }
        result
    }

    fn check_at_size(&mut self, device: &mut dyn Device, spec: &str) -> VerifyOutcome {
        // the check frees the device's buffers when it is done
        self.forget_buffers();
        let variant: Variant = match spec.parse() {
            Ok(v) => v,
            Err(e) => return VerifyOutcome::of::<T>(spec.into(), Err(dg_runtime::DeviceOperatorError::from(e))),
        };
        let (law, ir, target) = (self.law.clone(), self.ir.clone(), self.target);
        let problem = match self.timing() {
            Ok(p) => p,
            Err(e) => return VerifyOutcome::rejected(spec.into(), e.to_string()),
        };
        let check = VerifyProblem {
            law: &law,
            ir: &ir,
            space: &problem.space,
            binding: &problem.binding,
            materials: &problem.materials,
        };
        verify_variant::<L, T>(device, target, &check, &variant, 29)
    }

    fn cost(&self, spec: &str) -> Result<UnitCost, FormulationError> {
        let variant: Variant = spec.parse()?;
        let n = timing_cells(self.order, L::NVARS, self.min_dofs);
        let cost = match self.operation {
            TimedOperation::Unit => rhs_cost(&self.ir, self.law.numerical_flux_name(), self.order, 2 * n * n, &variant),
            TimedOperation::LowStorageStage => {
                stage_cost(&self.ir, self.law.numerical_flux_name(), self.order, 2 * n * n, &variant)
            }
        };
        // the mma kernels run their products on the tensor cores: f64 (8-row `m8n8k4` or 16-row `m16n8k4`; mma16
        // is f64 only) against the FP64 tensor cores' best measured rate — on compute capability 9.0 `m8n8k4`
        // does half the work per issue of the larger shapes, a slower use of the same units, not a lower ceiling —
        // f32 against a third of the tf32 instruction's (three products per product)
        let units = match (variant.partition, variant.precision) {
            (Partition::Mma | Partition::MirrorMma { .. }, Precision::F64)
            | (Partition::Mma16 | Partition::Mma16Regs, _) => ArithmeticUnits::F64TensorCores,
            (Partition::Mma | Partition::MirrorMma { .. }, Precision::F32) => ArithmeticUnits::SplitTf32,
            // the GEMM partition's products run in the library at its measured rate
            (Partition::Gemm, _) => ArithmeticUnits::LibraryGemm,
            _ => ArithmeticUnits::Fma,
        };
        Ok(UnitCost { flops: cost.flops, bytes: cost.bytes, units })
    }
}
