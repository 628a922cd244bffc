//! Seed 001's supersonic vortex: steady isentropic flow between two circular walls, r ∈ [1, 1.384], inner Mach
//! number 2.25, on the quarter annulus in the first quadrant. Inflow (the exact state) on the y axis, supersonic
//! outflow on the x axis, curved reflecting walls (Krivodonova–Berger) on both arcs.

use super::{conserved, EulerCase, ExactDomain, GAMMA};
use dg_core::mesh::{project_onto_circle, quarter_annulus, refine_uniform, QuarterAnnulusSpec, TriMesh};
use dg_core::MeshError;
use dg_modal_tri::cpu::GhostRule;
use dg_runtime::time::Scheme;
use std::collections::HashMap;
use std::sync::Arc;

/// The vortex of seed 001 (r_i = 1, r_o = 1.384, M_i = 2.25, ρ_i = 1).
#[derive(Debug, Clone, Copy)]
pub struct SupersonicVortex;

const R_INNER: f64 = 1.0;
const R_OUTER: f64 = 1.384;
const MACH_INNER: f64 = 2.25;

/// The exact state at (x, y): ρ = [1 + (γ−1)/2 M_i² (1 − r_i²/r²)]^(1/(γ−1)), velocity (M_i/r)(sin θ, −cos θ),
/// p = ρ^γ/γ.
pub fn supersonic_vortex_state(x: f64, y: f64) -> [f64; 4] {
    let r2 = x * x + y * y;
    let r = r2.sqrt();
    let rho = (1.0 + 0.5 * (GAMMA - 1.0) * MACH_INNER * MACH_INNER * (1.0 - R_INNER * R_INNER / r2))
        .powf(1.0 / (GAMMA - 1.0));
    let speed = MACH_INNER * R_INNER / r;
    let (sin, cos) = (y / r, x / r);
    conserved(rho, speed * sin, -speed * cos, rho.powf(GAMMA) / GAMMA)
}

impl EulerCase for SupersonicVortex {
    fn name(&self) -> &'static str {
        "euler-supersonic-vortex"
    }
    fn description(&self) -> &'static str {
        "Euler: steady supersonic vortex between curved walls, seed 001 (exact solution)"
    }
    /// Mesh A of seed 001 has n = 5 cells across (5 × 18 cells, 180 triangles); n scales both directions.
    fn default_mesh(&self, n: usize) -> Result<TriMesh, MeshError> {
        if !n.is_multiple_of(5) {
            return Err(MeshError::Invalid(format!(
                "the annulus takes a multiple of 5 cells across (5 gives seed 001's mesh A), got {n}"
            )));
        }
        quarter_annulus(&QuarterAnnulusSpec { r_inner: R_INNER, r_outer: R_OUTER, n_r: n, n_theta: 18 * n / 5 })
    }
    fn default_cells(&self) -> usize {
        5
    }
    fn refine(&self, mesh: &TriMesh) -> TriMesh {
        let mut fine = refine_uniform(mesh);
        project_onto_circle(&mut fine, "inner", [0.0, 0.0], R_INNER);
        project_onto_circle(&mut fine, "outer", [0.0, 0.0], R_OUTER);
        fine
    }
    fn default_t_end(&self) -> f64 {
        2.0
    }
    fn default_order(&self) -> usize {
        2
    }
    fn default_flux(&self) -> &'static str {
        "numerical_flux"
    }
    fn default_scheme(&self) -> (Scheme, f64) {
        (Scheme::Rk4, 0.5)
    }
    fn law_conditions(&self) -> HashMap<String, String> {
        [("inner", "wall"), ("outer", "wall"), ("bottom", "extrapolate")]
            .into_iter()
            .map(|(t, c)| (t.to_string(), c.to_string()))
            .collect()
    }
    fn ghost_rules(&self) -> HashMap<String, GhostRule> {
        let exact =
            Arc::new(|x: f64, y: f64, _t: f64, q: &mut [f64]| q.copy_from_slice(&supersonic_vortex_state(x, y)));
        HashMap::from([
            ("inner".to_string(), GhostRule::Curved { center: [0.0, 0.0] }),
            ("outer".to_string(), GhostRule::Curved { center: [0.0, 0.0] }),
            ("left".to_string(), GhostRule::Prescribed(exact)),
        ])
    }
    fn initial(&self, x: f64, y: f64, q: &mut [f64]) {
        q.copy_from_slice(&supersonic_vortex_state(x, y));
    }
    fn exact(&self, x: f64, y: f64, _t: f64, q: &mut [f64]) -> bool {
        q.copy_from_slice(&supersonic_vortex_state(x, y));
        true
    }
    fn has_exact(&self) -> bool {
        true
    }
    fn is_steady(&self) -> bool {
        true
    }
    fn exact_domain(&self) -> ExactDomain {
        ExactDomain::QuarterAnnulus { r_inner: R_INNER, r_outer: R_OUTER }
    }
}
