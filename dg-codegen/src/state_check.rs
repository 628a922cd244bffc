//! The source of the per-step state check (`templates/common/state_check.tera`): a grid-strided reduction of a
//! state buffer to the largest |value| per work group, NaN where a value is not finite. It is not part of any
//! formulation's kernels, so it is not in their code fingerprints.

use crate::program::{RenderError, Target, COMMON_TEMPLATES};

/// Work items per group of the state check.
pub const STATE_CHECK_GROUP: usize = 256;
/// Work groups of the state check (each writes one partial result).
pub const STATE_CHECK_GROUPS: usize = 256;
/// The kernel's name.
pub const STATE_CHECK_KERNEL: &str = "dg_state_check";

/// The state check's source for `target` in double (else single) precision.
pub fn state_check_source(target: Target, double: bool) -> Result<String, RenderError> {
    let mut tera = tera::Tera::default();
    tera.add_raw_templates([
        ("dialect", COMMON_TEMPLATES[0].1),
        ("state_check", include_str!("../../templates/common/state_check.tera")),
    ])
    .map_err(|e| RenderError::Template(format!("{e:?}")))?;
    let mut ctx = tera::Context::new();
    ctx.insert("cuda", &(target == Target::Cuda));
    ctx.insert("double", &double);
    ctx.insert("group", &STATE_CHECK_GROUP);
    ctx.insert("groups", &STATE_CHECK_GROUPS);
    ctx.insert("largest", if double { "1.7976931348623157e308" } else { "3.40282347e38f" });
    tera.render("state_check", &ctx).map_err(|e| RenderError::Template(format!("state_check: {e:?}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_dialects_render_one_kernel() {
        for target in [Target::Cuda, Target::OpenCl] {
            for double in [false, true] {
                let text = state_check_source(target, double).unwrap();
                assert_eq!(text.matches(STATE_CHECK_KERNEL).count(), 1, "{text}");
                assert_eq!(text.contains("extern \"C\""), target == Target::Cuda);
                assert!(text.contains(if double { "typedef double real" } else { "typedef float real" }));
            }
        }
    }
}
