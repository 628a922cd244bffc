//! The source of a halo exchange's packing and unpacking kernels (`templates/common/halo.tera`): values gathered
//! from listed offsets of a state buffer into a message buffer, and scattered back. The offsets carry every
//! formulation's layout, so the kernels belong to none of them and are not in their code fingerprints.

use crate::program::{RenderError, Target, COMMON_TEMPLATES};

/// Work items per group of both kernels.
pub const HALO_GROUP: usize = 256;
/// The packing kernel's name.
pub const HALO_PACK_KERNEL: &str = "dg_halo_pack";
/// The unpacking kernel's name.
pub const HALO_UNPACK_KERNEL: &str = "dg_halo_unpack";

/// The halo kernels' source for `target` in double (else single) precision.
pub fn halo_source(target: Target, double: bool) -> Result<String, RenderError> {
    let mut tera = tera::Tera::default();
    tera.add_raw_templates([
        ("dialect", COMMON_TEMPLATES[0].1),
        ("halo", include_str!("../../templates/common/halo.tera")),
    ])
    .map_err(|e| RenderError::Template(format!("{e:?}")))?;
    let mut ctx = tera::Context::new();
    ctx.insert("cuda", &(target == Target::Cuda));
    ctx.insert("double", &double);
    ctx.insert("group", &HALO_GROUP);
    tera.render("halo", &ctx).map_err(|e| RenderError::Template(format!("halo: {e:?}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_dialects_render_both_kernels_once() {
        for target in [Target::Cuda, Target::OpenCl] {
            for double in [false, true] {
                let text = halo_source(target, double).expect("renders");
                assert_eq!(text.matches(HALO_PACK_KERNEL).count(), 1, "{text}");
                assert_eq!(text.matches(HALO_UNPACK_KERNEL).count(), 1, "{text}");
                assert_eq!(text.contains("double"), double, "{text}");
            }
        }
    }
}
