//! Structured meshes, refinement, periodicity, connectivity and geometric factors.

use dg_core::mesh::{
    perturb_interior, rectangle, refine_uniform, Connectivity, Diagonal, FaceLink, RectangleSpec, TriMesh,
};
use dg_core::space::DgSpace2d;
use dg_core::MeshError;
use std::collections::HashMap;

fn total_area(mesh: &TriMesh) -> f64 {
    (0..mesh.num_elements()).map(|k| mesh.area(k)).sum()
}

fn boundary_length(mesh: &TriMesh, tag: &str) -> f64 {
    let t = mesh.tag_index(tag).unwrap();
    mesh.boundary_tags
        .iter()
        .filter(|(_, &v)| v == t)
        .map(|(k, _)| dg_core::mesh::distance(mesh.vertices[k[0]], mesh.vertices[k[1]]))
        .sum()
}

fn spec(nx: usize, ny: usize, diagonal: Diagonal) -> RectangleSpec {
    RectangleSpec { lower: [-1.0, 0.5], upper: [2.0, 2.5], nx, ny, diagonal, periodic_x: false, periodic_y: false }
}

#[test]
fn structured_rectangles_cover_the_domain_with_every_diagonal() {
    for diagonal in [Diagonal::Right, Diagonal::Left, Diagonal::Alternating] {
        let mesh = rectangle(&spec(5, 3, diagonal)).unwrap();
        assert_eq!(mesh.num_elements(), 30);
        assert!((total_area(&mesh) - 6.0).abs() < 1e-12);
        assert!((0..30).all(|k| mesh.area(k) > 0.0), "all counter-clockwise");
        assert!((boundary_length(&mesh, "bottom") - 3.0).abs() < 1e-12);
        assert!((boundary_length(&mesh, "left") - 2.0).abs() < 1e-12);
        let conn = Connectivity::build(&mesh).unwrap();
        let boundary_faces = conn.links.iter().flatten().filter(|l| matches!(l, FaceLink::Boundary { .. })).count();
        assert_eq!(boundary_faces, 2 * (5 + 3));
    }
    assert!(matches!(rectangle(&spec(0, 3, Diagonal::Right)), Err(MeshError::Invalid(_))));
}

#[test]
fn connectivity_is_symmetric() {
    let mesh = rectangle(&spec(4, 4, Diagonal::Alternating)).unwrap();
    let conn = Connectivity::build(&mesh).unwrap();
    for (k, links) in conn.links.iter().enumerate() {
        for (f, link) in links.iter().enumerate() {
            if let FaceLink::Interior { element, face } = *link {
                assert_eq!(conn.links[element][face], FaceLink::Interior { element: k, face: f });
            }
        }
    }
}

#[test]
fn refinement_preserves_area_tags_and_orientation() {
    let mesh = rectangle(&spec(3, 2, Diagonal::Left)).unwrap();
    let fine = refine_uniform(&refine_uniform(&mesh));
    assert_eq!(fine.num_elements(), 16 * mesh.num_elements());
    assert!((total_area(&fine) - 6.0).abs() < 1e-12);
    assert!((0..fine.num_elements()).all(|k| (fine.area(k) - 6.0 / 192.0).abs() < 1e-12));
    for tag in ["bottom", "right", "top", "left"] {
        assert!((boundary_length(&fine, tag) - boundary_length(&mesh, tag)).abs() < 1e-12, "{tag}");
    }
    assert!((fine.max_edge_length() - mesh.max_edge_length() / 4.0).abs() < 1e-12);
    Connectivity::build(&fine).unwrap();
}

#[test]
fn periodic_meshes_have_no_boundary_and_match_shifted_nodes() {
    for (px, py) in [(true, false), (false, true), (true, true)] {
        let s = RectangleSpec { periodic_x: px, periodic_y: py, ..spec(4, 3, Diagonal::Right) };
        for mesh in [rectangle(&s).unwrap(), refine_uniform(&rectangle(&s).unwrap())] {
            let conn = Connectivity::build(&mesh).unwrap();
            let boundary = conn.links.iter().flatten().filter(|l| matches!(l, FaceLink::Boundary { .. })).count();
            let expected = if px && py {
                0
            } else if px {
                2 * mesh_cells(&mesh, 0)
            } else {
                2 * mesh_cells(&mesh, 1)
            };
            assert_eq!(boundary, expected, "periodic ({px}, {py})");
            let space = DgSpace2d::new(mesh, 3).unwrap();
            for (g, (&m, &p)) in space.vmap_m.iter().zip(&space.vmap_p).enumerate() {
                let dx = space.x[p] - space.x[m];
                let dy = space.y[p] - space.y[m];
                let ok_x = dx.abs() < 1e-12 || (px && (dx.abs() - 3.0).abs() < 1e-12);
                let ok_y = dy.abs() < 1e-12 || (py && (dy.abs() - 2.0).abs() < 1e-12);
                assert!(ok_x && ok_y, "face node {g}: offset ({dx}, {dy})");
            }
        }
    }
}

