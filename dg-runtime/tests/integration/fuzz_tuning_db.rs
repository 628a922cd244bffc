//! Mutation fuzzing of the tuning-database reader: every mutant of the corpus (`tests/fuzz-corpus/`) is parsed
//! or refused with an error, its keys parse or are set aside, and the entries that load are looked up — never a
//! panic. `DG_FUZZ_CASES` sets the number of cases (20,000 by default, as CI runs them).

use dg_core::mutate::{cases, Mutator};
use dg_runtime::tuning_db::{parse_file, TuningKey};
use std::path::Path;

#[test]
fn database_mutants_never_panic() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz-corpus/small_db.json");
    let corpus = std::fs::read_to_string(&path).expect("the corpus file exists");
    let file = parse_file(&corpus, &path).expect("the corpus is a valid database file");
    assert_eq!(file.entries.len(), 3);
    let mut mutator = Mutator::new(7);
    let (mut read, mut refused) = (0usize, 0usize);
    for case in 0..cases(20_000) {
        let text = mutator.mutate(&corpus);
        let outcome = std::panic::catch_unwind(|| match parse_file(&text, Path::new("fuzz.json")) {
            Ok(file) => {
                for (key, entry) in &file.entries {
                    if let Ok(k) = key.parse::<TuningKey>() {
                        // a key that parses prints back to a key that parses to the same key
                        assert_eq!(k.to_string().parse::<TuningKey>().ok().as_ref(), Some(&k), "{key}");
                    }
                    let _ = entry.winner.len() + entry.candidates.len();
                }
                true
            }
            Err(e) => {
                assert!(e.to_string().contains("fuzz.json"), "{e}");
                false
            }
        });
        match outcome {
            Ok(true) => read += 1,
            Ok(false) => refused += 1,
            Err(_) => panic!("case {case} panicked; the input:\n{text}"),
        }
    }
    assert!(read > 0 && refused > 0, "{read} read, {refused} refused");
}
