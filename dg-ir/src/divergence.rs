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

#[cfg(test)]
mod tests {
    use super::DivergencePlan;

    #[test]
    fn maxwell_tm_shares_the_gradient_of_ez() {
        // Hx reads Ez, Hy reads Ez, Ez reads Hx and Hy
        let reads = vec![vec![false, false, true], vec![false, false, true], vec![true, true, false]];
        let plan = DivergencePlan::cheapest(&reads);
        assert_eq!(plan.flux_first, vec![2]);
        assert_eq!(plan.gradients, vec![2]);
        assert_eq!(plan.from_gradients, vec![(0, vec![0]), (1, vec![0])]);
        assert_eq!(plan.products(), 2);
    }

    #[test]
    fn a_flux_where_every_variable_reads_every_field_stays_flux_first() {
        let plan = DivergencePlan::cheapest(&vec![vec![true; 4]; 4]);
        assert_eq!(plan.products(), 4);
        assert_eq!(plan.flux_first, vec![0, 1, 2, 3]);
        assert!(plan.gradients.is_empty() && plan.from_gradients.is_empty());
    }

    #[test]
    fn a_variable_with_no_flux_needs_no_product() {
        // advection of q0 (reads itself) beside a passive q1
        let plan = DivergencePlan::cheapest(&[vec![true, false], vec![false, false]]);
        assert_eq!(plan.products(), 1);
        assert_eq!(plan.from_gradients, vec![(1, vec![])]);
    }
}
