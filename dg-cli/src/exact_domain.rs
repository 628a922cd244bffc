//! Whether a case's exact solution holds on a mesh read from a file. A case with an exact solution lives on its own
//! rectangle or box (with its walls or periodic sides); on a mesh of another domain — a hole cut out, another box, a
//! wall where the case is periodic — a run would print an error against a solution of another problem as if it
//! measured the scheme, so such a mesh is refused with what it covers and what the case needs.

use anyhow::bail;
use dg_core::hexmesh::{det3, HexMesh};
use dg_core::mesh::TriMesh;
use dg_core::mesh3d::TetMesh;
use std::path::Path;

/// Relative tolerance of the comparison (a Gmsh file's coordinates carry about 16 digits).
const TOLERANCE: f64 = 1e-8;

/// What a mesh covers: its bounding box and its area or volume.
struct Extent<const D: usize> {
    lower: [f64; D],
    upper: [f64; D],
    measure: f64,
}

impl<const D: usize> Extent<D> {
    fn of(vertices: &[[f64; D]], measure: f64) -> Self {
        let mut lower = [f64::INFINITY; D];
        let mut upper = [f64::NEG_INFINITY; D];
        for v in vertices {
            for d in 0..D {
                lower[d] = lower[d].min(v[d]);
                upper[d] = upper[d].max(v[d]);
            }
        }
        Self { lower, upper, measure }
    }

    fn describe(&self) -> String {
        let spans: Vec<String> = (0..D).map(|d| format!("[{}, {}]", self.lower[d], self.upper[d])).collect();
        format!("{} ({} {:.6})", spans.join(" × "), if D == 2 { "area" } else { "volume" }, self.measure)
    }
}

/// Refuses `file`'s mesh (`found`) unless it covers the box `lower`..`upper` of `case`'s exact solution, and any
/// mesh from a file for a case periodic in some direction (a file has walls there).
fn ensure_covers<const D: usize>(
    case: &str,
    file: &Path,
    found: Extent<D>,
    lower: [f64; D],
    upper: [f64; D],
    periodic: [bool; D],
) -> anyhow::Result<()> {
    let wanted = Extent { lower, upper, measure: (0..D).map(|d| upper[d] - lower[d]).product() };
    let size = (0..D).map(|d| upper[d] - lower[d]).fold(0.0, f64::max);
    let corners_match = (0..D).all(|d| {
        (found.lower[d] - lower[d]).abs() <= TOLERANCE * size && (found.upper[d] - upper[d]).abs() <= TOLERANCE * size
    });
    let measure_matches = (found.measure - wanted.measure).abs() <= TOLERANCE * wanted.measure;
    // (a NaN coordinate makes the measure NaN, which fails its comparison)
    if !(corners_match && measure_matches) {
        bail!(
            "{case}'s exact solution holds on {}; mesh {} covers {}: another domain (a hole, another box), on which \
             an error against that solution would measure nothing. Mesh that domain, or run a case without an exact \
             solution (`dg cases`)",
            wanted.describe(),
            file.display(),
            found.describe()
        );
    }
    if periodic.iter().any(|&p| p) {
        let axes: Vec<&str> = ["x", "y", "z"].iter().zip(periodic).filter(|(_, p)| *p).map(|(a, _)| *a).collect();
        bail!(
            "{case}'s exact solution is periodic in {}, and a mesh read from a file ({}) has walls there: run it \
             on the case's own box (--nx)",
            axes.join(", "),
            file.display()
        );
    }
    Ok(())
}

