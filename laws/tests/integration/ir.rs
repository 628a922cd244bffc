//! The IR: linearity detection, common-subexpression elimination, constant folding, flop counts, the
//! printer and the content hash.

use dg_core::law::{Pick, Scalar};
use dg_ir::{trace, FunctionRole, InputKind, Inputs, Sym};
use dg_laws::*;

#[test]
fn linearity_is_detected_for_every_law() {
    let linear = ["advection2d", "advection3d", "maxwell2d", "maxwell3d", "acoustics2d", "acoustics3d", "elastic3d"];
    let nonlinear = ["burgers2d", "euler2d", "euler3d", "shallow_water2d", "mhd2d"];
    for ir in all_ir() {
        if linear.contains(&ir.name.as_str()) {
            assert!(ir.is_linear(), "{} should be linear", ir.name);
        } else {
            assert!(nonlinear.contains(&ir.name.as_str()), "{} is in neither list", ir.name);
            assert!(!ir.is_linear(), "{} should be nonlinear", ir.name);
        }
    }
}

#[test]
fn energy_growth_is_taken_for_instability_only_for_linear_laws_without_a_source_or_an_inflow() {
    assert!(maxwell2d::ir().energy_cannot_grow(["pec"]) && acoustics3d::ir().energy_cannot_grow(["wall", "free"]));
    assert!(!euler2d::ir().energy_cannot_grow([]), "a nonlinear law");
    // the same linear law with a forcing: its energy may grow, and a run must not call that a blow-up
    let mut forced = maxwell2d::ir();
    let source = trace("source", || {
        let ez = Sym::input(InputKind::StateM, 2);
        vec![Sym::cst(0.0), Sym::cst(0.0), ez * Sym::cst(0.5) + Sym::input(InputKind::Time, 0)]
    });
    forced.functions.push((FunctionRole::Source, source));
    assert!(forced.is_linear() && !forced.energy_cannot_grow(["pec"]));
}

/// A law's boundary condition with a term of its own (an inflow) may bring energy in; one linear in the interior
/// state alone (a wall, an absorbing or extrapolating side) may not.
#[test]
fn a_prescribed_inflow_may_feed_the_energy_a_wall_may_not() {
    let mut law = advection2d::ir();
    let boundary =
        |name: &str, ghost: fn() -> Sym| (FunctionRole::Boundary, trace(&format!("boundary:{name}"), || vec![ghost()]));
    fn u() -> Sym {
        Sym::input(InputKind::StateM, 0)
    }
    law.functions.push(boundary("in_time", || Sym::input(InputKind::Time, 0).sin()));
    law.functions.push(boundary("in_space", || Sym::input(InputKind::Position, 0) * u()));
    law.functions.push(boundary("in_constant", || u() + Sym::cst(1.0)));
    law.functions.push(boundary("half", || u() * Sym::cst(0.5)));
    law.functions.push(boundary("squared", || u() * u()));
    // inflow of 1 through faces facing -x, extrapolation elsewhere: only a normal pointing along -x shows the term
    law.functions.push(boundary("one_sided", || {
        Sym::pick(Sym::input(InputKind::Normal, 0).lt(Sym::cst(-0.9)), Sym::cst(1.0), u())
    }));
    for homogeneous in ["zero", "extrapolate", "half"] {
        assert!(law.boundary_is_homogeneous(homogeneous), "{homogeneous}");
    }
    for feeding in ["in_time", "in_space", "in_constant", "squared", "one_sided", "no_such_condition"] {
        assert!(!law.boundary_is_homogeneous(feeding), "{feeding}");
        assert!(!law.energy_cannot_grow(["zero", feeding]), "{feeding}");
    }
    assert!(law.energy_cannot_grow(["zero", "extrapolate", "half"]) && law.energy_cannot_grow([]));
}

#[test]
fn linearity_is_per_output() {
    // Euler's mass flux ρu is linear in the state; its momentum and energy fluxes are not
    let ir = euler2d::ir();
    let lin = ir.function("flux").unwrap().linear_outputs();
    assert_eq!(lin, vec![true, false, false, false, true, false, false, false]);
}

#[test]
fn equal_subexpressions_become_one_node_and_constants_fold() {
    let f = trace("t", || {
        let a = Sym::input(InputKind::StateM, 0);
        let b = Sym::input(InputKind::StateM, 1);
        let two = Sym::cst(2.0) * Sym::cst(1.5) - Sym::cst(1.0); // folds to 2
        vec![(a + b) * (b + a), two * (a + b), a * Sym::cst(1.0) + Sym::cst(0.0)]
    });
    // inputs a, b; a + b; (a+b)²; constant 2; 2·(a+b). The third output is `a` itself.
    assert_eq!(f.nodes.len(), 6, "{:?}", f.nodes);
    assert_eq!(f.flops().total, 3);
    let out = f.eval(&Inputs::default().with(InputKind::StateM, &[1.5, -4.0]));
    assert_eq!(out, vec![6.25, -5.0, 1.5]);
}

#[test]
fn select_and_comparisons_evaluate_like_native_code() {
    let f = trace("t", || {
        let a = Sym::input(InputKind::StateM, 0);
        let b = Sym::input(InputKind::StateM, 1);
        let c = Sym::and(a.lt(b), Sym::not(a.eq(Sym::cst(0.0))));
        vec![<Sym as dg_core::law::Pick<_>>::pick(c, a, b), a.max(b).sqrt(), a.powi(3)]
    });
    for (x, y) in [(1.0, 2.0), (3.0, 2.0), (0.0, 5.0)] {
        let out = f.eval(&Inputs::default().with(InputKind::StateM, &[x, y]));
        let pick = if x < y && x != 0.0 { x } else { y };
        assert_eq!(out, vec![pick, f64::max(x, y).sqrt(), x * x * x]);
    }
}

#[test]
fn flops_are_counted_after_cse() {
    // maxwell2d's flux is six entries of which two are negations
    assert_eq!(maxwell2d::ir().function("flux").unwrap().flops().total, 2);
    // Euler's pressure appears in three flux entries but is computed once
    let ir = euler2d::ir();
    let flux = ir.function("flux").unwrap();
    let divisions = flux.flops().div;
    assert!(divisions <= 3, "u, v and ρ⁻¹ terms: {divisions} divisions");
}

#[test]
fn printer_names_inputs_and_outputs() {
    let text = acoustics2d::ir().print();
    for needle in ["law acoustics2d", "qm.p", "mp.rho", "n.x", "out.vx", "fn numerical_flux:numerical_flux", "linear"] {
        assert!(text.contains(needle), "missing `{needle}` in\n{text}");
    }
}

#[test]
fn content_hash_is_stable_and_sensitive() {
    let a = euler2d::ir();
    let b = euler2d::ir();
    assert_eq!(a.hash(), b.hash());
    assert_eq!(a.hash().len(), 16);
    let mut changed = a.clone();
    changed.params[0].1 = 1.3;
    assert_ne!(a.hash(), changed.hash());
    let mut renamed = a.clone();
    renamed.functions.retain(|(role, _)| *role != FunctionRole::Boundary);
    assert_ne!(a.hash(), renamed.hash());
    let hashes: std::collections::HashSet<String> = all_ir().iter().map(|ir| ir.hash()).collect();
    assert_eq!(hashes.len(), all_ir().len());
}

#[test]
fn every_law_is_registered() {
    let registered: Vec<&str> = dg_ir::registered_laws().iter().map(|l| l.name).collect();
    for ir in all_ir() {
        assert!(registered.contains(&ir.name.as_str()), "{} missing from {registered:?}", ir.name);
    }
}
