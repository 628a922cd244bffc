//! Text mutations for the fuzz tests of dg's file readers (Gmsh meshes, tuning databases, restart files): a
//! valid file from a corpus, changed the way damaged or hostile files differ — tokens swapped for extreme
//! numbers or section markers, lines dropped, repeated or swapped, the file cut short, stray characters — so
//! that a reader meets counts that would allocate gigabytes, sections out of order and numbers out of range.
//! A reader passes when every mutant is read or refused with an error: no panic, no abort, no hang.

use rand::{Rng, SeedableRng};

/// Tokens a mutation puts in place of another.
const EXTREMES: [&str; 22] = [
    "0",
    "-1",
    "1",
    "2",
    "3",
    "18446744073709551615",
    "9223372036854775807",
    "-9223372036854775808",
    "4294967296",
    "1e308",
    "-1e308",
    "nan",
    "inf",
    "-0",
    "$EndNodes",
    "$Elements",
    "$EndElements",
    "$Nodes",
    "\"",
    "{",
    "}",
    "null",
];

/// A deterministic source of mutants: case `i` of seed `s` is always the same.
pub struct Mutator {
    rng: rand::rngs::StdRng,
}

impl Mutator {
    /// A mutator with a fixed seed.
    pub fn new(seed: u64) -> Self {
        Self { rng: rand::rngs::StdRng::seed_from_u64(seed) }
    }

    /// One to four mutations of `text`.
    pub fn mutate(&mut self, text: &str) -> String {
        let mut out = text.to_string();
        for _ in 0..self.rng.random_range(1..=4) {
            out = self.once(&out);
        }
        out
    }

    fn once(&mut self, text: &str) -> String {
        let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
        if lines.is_empty() {
            return EXTREMES[self.rng.random_range(0..EXTREMES.len())].to_string();
        }
        let l = self.rng.random_range(0..lines.len());
        match self.rng.random_range(0..7) {
            0 | 1 => {
                // a token replaced by an extreme value or a random integer
                let mut tokens: Vec<String> = lines[l].split_whitespace().map(str::to_string).collect();
                if !tokens.is_empty() {
                    let t = self.rng.random_range(0..tokens.len());
                    tokens[t] = if self.rng.random_bool(0.7) {
                        EXTREMES[self.rng.random_range(0..EXTREMES.len())].to_string()
                    } else {
                        self.rng.random_range(-5i64..100_000).to_string()
                    };
                    lines[l] = tokens.join(" ");
                }
            }
            2 => {
                lines.remove(l);
            }
            3 => {
                let copy = lines[l].clone();
                lines.insert(l, copy);
            }
            4 => {
                let m = self.rng.random_range(0..lines.len());
                lines.swap(l, m);
            }
            5 => {
                let keep = self.rng.random_range(0..=lines.len());
                lines.truncate(keep);
            }
            _ => {
                // a character replaced by a printable one
                let chars: Vec<char> = lines[l].chars().collect();
                if !chars.is_empty() {
                    let c = self.rng.random_range(0..chars.len());
                    let replacement = char::from(self.rng.random_range(b' '..=b'~'));
                    lines[l] = chars.iter().enumerate().map(|(i, &x)| if i == c { replacement } else { x }).collect();
                }
            }
        }
        let mut joined = lines.join("\n");
        joined.push('\n');
        joined
    }
}

impl Mutator {
    /// One to four mutations of binary data: bytes flipped, an 8-byte field overwritten with an extreme count,
    /// a range repeated, bytes inserted, the data cut short.
    pub fn mutate_bytes(&mut self, bytes: &[u8]) -> Vec<u8> {
        const COUNTS: [u64; 8] = [0, 1, 7, 1 << 20, 1 << 32, 1 << 40, u64::MAX / 8, u64::MAX];
        let mut out = bytes.to_vec();
        for _ in 0..self.rng.random_range(1..=4) {
            if out.is_empty() {
                out.push(self.rng.random());
                continue;
            }
            let at = self.rng.random_range(0..out.len());
            match self.rng.random_range(0..5) {
                0 => out[at] ^= 1 << self.rng.random_range(0..8),
                1 => {
                    let count = COUNTS[self.rng.random_range(0..COUNTS.len())].to_le_bytes();
                    for (i, b) in count.iter().enumerate() {
                        if let Some(x) = out.get_mut(at + i) {
                            *x = *b;
                        }
                    }
                }
                2 => {
                    let end = (at + self.rng.random_range(1..64)).min(out.len());
                    let range = out[at..end].to_vec();
                    out.splice(at..at, range);
                }
                3 => {
                    let extra: Vec<u8> = (0..self.rng.random_range(1..16)).map(|_| self.rng.random()).collect();
                    out.splice(at..at, extra);
                }
                _ => out.truncate(at),
            }
        }
        out
    }
}

/// The number of fuzz cases per reader: `DG_FUZZ_CASES`, else `default`.
pub fn cases(default: usize) -> usize {
    std::env::var("DG_FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}
