//! Cases of the finite-volume formulation on a regular 2D grid (seed 003): ideal MHD with GLM cleaning.

use dg_fv::{FvGrid, Side};
use dg_laws::mhd2d;
use std::f64::consts::PI;

/// A problem `dg run` solves with finite volumes on a regular grid (law `mhd2d`).
pub trait FvCase: Send + Sync {
    /// Command-line name.
    fn name(&self) -> &'static str;
    /// One-line description.
    fn description(&self) -> &'static str;
    /// The law with the case's parameters (γ, c_h).
    fn law(&self) -> mhd2d::Law;
    /// The grid with `n` cells along x (the y count follows the domain's shape).
    fn grid(&self, n: usize) -> FvGrid;
    /// Cells along x when none are given.
    fn default_cells(&self) -> usize;
    /// Default final time.
    fn default_t_end(&self) -> f64;
    /// Initial conserved state at x (ρ, ρu, ρv, ρw, E, Bx, By, Bz, ψ).
    fn initial(&self, x: [f64; 2], q: &mut [f64]);
}

/// Every finite-volume case.
pub fn all() -> Vec<Box<dyn FvCase>> {
    vec![Box::new(BrioWu), Box::new(OrszagTang)]
}

/// Conserved MHD state from density, velocity, pressure and field (ψ = 0).
fn conserved(gamma: f64, rho: f64, u: [f64; 3], p: f64, b: [f64; 3], q: &mut [f64]) {
    let kinetic = 0.5 * rho * u.iter().map(|v| v * v).sum::<f64>();
    let magnetic = 0.5 * b.iter().map(|v| v * v).sum::<f64>();
    q.copy_from_slice(&[
        rho,
        rho * u[0],
        rho * u[1],
        rho * u[2],
        p / (gamma - 1.0) + kinetic + magnetic,
        b[0],
        b[1],
        b[2],
        0.0,
    ]);
}

/// `mhd-brio-wu`: Brio and Wu's MHD shock tube along x on [0, 1] (γ = 2, Bx = 0.75; left ρ = 1, p = 1, By = 1;
/// right ρ = 0.125, p = 0.1, By = −1), t = 0.1: fast rarefactions, a compound wave, a contact, a slow shock.
#[derive(Debug, Clone, Copy, Default)]
pub struct BrioWu;

impl FvCase for BrioWu {
    fn name(&self) -> &'static str {
        "mhd-brio-wu"
    }
    fn description(&self) -> &'static str {
        "2D ideal MHD (GLM), Brio–Wu shock tube along x, finite volumes (seed 003)"
    }
    fn law(&self) -> mhd2d::Law {
        // the fastest speed of the initial states is about 3.7
        mhd2d::Law { gamma: 2.0, ch: 4.0, ..mhd2d::Law::default() }
    }
    fn grid(&self, n: usize) -> FvGrid {
        let extrapolate = Side::Condition(0);
        FvGrid {
            nx: n,
            ny: 1,
            lower: [0.0, 0.0],
            upper: [1.0, 1.0 / n as f64],
            sides: [extrapolate, extrapolate, Side::Periodic, Side::Periodic],
            window: None,
        }
    }
    fn default_cells(&self) -> usize {
        800
    }
    fn default_t_end(&self) -> f64 {
        0.1
    }
    fn initial(&self, x: [f64; 2], q: &mut [f64]) {
        let (rho, p, by) = if x[0] < 0.5 { (1.0, 1.0, 1.0) } else { (0.125, 0.1, -1.0) };
        conserved(2.0, rho, [0.0; 3], p, [0.75, by, 0.0], q);
    }
}

/// `mhd-orszag-tang`: the Orszag–Tang vortex on the periodic unit square (γ = 5/3, ρ = 25/(36π), p = 5/(12π),
/// u = (−sin 2πy, sin 2πx), B = (−sin 2πy, sin 4πx)/√(4π)), t = 0.5.
#[derive(Debug, Clone, Copy, Default)]
pub struct OrszagTang;

impl FvCase for OrszagTang {
    fn name(&self) -> &'static str {
        "mhd-orszag-tang"
    }
    fn description(&self) -> &'static str {
        "2D ideal MHD (GLM), Orszag–Tang vortex on the periodic unit square, finite volumes (seed 003)"
    }
    fn law(&self) -> mhd2d::Law {
        mhd2d::Law { gamma: 5.0 / 3.0, ch: 3.0, ..mhd2d::Law::default() }
    }
    fn grid(&self, n: usize) -> FvGrid {
        FvGrid::periodic(n, n, [0.0, 0.0], [1.0, 1.0])
    }
    fn default_cells(&self) -> usize {
        256
    }
    fn default_t_end(&self) -> f64 {
        0.5
    }
    fn initial(&self, x: [f64; 2], q: &mut [f64]) {
        let b0 = 1.0 / (4.0 * PI).sqrt();
        let (sx, sy) = ((2.0 * PI * x[0]).sin(), (2.0 * PI * x[1]).sin());
        let b = [-b0 * sy, b0 * (4.0 * PI * x[0]).sin(), 0.0];
        conserved(5.0 / 3.0, 25.0 / (36.0 * PI), [-sy, sx, 0.0], 5.0 / (12.0 * PI), b, q);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dg_core::law::ConservationLaw;

    #[test]
    fn initial_states_are_admissible_and_divergence_free_where_smooth() {
        for case in all() {
            let law = case.law();
            let grid = case.grid(16);
            let mut q = [0.0; 9];
            for j in 0..grid.ny {
                for i in 0..grid.nx {
                    case.initial(grid.center(i, j), &mut q);
                    assert!(law.admissibility(&q, &[]).is_some_and(|a| a > 0.0), "{} at ({i}, {j})", case.name());
                }
            }
        }
        // Orszag–Tang's field: ∂Bx/∂x + ∂By/∂y = 0 exactly (Bx depends on y only, By on x only)
        let (mut a, mut b) = ([0.0; 9], [0.0; 9]);
        OrszagTang.initial([0.3, 0.7], &mut a);
        OrszagTang.initial([0.3001, 0.7], &mut b);
        assert_eq!(a[5], b[5]);
        let boundary = BrioWu.law().boundary_names()[0];
        assert_eq!(boundary, "extrapolate", "the shock tube's ends are the law's condition 0");
    }
}
