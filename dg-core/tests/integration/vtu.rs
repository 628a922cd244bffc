//! VTU output read back by a reader written here (XML through roxmltree, the raw appended blocks by hand), the
//! values compared with polynomials the spaces represent exactly.

use dg_core::mesh::{rectangle, RectangleSpec};
use dg_core::space::DgSpace2d;
use dg_core::vtu::{write_vtu, Field};
use std::collections::HashMap;
use std::path::Path;

/// The arrays of a VTU file with raw appended data: name → values (as f64), plus the cell and point counts.
struct Vtu {
    arrays: HashMap<String, Vec<f64>>,
    points: usize,
    cells: usize,
}

fn read_vtu(path: &Path) -> Vtu {
    let bytes = std::fs::read(path).unwrap();
    let marker = b"<AppendedData encoding=\"raw\">\n_";
    let at = bytes.windows(marker.len()).position(|w| w == marker).expect("raw appended data");
    let header = String::from_utf8(bytes[..at].to_vec()).unwrap() + "</VTKFile>";
    let data = &bytes[at + marker.len()..];
    let doc = roxmltree::Document::parse(&header).unwrap();
    let piece = doc.descendants().find(|n| n.has_tag_name("Piece")).unwrap();
    let count = |a: &str| piece.attribute(a).unwrap().parse::<usize>().unwrap();
    let mut arrays = HashMap::new();
    for node in doc.descendants().filter(|n| n.has_tag_name("DataArray")) {
        assert_eq!(node.attribute("format"), Some("appended"));
        let offset: usize = node.attribute("offset").unwrap().parse().unwrap();
        let len = u64::from_le_bytes(data[offset..offset + 8].try_into().unwrap()) as usize;
        let block = &data[offset + 8..offset + 8 + len];
        let values: Vec<f64> = match node.attribute("type").unwrap() {
            "Float64" => block.chunks_exact(8).map(|c| f64::from_le_bytes(c.try_into().unwrap())).collect(),
            "Int64" => block.chunks_exact(8).map(|c| i64::from_le_bytes(c.try_into().unwrap()) as f64).collect(),
            "UInt8" => block.iter().map(|&b| b as f64).collect(),
            other => panic!("unexpected type {other}"),
        };
        arrays.insert(node.attribute("Name").unwrap().to_string(), values);
    }
    Vtu { arrays, points: count("NumberOfPoints"), cells: count("NumberOfCells") }
}

fn check_field(vtu: &Vtu, name: &str, f: impl Fn([f64; 3]) -> f64) {
    let (coords, values) = (&vtu.arrays["Points"], &vtu.arrays[name]);
    assert_eq!(coords.len(), 3 * vtu.points);
    assert_eq!(values.len(), vtu.points);
    for p in 0..vtu.points {
        let x = [coords[3 * p], coords[3 * p + 1], coords[3 * p + 2]];
        assert!((values[p] - f(x)).abs() < 1e-10, "point {p} at {x:?}: {} vs {}", values[p], f(x));
    }
}

#[test]
fn triangles_are_written_as_shared_lagrange_cells_holding_the_field() {
    let mesh = rectangle(&RectangleSpec::unit_square(3)).unwrap();
    let (vertices, edges, k) = (16, 33, 18);
    for order in [1, 3, 5] {
        let space = DgSpace2d::new(mesh.clone(), order).unwrap();
        // a polynomial of the space's degree, represented exactly
        let f = |x: [f64; 3]| x[0].powi(order as i32) - 2.0 * x[1] * x[0] + 0.5 * x[1].powi(order as i32) + 1.0;
        let values: Vec<f64> = space.x.iter().zip(&space.y).map(|(&x, &y)| f([x, y, 0.0])).collect();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("field.vtu");
        write_vtu(&path, &space, &[Field { name: "u", values: &values }]).unwrap();
        let vtu = read_vtu(&path);
        let interior = if order >= 3 { (order - 1) * (order - 2) / 2 } else { 0 };
        assert_eq!(vtu.points, vertices + edges * (order - 1) + k * interior, "order {order}: points are shared");
        assert_eq!(vtu.cells, k);
        check_field(&vtu, "u", f);
        let npc = (order + 1) * (order + 2) / 2;
        assert_eq!(vtu.arrays["connectivity"].len(), npc * k);
        assert_eq!(vtu.arrays["offsets"].last().copied(), Some((npc * k) as f64));
        assert!(vtu.arrays["types"].iter().all(|&t| t == 69.0));
        // each cell's points in VTK order: its vertices first, at the mesh's vertices
        let coords = &vtu.arrays["Points"];
        for (c, e) in space.mesh.elements.iter().enumerate() {
            for a in 0..3 {
                let id = vtu.arrays["connectivity"][c * npc + a] as usize;
                let v = space.mesh.vertices[e[a]];
                assert_eq!([coords[3 * id], coords[3 * id + 1]], v, "cell {c} vertex {a}");
            }
        }
    }
}

