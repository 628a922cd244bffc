//! The tetrahedral program: every valid kernel of every strategy for one (law, order, precision, target), from
//! the templates `templates/nodal-tet/tet_*.tera` and the law's functions (`law.tera`).

use crate::mma::{mma_gemms, MmaGemm, MmaLoad, TetGemm};
use crate::variant::{pad_np, pad_three_np, TetLimits, ELEMENT_WIDTHS, KB_CHOICES, KU_CHOICES};
use dg_codegen::cexpr::{literal, Divisions};
use dg_codegen::program::{engine, insert_law, LawInput, RenderError, Target, PRELUDE_SUFFIX};
use dg_codegen::Precision;
use dg_core::tetrahedron::ReferenceTetrahedron;
use dg_ir::FunctionRole;

/// Divisions in the law's functions as the law wrote them: these kernels' tuning results (H100) were measured so, and
/// [`Divisions::SharedReciprocals`] is measured on the triangles' kernels first.
const DIVISIONS: Divisions = Divisions::AsWritten;

/// What a kernel of the tetrahedral program does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
pub enum TetRole {
    /// Traces of every face node from the state.
    Trace,
    /// Volume term, node per thread, `kb` elements per block.
    VolumeNode {
        /// Elements per block.
        kb: usize,
    },
    /// Volume term, element per thread.
    VolumeElement {
        /// Work-group size.
        width: usize,
    },
    /// Node-local part of the GEMM volume term.
    VolumeLocal,
    /// The node-local part and the face jumps in one pass (the GEMM strategy's right-hand side in a run).
    LocalFlux {
        /// Elements per work group.
        elements: usize,
    },
    /// Surface term, node per thread.
    SurfaceNode {
        /// Elements per block.
        kb: usize,
    },
    /// Surface term, element per thread.
    SurfaceElement {
        /// Work-group size.
        width: usize,
    },
    /// Face jumps of every face node (the GEMM strategy lifts them with a GEMM).
    Flux,
    /// AB3 update, with the trace extraction fused in when `traces` (the strategies whose surface reads traces).
    UpdateAb3 {
        /// Elements per block.
        ku: usize,
        /// Whether it writes the face-node traces.
        traces: bool,
    },
    /// y = a·y + Σ cᵢ xᵢ (the Runge–Kutta integrators).
    Lincomb,
    /// The law's source term added at every node (a law with a source only), after the other kernels of a
    /// right-hand side.
    Source,
    /// One of the GEMM strategy's products on the tensor cores ([`MmaGemm`]), `columns` columns per work group
    /// and `chunks` work groups per columns.
    Mma {
        /// Which product.
        gemm: TetGemm,
        /// Columns per work group.
        columns: usize,
        /// Row chunks.
        chunks: usize,
    },
}

/// One kernel of the program and how to launch it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct TetKernel {
    /// Its role.
    pub role: TetRole,
    /// Function name.
    pub name: String,
    /// Work items per group.
    pub local_size: usize,
}

impl TetKernel {
    /// Work groups for `k` elements.
    pub fn groups(&self, k: usize, np: usize, nface: usize, ldq: usize, nv: usize) -> usize {
        let n = match self.role {
            TetRole::Trace | TetRole::Flux => k * nface,
            TetRole::VolumeLocal | TetRole::Source => k * np,
            TetRole::VolumeNode { kb } | TetRole::SurfaceNode { kb } => k.div_ceil(kb),
            TetRole::UpdateAb3 { ku, .. } => k.div_ceil(ku),
            TetRole::LocalFlux { elements } => k.div_ceil(elements),
            TetRole::VolumeElement { width } | TetRole::SurfaceElement { width } => k.div_ceil(width),
            TetRole::Lincomb => k * nv * ldq,
            TetRole::Mma { gemm, columns, chunks } => {
                let n = if gemm.lifts() { k * nv } else { k };
                return n.div_ceil(columns).max(1) * chunks;
            }
        };
        match self.role {
            TetRole::Trace | TetRole::Flux | TetRole::VolumeLocal | TetRole::Lincomb | TetRole::Source => {
                n.div_ceil(256).max(1)
            }
            _ => n.max(1),
        }
    }
}

/// The name of the AB3 update kernel with `ku` elements per block, writing traces or not.
pub fn update_kernel_name(ku: usize, traces: bool) -> String {
    format!("tet_update_ab3{}_ku{ku}", if traces { "_traces" } else { "" })
}

