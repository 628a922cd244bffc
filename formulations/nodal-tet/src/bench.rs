//! Benchmarks of the tetrahedral strategies (seed 002): every kernel of every strategy timed on a box of about
//! the requested number of nodes, the best combination per strategy as time per node per AB3 step, the winner,
//! and each kernel against the roofline of the device's measured ceilings.

use crate::device::TetDeviceOperator;
use crate::render::update_kernel_name;
use crate::verify::{check_strategy, cpu_rhs, every_condition, verify_tet_kernels};
use crate::{gemm_cost, kernel_cost, step_cost, GemmEngine, KernelCost, Strategy, TetRole, TetVariant};
use dg_codegen::Precision;
use dg_codegen::Target;
use dg_core::law::ConservationLaw;
use dg_core::mesh3d::{box_mesh, BoxSpec};
use dg_core::space3d::DgSpace3d;
use dg_core::Real;
use dg_ir::LawIr;
use dg_runtime::backend::{Device, Step};
use dg_runtime::cpu::BoundaryBinding;
use dg_runtime::step_system::StepOperator;
use dg_runtime::tuning_db::{ArithmeticUnits, Ceilings};
use dg_runtime::verify::VerifyOutcome;
use dg_runtime::DeviceOperatorError;
use serde::Serialize;

/// One kernel (or GEMM) timed alone.
#[derive(Debug, Clone, Serialize)]
pub struct KernelTiming {
    /// Kernel name (or `gemm-gradient`, `gemm-lift`).
    pub kernel: String,
    /// `volume`, `surface`, `update`.
    pub role: String,
    /// `node`, `elem`, `gemm`, or `any` for the update.
    pub strategy: String,
    /// Median device seconds per launch.
    pub seconds: f64,
    /// Cost-model GFLOP/s.
    pub gflops: f64,
    /// Cost-model GB/s.
    pub gbs: f64,
    /// Percent of min(bandwidth × intensity, peak) with the measured ceilings, at most 100.
    pub roofline_percent: f64,
    /// The raw percentage where it is above 100: the measured ceilings were too low for this kernel.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ceiling_exceeded_percent: Option<f64>,
}

/// The best kernels of one strategy as an AB3 step.
#[derive(Debug, Clone, Serialize)]
pub struct StrategyTime {
    /// `node`, `elem`, `gemm`.
    pub strategy: String,
    /// The variant SPEC.
    pub variant: String,
    /// Seconds per step: best volume + best surface + best update of this strategy.
    pub seconds_per_step: f64,
    /// Nanoseconds per node per step.
    pub ns_per_node_step: f64,
    /// Useful GFLOP/s of the step.
    pub gflops: f64,
    /// `gflops` as percent of the measured FP32 (or FP64) peak.
    pub percent_of_peak: f64,
    /// Its verification: each of its kernels on the verification mesh, then its right-hand side on this
    /// benchmark's mesh, against the CPU operator.
    pub check: VerifyOutcome,
}

