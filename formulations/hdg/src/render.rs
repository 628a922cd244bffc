//! The HDG program of one degree and target: the local generation kernel at each work-group width, the atomic-free
//! ELLPACK assembly, the preconditioners' set-up, the conjugate-gradient kernels, the recovery and the refinement
//! step of the uncondensed system, from `templates/hdg/`.

use crate::tables::ReferenceTables;
use dg_codegen::program::{engine, render_pieces, RenderError, Target};

/// The HDG templates (`templates/hdg/`), besides the common ones.
pub const TEMPLATES: [(&str, &str); 7] = [
    ("hdg_prelude", include_str!("../../../templates/hdg/hdg_prelude.tera")),
    ("hdg_reduce", include_str!("../../../templates/hdg/hdg_reduce.tera")),
    ("hdg_local", include_str!("../../../templates/hdg/hdg_local.tera")),
    ("hdg_assemble", include_str!("../../../templates/hdg/hdg_assemble.tera")),
    ("hdg_cg", include_str!("../../../templates/hdg/hdg_cg.tera")),
    ("hdg_recover", include_str!("../../../templates/hdg/hdg_recover.tera")),
    ("hdg_refine", include_str!("../../../templates/hdg/hdg_refine.tera")),
];

/// Work-group widths of the local generation kernel (the tuned axis).
pub const LOCAL_WIDTHS: [usize; 3] = [64, 128, 256];

/// Work items of a group of the row-wise kernels and of the reductions.
pub const REDUCE: usize = 256;

/// The local generation kernel of width `w`.
pub fn local_kernel(w: usize) -> String {
    format!("hdg_local_w{w}")
}

/// The three kernels of width `w` around a library's batched LU: the element's S and right-hand sides to global
/// memory; the refinement's right-hand side from the first solve; Kᵉ, the trace load and [U u_f] from the second.
pub fn split_kernels(w: usize) -> [String; 3] {
    [format!("hdg_local_form_w{w}"), format!("hdg_local_refine_w{w}"), format!("hdg_local_finish_w{w}")]
}

/// The generated program.
#[derive(Debug, Clone)]
pub struct HdgProgram {
    /// Program text.
    pub source: String,
    /// Every kernel in it.
    pub kernels: Vec<String>,
}

/// Renders the program of `tables`' degree `order` for `target` (f64); with `split`, also the kernels
/// ([`split_kernels`]) that leave the element solves to a library's batched LU.
pub fn render_hdg(
    tables: &ReferenceTables,
    order: usize,
    target: Target,
    split: bool,
) -> Result<HdgProgram, RenderError> {
    let mut ctx = tera::Context::new();
    ctx.insert("cuda", &(target == Target::Cuda));
    ctx.insert("double", &true);
    ctx.insert("order", &order);
    ctx.insert("n", &tables.nmodes);
    ctx.insert("nt", &tables.ntrace);
    ctx.insert("reduce", &REDUCE);
    ctx.insert("off_prr", &tables.products[0]);
    ctx.insert("off_prs", &tables.products[1]);
    ctx.insert("off_pss", &tables.products[2]);
    ctx.insert("off_e", &tables.edge_mass);
    ctx.insert("off_f", &tables.edge_trace);
    ctx.insert("off_srf", &tables.sr_f);
    ctx.insert("off_ssf", &tables.ss_f);
    ctx.insert("off_ftf", &tables.f_t_f);
    ctx.insert("off_sr", &tables.stiffness[0]);
    ctx.insert("off_ss", &tables.stiffness[1]);
    let tera = engine(&TEMPLATES)?;
    let mut source = format!("/* dg HDG kernels: P = {order} f64 */\n");
    source.push_str(&render_pieces(&tera, &ctx, &["dialect", "hdg_prelude"])?);
    let mut kernels = Vec::new();
    for w in LOCAL_WIDTHS {
        let mut c = ctx.clone();
        c.insert("w", &w);
        c.insert("library", &false);
        c.insert("name", &local_kernel(w));
        source.push_str(&render_pieces(&tera, &c, &["hdg_local"])?);
        kernels.push(local_kernel(w));
        if split {
            let [form, refine, finish] = split_kernels(w);
            c.insert("library", &true);
            c.insert("form_name", &form);
            c.insert("refine_name", &refine);
            c.insert("finish_name", &finish);
            source.push_str(&render_pieces(&tera, &c, &["hdg_local"])?);
            kernels.extend([form, refine, finish]);
        }
    }
    source.push_str(&render_pieces(&tera, &ctx, &["hdg_assemble", "hdg_cg", "hdg_recover", "hdg_refine"])?);
    kernels.extend(
        [
            "hdg_assemble",
            "hdg_residual",
            "hdg_jacobi_setup",
            "hdg_block_setup",
            "hdg_spmv",
            "hdg_cg_alpha",
            "hdg_cg_update",
            "hdg_precondition_jacobi",
            "hdg_precondition_block",
            "hdg_cg_beta",
            "hdg_cg_direction",
            "hdg_recover",
            "hdg_fill",
            "hdg_refine_q",
            "hdg_refine_residual",
            "hdg_refine_flux",
            "hdg_refine_load",
        ]
        .map(String::from),
    );
    Ok(HdgProgram { source, kernels })
}
