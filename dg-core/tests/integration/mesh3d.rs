//! Tetrahedral meshes: box generators, refinement, connectivity, geometric factors and face-node maps,
//! checked against elementary geometry.

use dg_core::mesh::FaceLink;
use dg_core::mesh3d::{box_mesh, refine_uniform_tet, BoxSpec, CubeSplit, TetGeometry, TetMesh};
use dg_core::space3d::DgSpace3d;
use dg_core::tetrahedron::FACE_VERTICES;

fn spec(cells: [usize; 3], split: CubeSplit, periodic: [bool; 3]) -> BoxSpec {
    BoxSpec { lower: [0.0, -1.0, 0.5], upper: [2.0, 1.0, 1.5], cells, split, periodic }
}

fn boundary_faces(mesh: &TetMesh) -> Vec<(usize, usize, usize)> {
    let conn = dg_core::mesh3d::Connectivity3d::build(mesh).unwrap();
    let mut out = Vec::new();
    for (k, links) in conn.links.iter().enumerate() {
        for (f, l) in links.iter().enumerate() {
            if let FaceLink::Boundary { tag } = l {
                out.push((k, f, *tag));
            }
        }
    }
    assert!(conn.tag_names.iter().all(|t| t != "boundary"), "an untagged open face: the mesh is not conforming");
    out
}

#[test]
fn box_splits_fill_the_box_and_conform() {
    for split in [CubeSplit::Six, CubeSplit::Five] {
        let mesh = box_mesh(&spec([3, 2, 4], split, [false; 3])).unwrap();
        let per_cube = if split == CubeSplit::Six { 6 } else { 5 };
        assert_eq!(mesh.num_elements(), per_cube * 24);
        let volume: f64 = (0..mesh.num_elements()).map(|k| mesh.volume(k)).sum();
        assert!((volume - 4.0).abs() < 1e-12, "{split:?}: volume {volume}");
        assert!((0..mesh.num_elements()).all(|k| mesh.volume(k) > 0.0));
        // each side square splits into two triangles
        assert_eq!(boundary_faces(&mesh).len(), 2 * 2 * (3 * 2 + 2 * 4 + 3 * 4));
    }
}

#[test]
fn periodic_boxes_have_no_faces_in_periodic_directions() {
    let mesh = box_mesh(&spec([4, 2, 4], CubeSplit::Five, [true, false, true])).unwrap();
    let faces = boundary_faces(&mesh);
    assert_eq!(faces.len(), 2 * 2 * 4 * 4);
    let names = ["ymin", "ymax"];
    assert!(faces.iter().all(|&(_, _, tag)| names.contains(&mesh.tag_names[tag].as_str())));
    assert!(box_mesh(&spec([5, 2, 2], CubeSplit::Five, [true, false, false])).is_err(), "odd periodic five-split");
}

#[test]
fn refinement_preserves_volume_tags_and_conformity() {
    for periodic in [[false; 3], [true, false, false]] {
        let mesh = box_mesh(&spec([3, 2, 2], CubeSplit::Six, periodic)).unwrap();
        let fine = refine_uniform_tet(&mesh).unwrap();
        assert_eq!(fine.num_elements(), 8 * mesh.num_elements());
        let volume: f64 = (0..fine.num_elements()).map(|k| fine.volume(k)).sum();
        assert!((volume - 4.0).abs() < 1e-12);
        assert_eq!(boundary_faces(&fine).len(), 4 * boundary_faces(&mesh).len());
        // the octahedron's diagonal is not half a parent edge, but every child is smaller
        assert!(fine.max_edge_length() < 0.8 * mesh.max_edge_length());
        // a space on the refined periodic mesh matches every face node
        DgSpace3d::new(fine, 2).unwrap();
    }
}

#[test]
fn normals_are_outward_and_close_each_element() {
    let mesh = refine_uniform_tet(&box_mesh(&spec([1, 2, 1], CubeSplit::Five, [false; 3])).unwrap()).unwrap();
    for k in 0..mesh.num_elements() {
        let (geo, faces) = TetGeometry::of_element(&mesh, k);
        assert!((geo.j * 4.0 / 3.0 - mesh.volume(k)).abs() < 1e-12);
        let p = mesh.elements[k].map(|v| mesh.vertices[v]);
        let centroid: [f64; 3] = std::array::from_fn(|d| p.iter().map(|x| x[d]).sum::<f64>() / 4.0);
        let mut closure = [0.0; 3];
        for (f, face) in faces.iter().enumerate() {
            let [a, b, c] = FACE_VERTICES[f].map(|i| p[i]);
            let (u, w) = ([b[0] - a[0], b[1] - a[1], b[2] - a[2]], [c[0] - a[0], c[1] - a[1], c[2] - a[2]]);
            let cr = [u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0]];
            let area = 0.5 * (cr[0] * cr[0] + cr[1] * cr[1] + cr[2] * cr[2]).sqrt();
            assert!((2.0 * face.sj - area).abs() < 1e-12 * area.max(1.0), "face area");
            let out: f64 = (0..3).map(|d| face.n[d] * ((a[d] + b[d] + c[d]) / 3.0 - centroid[d])).sum();
            assert!(out > 0.0, "normal points inward");
            for d in 0..3 {
                closure[d] += area * face.n[d];
            }
        }
        assert!(closure.iter().all(|c| c.abs() < 1e-12));
    }
}

#[test]
fn face_node_maps_pair_coincident_nodes() {
    for (split, periodic) in [(CubeSplit::Six, [false; 3]), (CubeSplit::Five, [true, true, false])] {
        let mesh = box_mesh(&spec([4, 4, 2], split, periodic)).unwrap();
        let space = DgSpace3d::new(mesh, 3).unwrap();
        let period = [2.0, 2.0, 1.0];
        for (m, p) in space.vmap_m.iter().zip(&space.vmap_p) {
            for d in 0..3 {
                let gap = (space.xyz[d][*m] - space.xyz[d][*p]).abs();
                let periodic_gap = periodic[d] && (gap - period[d]).abs() < 1e-12;
                assert!(gap < 1e-12 || periodic_gap, "{split:?}: nodes {m} and {p} differ by {gap} in {d}");
            }
        }
    }
}

#[test]
fn bad_boxes_are_refused() {
    assert!(box_mesh(&spec([0, 1, 1], CubeSplit::Six, [false; 3])).is_err());
    let mut s = spec([1, 1, 1], CubeSplit::Six, [false; 3]);
    s.upper[2] = s.lower[2];
    assert!(box_mesh(&s).is_err());
    assert!(box_mesh(&spec([2, 2, 2], CubeSplit::Six, [true, false, false])).is_err(), "two periodic cells");
}
