//! Linear acoustics with per-element density ρ and sound speed c (seed 002):
//! ∂p/∂t + ρc² ∇·v = 0, ∂v/∂t + ∇p/ρ = 0.
//!
//! Numerical flux: the upwind (exact Riemann) flux, written in the penalty form of seed 002 with
//! ⟦a⟧ = (a⁺ − a⁻)/2, {a} the mean, Z = ρc, k = 1/{Z}, α = ⟦p⟧ − Z⁺⟦v·n⟧:
//! n·F⁻ − F* = ((ρc²)⁻ k α, −n c⁻ k α). Materials may jump across faces.

use dg_macros::conservation_law;

#[conservation_law(dim = 2, dg_path = crate::support)]
pub mod acoustics2d {
    /// Pressure and velocity.
    pub struct State {
        pub p: Real,
        pub vx: Real,
        pub vy: Real,
    }

    /// Density and sound speed of the element.
    pub struct Material {
        pub rho: Real,
        pub c: Real,
    }

    pub fn flux(q: State, m: Material) -> [State; 2] {
        let k = m.rho * m.c * m.c;
        [State { p: k * q.vx, vx: q.p / m.rho, vy: 0.0 }, State { p: k * q.vy, vx: 0.0, vy: q.p / m.rho }]
    }

    pub fn max_speed(q: State, m: Material, n: Normal) -> Real {
        m.c
    }

    pub fn numerical_flux(qm: State, qp: State, mm: Material, mp: Material, n: Normal) -> State {
        let vnm = qm.vx * n.x + qm.vy * n.y;
        let vnp = qp.vx * n.x + qp.vy * n.y;
        let jump_p = 0.5 * (qp.p - qm.p);
        let jump_vn = 0.5 * (vnp - vnm);
        let k = 2.0 / (mm.rho * mm.c + mp.rho * mp.c);
        let alpha = jump_p - mp.rho * mp.c * jump_vn;
        let pen_v = mm.c * k * alpha;
        State {
            p: mm.rho * mm.c * mm.c * (vnm - k * alpha),
            vx: n.x * (qm.p / mm.rho + pen_v),
            vy: n.y * (qm.p / mm.rho + pen_v),
        }
    }

    /// Rigid wall: the normal velocity is reflected.
    #[boundary]
    pub fn wall(q: State, n: Normal) -> State {
        let vn = q.vx * n.x + q.vy * n.y;
        State { p: q.p, vx: q.vx - 2.0 * vn * n.x, vy: q.vy - 2.0 * vn * n.y }
    }

    /// Pressure release (free surface): p⁺ = −p⁻.
    #[boundary]
    pub fn free(q: State, n: Normal) -> State {
        State { p: -q.p, vx: q.vx, vy: q.vy }
    }

    /// First-order absorbing: an exterior at rest.
    #[boundary]
    pub fn absorbing(q: State, n: Normal) -> State {
        State { p: 0.0, vx: 0.0, vy: 0.0 }
    }
}

#[conservation_law(dim = 3, dg_path = crate::support)]
pub mod acoustics3d {
    /// Pressure and velocity.
    pub struct State {
        pub p: Real,
        pub vx: Real,
        pub vy: Real,
        pub vz: Real,
    }

    /// Density and sound speed of the element.
    pub struct Material {
        pub rho: Real,
        pub c: Real,
    }

    pub fn flux(q: State, m: Material) -> [State; 3] {
        let k = m.rho * m.c * m.c;
        let pr = q.p / m.rho;
        [
            State { p: k * q.vx, vx: pr, vy: 0.0, vz: 0.0 },
            State { p: k * q.vy, vx: 0.0, vy: pr, vz: 0.0 },
            State { p: k * q.vz, vx: 0.0, vy: 0.0, vz: pr },
        ]
    }

    pub fn max_speed(q: State, m: Material, n: Normal) -> Real {
        m.c
    }

    pub fn numerical_flux(qm: State, qp: State, mm: Material, mp: Material, n: Normal) -> State {
        let vnm = qm.vx * n.x + qm.vy * n.y + qm.vz * n.z;
        let vnp = qp.vx * n.x + qp.vy * n.y + qp.vz * n.z;
        let jump_p = 0.5 * (qp.p - qm.p);
        let jump_vn = 0.5 * (vnp - vnm);
        let k = 2.0 / (mm.rho * mm.c + mp.rho * mp.c);
        let alpha = jump_p - mp.rho * mp.c * jump_vn;
        let pen_v = mm.c * k * alpha;
        let pr = qm.p / mm.rho + pen_v;
        State { p: mm.rho * mm.c * mm.c * (vnm - k * alpha), vx: n.x * pr, vy: n.y * pr, vz: n.z * pr }
    }

    /// Rigid wall: the normal velocity is reflected.
    #[boundary]
    pub fn wall(q: State, n: Normal) -> State {
        let vn = q.vx * n.x + q.vy * n.y + q.vz * n.z;
        State { p: q.p, vx: q.vx - 2.0 * vn * n.x, vy: q.vy - 2.0 * vn * n.y, vz: q.vz - 2.0 * vn * n.z }
    }

    /// Pressure release (free surface): p⁺ = −p⁻.
    #[boundary]
    pub fn free(q: State, n: Normal) -> State {
        State { p: -q.p, vx: q.vx, vy: q.vy, vz: q.vz }
    }

    /// First-order absorbing: an exterior at rest.
    #[boundary]
    pub fn absorbing(q: State, n: Normal) -> State {
        State { p: 0.0, vx: 0.0, vy: 0.0, vz: 0.0 }
    }
}
