//! Isotropic linear elastic waves in 3D with per-element ρ, λ, μ (seed 002):
//! ρ ∂v/∂t = ∇·σ, ∂σ/∂t = λ(∇·v)I + μ(∇v + ∇vᵀ). State: velocity and the six stresses.
//!
//! Numerical flux: the exact-Riemann upwind flux of Wilcox et al. in the penalty form of seed 002, with
//! ⟦a⟧ = (a⁺ − a⁻)/2, N = n⊗n, k_p = 1/{ρc_p}, k_s = 1/{ρc_s}, α_p = ⟦σ_nn⟧ + (ρc_p)⁺⟦v_n⟧,
//! α_s = ⟦σ_nn⟧ + (ρc_s)⁺⟦v_n⟧, **α_s** = ⟦σn⟧ + (ρc_s)⁺⟦v⟧:
//! P_σ = k_p α_p λ⁻ I + 2(k_p α_p − k_s α_s) μ⁻ N + 2 k_s μ⁻ sym(n ⊗ **α_s**),
//! p_v = (k_p α_p c_p⁻ − k_s α_s c_s⁻) n + k_s c_s⁻ **α_s**, and n·F⁻ − F* = (p_v, P_σ).
//! Shear modulus μ > 0 is assumed (k_s is 1/{ρc_s}).

use dg_macros::conservation_law;

#[conservation_law(dim = 3, dg_path = crate::support)]
pub mod elastic3d {
    /// Velocity and symmetric stress.
    pub struct State {
        pub vx: Real,
        pub vy: Real,
        pub vz: Real,
        pub sxx: Real,
        pub syy: Real,
        pub szz: Real,
        pub sxy: Real,
        pub sxz: Real,
        pub syz: Real,
    }

    /// Density and Lamé parameters of the element.
    pub struct Material {
        pub rho: Real,
        pub lambda: Real,
        pub mu: Real,
    }

    pub fn cp(m: Material) -> Real {
        ((m.lambda + 2.0 * m.mu) / m.rho).sqrt()
    }

    pub fn cs(m: Material) -> Real {
        (m.mu / m.rho).sqrt()
    }

    pub fn flux(q: State, m: Material) -> [State; 3] {
        let r = 1.0 / m.rho;
        let l2m = m.lambda + 2.0 * m.mu;
        [
            State {
                vx: -q.sxx * r,
                vy: -q.sxy * r,
                vz: -q.sxz * r,
                sxx: -l2m * q.vx,
                syy: -m.lambda * q.vx,
                szz: -m.lambda * q.vx,
                sxy: -m.mu * q.vy,
                sxz: -m.mu * q.vz,
                syz: 0.0,
            },
            State {
                vx: -q.sxy * r,
                vy: -q.syy * r,
                vz: -q.syz * r,
                sxx: -m.lambda * q.vy,
                syy: -l2m * q.vy,
                szz: -m.lambda * q.vy,
                sxy: -m.mu * q.vx,
                sxz: 0.0,
                syz: -m.mu * q.vz,
            },
            State {
                vx: -q.sxz * r,
                vy: -q.syz * r,
                vz: -q.szz * r,
                sxx: -m.lambda * q.vz,
                syy: -m.lambda * q.vz,
                szz: -l2m * q.vz,
                sxy: 0.0,
                sxz: -m.mu * q.vx,
                syz: -m.mu * q.vy,
            },
        ]
    }

    pub fn max_speed(q: State, m: Material, n: Normal) -> Real {
        cp(m)
    }

