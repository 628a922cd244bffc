//! Binding of mesh boundary tags to a law's boundary conditions.

use dg_core::law::ConservationLaw;
use dg_core::space::DgSpace2d;
use std::collections::HashMap;

/// A mesh boundary tag that cannot be bound to a boundary condition of the law.
#[derive(Debug, thiserror::Error)]
pub enum BoundaryError {
    /// No condition was given for a tag and none matches its name.
    #[error(
        "boundary tag `{tag}` has no boundary condition: bind it to one of {offered:?} (the law `{law}` offers these), \
         for instance with --bc {tag}={}", offered.first().map_or("", String::as_str)
    )]
    Unbound {
        /// The mesh tag.
        tag: String,
        /// The law.
        law: String,
        /// Conditions the law offers.
        offered: Vec<String>,
    },
    /// A binding names a condition the law does not have.
    #[error(
        "boundary condition `{condition}` (for tag `{tag}`) is not offered by the law `{law}`; it offers {offered:?}"
    )]
    UnknownCondition {
        /// The mesh tag.
        tag: String,
        /// The requested condition.
        condition: String,
        /// The law.
        law: String,
        /// Conditions the law offers.
        offered: Vec<String>,
    },
}

/// Which boundary condition (index into the law's list) each mesh tag uses (`usize::MAX` for tags no face
/// carries).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoundaryBinding {
    /// Condition index per tag index.
    pub condition_of_tag: Vec<usize>,
}

impl BoundaryBinding {
    /// Binds the boundary tags that `space`'s faces carry to `law`'s conditions (see [`Self::resolve`]).
    pub fn for_law<L: ConservationLaw>(
        law: &L,
        space: &DgSpace2d,
        explicit: &HashMap<String, String>,
    ) -> Result<Self, BoundaryError> {
        Self::resolve(law.name(), law.boundary_names(), &space.connectivity.tag_names, &space.used_tags(), explicit)
    }

    /// Binds the boundary tags that a tetrahedral `space`'s faces carry to `law`'s conditions (see
    /// [`Self::resolve`]).
    pub fn for_law_on_tets<L: ConservationLaw>(
        law: &L,
        space: &dg_core::space3d::DgSpace3d,
        explicit: &HashMap<String, String>,
    ) -> Result<Self, BoundaryError> {
        Self::resolve(law.name(), law.boundary_names(), &space.connectivity.tag_names, &space.used_tags(), explicit)
    }

    /// [`Self::for_law`] on a hexahedral space.
    pub fn for_law_on_hexes<L: ConservationLaw>(
        law: &L,
        space: &dg_core::space_hex::HexSpace,
        explicit: &HashMap<String, String>,
    ) -> Result<Self, BoundaryError> {
        Self::resolve(law.name(), law.boundary_names(), &space.connectivity.tag_names, &space.used_tags(), explicit)
    }

    /// Like [`Self::for_law`], leaving the tags named in `handled_elsewhere` unbound (the modal operator's
    /// prescribed states, say).
    pub fn for_law_except<L: ConservationLaw>(
        law: &L,
        space: &DgSpace2d,
        explicit: &HashMap<String, String>,
        handled_elsewhere: &[&str],
    ) -> Result<Self, BoundaryError> {
        let tags = &space.connectivity.tag_names;
        let used: Vec<bool> =
            space.used_tags().iter().zip(tags).map(|(&u, t)| u && !handled_elsewhere.contains(&t.as_str())).collect();
        Self::resolve(law.name(), law.boundary_names(), tags, &used, explicit)
    }

    /// Binds every tag that some boundary face carries (`used[t]`): an explicit entry of `explicit`
    /// (tag → condition) first; otherwise a condition of the same name; otherwise, when the law has exactly one
    /// condition, that one. Unused tags stay unbound.
    pub fn resolve(
        law: &str,
        offered: &[&str],
        tags: &[String],
        used: &[bool],
        explicit: &HashMap<String, String>,
    ) -> Result<Self, BoundaryError> {
        let offered_owned = || offered.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let mut condition_of_tag = Vec::with_capacity(tags.len());
        for (t, tag) in tags.iter().enumerate() {
            if !used.get(t).copied().unwrap_or(false) {
                condition_of_tag.push(usize::MAX);
                continue;
            }
            let index = if let Some(cond) = explicit.get(tag) {
                offered.iter().position(|o| o == cond).ok_or_else(|| BoundaryError::UnknownCondition {
                    tag: tag.clone(),
                    condition: cond.clone(),
                    law: law.to_string(),
                    offered: offered_owned(),
                })?
            } else if let Some(i) = offered.iter().position(|o| o == tag) {
                i
            } else if offered.len() == 1 {
                0
            } else {
                return Err(BoundaryError::Unbound {
                    tag: tag.clone(),
                    law: law.to_string(),
                    offered: offered_owned(),
                });
            };
            condition_of_tag.push(index);
        }
        Ok(Self { condition_of_tag })
    }
}
