//! The hexahedral program: every kernel of every variant for one (law, order, precision, target), from the
//! templates `templates/hex/hex_*.tera` and the law's functions (`law.tera`, twice: with the parameters compiled
//! in for the specialised kernels, and reading them at run time for the generic ones).

use crate::variant::{Layout, CELLS_PER_GROUP};
use dg_codegen::cexpr::{literal, Divisions};
use dg_codegen::program::{engine, insert_law, LawInput, RenderError, Target};
use dg_codegen::Precision;
use dg_core::hexahedron::ReferenceHexahedron;
use dg_ir::{FunctionRole, InputKind, LawIr, Op};

/// Divisions in the law's functions as the law wrote them: these kernels' tuning results (H100) were measured so, and
/// [`Divisions::SharedReciprocals`] is measured on the triangles' kernels first.
const DIVISIONS: Divisions = Divisions::AsWritten;

/// The geometry a kernel is compiled for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
pub enum Geometry {
    /// Axis-aligned box cells: the metric is constant and diagonal, computed from the cell's size.
    Box,
    /// General trilinear cells: the metric per node and the normals per face point, read from memory.
    Trilinear,
    /// The generic kernel: every cell as a trilinear one, the order and the parameters at run time.
    Generic,
}

impl Geometry {
    fn tag(self) -> &'static str {
        match self {
            Geometry::Box => "box",
            Geometry::Trilinear => "tri",
            Geometry::Generic => "gen",
        }
    }
}

/// The faces a flux kernel handles.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
pub enum FaceKind {
    /// Interior faces.
    Interior,
    /// Boundary faces of this condition (its index in the law's conditions).
    Boundary(usize),
    /// Any face, the kind read per face (the generic kernel).
    Any,
}

/// What a kernel of the hexahedral program does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
pub enum HexRole {
    /// A cell kernel: the whole right-hand side (`fused`) or the volume term only.
    Cell {
        /// Face fluxes in shared memory and the inverse mass applied (else the volume term only).
        fused: bool,
        /// Geometry compiled for.
        geometry: Geometry,
        /// Cells per work group.
        cells: usize,
    },
    /// A flux kernel of an interface zone.
    Flux {
        /// The faces.
        faces: FaceKind,
        /// The geometry of the faces' own cells.
        geometry: Geometry,
    },
    /// A collect kernel of a cell zone (split surface).
    Collect {
        /// Geometry compiled for.
        geometry: Geometry,
    },
    /// y = a·y + Σ cᵢ xᵢ (the Runge–Kutta integrators).
    Lincomb,
    /// The law's source term added at every node of a cell list (a law with a source only), after the other
    /// kernels of a right-hand side.
    Source,
}

/// One kernel and how it is launched.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct HexKernel {
    /// Its role.
    pub role: HexRole,
    /// Function name.
    pub name: String,
    /// Work items per group.
    pub local_size: usize,
}

/// The generated program.
#[derive(Debug, Clone)]
pub struct HexProgram {
    /// Language.
    pub target: Target,
    /// Precision.
    pub precision: Precision,
    /// Program text.
    pub source: String,
    /// Every kernel in it.
    pub kernels: Vec<HexKernel>,
    /// Kernels left out, with the reason (too much shared memory, too large a work group).
    pub rejected: Vec<(String, String)>,
    /// Points per direction (D + 1).
    pub n1: usize,
    /// Nodes per cell.
    pub np: usize,
    /// Face points per cell (6 (D + 1)²).
    pub nface: usize,
    /// Variables.
    pub nvars: usize,
    /// Materials per cell.
    pub nmaterials: usize,
    /// The law's boundary conditions (one flux kernel per condition and geometry).
    pub conditions: usize,
    /// The state layout the kernels index, and the cells of the states.
    pub state: (Layout, usize),
}

impl HexProgram {
    /// The kernel of `role`, if it is in the program.
    pub fn kernel(&self, role: HexRole) -> Option<&HexKernel> {
        self.kernels.iter().find(|k| k.role == role)
    }
}

/// What the device allows a kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HexLimits {
    /// Largest work group.
    pub max_work_group: usize,
    /// Static local (shared) memory per work group, bytes.
    pub local_memory: usize,
}

