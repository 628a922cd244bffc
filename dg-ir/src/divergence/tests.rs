//! Unit tests of `divergence`: which variables go flux-first and which gradients are shared (kept outside the
//! hashed source: editing them moves no code fingerprint).

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