/// Number of boundary faces along the sides normal to axis `axis` (0: bottom/top edges count in x).
fn mesh_cells(mesh: &TriMesh, axis: usize) -> usize {
    let side = if axis == 0 { "bottom" } else { "left" };
    let t = mesh.tag_index(side).unwrap();
    mesh.boundary_tags.values().filter(|&&v| v == t).count()
}

#[test]
fn face_maps_pair_coinciding_nodes_with_opposite_normals() {
    let mut mesh = rectangle(&spec(4, 4, Diagonal::Alternating)).unwrap();
    perturb_interior(&mut mesh, 0.3, 11);
    let space = DgSpace2d::new(mesh, 4).unwrap();
    let nfp = space.element.nfp;
    for (idx, (&m, &p)) in space.vmap_m.iter().zip(&space.vmap_p).enumerate() {
        assert!((space.x[m] - space.x[p]).abs() < 1e-12 && (space.y[m] - space.y[p]).abs() < 1e-12);
        let face = idx / nfp;
        if space.face_tag[face].is_none() {
            let k2 = p / space.element.np;
            let f2 = (0..3).find(|&f| matches!(space.connectivity.links[k2][f], FaceLink::Interior { element, .. } if element == face / 3)).unwrap();
            let (a, b) = (space.faces[face], space.faces[3 * k2 + f2]);
            assert!((a.nx + b.nx).abs() < 1e-12 && (a.ny + b.ny).abs() < 1e-12);
            assert!((a.sj - b.sj).abs() < 1e-12);
        }
    }
    // J is area / 2 and Fscale is sJ / J
    for k in 0..space.num_elements() {
        assert!((space.geometry[k].j - space.mesh.area(k) / 2.0).abs() < 1e-14);
        for f in 0..3 {
            let fg = space.faces[3 * k + f];
            assert!((fg.fscale - fg.sj / space.geometry[k].j).abs() < 1e-12);
            assert!((fg.nx.hypot(fg.ny) - 1.0).abs() < 1e-14);
        }
    }
}

#[test]
fn metric_terms_invert_the_element_map() {
    let mut mesh = rectangle(&spec(3, 3, Diagonal::Right)).unwrap();
    perturb_interior(&mut mesh, 0.3, 5);
    let space = DgSpace2d::new(mesh, 2).unwrap();
    let np = space.element.np;
    for k in 0..space.num_elements() {
        let xs = &space.x[k * np..(k + 1) * np];
        let ys = &space.y[k * np..(k + 1) * np];
        let g = space.geometry[k];
        // ∂x/∂x = rx·Dr x + sx·Ds x = 1, ∂x/∂y = 0, …
        let x = nalgebra::DVector::from_column_slice(xs);
        let y = nalgebra::DVector::from_column_slice(ys);
        let (xr, xs_) = (&space.element.dr * &x, &space.element.ds * &x);
        let (yr, ys_) = (&space.element.dr * &y, &space.element.ds * &y);
        for i in 0..np {
            assert!((g.rx * xr[i] + g.sx * xs_[i] - 1.0).abs() < 1e-12);
            assert!((g.ry * xr[i] + g.sy * xs_[i]).abs() < 1e-12);
            assert!((g.rx * yr[i] + g.sx * ys_[i]).abs() < 1e-12);
            assert!((g.ry * yr[i] + g.sy * ys_[i] - 1.0).abs() < 1e-12);
        }
    }
}

#[test]
fn perturbation_moves_interior_vertices_only_and_keeps_elements_valid() {
    let mesh = rectangle(&spec(6, 6, Diagonal::Right)).unwrap();
    let mut moved = mesh.clone();
    perturb_interior(&mut moved, 0.35, 3);
    let changed = mesh.vertices.iter().zip(&moved.vertices).filter(|(a, b)| a != b).count();
    assert!(changed >= 20, "only {changed} of 25 interior vertices moved");
    for key in mesh.boundary_tags.keys() {
        assert_eq!(mesh.vertices[key[0]], moved.vertices[key[0]]);
    }
    assert!((0..moved.num_elements()).all(|k| moved.area(k) > 0.0));
    assert!((total_area(&moved) - 6.0).abs() < 1e-12);
}

fn small_mesh(vertices: Vec<[f64; 2]>, elements: Vec<[usize; 3]>) -> Result<TriMesh, MeshError> {
    TriMesh::new(vertices, elements, vec![], HashMap::new(), vec![])
}

