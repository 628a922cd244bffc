//! Mutation fuzzing of the Gmsh readers (MSH 2.2 and 4.1, triangle and tetrahedral): every mutant of the
//! corpus (`tests/fuzz-corpus/`) is read or refused with an error — never a panic, an abort or a hang.
//! `DG_FUZZ_CASES` sets the cases per format (20,000 by default, as CI runs them).

use dg_core::mesh::read_gmsh_str;
use dg_core::mesh3d::read_gmsh_tet_str;
use dg_core::mutate::{cases, Mutator};
use std::path::PathBuf;

fn corpus(suffix: &str) -> Vec<String> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz-corpus");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("the corpus directory exists")
        .map(|e| e.expect("readable entry").path())
        .filter(|p| p.to_string_lossy().ends_with(suffix))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no corpus files ending in {suffix}");
    files.iter().map(|p| std::fs::read_to_string(p).expect("readable corpus file")).collect()
}

fn fuzz(suffix: &str, seed: u64) {
    let corpus = corpus(suffix);
    // the corpus itself is valid
    for text in &corpus {
        assert!(read_gmsh_str(text, "c.msh").is_ok() || read_gmsh_tet_str(text, "c.msh").is_ok());
    }
    let mut mutator = Mutator::new(seed);
    let (mut read, mut refused) = (0usize, 0usize);
    for case in 0..cases(20_000) {
        let text = mutator.mutate(&corpus[case % corpus.len()]);
        let outcome = std::panic::catch_unwind(|| {
            (read_gmsh_str(&text, "fuzz.msh").is_ok(), read_gmsh_tet_str(&text, "fuzz.msh").is_ok())
        });
        match outcome {
            Ok((a, b)) => {
                read += usize::from(a || b);
                refused += usize::from(!(a || b));
            }
            Err(_) => panic!("case {case} of seed {seed} panicked; the input:\n{text}"),
        }
    }
    // the mutations do reach the error paths, and leave some files readable
    assert!(refused > 0 && read > 0, "{read} read, {refused} refused");
}

#[test]
fn msh22_mutants_never_panic() {
    fuzz("_22.msh", 22);
}

#[test]
fn msh41_mutants_never_panic() {
    fuzz("_41.msh", 41);
}
