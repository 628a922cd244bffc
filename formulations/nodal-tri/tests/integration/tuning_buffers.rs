//! The tuner's timed stage on the OpenCL device (PoCL in CI): a stage needs a register and a new state of its
//! layout's size; when a layout whose state is larger comes after a smaller one, the smaller pair must not stay
//! allocated beside the new one (the device frees buffers all at once, so the tuner frees everything and loads the
//! operator again).

use dg_codegen::Precision;
use dg_nodal_tri::NodalTri;
use dg_runtime::backend::{opencl_for_tests, BufferId, Device};
use dg_runtime::formulation::{Formulation, TimedOperation, TimingPlan, TuneTarget, Tuner};

/// Bytes of every buffer the device holds now.
fn live_bytes(device: &dyn Device) -> usize {
    (0..).map_while(|i| device.buffer_bytes(BufferId(i))).sum()
}

/// Device bytes held after a fresh stage tuner has timed `specs` in order.
fn held_after(device: &mut dyn Device, specs: &[&str]) -> usize {
    device.free_buffers();
    let law = dg_laws::MaxwellTm::default();
    let target = TuneTarget {
        order: 1,
        precision: Precision::F64,
        timing_dofs: 20_000,
        operation: TimedOperation::LowStorageStage,
    };
    let mut tuner: Box<dyn Tuner> = NodalTri.tuner::<_, f64>(&law, device, target).expect("a tuner");
    for spec in specs {
        let (median, _) = tuner.time(device, spec, &TimingPlan::full(1)).expect("the stage runs");
        assert!(median.is_finite() && median > 0.0, "{spec}: {median}");
    }
    live_bytes(device)
}

#[test]
fn a_larger_layout_after_a_smaller_one_leaves_no_stage_buffers_behind() {
    let Some((_turn, mut device)) = opencl_for_tests() else { return };
    let device = device.as_mut();
    let element_major = "node/mb1/seq1/field-local/fused/elem-major/f64";
    let node_major = "elem/wg32/seq1/field-local/merged/node-major/f64";
    let alone = [held_after(device, &[element_major]), held_after(device, &[node_major])];
    assert_ne!(alone[0], alone[1], "the two layouts' states must differ in size for this check");
    let after_other =
        [held_after(device, &[node_major, element_major]), held_after(device, &[element_major, node_major])];
    // the larger layout timed second frees the smaller one's operator and stage and holds what it holds alone; the
    // smaller one timed second reuses the larger stage's buffers beside both operators
    let larger = if alone[0] > alone[1] { 0 } else { 1 };
    assert_eq!(after_other[larger], alone[larger], "alone {alone:?}, after the other layout {after_other:?}");
    assert!(after_other[1 - larger] > alone[1 - larger], "alone {alone:?}, after the other layout {after_other:?}");
}
