//! Modal kernel source from the templates `templates/modal-tri/modal_*.tera` and the law's functions (`law.tera`).

use crate::variant::{ModalLayout, ModalSurface, ModalVariant, Tables, MMA_ITEMS_PER_ELEMENT};
use dg_codegen::cexpr::{literal, Divisions};
use dg_codegen::program::{emit_law_function, engine, insert_law, LawInput, RenderError, Target, PRELUDE_SUFFIX};
use dg_codegen::{DeviceLimits, Precision, VariantError};
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
    /// Per group of elements: volume and edges as two products on the f64 tensor cores.
    Mma,
    /// Per edge: the numerical flux at each Gauss point, computed once and stored.
    EdgeFlux,
    /// Per element: volume integral plus the lift of its edges' stored fluxes.
    ElementLift,
    /// Per element, two work items sharing it by variables: as [`ModalRole::ElementLift`].
    ElementLiftPair,
    /// Per element: the law's source term projected onto the modes and added to the finished right-hand side (a
    /// law with a source, on the mma surface only: every other surface adds it in its volume integral; launched
    /// last).
    Source,
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
            ModalRole::Mma => "modal_mma",
            ModalRole::EdgeFlux => "modal_edge_flux",
            ModalRole::ElementLift => "modal_element_lift",
            ModalRole::ElementLiftPair => "modal_element_lift_pair",
            ModalRole::Source => "modal_source",
        }
    }

    /// Whether one work item handles one edge (else one element).
    pub fn per_edge(self) -> bool {
        matches!(self, ModalRole::SurfaceEdge | ModalRole::SurfaceAtomic | ModalRole::EdgeFlux)
    }

    /// Whether the kernel writes the finished right-hand side and so takes the fused update's arguments
    /// (`STEP_ARGS`): every per-element kernel that finishes it (element, element-regs, volume-gather, mma and the
    /// element-lift kernels); the atomic surface only adds to it.
    pub fn writes_result(self) -> bool {
        matches!(
            self,
            ModalRole::Element
                | ModalRole::ElementRegs
                | ModalRole::VolumeGather
                | ModalRole::Mma
                | ModalRole::ElementLift
                | ModalRole::ElementLiftPair
        )
    }
}

/// One kernel of a right-hand-side evaluation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct ModalLaunch {
    /// What it does.
    pub role: ModalRole,
    /// Work items per group.
    pub local_size: usize,
    /// Elements (or edges) per group: the work items, or fewer when several share an element.
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
    /// Whether the volume integral adds the law's source term at its points (a law with a source, every surface
    /// but mma): the kernels' common arguments then end with every element's cubature points
    /// (`2 (k·NQ + q) + d`), and no source kernel follows.
    pub source_in_volume: bool,
}

/// The modal templates (`templates/modal-tri/`), besides the common ones.
pub const TEMPLATES: [(&str, &str); 10] = [
    ("modal_sizes", include_str!("../../../templates/modal-tri/modal_sizes.tera")),
    ("modal_volume", include_str!("../../../templates/modal-tri/modal_volume.tera")),
    ("modal_face", include_str!("../../../templates/modal-tri/modal_face.tera")),
    ("modal_surface_edge", include_str!("../../../templates/modal-tri/modal_surface_edge.tera")),
    ("modal_element", include_str!("../../../templates/modal-tri/modal_element.tera")),
    ("modal_element_regs", include_str!("../../../templates/modal-tri/modal_element_regs.tera")),
    ("modal_edge_flux", include_str!("../../../templates/modal-tri/modal_edge_flux.tera")),
    ("modal_mma", include_str!("../../../templates/modal-tri/modal_mma.tera")),
    ("modal_step", include_str!("../../../templates/modal-tri/modal_step.tera")),
    ("modal_source", include_str!("../../../templates/modal-tri/modal_source.tera")),
];

/// Elements (one work item each) per work group of the source kernel (`modal_source.tera`), which a law with a
/// source term adds after the right-hand side's kernels.
pub const SOURCE_GROUP: usize = 64;

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