/// The hexahedral templates (`templates/hex/`), besides the common ones.
pub const TEMPLATES: [(&str, &str); 9] = [
    ("hex_prelude", include_str!("../../../templates/hex/hex_prelude.tera")),
    ("hex_args", include_str!("../../../templates/hex/hex_args.tera")),
    ("hex_ops", include_str!("../../../templates/hex/hex_ops.tera")),
    ("hex_own_materials", include_str!("../../../templates/hex/hex_own_materials.tera")),
    ("hex_face", include_str!("../../../templates/hex/hex_face.tera")),
    ("hex_cell", include_str!("../../../templates/hex/hex_cell.tera")),
    ("hex_flux", include_str!("../../../templates/hex/hex_flux.tera")),
    ("hex_collect", include_str!("../../../templates/hex/hex_collect.tera")),
    ("hex_source", include_str!("../../../templates/hex/hex_source.tera")),
];

/// The law's IR with every parameter read as a material after the real ones (index `nmat + i`): the generic
/// kernels pass the parameter values at run time in the material arrays.
pub fn with_runtime_params(ir: &LawIr) -> LawIr {
    let nmat = ir.materials.len() as u16;
    let mut out = ir.clone();
    for (_, f) in &mut out.functions {
        for op in &mut f.nodes {
            if let Op::Input(InputKind::Param, i) = *op {
                *op = Op::Input(InputKind::MaterialM, nmat + i);
            }
        }
    }
    out
}

/// The name of the kernel of `role`.
pub fn kernel_name(role: HexRole) -> String {
    match role {
        HexRole::Cell { fused, geometry, cells } => {
            format!("hex_{}_{}_c{cells}", if fused { "fused" } else { "volume" }, geometry.tag())
        }
        HexRole::Flux { faces: FaceKind::Any, .. } => "hex_flux_gen".into(),
        HexRole::Flux { faces: FaceKind::Interior, geometry } => format!("hex_flux_interior_{}", geometry.tag()),
        HexRole::Flux { faces: FaceKind::Boundary(b), geometry } => format!("hex_flux_bc{b}_{}", geometry.tag()),
        HexRole::Collect { geometry } => format!("hex_collect_{}", geometry.tag()),
        HexRole::Lincomb => "lincomb".into(),
        HexRole::Source => "hex_source".into(),
    }
}

