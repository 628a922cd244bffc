//! Affine geometric factors of straight-sided triangles.
//!
//! The map from the reference triangle is x = −(r+s)/2 · x₀ + (1+r)/2 · x₁ + (1+s)/2 · x₂.

use super::TriMesh;

/// Metric terms of one element: ∂(r,s)/∂(x,y) and the Jacobian J = |∂(x,y)/∂(r,s)|.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ElementGeometry {
    /// ∂r/∂x.
    pub rx: f64,
    /// ∂r/∂y.
    pub ry: f64,
    /// ∂s/∂x.
    pub sx: f64,
    /// ∂s/∂y.
    pub sy: f64,
    /// Volume Jacobian (physical area / reference area 2).
    pub j: f64,
}

/// One face of one element: outward unit normal, surface Jacobian, and Fscale = sJ / J.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FaceGeometry {
    /// Outward unit normal, x.
    pub nx: f64,
    /// Outward unit normal, y.
    pub ny: f64,
    /// Surface Jacobian (physical face length / 2).
    pub sj: f64,
    /// sJ / J, the factor on the lifted face terms.
    pub fscale: f64,
}

impl ElementGeometry {
    /// Geometric factors of element `k`, and of its three faces.
    pub fn of_element(mesh: &TriMesh, k: usize) -> (Self, [FaceGeometry; 3]) {
        let e = mesh.elements[k];
        let [p0, p1, p2] = [mesh.vertices[e[0]], mesh.vertices[e[1]], mesh.vertices[e[2]]];
        let (xr, yr) = (0.5 * (p1[0] - p0[0]), 0.5 * (p1[1] - p0[1]));
        let (xs, ys) = (0.5 * (p2[0] - p0[0]), 0.5 * (p2[1] - p0[1]));
        let j = xr * ys - xs * yr;
        let geo = Self { rx: ys / j, ry: -xs / j, sx: -yr / j, sy: xr / j, j };
        let raw = [(yr, -xr), (ys - yr, xr - xs), (-ys, xs)];
        let faces = raw.map(|(nx, ny)| {
            let sj = (nx * nx + ny * ny).sqrt();
            FaceGeometry { nx: nx / sj, ny: ny / sj, sj, fscale: sj / j }
        });
        (geo, faces)
    }
}
