//! Modal kernel source from the templates `templates/modal-tri/modal_*.tera` and the law's functions (`law.tera`).

use crate::variant::{ModalLayout, ModalSurface, ModalVariant, Tables};
use dg_codegen::cexpr::literal;
use dg_codegen::program::{emit_law_function, engine, insert_law, LawInput, RenderError, Target, PRELUDE_SUFFIX};
use dg_codegen::Precision;
use dg_core::triangle::ModalTriangle;
use dg_ir::FunctionRole;

/// What a kernel of the modal program does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum ModalRole {
    /// Per edge: numerical fluxes into left/right temporaries.
    SurfaceEdge,
    /// Per element: volume integral plus the gathered edge temporaries.
    VolumeGather,
    /// Per element: volume integral only (written, not added).
    Volume,
    /// Per edge: numerical fluxes added atomically to the right-hand side.
    SurfaceAtomic,
    /// Per element: volume and its own three edges.
    Element,
    /// Per team of work items per element: volume and its own three edges, points shared out.
    Team,
}

impl ModalRole {
    /// The kernel's function name.
    pub fn symbol(self) -> &'static str {
        match self {
            ModalRole::SurfaceEdge => "modal_surface_edge",
            ModalRole::VolumeGather => "modal_volume_gather",
            ModalRole::Volume => "modal_volume",
            ModalRole::SurfaceAtomic => "modal_surface_atomic",
            ModalRole::Element => "modal_element",
            ModalRole::Team => "modal_team",
        }
    }

    /// Whether one work item handles one edge (else one element).
    pub fn per_edge(self) -> bool {
        matches!(self, ModalRole::SurfaceEdge | ModalRole::SurfaceAtomic)
    }

    /// Whether the kernel writes the finished right-hand side and so takes the fused update's arguments
    /// (`STEP_ARGS`): the element and volume-gather kernels; the atomic surface only adds to it.
    pub fn writes_result(self) -> bool {
        matches!(self, ModalRole::Element | ModalRole::VolumeGather | ModalRole::Team)
    }
}

/// One kernel of a right-hand-side evaluation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct ModalLaunch {
    /// What it does.
    pub role: ModalRole,
    /// Work items per group.
    pub local_size: usize,
    /// Elements (or edges) per group: `local_size`, or fewer for a team.
    pub items_per_group: usize,
}

/// The generated modal program of one variant.
#[derive(Debug, Clone)]
pub struct ModalKernelSource {
    /// Language.
    pub target: Target,
    /// The variant.
    pub variant: ModalVariant,
    /// Program text.
    pub source: String,
    /// Kernels of one right-hand side, in launch order.
    pub rhs_kernels: Vec<ModalLaunch>,
    /// Variables.
    pub nvars: usize,
    /// Materials per element.
    pub nmaterials: usize,
    /// Modes per element.
    pub nmodes: usize,
    /// Gauss points per edge.
    pub edge_points: usize,
    /// Whether the program has `modal_mean_check` (the law declares an admissibility function).
    pub mean_check: bool,
    /// Values in the basis table (`tables` argument of every kernel).
    pub table: Vec<f64>,
}

/// The modal templates (`templates/modal-tri/`), besides the common ones.
pub const TEMPLATES: [(&str, &str); 7] = [
    ("modal_sizes", include_str!("../../../templates/modal-tri/modal_sizes.tera")),
    ("modal_volume", include_str!("../../../templates/modal-tri/modal_volume.tera")),
    ("modal_face", include_str!("../../../templates/modal-tri/modal_face.tera")),
    ("modal_surface_edge", include_str!("../../../templates/modal-tri/modal_surface_edge.tera")),
    ("modal_element", include_str!("../../../templates/modal-tri/modal_element.tera")),
    ("modal_team", include_str!("../../../templates/modal-tri/modal_team.tera")),
    ("modal_step", include_str!("../../../templates/modal-tri/modal_step.tera")),
];