#[test]
fn modal_coefficients_are_written_as_their_polynomial() {
    let mesh = rectangle(&RectangleSpec::unit_square(2)).unwrap();
    let order = 3;
    let element = dg_core::triangle::ModalTriangle::new(order).unwrap();
    let f = |x: [f64; 3]| x[0] * x[0] * x[1] - x[1] * x[1] * x[1] + 0.25 * x[0] - 3.0;
    let values: Vec<f64> = mesh
        .elements
        .iter()
        .flat_map(|e| {
            let [p0, p1, p2] = e.map(|v| mesh.vertices[v]);
            element.project(|r, s| {
                let (l0, l1, l2) = (-0.5 * (r + s), 0.5 * (1.0 + r), 0.5 * (1.0 + s));
                f([l0 * p0[0] + l1 * p1[0] + l2 * p2[0], l0 * p0[1] + l1 * p1[1] + l2 * p2[1], 0.0])
            })
        })
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("modal.vtu");
    dg_core::vtu::write_vtu_modal(&path, &mesh, order, &[Field { name: "rho", values: &values }]).unwrap();
    check_field(&read_vtu(&path), "rho", f);
}

#[test]
fn tetrahedra_are_written_as_shared_lagrange_cells_holding_the_field() {
    use dg_core::mesh3d::{box_mesh, BoxSpec};
    for order in [2, 4] {
        let space = dg_core::space3d::DgSpace3d::new(box_mesh(&BoxSpec::unit_cube(1)).unwrap(), order).unwrap();
        let f = |x: [f64; 3]| x[0] * x[1] - x[2].powi(order as i32) + 0.25 * x[0] + 2.0;
        let [x, y, z] = &space.xyz;
        let values: Vec<f64> = (0..space.num_nodes()).map(|g| f([x[g], y[g], z[g]])).collect();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tets.vtu");
        dg_core::vtu::write_vtu_tet(&path, &space, &[Field { name: "p", values: &values }]).unwrap();
        let vtu = read_vtu(&path);
        let npc = (order + 1) * (order + 2) * (order + 3) / 6;
        assert_eq!(vtu.cells, space.num_elements());
        assert!(vtu.points < space.num_elements() * npc, "points are shared");
        check_field(&vtu, "p", f);
        assert!(vtu.arrays["types"].iter().all(|&t| t == 71.0));
    }
}

#[test]
fn hexahedra_are_written_as_shared_lagrange_cells_in_vtk_order() {
    use dg_core::hexmesh::{hex_box_mesh, HexBoxSpec};
    // VTK's 27-point Lagrange hexahedron (corners, edges 0-1, 1-2, 3-2, 0-3, 4-5, 5-6, 7-6, 4-7, 0-4, 1-5, 2-6,
    // 3-7, faces -x, +x, -y, +y, -z, +z, centre), as VTK's documentation lists it
    let expected: [[usize; 3]; 27] = [
        [0, 0, 0],
        [2, 0, 0],
        [2, 2, 0],
        [0, 2, 0],
        [0, 0, 2],
        [2, 0, 2],
        [2, 2, 2],
        [0, 2, 2],
        [1, 0, 0],
        [2, 1, 0],
        [1, 2, 0],
        [0, 1, 0],
        [1, 0, 2],
        [2, 1, 2],
        [1, 2, 2],
        [0, 1, 2],
        [0, 0, 1],
        [2, 0, 1],
        [2, 2, 1],
        [0, 2, 1],
        [0, 1, 1],
        [2, 1, 1],
        [1, 0, 1],
        [1, 2, 1],
        [1, 1, 0],
        [1, 1, 2],
        [1, 1, 1],
    ];
    assert_eq!(dg_core::vtu::lagrange_hexahedron(2), expected.to_vec());
    let spec =
        HexBoxSpec { lower: [0.0; 3], upper: [1.0, 2.0, 1.0], cells: [2, 3, 2], periodic: [false; 3], distortion: 0.2 };
    for order in [1, 2, 4] {
        let space = dg_core::space_hex::HexSpace::new(hex_box_mesh(&spec).unwrap(), order).unwrap();
        // x, y, z are trilinear in the reference coordinates, so this is in the space for D ≥ 2 (linear for D = 1)
        let quadratic = if order >= 2 { 1.0 } else { 0.0 };
        let f = |x: [f64; 3]| 2.0 + x[0] - 0.5 * x[1] + 0.25 * x[2] + quadratic * x[0] * x[1];
        let [x, y, z] = &space.xyz;
        let values: Vec<f64> = (0..space.num_nodes()).map(|g| f([x[g], y[g], z[g]])).collect();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("hexes.vtu");
        dg_core::vtu::write_vtu_hex(&path, &space, &[Field { name: "p", values: &values }]).unwrap();
        let vtu = read_vtu(&path);
        assert_eq!(vtu.cells, 12);
        assert_eq!(vtu.points, (2 * order + 1) * (3 * order + 1) * (2 * order + 1), "points are shared");
        check_field(&vtu, "p", f);
        assert!(vtu.arrays["types"].iter().all(|&t| t == 72.0));
    }
}

