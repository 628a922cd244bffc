//! Affine geometric factors of straight-sided tetrahedra (Hesthaven & Warburton, `GeometricFactors3D`,
//! `Normals3D`).
//!
//! The map from the reference tetrahedron is x = −(1+r+s+t)/2 · x₀ + (1+r)/2 · x₁ + (1+s)/2 · x₂ + (1+t)/2 · x₃.

use super::TetMesh;

/// Metric terms of one element: ∂(r,s,t)/∂(x,y,z) row by row and the Jacobian J = |∂(x,y,z)/∂(r,s,t)|.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TetGeometry {
    /// [[rx, ry, rz], [sx, sy, sz], [tx, ty, tz]].
    pub metric: [[f64; 3]; 3],
    /// Volume Jacobian (physical volume / reference volume 4/3).
    pub j: f64,
}

/// One face of one element: outward unit normal, surface Jacobian, and Fscale = sJ / J.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TetFaceGeometry {
    /// Outward unit normal.
    pub n: [f64; 3],
    /// Surface Jacobian (relative to the face's two reference coordinates).
    pub sj: f64,
    /// sJ / J, the factor on the lifted face terms.
    pub fscale: f64,
}

impl TetGeometry {
    /// Geometric factors of element `k`, and of its four faces.
    pub fn of_element(mesh: &TetMesh, k: usize) -> (Self, [TetFaceGeometry; 4]) {
        let [p0, p1, p2, p3] = mesh.elements[k].map(|v| mesh.vertices[v]);
        // columns of ∂x/∂(r,s,t)
        let xr: [f64; 3] = std::array::from_fn(|d| 0.5 * (p1[d] - p0[d]));
        let xs: [f64; 3] = std::array::from_fn(|d| 0.5 * (p2[d] - p0[d]));
        let xt: [f64; 3] = std::array::from_fn(|d| 0.5 * (p3[d] - p0[d]));
        let cross = |a: [f64; 3], b: [f64; 3]| {
            [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
        };
        let dot = |a: [f64; 3], b: [f64; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
        let j = dot(xr, cross(xs, xt));
        // rows of the inverse: ∇r = (xs × xt)/J, ∇s = (xt × xr)/J, ∇t = (xr × xs)/J
        let metric = [cross(xs, xt), cross(xt, xr), cross(xr, xs)].map(|row| row.map(|v| v / j));
        let [gr, gs, gt] = metric;
        let raw = [gt.map(|v| -v), gs.map(|v| -v), std::array::from_fn(|d| gr[d] + gs[d] + gt[d]), gr.map(|v| -v)];
        let faces = raw.map(|n| {
            let norm = dot(n, n).sqrt();
            let sj = norm * j;
            TetFaceGeometry { n: n.map(|v| v / norm), sj, fscale: sj / j }
        });
        (Self { metric, j }, faces)
    }
}
