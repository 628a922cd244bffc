//! Unit tests of `microblock`: seed 000's table (kept outside the hashed source: editing them moves no code
//! fingerprint).

use super::*;

/// Seed 000's worked table (digest, rounding to 16, waste < 10%).
#[test]
fn reproduces_the_seed_table() {
    let table = [
        (1, 3, 5, 16),
        (2, 6, 5, 32),
        (3, 10, 3, 32),
        (4, 15, 1, 16),
        (5, 21, 3, 64),
        (6, 28, 4, 112),
        (7, 36, 3, 112),
        (8, 45, 1, 48),
    ];
    for (n, np, elements, floats) in table {
        assert_eq!(dg_core::triangle::num_nodes(n), np);
        assert_eq!(microblock(np, 16, 0.10), Microblock { elements, floats }, "N = {n}");
    }
}
