//! 2D Maxwell equations, transverse magnetic mode, in units with ε = μ = c = 1 (seed 000):
//!
//! ∂Hx/∂t = −∂Ez/∂y,  ∂Hy/∂t = ∂Ez/∂x,  ∂Ez/∂t = ∂Hy/∂x − ∂Hx/∂y.
//!
//! State q = (Hx, Hy, Ez); flux F_x = (0, −Ez, −Hy), F_y = (Ez, 0, Hx).
//! Numerical flux (Mohammadian et al.; Hesthaven & Warburton §6.5) with [q] = q⁻ − q⁺ and {q} the mean:
//! F*·n = n·F({q}) − (α/2)·(n (n·[H]) − [H]) for H, and + (α/2)[Ez] for Ez. α = 1 is upwind, α = 0 central.
//! Perfect electric conductor: Ez⁺ = −Ez⁻, H⁺ = H⁻.

use dg_core::law::ConservationLaw;
use dg_core::Real;

/// Maxwell TM with flux parameter α.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MaxwellTm {
    /// Upwinding: 1 = upwind, 0 = central.
    pub alpha: f64,
}

impl Default for MaxwellTm {
    fn default() -> Self {
        Self { alpha: 1.0 }
    }
}

impl MaxwellTm {
    /// Index of the perfect-electric-conductor condition in [`ConservationLaw::boundary_names`].
    pub const PEC: usize = 0;

    /// Electromagnetic energy density ½(Hx² + Hy² + Ez²).
    pub fn energy_density<T: Real>(q: &[T]) -> T {
        T::from_f64(0.5) * (q[0] * q[0] + q[1] * q[1] + q[2] * q[2])
    }
}

impl ConservationLaw for MaxwellTm {
    const DIM: usize = 2;
    const NVARS: usize = 3;

    fn name(&self) -> &'static str {
        "maxwell2d"
    }

    fn variable_names(&self) -> &'static [&'static str] {
        &["Hx", "Hy", "Ez"]
    }

    fn boundary_names(&self) -> &'static [&'static str] {
        &["pec"]
    }

    fn flux<T: Real>(&self, q: &[T], f: &mut [T]) {
        let (hx, hy, ez) = (q[0], q[1], q[2]);
        f[0] = T::zero();
        f[1] = -ez;
        f[2] = -hy;
        f[3] = ez;
        f[4] = T::zero();
        f[5] = hx;
    }

    fn numerical_flux<T: Real>(&self, qm: &[T], qp: &[T], n: &[T], out: &mut [T]) {
        let half = T::from_f64(0.5);
        let alpha = T::from_f64(self.alpha);
        let (nx, ny) = (n[0], n[1]);
        let mean = |v: usize| half * (qm[v] + qp[v]);
        let jump = |v: usize| qm[v] - qp[v];
        let n_dot_jump_h = nx * jump(0) + ny * jump(1);
        out[0] = ny * mean(2) - half * alpha * (nx * n_dot_jump_h - jump(0));
        out[1] = -nx * mean(2) - half * alpha * (ny * n_dot_jump_h - jump(1));
        out[2] = ny * mean(0) - nx * mean(1) + half * alpha * jump(2);
    }

    fn boundary_state<T: Real>(&self, bc: usize, qm: &[T], _n: &[T], qp: &mut [T]) {
        debug_assert_eq!(bc, Self::PEC);
        qp[0] = qm[0];
        qp[1] = qm[1];
        qp[2] = -qm[2];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn normal_flux(law: &MaxwellTm, q: &[f64], n: &[f64]) -> Vec<f64> {
        let mut f = [0.0; 6];
        law.flux(q, &mut f);
        (0..3).map(|v| n[0] * f[v] + n[1] * f[3 + v]).collect()
    }

    #[test]
    fn consistent_and_conservative() {
        let law = MaxwellTm { alpha: 1.0 };
        let (qm, qp) = ([0.3, -1.2, 0.7], [-0.4, 0.9, 1.5]);
        let n = [0.6, 0.8];
        let mut a = [0.0; 3];
        law.numerical_flux(&qm, &qm, &n, &mut a);
        let fm = normal_flux(&law, &qm, &n);
        for v in 0..3 {
            assert!((a[v] - fm[v]).abs() < 1e-15);
        }
        let mut b = [0.0; 3];
        law.numerical_flux(&qm, &qp, &n, &mut a);
        law.numerical_flux(&qp, &qm, &[-0.6, -0.8], &mut b);
        for v in 0..3 {
            assert!((a[v] + b[v]).abs() < 1e-15);
        }
    }

    /// Seed 000's kernel computes (Fscale/2)·flux with dH = H⁺ − H⁻, dEz = Bsc·Ez⁺ − Ez⁻; our lifted term
    /// n·F(q⁻) − F* must equal half of that flux (Fscale applied outside).
    #[test]
    fn reproduces_the_seed_kernel_flux() {
        let law = MaxwellTm { alpha: 1.0 };
        let (qm, qp) = ([0.3, -1.2, 0.7], [-0.4, 0.9, 1.5]);
        let (nx, ny) = (0.28, -0.96);
        let (dhx, dhy, dez) = (0.5 * (qp[0] - qm[0]), 0.5 * (qp[1] - qm[1]), 0.5 * (qp[2] - qm[2]));
        let ndotdh = nx * dhx + ny * dhy;
        let seed = [-ny * dez + dhx - ndotdh * nx, nx * dez + dhy - ndotdh * ny, nx * dhy - ny * dhx + dez];
        let mut fstar = [0.0; 3];
        law.numerical_flux(&qm, &qp, &[nx, ny], &mut fstar);
        let fm = normal_flux(&law, &qm, &[nx, ny]);
        for v in 0..3 {
            // the seed adds LIFT·(Fsc·flux) to the rhs; we add LIFT·(Fsc·(n·F⁻ − F*))
            assert!((fm[v] - fstar[v] - seed[v]).abs() < 1e-15, "row {v}: {} vs {}", fm[v] - fstar[v], seed[v]);
        }
    }
}