/// Renders every kernel that fits `limits` for `law` of degree `element.order` in `precision`, for states of
/// `state.1` cells in layout `state.0` (the strides are compiled in).
pub fn render_hex(
    law: &LawInput<'_>,
    element: &ReferenceHexahedron,
    precision: Precision,
    target: Target,
    limits: HexLimits,
    state: (Layout, usize),
) -> Result<HexProgram, RenderError> {
    let ir = law.ir;
    let law_err = |reason: String| RenderError::Law { law: ir.name.clone(), reason };
    if ir.dim != 3 {
        return Err(law_err(format!("the hexahedral kernels need a 3D law (this one is {}D)", ir.dim)));
    }
    let has_source = ir.functions_of(FunctionRole::Source).next().is_some();
    let single = precision == Precision::F32;
    let bytes = precision.bytes();
    let (n1, np, nfp) = (element.n1, element.np, element.nfp);
    let nface = 6 * nfp;
    let (nv, nmat, nprm) = (ir.variables.len(), ir.materials.len(), ir.params.len());
    let conditions = ir.functions_of(FunctionRole::Boundary).count();
    let list = |values: &[f64]| values.iter().map(|&v| literal(v, single)).collect::<Vec<_>>().join(", ");
    let mut ctx = tera::Context::new();
    insert_law(&mut ctx, law, single, DIVISIONS)?;
    ctx.insert("cuda", &(target == Target::Cuda));
    ctx.insert("double", &!single);
    ctx.insert("n1", &n1);
    ctx.insert("np", &np);
    ctx.insert("nfp", &nfp);
    ctx.insert("nface", &nface);
    ctx.insert("nv", &nv);
    ctx.insert("nmat", &nmat);
    ctx.insert("mstride", &nmat.max(1));
    ctx.insert("nprm", &nprm);
    let (cstride, vstride) = state.0.strides(state.1, nv, np);
    ctx.insert("cstride", &cstride);
    ctx.insert("vstride", &vstride);
    ctx.insert("d1", &list(&element.d1));
    ctx.insert("ends", &list(&[element.ends[0].clone(), element.ends[1].clone()].concat()));
    ctx.insert("w1", &list(&element.weights));
    ctx.insert("x1", &list(&element.points));
    ctx.insert("p", "");
    ctx.insert("k", "");
    let tera = engine(&TEMPLATES)?;
    let render = |name: &str, ctx: &tera::Context| {
        tera.render(name, ctx).map_err(|e| RenderError::Template(format!("{name}: {e:?}")))
    };
    let mut source = format!("/* dg hexahedral kernels: {} D={} {:?} */\n", ir.name, element.order, precision);
    for name in ["dialect", "hex_prelude", "law"] {
        source.push_str(&render(name, &ctx)?);
        source.push('\n');
    }
    // the law's functions again, reading the parameters at run time (for the generic kernels)
    let runtime_ir = with_runtime_params(ir);
    let mut rt = ctx.clone();
    let runtime_law = LawInput { ir: &runtime_ir, params: law.params, numerical_flux: law.numerical_flux };
    insert_law(&mut rt, &runtime_law, single, DIVISIONS)?;
    rt.insert("p", "_rt");
    source.push_str(&render("law", &rt)?);
    source.push('\n');
    source.push_str(&render("update", &ctx)?);
    source.push('\n');

    let mut kernels = vec![HexKernel { role: HexRole::Lincomb, name: "lincomb".into(), local_size: 256 }];
    if has_source {
        source.push_str(&render("hex_source", &ctx)?);
        source.push('\n');
        kernels.push(HexKernel { role: HexRole::Source, name: "hex_source".into(), local_size: 256 });
    }
    let mut rejected = Vec::new();
    let mut add = |role: HexRole, local: usize, shared: usize, c: &tera::Context, template: &str| {
        let name = kernel_name(role);
        if local > limits.max_work_group {
            rejected.push((name, format!("{local} work items per group > the device's {}", limits.max_work_group)));
            return Ok(());
        }
        if shared > limits.local_memory {
            rejected.push((name, format!("{shared} B of shared memory > the device's {} B", limits.local_memory)));
            return Ok(());
        }
        let mut c = c.clone();
        c.insert("name", &name);
        source.push_str(&render(template, &c)?);
        source.push('\n');
        kernels.push(HexKernel { role, name, local_size: local });
        Ok::<(), RenderError>(())
    };
    for geometry in [Geometry::Box, Geometry::Trilinear, Geometry::Generic] {
        let generic = geometry == Geometry::Generic;
        let mut g = if generic { rt.clone() } else { ctx.clone() };
        g.insert("generic", &generic);
        g.insert("geo", if geometry == Geometry::Box { "box" } else { "tri" });
        g.insert("lp", if generic { "_rt" } else { "" });
        g.insert("mm", &if generic { (nmat + nprm).max(1) } else { nmat.max(1) });
        for cells in CELLS_PER_GROUP {
            for fused in [true, false] {
                let mut c = g.clone();
                c.insert("fused", &fused);
                c.insert("c", &cells);
                c.insert("kind", "any");
                c.insert("bc", &0);
                let shared = cells * nv * (np + if fused { nface } else { 0 }) * bytes;
                add(HexRole::Cell { fused, geometry, cells }, cells * np, shared, &c, "hex_cell")?;
            }
        }
        let faces: Vec<FaceKind> = if generic {
            vec![FaceKind::Any]
        } else {
            std::iter::once(FaceKind::Interior).chain((0..conditions).map(FaceKind::Boundary)).collect()
        };
        for kind in faces {
            let mut c = g.clone();
            let (name, bc) = match kind {
                FaceKind::Interior => ("interior", 0),
                FaceKind::Boundary(b) => ("bc", b),
                FaceKind::Any => ("any", 0),
            };
            c.insert("kind", name);
            c.insert("bc", &bc);
            add(HexRole::Flux { faces: kind, geometry }, 256, 0, &c, "hex_flux")?;
        }
        add(HexRole::Collect { geometry }, 256, 0, &g, "hex_collect")?;
    }
    Ok(HexProgram {
        target,
        precision,
        source,
        kernels,
        rejected,
        n1,
        np,
        nface,
        nvars: nv,
        nmaterials: nmat,
        conditions,
        state,
    })
}
