//! Structured triangulations of a quarter annulus, and moving boundary vertices onto the circle they
//! approximate (the refinement that keeps a polygonal boundary on its arc, seed 001's meshes A–F).

use super::{sorted_pair, TriMesh};
use crate::MeshError;
use std::collections::HashMap;
use std::f64::consts::FRAC_PI_2;

/// A quarter annulus r ∈ [r_inner, r_outer], θ ∈ [0, π/2] about the origin, cut into `n_r` × `n_theta` cells of
/// equal Δr and Δθ, each cut into two triangles.
#[derive(Debug, Clone, Copy)]
pub struct QuarterAnnulusSpec {
    /// Inner radius.
    pub r_inner: f64,
    /// Outer radius.
    pub r_outer: f64,
    /// Cells across the radius.
    pub n_r: usize,
    /// Cells along the arc.
    pub n_theta: usize,
}

/// The boundary tags [`quarter_annulus`] gives its sides, in this order: the inner arc, the outer arc, the x axis
/// (y = 0) and the y axis (x = 0).
pub const QUARTER_ANNULUS_TAGS: [&str; 4] = ["inner", "outer", "bottom", "left"];

/// Builds the quarter annulus. Boundary tags: `inner` and `outer` (the arcs), `bottom` (θ = 0, on the x axis) and
/// `left` (θ = π/2, on the y axis). Vertices on the arcs lie exactly on the circles.
pub fn quarter_annulus(spec: &QuarterAnnulusSpec) -> Result<TriMesh, MeshError> {
    let QuarterAnnulusSpec { r_inner, r_outer, n_r, n_theta } = *spec;
    if n_r == 0 || n_theta == 0 {
        return Err(MeshError::Invalid(format!(
            "a quarter annulus needs at least one cell each way (got {n_r} × {n_theta})"
        )));
    }
    if !(r_inner.is_finite() && r_outer.is_finite() && r_inner > 0.0 && r_outer > r_inner) {
        return Err(MeshError::Invalid(format!("radii must satisfy 0 < r_inner < r_outer (got {r_inner}, {r_outer})")));
    }
    let id = |i: usize, j: usize| j * (n_r + 1) + i;
    let mut vertices = Vec::with_capacity((n_r + 1) * (n_theta + 1));
    for j in 0..=n_theta {
        let theta = FRAC_PI_2 * j as f64 / n_theta as f64;
        for i in 0..=n_r {
            let r = r_inner + (r_outer - r_inner) * i as f64 / n_r as f64;
            vertices.push([r * theta.cos(), r * theta.sin()]);
        }
    }
    let mut elements = Vec::with_capacity(2 * n_r * n_theta);
    for j in 0..n_theta {
        for i in 0..n_r {
            // counter-clockwise: increasing r, then increasing θ
            let (a, b, c, d) = (id(i, j), id(i + 1, j), id(i + 1, j + 1), id(i, j + 1));
            elements.push([a, b, c]);
            elements.push([a, c, d]);
        }
    }
    let tag_names: Vec<String> = QUARTER_ANNULUS_TAGS.iter().map(|s| s.to_string()).collect();
    let mut boundary_tags = HashMap::new();
    for j in 0..n_theta {
        boundary_tags.insert(sorted_pair(id(0, j), id(0, j + 1)), 0);
        boundary_tags.insert(sorted_pair(id(n_r, j), id(n_r, j + 1)), 1);
    }
    for i in 0..n_r {
        boundary_tags.insert(sorted_pair(id(i, 0), id(i + 1, 0)), 2);
        boundary_tags.insert(sorted_pair(id(i, n_theta), id(i + 1, n_theta)), 3);
    }
    TriMesh::new(vertices, elements, tag_names, boundary_tags, Vec::new())
}

/// Moves every vertex of the boundary faces tagged `tag` radially onto the circle of `radius` about `center`
/// (after a uniform refinement, the new edge midpoints lie on the chords; this puts them on the arc). Returns how
/// many vertices moved; an unknown tag moves none.
pub fn project_onto_circle(mesh: &mut TriMesh, tag: &str, center: [f64; 2], radius: f64) -> usize {
    let Some(t) = mesh.tag_index(tag) else { return 0 };
    let mut on_arc: Vec<usize> = mesh.boundary_tags.iter().filter(|(_, &g)| g == t).flat_map(|(k, _)| *k).collect();
    on_arc.sort_unstable();
    on_arc.dedup();
    for &v in &on_arc {
        let [x, y] = mesh.vertices[v];
        let (dx, dy) = (x - center[0], y - center[1]);
        let r = dx.hypot(dy);
        if r > 0.0 {
            mesh.vertices[v] = [center[0] + dx * radius / r, center[1] + dy * radius / r];
        }
    }
    on_arc.len()
}