    pub fn numerical_flux(qm: State, qp: State, mm: Material, mp: Material, n: Normal) -> State {
        // traction σn on both sides
        let tmx = qm.sxx * n.x + qm.sxy * n.y + qm.sxz * n.z;
        let tmy = qm.sxy * n.x + qm.syy * n.y + qm.syz * n.z;
        let tmz = qm.sxz * n.x + qm.syz * n.y + qm.szz * n.z;
        let tpx = qp.sxx * n.x + qp.sxy * n.y + qp.sxz * n.z;
        let tpy = qp.sxy * n.x + qp.syy * n.y + qp.syz * n.z;
        let tpz = qp.sxz * n.x + qp.syz * n.y + qp.szz * n.z;
        // half jumps
        let jtx = 0.5 * (tpx - tmx);
        let jty = 0.5 * (tpy - tmy);
        let jtz = 0.5 * (tpz - tmz);
        let jvx = 0.5 * (qp.vx - qm.vx);
        let jvy = 0.5 * (qp.vy - qm.vy);
        let jvz = 0.5 * (qp.vz - qm.vz);
        let jsnn = jtx * n.x + jty * n.y + jtz * n.z;
        let jvn = jvx * n.x + jvy * n.y + jvz * n.z;
        let cpm = cp(mm);
        let csm = cs(mm);
        let zpp = mp.rho * cp(mp);
        let zsp = mp.rho * cs(mp);
        let kp = 2.0 / (mm.rho * cpm + zpp);
        let ks = 2.0 / (mm.rho * csm + zsp);
        let ap = jsnn + zpp * jvn;
        let as_n = jsnn + zsp * jvn;
        let asx = jtx + zsp * jvx;
        let asy = jty + zsp * jvy;
        let asz = jtz + zsp * jvz;
        // velocity penalty
        let a = kp * ap * cpm - ks * as_n * csm;
        let b = ks * csm;
        let pvx = a * n.x + b * asx;
        let pvy = a * n.y + b * asy;
        let pvz = a * n.z + b * asz;
        // stress penalty
        let iso = kp * ap * mm.lambda;
        let nn = 2.0 * (kp * ap - ks * as_n) * mm.mu;
        let sh = ks * mm.mu;
        let psxx = iso + nn * n.x * n.x + 2.0 * sh * n.x * asx;
        let psyy = iso + nn * n.y * n.y + 2.0 * sh * n.y * asy;
        let pszz = iso + nn * n.z * n.z + 2.0 * sh * n.z * asz;
        let psxy = nn * n.x * n.y + sh * (n.x * asy + n.y * asx);
        let psxz = nn * n.x * n.z + sh * (n.x * asz + n.z * asx);
        let psyz = nn * n.y * n.z + sh * (n.y * asz + n.z * asy);
        // normal flux of the own side
        let r = 1.0 / mm.rho;
        let vn = qm.vx * n.x + qm.vy * n.y + qm.vz * n.z;
        State {
            vx: -tmx * r - pvx,
            vy: -tmy * r - pvy,
            vz: -tmz * r - pvz,
            sxx: -(mm.lambda * vn + 2.0 * mm.mu * qm.vx * n.x) - psxx,
            syy: -(mm.lambda * vn + 2.0 * mm.mu * qm.vy * n.y) - psyy,
            szz: -(mm.lambda * vn + 2.0 * mm.mu * qm.vz * n.z) - pszz,
            sxy: -mm.mu * (qm.vx * n.y + qm.vy * n.x) - psxy,
            sxz: -mm.mu * (qm.vx * n.z + qm.vz * n.x) - psxz,
            syz: -mm.mu * (qm.vy * n.z + qm.vz * n.y) - psyz,
        }
    }

    /// Traction-free surface: σ⁺ = −σ⁻, v⁺ = v⁻.
    #[boundary]
    pub fn free_surface(q: State, n: Normal) -> State {
        State {
            vx: q.vx,
            vy: q.vy,
            vz: q.vz,
            sxx: -q.sxx,
            syy: -q.syy,
            szz: -q.szz,
            sxy: -q.sxy,
            sxz: -q.sxz,
            syz: -q.syz,
        }
    }

    /// Rigid (clamped) boundary: v⁺ = −v⁻, σ⁺ = σ⁻.
    #[boundary]
    pub fn rigid(q: State, n: Normal) -> State {
        State {
            vx: -q.vx,
            vy: -q.vy,
            vz: -q.vz,
            sxx: q.sxx,
            syy: q.syy,
            szz: q.szz,
            sxy: q.sxy,
            sxz: q.sxz,
            syz: q.syz,
        }
    }
}
