//! The modal triangle formulation as the runtime sees it ([`ModalTri`]), and its tuner: the verification problem
//! (curved and prescribed boundaries, right-hand side, CFL wave speed and limiter), a periodic square of at least
//! the requested DOFs for timing, the CPU reference on both, and the bytes a right-hand side must move.

use crate::cpu::ModalOperator2d;
use crate::device::{EdgeOrder, ModalDeviceOperator};
use crate::render::{check_modal, render_modal, ModalLawShape, TEMPLATES};
use crate::variant::{ModalSurface, ModalVariant};
use crate::verify::{random_modal_state, verify_modal_variants};
use dg_codegen::{DeviceLimits, Precision, Target};
use dg_core::law::ConservationLaw;
use dg_core::mesh::{rectangle, Diagonal, RectangleSpec};
use dg_core::space::DgSpace2d;
use dg_core::triangle::ModalTriangle;
use dg_core::Real;
use dg_ir::LawIr;
use dg_runtime::backend::Device;
use dg_runtime::cpu::BoundaryBinding;
use dg_runtime::formulation::{
    supported_ir, target_of, Formulation, FormulationError, LawCall, TimingPlan, TuneTarget, Tuner, UnitCost,
};
use dg_runtime::tuning_db::{ArithmeticUnits, KernelFamily, TuningKey};
use dg_runtime::verify::{relative_l2, VerifyOutcome};
use std::collections::HashMap;
use std::sync::OnceLock;

/// The modal weak form with quadrature on triangles (seed 001).
#[derive(Debug, Clone, Copy, Default)]
pub struct ModalTri;

/// The code fingerprint of the modal kernels: their templates and generator source, and the reference triangle's
/// (the modal basis and the cubature whose point counts and tables the generated kernels are specialised to).
pub fn code_hash() -> &'static str {
    static HASH: OnceLock<String> = OnceLock::new();
    HASH.get_or_init(|| {
        let mut inputs: Vec<&str> = TEMPLATES.iter().map(|(_, t)| *t).collect();
        inputs.extend([include_str!("variant.rs"), include_str!("render.rs")]);
        inputs.extend(dg_core::triangle::GENERATOR_SOURCES);
        dg_codegen::fingerprint::code_hash(&inputs)
    })
}

/// Whether `a` and `b` differ in exactly one axis — group size, surface, table storage or layout — so that a greedy
/// search (a run's tuning on first use, `dg autotune --strategy greedy`) can step from one to the other.
fn differs_in_one_axis(a: &ModalVariant, b: &ModalVariant) -> bool {
    let axes = [a.group != b.group, a.surface != b.surface, a.tables != b.tables, a.layout != b.layout];
    a.precision == b.precision && axes.iter().filter(|&&d| d).count() == 1
}

/// Cells per side of the periodic timing square (two triangles per cell) for at least `min_dofs` DOFs.
fn timing_cells(order: usize, nvars: usize, min_dofs: u64) -> usize {
    let nm = dg_core::triangle::num_nodes(order) as f64;
    ((min_dofs as f64 / (2.0 * nm * nvars as f64)).sqrt().ceil() as usize).max(dg_core::mesh::MIN_PERIODIC_CELLS)
}

