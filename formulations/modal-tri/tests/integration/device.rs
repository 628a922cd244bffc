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
        .partition(|v| dg_modal_tri::check_modal(v, &element, 4, &limits).is_ok());
    assert_eq!(refused.len(), 3, "{refused:?}");
    for v in &refused {
        let why = dg_modal_tri::check_modal(v, &element, 4, &limits).unwrap_err().to_string();
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
    assert_eq!(variants.len(), 72, "edge, edge-flux, edge-flux-pair, atomic, element and element-regs surfaces");
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
