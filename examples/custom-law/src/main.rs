//! A user's own law: linear advection with decay and a forcing, ∂u/∂t + a·∇u = −κu + g(x, t), on the periodic unit
//! square, with g chosen so that u(x, t) = u₀(x − a t) e^(−κt) + F sin(2π(x + 2y)) cos t is the exact solution
//! (g = ∂h/∂t + a·∇h + κh for the forced part h = F sin(2π(x + 2y)) cos t).
//!
//! Without arguments the program runs it with dg's CPU solver, prints the error and the laws this program knows
//! (its own among dg's), and fails if the error is not small. With arguments it is the whole `dg` command line,
//! its own laws included (the source term, which reads the position and the time, runs in the generated kernels):
//!
//! ```sh
//! cargo run -- verify decaying_advection --order 1..4 --device opencl
//! cargo run -- verify decaying_advection --formulation modal-tri --order 1..4 --device opencl
//! cargo run -- verify two_tracers --order 1..4 --device opencl
//! cargo run -- autotune two_tracers --orders 1..4
//! cargo run -- emit two_tracers --order 3 --variant node/mb1/seq1/field-local/fused/elem-major/f32
//! ```

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
    /// Amplitude F of the forced part of the solution.
    #[param]
    pub const FORCE: Real = 0.5;
    const TWO_PI: Real = 6.283185307179586;

    pub fn flux(q: State) -> [State; 2] {
        [State { u: AX * q.u }, State { u: AY * q.u }]
    }

    pub fn max_speed(q: State, n: Normal) -> Real {
        (AX * n.x + AY * n.y).abs()
    }

    pub fn numerical_flux(qm: State, qp: State, n: Normal) -> State {
        upwind(qm, qp, n)
    }

    /// Decay, and the forcing g = ∂h/∂t + a·∇h + κh of h = F sin(2π(x + 2y)) cos t.
    pub fn source(q: State, x: Position, t: Real) -> State {
        let phase = TWO_PI * (x.x + 2.0 * x.y);
        let g = FORCE * ((KAPPA * cos(t) - sin(t)) * sin(phase) + TWO_PI * (AX + 2.0 * AY) * cos(phase) * cos(t));
        State { u: -KAPPA * q.u + g }
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

/// The same in three dimensions, ∂u/∂t + a·∇u = −κu + F sin(2π(x + 2y + 3z) + t), with an inflow boundary state
/// that reads the position and the time: the tetrahedral and hexahedral kernels evaluate its source
/// (`cargo run -- verify damped_advection3d --formulation nodal-tet --order 1..3`, `--formulation hex`).
#[dg::conservation_law(dim = 3)]
pub mod damped_advection3d {
    pub struct State {
        pub u: Real,
    }

    /// Velocity.
    #[param]
    pub const AX: Real = 0.75;
    #[param]
    pub const AY: Real = -0.5;
    #[param]
    pub const AZ: Real = 0.25;
    /// Decay rate κ.
    #[param]
    pub const KAPPA: Real = 0.6;
    /// Amplitude F of the forcing.
    #[param]
    pub const FORCE: Real = 0.5;
    const TWO_PI: Real = 6.283185307179586;

    pub fn flux(q: State) -> [State; 3] {
        [State { u: AX * q.u }, State { u: AY * q.u }, State { u: AZ * q.u }]
    }

    pub fn max_speed(q: State, n: Normal) -> Real {
        (AX * n.x + AY * n.y + AZ * n.z).abs()
    }

    pub fn numerical_flux(qm: State, qp: State, n: Normal) -> State {
        upwind(qm, qp, n)
    }

    /// Decay and a forcing of the position and the time.
    pub fn source(q: State, x: Position, t: Real) -> State {
        State { u: -KAPPA * q.u + FORCE * sin(TWO_PI * (x.x + 2.0 * x.y + 3.0 * x.z) + t) }
    }

    /// A prescribed state where the flow enters.
    #[boundary]
    pub fn inflow(q: State, n: Normal, x: Position, t: Real) -> State {
        State { u: cos(x.x - x.y + 2.0 * x.z - t) }
    }
}

/// The periodic problem with its exact solution (the law's parameters at their declared values).
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
        "advected, decaying, forced sine wave on the periodic unit square"
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
        self.exact(x, y, 0.0, q);
    }
    fn exact(&self, x: f64, y: f64, t: f64, q: &mut [f64]) -> bool {
        let forced = self.law.force * (2.0 * PI * (x + 2.0 * y)).sin() * t.cos();
        q[0] = Self::profile(x - self.law.ax * t, y - self.law.ay * t) * (-self.law.kappa * t).exp() + forced;
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
    for n in [6, 12] {
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
    // the same run on the best device found (CUDA, then OpenCL), in generated kernels that add the source: it must
    // end where the CPU run ended
    let device_agrees = match dg::dg_runtime::backend::open(&dg::dg_runtime::backend::DeviceSelector::Auto) {
        Ok(mut device) => {
            let mesh = case.default_mesh(12, 12).expect("valid mesh");
            let space = DgSpace2d::new(mesh, 3).expect("valid space");
            let mut opts = RunOptions::default();
            opts.common.variant = Some("elem/wg128/seq1/matrix-local/merged/node-major/f64".into());
            let outcome = run_with_law::<_, f64>(&space, case.law, &case, &opts, Some(device.as_mut()), &mut |_, _| {});
            match outcome.map(|o| o.report.l2_error) {
                Ok(Some(error)) => {
                    println!("decaying_advection N=3 12x12 on {}: L2 error {error:.3e}", device.fingerprint().name);
                    (error - errors[1]).abs() <= 1e-6 * errors[1]
                }
                other => {
                    eprintln!("the device run failed: {other:?}");
                    false
                }
            }
        }
        Err(e) => {
            println!("no device ({e}): the device run is skipped");
            true
        }
    };
    let laws: Vec<&str> = dg::ir::registered_laws().iter().map(|l| l.name).collect();
    println!("laws known to this program: {}", laws.join(", "));
    let known = laws.contains(&"decaying_advection") && laws.contains(&"euler2d");
    if errors[1] < 1e-3 && rate > 3.5 && device_agrees && known {
        println!("ok");
        std::process::ExitCode::SUCCESS
    } else {
        eprintln!("unexpected result: errors {errors:?}, laws {laws:?}");
        std::process::ExitCode::FAILURE
    }
}
