//! The Gmsh reader: a real mesh made by Gmsh in both formats, and malformed files that must be rejected
//! with the right line.

use dg_core::mesh::{read_gmsh, read_gmsh_str, Connectivity, FaceLink};
use dg_core::MeshError;
use std::path::PathBuf;

fn example(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples/meshes").join(name)
}

fn boundary_length(mesh: &dg_core::mesh::TriMesh, tag: &str) -> f64 {
    let t = mesh.tag_index(tag).unwrap_or_else(|| panic!("tag {tag} missing: {:?}", mesh.tag_names));
    mesh.boundary_tags
        .iter()
        .filter(|(_, &v)| v == t)
        .map(|(k, _)| dg_core::mesh::distance(mesh.vertices[k[0]], mesh.vertices[k[1]]))
        .sum()
}

#[test]
fn square_with_hole_loads_from_both_formats() {
    let v41 = read_gmsh(example("square_hole.msh")).unwrap();
    let v22 = read_gmsh(example("square_hole_v22.msh")).unwrap();
    assert_eq!(v41.num_elements(), v22.num_elements());
    assert!(v41.num_elements() > 100);
    for mesh in [&v41, &v22] {
        let area: f64 = (0..mesh.num_elements()).map(|k| mesh.area(k)).sum();
        // unit square minus a disc of radius 0.2, the circle resolved by a polygon
        let exact = 1.0 - std::f64::consts::PI * 0.04;
        assert!((area - exact).abs() < 5e-3, "area {area} vs {exact}");
        assert!((boundary_length(mesh, "outer") - 4.0).abs() < 1e-9);
        // the hole is a regular polygon inscribed in the circle: perimeter 2 n r sin(π / n)
        let t = mesh.tag_index("hole").unwrap();
        let n = mesh.boundary_tags.values().filter(|&&v| v == t).count() as f64;
        let polygon = 2.0 * n * 0.2 * (std::f64::consts::PI / n).sin();
        let hole = boundary_length(mesh, "hole");
        assert!((hole - polygon).abs() < 1e-6 * polygon, "hole perimeter {hole} vs {polygon} ({n} sides)");
        let conn = Connectivity::build(mesh).unwrap();
        // every boundary face carries one of the two physical groups
        for link in conn.links.iter().flatten() {
            if let FaceLink::Boundary { tag } = link {
                assert!(["outer", "hole"].contains(&conn.tag_names[*tag].as_str()));
            }
        }
    }
}

const VALID_22: &str = "$MeshFormat
2.2 0 8
$EndMeshFormat
$PhysicalNames
1
1 7 \"wall\"
$EndPhysicalNames
$Nodes
4
1 0 0 0
2 1 0 0
3 1 1 0
4 0 1 0
$EndNodes
$Elements
6
1 1 2 7 1 1 2
2 1 2 7 1 2 3
3 1 2 7 1 3 4
4 1 2 7 1 4 1
5 2 2 0 1 1 2 3
6 2 2 0 1 1 3 4
$EndElements
";

fn parse_error(text: &str) -> (usize, String) {
    match read_gmsh_str(text, "bad.msh") {
        Err(MeshError::Parse { line, message, .. }) => (line, message),
        Err(other) => (0, other.to_string()),
        Ok(_) => panic!("accepted a malformed file:\n{text}"),
    }
}

#[test]
fn the_valid_template_is_accepted() {
    let mesh = read_gmsh_str(VALID_22, "ok.msh").unwrap();
    assert_eq!(mesh.num_elements(), 2);
    assert_eq!(mesh.tag_names, vec!["wall".to_string()]);
    assert_eq!(mesh.boundary_tags.len(), 4);
}

#[test]
fn malformed_files_are_rejected_with_their_line() {
    let cases: Vec<(String, usize, &str)> = vec![
        (VALID_22.replace("2.2 0 8", "3.0 0 8"), 2, "version 3.0"),
        (VALID_22.replace("2.2 0 8", "2.2 1 8"), 2, "binary"),
        (VALID_22.replace("2 1 0 0", "2 1 zero 0"), 11, "not a finite number"),
        (VALID_22.replace("5 2 2 0 1 1 2 3", "5 2 2 0 1 1 2 99"), 21, "node 99"),
        (VALID_22.replace("6 2 2 0 1 1 3 4", "6 3 2 0 1 1 2 3 4"), 22, "quadrangle"),
        (VALID_22.replace("6 2 2 0 1 1 3 4", "6 2 2 0 1 1 3"), 22, "needs 8 values"),
        (VALID_22.replace("$EndElements\n", ""), 23, "`$EndElements`"),
        (VALID_22.replace("$Nodes\n4\n", "$Nodes\n5\n"), 14, "section ends early"),
        (VALID_22.replacen("$MeshFormat\n2.2 0 8\n$EndMeshFormat\n", "", 1), 1, "expected `$MeshFormat` first"),
        (VALID_22.replace("2 1 0 0", "1 1 0 0"), 11, "defined twice"),
        (VALID_22.replace("1 7 \"wall\"", "1 7"), 6, "3 values"),
    ];
    for (text, line, needle) in &cases {
        let (got_line, message) = parse_error(text);
        assert_eq!(got_line, *line, "expected line {line} for `{needle}`, got {got_line}: {message}");
        assert!(message.contains(needle), "message `{message}` should mention `{needle}`");
    }
}