impl Formulation for ModalTri {
    fn name(&self) -> &'static str {
        "modal-tri"
    }

    fn summary(&self) -> &'static str {
        "modal weak form on triangles with quadrature and limiter (seed 001): edge, edge-flux, edge-flux-pair, \
         atomic, element, element-regs and mma surfaces, table storage, layouts"
    }

    fn family(&self) -> KernelFamily {
        KernelFamily { formulation: "modal-weak", element: "tri", code: code_hash() }
    }

    fn supports(&self, ir: &LawIr) -> Result<(), String> {
        if ir.dim != 2 {
            return Err(format!("it needs a 2D law (this one is {}D)", ir.dim));
        }
        // (a source term is added in the volume integral, or by the mma program's `modal_source` kernel)
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
        let element = ModalTriangle::new(order).ok();
        let shape = ModalLawShape::of(law.ir, law.numerical_flux);
        ModalVariant::all(precision)
            .iter()
            .map(|v| {
                let rule = element.as_ref().map(|el| check_modal(v, el, &shape, limits));
                (v.to_string(), rule.and_then(|r| r.err()).map(|e| e.to_string()))
            })
            .collect()
    }

    fn default_variant(&self, precision: Precision) -> String {
        ModalVariant::seed(precision).to_string()
    }

    fn emit(&self, law: &LawCall<'_>, order: usize, spec: &str, target: Target) -> Result<String, FormulationError> {
        let variant: ModalVariant = spec.parse()?;
        let element = ModalTriangle::new(order).map_err(|e| FormulationError::Problem(e.to_string()))?;
        let source =
            render_modal(&law.input(), &element, &variant, target).map_err(|e| FormulationError::Operator(e.into()))?;
        Ok(source.source)
    }

    fn tuner<L: ConservationLaw + Clone + Send + Sync + 'static, T: Real>(
        &self,
        law: &L,
        device: &mut dyn Device,
        target: TuneTarget,
    ) -> Result<Box<dyn Tuner>, FormulationError> {
        let ir = supported_ir(self, law)?;
        let element = ModalTriangle::new(target.order).map_err(|e| FormulationError::Problem(e.to_string()))?;
        let n = timing_cells(target.order, L::NVARS, target.timing_dofs);
        let limits = dg_runtime::backend::limits_of(device);
        let shape = ModalLawShape::of(&ir, law.numerical_flux_name());
        let valid = ModalVariant::all(target.precision)
            .into_iter()
            .filter(|v| check_modal(v, &element, &shape, &limits).is_ok())
            .collect();
        Ok(Box::new(ModalTriTuner::<L, T> {
            valid,
            law: law.clone(),
            ir,
            order: target.order,
            precision: target.precision,
            dofs: (2 * n * n * element.nmodes * L::NVARS) as u64,
            cells: n,
            element,
            timing: None,
            target: target_of(device),
            family: self.family(),
        }))
    }
}

/// The timing problem: the CPU operator on the periodic square and a random state.
struct TimingProblem<L: ConservationLaw, T: Real> {
    cpu: ModalOperator2d<L, T>,
    q: Vec<T>,
}

struct ModalTriTuner<L: ConservationLaw, T: Real> {
    law: L,
    /// The variants the device's limits allow.
    valid: Vec<ModalVariant>,
    ir: LawIr,
    order: usize,
    precision: Precision,
    element: ModalTriangle,
    cells: usize,
    dofs: u64,
    timing: Option<TimingProblem<L, T>>,
    target: Target,
    family: KernelFamily,
}

impl<L: ConservationLaw + Clone, T: Real> ModalTriTuner<L, T> {
    fn timing(&mut self) -> Result<&TimingProblem<L, T>, FormulationError> {
        if self.timing.is_none() {
            let problem = |e: &dyn std::fmt::Display| FormulationError::Problem(format!("timing mesh: {e}"));
            let mesh = rectangle(&RectangleSpec {
                lower: [0.0, 0.0],
                upper: [10.0, 10.0],
                nx: self.cells,
                ny: self.cells,
                diagonal: Diagonal::Alternating,
                periodic_x: true,
                periodic_y: true,
            })
            .map_err(|e| problem(&e))?;
            let space = DgSpace2d::new(mesh, 1).map_err(|e| problem(&e))?;
            let binding = BoundaryBinding::for_law(&self.law, &space, &HashMap::new()).map_err(|e| problem(&e))?;
            let materials = vec![1.0; space.num_elements() * L::NMATERIALS];
            let cpu =
                ModalOperator2d::<L, T>::new(self.law.clone(), self.element.clone(), &space, &binding, &materials);
            let q = random_modal_state(&cpu, 3);
            self.timing = Some(TimingProblem { cpu, q });
        }
        self.timing.as_ref().ok_or_else(|| FormulationError::Problem("no timing problem".into()))
    }

