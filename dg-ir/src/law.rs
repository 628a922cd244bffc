//! The IR of a whole law, its content hash, and the registry of laws linked into the program.

use crate::function::IrFunction;
use crate::graph::{InputKind, Op};
use sha2::{Digest, Sha256};
use std::fmt::Write as _;

/// What a function of the law is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FunctionRole {
    /// F(q): DIM × NVARS outputs, dimension-major.
    Flux,
    /// Largest wave speed along n: one output.
    MaxSpeed,
    /// A numerical flux n·F*(q⁻, q⁺): NVARS outputs.
    NumericalFlux,
    /// A boundary ghost state: NVARS outputs.
    Boundary,
    /// The source term: NVARS outputs.
    Source,
    /// Admissibility: one output, positive exactly where the state is physically admissible (positive density
    /// and pressure, say); what a positivity guard checks.
    Admissible,
}

/// The intermediate representation of one law.
#[derive(Debug, Clone, PartialEq)]
pub struct LawIr {
    /// Law name.
    pub name: String,
    /// Space dimension.
    pub dim: usize,
    /// State variable names.
    pub variables: Vec<String>,
    /// Material parameter names.
    pub materials: Vec<String>,
    /// Law parameters (`#[param]` constants): names and default values.
    pub params: Vec<(String, f64)>,
    /// Functions with their roles. Numerical fluxes and boundaries are named `numerical_flux:<name>` and
    /// `boundary:<name>`.
    pub functions: Vec<(FunctionRole, IrFunction)>,
}

impl LawIr {
    /// The function with this name.
    pub fn function(&self, name: &str) -> Option<&IrFunction> {
        self.functions.iter().find(|(_, f)| f.name == name).map(|(_, f)| f)
    }

    /// Functions of one role.
    pub fn functions_of(&self, role: FunctionRole) -> impl Iterator<Item = &IrFunction> {
        self.functions.iter().filter(move |(r, _)| *r == role).map(|(_, f)| f)
    }

    /// The law's parameters at their default values, in the IR's order.
    fn default_params(&self) -> Vec<f64> {
        self.params.iter().map(|p| p.1).collect()
    }

    /// Generic material values (0.7, 1.01, 1.32, …): where a property must hold for any material.
    fn generic_materials(&self) -> Vec<f64> {
        (0..self.materials.len()).map(|i| 0.7 + 0.31 * i as f64).collect()
    }

    /// Whether the law is linear: its flux is affine in the state and so is every numerical flux.
    pub fn is_linear(&self) -> bool {
        self.functions
            .iter()
            .filter(|(r, _)| matches!(r, FunctionRole::Flux | FunctionRole::NumericalFlux))
            .all(|(_, f)| f.linear_outputs().iter().all(|&l| l))
    }

