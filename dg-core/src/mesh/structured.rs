//! Structured triangulations of rectangles, optional periodicity, and random interior perturbation.

use super::{signed_area, sorted_pair, TriMesh};
use crate::MeshError;
use rand::{Rng, SeedableRng};
use std::collections::HashMap;

/// How each rectangle cell is cut into two triangles.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Diagonal {
    /// From the lower-left to the upper-right corner ("/").
    #[default]
    Right,
    /// From the upper-left to the lower-right corner ("\").
    Left,
    /// Alternating between the two in a checkerboard pattern.
    Alternating,
}

/// A structured triangulation of [x0, x1] × [y0, y1] with nx × ny cells.
#[derive(Debug, Clone, Copy)]
pub struct RectangleSpec {
    /// Lower-left corner.
    pub lower: [f64; 2],
    /// Upper-right corner.
    pub upper: [f64; 2],
    /// Cells in x.
    pub nx: usize,
    /// Cells in y.
    pub ny: usize,
    /// Diagonal choice.
    pub diagonal: Diagonal,
    /// Pair the left and right sides periodically.
    pub periodic_x: bool,
    /// Pair the bottom and top sides periodically.
    pub periodic_y: bool,
}

impl RectangleSpec {
    /// The unit square with n × n cells, "/" diagonals, no periodicity.
    pub fn unit_square(n: usize) -> Self {
        Self {
            lower: [0.0, 0.0],
            upper: [1.0, 1.0],
            nx: n,
            ny: n,
            diagonal: Diagonal::Right,
            periodic_x: false,
            periodic_y: false,
        }
    }
}

/// Builds the structured triangulation. Boundary tags: `bottom`, `right`, `top`, `left` (sides that are paired
/// periodically carry no tag).
pub fn rectangle(spec: &RectangleSpec) -> Result<TriMesh, MeshError> {
    let RectangleSpec { lower, upper, nx, ny, diagonal, periodic_x, periodic_y } = *spec;
    if nx == 0 || ny == 0 {
        return Err(MeshError::Invalid(format!("a rectangle needs at least one cell per direction (got {nx} × {ny})")));
    }
    for (cells, periodic, axis) in [(nx, periodic_x, "x"), (ny, periodic_y, "y")] {
        if periodic && cells < super::MIN_PERIODIC_CELLS {
            return Err(MeshError::Invalid(format!(
                "a rectangle periodic in {axis} needs at least {} cells across (got {cells}): with fewer, two edges \
                 of the mesh join the same pair of vertices",
                super::MIN_PERIODIC_CELLS
            )));
        }
    }
    let finite = lower.iter().chain(&upper).all(|v| v.is_finite());
    if !(finite && upper[0] > lower[0] && upper[1] > lower[1]) {
        return Err(MeshError::Invalid(format!("empty or non-finite rectangle {lower:?}–{upper:?}")));
    }
    let id = |i: usize, j: usize| j * (nx + 1) + i;
    let mut vertices = Vec::with_capacity((nx + 1) * (ny + 1));
    for j in 0..=ny {
        for i in 0..=nx {
            let x = lower[0] + (upper[0] - lower[0]) * i as f64 / nx as f64;
            let y = lower[1] + (upper[1] - lower[1]) * j as f64 / ny as f64;
            vertices.push([x, y]);
        }
    }
    let mut elements = Vec::with_capacity(2 * nx * ny);
    for j in 0..ny {
        for i in 0..nx {
            let (a, b, c, d) = (id(i, j), id(i + 1, j), id(i + 1, j + 1), id(i, j + 1));
            let right = match diagonal {
                Diagonal::Right => true,
                Diagonal::Left => false,
                Diagonal::Alternating => (i + j) % 2 == 0,
            };
            if right {
                elements.push([a, b, c]);
                elements.push([a, c, d]);
            } else {
                elements.push([a, b, d]);
                elements.push([b, c, d]);
            }
        }
    }
    let tag_names: Vec<String> = ["bottom", "right", "top", "left"].iter().map(|s| s.to_string()).collect();
    let mut boundary_tags = HashMap::new();
    for i in 0..nx {
        if !periodic_y {
            boundary_tags.insert(sorted_pair(id(i, 0), id(i + 1, 0)), 0);
            boundary_tags.insert(sorted_pair(id(i, ny), id(i + 1, ny)), 2);
        }
    }
    for j in 0..ny {
        if !periodic_x {
            boundary_tags.insert(sorted_pair(id(nx, j), id(nx, j + 1)), 1);
            boundary_tags.insert(sorted_pair(id(0, j), id(0, j + 1)), 3);
        }
    }
    let mut mesh = TriMesh::new(vertices, elements, tag_names, boundary_tags, Vec::new())?;
    if periodic_x || periodic_y {
        let mut canon: Vec<usize> = (0..mesh.vertices.len()).collect();
        for j in 0..=ny {
            for i in 0..=nx {
                let ci = if periodic_x && i == nx { 0 } else { i };
                let cj = if periodic_y && j == ny { 0 } else { j };
                canon[id(i, j)] = id(ci, cj);
            }
        }
        mesh.periodic_vertex = Some(canon);
    }
    mesh.lattice = Some(crate::lattice::CellLattice {
        cells: [nx, ny, 1],
        periodic: [periodic_x, periodic_y, false],
        per_cell: 2,
    });
    Ok(mesh)
}