    fn operator(
        &mut self,
        device: &mut dyn Device,
        variant: &ModalVariant,
    ) -> Result<(ModalDeviceOperator<T>, Vec<T>), FormulationError> {
        let (ir, params, target) = (self.ir.clone(), self.law.param_values(), self.target);
        let nflux = self.law.numerical_flux_name();
        let problem = self.timing()?;
        let op = ModalDeviceOperator::<T>::new(device, target, (&ir, &params, nflux), &problem.cpu, variant)?;
        op.upload_state(device, &problem.q)?;
        Ok((op, problem.q.clone()))
    }
}

impl<L: ConservationLaw + Clone, T: Real> Tuner for ModalTriTuner<L, T> {
    fn key(&self) -> TuningKey {
        let nflux = self.law.numerical_flux_name();
        // (what is timed is a Runge–Kutta stage, `ModalDeviceOperator::apply_stage`; keyed `rhs` until 2026-11-30)
        TuningKey::new(self.family, self.law.name(), &self.ir.hash(), nflux, self.order, T::NAME, "rk-stage", self.dofs)
    }

    fn timing_dofs(&self) -> u64 {
        self.dofs
    }

    fn verification_elements(&self) -> usize {
        let (nx, ny) = crate::verify::VERIFICATION_CELLS;
        2 * nx * ny
    }

    fn candidates(&mut self, _device: &mut dyn Device) -> Vec<String> {
        self.valid.iter().map(ModalVariant::to_string).collect()
    }

    fn baseline(&self) -> Option<String> {
        // seed 001's edge surface; for a law whose flux is not conservative (edge surfaces rejected), the same
        // with each element computing its own edges
        let seed = ModalVariant::seed(self.precision);
        let element = ModalVariant { surface: crate::ModalSurface::Element, ..seed };
        Some(if self.valid.contains(&seed) { seed } else { element }.to_string())
    }

    fn neighbours(&self, spec: &str) -> Vec<String> {
        let Ok(best) = spec.parse::<ModalVariant>() else { return Vec::new() };
        self.valid.iter().filter(|v| differs_in_one_axis(v, &best)).map(ModalVariant::to_string).collect()
    }

    fn verify(
        &mut self,
        device: &mut dyn Device,
        specs: &[String],
        progress: &mut dyn FnMut(&VerifyOutcome),
    ) -> Vec<VerifyOutcome> {
        let mut variants = Vec::new();
        let mut unparsed = Vec::new();
        for spec in specs {
            match spec.parse::<ModalVariant>() {
                Ok(v) => variants.push(v),
                Err(e) => unparsed.push(VerifyOutcome::of::<T>(spec.clone(), Err(e.into()))),
            }
        }
        let mut outcomes = verify_modal_variants::<L, T>(
            device,
            self.target,
            &self.law,
            &self.ir,
            self.order,
            &variants,
            EdgeOrder::BoundaryFirst,
            progress,
        );
        // (the verification reported its own outcomes; these two kinds are reported here, so that a caller that
        // prints each outcome says why a SPEC was refused)
        for o in &unparsed {
            progress(o);
        }
        outcomes.extend(unparsed);
        // in the order of `specs`
        let mut ordered = Vec::with_capacity(specs.len());
        for s in specs {
            ordered.push(match outcomes.iter().position(|o| o.variant == *s) {
                Some(i) => outcomes.swap_remove(i),
                None => {
                    let o = VerifyOutcome::rejected(s.clone(), "not verified".into());
                    progress(&o);
                    o
                }
            });
        }
        ordered
    }

