//! Uniform refinement of tetrahedral meshes: every element into eight (red refinement: four corner
//! tetrahedra and the inner octahedron cut along its shortest diagonal).

use super::{sorted_triple, TetMesh};
use crate::tetrahedron::FACE_VERTICES;
use crate::MeshError;
use std::collections::HashMap;

/// Splits every tetrahedron into eight through its edge midpoints; boundary tags pass to the child faces and
/// periodic identification to the new vertices.
pub fn refine_uniform_tet(mesh: &TetMesh) -> Result<TetMesh, MeshError> {
    let mut vertices = mesh.vertices.clone();
    let mut midpoint: HashMap<(usize, usize), usize> = HashMap::new();
    let mut mid = |a: usize, b: usize, vertices: &mut Vec<[f64; 3]>| {
        let key = (a.min(b), a.max(b));
        *midpoint.entry(key).or_insert_with(|| {
            let (pa, pb) = (vertices[a], vertices[b]);
            vertices.push(std::array::from_fn(|d| 0.5 * (pa[d] + pb[d])));
            vertices.len() - 1
        })
    };
    let mut elements = Vec::with_capacity(8 * mesh.num_elements());
    for e in &mesh.elements {
        let [x0, x1, x2, x3] = *e;
        let m01 = mid(x0, x1, &mut vertices);
        let m02 = mid(x0, x2, &mut vertices);
        let m03 = mid(x0, x3, &mut vertices);
        let m12 = mid(x1, x2, &mut vertices);
        let m13 = mid(x1, x3, &mut vertices);
        let m23 = mid(x2, x3, &mut vertices);
        elements.extend([[x0, m01, m02, m03], [m01, x1, m12, m13], [m02, m12, x2, m23], [m03, m13, m23, x3]]);
        // the inner octahedron splits into four around its shortest diagonal (keeps the element quality)
        let len = |a: usize, b: usize| super::distance3(vertices[a], vertices[b]);
        let choices =
            [(m02, m13, [m01, m03, m23, m12]), (m01, m23, [m02, m03, m13, m12]), (m03, m12, [m01, m02, m23, m13])];
        let (a, b, ring) =
            choices.into_iter().min_by(|p, q| len(p.0, p.1).total_cmp(&len(q.0, q.1))).expect("three diagonals");
        elements.extend((0..4).map(|i| [a, b, ring[i], ring[(i + 1) % 4]]));
    }
    let mut boundary_tags = HashMap::new();
    for e in &mesh.elements {
        for fv in FACE_VERTICES {
            let [a, b, c] = fv.map(|i| e[i]);
            if let Some(&tag) = mesh.boundary_tags.get(&sorted_triple(a, b, c)) {
                let (ab, ac, bc) = (mid(a, b, &mut vertices), mid(a, c, &mut vertices), mid(b, c, &mut vertices));
                for [p, q, r] in [[a, ab, ac], [ab, b, bc], [ac, bc, c], [ab, bc, ac]] {
                    boundary_tags.insert(sorted_triple(p, q, r), tag);
                }
            }
        }
    }
    let periodic = mesh.periodic_vertex.as_ref().map(|canon| {
        let mut out: Vec<usize> = (0..vertices.len()).collect();
        out[..canon.len()].copy_from_slice(canon);
        for (&(a, b), &m) in &midpoint {
            let (ca, cb) = (canon[a], canon[b]);
            out[m] = midpoint.get(&(ca.min(cb), ca.max(cb))).copied().unwrap_or(m);
        }
        out
    });
    let mut refined = TetMesh::new(vertices, elements, mesh.tag_names.clone(), boundary_tags)?;
    refined.periodic_vertex = periodic;
    Ok(refined)
}
