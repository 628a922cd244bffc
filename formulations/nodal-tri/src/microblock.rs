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

// (the unit tests live in their own file, outside the code fingerprint: editing them moves no tuning entry)
#[cfg(test)]
mod tests;