/// The tiles of the mma surface's two products for `nv` variables and `group` work items on `element`
/// (`templates/modal-tri/modal_mma.tera`): traces U = A1·B1 (A1: NQ + 3·NG rows, NM columns), right-hand side
/// R = A2·B2 (A2: NM rows, 2·NQ + 3·NG columns); each warp's B has one column tile per variable, one column per
/// element of its 8.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MmaShape {
    /// Elements per work group (8 per warp).
    pub elements: usize,
    /// Work items per work group.
    pub threads: usize,
    /// Column tiles of 8 of a warp's products (one per variable).
    pub column_tiles: usize,
    /// A1's first edge row: the volume points' rows padded to a whole tile.
    pub edge_row: usize,
    /// Row tiles of A1 (8 rows each).
    pub rows1: usize,
    /// Steps of 4 along A1's columns (the modes).
    pub steps1: usize,
    /// Row tiles of A2.
    pub rows2: usize,
    /// Columns of A2 (2·NQ + 3·NG).
    pub columns2: usize,
    /// Steps of 4 along A2's columns.
    pub steps2: usize,
}

impl MmaShape {
    /// The shape for `group` work items.
    pub fn of(element: &ModalTriangle, nv: usize, group: usize) -> Self {
        let (nq, nm, ng) = (element.volume.w.len(), element.nmodes, element.edge.points.len());
        let columns2 = 2 * nq + 3 * ng;
        let edge_row = 8 * nq.div_ceil(8);
        MmaShape {
            edge_row,
            elements: (group / MMA_ITEMS_PER_ELEMENT).max(8),
            threads: group,
            column_tiles: nv,
            rows1: (edge_row + 3 * ng).div_ceil(8),
            steps1: nm.div_ceil(4),
            rows2: nm.div_ceil(8),
            columns2,
            steps2: columns2.div_ceil(4),
        }
    }

    /// Warps per work group.
    pub fn warps(&self) -> usize {
        (self.threads / 32).max(1)
    }

    /// Local memory of the warps' B2, bytes (f64).
    pub fn local_bytes(&self) -> usize {
        8 * self.warps() * self.column_tiles * self.steps2 * 32
    }
}

/// A1 and A2 of the mma surface in fragment order (`templates/modal-tri/modal_mma.tera`), from the basis `table`
/// of [`modal_table`]: value `(r·steps + s)·32 + lane` is A(8r + lane / 4, 4s + lane % 4), zero outside A.
pub fn mma_fragments(element: &ModalTriangle, shape: &MmaShape, table: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let (nq, nm, ng) = (element.volume.w.len(), element.nmodes, element.edge.points.len());
    let t_wpr = nq * nm;
    let t_wps = 2 * nq * nm;
    let t_phie = 3 * nq * nm;
    let t_wphie = 3 * nq * nm + 3 * ng * nm;
    // A1(row, j): φ_j at volume point `row`, then (from the tile after the last volume point's) at edge point
    // row − edge_row = f·NG + g
    let edge_row = shape.edge_row;
    let a1 = |row: usize, j: usize| -> f64 {
        if j >= nm {
            0.0
        } else if row < nq {
            table[row * nm + j]
        } else if (edge_row..edge_row + 3 * ng).contains(&row) {
            table[t_phie + (row - edge_row) * nm + j]
        } else {
            0.0
        }
    };
    // A2(j, c): w∂φ_j/∂r at volume point c, w∂φ_j/∂s at c − NQ, wφ_j at edge point c − 2·NQ
    let a2 = |j: usize, c: usize| -> f64 {
        if j >= nm {
            0.0
        } else if c < nq {
            table[t_wpr + c * nm + j]
        } else if c < 2 * nq {
            table[t_wps + (c - nq) * nm + j]
        } else if c < 2 * nq + 3 * ng {
            table[t_wphie + (c - 2 * nq) * nm + j]
        } else {
            0.0
        }
    };
    let fragments = |rows: usize, steps: usize, a: &dyn Fn(usize, usize) -> f64| -> Vec<f64> {
        let mut out = Vec::with_capacity(rows * steps * 32);
        for r in 0..rows {
            for s in 0..steps {
                out.extend((0..32).map(|lane| a(8 * r + lane / 4, 4 * s + lane % 4)));
            }
        }
        out
    };
    (fragments(shape.rows1, shape.steps1, &a1), fragments(shape.rows2, shape.steps2, &a2))
}