/// The basis table, in the order the templates index it: φ, w·∂φ/∂r, w·∂φ/∂s at the volume points (row per
/// point), then φ and w·φ at each edge's Gauss points (face, point, mode).
pub fn modal_table(element: &ModalTriangle) -> Vec<f64> {
    let (nq, nm, ng) = (element.volume.w.len(), element.nmodes, element.edge.points.len());
    let mut t = Vec::with_capacity(3 * nq * nm + 6 * ng * nm);
    for q in 0..nq {
        t.extend((0..nm).map(|j| element.phi[(q, j)]));
    }
    for q in 0..nq {
        t.extend((0..nm).map(|j| element.volume.w[q] * element.phi_r[(q, j)]));
    }
    for q in 0..nq {
        t.extend((0..nm).map(|j| element.volume.w[q] * element.phi_s[(q, j)]));
    }
    for f in 0..3 {
        for g in 0..ng {
            t.extend((0..nm).map(|j| element.phi_edge[f][(g, j)]));
        }
    }
    for f in 0..3 {
        for g in 0..ng {
            t.extend((0..nm).map(|j| element.edge.weights[g] * element.phi_edge[f][(g, j)]));
        }
    }
    t
}

/// Bytes of local (shared) memory one work group of `variant`'s right-hand-side kernels declares for a law of
/// `nvars` variables on `element`: the basis table when it is copied to local memory, and a team's coefficients
/// and chunk of point fluxes.
pub fn local_bytes(variant: &ModalVariant, nvars: usize, element: &ModalTriangle) -> usize {
    let (nm, nq, ng) = (element.nmodes, element.volume.w.len(), element.edge.points.len());
    let table = match variant.tables {
        Tables::Shared => 3 * nq * nm + 6 * ng * nm,
        Tables::Const => 0,
    };
    let team = match variant.surface {
        ModalSurface::Team { slots } => (nvars * nm + 2 * nvars * slots) * variant.elements_per_group(),
        _ => 0,
    };
    (table + team) * variant.precision.bytes()
}

