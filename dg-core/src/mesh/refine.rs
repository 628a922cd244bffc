//! Uniform refinement: every triangle into four by its edge midpoints.

use super::{sorted_pair, TriMesh};
use std::collections::HashMap;

/// Splits every triangle into four similar ones. Boundary tags, periodic pairing and orientation carry over.
pub fn refine_uniform(mesh: &TriMesh) -> TriMesh {
    let mut vertices = mesh.vertices.clone();
    let mut midpoint: HashMap<[usize; 2], usize> = HashMap::new();
    let mut canon: Vec<usize> = (0..vertices.len()).map(|v| mesh.canonical_vertex(v)).collect();
    let mut canonical_midpoint: HashMap<[usize; 2], usize> = HashMap::new();
    let mut elements = Vec::with_capacity(4 * mesh.elements.len());
    let mut origins = Vec::new();
    let mut mid = |a: usize, b: usize, vertices: &mut Vec<[f64; 2]>, canon: &mut Vec<usize>| -> usize {
        let key = sorted_pair(a, b);
        if let Some(&m) = midpoint.get(&key) {
            return m;
        }
        let (pa, pb) = (vertices[a], vertices[b]);
        let m = vertices.len();
        vertices.push([0.5 * (pa[0] + pb[0]), 0.5 * (pa[1] + pb[1])]);
        let ckey = sorted_pair(canon[a], canon[b]);
        let c = *canonical_midpoint.entry(ckey).or_insert(m);
        canon.push(c);
        midpoint.insert(key, m);
        m
    };
    for (k, e) in mesh.elements.iter().enumerate() {
        let [v0, v1, v2] = *e;
        let m01 = mid(v0, v1, &mut vertices, &mut canon);
        let m12 = mid(v1, v2, &mut vertices, &mut canon);
        let m20 = mid(v2, v0, &mut vertices, &mut canon);
        elements.extend([[v0, m01, m20], [m01, v1, m12], [m20, m12, v2], [m01, m12, m20]]);
        if let Some(o) = mesh.origins.get(k) {
            origins.extend(std::iter::repeat_n(format!("{o}, refined"), 4));
        }
    }
    let mut boundary_tags = HashMap::new();
    for (key, &tag) in &mesh.boundary_tags {
        // tagged segments that are not element edges (an interior curve, say) have no midpoint; drop them
        if let Some(&m) = midpoint.get(key) {
            boundary_tags.insert(sorted_pair(key[0], m), tag);
            boundary_tags.insert(sorted_pair(m, key[1]), tag);
        }
    }
    TriMesh {
        vertices,
        elements,
        tag_names: mesh.tag_names.clone(),
        boundary_tags,
        periodic_vertex: mesh.periodic_vertex.as_ref().map(|_| canon),
        origins,
        // four triangles per triangle, no longer a rectangle's two per square in order
        lattice: None,
    }
}
