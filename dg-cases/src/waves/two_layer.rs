//! `acoustic-two-layer`: a plane pressure pulse at normal incidence on a material interface.
//!
//! Layer 1 (x < 1): ρ₁ = 1, c₁ = 1; layer 2 (x > 1): ρ₂ = 2, c₂ = 1.5, so Z₁ = 1, Z₂ = 3 and the analytic
//! pressure coefficients are R = (Z₂ − Z₁)/(Z₂ + Z₁) = 1/2, T = 2Z₂/(Z₁ + Z₂) = 3/2. The incident pulse
//! f(x − c₁t), f(ξ) = exp(−((ξ − x₀)/w)²), reflects into R f(2a − x − c₁t) and transmits into
//! T f(a + (c₁/c₂)(x − a) − c₁t). The box is [0, 2] × [0, H]²; the side walls are exact for a normal-incidence wave
//! (v_y = v_z = 0) and the ends absorb it (the upwind flux against a state at rest).

use super::{WaveCase, WaveLaw};
use dg_core::mesh3d::{BoxSpec, CubeSplit};
use std::collections::HashMap;

/// The two-layer normal-incidence problem.
#[derive(Debug, Clone, Copy)]
pub struct AcousticTwoLayer {
    /// Interface position a.
    pub interface: f64,
    /// Pulse centre x₀ at t = 0.
    pub x0: f64,
    /// Pulse width w.
    pub width: f64,
    /// Density and sound speed of each layer.
    pub layers: [(f64, f64); 2],
}

impl Default for AcousticTwoLayer {
    fn default() -> Self {
        Self { interface: 1.0, x0: 0.5, width: 0.08, layers: [(1.0, 1.0), (2.0, 1.5)] }
    }
}

impl AcousticTwoLayer {
    /// Analytic pressure reflection and transmission coefficients (R, T).
    pub fn coefficients(&self) -> (f64, f64) {
        let [z1, z2] = self.layers.map(|(rho, c)| rho * c);
        ((z2 - z1) / (z2 + z1), 2.0 * z2 / (z1 + z2))
    }

    fn pulse(&self, xi: f64) -> f64 {
        (-((xi - self.x0) / self.width).powi(2)).exp()
    }
}

impl WaveCase for AcousticTwoLayer {
    fn name(&self) -> &'static str {
        "acoustic-two-layer"
    }
    fn description(&self) -> &'static str {
        "3D acoustics, pulse at normal incidence on a material jump (R = 1/2, T = 3/2 analytic)"
    }
    fn law(&self) -> WaveLaw {
        WaveLaw::Acoustic
    }
    fn box_spec(&self, n: usize) -> BoxSpec {
        let h = 1.0 / n as f64;
        BoxSpec {
            lower: [0.0; 3],
            upper: [2.0, h, h],
            cells: [2 * n, 1, 1],
            split: CubeSplit::Six,
            periodic: [false; 3],
        }
    }
    fn default_cells(&self) -> usize {
        16
    }
    fn default_t_end(&self) -> f64 {
        0.9
    }
    fn material(&self, x: [f64; 3]) -> Vec<f64> {
        let (rho, c) = if x[0] < self.interface { self.layers[0] } else { self.layers[1] };
        vec![rho, c]
    }
    fn boundary_conditions(&self) -> HashMap<String, String> {
        let mut map: HashMap<String, String> =
            ["ymin", "ymax", "zmin", "zmax"].iter().map(|t| (t.to_string(), "wall".to_string())).collect();
        map.insert("xmin".into(), "absorbing".into());
        map.insert("xmax".into(), "absorbing".into());
        map
    }
    fn analytic_coefficients(&self) -> Option<(f64, f64)> {
        Some(self.coefficients())
    }
    fn interface_shapes(&self, x: [f64; 3], t: f64) -> Option<(f64, f64)> {
        let (a, c1, c2) = (self.interface, self.layers[0].1, self.layers[1].1);
        Some(if x[0] < a {
            (self.pulse(2.0 * a - x[0] - c1 * t), 0.0)
        } else {
            (0.0, self.pulse(a + c1 / c2 * (x[0] - a) - c1 * t))
        })
    }
    fn exact(&self, x: [f64; 3], t: f64, q: &mut [f64]) {
        let (a, [(rho1, c1), (rho2, c2)]) = (self.interface, self.layers);
        let (z1, z2) = (rho1 * c1, rho2 * c2);
        let (r, tr) = self.coefficients();
        let (p, v) = if x[0] < a {
            let incident = self.pulse(x[0] - c1 * t);
            let reflected = r * self.pulse(2.0 * a - x[0] - c1 * t);
            (incident + reflected, (incident - reflected) / z1)
        } else {
            let transmitted = tr * self.pulse(a + c1 / c2 * (x[0] - a) - c1 * t);
            (transmitted, transmitted / z2)
        };
        q[0] = p;
        q[1] = v;
        q[2] = 0.0;
        q[3] = 0.0;
    }
}
