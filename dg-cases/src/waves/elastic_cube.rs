//! `elastic-cube`: a P and an S plane wave crossing the periodic unit cube, ρ = 1, λ = 2, μ = 1 (c_p = 2, c_s = 1).
//!
//! For v = A d sin(κ·x − ωt): σ = −(A/ω) [λ (d·κ) I + μ (d⊗κ + κ⊗d)] sin(κ·x − ωt), with d ∥ κ and ω = c_p|κ|
//! (P) or d ⊥ κ and ω = c_s|κ| (S).

use super::{unit_cube, WaveCase, WaveLaw};
use dg_core::mesh3d::BoxSpec;
use std::collections::HashMap;
use std::f64::consts::PI;

const RHO: f64 = 1.0;
const LAMBDA: f64 = 2.0;
const MU: f64 = 1.0;

/// Two plane waves on the periodic cube.
#[derive(Debug, Clone, Copy, Default)]
pub struct ElasticCube;

/// (amplitude, polarization d, wave vector κ, wave speed).
fn waves() -> [(f64, [f64; 3], [f64; 3], f64); 2] {
    let cp = ((LAMBDA + 2.0 * MU) / RHO).sqrt();
    let cs = (MU / RHO).sqrt();
    let s = std::f64::consts::FRAC_1_SQRT_2;
    [(1.0, [s, s, 0.0], [2.0 * PI, 2.0 * PI, 0.0], cp), (0.5, [1.0, 0.0, 0.0], [0.0, 2.0 * PI, 2.0 * PI], cs)]
}

impl WaveCase for ElasticCube {
    fn name(&self) -> &'static str {
        "elastic-cube"
    }
    fn description(&self) -> &'static str {
        "3D elastic waves, a P and an S plane wave on the periodic unit cube, exact (seed 002's law)"
    }
    fn law(&self) -> WaveLaw {
        WaveLaw::Elastic
    }
    fn box_spec(&self, n: usize) -> BoxSpec {
        unit_cube(n, true)
    }
    fn default_cells(&self) -> usize {
        3
    }
    fn default_t_end(&self) -> f64 {
        0.25
    }
    fn material(&self, _x: [f64; 3]) -> Vec<f64> {
        vec![RHO, LAMBDA, MU]
    }
    fn boundary_conditions(&self) -> HashMap<String, String> {
        HashMap::new()
    }
    fn exact(&self, x: [f64; 3], t: f64, q: &mut [f64]) {
        q.iter_mut().for_each(|v| *v = 0.0);
        for (amp, d, kappa, speed) in waves() {
            let norm = (kappa[0] * kappa[0] + kappa[1] * kappa[1] + kappa[2] * kappa[2]).sqrt();
            let omega = speed * norm;
            let phase = (kappa[0] * x[0] + kappa[1] * x[1] + kappa[2] * x[2] - omega * t).sin();
            let dk = d[0] * kappa[0] + d[1] * kappa[1] + d[2] * kappa[2];
            for i in 0..3 {
                q[i] += amp * d[i] * phase;
            }
            let sigma = |i: usize, j: usize| {
                let iso = if i == j { LAMBDA * dk } else { 0.0 };
                -amp / omega * (iso + MU * (d[i] * kappa[j] + kappa[i] * d[j])) * phase
            };
            // sxx, syy, szz, sxy, sxz, syz
            for (slot, (i, j)) in [(0, 0), (1, 1), (2, 2), (0, 1), (0, 2), (1, 2)].into_iter().enumerate() {
                q[3 + slot] += sigma(i, j);
            }
        }
    }
}