/// Moves every interior vertex by a random offset of at most `fraction` times its shortest incident edge,
/// keeping every element's area at least a quarter of what it was. Boundary and periodic vertices stay.
/// Deterministic for a given `seed`.
pub fn perturb_interior(mesh: &mut TriMesh, fraction: f64, seed: u64) {
    let nv = mesh.vertices.len();
    let mut fixed = vec![false; nv];
    for key in mesh.boundary_tags.keys() {
        fixed[key[0]] = true;
        fixed[key[1]] = true;
    }
    if let Some(canon) = &mesh.periodic_vertex {
        for (v, &c) in canon.iter().enumerate() {
            if c != v {
                fixed[v] = true;
                fixed[c] = true;
            }
        }
    }
    let mut incident: Vec<Vec<usize>> = vec![Vec::new(); nv];
    let mut shortest = vec![f64::INFINITY; nv];
    for (k, e) in mesh.elements.iter().enumerate() {
        for f in 0..3 {
            incident[e[f]].push(k);
            let len = super::dist(mesh.vertices[e[f]], mesh.vertices[e[(f + 1) % 3]]);
            shortest[e[f]] = shortest[e[f]].min(len);
            shortest[e[(f + 1) % 3]] = shortest[e[(f + 1) % 3]].min(len);
        }
    }
    // a vertex on an untagged (open) boundary face must stay too
    let mut face_count: HashMap<[usize; 2], usize> = HashMap::new();
    for e in &mesh.elements {
        for f in 0..3 {
            *face_count
                .entry(sorted_pair(mesh.canonical_vertex(e[f]), mesh.canonical_vertex(e[(f + 1) % 3])))
                .or_default() += 1;
        }
    }
    for (key, count) in face_count {
        if count == 1 {
            fixed[key[0]] = true;
            fixed[key[1]] = true;
        }
    }
    let original: Vec<f64> = (0..mesh.elements.len()).map(|k| mesh.area(k)).collect();
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    for v in 0..nv {
        if fixed[v] || incident[v].is_empty() {
            continue;
        }
        let old = mesh.vertices[v];
        let amp = fraction * shortest[v];
        let candidate = [old[0] + amp * rng.random_range(-1.0..1.0), old[1] + amp * rng.random_range(-1.0..1.0)];
        mesh.vertices[v] = candidate;
        let ok = incident[v].iter().all(|&k| signed_area(&mesh.vertices, &mesh.elements[k]) >= 0.25 * original[k]);
        if !ok {
            mesh.vertices[v] = old;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{rectangle, Diagonal, RectangleSpec};
    use crate::mesh::Connectivity;

    /// A periodic direction of fewer than three cells would give a non-manifold mesh (two edges on one pair of
    /// vertices): refused with the reason; three cells connect, for every diagonal.
    #[test]
    fn a_periodic_direction_takes_at_least_three_cells() {
        for diagonal in [Diagonal::Right, Diagonal::Left, Diagonal::Alternating] {
            for (nx, ny, periodic_x, periodic_y) in [(2, 4, true, false), (4, 1, false, true), (2, 2, true, true)] {
                let spec = RectangleSpec { nx, ny, periodic_x, periodic_y, diagonal, ..RectangleSpec::unit_square(1) };
                let message = rectangle(&spec).expect_err("refused").to_string();
                assert!(message.contains("at least 3 cells"), "{message}");
            }
            for (nx, ny, periodic_x, periodic_y) in [(3, 2, true, false), (1, 3, false, true), (3, 3, true, true)] {
                let spec = RectangleSpec { nx, ny, periodic_x, periodic_y, diagonal, ..RectangleSpec::unit_square(1) };
                let mesh = rectangle(&spec).expect("a mesh");
                assert!(Connectivity::build(&mesh).is_ok(), "{nx} × {ny} {diagonal:?}");
            }
        }
    }
}
