//! Seed 000's microblocks: element DOFs are stored contiguously and padded per microblock, the microblock
//! being the fewest elements whose padded size wastes less than a given fraction.

/// A microblock: `elements` elements of `np` nodes stored in `floats` values (padded).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Microblock {
    /// Elements per microblock.
    pub elements: usize,
    /// Values per microblock and field, padded to a multiple of the alignment.
    pub floats: usize,
}

impl Microblock {
    /// Fraction of padding.
    pub fn waste(&self, np: usize) -> f64 {
        1.0 - (self.elements * np) as f64 / self.floats as f64
    }
}

/// The fewest elements (at most 64) whose `elements·np` values, rounded up to a multiple of `align`, waste
/// less than `max_waste`; if none does, the best of them.
pub fn microblock(np: usize, align: usize, max_waste: f64) -> Microblock {
    let candidate = |e: usize| Microblock { elements: e, floats: (e * np).div_ceil(align) * align };
    // padding < max_waste · floats, compared without forming 1 − used/floats, whose rounding turns exactly 10%
    // into 9.99…%
    let fits = |m: &Microblock| ((m.floats - m.elements * np) as f64) < max_waste * m.floats as f64;
    (1..=64).map(candidate).find(fits).unwrap_or_else(|| {
        (1..=64).map(candidate).min_by(|a, b| a.waste(np).total_cmp(&b.waste(np))).expect("non-empty range")
    })
}

#[cfg(test)]
mod tests {
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
}
