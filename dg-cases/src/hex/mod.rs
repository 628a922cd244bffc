//! Cases on hexahedra (seed 003): Maxwell's equations and the Euler equations in 3D on boxes of trilinear cells,
//! each with an exact solution.

use dg_core::hexmesh::{hex_box_mesh, HexBoxSpec, HexMesh};
use dg_core::mesh3d::BOX_TAGS;
use dg_core::MeshError;
use std::collections::HashMap;
use std::f64::consts::PI;

/// Which law of the physics crate a case solves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HexLaw {
    /// `maxwell3d`: E, H in normalised units.
    Maxwell,
    /// `euler3d`: ρ, ρu, E.
    Euler,
}

/// A problem `dg run` and `dg convergence` solve on hexahedra.
pub trait HexCase: Send + Sync {
    /// Command-line name.
    fn name(&self) -> &'static str;
    /// One-line description.
    fn description(&self) -> &'static str;
    /// The law.
    fn law(&self) -> HexLaw;
    /// The box with `n` cells per direction (straight cells).
    fn box_spec(&self, n: usize) -> HexBoxSpec;
    /// Cells per direction when none are given.
    fn default_cells(&self) -> usize {
        4
    }
    /// The mesh with `n` cells per direction, its vertices moved by `distortion` (a fraction of the cell size;
    /// 0 keeps axis-aligned boxes).
    fn mesh(&self, n: usize, distortion: f64) -> Result<HexMesh, MeshError> {
        hex_box_mesh(&HexBoxSpec { distortion, ..self.box_spec(n) })
    }
    /// Default final time.
    fn default_t_end(&self) -> f64;
    /// Boundary tag → law condition (empty: the law's only condition, or none on a periodic box).
    fn boundary_conditions(&self) -> HashMap<String, String> {
        HashMap::new()
    }
    /// The numerical flux the case runs with unless another is asked for (`None`: the law's default).
    fn flux(&self) -> Option<&'static str> {
        None
    }
    /// Initial state at x.
    fn initial(&self, x: [f64; 3], q: &mut [f64]) {
        self.exact(x, 0.0, q);
    }
    /// Exact state at (x, t).
    fn exact(&self, x: [f64; 3], t: f64, q: &mut [f64]);
}

/// Every hexahedral case.
pub fn all() -> Vec<Box<dyn HexCase>> {
    vec![Box::new(Maxwell3dPlaneWave), Box::new(Maxwell3dCavity), Box::new(Euler3dDensityWave)]
}

/// `maxwell3d-plane-wave`: E = E₀ cos(k·x − ωt), H = k̂ × E on the periodic unit cube, k = 2π(1, 1, 1), E₀ = (1, −1,
/// 0)/√2, ω = |k|.
#[derive(Debug, Clone, Copy, Default)]
pub struct Maxwell3dPlaneWave;

impl HexCase for Maxwell3dPlaneWave {
    fn name(&self) -> &'static str {
        "maxwell3d-plane-wave"
    }
    fn description(&self) -> &'static str {
        "3D Maxwell, plane wave along (1,1,1) in the periodic unit cube, exact (seed 003, hexahedra)"
    }
    fn law(&self) -> HexLaw {
        HexLaw::Maxwell
    }
    fn box_spec(&self, n: usize) -> HexBoxSpec {
        HexBoxSpec::unit_cube(n, true)
    }
    fn default_t_end(&self) -> f64 {
        0.25
    }
    fn exact(&self, x: [f64; 3], t: f64, q: &mut [f64]) {
        let k = [2.0 * PI; 3];
        let omega = (k.iter().map(|c| c * c).sum::<f64>()).sqrt();
        let e0 = [1.0 / 2f64.sqrt(), -1.0 / 2f64.sqrt(), 0.0];
        let kh = k.map(|c| c / omega);
        let h0 = [kh[1] * e0[2] - kh[2] * e0[1], kh[2] * e0[0] - kh[0] * e0[2], kh[0] * e0[1] - kh[1] * e0[0]];
        let phase = (k[0] * x[0] + k[1] * x[1] + k[2] * x[2] - omega * t).cos();
        for d in 0..3 {
            q[d] = e0[d] * phase;
            q[3 + d] = h0[d] * phase;
        }
    }
}

/// `maxwell3d-cavity`: the (1, 1, 1) eigenmode of the perfectly conducting unit cube,
/// E = (cos πx sin πy sin πz, −sin πx cos πy sin πz, 0) cos ωt, H = −∇×E₀ sin(ωt)/ω, ω = √3 π.
#[derive(Debug, Clone, Copy, Default)]
pub struct Maxwell3dCavity;

impl HexCase for Maxwell3dCavity {
    fn name(&self) -> &'static str {
        "maxwell3d-cavity"
    }
    fn description(&self) -> &'static str {
        "3D Maxwell, (1,1,1) eigenmode of the perfectly conducting unit cube, exact (seed 003, hexahedra)"
    }
    fn law(&self) -> HexLaw {
        HexLaw::Maxwell
    }
    fn box_spec(&self, n: usize) -> HexBoxSpec {
        HexBoxSpec::unit_cube(n, false)
    }
    fn default_t_end(&self) -> f64 {
        0.5
    }
    fn boundary_conditions(&self) -> HashMap<String, String> {
        BOX_TAGS.iter().map(|t| (t.to_string(), "pec".to_string())).collect()
    }
    fn exact(&self, x: [f64; 3], t: f64, q: &mut [f64]) {
        let omega = 3f64.sqrt() * PI;
        let a = [1.0, -1.0, 0.0];
        let (c, s) = (x.map(|x| (PI * x).cos()), x.map(|x| (PI * x).sin()));
        let e0 = [a[0] * c[0] * s[1] * s[2], a[1] * s[0] * c[1] * s[2], a[2] * s[0] * s[1] * c[2]];
        // ∇×E₀ with wave numbers π in every direction
        let curl = [
            PI * s[0] * c[1] * c[2] * (a[2] - a[1]),
            PI * c[0] * s[1] * c[2] * (a[0] - a[2]),
            PI * c[0] * c[1] * s[2] * (a[1] - a[0]),
        ];
        for d in 0..3 {
            q[d] = e0[d] * (omega * t).cos();
            q[3 + d] = -curl[d] * (omega * t).sin() / omega;
        }
    }
}

