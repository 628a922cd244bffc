//! The code fingerprint of each kernel family: a hash of everything that decides the text of its kernels — the
//! templates it renders and the generator's own source (the law-to-C translation, program batching, the family's
//! renderer and variant rules).
//!
//! The tuning database keys results by it, so that a result measured on other generated code is never taken for
//! this code's: it is computed from the files compiled into this program, not kept by hand. Together with the law
//! IR's hash (also in the key) it covers the law, the templates and the generator.

use sha2::{Digest, Sha256};
use std::sync::OnceLock;

/// A family of generated kernels (one discretisation on one element type).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KernelFamily {
    /// Nodal strong form on triangles (seed 000).
    NodalTri,
    /// Modal weak form with quadrature on triangles (seed 001).
    ModalTri,
    /// Nodal strong form on tetrahedra (seed 002).
    NodalTet,
}

/// Source files every family's kernel text depends on: the law's functions as C statements and program batching.
const SHARED_SOURCES: [&str; 3] = [include_str!("cexpr.rs"), include_str!("batch.rs"), include_str!("render.rs")];

const NODAL_TRI_SOURCES: [&str; 2] = [include_str!("variant.rs"), include_str!("microblock.rs")];
const MODAL_TRI_SOURCES: [&str; 3] =
    [include_str!("modal/mod.rs"), include_str!("modal/render.rs"), include_str!("modal/variant.rs")];
const NODAL_TET_SOURCES: [&str; 4] = [
    include_str!("tet/mod.rs"),
    include_str!("tet/render.rs"),
    include_str!("tet/variant.rs"),
    include_str!("tet/plan.rs"),
];

impl KernelFamily {
    /// Every family.
    pub const ALL: [KernelFamily; 3] = [KernelFamily::NodalTri, KernelFamily::ModalTri, KernelFamily::NodalTet];

    /// The templates and sources that decide this family's kernels.
    fn inputs(self) -> Vec<&'static str> {
        let mut inputs: Vec<&'static str> = SHARED_SOURCES.to_vec();
        match self {
            KernelFamily::NodalTri => {
                inputs.extend(crate::render::TEMPLATES.iter().map(|(_, t)| *t));
                inputs.extend(NODAL_TRI_SOURCES);
            }
            KernelFamily::ModalTri => {
                inputs.extend(crate::modal::TEMPLATES.iter().map(|(_, t)| *t));
                inputs.extend(MODAL_TRI_SOURCES);
            }
            KernelFamily::NodalTet => {
                inputs.extend(crate::tet::TEMPLATES.iter().map(|(_, t)| *t));
                inputs.extend(NODAL_TET_SOURCES);
            }
        }
        inputs
    }

    /// The family's code fingerprint: the first 12 hex digits of the SHA-256 of its inputs (each prefixed by its
    /// length, so that moving text from one file to the next changes the hash too).
    pub fn code_hash(self) -> &'static str {
        static HASHES: [OnceLock<String>; 3] = [OnceLock::new(), OnceLock::new(), OnceLock::new()];
        let slot = match self {
            KernelFamily::NodalTri => 0,
            KernelFamily::ModalTri => 1,
            KernelFamily::NodalTet => 2,
        };
        HASHES[slot].get_or_init(|| {
            let mut hasher = Sha256::new();
            for input in self.inputs() {
                hasher.update((input.len() as u64).to_le_bytes());
                hasher.update(input.as_bytes());
            }
            hasher.finalize().iter().take(6).map(|b| format!("{b:02x}")).collect()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_have_distinct_stable_hashes() {
        let hashes: Vec<&str> = KernelFamily::ALL.iter().map(|f| f.code_hash()).collect();
        for h in &hashes {
            assert_eq!(h.len(), 12);
            assert!(h.chars().all(|c| c.is_ascii_hexdigit()));
        }
        assert_ne!(hashes[0], hashes[1]);
        assert_ne!(hashes[1], hashes[2]);
        assert_ne!(hashes[0], hashes[2]);
        assert_eq!(KernelFamily::NodalTri.code_hash(), hashes[0], "computed once, the same each time");
    }

    #[test]
    fn every_template_of_a_family_is_an_input() {
        // a template edit must change the hash: each family's templates are among its inputs
        for (family, templates) in [
            (KernelFamily::NodalTri, crate::render::TEMPLATES.to_vec()),
            (KernelFamily::ModalTri, crate::modal::TEMPLATES.to_vec()),
            (KernelFamily::NodalTet, crate::tet::TEMPLATES.to_vec()),
        ] {
            let inputs = family.inputs();
            for (name, text) in templates {
                assert!(inputs.contains(&text), "{family:?}: template {name} is not hashed");
            }
        }
    }
}