#[test]
fn geometric_errors_name_the_file_line_of_the_element() {
    // triangle 6 made degenerate: nodes 1, 2 and a node on their line
    let text = VALID_22.replace("4 0 1 0", "4 0.5 0.5 0");
    let e = read_gmsh_str(&text, "flat.msh").unwrap_err();
    assert!(matches!(e, MeshError::Degenerate { element: 1, .. }), "{e}");
    assert!(e.to_string().contains("flat.msh:22"), "{e}");
}

#[test]
fn msh41_errors_name_their_line() {
    let text = std::fs::read_to_string(example("square_hole.msh")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    // corrupt the first node coordinate line after the first node block header
    let nodes = lines.iter().position(|l| *l == "$Nodes").unwrap();
    let coord_line = nodes + 4; // header, block header, tag, coordinates
    let mut broken: Vec<String> = lines.iter().map(|s| s.to_string()).collect();
    broken[coord_line] = "0.7 nan? 0".into();
    let (line, message) = parse_error(&broken.join("\n"));
    assert_eq!(line, coord_line + 1, "{message}");
    // drop one element line: the block count no longer matches
    let elements = lines.iter().position(|l| *l == "$Elements").unwrap();
    let mut short: Vec<&str> = lines.clone();
    short.remove(elements + 3);
    let (_, message) = parse_error(&short.join("\n"));
    assert!(
        message.contains("section ends early") || message.contains("values") || message.contains("integer"),
        "{message}"
    );
}

#[test]
fn unreadable_files_report_the_path() {
    let e = read_gmsh("/nonexistent/mesh.msh").unwrap_err();
    assert!(matches!(e, MeshError::Io { .. }));
    assert!(e.to_string().contains("/nonexistent/mesh.msh"));
}

/// The unit cube in five tetrahedra (corners 1, 2, 4, 7 cut off, one central), faces split to match, written by
/// hand: node tag = 1 + x + 2y + 4z.
const CUBE_TETS: [[usize; 4]; 5] = [[1, 0, 3, 5], [2, 0, 3, 6], [4, 0, 5, 6], [7, 3, 5, 6], [0, 3, 5, 6]];
const CUBE_FACES: [([usize; 3], usize); 12] = [
    ([0, 1, 3], 1),
    ([0, 2, 3], 1),
    ([4, 5, 6], 2),
    ([7, 5, 6], 2),
    ([1, 0, 5], 3),
    ([4, 0, 5], 3),
    ([2, 3, 6], 3),
    ([7, 3, 6], 3),
    ([2, 0, 6], 3),
    ([4, 0, 6], 3),
    ([1, 3, 5], 3),
    ([7, 3, 5], 3),
];

fn cube_msh_22(extra_element: Option<&str>) -> String {
    let mut s = String::from("$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$PhysicalNames\n4\n");
    s += "2 1 \"bottom\"\n2 2 \"top\"\n2 3 \"sides\"\n3 4 \"cube\"\n$EndPhysicalNames\n$Nodes\n8\n";
    for b in 0..8 {
        s += &format!("{} {} {} {}\n", b + 1, b & 1, (b >> 1) & 1, (b >> 2) & 1);
    }
    let count = CUBE_FACES.len() + CUBE_TETS.len() + usize::from(extra_element.is_some());
    s += &format!("$EndNodes\n$Elements\n{count}\n");
    let mut id = 1;
    for (f, phys) in CUBE_FACES {
        s += &format!("{id} 2 2 {phys} {phys} {} {} {}\n", f[0] + 1, f[1] + 1, f[2] + 1);
        id += 1;
    }
    for t in CUBE_TETS {
        s += &format!("{id} 4 2 4 1 {} {} {} {}\n", t[0] + 1, t[1] + 1, t[2] + 1, t[3] + 1);
        id += 1;
    }
    if let Some(e) = extra_element {
        s += &format!("{id} {e}\n");
    }
    s + "$EndElements\n"
}

/// The cube in MSH 4.1 with the boundary triangles in three physical groups; with `lines_and_points`, also — as Gmsh
/// writes when a physical curve exists or no groups are defined — a block of line elements and a block of points,
/// which a tetrahedral mesh does not use.
pub(crate) fn cube_msh_41(lines_and_points: bool) -> String {
    let mut s = String::from("$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$PhysicalNames\n3\n");
    s += "2 1 \"bottom\"\n2 2 \"top\"\n2 3 \"sides\"\n$EndPhysicalNames\n";
    // entities: surfaces 1, 2, 3 carry physical groups 1, 2, 3; volume 1 none (and a point and a curve, none either)
    s += if lines_and_points {
        "$Entities\n1 1 3 1\n1 0 0 0 0\n1 0 0 0 1 0 0 0 2 1 -1\n"
    } else {
        "$Entities\n0 0 3 1\n"
    };
    for e in 1..=3 {
        s += &format!("{e} 0 0 0 1 1 1 1 {e} 0\n");
    }
    s += "1 0 0 0 1 1 1 0 0\n$EndEntities\n$Nodes\n1 8 1 8\n3 1 0 8\n";
    for b in 1..=8 {
        s += &format!("{b}\n");
    }
    for b in 0..8 {
        s += &format!("{} {} {}\n", b & 1, (b >> 1) & 1, (b >> 2) & 1);
    }
    let mut id = 1;
    if lines_and_points {
        s += "$EndNodes\n$Elements\n6 20 1 20\n";
        s += &format!("0 1 15 1\n{id} 1\n");
        id += 1;
        s += &format!("1 1 1 2\n{id} 1 2\n{} 2 4\n", id + 1);
        id += 2;
    } else {
        s += "$EndNodes\n$Elements\n4 17 1 17\n";
    }
    for group in 1..=3 {
        let faces: Vec<_> = CUBE_FACES.iter().filter(|(_, g)| *g == group).collect();
        s += &format!("2 {group} 2 {}\n", faces.len());
        for (f, _) in faces {
            s += &format!("{id} {} {} {}\n", f[0] + 1, f[1] + 1, f[2] + 1);
            id += 1;
        }
    }
    s += "3 1 4 5\n";
    for t in CUBE_TETS {
        s += &format!("{id} {} {} {} {}\n", t[0] + 1, t[1] + 1, t[2] + 1, t[3] + 1);
        id += 1;
    }
    s + "$EndElements\n"
}

#[test]
fn tetrahedral_meshes_read_in_both_versions_with_their_boundary_groups() {
    use dg_core::mesh3d::{read_gmsh_tet_str, Connectivity3d};
    for text in [cube_msh_22(None), cube_msh_41(false)] {
        let mesh = read_gmsh_tet_str(&text, "cube.msh").unwrap();
        assert_eq!(mesh.num_elements(), 5);
        let volume: f64 = (0..5).map(|k| mesh.volume(k)).sum();
        assert!((volume - 1.0).abs() < 1e-14);
        assert!((0..5).all(|k| mesh.volume(k) > 0.0), "reoriented positively");
        let conn = Connectivity3d::build(&mesh).unwrap();
        let mut counts = std::collections::HashMap::new();
        for links in &conn.links {
            for l in links {
                if let dg_core::mesh::FaceLink::Boundary { tag } = l {
                    *counts.entry(conn.tag_names[*tag].clone()).or_insert(0) += 1;
                }
            }
        }
        assert_eq!(counts.get("bottom"), Some(&2));
        assert_eq!(counts.get("top"), Some(&2));
        assert_eq!(counts.get("sides"), Some(&8));
        assert_eq!(counts.get("boundary"), None, "every boundary face is in a group");
        dg_core::space3d::DgSpace3d::new(mesh, 3).unwrap();
    }
}

#[test]
fn tetrahedral_reader_names_the_unsupported_element_and_its_line() {
    use dg_core::mesh3d::read_gmsh_tet_str;
    let hex = cube_msh_22(Some("5 2 1 1 1 2 3 4 5 6 7 8"));
    let err = read_gmsh_tet_str(&hex, "cube.msh").unwrap_err().to_string();
    assert!(err.contains("hexahedron") && err.contains("cube.msh"), "{err}");
    let curved = cube_msh_22(Some("11 2 1 1 1 2 3 4 5 6 7 8 1 2"));
    let err = read_gmsh_tet_str(&curved, "cube.msh").unwrap_err().to_string();
    assert!(err.contains("curved"), "{err}");
    // a triangle file read as tetrahedra, and the other way round
    let err = dg_core::mesh::read_gmsh_str(&cube_msh_22(None), "cube.msh").unwrap_err().to_string();
    assert!(err.contains("3D element"), "{err}");
    let flat = cube_msh_22(None).replace(" 4 2 4 1 ", " 2 2 4 1 ");
    assert!(read_gmsh_tet_str(&flat, "cube.msh").is_err());
}
