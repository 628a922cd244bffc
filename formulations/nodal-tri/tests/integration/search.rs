//! A tuning search of the nodal triangle kernels leaves the matrix-const storage out above N = 4 (slower than the
//! winner every time it was measured there, and the slowest to compile) and nothing else; those variants stay
//! valid: a stored winner among them is still accepted.

use dg_codegen::Precision;
use dg_runtime::backend::opencl_for_tests;
use dg_runtime::formulation::{Formulation, TimedOperation, TuneTarget};

#[test]
fn a_search_leaves_out_matrix_const_above_order_four_and_nothing_else() {
    let Some((_turn, mut device)) = opencl_for_tests() else { return };
    let law = dg_laws::MaxwellTm::default();
    for order in [3, 4, 5, 8] {
        let target = TuneTarget { order, precision: Precision::F32, timing_dofs: 0, operation: TimedOperation::Unit };
        let mut tuner = dg_nodal_tri::NodalTri.tuner::<_, f32>(&law, device.as_mut(), target).expect("tuner");
        let all = tuner.candidates(device.as_mut());
        let searched = tuner.searched(device.as_mut());
        assert!(searched.iter().all(|s| all.contains(s)), "N={order}: searched {searched:?} not all candidates");
        let left_out: Vec<&String> = all.iter().filter(|s| !searched.contains(s)).collect();
        let matrix_const = all.iter().filter(|s| s.contains("/matrix-const/")).count();
        assert!(matrix_const >= 10, "N={order}: {matrix_const} matrix-const candidates");
        if order <= dg_nodal_tri::tuning::MATRIX_CONST_SEARCHED_TO {
            assert!(left_out.is_empty(), "N={order}: left out {left_out:?}");
        } else {
            assert_eq!(left_out.len(), matrix_const, "N={order}: left out {left_out:?}");
            assert!(left_out.iter().all(|s| s.contains("/matrix-const/")), "N={order}: left out {left_out:?}");
            assert!(searched.len() >= 30, "N={order}: {} searched", searched.len());
            assert!(tuner.accepts(device.as_mut(), left_out[0]), "N={order}: {} no longer accepted", left_out[0]);
        }
    }
}
