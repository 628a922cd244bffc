//! Whether a case's exact solution holds on a mesh read from a file and with the boundary conditions given. A case
//! with an exact solution lives on its own rectangle, box or annulus (with its walls or periodic sides) under its own
//! boundary conditions; on a mesh of another domain — a hole cut out, another box, a wall where the case is periodic
//! — or with a `--bc` that changes a condition, a run would print an error against a solution of another problem as
//! if it measured the scheme, so such a mesh or binding is refused with what the case needs.

use anyhow::bail;
use dg_cases::euler::{EulerCase, ExactDomain};
use dg_core::hexmesh::{det3, HexMesh};
use dg_core::mesh::{Connectivity, FaceLink, TriMesh, QUARTER_ANNULUS_TAGS};
use dg_core::mesh3d::TetMesh;
use std::collections::HashMap;
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

/// Refuses any mesh from a file for a case periodic in some direction (a file has walls there), and `file`'s mesh
/// (`found`) unless it covers the box `lower`..`upper` of `case`'s exact solution.
fn ensure_covers<const D: usize>(
    case: &str,
    file: &Path,
    found: Extent<D>,
    lower: [f64; D],
    upper: [f64; D],
    periodic: [bool; D],
) -> anyhow::Result<()> {
    if periodic.iter().any(|&p| p) {
        let axes: Vec<&str> = ["x", "y", "z"].iter().zip(periodic).filter(|(_, p)| *p).map(|(a, _)| *a).collect();
        bail!(
            "{case}'s exact solution is periodic in {}, and a mesh read from a file ({}) has walls there: run it \
             on the case's own box (--nx)",
            axes.join(", "),
            file.display()
        );
    }
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

/// A triangle mesh from `file` for the Euler case `case`, refused where the case has an exact solution and the mesh
/// is of another domain than the one it holds on.
pub fn ensure_euler_triangles(case: &dyn EulerCase, file: &Path, mesh: &TriMesh) -> anyhow::Result<()> {
    if !case.has_exact() {
        return Ok(());
    }
    match case.exact_domain() {
        ExactDomain::OwnMesh => ensure_triangles(case.name(), file, mesh, &case.default_mesh(case.default_cells())?),
        ExactDomain::QuarterAnnulus { r_inner, r_outer } => {
            ensure_quarter_annulus(case.name(), file, mesh, r_inner, r_outer)
        }
    }
}

/// Refuses `file`'s mesh (`mesh`) unless it meshes the quarter annulus r ∈ [`r_inner`, `r_outer`], x, y ≥ 0: every
/// vertex in it, and both ends of every boundary edge (an edge of one element) on one of its four sides — so no
/// hole, no part of the annulus left out, no other domain — tagged with that side's name in
/// [`QUARTER_ANNULUS_TAGS`], by which the case binds its conditions.
fn ensure_quarter_annulus(case: &str, file: &Path, mesh: &TriMesh, r_inner: f64, r_outer: f64) -> anyhow::Result<()> {
    let tolerance = TOLERANCE * r_outer;
    let radius = |v: usize| mesh.vertices[v][0].hypot(mesh.vertices[v][1]);
    let sides = |v: usize| -> [bool; 4] {
        let ([x, y], r) = (mesh.vertices[v], radius(v));
        [(r - r_inner).abs() <= tolerance, (r - r_outer).abs() <= tolerance, y.abs() <= tolerance, x.abs() <= tolerance]
    };
    let wanted = format!("the quarter annulus {r_inner} ≤ r ≤ {r_outer}, x ≥ 0, y ≥ 0");
    // (a NaN coordinate fails every comparison, so it is outside)
    let inside = |v: usize| {
        let ([x, y], r) = (mesh.vertices[v], radius(v));
        x >= -tolerance && y >= -tolerance && r >= r_inner - tolerance && r <= r_outer + tolerance
    };
    if let Some(v) = (0..mesh.vertices.len()).find(|&v| !inside(v)) {
        bail!(
            "{case}'s exact solution holds on {wanted}; mesh {} has a vertex at ({}, {}), outside it: another \
             domain, on which an error against that solution would measure nothing. Mesh that domain, or run the case \
             on its own mesh (--nx)",
            file.display(),
            mesh.vertices[v][0],
            mesh.vertices[v][1]
        );
    }
    // the boundary edges as the solver will see them (the mesh's face matching, in element order)
    let links = Connectivity::build(mesh)?.links;
    let boundary = links.iter().zip(&mesh.elements).flat_map(|(faces, e)| {
        (0..3).filter_map(move |f| match faces[f] {
            FaceLink::Boundary { tag } => Some(([e[f], e[(f + 1) % 3]], tag)),
            FaceLink::Interior { .. } => None,
        })
    });
    let sides_named =
        [format!("the arc r = {r_inner}"), format!("the arc r = {r_outer}"), "the x axis".into(), "the y axis".into()];
    for ([a, b], tag) in boundary {
        let (sa, sb) = (sides(a), sides(b));
        let on = |s: usize| sa[s] && sb[s];
        let [xa, ya] = mesh.vertices[a];
        let [xb, yb] = mesh.vertices[b];
        let Some(side) = (0..4).find(|&s| on(s)) else {
            bail!(
                "{case}'s exact solution holds on {wanted}; mesh {} has a boundary edge from ({xa}, {ya}) to ({xb}, \
                 {yb}) on none of its sides (its arcs, the x axis, the y axis): a hole or a part left out, on which an \
                 error against that solution would measure nothing. Mesh that domain, or run the case on its own mesh \
                 (--nx)",
                file.display()
            );
        };
        // the case binds its conditions (the walls, the inflow it prescribes, the outflow) to the names its own mesh
        // gives the sides: a side named otherwise would take another condition, or none, and the run would solve
        // another problem than the one its exact solution is of
        let name = mesh.tag_names.get(tag).map_or("", String::as_str);
        if !(0..4).any(|s| on(s) && QUARTER_ANNULUS_TAGS[s] == name) {
            let named: Vec<String> =
                (0..4).map(|s| format!("`{}` on {}", QUARTER_ANNULUS_TAGS[s], sides_named[s])).collect();
            bail!(
                "{case} binds its boundary conditions to the names its own mesh gives the sides: {}; mesh {} tags \
                 the boundary edge from ({xa}, {ya}) to ({xb}, {yb}), on {}, `{name}`, so a run would solve another \
                 problem than the one its exact solution is of. Name that side's physical group `{}`, or run the case \
                 on its own mesh (--nx)",
                named.join(", "),
                file.display(),
                sides_named[side],
                QUARTER_ANNULUS_TAGS[side]
            );
        }
    }
    Ok(())
}

/// Refuses a `--bc TAG=CONDITION` (`explicit`) that gives a tag another condition than `case`'s exact solution
/// assumes there: `own` is the case's tag → condition; a tag the case does not name (a mesh file's) may take only
/// the condition the case gives all its boundaries, where it gives one (where it gives several, which one a file's
/// tag stands for cannot be told, and any of them is taken).
pub fn ensure_exact_conditions(
    case: &str,
    own: &HashMap<String, String>,
    explicit: &[(String, String)],
) -> anyhow::Result<()> {
    let mut used: Vec<&str> = own.values().map(String::as_str).collect();
    used.sort_unstable();
    used.dedup();
    for (tag, condition) in explicit {
        let assumed = match own.get(tag) {
            Some(c) => Some(c.as_str()),
            None if used.len() == 1 => Some(used[0]),
            None => None,
        };
        if let Some(assumed) = assumed.filter(|&c| c != condition) {
            let whose = if own.contains_key(tag) { "there" } else { "on all its boundaries" };
            bail!(
                "--bc {tag}={condition}: {case}'s exact solution assumes `{assumed}` {whose}, so a run would report an \
                 error against the solution of another problem; give {tag} the condition `{assumed}`, or leave it to \
                 the case"
            );
        }
        if !used.is_empty() && !used.contains(&condition.as_str()) {
            bail!(
                "--bc {tag}={condition}: {case}'s exact solution assumes the conditions {used:?} on its boundaries, \
                 so a run would report an error against the solution of another problem"
            );
        }
    }
    Ok(())
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
    fn the_supersonic_vortex_takes_its_quarter_annulus_and_nothing_else() {
        use dg_cases::euler::SupersonicVortex;
        use dg_core::mesh::{quarter_annulus, QuarterAnnulusSpec};
        let file = Path::new("a.msh");
        let annulus = |r_outer, n_theta| {
            quarter_annulus(&QuarterAnnulusSpec { r_inner: 1.0, r_outer, n_r: 3, n_theta }).expect("a mesh")
        };
        let own = annulus(1.384, 7);
        assert!(ensure_euler_triangles(&SupersonicVortex, file, &own).is_ok());
        // a hole: one element fewer in the middle of the mesh (its three edges become boundary edges)
        let mut holed = own.clone();
        holed.elements.remove(3 * 2 * 3 + 2);
        let err = ensure_euler_triangles(&SupersonicVortex, file, &holed).unwrap_err().to_string();
        assert!(err.contains("on none of its sides"), "{err}");
        // a thinner annulus: its outer arc is inside
        let err = ensure_euler_triangles(&SupersonicVortex, file, &annulus(1.3, 7)).unwrap_err().to_string();
        assert!(err.contains("holds on the quarter annulus 1 ≤ r ≤ 1.384"), "{err}");
        // a wider one has vertices outside
        let err = ensure_euler_triangles(&SupersonicVortex, file, &annulus(1.5, 7)).unwrap_err().to_string();
        assert!(err.contains("has a vertex at"), "{err}");
        // half of it (θ ≤ π/4): its edge on θ = π/4 is on none of the sides
        let mut half = own.clone();
        half.elements.retain(|e| e.iter().all(|&v| half.vertices[v][1] <= half.vertices[v][0] + 1e-12));
        assert!(!half.elements.is_empty());
        let half = TriMesh::new(half.vertices, half.elements, Vec::new(), HashMap::new(), Vec::new()).expect("a mesh");
        assert!(ensure_euler_triangles(&SupersonicVortex, file, &half).is_err());
    }

    #[test]
    fn the_periodic_vortex_takes_no_mesh_file() {
        use dg_cases::euler::{DoubleMach, IsentropicVortex};
        let square = rectangle(&RectangleSpec { upper: [20.0, 20.0], ..RectangleSpec::unit_square(4) });
        let err = ensure_euler_triangles(&IsentropicVortex, Path::new("v.msh"), &square.expect("a mesh"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("is periodic in x, y"), "{err}");
        // no exact solution: any mesh
        assert!(ensure_euler_triangles(&DoubleMach, Path::new("v.msh"), &unit_square(2)).is_ok());
    }

    #[test]
    fn a_binding_must_keep_the_conditions_the_exact_solution_assumes() {
        let pairs = |list: &[(&str, &str)]| -> Vec<(String, String)> {
            list.iter().map(|(t, c)| (t.to_string(), c.to_string())).collect()
        };
        let map = |list: &[(&str, &str)]| -> HashMap<String, String> { pairs(list).into_iter().collect() };
        let cube = map(&[("xmin", "wall"), ("xmax", "wall")]);
        assert!(ensure_exact_conditions("c", &cube, &pairs(&[("xmin", "wall"), ("boundary", "wall")])).is_ok());
        let err = ensure_exact_conditions("c", &cube, &pairs(&[("xmin", "free")])).unwrap_err().to_string();
        assert!(err.contains("--bc xmin=free: c's exact solution assumes `wall` there"), "{err}");
        // a file's tag: the one condition the case gives every boundary
        let err = ensure_exact_conditions("c", &cube, &pairs(&[("boundary", "free")])).unwrap_err().to_string();
        assert!(err.contains("assumes `wall` on all its boundaries"), "{err}");
        // several conditions: a file's tag takes any of them, and no other
        let layers = map(&[("xmin", "absorbing"), ("ymin", "wall")]);
        assert!(ensure_exact_conditions("c", &layers, &pairs(&[("side", "wall"), ("end", "absorbing")])).is_ok());
        let err = ensure_exact_conditions("c", &layers, &pairs(&[("side", "free")])).unwrap_err().to_string();
        assert!(err.contains("assumes the conditions [\"absorbing\", \"wall\"]"), "{err}");
        assert!(ensure_exact_conditions("c", &layers, &pairs(&[("ymin", "absorbing")])).is_err());
        // a periodic case names no tag: nothing to compare (its mesh has no boundary)
        assert!(ensure_exact_conditions("c", &HashMap::new(), &pairs(&[("any", "wall")])).is_ok());
    }

    #[test]
    fn a_nan_coordinate_is_not_a_match() {
        let mut bad = unit_square(2);
        bad.vertices[4][0] = f64::NAN;
        assert!(ensure_triangles("c", Path::new("m.msh"), &bad, &unit_square(1)).is_err());
    }
}