/// The generated program.
#[derive(Debug, Clone)]
pub struct TetProgram {
    /// Language.
    pub target: Target,
    /// Precision.
    pub precision: Precision,
    /// Program text.
    pub source: String,
    /// Every kernel in it.
    pub kernels: Vec<TetKernel>,
    /// Kernels left out, with the reason (too much shared memory, too large a work group).
    pub rejected: Vec<(String, String)>,
    /// Nodes per element.
    pub np: usize,
    /// Face nodes per element (4·Nfp).
    pub nface: usize,
    /// Column stride of the state (Np padded as seed 002's Table 4).
    pub ldq: usize,
    /// Rows of the stacked derivative matrix (3·Np padded as Table 4).
    pub m3: usize,
    /// Variables.
    pub nvars: usize,
    /// Materials per element.
    pub nmaterials: usize,
    /// How the volume term is split (node and GEMM strategies).
    pub plan: crate::plan::VolumePlan,
    /// The tensor-core GEMM kernels (CUDA, f32; none otherwise).
    pub mma: Vec<MmaGemm>,
}

impl TetProgram {
    /// The kernel of `role`, if it is in the program.
    pub fn kernel(&self, role: TetRole) -> Option<&TetKernel> {
        self.kernels.iter().find(|k| k.role == role)
    }

    /// The tensor-core kernel of `gemm` and its role, if the program has it (and the device kept it).
    pub fn mma_kernel(&self, gemm: TetGemm) -> Option<(&MmaGemm, TetRole)> {
        let m = self.mma.iter().find(|m| m.gemm == gemm)?;
        let role = TetRole::Mma { gemm, columns: m.columns_per_group(), chunks: m.chunks };
        self.kernel(role).map(|_| (m, role))
    }

    /// Whether the tensor-core lift kernel is in the program (the `mma-lift` engine).
    pub fn has_mma_lift(&self) -> bool {
        self.mma_kernel(TetGemm::Lift).is_some()
    }

    /// Whether the tensor-core lift kernel with the AB3 update is in the program (beside the other three: the
    /// `mma-ab3` engine; a law without a source term).
    pub fn has_mma_ab3(&self) -> bool {
        self.has_mma() && self.mma_kernel(TetGemm::LiftAb3).is_some()
    }

    /// Whether every tensor-core GEMM kernel of the `mma` engine is in the program.
    pub fn has_mma(&self) -> bool {
        [TetGemm::Gradient, TetGemm::Divergence, TetGemm::Lift].into_iter().all(|g| self.mma_kernel(g).is_some())
    }
}

/// The tetrahedral templates (`templates/nodal-tet/`), besides the common ones.
pub const TEMPLATES: [(&str, &str); 12] = [
    ("tet_sizes", include_str!("../../../templates/nodal-tet/tet_sizes.tera")),
    ("tet_prelude", include_str!("../../../templates/nodal-tet/tet_prelude.tera")),
    ("tet_trace", include_str!("../../../templates/nodal-tet/tet_trace.tera")),
    ("tet_volume_node", include_str!("../../../templates/nodal-tet/tet_volume_node.tera")),
    ("tet_volume_elem", include_str!("../../../templates/nodal-tet/tet_volume_elem.tera")),
    ("tet_volume_gemm", include_str!("../../../templates/nodal-tet/tet_volume_gemm.tera")),
    ("tet_surface_node", include_str!("../../../templates/nodal-tet/tet_surface_node.tera")),
    ("tet_surface_elem", include_str!("../../../templates/nodal-tet/tet_surface_elem.tera")),
    ("tet_flux", include_str!("../../../templates/nodal-tet/tet_flux.tera")),
    ("tet_update", include_str!("../../../templates/nodal-tet/tet_update.tera")),
    ("tet_source", include_str!("../../../templates/nodal-tet/tet_source.tera")),
    ("tet_gemm_mma", include_str!("../../../templates/nodal-tet/tet_gemm_mma.tera")),
];

/// The GEMM operands, column-major: [Dr; Ds; Dt] (M3 × Np, leading dimension M3, padding rows zero), LIFT
/// (LDQ × 4Nfp, leading dimension LDQ) and [Dr Ds Dt] (LDQ × 3Np, leading dimension LDQ).
pub fn gemm_matrices(element: &ReferenceTetrahedron) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let (np, nface) = (element.np, 4 * element.nfp);
    let (ldq, m3) = (pad_np(np), pad_three_np(3 * np));
    let mut stacked = vec![0.0; m3 * np];
    for (j, d) in [&element.dr, &element.ds, &element.dt].into_iter().enumerate() {
        for col in 0..np {
            for row in 0..np {
                stacked[col * m3 + j * np + row] = d[(row, col)];
            }
        }
    }
    let mut lift = vec![0.0; ldq * nface];
    for col in 0..nface {
        for row in 0..np {
            lift[col * ldq + row] = element.lift[(row, col)];
        }
    }
    let mut side_by_side = vec![0.0; ldq * 3 * np];
    for (j, d) in [&element.dr, &element.ds, &element.dt].into_iter().enumerate() {
        for col in 0..np {
            for row in 0..np {
                side_by_side[(j * np + col) * ldq + row] = d[(row, col)];
            }
        }
    }
    (stacked, lift, side_by_side)
}

