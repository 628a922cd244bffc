//! The reference elements' `GENERATOR_SOURCES` (hashed into the formulations' code fingerprints) hold the source
//! of every item whose numbers or node order generated kernels have written into them: moving one of these items
//! to a file the list leaves out fails here, instead of leaving tuning entries keyed to kernels they no longer time.

fn holds(list: &[&str], item: &str) -> bool {
    list.iter().any(|source| source.contains(item))
}

fn check(name: &str, list: &[&str], items: &[&str]) {
    let missing: Vec<&str> = items.iter().copied().filter(|item| !holds(list, item)).collect();
    assert!(missing.is_empty(), "{name}::GENERATOR_SOURCES leaves out the source of {missing:?}");
}

#[test]
fn the_triangle_sources_hold_its_nodes_operators_basis_and_rules() {
    check(
        "triangle",
        &dg_core::triangle::GENERATOR_SOURCES,
        &[
            "pub struct ReferenceTriangle",
            "pub fn warp_blend_nodes",
            "pub fn simplex_2d",
            "pub fn vandermonde(",
            "pub struct ModalTriangle",
            "pub fn edge_points",
            "pub fn triangle_cubature",
            "pub fn jacobi_gq",
            "pub fn jacobi_gl",
            "pub fn gauss_legendre",
            "pub fn inverse",
        ],
    );
}

#[test]
fn the_tetrahedron_sources_hold_its_nodes_operators_and_faces() {
    check(
        "tetrahedron",
        &dg_core::tetrahedron::GENERATOR_SOURCES,
        &[
            "pub struct ReferenceTetrahedron",
            "pub fn warp_blend_nodes_3d",
            "pub fn simplex_3d",
            "pub fn tet_cubature",
            "pub fn vandermonde(",
            "pub fn jacobi_p",
            "pub fn inverse",
        ],
    );
}

#[test]
fn the_hexahedron_sources_hold_its_points_and_weights() {
    check(
        "hexahedron",
        &dg_core::hexahedron::GENERATOR_SOURCES,
        &["pub struct ReferenceHexahedron", "pub fn lagrange(", "pub fn jacobi_gq"],
    );
}

#[test]
fn an_item_outside_the_list_is_found_missing() {
    // the check itself can fail: the tetrahedron's list does not hold the modal triangle
    assert!(!holds(&dg_core::tetrahedron::GENERATOR_SOURCES, "pub struct ModalTriangle"));
}