/// What the modal variant rules need of a law: its number of variables, and whether its numerical flux is
/// conservative (the edge-once surfaces give the neighbour the negative of the flux they compute).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModalLawShape {
    /// State variables.
    pub nvars: usize,
    /// Whether the selected numerical flux gives one side of a face minus what it gives the other
    /// ([`dg_runtime::verify::numerical_flux_is_conservative`]).
    pub conservative_flux: bool,
}

impl ModalLawShape {
    /// The shape of `ir` with numerical flux `numerical_flux`.
    pub fn of(ir: &dg_ir::LawIr, numerical_flux: &str) -> Self {
        Self {
            nvars: ir.variables.len(),
            conservative_flux: dg_runtime::verify::numerical_flux_is_conservative(ir, numerical_flux),
        }
    }
}

/// The rules of the modal variant space that depend on the law, the device and the element: the surfaces that
/// compute each edge's flux once (edge, atomic, edge-flux, edge-flux-pair) need a conservative numerical flux; the
/// mma surface needs the f64 tensor cores (CUDA, compute capability 8.0 and later), f64, and its local memory
/// within the device's.
pub fn check_modal(
    variant: &ModalVariant,
    element: &ModalTriangle,
    law: &ModalLawShape,
    limits: &DeviceLimits,
) -> Result<(), VariantError> {
    let reject = |reason: String| Err(VariantError::Rejected { spec: variant.to_string(), reason });
    let edge_once = matches!(
        variant.surface,
        ModalSurface::Edge | ModalSurface::Atomic | ModalSurface::EdgeFlux | ModalSurface::EdgeFluxPair
    );
    if edge_once && !law.conservative_flux {
        return reject(
            "this surface computes each edge's flux once and gives the neighbour its negative, but the law's \
             numerical flux is not conservative (F*(q⁻, q⁺, m⁻, m⁺, n) ≠ −F*(q⁺, q⁻, m⁺, m⁻, −n): a penalty form \
             across a material jump, say); the element surfaces compute each side's flux"
                .into(),
        );
    }
    if variant.surface != ModalSurface::Mma {
        return Ok(());
    }
    let nv = law.nvars;
    if variant.precision != Precision::F64 {
        return reject("mma multiplies on the f64 tensor cores: f64 only".into());
    }
    if variant.layout != ModalLayout::ModeMajor {
        return reject("mma loads and stores a group's values along its elements: mode-major only".into());
    }
    if variant.tables != Tables::Const {
        return reject(
            "mma reads its operands through the cache and its warps share no local memory: tables const only".into(),
        );
    }
    if !limits.tensor_cores {
        return reject("mma needs the tensor cores of a CUDA device of compute capability 8.0 or later".into());
    }
    let shape = MmaShape::of(element, nv, variant.group);
    let tables = if variant.tables == Tables::Shared { 8 * modal_table(element).len() } else { 0 };
    let bytes = shape.local_bytes() + tables;
    if bytes > limits.local_memory {
        return reject(format!(
            "{bytes} bytes of local memory for {} elements per group at p = {} (the device allows {})",
            shape.elements, element.order, limits.local_memory
        ));
    }
    Ok(())
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
    let has_source = ir.functions_of(FunctionRole::Source).next().is_some();
    let single = variant.precision == Precision::F32;
    let mma = variant.surface == ModalSurface::Mma;
    if mma && (single || target != Target::Cuda) {
        return Err(VariantError::Rejected {
            spec: variant.to_string(),
            reason: "mma is generated for CUDA in f64 (the f64 tensor cores' `mma.sync.m8n8k4`)".into(),
        }
        .into());
    }
    // the source in the volume integral: the volume kernels evaluate the state at the cubature points already
    let source_in_volume = has_source && !mma;
    let mut table = modal_table(element);
    if source_in_volume {
        // w_q φ_j(x_q) after the basis table (T_WPHI)
        for q in 0..element.volume.w.len() {
            table.extend((0..element.nmodes).map(|j| element.volume.w[q] * element.phi[(q, j)]));
        }
    }
    let shape = MmaShape::of(element, ir.variables.len(), variant.group);
    let mut ctx = tera::Context::new();
    insert_law(&mut ctx, law, single, DIVISIONS)?;
    ctx.insert("cuda", &(target == Target::Cuda));
    ctx.insert("fold_source", &source_in_volume);
    ctx.insert("double", &!single);
    ctx.insert("nv", &ir.variables.len());
    ctx.insert("nmat", &ir.materials.len());
    ctx.insert("nm", &element.nmodes);
    ctx.insert("nq", &element.volume.w.len());
    ctx.insert("ng", &element.edge.points.len());
    ctx.insert("mode_major", &(variant.layout == ModalLayout::ModeMajor));
    ctx.insert("tiled_layout", &(variant.layout == ModalLayout::Tiled));
    ctx.insert("tables_const", &(variant.tables == Tables::Const));
    ctx.insert("table", &table.iter().map(|&v| literal(v, single)).collect::<Vec<_>>().join(", "));
    if mma {
        // the products' operands follow the basis table in the table buffer (T_MMA1, T_MMA2)
        let (a1, a2) = mma_fragments(element, &shape, &table);
        table.extend(a1);
        table.extend(a2);
        ctx.insert("group", &shape.elements);
        ctx.insert("threads", &shape.threads);
        ctx.insert("warps", &(shape.threads / 32));
        // resident groups asked of the compiler: 512 work items per SM, so at most 128 registers each
        let min_groups = (512 / shape.threads).max(1);
        ctx.insert("min_groups", &min_groups);
        ctx.insert("max_registers", &(65536 / (shape.threads * min_groups)).min(255));
        ctx.insert("ctiles", &shape.column_tiles);
        ctx.insert("rt1", &shape.rows1);
        ctx.insert("ks1", &shape.steps1);
        ctx.insert("rt2", &shape.rows2);
        ctx.insert("ks2", &shape.steps2);
        ctx.insert("nk2", &shape.columns2);
        ctx.insert("nqp", &shape.edge_row);
    }
    ctx.insert("atomic", &(variant.surface == ModalSurface::Atomic));
    ctx.insert("pair", &(variant.surface == ModalSurface::EdgeFluxPair));
    ctx.insert("pair_items", &variant.group);
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
        ModalSurface::Mma => &["modal_mma"],
        ModalSurface::EdgeFlux | ModalSurface::EdgeFluxPair => &["modal_edge_flux"],
    };
    let mut source = format!("/* dg modal kernels: {} p={} {} */\n", ir.name, element.order, variant);
    let steps: &[&str] = if has_source && !source_in_volume {
        &["modal_source", "modal_step", "update"]
    } else {
        &["modal_step", "update"]
    };
    for name in ["dialect", "modal_sizes", "law", "modal_volume", "modal_face"].iter().chain(kernels).chain(steps) {
        source.push_str(&tera.render(name, &ctx).map_err(|e| RenderError::Template(format!("{name}: {e:?}")))?);
        source.push('\n');
    }
    let source = source.replace(PRELUDE_SUFFIX, "");
    let launch = |role| ModalLaunch { role, local_size: variant.group, items_per_group: variant.group };
    let mut rhs_kernels = match variant.surface {
        ModalSurface::Edge => vec![launch(ModalRole::SurfaceEdge), launch(ModalRole::VolumeGather)],
        ModalSurface::Atomic => vec![launch(ModalRole::Volume), launch(ModalRole::SurfaceAtomic)],
        ModalSurface::Element => vec![launch(ModalRole::Element)],
        ModalSurface::ElementRegs => vec![launch(ModalRole::ElementRegs)],
        ModalSurface::EdgeFlux => vec![launch(ModalRole::EdgeFlux), launch(ModalRole::ElementLift)],
        ModalSurface::EdgeFluxPair => vec![
            launch(ModalRole::EdgeFlux),
            ModalLaunch {
                role: ModalRole::ElementLiftPair,
                local_size: variant.group,
                items_per_group: variant.group / 2,
            },
        ],
        ModalSurface::Mma => {
            vec![ModalLaunch { role: ModalRole::Mma, local_size: variant.group, items_per_group: shape.elements }]
        }
    };
    if has_source && !source_in_volume {
        let group = SOURCE_GROUP;
        rhs_kernels.push(ModalLaunch { role: ModalRole::Source, local_size: group, items_per_group: group });
    }
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
        source_in_volume,
    })
}