#[test]
fn a_field_of_the_wrong_length_is_refused() {
    let space = DgSpace2d::new(rectangle(&RectangleSpec::unit_square(2)).unwrap(), 2).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let err = write_vtu(&dir.path().join("x.vtu"), &space, &[Field { name: "u", values: &[1.0; 5] }]).unwrap_err();
    assert!(err.to_string().contains("field `u`"), "{err}");
}

#[test]
fn a_pvd_series_reads_back() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.pvd");
    let entries = vec![(0.0, "run_0000.vtu".to_string()), (0.125, "run \"1\".vtu".to_string())];
    dg_core::vtu::write_pvd(&path, &entries).unwrap();
    assert_eq!(dg_core::vtu::read_pvd(&path), entries);
    roxmltree::Document::parse(&std::fs::read_to_string(&path).unwrap()).unwrap();
}

#[test]
fn grid_cells_are_written_as_quadrilaterals_holding_each_cells_value() {
    use dg_core::vtu::{write_vtu_grid, CellGrid};
    // 7 × 3 cells of [−1, 2.5] × [0.5, 1.1]: no multiple of anything, the last line at the upper corner
    let grid = CellGrid { nx: 7, ny: 3, lower: [-1.0, 0.5], upper: [2.5, 1.1] };
    let centre = |c: usize| {
        let (i, j) = (c % 7, c / 7);
        [-1.0 + (i as f64 + 0.5) * 0.5, 0.5 + (j as f64 + 0.5) * 0.2]
    };
    let rho: Vec<f64> = (0..21).map(|c| centre(c)[0] * 10.0 + centre(c)[1]).collect();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cells.vtu");
    write_vtu_grid(&path, &grid, &[Field { name: "rho", values: &rho }]).unwrap();
    let vtu = read_vtu(&path);
    assert_eq!((vtu.points, vtu.cells), (8 * 4, 21));
    assert!(vtu.arrays["types"].iter().all(|&t| t == 9.0));
    assert_eq!(vtu.arrays["offsets"], (1..=21).map(|c| 4.0 * c as f64).collect::<Vec<_>>());
    let (coords, ids) = (&vtu.arrays["Points"], &vtu.arrays["connectivity"]);
    let max = coords.chunks(3).fold([f64::MIN; 2], |m, p| [m[0].max(p[0]), m[1].max(p[1])]);
    assert_eq!(max, [2.5, 1.1], "the grid ends at its upper corner exactly");
    for c in 0..21 {
        let corner = |a: usize| {
            let id = ids[4 * c + a] as usize;
            [coords[3 * id], coords[3 * id + 1]]
        };
        // counter-clockwise from the lower left, around the cell's centre
        let [x, y] = centre(c);
        let expected = [[x - 0.25, y - 0.1], [x + 0.25, y - 0.1], [x + 0.25, y + 0.1], [x - 0.25, y + 0.1]];
        for (a, e) in expected.iter().enumerate() {
            let p = corner(a);
            assert!((p[0] - e[0]).abs() < 1e-12 && (p[1] - e[1]).abs() < 1e-12, "cell {c} corner {a}: {p:?}");
        }
        assert_eq!(vtu.arrays["rho"][c], x * 10.0 + y, "cell {c}");
    }
    // a field of another length than the cells', and an empty grid, are refused
    let short = write_vtu_grid(&path, &grid, &[Field { name: "rho", values: &rho[1..] }]);
    assert!(short.is_err_and(|e| e.to_string().contains("7 × 3 cells need 21")));
    let empty = CellGrid { nx: 0, ..grid };
    assert!(write_vtu_grid(&path, &empty, &[]).is_err());
}
