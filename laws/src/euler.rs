//! Compressible Euler equations of an ideal gas (γ = 1.4), conserved variables (ρ, ρu, E).

use dg_macros::conservation_law;

#[conservation_law(dim = 2, dg_path = crate::support)]
pub mod euler2d {
    /// Density, momentum, total energy.
    pub struct State {
        pub rho: Real,
        pub mx: Real,
        pub my: Real,
        pub e: Real,
    }

    /// Ratio of specific heats.
    #[param]
    pub const GAMMA: Real = 1.4;

    pub fn pressure(q: State) -> Real {
        (GAMMA - 1.0) * (q.e - 0.5 * (q.mx * q.mx + q.my * q.my) / q.rho)
    }

    pub fn sound_speed(q: State) -> Real {
        (GAMMA * pressure(q) / q.rho).sqrt()
    }

    pub fn flux(q: State) -> [State; 2] {
        let p = pressure(q);
        let u = q.mx / q.rho;
        let v = q.my / q.rho;
        [
            State { rho: q.mx, mx: q.mx * u + p, my: q.my * u, e: (q.e + p) * u },
            State { rho: q.my, mx: q.mx * v, my: q.my * v + p, e: (q.e + p) * v },
        ]
    }

    pub fn max_speed(q: State, n: Normal) -> Real {
        ((q.mx * n.x + q.my * n.y) / q.rho).abs() + sound_speed(q)
    }

    /// Davis estimates: u·n − c and u·n + c.
    pub fn signal_speeds(q: State, n: Normal) -> [Real; 2] {
        let un = (q.mx * n.x + q.my * n.y) / q.rho;
        let c = sound_speed(q);
        [un - c, un + c]
    }

    pub fn numerical_flux(qm: State, qp: State, n: Normal) -> State {
        rusanov(qm, qp, n)
    }

    #[numerical_flux]
    pub fn hll_flux(qm: State, qp: State, n: Normal) -> State {
        hll(qm, qp, n)
    }

    #[numerical_flux]
    pub fn hllc_flux(qm: State, qp: State, n: Normal) -> State {
        hllc(qm, qp, n)
    }

    /// Positive exactly where density and pressure are (the limiter's positivity guard).
    pub fn admissible(q: State) -> Real {
        q.rho.min(pressure(q))
    }

    /// Slip wall: the normal momentum is reflected.
    #[boundary]
    pub fn wall(q: State, n: Normal) -> State {
        let mn = q.mx * n.x + q.my * n.y;
        State { rho: q.rho, mx: q.mx - 2.0 * mn * n.x, my: q.my - 2.0 * mn * n.y, e: q.e }
    }

    /// Supersonic outflow: q⁺ = q⁻.
    #[boundary]
    pub fn extrapolate(q: State, n: Normal) -> State {
        q
    }
}

#[conservation_law(dim = 3, dg_path = crate::support)]
pub mod euler3d {
    /// Density, momentum, total energy.
    pub struct State {
        pub rho: Real,
        pub mx: Real,
        pub my: Real,
        pub mz: Real,
        pub e: Real,
    }

    /// Ratio of specific heats.
    #[param]
    pub const GAMMA: Real = 1.4;

    pub fn pressure(q: State) -> Real {
        (GAMMA - 1.0) * (q.e - 0.5 * (q.mx * q.mx + q.my * q.my + q.mz * q.mz) / q.rho)
    }

    pub fn sound_speed(q: State) -> Real {
        (GAMMA * pressure(q) / q.rho).sqrt()
    }

    pub fn flux(q: State) -> [State; 3] {
        let p = pressure(q);
        let u = q.mx / q.rho;
        let v = q.my / q.rho;
        let w = q.mz / q.rho;
        [
            State { rho: q.mx, mx: q.mx * u + p, my: q.my * u, mz: q.mz * u, e: (q.e + p) * u },
            State { rho: q.my, mx: q.mx * v, my: q.my * v + p, mz: q.mz * v, e: (q.e + p) * v },
            State { rho: q.mz, mx: q.mx * w, my: q.my * w, mz: q.mz * w + p, e: (q.e + p) * w },
        ]
    }

    pub fn max_speed(q: State, n: Normal) -> Real {
        ((q.mx * n.x + q.my * n.y + q.mz * n.z) / q.rho).abs() + sound_speed(q)
    }

    /// Davis estimates: u·n − c and u·n + c.
    pub fn signal_speeds(q: State, n: Normal) -> [Real; 2] {
        let un = (q.mx * n.x + q.my * n.y + q.mz * n.z) / q.rho;
        let c = sound_speed(q);
        [un - c, un + c]
    }

    pub fn numerical_flux(qm: State, qp: State, n: Normal) -> State {
        rusanov(qm, qp, n)
    }

    #[numerical_flux]
    pub fn hll_flux(qm: State, qp: State, n: Normal) -> State {
        hll(qm, qp, n)
    }

    #[numerical_flux]
    pub fn hllc_flux(qm: State, qp: State, n: Normal) -> State {
        hllc(qm, qp, n)
    }

    /// Slip wall: the normal momentum is reflected.
    #[boundary]
    pub fn wall(q: State, n: Normal) -> State {
        let mn = q.mx * n.x + q.my * n.y + q.mz * n.z;
        State { rho: q.rho, mx: q.mx - 2.0 * mn * n.x, my: q.my - 2.0 * mn * n.y, mz: q.mz - 2.0 * mn * n.z, e: q.e }
    }

    /// Supersonic outflow: q⁺ = q⁻.
    #[boundary]
    pub fn extrapolate(q: State, n: Normal) -> State {
        q
    }
}