    /// Whether a run whose boundary faces take the conditions `conditions` (names as the law offers them, without
    /// the `boundary:` prefix) may take energy growth for instability: a linear law without a source term whose
    /// every such condition is homogeneous ([`LawIr::boundary_is_homogeneous`]). With upwind or central fluxes its
    /// energy then cannot grow; a source may feed it (a forcing does), and so may a prescribed inflow (a ghost
    /// state with a term of its own: a position, the time, a constant).
    pub fn energy_cannot_grow<'a>(&self, conditions: impl IntoIterator<Item = &'a str>) -> bool {
        self.is_linear()
            && self.functions_of(FunctionRole::Source).next().is_none()
            && conditions.into_iter().all(|c| self.boundary_is_homogeneous(c))
    }

    /// Whether boundary condition `name` gives a ghost state linear in the interior state with no term of its own:
    /// it reads only the interior state, materials, the normal and parameters, every output is linear in the state,
    /// and the zero state gives the zero ghost (normal, materials and parameters at generic values). False for a
    /// condition the law does not have. A reflecting wall is homogeneous; an inflow of prescribed values is not.
    pub fn boundary_is_homogeneous(&self, name: &str) -> bool {
        let Some(function) = self.function(&format!("boundary:{name}")) else { return false };
        let reads_only_the_state_and_coefficients = function.nodes.iter().all(|op| match op {
            Op::Input(kind, _) => {
                matches!(kind, InputKind::StateM | InputKind::MaterialM | InputKind::Normal | InputKind::Param)
            }
            _ => true,
        });
        if !reads_only_the_state_and_coefficients || !function.linear_outputs().iter().all(|&l| l) {
            return false;
        }
        let (materials, params) = (self.generic_materials(), self.default_params());
        // a condition may branch on the normal (inflow on one side, outflow on the other): every axis direction
        // both ways and two oblique ones
        let dim = self.dim.clamp(1, 3);
        let mut normals: Vec<[f64; 3]> = Vec::new();
        for axis in 0..dim {
            for sign in [1.0, -1.0] {
                let mut n = [0.0; 3];
                n[axis] = sign;
                normals.push(n);
            }
        }
        normals.extend([[0.6, 0.48, 0.64], [-0.48, 0.64, -0.6]].map(|n| {
            let norm = n[..dim].iter().map(|c| c * c).sum::<f64>().sqrt();
            n.map(|c| c / norm)
        }));
        normals.iter().all(|normal| {
            let inputs = crate::function::Inputs::default()
                .with(InputKind::StateM, &vec![0.0; self.variables.len()])
                .with(InputKind::MaterialM, &materials)
                .with(InputKind::Normal, &normal[..dim])
                .with(InputKind::Param, &params);
            function.eval(&inputs).iter().all(|v| *v == 0.0)
        })
    }

    /// Whether numerical flux `name` (without the `numerical_flux:` prefix) is conservative: what it gives the
    /// element on one side of a face is minus what it gives the other, F*(q⁻, q⁺, m⁻, m⁺, n) = −F*(q⁺, q⁻, m⁺, m⁻,
    /// −n). Kernels that compute each face's flux once and hand its negative to the neighbour need this; a flux in
    /// a non-conservative form across a material jump (seed 002's acoustics penalty form) does not have it.
    /// Checked at twelve pairs of states from `states` (admissible ones: states the law's `admissible` function
    /// refuses are skipped), random positive materials and random unit normals; false for a flux the law does not
    /// have, or when no pair gave finite fluxes.
    pub fn numerical_flux_is_conservative(&self, name: &str, states: &mut dyn FnMut() -> Vec<f64>) -> bool {
        let Some(flux) = self.function(&format!("numerical_flux:{name}")) else { return false };
        let admissible = self.functions_of(FunctionRole::Admissible).next();
        let (nv, nmat) = (self.variables.len(), self.materials.len());
        let params = self.default_params();
        // splitmix64: a fixed sequence, no dependency
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut uniform = move || {
            seed = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = seed;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d4_9bb1_3311_eb57);
            ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
        };
        let base = |kind_values: &[(InputKind, &[f64])]| {
            let mut inputs = crate::function::Inputs::default()
                .with(InputKind::Param, &params)
                .with(InputKind::Position, &[0.3, 0.2, 0.1])
                .with(InputKind::Time, &[0.0]);
            for (kind, values) in kind_values {
                inputs = inputs.with(*kind, values);
            }
            inputs
        };
        let is_admissible = |q: &[f64], m: &[f64]| {
            admissible.is_none_or(|a| {
                let out = a.eval(&base(&[(InputKind::StateM, q), (InputKind::MaterialM, m)]));
                out.first().is_some_and(|v| *v > 0.0)
            })
        };
        let mut checked = 0;
        for _ in 0..400 {
            if checked == 12 {
                break;
            }
            let (qm, qp) = (states(), states());
            if qm.len() != nv || qp.len() != nv {
                return false;
            }
            let mm: Vec<f64> = (0..nmat).map(|_| 0.5 + 1.5 * uniform()).collect();
            let mp: Vec<f64> = (0..nmat).map(|_| 0.5 + 1.5 * uniform()).collect();
            if !is_admissible(&qm, &mm) || !is_admissible(&qp, &mp) {
                continue;
            }
            let angle = std::f64::consts::TAU * uniform();
            let polar = std::f64::consts::PI * uniform();
            let n = [angle.cos() * polar.sin(), angle.sin() * polar.sin(), polar.cos()];
            let n: Vec<f64> =
                if self.dim == 2 { vec![angle.cos(), angle.sin()] } else { n[..self.dim.min(3)].to_vec() };
            let minus_n: Vec<f64> = n.iter().map(|c| -c).collect();
            // the flux an element with state q and material m receives through normal n from the other side's
            let seen_from = |(q, m): (&[f64], &[f64]), (other_q, other_m): (&[f64], &[f64]), n: &[f64]| {
                flux.eval(&base(&[
                    (InputKind::StateM, q),
                    (InputKind::StateP, other_q),
                    (InputKind::MaterialM, m),
                    (InputKind::MaterialP, other_m),
                    (InputKind::Normal, n),
                ]))
            };
            let own = seen_from((&qm, &mm), (&qp, &mp), &n);
            let other = seen_from((&qp, &mp), (&qm, &mm), &minus_n);
            if own.iter().chain(&other).any(|v| !v.is_finite()) {
                continue;
            }
            let scale = own.iter().chain(&other).fold(1.0_f64, |s, v| s.max(v.abs()));
            if own.iter().zip(&other).any(|(a, b)| (a + b).abs() > 1e-10 * scale) {
                return false;
            }
            checked += 1;
        }
        checked > 0
    }

    /// Whether the flux is linear and homogeneous in the state, F(q) = (A_x q, A_y q, …) with A depending only on
    /// materials and parameters. Then, with materials constant per element, ∇·F(q) = Σ_d A_d ∂q/∂x_d = Σ_d
    /// F_d(∂q/∂x_d): kernels may differentiate the fields first and apply the flux to the derivatives.
    pub fn flux_is_linear_homogeneous(&self) -> bool {
        let Some(flux) = self.function("flux") else { return false };
        if !flux.linear_outputs().iter().all(|&l| l) {
            return false;
        }
        // affine terms show as a nonzero flux of the zero state (materials and parameters at generic values)
        let (materials, params) = (self.generic_materials(), self.default_params());
        let inputs = crate::function::Inputs::default()
            .with(InputKind::StateM, &vec![0.0; self.variables.len()])
            .with(InputKind::MaterialM, &materials)
            .with(InputKind::Param, &params);
        flux.eval(&inputs).iter().all(|v| *v == 0.0)
    }

    /// For a flux linear and homogeneous in the state ([`LawIr::flux_is_linear_homogeneous`]), which fields each
    /// variable's flux reads: `reads[v][w]` when some direction's flux of variable `v` has a nonzero coefficient of
    /// field `w` (evaluated at two generic sets of materials, the law's parameters at their defaults). `None` for
    /// any other flux.
    pub fn linear_flux_reads(&self) -> Option<Vec<Vec<bool>>> {
        if !self.flux_is_linear_homogeneous() {
            return None;
        }
        let flux = self.function("flux")?;
        let nv = self.variables.len();
        let params = self.default_params();
        let mut reads = vec![vec![false; nv]; nv];
        for set in 0..2 {
            let materials: Vec<f64> =
                (0..self.materials.len()).map(|i| 0.7 + 0.31 * i as f64 + 0.53 * set as f64).collect();
            for (w, _) in self.variables.iter().enumerate() {
                let mut unit = vec![0.0; nv];
                unit[w] = 1.0;
                let inputs = crate::function::Inputs::default()
                    .with(InputKind::StateM, &unit)
                    .with(InputKind::MaterialM, &materials)
                    .with(InputKind::Param, &params);
                // outputs dimension-major: F_d of variable v at d·nv + v
                for (i, value) in flux.eval(&inputs).iter().enumerate() {
                    if *value != 0.0 {
                        reads[i % nv][w] = true;
                    }
                }
            }
        }
        Some(reads)
    }

    /// The cheapest way to form the divergence of a linear flux from products with the reference derivative
    /// matrices ([`crate::DivergencePlan`]); `None` unless the flux is linear and homogeneous in the state.
    pub fn divergence_plan(&self) -> Option<crate::DivergencePlan> {
        self.linear_flux_reads().map(|reads| crate::DivergencePlan::cheapest(&reads))
    }

    /// Name of an input, as the printer shows it (`qm.rho`, `mp.c`, `n.x`, `alpha`).
    pub fn input_name(&self, kind: InputKind, index: usize) -> String {
        let var = |names: &[String]| names.get(index).cloned().unwrap_or_else(|| format!("#{index}"));
        let axis = ["x", "y", "z"].get(index).copied().unwrap_or("?");
        match kind {
            InputKind::StateM => format!("qm.{}", var(&self.variables)),
            InputKind::StateP => format!("qp.{}", var(&self.variables)),
            InputKind::MaterialM => format!("mm.{}", var(&self.materials)),
            InputKind::MaterialP => format!("mp.{}", var(&self.materials)),
            InputKind::Normal => format!("n.{axis}"),
            InputKind::Position => format!("x.{axis}"),
            InputKind::Time => "t".into(),
            InputKind::Param => self.params.get(index).map(|p| p.0.clone()).unwrap_or_else(|| format!("param#{index}")),
        }
    }

    /// Readable listing of every function with its flop counts.
    pub fn print(&self) -> String {
        let mut text = String::new();
        let _ = writeln!(
            text,
            "law {} (dim {}, state [{}], material [{}], params [{}]), {} ({}), hash {}",
            self.name,
            self.dim,
            self.variables.join(", "),
            self.materials.join(", "),
            self.params.iter().map(|(n, v)| format!("{n} = {v}")).collect::<Vec<_>>().join(", "),
            if self.is_linear() { "linear" } else { "nonlinear" },
            if self.is_linear() { "flux affine in q" } else { "flux not affine in q" },
            self.hash()
        );
        let nv = self.variables.len();
        for (role, f) in &self.functions {
            let vars = &self.variables;
            let output_name = |i: usize| -> String {
                match role {
                    FunctionRole::Flux => format!("F{}.{}", ["x", "y", "z"][i / nv], vars[i % nv]),
                    FunctionRole::MaxSpeed => "speed".into(),
                    _ => format!("out.{}", vars.get(i).cloned().unwrap_or_default()),
                }
            };
            text.push('\n');
            text.push_str(&f.print(&|k, i| self.input_name(k, i), &output_name));
        }
        text
    }

    /// Stable content hash (hex, 16 digits): SHA-256 of a canonical serialization of names, parameters and
    /// every function's DAG. Independent of the platform and of the order of unrelated code.
    pub fn hash(&self) -> String {
        let mut canon = String::new();
        let _ =
            write!(canon, "law:{}|dim:{}|vars:{:?}|mats:{:?}|", self.name, self.dim, self.variables, self.materials);
        for (name, value) in &self.params {
            let _ = write!(canon, "param:{name}={:016x}|", value.to_bits());
        }
        for (role, f) in &self.functions {
            let _ = write!(canon, "fn:{role:?}:{}|", f.name);
            for op in &f.nodes {
                let _ = match op {
                    Op::Const(bits) => write!(canon, "c{bits:016x};"),
                    other => write!(canon, "{other:?};"),
                };
            }
            let _ = write!(canon, "out:{:?}|", f.outputs);
        }
        let digest = Sha256::digest(canon.as_bytes());
        digest.iter().take(8).map(|b| format!("{b:02x}")).collect()
    }
}

/// A law linked into the program, as the macro registers it.
pub struct LawRegistration {
    /// Law name.
    pub name: &'static str,
    /// Space dimension.
    pub dim: usize,
    /// Builds the IR.
    pub ir: fn() -> LawIr,
}

inventory::collect!(LawRegistration);

/// Every law registered by the macro in the crates linked into this program, sorted by name.
pub fn registered_laws() -> Vec<&'static LawRegistration> {
    let mut laws: Vec<&'static LawRegistration> = inventory::iter::<LawRegistration>.into_iter().collect();
    laws.sort_by_key(|l| l.name);
    laws
}
