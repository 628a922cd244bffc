//! Ghost states of the modal operator beyond the law's own boundary conditions: a law condition evaluated with
//! the normal of the exact curved boundary (Krivodonova–Berger), and states a case prescribes (inflow, far field,
//! an exact time-dependent solution).

use std::fmt;
use std::sync::Arc;

/// A state given by a case on a boundary: writes the NVARS conserved values at (x, y) and time t.
pub type PrescribedState = dyn Fn(f64, f64, f64, &mut [f64]) + Send + Sync;

/// How the ghost state q⁺ is formed on the faces of one boundary tag.
#[derive(Clone)]
pub enum GhostRule {
    /// The law's boundary condition bound to the tag, with the mesh face's normal.
    Law,
    /// The law's boundary condition bound to the tag, evaluated with the unit normal of the exact boundary — the
    /// circle about `center` — at each edge point, while the flux keeps the straight face's normal
    /// (Krivodonova & Berger's curvature boundary condition: a reflecting wall reflects the momentum about the
    /// true tangent).
    Curved {
        /// Centre of the circle the boundary approximates.
        center: [f64; 2],
    },
    /// A state the case prescribes (q⁺ does not depend on q⁻; the numerical flux does the upwinding).
    Prescribed(Arc<PrescribedState>),
}

impl fmt::Debug for GhostRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GhostRule::Law => write!(f, "Law"),
            GhostRule::Curved { center } => write!(f, "Curved {{ center: {center:?} }}"),
            GhostRule::Prescribed(_) => write!(f, "Prescribed(..)"),
        }
    }
}

/// The unit normal at `x` of the circle about `center`, oriented to agree with the face normal `face_normal`.
pub(crate) fn circle_normal(center: [f64; 2], x: [f64; 2], face_normal: [f64; 2]) -> [f64; 2] {
    let (dx, dy) = (x[0] - center[0], x[1] - center[1]);
    let r = dx.hypot(dy);
    if r == 0.0 {
        return face_normal;
    }
    let sign = if dx * face_normal[0] + dy * face_normal[1] >= 0.0 { 1.0 } else { -1.0 };
    [sign * dx / r, sign * dy / r]
}