/// Renders every kernel that fits `limits` for `law` on `element` in `precision`.
pub fn render_tet(
    law: &LawInput<'_>,
    element: &ReferenceTetrahedron,
    precision: Precision,
    target: Target,
    limits: TetLimits,
) -> Result<TetProgram, RenderError> {
    let ir = law.ir;
    let law_err = |reason: String| RenderError::Law { law: ir.name.clone(), reason };
    if ir.dim != 3 {
        return Err(law_err(format!("the tetrahedral kernels need a 3D law (this one is {}D)", ir.dim)));
    }
    if !ir.flux_is_linear_homogeneous() {
        return Err(law_err(
            "the tetrahedral kernels differentiate the fields first (seed 002), which needs a flux linear and \
             homogeneous in the state"
                .into(),
        ));
    }
    let has_source = ir.functions_of(FunctionRole::Source).next().is_some();
    let single = precision == Precision::F32;
    let bytes = precision.bytes();
    let (np, nfp) = (element.np, element.nfp);
    let nface = 4 * nfp;
    let (nv, nmat) = (ir.variables.len(), ir.materials.len());
    let (ldq, m3) = (pad_np(np), pad_three_np(3 * np));
    let fmask = element.face_node_indices();
    let mut slots = vec![-1i64; 3 * np];
    for (j, &i) in fmask.iter().enumerate() {
        let free = (0..3).find(|s| slots[3 * i + s] < 0).ok_or_else(|| law_err("a node on four faces".into()))?;
        slots[3 * i + free] = j as i64;
    }
    let join = |v: &mut dyn Iterator<Item = String>| v.collect::<Vec<_>>().join(", ");
    let mut ctx = tera::Context::new();
    insert_law(&mut ctx, law, single, DIVISIONS)?;
    ctx.insert("cuda", &(target == Target::Cuda));
    ctx.insert("double", &!single);
    ctx.insert("np", &np);
    ctx.insert("nfp", &nfp);
    ctx.insert("nv", &nv);
    ctx.insert("nmat", &nmat);
    ctx.insert("ldq", &ldq);
    ctx.insert("m3", &m3);
    ctx.insert("fmask", &join(&mut fmask.iter().map(|i| i.to_string())));
    ctx.insert("node_slots", &join(&mut slots.iter().map(|i| i.to_string())));
    let plan = crate::plan::VolumePlan::of(ir);
    ctx.insert("grad", &plan.gradient);
    ctx.insert("div", &plan.divergence);
    ctx.insert("derived", &plan.from_derivatives);
    ctx.insert("ab3", &[23.0 / 12.0, -16.0 / 12.0, 5.0 / 12.0].map(|c| literal(c, single)));
    ctx.insert("p", PRELUDE_SUFFIX);
    ctx.insert("k", "");
    // the merged node-local and face kernel: max(NP, NFACE) work items per element, as many whole elements as fit
    // 256 work items (at least one; rounding up to 288 at N = 7 was slower on the H200)
    let per = np.max(nface);
    let local_flux_elements = (256 / per).max(1);
    ctx.insert("per", &per);
    ctx.insert("el", &local_flux_elements);

    let tera = engine(&TEMPLATES)?;
    let render = |name: &str, ctx: &tera::Context| {
        tera.render(name, ctx).map_err(|e| RenderError::Template(format!("{name}: {e:?}")))
    };
    let mut source = format!("/* dg tetrahedral kernels: {} N={} {:?} */\n", ir.name, element.order, precision);
    for name in ["dialect", "tet_sizes", "law", "tet_prelude", "tet_trace", "tet_volume_gemm", "tet_flux", "update"] {
        source.push_str(&render(name, &ctx)?);
        source.push('\n');
    }
    let mut kernels = vec![
        TetKernel { role: TetRole::Trace, name: "tet_trace".into(), local_size: 256 },
        TetKernel { role: TetRole::VolumeLocal, name: "tet_volume_local".into(), local_size: 256 },
        TetKernel { role: TetRole::Flux, name: "tet_flux".into(), local_size: 256 },
        TetKernel {
            role: TetRole::LocalFlux { elements: local_flux_elements },
            name: "tet_local_flux".into(),
            local_size: local_flux_elements * per,
        },
        TetKernel { role: TetRole::Lincomb, name: "lincomb".into(), local_size: 256 },
    ];
    if has_source {
        source.push_str(&render("tet_source", &ctx)?);
        source.push('\n');
        kernels.push(TetKernel { role: TetRole::Source, name: "tet_source".into(), local_size: 256 });
    }
    let mut rejected = Vec::new();
    let mut add = |role: TetRole, name: String, local: usize, shared: usize, template: &str, extra: (&str, usize)| {
        if local > limits.max_work_group {
            rejected.push((name, format!("{local} work items per group > the device's {}", limits.max_work_group)));
            return Ok(());
        }
        if shared > limits.local_memory {
            rejected.push((name, format!("{shared} B of shared memory > the device's {} B", limits.local_memory)));
            return Ok(());
        }
        let mut c = ctx.clone();
        c.insert(extra.0, &extra.1);
        if let TetRole::UpdateAb3 { traces, .. } = role {
            c.insert("traces", &traces);
        }
        source.push_str(&render(template, &c)?);
        source.push('\n');
        kernels.push(TetKernel { role, name, local_size: local });
        Ok::<(), RenderError>(())
    };
    for kb in KB_CHOICES {
        add(
            TetRole::VolumeNode { kb },
            format!("tet_volume_node_kb{kb}"),
            kb * np,
            kb * (plan.gradient.len() + 1 + 3 * plan.divergence.len() + 1) * np * bytes,
            "tet_volume_node",
            ("kb", kb),
        )?;
    }
    for kb in KB_CHOICES {
        add(
            TetRole::SurfaceNode { kb },
            format!("tet_surface_node_kb{kb}"),
            kb * np.max(nface),
            kb * nv * nface * bytes,
            "tet_surface_node",
            ("kb", kb),
        )?;
    }
    for width in ELEMENT_WIDTHS {
        add(
            TetRole::VolumeElement { width },
            format!("tet_volume_elem_w{width}"),
            width,
            3 * np * np * bytes,
            "tet_volume_elem",
            ("w", width),
        )?;
        add(
            TetRole::SurfaceElement { width },
            format!("tet_surface_elem_w{width}"),
            width,
            np * nface * bytes,
            "tet_surface_elem",
            ("w", width),
        )?;
    }
    for traces in [true, false] {
        for ku in KU_CHOICES {
            let role = TetRole::UpdateAb3 { ku, traces };
            add(role, update_kernel_name(ku, traces), ku * np, 0, "tet_update", ("ku", ku))?;
        }
    }
    // the GEMM strategy's products on the tf32 tensor cores (CUDA, f32: three products of split operands)
    let mut mma = Vec::new();
    if target == Target::Cuda && single && limits.tensor_cores {
        for m in mma_gemms((np, nface, ldq, m3, nv), &plan.gradient, &plan.divergence) {
            // the update in the lift would skip a source term, which is added between the lift and the update
            if m.gemm == TetGemm::LiftAb3 && has_source {
                continue;
            }
            if m.shared_bytes() > limits.local_memory {
                let why = format!("{} B of shared memory > the device's {} B", m.shared_bytes(), limits.local_memory);
                rejected.push((m.name.clone(), why));
                continue;
            }
            if !m.aligned {
                rejected.push((m.name.clone(), "its B operand's columns are not 16-byte aligned".into()));
                continue;
            }
            let mut c = ctx.clone();
            c.insert("slab", &m.slab());
            c.insert("slabs", &m.steps().div_ceil(m.slab()));
            c.insert("name", &m.name);
            c.insert("steps", &m.steps());
            c.insert("depth", &m.depth);
            c.insert("tpw", &m.tiles_per_warp);
            c.insert("chunks", &m.chunks);
            c.insert("nt", &m.column_tiles);
            c.insert("warps", &m.warps);
            c.insert("ldb", &m.ldb);
            c.insert("ldc", &m.ldc);
            c.insert("rows_used", &m.rows_used);
            c.insert("alpha", &literal(m.alpha, true));
            c.insert("accumulate", &m.accumulate);
            let load = match m.load {
                MmaLoad::Quad => "quad",
                MmaLoad::Pair => "pair",
            };
            c.insert("load", load);
            c.insert("stages", &m.stages);
            c.insert("min_groups", &m.min_groups());
            c.insert("ab3_update", &(m.gemm == TetGemm::LiftAb3));
            source.push_str(&render("tet_gemm_mma", &c)?);
            source.push('\n');
            let role = TetRole::Mma { gemm: m.gemm, columns: m.columns_per_group(), chunks: m.chunks };
            kernels.push(TetKernel { role, name: m.name.clone(), local_size: m.local_size() });
            mma.push(m);
        }
    }
    Ok(TetProgram {
        target,
        precision,
        source: source.replace(PRELUDE_SUFFIX, ""),
        kernels,
        rejected,
        np,
        nface,
        ldq,
        m3,
        nvars: nv,
        nmaterials: nmat,
        plan,
        mma,
    })
}
