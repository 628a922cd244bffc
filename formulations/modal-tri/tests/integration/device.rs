//! The modal kernels on the OpenCL device (PoCL in CI). They do not depend on the numbering of edges or on which
//! side of an edge is "left": every modal variant at p = 2 in f64 matches the CPU operator with the edges shuffled
//! and their sides swapped at random. And a tuning whose device is lost mid-way (a kernel that faults, as a CUDA
//! kernel reading an illegal address poisons its context) stops with an error that names the candidate, instead of
//! failing every later candidate and reporting that none could be verified.

use dg_codegen::{Precision, Target};
use dg_modal_tri::device::EdgeOrder;
use dg_modal_tri::verify::verify_modal_variants;
use dg_modal_tri::ModalTri;
use dg_modal_tri::ModalVariant;
use dg_runtime::backend::planted::{PlantedBug, PlantedDevice};
use dg_runtime::backend::{opencl_for_tests, Device};
use dg_runtime::formulation::{law_ir, Formulation, FormulationError, TuneTarget};
use dg_runtime::pipeline::{tune, Strategy, TuneOptions};

/// Euler's shape: four variables, a conservative flux.
const EULER: dg_modal_tri::ModalLawShape = dg_modal_tri::ModalLawShape { nvars: 4, conservative_flux: true };

#[test]
fn every_modal_variant_matches_the_cpu_with_shuffled_edges() {
    let Some((_turn, mut device)) = opencl_for_tests() else { return };
    let law = dg_laws::euler2d::Law::default();
    let ir = law_ir(&law).expect("euler2d is registered");
    // the mma surface needs the tensor cores of a CUDA device: the rules refuse it here, with the reason
    let limits = dg_runtime::backend::limits_of(device.as_ref());
    let element = dg_core::triangle::ModalTriangle::new(2).expect("p = 2");
    let (variants, refused): (Vec<ModalVariant>, Vec<ModalVariant>) = ModalVariant::all(Precision::F64)
        .into_iter()
        .partition(|v| dg_modal_tri::check_modal(v, &element, &EULER, &limits).is_ok());
    assert_eq!(refused.len(), 3, "{refused:?}");
    for v in &refused {
        let why = dg_modal_tri::check_modal(v, &element, &EULER, &limits).unwrap_err().to_string();
        assert!(v.surface == dg_modal_tri::ModalSurface::Mma && why.contains("tensor cores"), "{v}: {why}");
    }
    let outcomes = verify_modal_variants::<_, f64>(
        device.as_mut(),
        Target::OpenCl,
        &law,
        &ir,
        2,
        &variants,
        EdgeOrder::Shuffled { seed: 17 },
        &mut |_| {},
    );
    assert_eq!(outcomes.len(), variants.len());
    assert_eq!(
        variants.len(),
        108,
        "edge, edge-flux, edge-flux-pair, atomic, element and element-regs surfaces, 3 layouts"
    );
    let failed: Vec<_> = outcomes.iter().filter(|o| !o.passed).collect();
    assert!(failed.is_empty(), "{failed:#?}");
}

/// Tunes euler2d at p = 1 in f64 on a device whose `fault`-th compiled program faults.
fn tune_with_fault(device: &mut dyn Device, fault: usize, strategy: Strategy) -> Result<String, FormulationError> {
    let law = dg_laws::euler2d::Law::default();
    let mut planted = PlantedDevice::new(device, PlantedBug::FaultInProgram(fault));
    let target = TuneTarget { order: 1, precision: Precision::F64, timing_dofs: 20_000, operation: Default::default() };
    let mut tuner = ModalTri.tuner::<_, f64>(&law, &mut planted, target)?;
    let opts = TuneOptions { strategy, repeats: 3, ..TuneOptions::default() };
    tune(tuner.as_mut(), &mut planted, &opts, None, None, true, &mut |_| {}).map(|entry| entry.winner)
}

#[test]
fn a_tuning_whose_device_is_lost_names_the_candidate_and_stops() {
    let Some((_turn, mut device)) = opencl_for_tests() else { return };
    // the whole list is verified first, in order, one program each: the third faults
    let third = ModalVariant::all(Precision::F64)[2].to_string();
    match tune_with_fault(device.as_mut(), 2, Strategy::Exhaustive) {
        Err(FormulationError::DeviceLost(message)) => {
            assert!(message.contains(&format!("the first candidate to fail was {third}")), "{message}");
            assert!(message.contains("planted fault") && message.contains("N = 1"), "{message}");
        }
        other => panic!("expected the lost device to end the tuning, got {other:?}"),
    }
    // greedy: the baseline is verified (program 0), then timed on its own program (1), which faults
    let baseline = ModalVariant::seed(Precision::F64).to_string();
    match tune_with_fault(device.as_mut(), 1, Strategy::Greedy) {
        Err(FormulationError::DeviceLost(message)) => {
            assert!(message.contains(&format!("the first candidate to fail was {baseline}")), "{message}")
        }
        other => panic!("expected the lost device to end the tuning, got {other:?}"),
    }
    // the same tuning on a device that never faults finds a winner (the planted device itself is harmless)
    let winner = tune_with_fault(device.as_mut(), usize::MAX, Strategy::Greedy).expect("a winner");
    assert!(winner.starts_with("modal/"), "{winner}");
}

/// Acoustics in seed 002's penalty form, with materials that jump from element to element: its flux is not
/// conservative, so the surfaces that compute each edge's flux once and give the neighbour its negative are
/// rejected with that reason (they had run and failed verification by 65 %), and every element surface passes.
#[test]
fn a_law_whose_flux_is_not_conservative_runs_the_element_surfaces_and_they_pass() {
    let Some((_turn, mut device)) = opencl_for_tests() else { return };
    let law = dg_laws::acoustics2d::Law::default();
    let ir = law_ir(&law).expect("acoustics2d is registered");
    let params = dg_core::law::ConservationLaw::param_values(&law);
    let call = dg_runtime::formulation::LawCall { ir: &ir, params: &params, numerical_flux: "numerical_flux" };
    let limits = dg_runtime::backend::limits_of(device.as_ref());
    let listed = ModalTri.variants(&call, 2, Precision::F64, &limits);
    let mut valid = Vec::new();
    for (spec, rejected) in &listed {
        let variant: ModalVariant = spec.parse().expect("a listed spec");
        let edge_once = !matches!(
            variant.surface,
            dg_modal_tri::ModalSurface::Element
                | dg_modal_tri::ModalSurface::ElementRegs
                | dg_modal_tri::ModalSurface::Mma
        );
        match rejected {
            Some(why) if edge_once => assert!(why.contains("not conservative"), "{spec}: {why}"),
            Some(why) => assert!(variant.surface == dg_modal_tri::ModalSurface::Mma, "{spec}: {why}"),
            None => {
                assert!(!edge_once, "{spec} is listed as valid");
                valid.push(variant);
            }
        }
    }
    assert_eq!(valid.len(), 36, "element and element-regs surfaces, 3 layouts: {valid:?}");
    let outcomes = verify_modal_variants::<_, f64>(
        device.as_mut(),
        Target::OpenCl,
        &law,
        &ir,
        2,
        &valid,
        EdgeOrder::BoundaryFirst,
        &mut |_| {},
    );
    let failed: Vec<_> = outcomes.iter().filter(|o| !o.passed).collect();
    assert!(failed.is_empty(), "{failed:#?}");
}
