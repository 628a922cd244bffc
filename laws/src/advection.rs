//! Linear advection ∂u/∂t + ∇·(a u) = 0 with a constant velocity a (law parameters).

use dg_macros::conservation_law;

/// 2D linear advection with velocity (AX, AY) and the exact upwind flux.
#[conservation_law(dim = 2, dg_path = crate::support)]
pub mod advection2d {
    pub struct State {
        pub u: Real,
    }

    /// Velocity, x component.
    #[param]
    pub const AX: Real = 1.0;
    /// Velocity, y component.
    #[param]
    pub const AY: Real = 0.5;

    pub fn flux(q: State) -> [State; 2] {
        [State { u: AX * q.u }, State { u: AY * q.u }]
    }

    pub fn max_speed(q: State, n: Normal) -> Real {
        (AX * n.x + AY * n.y).abs()
    }

    pub fn numerical_flux(qm: State, qp: State, n: Normal) -> State {
        upwind(qm, qp, n)
    }

    /// Alternative: the central flux (no dissipation).
    #[numerical_flux]
    pub fn central_flux(qm: State, qp: State, n: Normal) -> State {
        central(qm, qp, n)
    }

    /// Nothing flows in: u⁺ = 0.
    #[boundary]
    pub fn zero(q: State, n: Normal) -> State {
        State { u: 0.0 }
    }

    /// Outflow: u⁺ = u⁻.
    #[boundary]
    pub fn extrapolate(q: State, n: Normal) -> State {
        q
    }
}

/// 3D linear advection with velocity (AX, AY, AZ) and the exact upwind flux.
#[conservation_law(dim = 3, dg_path = crate::support)]
pub mod advection3d {
    pub struct State {
        pub u: Real,
    }

    /// Velocity, x component.
    #[param]
    pub const AX: Real = 1.0;
    /// Velocity, y component.
    #[param]
    pub const AY: Real = 0.5;
    /// Velocity, z component.
    #[param]
    pub const AZ: Real = -0.25;

    pub fn flux(q: State) -> [State; 3] {
        [State { u: AX * q.u }, State { u: AY * q.u }, State { u: AZ * q.u }]
    }

    pub fn max_speed(q: State, n: Normal) -> Real {
        (AX * n.x + AY * n.y + AZ * n.z).abs()
    }

    pub fn numerical_flux(qm: State, qp: State, n: Normal) -> State {
        upwind(qm, qp, n)
    }

    /// Nothing flows in: u⁺ = 0.
    #[boundary]
    pub fn zero(q: State, n: Normal) -> State {
        State { u: 0.0 }
    }

    /// Outflow: u⁺ = u⁻.
    #[boundary]
    pub fn extrapolate(q: State, n: Normal) -> State {
        q
    }
}
