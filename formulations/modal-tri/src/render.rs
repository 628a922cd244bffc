//! Modal kernel source from the templates `templates/modal-tri/modal_*.tera` and the law's functions (`law.tera`).

use crate::variant::{ModalLayout, ModalSurface, ModalVariant, Tables};
use dg_codegen::cexpr::{literal, Divisions};
use dg_codegen::program::{emit_law_function, engine, insert_law, LawInput, RenderError, Target, PRELUDE_SUFFIX};
use dg_codegen::Precision;
use dg_core::triangle::ModalTriangle;
use dg_ir::FunctionRole;

/// The law's functions invert a divisor shared by several divisions once, and in f32 take the hardware's reciprocal,
/// division and square root: the element kernels evaluate the flux at every quadrature point and the numerical flux
/// at every edge point, Euler's fluxes divide by the densities five to ten times each, and the f32 kernels are bound
/// by the instructions they issue.
const DIVISIONS: Divisions = Divisions::ApproximateSingle;

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
    /// Per element: volume and its own three edges, coefficients read once.
    ElementRegs,
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
            ModalRole::ElementRegs => "modal_element_regs",
        }
    }

    /// Whether one work item handles one edge (else one element).
    pub fn per_edge(self) -> bool {
        matches!(self, ModalRole::SurfaceEdge | ModalRole::SurfaceAtomic)
    }

    /// Whether the kernel writes the finished right-hand side and so takes the fused update's arguments
    /// (`STEP_ARGS`): the element and volume-gather kernels; the atomic surface only adds to it.
    pub fn writes_result(self) -> bool {
        matches!(self, ModalRole::Element | ModalRole::ElementRegs | ModalRole::VolumeGather)
    }
}

/// One kernel of a right-hand-side evaluation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct ModalLaunch {
    /// What it does.
    pub role: ModalRole,
    /// Work items per group.
    pub local_size: usize,
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
    ("modal_element_regs", include_str!("../../../templates/modal-tri/modal_element_regs.tera")),
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
    insert_law(&mut ctx, law, single, DIVISIONS)?;
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
    ctx.insert("max_speed", &emit_law_function(speed_fn, law, "s", single, DIVISIONS));
    let admissible = ir.functions_of(FunctionRole::Admissible).next();
    ctx.insert("has_admissible", &admissible.is_some());
    ctx.insert(
        "admissible",
        &admissible.map(|f| emit_law_function(f, law, "a", single, DIVISIONS)).unwrap_or_default(),
    );
    ctx.insert("limiter", &(element.order == 1));
    ctx.insert("k", "");
    let tera = engine(&TEMPLATES)?;
    let kernels: &[&str] = match variant.surface {
        ModalSurface::Edge | ModalSurface::Atomic => &["modal_surface_edge"],
        ModalSurface::Element => &["modal_element"],
        ModalSurface::ElementRegs => &["modal_element_regs"],
    };
    let mut source = format!("/* dg modal kernels: {} p={} {} */\n", ir.name, element.order, variant);
    let steps = ["modal_step", "update"];
    for name in ["dialect", "modal_sizes", "law", "modal_volume", "modal_face"].iter().chain(kernels).chain(&steps) {
        source.push_str(&tera.render(name, &ctx).map_err(|e| RenderError::Template(format!("{name}: {e:?}")))?);
        source.push('\n');
    }
    let source = source.replace(PRELUDE_SUFFIX, "");
    let launch = |role| ModalLaunch { role, local_size: variant.group };
    let rhs_kernels = match variant.surface {
        ModalSurface::Edge => vec![launch(ModalRole::SurfaceEdge), launch(ModalRole::VolumeGather)],
        ModalSurface::Atomic => vec![launch(ModalRole::Volume), launch(ModalRole::SurfaceAtomic)],
        ModalSurface::Element => vec![launch(ModalRole::Element)],
        ModalSurface::ElementRegs => vec![launch(ModalRole::ElementRegs)],
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
