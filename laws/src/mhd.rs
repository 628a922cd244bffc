//! Ideal magnetohydrodynamics in two space dimensions (three velocity and field components) with Dedner et al.'s
//! mixed GLM divergence cleaning (seed 003's third model): conserved (ρ, ρu, ρv, ρw, E, Bx, By, Bz, ψ).
//!
//! The field's normal component and ψ form a separate hyperbolic pair with speed c_h (`CH`): ∂ₜB + … + ∇ψ = 0,
//! ∂ₜψ + c_h² ∇·B = −α ψ (`DAMPING` α), so divergence errors travel away at c_h and decay.

use dg_macros::conservation_law;

#[conservation_law(dim = 2, dg_path = crate::support)]
pub mod mhd2d {
    /// Density, momentum, total energy, magnetic field, GLM cleaning potential.
    pub struct State {
        pub rho: Real,
        pub mx: Real,
        pub my: Real,
        pub mz: Real,
        pub e: Real,
        pub bx: Real,
        pub by: Real,
        pub bz: Real,
        pub psi: Real,
    }

    /// Ratio of specific heats.
    #[param]
    pub const GAMMA: Real = 1.6666666666666667;

    /// Speed of the divergence-cleaning waves c_h (at least the fastest magnetosonic speed of the flow is usual).
    #[param]
    pub const CH: Real = 2.0;

    /// Damping rate α = c_h²/c_p² of ψ.
    #[param]
    pub const DAMPING: Real = 1.0;

    /// Magnetic pressure ½|B|².
    pub fn magnetic_pressure(q: State) -> Real {
        0.5 * (q.bx * q.bx + q.by * q.by + q.bz * q.bz)
    }

    /// Gas pressure p = (γ − 1)(E − ½ρ|u|² − ½|B|²).
    pub fn pressure(q: State) -> Real {
        (GAMMA - 1.0) * (q.e - 0.5 * (q.mx * q.mx + q.my * q.my + q.mz * q.mz) / q.rho - magnetic_pressure(q))
    }

    pub fn flux(q: State) -> [State; 2] {
        let u = q.mx / q.rho;
        let v = q.my / q.rho;
        let w = q.mz / q.rho;
        let pt = pressure(q) + magnetic_pressure(q);
        let ub = u * q.bx + v * q.by + w * q.bz;
        [
            State {
                rho: q.mx,
                mx: q.mx * u + pt - q.bx * q.bx,
                my: q.my * u - q.bx * q.by,
                mz: q.mz * u - q.bx * q.bz,
                e: (q.e + pt) * u - q.bx * ub,
                bx: q.psi,
                by: u * q.by - v * q.bx,
                bz: u * q.bz - w * q.bx,
                psi: CH * CH * q.bx,
            },
            State {
                rho: q.my,
                mx: q.mx * v - q.by * q.bx,
                my: q.my * v + pt - q.by * q.by,
                mz: q.mz * v - q.by * q.bz,
                e: (q.e + pt) * v - q.by * ub,
                bx: v * q.bx - u * q.by,
                by: q.psi,
                bz: v * q.bz - w * q.by,
                psi: CH * CH * q.by,
            },
        ]
    }

    /// The fast magnetosonic speed along n.
    pub fn fast_speed(q: State, n: Normal) -> Real {
        let a2 = GAMMA * pressure(q) / q.rho;
        let b2 = (q.bx * q.bx + q.by * q.by + q.bz * q.bz) / q.rho;
        let bn = q.bx * n.x + q.by * n.y;
        let bn2 = bn * bn / q.rho;
        let sum = a2 + b2;
        (0.5 * (sum + (sum * sum - 4.0 * a2 * bn2).max(0.0).sqrt())).sqrt()
    }

    pub fn max_speed(q: State, n: Normal) -> Real {
        let un = (q.mx * n.x + q.my * n.y) / q.rho;
        (un.abs() + fast_speed(q, n)).max(CH)
    }

    /// Slowest and fastest signal speeds along n (HLL): u·n ∓ c_f, widened to ∓ c_h.
    pub fn signal_speeds(q: State, n: Normal) -> [Real; 2] {
        let un = (q.mx * n.x + q.my * n.y) / q.rho;
        let cf = fast_speed(q, n);
        [(un - cf).min(-CH), (un + cf).max(CH)]
    }

    pub fn numerical_flux(qm: State, qp: State, n: Normal) -> State {
        rusanov(qm, qp, n)
    }

    #[numerical_flux]
    pub fn hll_flux(qm: State, qp: State, n: Normal) -> State {
        hll(qm, qp, n)
    }

    /// The cleaning potential decays: S_ψ = −α ψ.
    pub fn source(q: State) -> State {
        State { rho: 0.0, mx: 0.0, my: 0.0, mz: 0.0, e: 0.0, bx: 0.0, by: 0.0, bz: 0.0, psi: -DAMPING * q.psi }
    }

    /// Positive exactly where density and gas pressure are.
    pub fn admissible(q: State) -> Real {
        q.rho.min(pressure(q))
    }

    /// Supersonic outflow (and the ends of a shock tube): q⁺ = q⁻.
    #[boundary]
    pub fn extrapolate(q: State, n: Normal) -> State {
        q
    }
}
