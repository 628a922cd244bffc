//! The per-step state check on the OpenCL device (PoCL in CI): a check enqueued without waiting gives its verdict
//! when collected, and a verdict still pending is never dropped — not by a second submission, nor by a check that
//! waits.

use dg_runtime::backend::{as_bytes, open, BufferId, Device, DeviceSelector};
use dg_runtime::state_check::StateCheck;

/// The OpenCL device, or `None` (said once) where there is none and CI does not require one.
fn opencl() -> Option<Box<dyn Device>> {
    let selector: DeviceSelector = "opencl".parse().expect("selector");
    match open(&selector) {
        Ok(d) => Some(d),
        Err(e) if std::env::var("DG_REQUIRE_OPENCL").as_deref() == Ok("1") => panic!("no OpenCL device: {e}"),
        Err(e) => {
            eprintln!("skipped: no OpenCL device ({e})");
            None
        }
    }
}

fn state(device: &mut dyn Device, values: &[f64]) -> BufferId {
    let buffer = device.alloc(values.len() * 8).expect("alloc");
    device.upload(buffer, as_bytes(values)).expect("upload");
    buffer
}

#[test]
fn a_pending_check_is_collected_and_never_dropped() {
    let Some(mut device) = opencl() else { return };
    let device = device.as_mut();
    let check = StateCheck::new(device, true).expect("the check compiles");
    // 10,007 values: more than one group's share, no multiple of the groups
    let mut good: Vec<f64> = (0..10_007).map(|i| (i as f64 * 0.37).sin()).collect();
    good[5_003] = -3.5;
    let mut bad = good.clone();
    bad[9_001] = f64::NAN;
    let (good, bad) = (state(device, &good), state(device, &bad));

    assert_eq!(check.collect(device).unwrap(), None, "nothing submitted");
    check.submit(device, good).unwrap().expect("checked");
    assert_eq!(check.collect(device).unwrap(), Some(3.5));
    assert_eq!(check.collect(device).unwrap(), None, "collected once");
    check.submit(device, bad).unwrap();
    assert!(check.collect(device).unwrap().unwrap().is_nan());

    // a second submission before the first was collected keeps the first's NaN
    check.submit(device, bad).unwrap();
    check.submit(device, good).unwrap();
    assert!(check.collect(device).unwrap().unwrap().is_nan(), "the pending NaN survives a second submission");
    assert_eq!(check.collect(device).unwrap(), None);

    // a waiting check folds in the pending one
    check.submit(device, bad).unwrap();
    let (largest, _) = check.max_abs(device, good).unwrap().expect("checked");
    assert!(largest.is_nan(), "the pending NaN survives a waiting check");
    let (largest, _) = check.max_abs(device, good).unwrap().expect("checked");
    assert_eq!(largest, 3.5);
}