    fn time(&mut self, device: &mut dyn Device, spec: &str, plan: &TimingPlan) -> Result<(f64, f64), FormulationError> {
        let variant: ModalVariant = spec.parse()?;
        let result = (|| -> Result<(f64, f64), FormulationError> {
            let (op, _) = self.operator(device, &variant)?;
            let stage = op.new_state(device)?;
            Ok(plan.measure(|n| op.apply_stage(device, stage, 0.0, n))?)
        })();
        device.free_buffers();
        result
    }

    fn check_at_size(&mut self, device: &mut dyn Device, spec: &str) -> VerifyOutcome {
        let variant: ModalVariant = match spec.parse() {
            Ok(v) => v,
            Err(e) => return VerifyOutcome::of::<T>(spec.into(), Err(dg_runtime::DeviceOperatorError::from(e))),
        };
        let result = (|| -> Result<f64, FormulationError> {
            let (op, q) = self.operator(device, &variant)?;
            let problem = self.timing()?;
            let mut reference = vec![T::nan(); q.len()];
            problem.cpu.apply(&q, 0.0, &mut reference);
            op.poison_output(device)?;
            op.apply(device, 0.0, 1)?;
            Ok(relative_l2(&op.download_output(device)?, &reference))
        })();
        device.free_buffers();
        match result {
            Ok(e) => VerifyOutcome::of::<T>(spec.into(), Ok(e)),
            Err(FormulationError::Operator(e)) => VerifyOutcome::of::<T>(spec.into(), Err(e)),
            Err(e) => VerifyOutcome::rejected(spec.into(), e.to_string()),
        }
    }

    fn cost(&self, spec: &str) -> Result<UnitCost, FormulationError> {
        let variant: ModalVariant = spec.parse()?;
        let k = 2 * self.cells * self.cells;
        let real = self.precision.bytes() as f64;
        // the minimum traffic of the timed Runge–Kutta stage (`ModalDeviceOperator::apply_stage`): the state and
        // the stage state read, the right-hand side and the stage state written, the metric (4) and face data (3
        // normals and scales, 1 link per face) per element
        let kf = k as f64;
        let bytes = 4.0 * self.dofs as f64 * real + kf * (4.0 + 9.0) * real + kf * 3.0 * 4.0;
        // the periodic timing square has 3k/2 edges, all interior
        let flops = stage_flops(&self.ir, self.law.numerical_flux_name(), &self.element, k, 3 * k / 2);
        // the mma surface's products run on the FP64 tensor cores (f64 only): their best measured rate
        let units = match variant.surface {
            ModalSurface::Mma => ArithmeticUnits::F64TensorCores,
            _ => ArithmeticUnits::Fma,
        };
        Ok(UnitCost { flops, bytes, units })
    }
}

