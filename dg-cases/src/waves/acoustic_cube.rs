//! `acoustic-cube`: the (1, 1, 1) eigenmode of the unit cube with rigid walls, ρ = c = 1.
//!
//! p = cos(πx) cos(πy) cos(πz) cos(ωt), v = (π/(ρω)) sin(ωt) (sin(πx) cos(πy) cos(πz), …), ω = √3 π c:
//! the normal velocity vanishes on every wall.

use super::{all_sides, unit_cube, WaveCase, WaveLaw};
use dg_core::mesh3d::BoxSpec;
use std::collections::HashMap;
use std::f64::consts::PI;

/// The rigid-wall cube eigenmode.
#[derive(Debug, Clone, Copy, Default)]
pub struct AcousticCube;

impl WaveCase for AcousticCube {
    fn name(&self) -> &'static str {
        "acoustic-cube"
    }
    fn description(&self) -> &'static str {
        "3D acoustics, (1,1,1) eigenmode of the rigid-wall unit cube, exact (seed 002's law)"
    }
    fn law(&self) -> WaveLaw {
        WaveLaw::Acoustic
    }
    fn box_spec(&self, n: usize) -> BoxSpec {
        unit_cube(n, false)
    }
    fn default_cells(&self) -> usize {
        2
    }
    fn default_t_end(&self) -> f64 {
        0.5
    }
    fn material(&self, _x: [f64; 3]) -> Vec<f64> {
        vec![1.0, 1.0]
    }
    fn boundary_conditions(&self) -> HashMap<String, String> {
        all_sides("wall")
    }
    fn exact(&self, x: [f64; 3], t: f64, q: &mut [f64]) {
        let omega = 3f64.sqrt() * PI;
        let (c, s) = (x.map(|x| (PI * x).cos()), x.map(|x| (PI * x).sin()));
        let amp = PI / omega * (omega * t).sin();
        q[0] = c[0] * c[1] * c[2] * (omega * t).cos();
        q[1] = amp * s[0] * c[1] * c[2];
        q[2] = amp * c[0] * s[1] * c[2];
        q[3] = amp * c[0] * c[1] * s[2];
    }
}
