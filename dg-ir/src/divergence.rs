//! How a kernel forms the divergence of a linear flux from products with the reference derivative matrices.

/// How a kernel forms ∇·F(q) of a linear flux F_d(q) = A_d q (A_d constant per element) from products with the
/// reference derivative matrices: each variable either flux-first — the derivative of its contravariant flux,
/// one product per reference direction — or from the reference gradients of the fields its flux reads, each such
/// gradient summed once and shared by every variable that reads it (Maxwell's Hx and Hy both read ∇Ez). The plan
/// takes the split with the fewest products per direction (then the fewest values a work item keeps).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DivergencePlan {
    /// Variables differentiated flux-first.
    pub flux_first: Vec<usize>,
    /// Fields whose reference gradients are summed, shared by the variables of `from_gradients`.
    pub gradients: Vec<usize>,
    /// The other variables, each with the positions in `gradients` of the fields its flux reads.
    pub from_gradients: Vec<(usize, Vec<usize>)>,
}

impl DivergencePlan {
    /// The cheapest plan for a flux whose variable `v` reads fields `reads[v]` (every split tried: laws have a
    /// handful of variables; past 16, flux-first).
    pub fn cheapest(reads: &[Vec<bool>]) -> Self {
        let nv = reads.len();
        let cost = |mask: u32| {
            let fields = (0..nv)
                .filter(|w| (0..nv).any(|v| mask & (1 << v) != 0 && reads[v].get(*w).copied().unwrap_or(false)))
                .count();
            let flux_first = nv - mask.count_ones() as usize;
            // products per direction, then values kept per output node (one per flux-first variable, two per
            // gradient)
            (flux_first + fields, flux_first + 2 * fields)
        };
        let masks = if nv <= 16 { 1u32 << nv } else { 1 };
        let best = (0..masks).min_by_key(|&m| (cost(m), m)).unwrap_or(0);
        let flux_first: Vec<usize> = (0..nv).filter(|v| best & (1 << v) == 0).collect();
        let gradients: Vec<usize> = (0..nv)
            .filter(|w| (0..nv).any(|v| best & (1 << v) != 0 && reads[v].get(*w).copied().unwrap_or(false)))
            .collect();
        let from_gradients = (0..nv)
            .filter(|v| best & (1 << v) != 0)
            .map(|v| {
                let read: Vec<usize> = gradients
                    .iter()
                    .enumerate()
                    .filter(|(_, w)| reads[v].get(**w).copied().unwrap_or(false))
                    .map(|(i, _)| i)
                    .collect();
                (v, read)
            })
            .collect();
        Self { flux_first, gradients, from_gradients }
    }

    /// Products with each reference derivative matrix per element: one per flux-first variable and one per
    /// shared gradient (flux-first alone: one per variable).
    pub fn products(&self) -> usize {
        self.flux_first.len() + self.gradients.len()
    }
}

// (the unit tests live in their own file, outside the code fingerprint: editing them moves no tuning entry)
#[cfg(test)]
mod tests;
