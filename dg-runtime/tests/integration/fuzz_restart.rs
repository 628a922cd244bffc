//! Mutation fuzzing of the restart-file reader: every mutant of the corpus (`tests/fuzz-corpus/`) is read or
//! refused with an error naming the file — never a panic, never an allocation the file's size does not back.
//! Half the mutants are sealed again with a valid checksum, so the reader meets damaged headers, lengths and
//! counts past its digest check; the states that read are restored into a stepper, which refuses the ones that
//! do not fit. `DG_FUZZ_CASES` sets the number of cases (20,000 by default, as CI runs them).

use dg_core::mutate::{cases, Mutator};
use dg_runtime::restart::{decode, MAGIC};
use dg_runtime::run_loop::{Integrated, Stepper};
use dg_runtime::time::{OdeSystem, Scheme};
use sha2::{Digest, Sha256};
use std::path::Path;

/// dq/dt = −q on 72 values (the corpus state's length).
struct Decay;

impl OdeSystem for Decay {
    type State = Vec<f64>;
    type Error = std::convert::Infallible;
    fn rhs(&mut self, _t: f64, q: &Vec<f64>, out: &mut Vec<f64>) -> Result<(), Self::Error> {
        out.iter_mut().zip(q).for_each(|(o, x)| *o = -x);
        Ok(())
    }
    fn zeros_like(&mut self, like: &Vec<f64>) -> Result<Vec<f64>, Self::Error> {
        Ok(vec![0.0; like.len()])
    }
    fn update(&mut self, y: &mut Vec<f64>, a: f64, terms: &[(f64, &Vec<f64>)]) -> Result<(), Self::Error> {
        for (i, v) in y.iter_mut().enumerate() {
            *v = a * *v + terms.iter().map(|(c, x)| c * x[i]).sum::<f64>();
        }
        Ok(())
    }
}

/// `bytes` with its last 32 bytes replaced by the SHA-256 of the rest.
fn sealed(mut bytes: Vec<u8>) -> Vec<u8> {
    if bytes.len() >= 32 {
        bytes.truncate(bytes.len() - 32);
    }
    let digest = Sha256::digest(&bytes);
    bytes.extend_from_slice(&digest);
    bytes
}

#[test]
fn restart_file_mutants_never_panic() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz-corpus/small_ab3.restart");
    let corpus = std::fs::read(&path).expect("the corpus file exists");
    let file = decode(&corpus, "corpus").expect("the corpus is a valid restart file");
    assert_eq!(file.state.snapshot.arrays.len(), 4, "state and three AB3 right-hand sides");
    let mut fresh = Integrated::new(Decay, vec![0.0; 72], Scheme::Ab3).with_host_values();
    fresh.restore(&file.state.snapshot).expect("the corpus state fits a 72-value AB3 stepper");
    // the JSON header, mutated as text, between the fixed fields and the values
    let header_start = MAGIC.len() + 12;
    let header_len = u64::from_le_bytes(corpus[MAGIC.len() + 4..header_start].try_into().unwrap()) as usize;
    let header = std::str::from_utf8(&corpus[header_start..header_start + header_len]).unwrap().to_string();
    let mut mutator = Mutator::new(11);
    let (mut read, mut refused, mut restored) = (0usize, 0usize, 0usize);
    for case in 0..cases(20_000) {
        let mutant = if case % 2 == 0 {
            let text = mutator.mutate(&header);
            let mut bytes = corpus[..MAGIC.len() + 4].to_vec();
            bytes.extend_from_slice(&(text.len() as u64).to_le_bytes());
            bytes.extend_from_slice(text.as_bytes());
            bytes.extend_from_slice(&corpus[header_start + header_len..]);
            sealed(bytes)
        } else if case % 4 == 1 {
            sealed(mutator.mutate_bytes(&corpus))
        } else {
            mutator.mutate_bytes(&corpus)
        };
        let outcome = std::panic::catch_unwind(|| match decode(&mutant, "fuzz.restart") {
            Ok(file) => {
                let values: usize = file.state.snapshot.arrays.iter().map(|(_, v)| v.len()).sum();
                assert!(values * 8 <= mutant.len(), "more values than the file holds");
                let mut stepper = Integrated::new(Decay, vec![0.0; 72], Scheme::Ab3).with_host_values();
                Some(stepper.restore(&file.state.snapshot).is_ok())
            }
            Err(e) => {
                assert!(e.to_string().contains("fuzz.restart"), "{e}");
                None
            }
        });
        match outcome {
            Ok(Some(fits)) => {
                read += 1;
                restored += usize::from(fits);
            }
            Ok(None) => refused += 1,
            Err(_) => panic!("case {case} panicked"),
        }
    }
    assert!(read > 0 && refused > 0 && restored > 0, "{read} read ({restored} restored), {refused} refused");
}
