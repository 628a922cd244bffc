//! dg: discontinuous Galerkin solvers for conservation laws, from a flux description to tuned kernels.
//!
//! This facade re-exports the workspace crates ([`cases`]: named problems; [`maxwell_run`] and the other runners of
//! `dg-run`; [`registry`], every linked law; [`commands`], the bodies of the kernel commands; the formulation
//! crates and [`cli`], the `dg` command line: arguments and dispatch).
//!
//! ```
//! use dg::prelude::*;
//! let case = dg::cases::find("maxwell-cavity").unwrap();
//! let mesh = case.default_mesh(4, 4).unwrap();
//! let space = DgSpace2d::new(mesh, 3).unwrap();
//! let outcome = dg::maxwell_run::run(Precision::F64, &space, case.as_ref(), &RunOptions::default(), None, &mut |_, _| {}).unwrap();
//! assert!(outcome.report.l2_error.unwrap() < 1e-3);
//! ```

/// The crate is also reachable as `dg` from inside itself (the macro's generated code names it so).
extern crate self as dg;

/// The `dg` command line: arguments and dispatch (the `dg-cli` crate); [`cli::main`] is the whole program.
pub use dg_cli as cli;
/// The bodies of the kernel commands (the `dg-commands` crate).
pub use dg_commands as commands;

#[doc(hidden)]
pub use dg_run::__register_law_commands;
/// Runners, the formulation registry and the shipped database (the `dg-run` crate), at their old paths.
pub use dg_run::{
    elliptic_run, euler_run, euler_study, formulations, fv_run, hex_run, maxwell_run, output, partitioned,
    partitioned_euler, partitioned_fv, partitioned_hex, partitioned_tet, picture, registry, run_options, shipped_db,
    wave_run, winners, Precision, RunError,
};

/// Named problems (the `dg-cases` crate).
pub use dg_cases as cases;
pub use dg_codegen;
pub use dg_core;
pub use dg_fv;
pub use dg_hdg;
pub use dg_hex;
pub use dg_ir;
pub use dg_laws;
pub use dg_modal_tri;
pub use dg_nodal_tet;
pub use dg_nodal_tri;
pub use dg_parallel;
pub use dg_run;
pub use dg_runtime;

/// `dg::core` and `dg::ir` are the paths the macro's generated code uses.
pub use dg_core as core;
pub use dg_ir as ir;
/// The macro that declares a conservation law (syntax: `docs/laws.md`).
pub use dg_macros::conservation_law;

/// The names most programs need.
pub mod prelude {
    pub use crate::maxwell_run::{RunOptions, RunReport};
    pub use crate::run_options::CommonRunOptions;
    pub use crate::Precision;
    pub use dg_cases::MaxwellCase;
    pub use dg_core::law::ConservationLaw;
    pub use dg_core::mesh::{read_gmsh, rectangle, refine_uniform, Diagonal, RectangleSpec, TriMesh};
    pub use dg_core::space::DgSpace2d;
    pub use dg_core::Real;
    pub use dg_laws::MaxwellTm;
    pub use dg_runtime::time::{Integrator, OdeSystem, Scheme};
}
