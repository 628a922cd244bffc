//! The roofline's minimum bytes of the nodal right-hand side, against counts made by hand: the state read and the
//! right-hand side written, four metric terms, nine face values (normals and Fscale), one int32 per face for its
//! neighbour (the packed link; vmapP's index per face node is more than an operator must read), and nothing for a
//! face node's own index, which no kernel needs to read. The same minimum for every variant.

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
    // N = 4: 15 nodes, 3 fields; f32: 2·3·15·4 + 13·4 + 3·4, whether the kernel reads the links or vmapP
    assert_eq!(bytes_per_element(4, "elem/wg128/seq1/matrix-local/merged/node-major/f32/mixed"), 424.0);
    assert_eq!(bytes_per_element(4, "tile4/wg32/seq1/matrix-local/merged/node-major/f32"), 424.0);
    assert_eq!(bytes_per_element(4, "elem/wg128/seq1/matrix-local/fused/node-major/f32"), 424.0);
    // N = 8: 45 nodes; f64: 2·3·45·8 + 13·8 + 3·4, whatever the variant
    assert_eq!(bytes_per_element(8, "mma/wg8/seq1/field-local/merged/node-major/f64"), 2276.0);
    assert_eq!(bytes_per_element(8, "elem/wg128/seq1/matrix-local/merged/node-major/f64"), 2276.0);
}

#[test]
fn a_mixed_element_counts_the_products_it_saves() {
    let ir = law_ir(&dg_laws::MaxwellTm::default()).expect("registered law");
    let flops = |variant: &str| {
        let variant: Variant = variant.parse().expect("variant");
        rhs_cost(&ir, "numerical_flux", 3, 1000, &variant).flops / 1000.0
    };
    // N = 3, 10 nodes, 3 fields. Diff-first: 2 products per field (4 flops per node and column), 7 flops per node and
    // field: 3·10·(4·10 + 7) = 1410. Mixed: Ez's two contravariant fluxes (6 flops per node) and ∇Ez, 2 products
    // (4·10·2 per node), Hx and Hy from ∇Ez (4 flops each per node): 10·(80 + 6 + 8) = 940. The flux at each node and
    // the surface are the same in both.
    let saved = flops("elem/wg32/seq1/matrix-const/merged/node-major/f32/diff-first")
        - flops("elem/wg32/seq1/matrix-const/merged/node-major/f32/mixed");
    assert_eq!(saved, 1410.0 - 940.0);
}

/// The kernels of a program: everything from the first kernel on (the face jump and the law are in the prelude before).
fn kernel_text(order: usize, variant: &Variant) -> String {
    let source = crate::maxwell_program(order, variant, dg_codegen::Target::Cuda);
    let start = source.find("KERNEL void").expect("a kernel");
    source[start..].to_string()
}

/// Whether kernel text reads a face node's own index: `vmap_m` itself, or the prelude's `face_jump`, which loads it.
fn reads_vmap_m(kernels: &str) -> bool {
    kernels.contains("vmap_m[") || kernels.contains("face_jump(")
}

#[test]
fn the_merged_element_tile_and_mma_kernels_read_no_own_face_index() {
    use dg_nodal_tri::variant::{Partition, Storage, Surface};
    let shape = dg_nodal_tri::variant::LawShape::of(&law_ir(&dg_laws::MaxwellTm::default()).expect("registered law"));
    let limits = dg_codegen::DeviceLimits {
        local_memory: usize::MAX,
        tensor_cores: true,
        f64_mma_m16: true,
        ..Default::default()
    };
    let mut checked = 0;
    for precision in [dg_codegen::Precision::F32, dg_codegen::Precision::F64] {
        for variant in Variant::all(precision) {
            // the minimum bytes leave vmap_m out because these kernels take the own node from the face mask (tiles
            // with the operator in constant memory load vmap_m instead: measured faster there); the mma kernels
            // compute it in closed form, which the generator checks against the element's mask at every order
            // rendered here
            let without = variant.surface == Surface::Merged
                && match variant.partition {
                    Partition::Element => true,
                    Partition::Tile { .. } => variant.storage != Storage::MatrixConst,
                    Partition::Mma | Partition::Mma16 | Partition::Mma16Regs => true,
                    _ => false,
                };
            if !without {
                continue;
            }
            let orders = if variant.partition.is_mma() { vec![1, 2, 3, 4, 5, 6, 7, 8] } else { vec![1, 4, 8] };
            for order in orders {
                if variant.check(order, &shape, &limits).is_err() {
                    continue;
                }
                assert!(!reads_vmap_m(&kernel_text(order, &variant)), "{variant} N={order} reads vmap_m");
                checked += 1;
            }
        }
    }
    assert!(checked >= 100, "only {checked} kernels checked");
    // the check sees a load where there is one: the split surface's flux kernel goes through face_jump
    let split: Variant = "elem/wg32/seq1/matrix-local/split/node-major/f32".parse().expect("variant");
    assert!(reads_vmap_m(&kernel_text(4, &split)));
}
