//! What every formulation's renderer shares: the target language, the law's functions as C device functions
//! (`law.tera`), the templates common to every formulation (`templates/common/`: dialect, law, update), and the
//! tera engine over a formulation's own templates.

use crate::cexpr::{emit, literal, Divisions, InputNames};
use dg_core::matrix::Matrix;
use dg_ir::{FunctionRole, LawIr};

/// Source language.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Target {
    /// CUDA C (compiled with NVRTC).
    Cuda,
    /// OpenCL C.
    OpenCl,
}

/// Errors of rendering.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    /// The law is not one the formulation's kernels handle.
    #[error("law `{law}`: {reason}")]
    Law {
        /// Law name.
        law: String,
        /// Why.
        reason: String,
    },
    /// A template failed (a bug).
    #[error("template error: {0}")]
    Template(String),
    /// The variant cannot be generated for this target or element (a kernel of CUDA-only instructions asked for
    /// OpenCL, say).
    #[error(transparent)]
    Variant(#[from] crate::VariantError),
}

/// Placeholder for the suffix of the law's and the shared functions' names (replaced when a program is assembled).
pub const PRELUDE_SUFFIX: &str = "@P@";
/// Placeholder for the suffix of kernel names.
pub const KERNEL_SUFFIX: &str = "@K@";

/// The templates every formulation renders with (`templates/common/`): the dialect (`real`, qualifiers), the law's
/// functions and the linear-combination update kernel.
pub const COMMON_TEMPLATES: [(&str, &str); 3] = [
    ("dialect", include_str!("../../templates/common/dialect.tera")),
    ("law", include_str!("../../templates/common/law.tera")),
    ("update", include_str!("../../templates/common/update.tera")),
];

/// A tera engine holding [`COMMON_TEMPLATES`] and a formulation's own `templates` (name, text).
pub fn engine(templates: &[(&'static str, &'static str)]) -> Result<tera::Tera, RenderError> {
    let mut tera = tera::Tera::default();
    let mut all = COMMON_TEMPLATES.to_vec();
    all.extend_from_slice(templates);
    tera.add_raw_templates(all).map_err(|e| RenderError::Template(format!("{e:?}")))?;
    Ok(tera)
}

/// Renders the named templates of `tera` one after the other, each followed by a newline.
pub fn render_pieces(tera: &tera::Tera, ctx: &tera::Context, names: &[&str]) -> Result<String, RenderError> {
    let mut text = String::new();
    for name in names {
        text.push_str(&tera.render(name, ctx).map_err(|e| RenderError::Template(format!("{name}: {e:?}")))?);
        text.push('\n');
    }
    Ok(text)
}

/// A matrix as a C initialiser list (row-major), in the precision's literal syntax.
pub fn matrix_text(m: &Matrix, single: bool) -> String {
    let mut values = Vec::with_capacity(m.nrows() * m.ncols());
    for i in 0..m.nrows() {
        for j in 0..m.ncols() {
            values.push(literal(m[(i, j)], single));
        }
    }
    values.join(", ")
}

/// `code` indented by four spaces.
pub fn indent(code: &str) -> String {
    code.lines().map(|l| format!("    {l}\n")).collect()
}

/// The law as the kernels see it: its IR, the parameter values to bake in, the numerical flux to use.
pub struct LawInput<'a> {
    /// The IR.
    pub ir: &'a LawIr,
    /// Parameter values (in the IR's order).
    pub params: &'a [f64],
    /// Name of the numerical flux function (as in `numerical_flux_names`).
    pub numerical_flux: &'a str,
}

/// One IR function as the body of its `law_*` device function (outputs to `out[i]`, temporaries prefixed
/// `prefix`, divisions as `divisions` says).
pub fn emit_law_function(
    f: &dg_ir::IrFunction,
    law: &LawInput<'_>,
    prefix: &str,
    single: bool,
    divisions: Divisions,
) -> String {
    let names = InputNames {
        state_m: "qm",
        state_p: "qp",
        material_m: "mm",
        material_p: "mp",
        normal: if law.ir.dim == 3 { ["nx", "ny", "nz"] } else { ["nx", "ny", "0"] },
        position: if law.ir.dim == 3 { ["px", "py", "pz"] } else { ["px", "py", "0"] },
        time: "t",
        params: law.params,
    };
    indent(&emit(f, &names, &|i: usize| format!("out[{i}]"), prefix, single, divisions))
}

/// What `law.tera` needs: the law's name and hash, its flux, the selected numerical flux, its boundary states and
/// its source term where it has one (`law_source`, absent otherwise: a law without a source renders as before;
/// divisions as `divisions` says).
pub fn insert_law(
    ctx: &mut tera::Context,
    law: &LawInput<'_>,
    single: bool,
    divisions: Divisions,
) -> Result<(), RenderError> {
    let ir = law.ir;
    let law_err = |reason: String| RenderError::Law { law: ir.name.clone(), reason };
    let flux_fn = ir.function("flux").ok_or_else(|| law_err("no flux".into()))?;
    let nflux_name = format!("numerical_flux:{}", law.numerical_flux);
    let nflux_fn =
        ir.function(&nflux_name).ok_or_else(|| law_err(format!("no numerical flux `{}`", law.numerical_flux)))?;
    let boundaries: Vec<String> = ir
        .functions_of(FunctionRole::Boundary)
        .map(|f| indent(&emit_law_function(f, law, "b", single, divisions)))
        .collect();
    ctx.insert("approximate_single", &divisions.approximate(single));
    ctx.insert("dim3", &(ir.dim == 3));
    ctx.insert("law_name", &ir.name);
    ctx.insert("law_hash", &ir.hash());
    ctx.insert("flux", &emit_law_function(flux_fn, law, "f", single, divisions));
    ctx.insert("numerical_flux", &emit_law_function(nflux_fn, law, "n", single, divisions));
    ctx.insert("boundaries", &boundaries);
    if let Some(source) = ir.functions_of(FunctionRole::Source).next() {
        ctx.insert("law_source", &emit_law_function(source, law, "q", single, divisions));
    }
    Ok(())
}