/// A triangle mesh from `file` for `case`, whose exact solution holds on the rectangle of `own` (its structured
/// mesh: any resolution).
pub fn ensure_triangles(case: &str, file: &Path, mesh: &TriMesh, own: &TriMesh) -> anyhow::Result<()> {
    let area = |m: &TriMesh| (0..m.num_elements()).map(|k| m.area(k)).sum::<f64>();
    let own_extent = Extent::of(&own.vertices, area(own));
    // the directions in which the case's mesh identifies vertices with others
    let mut periodic = [false; 2];
    for (i, &r) in own.periodic_vertex.iter().flatten().enumerate() {
        for (d, p) in periodic.iter_mut().enumerate() {
            *p |= (own.vertices[i][d] - own.vertices[r][d]).abs() > 0.0;
        }
    }
    ensure_covers(case, file, Extent::of(&mesh.vertices, area(mesh)), own_extent.lower, own_extent.upper, periodic)
}

/// A tetrahedral mesh from `file` for `case`, whose exact solution holds on the box `lower`..`upper`.
pub fn ensure_tetrahedra(
    case: &str,
    file: &Path,
    mesh: &TetMesh,
    (lower, upper, periodic): ([f64; 3], [f64; 3], [bool; 3]),
) -> anyhow::Result<()> {
    let volume = (0..mesh.num_elements()).map(|k| mesh.volume(k)).sum::<f64>();
    ensure_covers(case, file, Extent::of(&mesh.vertices, volume), lower, upper, periodic)
}

/// A hexahedral mesh from `file` for `case`, whose exact solution holds on the box `lower`..`upper`.
pub fn ensure_hexahedra(
    case: &str,
    file: &Path,
    mesh: &HexMesh,
    (lower, upper, periodic): ([f64; 3], [f64; 3], [bool; 3]),
) -> anyhow::Result<()> {
    // each trilinear cell's volume by the 2-point Gauss rule per direction (exact: the Jacobian's determinant has
    // degree 2 in each reference coordinate)
    let g = [0.5 - 0.5 / 3f64.sqrt(), 0.5 + 0.5 / 3f64.sqrt()];
    let volume = (0..mesh.elements.len())
        .map(|k| {
            let mut v = 0.0;
            for a in g {
                for b in g {
                    for c in g {
                        v += det3(&mesh.jacobian(k, [a, b, c])) / 8.0;
                    }
                }
            }
            v
        })
        .sum::<f64>();
    ensure_covers(case, file, Extent::of(&mesh.vertices, volume), lower, upper, periodic)
}

#[cfg(test)]
mod tests {
    use super::*;
    use dg_core::mesh::{rectangle, RectangleSpec};

    fn unit_square(n: usize) -> TriMesh {
        rectangle(&RectangleSpec::unit_square(n)).expect("a mesh")
    }

    #[test]
    fn the_own_domain_passes_and_a_hole_another_box_or_a_periodic_case_do_not() {
        let file = Path::new("m.msh");
        assert!(ensure_triangles("c", file, &unit_square(3), &unit_square(1)).is_ok());
        // one triangle fewer: a hole of the same bounding box
        let mut holed = unit_square(3);
        holed.elements.pop();
        let err = ensure_triangles("c", file, &holed, &unit_square(1)).unwrap_err().to_string();
        assert!(err.contains("c's exact solution holds on [0, 1] × [0, 1] (area 1.000000)"), "{err}");
        assert!(err.contains("area 0.944444"), "{err}");
        // the same area elsewhere
        let mut shifted = unit_square(2);
        shifted.vertices.iter_mut().for_each(|v| v[0] += 0.5);
        assert!(ensure_triangles("c", file, &shifted, &unit_square(1)).is_err());
        let own = rectangle(&RectangleSpec { periodic_x: true, ..RectangleSpec::unit_square(3) }).expect("a mesh");
        let err = ensure_triangles("c", file, &unit_square(2), &own).unwrap_err().to_string();
        assert!(err.contains("c's exact solution is periodic in x, and a mesh read from a file"), "{err}");
    }

    #[test]
    fn a_nan_coordinate_is_not_a_match() {
        let mut bad = unit_square(2);
        bad.vertices[4][0] = f64::NAN;
        assert!(ensure_triangles("c", Path::new("m.msh"), &bad, &unit_square(1)).is_err());
    }
}