/// The fewest floating-point operations of one Runge–Kutta stage of the modal weak form on `k` elements with
/// `edges` interior edges, each edge's numerical flux counted once (the element surface computes it twice; this
/// is the work the stage must do, not what a variant does): per volume point, the state (2·NV·NM), the law's
/// flux, its reference components (6·NV) and the two weighted derivative tables applied (4·NV·NM); per edge point,
/// the two traces (4·NV·NM), the numerical flux and its lift into both elements (4·NV·NM); the update q + c·L
/// (2 per value). The law's functions are counted from its IR (`LawFunction::flops`).
pub fn stage_flops(ir: &LawIr, nflux: &str, element: &ModalTriangle, k: usize, edges: usize) -> f64 {
    let (nv, nm) = (ir.variables.len() as f64, element.nmodes as f64);
    let (nq, ng) = (element.volume.w.len() as f64, element.edge.points.len() as f64);
    let flux = ir.function("flux").map_or(0, |f| f.flops().total) as f64;
    let numerical = ir.function(&format!("numerical_flux:{nflux}")).map_or(0, |f| f.flops().total) as f64;
    let volume = nq * (2.0 * nv * nm + flux + 6.0 * nv + 4.0 * nv * nm);
    let edge = ng * (4.0 * nv * nm + numerical + 4.0 * nv * nm);
    k as f64 * (volume + 2.0 * nv * nm) + edges as f64 * edge
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The modal tuner times a Runge–Kutta stage and keys it `rk-stage` (it said `rhs`): every modal entry of the
    /// shipped files is keyed so, or a run would not find the shipped winners and would tune on first use.
    #[test]
    fn the_shipped_modal_entries_are_keyed_by_the_stage_they_time() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tuning-db");
        let mut modal = 0;
        for file in std::fs::read_dir(&dir).expect("tuning-db/") {
            let path = file.expect("an entry").path();
            if path.extension().is_none_or(|e| e != "json") {
                continue;
            }
            let doc: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).expect("read")).unwrap();
            for key in doc["entries"].as_object().expect("entries").keys() {
                let key: TuningKey = key.parse().expect("a tuning key");
                if key.formulation == "modal-weak" {
                    assert_eq!(key.role, "rk-stage", "{}: {key}", path.display());
                    modal += 1;
                }
            }
        }
        assert!(modal >= 8, "{modal} modal entries shipped");
    }

    /// A greedy search steps along one axis at a time: from seed 001's design (edge surface, 256 work items, const
    /// tables, mode-major) it reaches the other two group sizes, the other six surfaces in f64 (five in f32: no
    /// mma), shared tables and the element-major and tiled layouts, and nothing that changes two axes or the
    /// precision.
    #[test]
    fn a_greedy_step_changes_one_axis() {
        for (precision, surfaces) in [(Precision::F64, 6), (Precision::F32, 5)] {
            let seed = ModalVariant::seed(precision);
            let all = ModalVariant::all(precision);
            let steps: Vec<&ModalVariant> = all.iter().filter(|v| differs_in_one_axis(v, &seed)).collect();
            assert_eq!(steps.len(), 2 + surfaces + 1 + 2, "{steps:?}");
            assert!(!steps.contains(&&seed));
            let edge_flux = ModalVariant { surface: crate::ModalSurface::EdgeFlux, ..seed };
            assert!(steps.contains(&&edge_flux));
            let two_axes = ModalVariant { group: 64, ..edge_flux };
            assert!(all.contains(&two_axes) && !differs_in_one_axis(&two_axes, &seed));
            let other_precision =
                ModalVariant::seed(if precision == Precision::F64 { Precision::F32 } else { Precision::F64 });
            assert!(!differs_in_one_axis(&other_precision, &seed));
        }
    }

    /// The count for Euler (4 variables) at p = 2 — 6 modes, 6 volume points, 3 Gauss points per edge — on 10
    /// elements and 15 edges, written out by hand from the rule above, with the law's flux and HLLC counts.
    #[test]
    fn the_stage_flop_count_follows_its_rule() {
        let law = dg_laws::euler2d::Law::default();
        let ir = dg_runtime::formulation::law_ir(&law).unwrap();
        let element = ModalTriangle::new(2).unwrap();
        let flux = ir.function("flux").unwrap().flops().total as f64;
        let hllc = ir.function("numerical_flux:hllc_flux").unwrap().flops().total as f64;
        assert!(flux > 10.0 && hllc > flux, "flux {flux}, hllc {hllc}");
        let volume = 6.0 * (48.0 + flux + 24.0 + 96.0);
        let edge = 3.0 * (96.0 + hllc + 96.0);
        let expected = 10.0 * (volume + 48.0) + 15.0 * edge;
        assert_eq!(stage_flops(&ir, "hllc_flux", &element, 10, 15), expected);
        // an unknown flux counts nothing for the edges' Riemann solver, not a panic
        assert_eq!(stage_flops(&ir, "no_such_flux", &element, 10, 15), expected - 15.0 * 3.0 * hllc);
    }
}