#[test]
fn invalid_meshes_are_rejected_naming_the_element() {
    let square = vec![[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0], [2.0, 0.0], [0.5, 0.0]];
    // degenerate: collinear vertices
    let e = small_mesh(square.clone(), vec![[0, 1, 2], [0, 5, 1]]).unwrap_err();
    assert!(matches!(e, MeshError::Degenerate { element: 1, .. }), "{e}");
    // inverted: one clockwise element among counter-clockwise ones
    let e = small_mesh(square.clone(), vec![[0, 1, 2], [0, 2, 3], [1, 2, 4], [1, 4, 2]]).unwrap_err();
    assert!(matches!(e, MeshError::Inverted { element: 2, .. }), "{e}");
    // all clockwise is a consistent mesh, reoriented
    let m = small_mesh(square.clone(), vec![[0, 2, 1], [0, 3, 2]]).unwrap();
    assert!(m.area(0) > 0.0 && m.area(1) > 0.0);
    // out-of-range vertex
    assert!(matches!(small_mesh(square.clone(), vec![[0, 1, 9]]), Err(MeshError::Invalid(_))));
    // non-manifold: three triangles on edge (0, 2)
    let mut v = square.clone();
    v.push([-1.0, 2.0]);
    let m = small_mesh(v, vec![[0, 1, 2], [0, 2, 3], [0, 2, 6]]);
    let e = Connectivity::build(&m.unwrap()).unwrap_err();
    assert!(matches!(e, MeshError::NonManifold { a: 0, b: 2, .. }), "{e}");
    // non-conforming: vertex 5 = (0.5, 0) hangs on the edge (0, 1) of the big triangle
    let v = vec![[0.0, 0.0], [1.0, 0.0], [0.5, 1.0], [0.0, -1.0], [1.0, -1.0], [0.5, 0.0]];
    let m = small_mesh(v, vec![[0, 1, 2], [0, 3, 5], [5, 3, 4], [5, 4, 1]]).unwrap();
    let e = Connectivity::build(&m).unwrap_err();
    assert!(matches!(e, MeshError::NonConforming { element: 0, face: 0, vertex: 5, .. }), "{e}");
}

#[test]
fn boundary_node_lists_follow_the_tags() {
    let space = DgSpace2d::new(rectangle(&spec(3, 2, Diagonal::Alternating)).unwrap(), 3).unwrap();
    for (tag, name) in space.connectivity.tag_names.iter().enumerate() {
        let nodes = space.boundary_nodes(tag);
        // a side of c cells carries 3c + 1 distinct positions, each held by one element node except the
        // interior face ends, which two elements share
        let cells = if name == "bottom" || name == "top" { 3 } else { 2 };
        let mut positions: Vec<(i64, i64)> =
            nodes.iter().map(|&g| ((space.x[g] * 1e9).round() as i64, (space.y[g] * 1e9).round() as i64)).collect();
        positions.sort_unstable();
        positions.dedup();
        assert_eq!(positions.len(), 3 * cells + 1, "{name}");
        for &g in &nodes {
            let (x, y) = (space.x[g], space.y[g]);
            let on_side = match name.as_str() {
                "bottom" => (y - 0.5).abs() < 1e-12,
                "top" => (y - 2.5).abs() < 1e-12,
                "left" => (x + 1.0).abs() < 1e-12,
                _ => (x - 2.0).abs() < 1e-12,
            };
            assert!(on_side, "{name}: node at ({x}, {y})");
        }
    }
}

/// Seed 001, Table 6: meshes A–D of the supersonic-vortex annulus have 180, 720, 2,880, 11,520 triangles and
/// 293, 1,126, 4,412, 17,464 edges; refined boundary vertices must lie on the arcs.
#[test]
fn the_quarter_annulus_hierarchy_matches_the_seed_and_stays_on_its_arcs() {
    use dg_core::mesh::{project_onto_circle, quarter_annulus, refine_uniform, QuarterAnnulusSpec};
    let (ri, ro) = (1.0, 1.384);
    let mut mesh = quarter_annulus(&QuarterAnnulusSpec { r_inner: ri, r_outer: ro, n_r: 5, n_theta: 18 }).unwrap();
    let expected = [(180, 293), (720, 1126), (2880, 4412), (11520, 17464)];
    for (level, &(elements, edges)) in expected.iter().enumerate() {
        if level > 0 {
            mesh = refine_uniform(&mesh);
            assert!(project_onto_circle(&mut mesh, "inner", [0.0, 0.0], ri) > 0);
            assert!(project_onto_circle(&mut mesh, "outer", [0.0, 0.0], ro) > 0);
        }
        let mut unique = std::collections::HashSet::new();
        for e in &mesh.elements {
            for f in 0..3 {
                let (a, b) = (e[f], e[(f + 1) % 3]);
                unique.insert((a.min(b), a.max(b)));
            }
        }
        assert_eq!((mesh.elements.len(), unique.len()), (elements, edges), "level {level}");
        for (key, &tag) in &mesh.boundary_tags {
            let radius = match mesh.tag_names[tag].as_str() {
                "inner" => ri,
                "outer" => ro,
                _ => continue,
            };
            for v in key {
                let [x, y] = mesh.vertices[*v];
                assert!((x.hypot(y) - radius).abs() < 1e-14, "vertex {v} off its arc");
            }
        }
        // still a valid mesh: every element counter-clockwise
        assert!((0..mesh.elements.len()).all(|k| mesh.area(k) > 0.0));
    }
}
