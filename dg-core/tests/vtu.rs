//! VTU output read back with an independent XML parser.

use dg_core::mesh::{rectangle, RectangleSpec};
use dg_core::space::DgSpace2d;
use dg_core::vtu::{sub_triangles, write_vtu, Field};

fn numbers(node: roxmltree::Node<'_, '_>) -> Vec<f64> {
    node.text().unwrap_or("").split_whitespace().map(|t| t.parse().unwrap()).collect()
}

#[test]
fn sub_triangulation_covers_the_reference_triangle() {
    for n in 1..=8 {
        let tris = sub_triangles(n);
        assert_eq!(tris.len(), n * n);
        let (r, s) = dg_core::triangle::equispaced_nodes(n);
        let area: f64 = tris
            .iter()
            .map(|t| {
                let a = 0.5 * ((r[t[1]] - r[t[0]]) * (s[t[2]] - s[t[0]]) - (r[t[2]] - r[t[0]]) * (s[t[1]] - s[t[0]]));
                assert!(a > 0.0, "N={n}: sub-triangle {t:?} is not counter-clockwise");
                a
            })
            .sum();
        assert!((area - 2.0).abs() < 1e-12);
    }
}

#[test]
fn vtu_file_holds_the_interpolated_high_order_field() {
    let mesh = rectangle(&RectangleSpec::unit_square(3)).unwrap();
    let order = 3;
    let space = DgSpace2d::new(mesh, order).unwrap();
    // a cubic, represented exactly by the order-3 space
    let f = |x: f64, y: f64| x * x * y - 2.0 * y * y * y + 0.5 * x + 1.0;
    let values: Vec<f64> = space.x.iter().zip(&space.y).map(|(&x, &y)| f(x, y)).collect();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("field.vtu");
    write_vtu(&path, &space, &[Field { name: "u", values: &values }]).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let doc = roxmltree::Document::parse(&text).unwrap();
    let piece = doc.descendants().find(|n| n.has_tag_name("Piece")).unwrap();
    let points: usize = piece.attribute("NumberOfPoints").unwrap().parse().unwrap();
    let cells: usize = piece.attribute("NumberOfCells").unwrap().parse().unwrap();
    assert_eq!(points, space.num_elements() * 10);
    assert_eq!(cells, space.num_elements() * 9);
    let array = |name: &str| {
        doc.descendants().find(|n| n.has_tag_name("DataArray") && n.attribute("Name") == Some(name)).unwrap()
    };
    let coords = numbers(doc.descendants().find(|n| n.has_tag_name("Points")).unwrap().first_element_child().unwrap());
    let u = numbers(array("u"));
    assert_eq!(coords.len(), 3 * points);
    assert_eq!(u.len(), points);
    for p in 0..points {
        let (x, y) = (coords[3 * p], coords[3 * p + 1]);
        assert!((-1e-12..=1.0 + 1e-12).contains(&x) && (-1e-12..=1.0 + 1e-12).contains(&y));
        assert!((u[p] - f(x, y)).abs() < 1e-10, "point {p}: {} vs {}", u[p], f(x, y));
    }
    let conn = numbers(array("connectivity"));
    let offsets = numbers(array("offsets"));
    assert_eq!(conn.len(), 3 * cells);
    assert_eq!(offsets.last().copied(), Some(3.0 * cells as f64));
    assert!(conn.iter().all(|&c| (c as usize) < points));
    assert!(numbers(array("types")).iter().all(|&t| t == 5.0));
}

#[test]
fn sub_tetrahedra_tile_the_reference_tetrahedron() {
    for n in 1..=6 {
        let tets = dg_core::vtu::sub_tetrahedra(n);
        assert_eq!(tets.len(), n * n * n);
        let (r, s, t) = dg_core::tetrahedron::equispaced_nodes_3d(n);
        let volume: f64 = tets
            .iter()
            .map(|c| {
                let d = |a: usize| [r[c[a]] - r[c[0]], s[c[a]] - s[c[0]], t[c[a]] - t[c[0]]];
                let (u, v, w) = (d(1), d(2), d(3));
                let det = u[0] * (v[1] * w[2] - v[2] * w[1]) - u[1] * (v[0] * w[2] - v[2] * w[0])
                    + u[2] * (v[0] * w[1] - v[1] * w[0]);
                assert!(det.abs() > 1e-12, "N={n}: flat sub-tetrahedron {c:?}");
                det.abs() / 6.0
            })
            .sum();
        assert!((volume - 4.0 / 3.0).abs() < 1e-12, "N={n}: volume {volume}");
    }
}

#[test]
fn tetrahedral_vtu_holds_the_interpolated_field() {
    use dg_core::mesh3d::{box_mesh, BoxSpec};
    let space = dg_core::space3d::DgSpace3d::new(box_mesh(&BoxSpec::unit_cube(1)).unwrap(), 2).unwrap();
    let f = |x: f64, y: f64, z: f64| x * y - z * z + 0.25 * x + 2.0;
    let [x, y, z] = &space.xyz;
    let values: Vec<f64> = (0..space.num_nodes()).map(|g| f(x[g], y[g], z[g])).collect();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tets.vtu");
    dg_core::vtu::write_vtu_tet(&path, &space, &[Field { name: "p", values: &values }]).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let doc = roxmltree::Document::parse(&text).unwrap();
    let array = |name: &str| {
        doc.descendants().find(|n| n.has_tag_name("DataArray") && n.attribute("Name") == Some(name)).unwrap()
    };
    let coords = numbers(doc.descendants().find(|n| n.has_tag_name("Points")).unwrap().first_element_child().unwrap());
    let p = numbers(array("p"));
    assert_eq!(p.len(), 6 * 10);
    for (i, v) in p.iter().enumerate() {
        let expected = f(coords[3 * i], coords[3 * i + 1], coords[3 * i + 2]);
        assert!((v - expected).abs() < 1e-10, "point {i}: {v} vs {expected}");
    }
    assert_eq!(numbers(array("connectivity")).len(), 4 * 6 * 8);
    assert!(numbers(array("types")).iter().all(|&t| t == 10.0));
}
