//! Gmsh hexahedral meshes: MSH 4.1 written by hand (two cells, physical groups on their quadrangle faces), a
//! distorted box written as MSH 2.2 and read back, and the refusals (other cells, inverted cells).

use dg_core::hexmesh::{hex_box_mesh, read_gmsh_hex_str, HexBoxSpec, HexConnectivity};
use dg_core::mesh::FaceLink;

/// Two unit cubes side by side along x; the face x = 0 is "inlet", the other outer faces "wall".
const TWO_CUBES_41: &str = r#"$MeshFormat
4.1 0 8
$EndMeshFormat
$PhysicalNames
3
2 1 "inlet"
2 2 "wall"
3 3 "fluid"
$EndPhysicalNames
$Entities
0 0 2 1
1 0 0 0 0 1 1 1 1 0
2 0 0 0 2 1 1 1 2 0
1 0 0 0 2 1 1 1 3 0
$EndEntities
$Nodes
1 12 1 12
3 1 0 12
1
2
3
4
5
6
7
8
9
10
11
12
0 0 0
1 0 0
1 1 0
0 1 0
0 0 1
1 0 1
1 1 1
0 1 1
2 0 0
2 1 0
2 0 1
2 1 1
$EndNodes
$Elements
3 12 1 12
2 1 3 1
1 1 4 8 5
2 2 3 9
2 1 2 3 4
3 2 9 10 3
4 5 6 7 8
5 6 11 12 7
6 9 10 12 11
7 1 2 6 5
8 2 9 11 6
9 4 3 7 8
10 3 10 12 7
3 1 5 2
11 1 2 3 4 5 6 7 8
12 2 9 10 3 6 11 12 7
$EndElements
"#;

#[test]
fn a_hand_written_msh41_file_gives_cells_tags_and_connectivity() {
    let mesh = read_gmsh_hex_str(TWO_CUBES_41, "two.msh").unwrap();
    assert_eq!(mesh.num_elements(), 2);
    assert_eq!(mesh.vertices.len(), 12);
    assert_eq!(mesh.tag_names, vec!["inlet".to_string(), "wall".to_string()]);
    assert_eq!(mesh.boundary_tags.len(), 10);
    let inlet = mesh.tag_index("inlet").unwrap();
    assert_eq!(mesh.boundary_tags.values().filter(|&&t| t == inlet).count(), 1);
    let conn = HexConnectivity::build(&mesh).unwrap();
    // cell 0's face x̂ = 1 (face 1) is cell 1's face x̂ = 0 (face 0)
    assert_eq!(conn.links[0][1], FaceLink::Interior { element: 1, face: 0 });
    assert_eq!(conn.links[0][0], FaceLink::Boundary { tag: inlet });
    let volume: f64 = (0..2).map(|k| dg_core::hexmesh::det3(&mesh.jacobian(k, [0.5; 3]))).sum();
    assert!((volume - 2.0).abs() < 1e-14);
}

#[test]
fn a_distorted_box_written_as_msh22_reads_back_the_same() {
    let spec =
        HexBoxSpec { lower: [0.0; 3], upper: [1.0, 2.0, 0.5], cells: [3, 2, 2], periodic: [false; 3], distortion: 0.2 };
    let mesh = hex_box_mesh(&spec).unwrap();
    let back = read_gmsh_hex_str(&mesh.to_gmsh_22(), "box.msh").unwrap();
    assert_eq!(back.elements, mesh.elements);
    assert_eq!(back.vertices, mesh.vertices, "coordinates survive the text round trip bit for bit");
    let named = |m: &dg_core::hexmesh::HexMesh| -> std::collections::BTreeMap<[usize; 4], String> {
        m.boundary_tags.iter().map(|(k, &t)| (*k, m.tag_names[t].clone())).collect()
    };
    assert_eq!(named(&back), named(&mesh), "every boundary face keeps its tag's name");
}

#[test]
fn other_cells_and_inverted_cells_are_refused_with_their_line() {
    let tet =
        TWO_CUBES_41.replace("3 1 5 2\n11 1 2 3 4 5 6 7 8\n12 2 9 10 3 6 11 12 7", "3 1 4 2\n11 1 2 3 5\n12 2 9 10 6");
    let err = read_gmsh_hex_str(&tet, "tet.msh").unwrap_err().to_string();
    assert!(err.contains("element type 4") && err.contains("hexahedral mesh"), "{err}");
    // the first cell with its bottom and top faces swapped is inside out
    let inverted = TWO_CUBES_41.replace("11 1 2 3 4 5 6 7 8", "11 5 6 7 8 1 2 3 4");
    let err = read_gmsh_hex_str(&inverted, "inv.msh").unwrap_err().to_string();
    assert!(err.contains("inv.msh:") && err.contains("Jacobian"), "{err}");
}
