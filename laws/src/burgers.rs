//! Inviscid Burgers equation in 2D: ∂u/∂t + ∂(u²/2)/∂x + ∂(u²/2)/∂y = 0.

use dg_macros::conservation_law;

#[conservation_law(dim = 2, dg_path = crate::support)]
pub mod burgers2d {
    pub struct State {
        pub u: Real,
    }

    pub fn flux(q: State) -> [State; 2] {
        let f = 0.5 * q.u * q.u;
        [State { u: f }, State { u: f }]
    }

    pub fn max_speed(q: State, n: Normal) -> Real {
        (q.u * (n.x + n.y)).abs()
    }

    pub fn signal_speeds(q: State, n: Normal) -> [Real; 2] {
        let s = q.u * (n.x + n.y);
        [s, s]
    }

    pub fn numerical_flux(qm: State, qp: State, n: Normal) -> State {
        rusanov(qm, qp, n)
    }

    /// Alternative: HLL with the characteristic speeds of both sides.
    #[numerical_flux]
    pub fn hll_flux(qm: State, qp: State, n: Normal) -> State {
        hll(qm, qp, n)
    }

    /// Outflow: u⁺ = u⁻.
    #[boundary]
    pub fn extrapolate(q: State, n: Normal) -> State {
        q
    }
}
