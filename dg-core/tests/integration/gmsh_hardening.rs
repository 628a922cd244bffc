//! The Gmsh readers against what Gmsh writes and what an adversary writes: element types a mesh does not use,
//! counts that would allocate gigabytes, overlapping and tangled elements, faces that match nothing.

use dg_core::mesh::read_gmsh_str;
use dg_core::mesh3d::read_gmsh_tet_str;

#[test]
fn a_tetrahedral_msh41_file_with_line_and_point_elements_is_read() {
    let mesh = read_gmsh_tet_str(&crate::gmsh::cube_msh_41(true), "cube.msh").unwrap();
    assert_eq!(mesh.num_elements(), 5);
    let volume: f64 = (0..5).map(|k| mesh.volume(k)).sum();
    assert!((volume - 1.0).abs() < 1e-14);
}

/// A unit square in two triangles with its four sides tagged `wall`, MSH 2.2, and extra lines appended to
/// `$Nodes` and `$Elements`.
fn square_22(extra_nodes: &[&str], extra_elements: &[&str]) -> String {
    let mut s = String::from("$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$PhysicalNames\n1\n1 1 \"wall\"\n");
    s += &format!("$EndPhysicalNames\n$Nodes\n{}\n", 4 + extra_nodes.len());
    s += "1 0 0 0\n2 1 0 0\n3 1 1 0\n4 0 1 0\n";
    for n in extra_nodes {
        s += &format!("{n}\n");
    }
    s += &format!("$EndNodes\n$Elements\n{}\n", 6 + extra_elements.len());
    s += "1 1 2 1 1 1 2\n2 1 2 1 1 2 3\n3 1 2 1 1 3 4\n4 1 2 1 1 4 1\n5 2 2 1 1 1 2 3\n6 2 2 1 1 1 3 4\n";
    for e in extra_elements {
        s += &format!("{e}\n");
    }
    s + "$EndElements\n"
}

#[test]
fn overlapping_and_tangled_triangles_are_reported() {
    assert!(read_gmsh_str(&square_22(&[], &[]), "square.msh").is_ok());
    // a third triangle on the first one's edge 1–2, folded into the square: edge 1–2 now has two elements on
    // the same side and the new edges match nothing
    let tangled = square_22(&["5 0.5 0.25 0"], &["7 2 2 1 1 1 2 5"]);
    let err = read_gmsh_str(&tangled, "square.msh").unwrap_err().to_string();
    assert!(err.contains("no physical group") || err.contains("overlap"), "{err}");
    assert!(err.contains("square.msh"), "{err}");
    // the same triangle twice: a face in three elements
    let twice = square_22(&[], &["7 2 2 1 1 1 2 3"]);
    let err = read_gmsh_str(&twice, "square.msh").unwrap_err().to_string();
    assert!(err.contains("overlap"), "{err}");
}

#[test]
fn huge_counts_in_headers_are_errors_not_allocations() {
    let huge = "18446744073709551615";
    let cases = [
        format!("$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n{huge}\n1 0 0 0\n$EndNodes\n"),
        format!("$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n1 {huge} 1 2\n2 1 0 {huge}\n1\n$EndNodes\n"),
        format!("$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n{huge} 3 1 3\n$EndNodes\n"),
        square_22(&[], &[]).replace("$Elements\n6\n", &format!("$Elements\n{huge}\n")),
    ];
    for text in &cases {
        let err = read_gmsh_str(text, "huge.msh").unwrap_err().to_string();
        assert!(err.contains("huge.msh"), "{err}");
        assert!(read_gmsh_tet_str(text, "huge.msh").is_err());
    }
}