/// Everything measured at one order.
#[derive(Debug, Clone, Serialize)]
pub struct OrderBench {
    /// Law.
    pub law: String,
    /// Order N.
    pub order: usize,
    /// The numerical flux the kernels evaluate.
    pub flux: String,
    /// Precision.
    pub precision: String,
    /// Tetrahedra.
    pub elements: usize,
    /// Nodes (K·Np).
    pub nodes: usize,
    /// Every kernel.
    pub kernels: Vec<KernelTiming>,
    /// Per strategy (those with all kernels available).
    pub strategies: Vec<StrategyTime>,
    /// The fastest strategy's variant.
    pub winner: String,
    /// The winner's whole AB3 step timed as one sequence (checks that the sum of the parts holds).
    pub winner_step_seconds: f64,
    /// Kernels the device cannot hold, with the reason.
    pub rejected: Vec<(String, String)>,
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// The unit cube with n³ six-tetrahedra hexahedra, n chosen so that K·Np is about `nodes`.
pub fn bench_space(order: usize, nodes: usize) -> Result<DgSpace3d, dg_core::space::SpaceError> {
    let np = dg_core::tetrahedron::num_nodes(order);
    let n = ((nodes as f64 / (6.0 * np as f64)).cbrt().round() as usize).max(1);
    DgSpace3d::new(box_mesh(&BoxSpec::unit_cube(n))?, order)
}

/// Times every kernel of `law` at `order` in precision `T` on about `nodes` nodes.
#[allow(clippy::too_many_arguments)]
pub fn bench_order<L: ConservationLaw + Clone, T: Real>(
    device: &mut dyn Device,
    target: Target,
    law: &L,
    ir: &LawIr,
    order: usize,
    nodes: usize,
    ceilings: &Ceilings,
    repeats: usize,
) -> Result<OrderBench, DeviceOperatorError> {
    // every kernel on the verification mesh first (the operator below is built after, on fresh buffers)
    let kernel_checks = verify_tet_kernels::<L, T>(device, target, law, ir, order)?;
    device.free_buffers();
    let space = bench_space(order, nodes).map_err(|e| DeviceOperatorError::Precision(e.to_string()))?;
    let binding = BoundaryBinding::for_law_on_tets(law, &space, &every_condition(law))
        .map_err(|e| DeviceOperatorError::Precision(e.to_string()))?;
    let k = space.num_elements();
    let materials: Vec<f64> = (0..k * L::NMATERIALS).map(|i| 1.0 + 0.1 * (i % 3) as f64).collect();
    let params = law.param_values();
    let nflux = law.numerical_flux_name();
    let op = TetDeviceOperator::<T>::new(device, target, (ir, &params, nflux), &space, &binding, &materials)?;
    let np = space.element.np;
    let state = dg_runtime::verify::random_state::<T>(law.variable_names(), np, k, 5);
    op.write_state(device, op.buffers.q, &state)?;
    op.run(device, &[op.trace_step(op.buffers.q)?], 1)?;
    let precision = dg_runtime::formulation::precision_of::<T>();
    let peak = if precision == Precision::F32 { ceilings.gflops_f32 } else { ceilings.gflops_f64 };
    // each kernel against the units it runs on: the FMA pipe for generated kernels, the library GEMM's measured
    // throughput (tensor cores for DGEMM) for cuBLAS steps
    let double = precision == Precision::F64;
    let roof = |kernel: &str, c: KernelCost, s: f64| {
        let units = if kernel.starts_with("gemm-") {
            ArithmeticUnits::LibraryGemm
        } else if kernel.starts_with("mma-") {
            ArithmeticUnits::SplitTf32
        } else {
            ArithmeticUnits::Fma
        };
        let exceeded = ceilings.exceeded_by(c.flops, c.bytes, s, double, units);
        (ceilings.roofline_percent(c.flops, c.bytes, s, double, units), exceeded)
    };
    let time = |device: &mut dyn Device, steps: &[Step]| -> Result<f64, DeviceOperatorError> {
        op.run(device, steps, 2)?;
        Ok(median(op.run(device, steps, repeats)?))
    };
    let role_cost = |role: &str| kernel_cost(ir, nflux, order, k, precision, role);
    let mut kernels = Vec::new();
    let mut record = |kernel: String, role: &str, strategy: &str, s: f64, c: KernelCost| {
        let (roofline_percent, ceiling_exceeded_percent) = roof(&kernel, c, s);
        kernels.push(KernelTiming {
            roofline_percent,
            ceiling_exceeded_percent,
            kernel,
            role: role.into(),
            strategy: strategy.into(),
            seconds: s,
            gflops: c.flops / s * 1e-9,
            gbs: c.bytes / s * 1e-9,
        });
    };
    let rhs = op.buffers.rhs[0];
    let variant = |strategy| TetVariant { strategy, update: 1, precision };
    let roles: Vec<TetRole> = op.program().kernels.iter().map(|k| k.role).collect();
    // best (seconds, parameter) per strategy and role
    let (mut node_v, mut node_s, mut elem_v, mut elem_s) =
        (None::<(f64, usize)>, None::<(f64, usize)>, None::<(f64, usize)>, None::<(f64, usize)>);
    // the best update with the traces written (node and element strategies) and without (GEMM)
    let (mut upd_traces, mut upd_bare) = (None::<(f64, usize)>, None::<(f64, usize)>);
    let better = |slot: &mut Option<(f64, usize)>, s: f64, p: usize| {
        if slot.is_none_or(|(b, _)| s < b) {
            *slot = Some((s, p));
        }
    };
    for role in &roles {
        match *role {
            TetRole::VolumeNode { kb } => {
                let s = time(
                    device,
                    &op.volume_steps(&variant(Strategy::Node { volume: kb, surface: 1 }), op.buffers.q, rhs)?,
                )?;
                record(format!("tet_volume_node_kb{kb}"), "volume", "node", s, role_cost("volume"));
                better(&mut node_v, s, kb);
            }
            TetRole::SurfaceNode { kb } => {
                let steps =
                    op.surface_steps(&variant(Strategy::Node { volume: 1, surface: kb }), op.buffers.q, rhs, 0.0)?;
                let s = time(device, &steps)?;
                record(format!("tet_surface_node_kb{kb}"), "surface", "node", s, role_cost("surface"));
                better(&mut node_s, s, kb);
            }
            TetRole::VolumeElement { width } => {
                let s = time(device, &op.volume_steps(&variant(Strategy::Element { width }), op.buffers.q, rhs)?)?;
                record(format!("tet_volume_elem_w{width}"), "volume", "elem", s, role_cost("volume"));
                better(&mut elem_v, s, width);
            }
            TetRole::SurfaceElement { width } => {
                let steps = op.surface_steps(&variant(Strategy::Element { width }), op.buffers.q, rhs, 0.0)?;
                let s = time(device, &steps)?;
                record(format!("tet_surface_elem_w{width}"), "surface", "elem", s, role_cost("surface"));
                better(&mut elem_s, s, width);
            }
            TetRole::UpdateAb3 { ku, traces } => {
                let v = TetVariant { update: ku, ..variant(Strategy::blas_gemm(false)) };
                let s = time(device, &[op.update_step_of(&v, *role, op.buffers.rhs, 1e-9)?])?;
                let (cost, used_by) = if traces { ("update-traces", "node, elem") } else { ("update", "gemm") };
                record(update_kernel_name(ku, traces), "update", used_by, s, role_cost(cost));
                better(if traces { &mut upd_traces } else { &mut upd_bare }, s, ku);
            }
            _ => {}
        }
    }
    let mut gemm_total = None;
    if op.has_gemm() {
        let p = op.program();
        let nv = p.nvars;
        let split = variant(Strategy::blas_gemm(false));
        let vol = op.volume_steps(&split, op.buffers.q, rhs)?;
        let surf = op.surface_steps(&split, op.buffers.q, rhs, 0.0)?;
        // the volume: gradient GEMMs, the node-local kernel, divergence GEMMs
        let local_at = vol.iter().position(|s| matches!(s, Step::Kernel(_))).unwrap_or(0);
        let (ng, nd) = (p.plan.gradient.len(), p.plan.divergence.len());
        let b = precision.bytes() as f64;
        let kf = k as f64;
        let times = |n: usize, c: KernelCost| KernelCost { flops: n as f64 * c.flops, bytes: n as f64 * c.bytes };
        let npf = np as f64;
        let local_cost = KernelCost {
            flops: kf * npf * (18.0 * nv as f64 + 4.0 * ir.function("flux").map_or(0, |f| f.flops().total) as f64),
            // derivatives in, contravariant fluxes out, the state in, the outputs formed here out
            bytes: kf * npf * (3.0 * (ng + nd) as f64 + (nv + p.plan.from_derivatives.len()) as f64) * b
                + kf * (9.0 + p.nmaterials as f64) * b,
        };
        let flux_cost = KernelCost {
            flops: role_cost("surface").flops - kf * 2.0 * (nv * np * p.nface) as f64,
            bytes: kf * (2.0 * (nv * p.nface) as f64 + 16.0) * b + kf * p.nface as f64 * 4.0,
        };
        if ng > 0 {
            let s = time(device, &vol[..local_at])?;
            record("gemm-gradient".into(), "volume", "gemm", s, times(ng, gemm_cost(p.m3, k, np, precision, false)));
        }
        record("tet_volume_local".into(), "volume", "gemm", time(device, &vol[local_at..=local_at])?, local_cost);
        if nd > 0 {
            let s = time(device, &vol[local_at + 1..])?;
            record(
                "gemm-divergence".into(),
                "volume",
                "gemm",
                s,
                times(nd, gemm_cost(p.ldq, k, 3 * np, precision, false)),
            );
        }
        record("tet_flux".into(), "surface", "gemm", time(device, &surf[..1])?, flux_cost);
        let s = time(device, &surf[1..])?;
        record("gemm-lift".into(), "surface", "gemm", s, gemm_cost(p.ldq, k * nv, p.nface, precision, true));
        // as a run launches it: the node-local and face kernels merged into one pass
        let merged = op.gemm_rhs_steps(&variant(Strategy::blas_gemm(true)), op.buffers.q, rhs, 0.0)?;
        let merged_at = merged.iter().position(|s| matches!(s, Step::Kernel(_))).unwrap_or(0);
        let merged_cost = KernelCost {
            flops: local_cost.flops + flux_cost.flops,
            // the face values come from the state the node-local part reads, not from traces
            bytes: local_cost.bytes + flux_cost.bytes - kf * (nv * p.nface) as f64 * b,
        };
        let s = time(device, &merged[merged_at..=merged_at])?;
        record("tet_local_flux".into(), "volume+surface", "gemm", s, merged_cost);
        let split_steps = op.rhs_steps(&split, op.buffers.q, rhs, 0.0)?;
        gemm_total = Some((time(device, &split_steps)?, time(device, &merged)?));
    }
    // an engine's sequence (`steps` of its variant) with the node-local and face kernels split and merged: the
    // faster of the two
    let faster = |device: &mut dyn Device,
                  engine: GemmEngine,
                  steps: &dyn Fn(&TetVariant) -> Result<Vec<Step>, DeviceOperatorError>|
     -> Result<(TetVariant, f64), DeviceOperatorError> {
        let (split, merged) =
            (variant(Strategy::Gemm { merged: false, engine }), variant(Strategy::Gemm { merged: true, engine }));
        let (t_split, t_merged) = (time(device, &steps(&split)?)?, time(device, &steps(&merged)?)?);
        Ok(if t_merged < t_split { (merged, t_merged) } else { (split, t_split) })
    };
    // the tensor-core kernels (CUDA, f32): each product alone, then the right-hand side with all three on them and
    // with the lift alone on them
    let mut mma_totals = Vec::new();
    if op.has_mma() && op.has_gemm() {
        let p = op.program();
        let (ng, nd, nv) = (p.plan.gradient.len(), p.plan.divergence.len(), p.nvars);
        let on_mma = |merged, engine| variant(Strategy::Gemm { merged, engine });
        let vol = op.volume_steps(&on_mma(false, GemmEngine::Mma), op.buffers.q, rhs)?;
        let surf = op.surface_steps(&on_mma(false, GemmEngine::Mma), op.buffers.q, rhs, 0.0)?;
        let times = |n: usize, c: KernelCost| KernelCost { flops: n as f64 * c.flops, bytes: n as f64 * c.bytes };
        if ng > 0 {
            let s = time(device, &vol[..ng])?;
            record("mma-gradient".into(), "volume", "gemm", s, times(ng, gemm_cost(p.m3, k, np, precision, false)));
        }
        if nd > 0 {
            let s = time(device, &vol[ng + 1..])?;
            let c = times(nd, gemm_cost(p.ldq, k, 3 * np, precision, false));
            record("mma-divergence".into(), "volume", "gemm", s, c);
        }
        let s = time(device, &surf[1..])?;
        record("mma-lift".into(), "surface", "gemm", s, gemm_cost(p.ldq, k * nv, p.nface, precision, true));
        let mut engines = vec![("gemm-mma", GemmEngine::Mma)];
        if op.has_gemm() {
            engines.push(("gemm-mma-lift", GemmEngine::MmaLift));
        }
        for (name, engine) in engines {
            let (v, seconds) = faster(device, engine, &|v| op.rhs_steps(v, op.buffers.q, rhs, 0.0))?;
            mma_totals.push((name, v.strategy, seconds));
        }
    }
    // the lift that makes the AB3 update: a whole step (no update kernel to add)
    let mut fused_step = None;
    if op.has_mma_ab3() {
        fused_step = Some(faster(device, GemmEngine::MmaAb3, &|v| op.ab3_steps(v, op.buffers.rhs, 0.0, 1e-9))?);
    }
    let step = step_cost(ir, nflux, order, k, precision);
    let nodes = k * np;
    let no_update = || DeviceOperatorError::Precision("no update kernel fits".into());
    let (upd_traces, upd_bare) = (upd_traces.ok_or_else(no_update)?, upd_bare.ok_or_else(no_update)?);
    let mut strategies = Vec::new();
    // a strategy's whole AB3 step of `seconds` (checked below)
    let timed = |name: &str, v: TetVariant, seconds: f64| StrategyTime {
        strategy: name.into(),
        variant: v.to_string(),
        seconds_per_step: seconds,
        ns_per_node_step: seconds / nodes as f64 * 1e9,
        gflops: step.flops / seconds * 1e-9,
        percent_of_peak: 100.0 * step.flops / seconds * 1e-9 / peak,
        check: VerifyOutcome::of::<T>(v.to_string(), Err(DeviceOperatorError::Precision("not checked".into()))),
    };
    // a right-hand side of `seconds`, with the best update kernel of its kind
    let mut push = |name: &str, strategy: Strategy, seconds: f64| {
        let (upd_s, ku) = if strategy.reads_traces() { upd_traces } else { upd_bare };
        strategies.push(timed(name, TetVariant { strategy, update: ku, precision }, seconds + upd_s));
    };
    if let (Some((sv, kv)), Some((ss, ks))) = (node_v, node_s) {
        push("node", Strategy::Node { volume: kv, surface: ks }, sv + ss);
    }
    if let (Some((sv, wv)), Some((ss, ws))) = (elem_v, elem_s) {
        // one width for both element kernels: the better of the two bests (the other kernel at that width)
        let w = if sv >= ss { wv } else { ws };
        let at = |role: &str| {
            kernels.iter().find(|t| t.kernel == format!("tet_{role}_elem_w{w}")).map_or(f64::INFINITY, |t| t.seconds)
        };
        push("elem", Strategy::Element { width: w }, at("volume") + at("surface"));
    }
    if let Some((split, merged)) = gemm_total {
        push("gemm", Strategy::blas_gemm(false), split);
        push("gemm-merged", Strategy::blas_gemm(true), merged);
    }
    for (name, strategy, seconds) in mma_totals {
        push(name, strategy, seconds);
    }
    if let Some((v, seconds)) = fused_step {
        strategies.push(timed("gemm-mma-ab3", v, seconds));
    }
    // each strategy's right-hand side at this size against the CPU operator on the same state; only verified
    // strategies can win
    let reference = cpu_rhs(law, &space, &binding, &materials, &state, 0.0);
    op.write_state(device, op.buffers.q, &state)?; // the update kernels' timings moved it
    for s in &mut strategies {
        let variant: TetVariant = s.variant.parse()?;
        s.check = check_strategy(device, &op, &variant, &kernel_checks, &reference, order);
    }
    let best = strategies
        .iter()
        .filter(|s| s.check.passed)
        .min_by(|a, b| a.seconds_per_step.total_cmp(&b.seconds_per_step))
        .ok_or_else(|| DeviceOperatorError::Precision("no strategy has all its kernels verified".into()))?;
    let winner: TetVariant = best.variant.parse()?;
    let winner_step_seconds = time(device, &op.ab3_steps(&winner, op.buffers.rhs, 0.0, 1e-9)?)?;
    Ok(OrderBench {
        law: law.name().into(),
        order,
        flux: nflux.into(),
        precision: T::NAME.into(),
        elements: k,
        nodes,
        kernels,
        strategies,
        winner: winner.to_string(),
        winner_step_seconds,
        rejected: op.program().rejected.clone(),
    })
}

/// Benchmarks `law` at `order` on about `nodes` nodes in `precision` (what `dg tet-bench` runs per order); the
/// device's buffers are released afterwards.
pub fn bench_one<L: ConservationLaw + Clone>(
    law: &L,
    device: &mut dyn Device,
    order: usize,
    nodes: usize,
    precision: Precision,
    repeats: usize,
    ceilings: &Ceilings,
) -> Result<OrderBench, DeviceOperatorError> {
    let ir = dg_runtime::formulation::law_ir(law).map_err(|e| DeviceOperatorError::Precision(e.to_string()))?;
    let target = dg_runtime::formulation::target_of(device);
    let out = match precision {
        Precision::F32 => bench_order::<L, f32>(device, target, law, &ir, order, nodes, ceilings, repeats),
        Precision::F64 => bench_order::<L, f64>(device, target, law, &ir, order, nodes, ceilings, repeats),
    };
    device.free_buffers();
    out
}

/// One line of a report: nanoseconds per node and step of each strategy, the winner and its measured step.
pub fn summary_line(b: &OrderBench) -> String {
    let per = |name: &str| {
        b.strategies
            .iter()
            .find(|s| s.strategy == name)
            .map_or("      -".to_string(), |s| format!("{:7.3}", s.ns_per_node_step))
    };
    // a kernel above the measured ceilings means a ceiling (or the kernel's cost count) is wrong: say so
    let exceeded: String = b
        .kernels
        .iter()
        .filter_map(|k| {
            k.ceiling_exceeded_percent.map(|p| format!("; {} at {p:.1} % of the measured roofline", k.kernel))
        })
        .collect();
    format!(
        "{:<12} N={} {:>9} nodes  ns/node/step: node {} elem {} gemm {} gemm-merged {} gemm-mma-lift {} gemm-mma \
         {} gemm-mma-ab3 {}  winner {} ({:.3} ms/step measured){exceeded}",
        b.law,
        b.order,
        b.nodes,
        per("node"),
        per("elem"),
        per("gemm"),
        per("gemm-merged"),
        per("gemm-mma-lift"),
        per("gemm-mma"),
        per("gemm-mma-ab3"),
        b.winner,
        b.winner_step_seconds * 1e3
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn timing(kernel: &str, exceeded: Option<f64>) -> KernelTiming {
        KernelTiming {
            kernel: kernel.into(),
            role: "surface".into(),
            strategy: "gemm".into(),
            seconds: 1e-4,
            gflops: 1.0,
            gbs: 1.0,
            roofline_percent: exceeded.map_or(50.0, |p| p.min(100.0)),
            ceiling_exceeded_percent: exceeded,
        }
    }

    fn bench(kernels: Vec<KernelTiming>) -> OrderBench {
        OrderBench {
            law: "acoustics3d".into(),
            order: 7,
            flux: "upwind".into(),
            precision: "f64".into(),
            elements: 10,
            nodes: 1200,
            kernels,
            strategies: Vec::new(),
            winner: "tet/gemm/u1/f64".into(),
            winner_step_seconds: 3e-4,
            rejected: Vec::new(),
        }
    }

    #[test]
    fn the_summary_names_a_kernel_above_the_measured_roofline() {
        let quiet = summary_line(&bench(vec![timing("tet_flux", None)]));
        assert!(!quiet.contains("roofline"), "{quiet}");
        let loud = summary_line(&bench(vec![timing("tet_flux", None), timing("tet_update_ab3_ku1", Some(101.9))]));
        assert!(loud.contains("tet_update_ab3_ku1 at 101.9 % of the measured roofline"), "{loud}");
        assert!(!loud.contains("tet_flux at"), "{loud}");
    }
}
