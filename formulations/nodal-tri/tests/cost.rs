//! The roofline's minimum bytes of the nodal right-hand side, against counts made by hand: the state read and the
//! right-hand side written, four metric terms, nine face values (normals and Fscale), each face node's neighbour
//! index (vmapP, int32), and nothing for a face node's own index, which no kernel needs to read.

use dg_nodal_tri::cost::rhs_cost;
use dg_nodal_tri::variant::Variant;
use dg_runtime::formulation::law_ir;

fn bytes_per_element(order: usize, variant: &str) -> f64 {
    let ir = law_ir(&dg_laws::MaxwellTm::default()).expect("registered law");
    let variant: Variant = variant.parse().expect("variant");
    rhs_cost(&ir, "numerical_flux", order, 1000, &variant).bytes / 1000.0
}

#[test]
fn maxwell_minimum_bytes_match_a_hand_count() {
    // N = 4: 15 nodes, 15 face nodes, 3 fields; f32: 2·3·15·4 + 13·4 + 15·4
    assert_eq!(bytes_per_element(4, "tile4/wg32/seq1/matrix-local/merged/node-major/f32"), 472.0);
    // N = 8: 45 nodes, 27 face nodes; f64: 2·3·45·8 + 13·8 + 27·4, whatever the variant
    assert_eq!(bytes_per_element(8, "mma/wg8/seq1/field-local/merged/node-major/f64"), 2372.0);
    assert_eq!(bytes_per_element(8, "elem/wg128/seq1/matrix-local/merged/node-major/f64"), 2372.0);
}
