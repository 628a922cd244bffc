//! Woodward & Colella's double Mach reflection as in seed 001: a Mach 10 shock meets a 30° wedge, modelled on
//! [0, 4] × [0, 1] with the wedge starting at x = 1/6 on the bottom side and the shock inclined at 60°.

use super::{conserved, EulerCase};
use dg_core::mesh::{rectangle, Diagonal, RectangleSpec, TriMesh};
use dg_core::MeshError;
use dg_modal_tri::cpu::GhostRule;
use dg_runtime::time::Scheme;
use std::collections::HashMap;
use std::sync::Arc;

/// The double Mach reflection problem.
#[derive(Debug, Clone, Copy)]
pub struct DoubleMach;

/// Where the wedge begins on the bottom side.
const WEDGE_X: f64 = 1.0 / 6.0;

/// The shock's state at (x, y, t): post-shock (ρ = 8, speed 8.25 at −30°, p = 116.5) behind the line
/// x = 1/6 + (y + 20t)/√3, pre-shock (ρ = 1.4, at rest, p = 1) ahead of it.
pub fn double_mach_state(x: f64, y: f64, t: f64) -> [f64; 4] {
    if x < WEDGE_X + (y + 20.0 * t) / 3f64.sqrt() {
        let angle = std::f64::consts::PI / 6.0;
        conserved(8.0, 8.25 * angle.cos(), -8.25 * angle.sin(), 116.5)
    } else {
        conserved(1.4, 0.0, 0.0, 1.0)
    }
}

impl EulerCase for DoubleMach {
    fn name(&self) -> &'static str {
        "euler-double-mach"
    }
    fn description(&self) -> &'static str {
        "Euler: double Mach reflection, Mach 10 shock on a wedge, p = 1 with the limiter (no exact solution)"
    }
    /// n cells in y and 4n in x; n must be a multiple of 6 so that x = 1/6 is a grid line.
    fn default_mesh(&self, n: usize) -> Result<TriMesh, MeshError> {
        if !n.is_multiple_of(6) {
            return Err(MeshError::Invalid(format!("double Mach takes a multiple of 6 cells in y (got {n})")));
        }
        let mut mesh = rectangle(&RectangleSpec {
            lower: [0.0, 0.0],
            upper: [4.0, 1.0],
            nx: 4 * n,
            ny: n,
            diagonal: Diagonal::Alternating,
            periodic_x: false,
            periodic_y: false,
        })?;
        // the bottom side ahead of the wedge is post-shock inflow: give it a tag of its own
        let bottom = mesh.tag_index("bottom").expect("rectangles tag their bottom side");
        let ahead = mesh.tag_names.len();
        mesh.tag_names.push("bottom_ahead".to_string());
        for (key, tag) in mesh.boundary_tags.iter_mut() {
            let mid_x = 0.5 * (mesh.vertices[key[0]][0] + mesh.vertices[key[1]][0]);
            if *tag == bottom && mid_x < WEDGE_X {
                *tag = ahead;
            }
        }
        Ok(mesh)
    }
    fn default_cells(&self) -> usize {
        12
    }
    fn default_t_end(&self) -> f64 {
        0.2
    }
    fn default_order(&self) -> usize {
        1
    }
    fn default_flux(&self) -> &'static str {
        "numerical_flux"
    }
    fn default_scheme(&self) -> (Scheme, f64) {
        (Scheme::Rk2, 0.7)
    }
    fn default_limiter(&self) -> bool {
        true
    }
    fn law_conditions(&self) -> HashMap<String, String> {
        [("bottom", "wall"), ("right", "extrapolate")]
            .into_iter()
            .map(|(t, c)| (t.to_string(), c.to_string()))
            .collect()
    }
    fn ghost_rules(&self) -> HashMap<String, GhostRule> {
        let shock = Arc::new(|x: f64, y: f64, t: f64, q: &mut [f64]| q.copy_from_slice(&double_mach_state(x, y, t)));
        ["left", "bottom_ahead", "top"]
            .into_iter()
            .map(|t| (t.to_string(), GhostRule::Prescribed(shock.clone())))
            .collect()
    }
    fn initial(&self, x: f64, y: f64, q: &mut [f64]) {
        q.copy_from_slice(&double_mach_state(x, y, 0.0));
    }
    fn has_exact(&self) -> bool {
        false
    }
}
