//! Shallow-water equations in 2D over a flat bottom: (h, hu, hv), gravity G.

use dg_macros::conservation_law;

#[conservation_law(dim = 2, dg_path = crate::support)]
pub mod shallow_water2d {
    /// Depth and discharge.
    pub struct State {
        pub h: Real,
        pub hu: Real,
        pub hv: Real,
    }

    /// Gravitational acceleration.
    #[param]
    pub const G: Real = 9.81;

    pub fn flux(q: State) -> [State; 2] {
        let u = q.hu / q.h;
        let v = q.hv / q.h;
        let p = 0.5 * G * q.h * q.h;
        [State { h: q.hu, hu: q.hu * u + p, hv: q.hv * u }, State { h: q.hv, hu: q.hu * v, hv: q.hv * v + p }]
    }

    pub fn max_speed(q: State, n: Normal) -> Real {
        ((q.hu * n.x + q.hv * n.y) / q.h).abs() + (G * q.h).sqrt()
    }

    pub fn signal_speeds(q: State, n: Normal) -> [Real; 2] {
        let un = (q.hu * n.x + q.hv * n.y) / q.h;
        let c = (G * q.h).sqrt();
        [un - c, un + c]
    }

    pub fn numerical_flux(qm: State, qp: State, n: Normal) -> State {
        rusanov(qm, qp, n)
    }

    #[numerical_flux]
    pub fn hll_flux(qm: State, qp: State, n: Normal) -> State {
        hll(qm, qp, n)
    }

    /// Reflecting wall.
    #[boundary]
    pub fn wall(q: State, n: Normal) -> State {
        let mn = q.hu * n.x + q.hv * n.y;
        State { h: q.h, hu: q.hu - 2.0 * mn * n.x, hv: q.hv - 2.0 * mn * n.y }
    }
}
