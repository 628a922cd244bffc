//! A user's own law: linear advection with decay, ∂u/∂t + a·∇u = −κu, on the periodic unit square.
//! Exact solution: u(x, t) = u₀(x − a t) e^(−κt).
//!
//! Without arguments the program runs it with dg's CPU solver, prints the error and the laws this program knows
//! (its own among dg's), and fails if the error is not small. With arguments it is the whole `dg` command line,
//! its own law included:
//!
//! ```sh
//! cargo run -- verify two_tracers --order 1..4 --device opencl
//! cargo run -- autotune two_tracers --orders 1..4
//! cargo run -- emit two_tracers --order 3 --variant node/mb1/seq1/field-local/fused/elem-major/f32
//! ```
//!
//! (`decaying_advection` has a source term, which the generated kernels do not evaluate yet: the kernel commands
//! refuse it with that reason, and it runs on the CPU path.)

use dg::cases::MaxwellCase;
use dg::maxwell_run::run_with_law;
use dg::prelude::*;
use std::f64::consts::PI;

#[dg::conservation_law(dim = 2)]
pub mod decaying_advection {
    pub struct State {
        pub u: Real,
    }

    /// Velocity.
    #[param]
    pub const AX: Real = 1.0;
    #[param]
    pub const AY: Real = 0.5;
    /// Decay rate κ.
    #[param]
    pub const KAPPA: Real = 0.8;

    pub fn flux(q: State) -> [State; 2] {
        [State { u: AX * q.u }, State { u: AY * q.u }]
    }

    pub fn max_speed(q: State, n: Normal) -> Real {
        (AX * n.x + AY * n.y).abs()
    }

    pub fn numerical_flux(qm: State, qp: State, n: Normal) -> State {
        upwind(qm, qp, n)
    }

    pub fn source(q: State, x: Position, t: Real) -> State {
        State { u: -KAPPA * q.u }
    }
}

/// Two passive tracers carried by different velocities, without a source, with a boundary state that depends on
/// the position and time: a law whose kernels dg generates, verifies and tunes through this program's own command
/// line (`cargo run -- verify two_tracers --order 1..4`).
#[dg::conservation_law(dim = 2)]
pub mod two_tracers {
    pub struct State {
        pub a: Real,
        pub b: Real,
    }

    /// Velocity of the first tracer.
    #[param]
    pub const UA: Real = 1.0;
    #[param]
    pub const VA: Real = 0.25;
    /// Velocity of the second tracer.
    #[param]
    pub const UB: Real = -0.5;
    #[param]
    pub const VB: Real = 0.75;

    pub fn flux(q: State) -> [State; 2] {
        [State { a: UA * q.a, b: UB * q.b }, State { a: VA * q.a, b: VB * q.b }]
    }

    pub fn max_speed(q: State, n: Normal) -> Real {
        (UA * n.x + VA * n.y).abs().max((UB * n.x + VB * n.y).abs())
    }

    pub fn numerical_flux(qm: State, qp: State, n: Normal) -> State {
        rusanov(qm, qp, n)
    }

    /// The outer state on the boundary: the first tracer from a profile of the position and time (the generated
    /// kernels read the face nodes' coordinates here, and `verify` holds them to the CPU's), the second its own.
    #[boundary]
    pub fn inflow(q: State, n: Normal, x: Position, t: Real) -> State {
        State { a: sin(3.0 * x.x - 2.0 * x.y + t), b: q.b }
    }
}

/// The periodic problem with its exact solution.
struct DecayingWave {
    law: decaying_advection::Law,
}

impl DecayingWave {
    fn profile(x: f64, y: f64) -> f64 {
        (2.0 * PI * x).sin() * (2.0 * PI * y).cos()
    }
}

impl MaxwellCase for DecayingWave {
    fn name(&self) -> &'static str {
        "decaying-wave"
    }
    fn description(&self) -> &'static str {
        "advected, decaying sine wave on the periodic unit square"
    }
    fn default_mesh(&self, nx: usize, ny: usize) -> Result<TriMesh, dg::dg_core::MeshError> {
        rectangle(&RectangleSpec {
            periodic_x: true,
            periodic_y: true,
            ..RectangleSpec { ny, ..RectangleSpec::unit_square(nx) }
        })
    }
    fn default_t_end(&self) -> f64 {
        0.5
    }
    fn initial(&self, x: f64, y: f64, q: &mut [f64]) {
        q[0] = Self::profile(x, y);
    }
    fn exact(&self, x: f64, y: f64, t: f64, q: &mut [f64]) -> bool {
        q[0] = Self::profile(x - self.law.ax * t, y - self.law.ay * t) * (-self.law.kappa * t).exp();
        true
    }
    fn has_exact(&self) -> bool {
        true
    }
}

fn main() -> std::process::ExitCode {
    if std::env::args().len() > 1 {
        return dg::cli::main();
    }
    let case = DecayingWave { law: decaying_advection::Law::default() };
    let mut errors = Vec::new();
    for n in [4, 8] {
        let mesh = case.default_mesh(n, n).expect("valid mesh");
        let space = DgSpace2d::new(mesh, 3).expect("valid space");
        let outcome = run_with_law::<_, f64>(&space, case.law, &case, &RunOptions::default(), None, &mut |_, _| {})
            .expect("the run succeeds");
        let error = outcome.report.l2_error.expect("exact solution");
        println!("decaying_advection N=3 {n}x{n}: L2 error {error:.3e} after {} steps", outcome.report.steps);
        errors.push(error);
    }
    let rate = (errors[0] / errors[1]).log2();
    println!("observed order {rate:.2}");
    let laws: Vec<&str> = dg::ir::registered_laws().iter().map(|l| l.name).collect();
    println!("laws known to this program: {}", laws.join(", "));
    if errors[1] < 1e-3 && rate > 3.5 && laws.contains(&"decaying_advection") && laws.contains(&"euler2d") {
        println!("ok");
        std::process::ExitCode::SUCCESS
    } else {
        eprintln!("unexpected result: errors {errors:?}, laws {laws:?}");
        std::process::ExitCode::FAILURE
    }
}
