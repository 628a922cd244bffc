//! Cases of the compressible Euler equations, solved with the modal formulation of seed 001.

mod double_mach;
mod isentropic_vortex;
mod nodal;
mod supersonic_vortex;

pub use double_mach::DoubleMach;
pub use isentropic_vortex::IsentropicVortex;
pub use nodal::NodalEuler;
pub use supersonic_vortex::SupersonicVortex;

use dg_core::mesh::{refine_uniform, TriMesh};
use dg_core::MeshError;
use dg_modal_tri::cpu::GhostRule;
use dg_runtime::time::Scheme;
use std::collections::HashMap;

/// Ratio of specific heats of every Euler case.
pub const GAMMA: f64 = 1.4;

/// Conserved variables (ρ, ρu, ρv, E) of the primitive state (ρ, u, v, p).
pub fn conserved(rho: f64, u: f64, v: f64, p: f64) -> [f64; 4] {
    [rho, rho * u, rho * v, p / (GAMMA - 1.0) + 0.5 * rho * (u * u + v * v)]
}

/// Pressure of a conserved state.
pub fn pressure(q: &[f64]) -> f64 {
    (GAMMA - 1.0) * (q[3] - 0.5 * (q[1] * q[1] + q[2] * q[2]) / q[0])
}

/// A problem of the Euler equations `dg run` and `dg convergence` can solve.
pub trait EulerCase: Send + Sync {
    /// Command-line name.
    fn name(&self) -> &'static str;
    /// One-line description.
    fn description(&self) -> &'static str;
    /// The base mesh with `n` cells along its shorter side (the case's own shape otherwise).
    fn default_mesh(&self, n: usize) -> Result<TriMesh, MeshError>;
    /// Cells along the shorter side when none are given.
    fn default_cells(&self) -> usize;
    /// One uniform refinement (curved boundaries keep their vertices on the curve).
    fn refine(&self, mesh: &TriMesh) -> TriMesh {
        refine_uniform(mesh)
    }
    /// Default final time.
    fn default_t_end(&self) -> f64;
    /// Default polynomial degree.
    fn default_order(&self) -> usize;
    /// Default numerical flux (a name the Euler law offers).
    fn default_flux(&self) -> &'static str;
    /// Default time integrator and Courant number of seed 001's rule dt = cfl · d_min / (λ_max (2p + 1)).
    fn default_scheme(&self) -> (Scheme, f64);
    /// Whether the Barth–Jespersen limiter is on by default.
    fn default_limiter(&self) -> bool {
        false
    }
    /// Boundary tag → law condition (`wall`, `extrapolate`) for tags that use one.
    fn law_conditions(&self) -> HashMap<String, String>;
    /// Boundary tag → ghost rule for tags with curved walls or prescribed states.
    fn ghost_rules(&self) -> HashMap<String, GhostRule>;
    /// The boundary tags whose state the case prescribes ([`GhostRule::Prescribed`]; no law condition applies there).
    fn prescribed_tags(&self) -> Vec<String> {
        let mut tags: Vec<String> = self
            .ghost_rules()
            .into_iter()
            .filter(|(_, rule)| matches!(rule, GhostRule::Prescribed(_)))
            .map(|(tag, _)| tag)
            .collect();
        tags.sort_unstable();
        tags
    }
    /// Initial conserved state at (x, y).
    fn initial(&self, x: f64, y: f64, q: &mut [f64]);
    /// Exact conserved state at (x, y, t), if the case has one.
    fn exact(&self, x: f64, y: f64, t: f64, q: &mut [f64]) -> bool {
        let _ = (x, y, t, q);
        false
    }
    /// Whether [`EulerCase::exact`] is available.
    fn has_exact(&self) -> bool;
    /// Whether the exact solution does not depend on time (the run approaches a steady state).
    fn is_steady(&self) -> bool {
        false
    }
    /// Where [`EulerCase::exact`] solves the problem: a mesh of another domain (read from a file) makes it the
    /// solution of another problem.
    fn exact_domain(&self) -> ExactDomain {
        ExactDomain::OwnMesh
    }
}

/// The domain on which an Euler case's exact solution holds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ExactDomain {
    /// The rectangle of the case's own mesh ([`EulerCase::default_mesh`]), with its periodic sides.
    OwnMesh,
    /// The quarter annulus r ∈ [r_inner, r_outer], x ≥ 0, y ≥ 0, about the origin: a mesh of it has its vertices in
    /// it and its boundary edges on its arcs or its two straight sides (vertices on the arcs, chords between them).
    QuarterAnnulus {
        /// Inner radius.
        r_inner: f64,
        /// Outer radius.
        r_outer: f64,
    },
}

/// Every Euler case.
pub fn all() -> Vec<Box<dyn EulerCase>> {
    vec![Box::new(IsentropicVortex), Box::new(SupersonicVortex), Box::new(DoubleMach)]
}
