//! Which numerical fluxes are conservative (the flux one side of a face receives is minus the other side's): the
//! property the edge-once kernels rely on.

use dg_ir::FunctionRole;
use dg_runtime::verify::numerical_flux_is_conservative;

/// Every built-in flux of a law in conservation form is conservative; seed 002's penalty form for acoustics and
/// elasticity (the flux of p and σ scaled by the own side's ρc², the impedance of the other side in the penalty) is
/// not once the materials jump across a face.
#[test]
fn fluxes_in_conservation_form_are_conservative_the_penalty_forms_across_a_material_jump_are_not() {
    let not_conservative = ["acoustics2d", "acoustics3d", "elastic3d"];
    let mut checked = 0;
    for ir in dg_laws::all_ir() {
        for flux in ir.functions_of(FunctionRole::NumericalFlux) {
            let name = flux.name.trim_start_matches("numerical_flux:");
            let expected = !not_conservative.contains(&ir.name.as_str());
            assert_eq!(numerical_flux_is_conservative(&ir, name), expected, "{} {name}", ir.name);
            checked += 1;
        }
    }
    assert!(checked >= 20, "{checked} fluxes");
    let acoustics = dg_laws::all_ir().into_iter().find(|ir| ir.name == "acoustics2d").expect("acoustics2d");
    assert!(!numerical_flux_is_conservative(&acoustics, "no_such_flux"));
}

/// A flux with a term that does not change sign with the side (a one-sided dissipation) is caught even without
/// materials.
#[test]
fn a_flux_that_favours_one_side_is_not_conservative() {
    use dg_core::law::Scalar;
    use dg_ir::{trace, InputKind, Sym};
    let mut law = dg_laws::all_ir().into_iter().find(|ir| ir.name == "advection2d").expect("advection2d");
    let skewed = trace("numerical_flux:skewed", || {
        let (um, up) = (Sym::input(InputKind::StateM, 0), Sym::input(InputKind::StateP, 0));
        let an = Sym::input(InputKind::Normal, 0) + Sym::cst(0.5) * Sym::input(InputKind::Normal, 1);
        // the upwind average plus a penalty on the own value only
        vec![Sym::cst(0.5) * an * (um + up) - Sym::cst(0.1) * um]
    });
    law.functions.push((FunctionRole::NumericalFlux, skewed));
    assert!(numerical_flux_is_conservative(&law, "numerical_flux"));
    assert!(!numerical_flux_is_conservative(&law, "skewed"));
}
