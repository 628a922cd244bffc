//! Maxwell's equations in units with ε = μ = c = 1 (seed 000).

use dg_macros::conservation_law;

/// 2D transverse magnetic mode: ∂Hx/∂t = −∂Ez/∂y, ∂Hy/∂t = ∂Ez/∂x, ∂Ez/∂t = ∂Hy/∂x − ∂Hx/∂y.
///
/// Numerical flux (Mohammadian et al.; Hesthaven & Warburton §6.5) with \[q\] = q⁻ − q⁺ and {q} the mean: F*·n =
/// n·F({q}) − (α/2)(n (n·\[H\]) − \[H\]) for H, and + (α/2)\[Ez\] for Ez; α = 1 upwind, α = 0 central.
#[conservation_law(dim = 2, dg_path = crate::support)]
pub mod maxwell2d {
    /// Magnetic field (Hx, Hy) and electric field Ez.
    pub struct State {
        pub hx: Real,
        pub hy: Real,
        pub ez: Real,
    }

    /// Upwinding of the numerical flux: 1 upwind, 0 central.
    #[param]
    pub const ALPHA: Real = 1.0;

    pub fn flux(q: State) -> [State; 2] {
        [State { hx: 0.0, hy: -q.ez, ez: -q.hy }, State { hx: q.ez, hy: 0.0, ez: q.hx }]
    }

    pub fn max_speed(q: State, n: Normal) -> Real {
        1.0
    }

    pub fn numerical_flux(qm: State, qp: State, n: Normal) -> State {
        let dhx = qm.hx - qp.hx;
        let dhy = qm.hy - qp.hy;
        let dez = qm.ez - qp.ez;
        let ndotdh = n.x * dhx + n.y * dhy;
        let hx = 0.5 * (qm.hx + qp.hx);
        let hy = 0.5 * (qm.hy + qp.hy);
        let ez = 0.5 * (qm.ez + qp.ez);
        State {
            hx: n.y * ez - 0.5 * ALPHA * (n.x * ndotdh - dhx),
            hy: -n.x * ez - 0.5 * ALPHA * (n.y * ndotdh - dhy),
            ez: n.y * hx - n.x * hy + 0.5 * ALPHA * dez,
        }
    }

    /// Perfect electric conductor: Ez⁺ = −Ez⁻, H⁺ = H⁻.
    #[boundary]
    pub fn pec(q: State, n: Normal) -> State {
        State { hx: q.hx, hy: q.hy, ez: -q.ez }
    }
}

/// 3D Maxwell: ∂E/∂t = ∇×H, ∂H/∂t = −∇×E. Normal flux n·F = (−n×H, n×E).
///
/// Upwind-α flux: F* = (−n×{H} − (α/2) n×(n×\[E\]), n×{E} − (α/2) n×(n×\[H\])), \[q\] = q⁻ − q⁺.
#[conservation_law(dim = 3, dg_path = crate::support)]
pub mod maxwell3d {
    pub struct State {
        pub ex: Real,
        pub ey: Real,
        pub ez: Real,
        pub hx: Real,
        pub hy: Real,
        pub hz: Real,
    }

    /// Upwinding of the numerical flux: 1 upwind, 0 central.
    #[param]
    pub const ALPHA: Real = 1.0;

    pub fn flux(q: State) -> [State; 3] {
        [
            State { ex: 0.0, ey: q.hz, ez: -q.hy, hx: 0.0, hy: -q.ez, hz: q.ey },
            State { ex: -q.hz, ey: 0.0, ez: q.hx, hx: q.ez, hy: 0.0, hz: -q.ex },
            State { ex: q.hy, ey: -q.hx, ez: 0.0, hx: -q.ey, hy: q.ex, hz: 0.0 },
        ]
    }

    pub fn max_speed(q: State, n: Normal) -> Real {
        1.0
    }

    pub fn numerical_flux(qm: State, qp: State, n: Normal) -> State {
        // means and jumps
        let ex = 0.5 * (qm.ex + qp.ex);
        let ey = 0.5 * (qm.ey + qp.ey);
        let ez = 0.5 * (qm.ez + qp.ez);
        let hx = 0.5 * (qm.hx + qp.hx);
        let hy = 0.5 * (qm.hy + qp.hy);
        let hz = 0.5 * (qm.hz + qp.hz);
        let dex = qm.ex - qp.ex;
        let dey = qm.ey - qp.ey;
        let dez = qm.ez - qp.ez;
        let dhx = qm.hx - qp.hx;
        let dhy = qm.hy - qp.hy;
        let dhz = qm.hz - qp.hz;
        let nde = n.x * dex + n.y * dey + n.z * dez;
        let ndh = n.x * dhx + n.y * dhy + n.z * dhz;
        State {
            // −n×{H} − (α/2)(n (n·[E]) − [E])
            ex: -(n.y * hz - n.z * hy) - 0.5 * ALPHA * (n.x * nde - dex),
            ey: -(n.z * hx - n.x * hz) - 0.5 * ALPHA * (n.y * nde - dey),
            ez: -(n.x * hy - n.y * hx) - 0.5 * ALPHA * (n.z * nde - dez),
            // n×{E} − (α/2)(n (n·[H]) − [H])
            hx: (n.y * ez - n.z * ey) - 0.5 * ALPHA * (n.x * ndh - dhx),
            hy: (n.z * ex - n.x * ez) - 0.5 * ALPHA * (n.y * ndh - dhy),
            hz: (n.x * ey - n.y * ex) - 0.5 * ALPHA * (n.z * ndh - dhz),
        }
    }

    /// Perfect electric conductor: E⁺ = −E⁻, H⁺ = H⁻.
    #[boundary]
    pub fn pec(q: State, n: Normal) -> State {
        State { ex: -q.ex, ey: -q.ey, ez: -q.ez, hx: q.hx, hy: q.hy, hz: q.hz }
    }
}