/// Renders the modal program of `variant` for `law` on `element`.
pub fn render_modal(
    law: &LawInput<'_>,
    element: &ModalTriangle,
    variant: &ModalVariant,
    target: Target,
) -> Result<ModalKernelSource, RenderError> {
    let ir = law.ir;
    let law_err = |reason: String| RenderError::Law { law: ir.name.clone(), reason };
    if ir.dim != 2 {
        return Err(law_err(format!("the modal triangle kernels need a 2D law (this one is {}D)", ir.dim)));
    }
    if ir.functions_of(FunctionRole::Source).next().is_some() {
        return Err(law_err("the modal kernels do not handle source terms yet".into()));
    }
    let single = variant.precision == Precision::F32;
    let table = modal_table(element);
    let mut ctx = tera::Context::new();
    insert_law(&mut ctx, law, single)?;
    ctx.insert("cuda", &(target == Target::Cuda));
    ctx.insert("double", &!single);
    ctx.insert("nv", &ir.variables.len());
    ctx.insert("nmat", &ir.materials.len());
    ctx.insert("nm", &element.nmodes);
    ctx.insert("nq", &element.volume.w.len());
    ctx.insert("ng", &element.edge.points.len());
    ctx.insert("mode_major", &(variant.layout == ModalLayout::ModeMajor));
    ctx.insert("tables_const", &(variant.tables == Tables::Const));
    ctx.insert("table", &table.iter().map(|&v| literal(v, single)).collect::<Vec<_>>().join(", "));
    ctx.insert("atomic", &(variant.surface == ModalSurface::Atomic));
    ctx.insert("p", PRELUDE_SUFFIX);
    let speed_fn = ir.function("max_speed").ok_or_else(|| law_err("no max_speed".into()))?;
    ctx.insert("max_speed", &emit_law_function(speed_fn, law, "s", single));
    let admissible = ir.functions_of(FunctionRole::Admissible).next();
    ctx.insert("has_admissible", &admissible.is_some());
    ctx.insert("admissible", &admissible.map(|f| emit_law_function(f, law, "a", single)).unwrap_or_default());
    ctx.insert("limiter", &(element.order == 1));
    ctx.insert("k", "");
    if let ModalSurface::Team { slots } = variant.surface {
        ctx.insert("team_slots", &slots);
        ctx.insert("team_elems", &variant.elements_per_group());
    }
    let tera = engine(&TEMPLATES)?;
    let kernels: &[&str] = match variant.surface {
        ModalSurface::Edge | ModalSurface::Atomic => &["modal_surface_edge"],
        ModalSurface::Element => &["modal_element"],
        ModalSurface::Team { .. } => &["modal_team"],
    };
    let mut source = format!("/* dg modal kernels: {} p={} {} */\n", ir.name, element.order, variant);
    let steps = ["modal_step", "update"];
    for name in ["dialect", "modal_sizes", "law", "modal_volume", "modal_face"].iter().chain(kernels).chain(&steps) {
        source.push_str(&tera.render(name, &ctx).map_err(|e| RenderError::Template(format!("{name}: {e:?}")))?);
        source.push('\n');
    }
    let source = source.replace(PRELUDE_SUFFIX, "");
    let launch =
        |role| ModalLaunch { role, local_size: variant.group, items_per_group: variant.elements_per_group() };
    let rhs_kernels = match variant.surface {
        ModalSurface::Edge => vec![launch(ModalRole::SurfaceEdge), launch(ModalRole::VolumeGather)],
        ModalSurface::Atomic => vec![launch(ModalRole::Volume), launch(ModalRole::SurfaceAtomic)],
        ModalSurface::Element => vec![launch(ModalRole::Element)],
        ModalSurface::Team { .. } => vec![launch(ModalRole::Team)],
    };
    Ok(ModalKernelSource {
        target,
        variant: *variant,
        source,
        rhs_kernels,
        nvars: ir.variables.len(),
        nmaterials: ir.materials.len(),
        nmodes: element.nmodes,
        edge_points: element.edge.points.len(),
        table,
        mean_check: admissible.is_some(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use dg_core::law::ConservationLaw;
    use std::collections::HashMap;

    /// The value of a `#define`d sum of products of integers and other defines (`3 * NQ * NM + 6 * NG * NM`).
    fn evaluate(expr: &str, defines: &HashMap<String, String>) -> usize {
        let expr = expr.trim().trim_start_matches('(').trim_end_matches(')');
        expr.split('+')
            .map(|product| {
                product
                    .split('*')
                    .map(|factor| {
                        let factor = factor.trim();
                        factor.parse::<usize>().unwrap_or_else(|_| evaluate(&defines[factor], defines))
                    })
                    .product::<usize>()
            })
            .sum()
    }

    /// The local arrays the team kernel declares, summed from the rendered source (its `#define`s and
    /// `LOCAL_MEM` declarations, those of its table set-up included), equal [`local_bytes`], which decides what a device may run: Euler at p = 4, 5.
    #[test]
    fn a_team_declares_the_local_memory_it_is_checked_for() {
        let law = dg_laws::euler2d::Law::default();
        let ir = dg_runtime::formulation::law_ir(&law).unwrap();
        let params = law.param_values();
        let input = LawInput { ir: &ir, params: &params, numerical_flux: law.numerical_flux_name() };
        for (order, spec, expected) in [
            // (4·15 + 2·4·8) values × 32 elements × 8 bytes
            (4, "modal/wg256/team8/const/mode-major/f64", 31_744),
            // (4·21 + 2·4·4) × 64 × 8: more than CUDA's 48 KiB of static shared memory
            (5, "modal/wg256/team4/const/elem-major/f64", 59_392),
            // the table (3·36·21 + 6·6·21 values) and (4·21 + 2·4·4) × 16, in f32
            (5, "modal/wg64/team4/shared/mode-major/f32", (3 * 36 * 21 + 6 * 6 * 21 + (84 + 32) * 16) * 4),
        ] {
            let variant: ModalVariant = spec.parse().unwrap();
            let element = ModalTriangle::new(order).unwrap();
            assert_eq!(local_bytes(&variant, 4, &element), expected, "{spec}");
            let source = render_modal(&input, &element, &variant, Target::Cuda).unwrap().source;
            let defines: HashMap<String, String> = source
                .lines()
                .filter_map(|l| l.strip_prefix("#define "))
                .filter_map(|l| l.split_once(' '))
                .map(|(name, value)| (name.to_string(), value.to_string()))
                .collect();
            // the team kernel's text, with the table set-up it expands
            let start = source.find("KERNEL void modal_team(").unwrap();
            let end = source[start + 1..].find("KERNEL ").map_or(source.len(), |e| start + 1 + e);
            let kernel = format!("{} {}", defines["TABLE_SETUP"], &source[start..end]);
            let declared: usize = kernel
                .split("LOCAL_MEM real ")
                .skip(1)
                .map(|rest| {
                    let (_, size) = rest.split_once('[').unwrap();
                    evaluate(size.split_once(']').unwrap().0, &defines)
                })
                .sum();
            assert_eq!(declared * variant.precision.bytes(), expected, "{spec}");
        }
    }
}