/// `euler3d-density-wave`: ρ = 1 + 0.2 sin 2π(x + y + z − 1.75 t), u = (1, 0.5, 0.25), p = 1 on the periodic unit
/// cube (a density wave carried by a uniform flow).
#[derive(Debug, Clone, Copy, Default)]
pub struct Euler3dDensityWave;

impl Euler3dDensityWave {
    const VELOCITY: [f64; 3] = [1.0, 0.5, 0.25];
    const GAMMA: f64 = 1.4;
}

impl HexCase for Euler3dDensityWave {
    fn name(&self) -> &'static str {
        "euler3d-density-wave"
    }
    fn description(&self) -> &'static str {
        "3D Euler, density wave in a uniform flow across the periodic unit cube, exact (seed 003, hexahedra)"
    }
    fn law(&self) -> HexLaw {
        HexLaw::Euler
    }
    fn box_spec(&self, n: usize) -> HexBoxSpec {
        HexBoxSpec::unit_cube(n, true)
    }
    fn default_t_end(&self) -> f64 {
        0.2
    }
    /// HLLC resolves the contact wave this case carries; with Rusanov's flux, which damps it at the fastest
    /// speed, D = 2 converges at 2.3–2.5 over 3–24 cells per direction instead of 3.
    fn flux(&self) -> Option<&'static str> {
        Some("hllc_flux")
    }
    fn exact(&self, x: [f64; 3], t: f64, q: &mut [f64]) {
        let u = Self::VELOCITY;
        let shift: f64 = u.iter().sum::<f64>() * t;
        let rho = 1.0 + 0.2 * (2.0 * PI * (x[0] + x[1] + x[2] - shift)).sin();
        let pressure = 1.0;
        q[0] = rho;
        for d in 0..3 {
            q[1 + d] = rho * u[d];
        }
        q[4] = pressure / (Self::GAMMA - 1.0) + 0.5 * rho * u.iter().map(|c| c * c).sum::<f64>();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Central differences of the exact solutions satisfy the PDEs (Maxwell: ∂E/∂t = ∇×H, ∂H/∂t = −∇×E;
    /// Euler: mass conservation ∂ρ/∂t + ∇·(ρu) = 0).
    #[test]
    fn exact_solutions_solve_their_equations() {
        let h = 1e-5;
        let x = [0.31, 0.17, 0.62];
        let t = 0.13;
        for case in [&Maxwell3dPlaneWave as &dyn HexCase, &Maxwell3dCavity] {
            let q = |x: [f64; 3], t: f64| {
                let mut q = [0.0; 6];
                case.exact(x, t, &mut q);
                q
            };
            let dt: Vec<f64> = (0..6).map(|v| (q(x, t + h)[v] - q(x, t - h)[v]) / (2.0 * h)).collect();
            let d = |axis: usize, v: usize| {
                let (mut a, mut b) = (x, x);
                a[axis] += h;
                b[axis] -= h;
                (q(a, t)[v] - q(b, t)[v]) / (2.0 * h)
            };
            let curl = |o: usize| [d(1, o + 2) - d(2, o + 1), d(2, o) - d(0, o + 2), d(0, o + 1) - d(1, o)];
            let (curl_h, curl_e) = (curl(3), curl(0));
            for c in 0..3 {
                assert!((dt[c] - curl_h[c]).abs() < 1e-6, "{}: dE/dt {} vs curl H {}", case.name(), dt[c], curl_h[c]);
                assert!((dt[3 + c] + curl_e[c]).abs() < 1e-6, "{}: dH/dt {} vs −curl E", case.name(), dt[3 + c]);
            }
        }
        let case = Euler3dDensityWave;
        let q = |x: [f64; 3], t: f64| {
            let mut q = [0.0; 5];
            case.exact(x, t, &mut q);
            q
        };
        let drho = (q(x, t + h)[0] - q(x, t - h)[0]) / (2.0 * h);
        let div: f64 = (0..3)
            .map(|a| {
                let (mut p, mut m) = (x, x);
                p[a] += h;
                m[a] -= h;
                (q(p, t)[1 + a] - q(m, t)[1 + a]) / (2.0 * h)
            })
            .sum();
        assert!((drho + div).abs() < 1e-6, "mass: {drho} + {div}");
    }

    #[test]
    fn the_cavity_field_is_tangent_free_on_the_walls() {
        let mut q = [0.0; 6];
        for x in [[0.0, 0.3, 0.7], [1.0, 0.2, 0.4], [0.3, 0.0, 0.6], [0.5, 1.0, 0.1], [0.2, 0.8, 0.0], [0.6, 0.3, 1.0]]
        {
            Maxwell3dCavity.exact(x, 0.1, &mut q);
            let axis = (0..3).find(|&d| x[d] == 0.0 || x[d] == 1.0).expect("on a wall");
            for d in (0..3).filter(|&d| d != axis) {
                assert!(q[d].abs() < 1e-12, "tangential E[{d}] = {} at {x:?}", q[d]);
            }
        }
    }
}
