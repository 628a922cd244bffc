//! The modal kernels do not depend on the numbering of edges or on which side of an edge is "left": every modal
//! variant at p = 2 in f64 on the OpenCL device (PoCL in CI) matches the CPU operator with the edges shuffled and
//! their sides swapped at random.

use dg_codegen::{Precision, Target};
use dg_modal_tri::device::EdgeOrder;
use dg_modal_tri::verify::verify_modal_variants;
use dg_modal_tri::ModalVariant;
use dg_runtime::backend::{open, DeviceSelector};
use dg_runtime::formulation::law_ir;

#[test]
fn every_modal_variant_matches_the_cpu_with_shuffled_edges() {
    let selector: DeviceSelector = "opencl".parse().expect("selector");
    let mut device = match open(&selector) {
        Ok(d) => d,
        Err(e) if std::env::var("DG_REQUIRE_OPENCL").as_deref() == Ok("1") => panic!("no OpenCL device: {e}"),
        Err(e) => {
            eprintln!("skipped: no OpenCL device ({e})");
            return;
        }
    };
    let law = dg_laws::euler2d::Law::default();
    let ir = law_ir(&law).expect("euler2d is registered");
    let variants = ModalVariant::all(Precision::F64);
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
    assert_eq!(outcomes.len(), 36);
    let failed: Vec<_> = outcomes.iter().filter(|o| !o.passed).collect();
    assert!(failed.is_empty(), "{failed:#?}");
}
