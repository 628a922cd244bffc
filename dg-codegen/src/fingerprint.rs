//! Code fingerprints: a hash of everything that decides a formulation's compiled kernels — the templates it
//! renders and the generator's own source (the law-to-C translation, the shared renderer, the formulation's
//! renderer and variant rules).
//!
//! The tuning database keys results by it, so that a result measured on other generated code is never taken for
//! this code's: it is computed from the files compiled into the program, not kept by hand. Together with the law
//! IR's hash (also in the key) it covers the law, the templates and the generator. Each formulation crate hashes
//! [`COMMON_INPUTS`] and its own templates and sources with [`code_hash`].

use sha2::{Digest, Sha256};

/// What every formulation's kernel text depends on: the law's functions as C statements, the shared renderer and
/// the common templates.
pub const COMMON_INPUTS: [&str; 5] = [
    include_str!("cexpr.rs"),
    include_str!("program.rs"),
    crate::program::COMMON_TEMPLATES[0].1,
    crate::program::COMMON_TEMPLATES[1].1,
    crate::program::COMMON_TEMPLATES[2].1,
];

/// The code fingerprint of [`COMMON_INPUTS`] followed by `inputs`: the first 12 hex digits of the SHA-256 of each
/// input's `code_lines` prefixed by their length (so that moving text from one file to the next changes the hash
/// too).
pub fn code_hash(inputs: &[&str]) -> String {
    let mut hasher = Sha256::new();
    for input in COMMON_INPUTS.iter().chain(inputs) {
        let code = code_lines(input);
        hasher.update((code.len() as u64).to_le_bytes());
        hasher.update(code.as_bytes());
    }
    hasher.finalize().iter().take(6).map(|b| format!("{b:02x}")).collect()
}

/// `text` without its whole-line `//` comments (Rust's `//`, `///` and `//!`; in a template or a string of C, a
/// comment line of the kernel): they change no compiled kernel, so editing one keeps the fingerprint and the tuning
/// database's results for the code. Every other line counts, comments after code included.
fn code_lines(text: &str) -> String {
    text.lines().filter(|line| !line.trim_start().starts_with("//")).flat_map(|line| [line, "\n"]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_are_twelve_hex_digits_and_follow_every_input() {
        let a = code_hash(&["template a", "source"]);
        assert_eq!(a.len(), 12);
        assert!(a.chars().all(|c| c.is_ascii_hexdigit()));
        assert_eq!(a, code_hash(&["template a", "source"]), "deterministic");
        assert_ne!(a, code_hash(&["template b", "source"]), "a template edit changes it");
        assert_ne!(a, code_hash(&["template a", "sourc"]), "a source edit changes it");
        assert_ne!(a, code_hash(&["template ", "asource"]), "moving text between inputs changes it");
    }

    #[test]
    fn whole_line_comments_do_not_move_it_and_code_does() {
        let a = code_hash(&["/// A doc comment.\npub const K: usize = 4;\n"]);
        assert_eq!(a, code_hash(&["/// Another doc comment,\n    // and a comment.\npub const K: usize = 4;\n"]));
        assert_ne!(a, code_hash(&["/// A doc comment.\npub const K: usize = 8;\n"]), "the code changed");
        assert_ne!(a, code_hash(&["/// A doc comment.\npub const K: usize = 4; // now commented\n"]), "a line of code");
        assert_ne!(code_hash(&["a\nb"]), code_hash(&["ab"]), "line breaks count");
    }
}
