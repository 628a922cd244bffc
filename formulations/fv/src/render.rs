//! The finite-volume program of one (law, precision, target): the sweep kernels of every kind and both orders at
//! every width, the two transposes and the step-limit reduction, from `templates/fv/` and the law's functions.

use crate::variant::SWEEP_WIDTHS;
use dg_codegen::cexpr::Divisions;
use dg_codegen::program::{emit_law_function, engine, insert_law, LawInput, RenderError, Target};
use dg_codegen::Precision;
use dg_ir::FunctionRole;

/// Divisions in the law's functions as the law wrote them: these kernels' tuning results (H100) were measured so, and
/// [`Divisions::SharedReciprocals`] is measured on the triangles' kernels first.
const DIVISIONS: Divisions = Divisions::AsWritten;

/// The finite-volume templates (`templates/fv/`), besides the common ones.
pub const TEMPLATES: [(&str, &str); 8] = [
    ("fv_prelude", include_str!("../../../templates/fv/fv_prelude.tera")),
    ("fv_args", include_str!("../../../templates/fv/fv_args.tera")),
    ("fv_cells", include_str!("../../../templates/fv/fv_cells.tera")),
    ("fv_sweep", include_str!("../../../templates/fv/fv_sweep.tera")),
    ("fv_line", include_str!("../../../templates/fv/fv_line.tera")),
    ("fv_march", include_str!("../../../templates/fv/fv_march.tera")),
    ("fv_transpose", include_str!("../../../templates/fv/fv_transpose.tera")),
    ("fv_limit", include_str!("../../../templates/fv/fv_limit.tera")),
];

/// The generated program.
#[derive(Debug, Clone)]
pub struct FvProgram {
    /// Program text.
    pub source: String,
    /// Every kernel in it.
    pub kernels: Vec<String>,
    /// Variables.
    pub nvars: usize,
    /// Whether the law has a source (added after the last sweep).
    pub source_term: bool,
    /// Precision.
    pub precision: Precision,
}

/// The three ways a sweep kernel maps cells to work items.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SweepKernel {
    /// A cell per work item, both of its face fluxes computed by it (`across`: neighbouring work items on
    /// neighbouring lines).
    Cell {
        /// Neighbouring work items on neighbouring lines.
        across: bool,
    },
    /// A work group per segment of a line, each face flux computed once into shared memory.
    Line,
    /// A work item per [`MARCH`] cells of a line, neighbouring work items on neighbouring lines, each face flux
    /// computed once and kept in registers.
    March,
}

/// Cells a work item of a [`SweepKernel::March`] kernel updates.
pub const MARCH: usize = 16;

/// The sweep kernel of a kind, reconstruction `order` (1, 2) and work-group `width`.
pub fn sweep_name(kind: SweepKernel, order: usize, width: usize) -> String {
    let kind = match kind {
        SweepKernel::Cell { .. } => "sweep",
        SweepKernel::Line => "line",
        SweepKernel::March => "march",
    };
    format!("fv_{kind}_o{order}_w{width}")
}

/// Renders the finite-volume program of a 2D law without materials.
pub fn render_fv(law: &LawInput<'_>, precision: Precision, target: Target) -> Result<FvProgram, RenderError> {
    let ir = law.ir;
    let law_err = |reason: String| RenderError::Law { law: ir.name.clone(), reason };
    if ir.dim != 2 || !ir.materials.is_empty() {
        return Err(law_err("finite volumes on a 2D grid take a 2D law without materials".into()));
    }
    let single = precision == Precision::F32;
    let mut ctx = tera::Context::new();
    insert_law(&mut ctx, law, single, DIVISIONS)?;
    // the source is `fv_prelude.tera`'s `law_source` (zero for a law without one), not the common template's
    ctx.remove("law_source");
    ctx.insert("cuda", &(target == Target::Cuda));
    ctx.insert("double", &!single);
    ctx.insert("nv", &ir.variables.len());
    ctx.insert("p", "");
    let speed = ir.function("max_speed").ok_or_else(|| law_err("no max_speed".into()))?;
    ctx.insert("max_speed", &emit_law_function(speed, law, "s", single, DIVISIONS));
    let admissible = ir.functions_of(FunctionRole::Admissible).next();
    ctx.insert(
        "admissible",
        &admissible
            .map_or_else(|| "    out[0] = (real)1;\n".into(), |f| emit_law_function(f, law, "a", single, DIVISIONS)),
    );
    let source = ir.functions_of(FunctionRole::Source).next();
    ctx.insert(
        "source",
        &source.map_or_else(
            || "    for (int v = 0; v < NV; ++v) out[v] = (real)0;\n".into(),
            |f| emit_law_function(f, law, "q", single, DIVISIONS),
        ),
    );
    let tera = engine(&TEMPLATES)?;
    let render = |name: &str, ctx: &tera::Context| {
        tera.render(name, ctx).map_err(|e| RenderError::Template(format!("{name}: {e:?}")))
    };
    let mut text = format!("/* dg finite-volume kernels: {} {:?} */\n", ir.name, precision);
    ctx.insert("march", &MARCH);
    for name in ["dialect", "fv_prelude", "law", "fv_cells", "fv_transpose", "fv_limit"] {
        text.push_str(&render(name, &ctx)?);
        text.push('\n');
    }
    let mut kernels = vec!["fv_transpose_naive".to_string(), "fv_transpose_tiled".into(), "fv_limit".into()];
    let kinds = [
        (SweepKernel::Cell { across: false }, "fv_sweep"),
        (SweepKernel::Line, "fv_line"),
        (SweepKernel::March, "fv_march"),
    ];
    for (kind, template) in kinds {
        for order in [1, 2] {
            for w in SWEEP_WIDTHS {
                let mut c = ctx.clone();
                let name = sweep_name(kind, order, w);
                c.insert("name", &name);
                c.insert("order", &order);
                c.insert("w", &w);
                text.push_str(&render(template, &c)?);
                text.push('\n');
                kernels.push(name);
            }
        }
    }
    Ok(FvProgram { source: text, kernels, nvars: ir.variables.len(), source_term: source.is_some(), precision })
}
