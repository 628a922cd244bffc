//! The physics crate of dg: conservation laws as small files of flux functions, each written with the
//! `#[conservation_law]` macro (syntax: `docs/laws.md`).
//!
//! | law | dim | state | materials | linear |
//! |---|---|---|---|---|
//! | [`advection2d`], [`advection3d`] | 2, 3 | u | – | yes |
//! | [`burgers2d`] | 2 | u | – | no |
//! | [`maxwell2d`] (TM, flux parameter α) | 2 | Hx, Hy, Ez | – | yes |
//! | [`maxwell3d`] | 3 | Ex, Ey, Ez, Hx, Hy, Hz | – | yes |
//! | [`euler2d`], [`euler3d`] (Rusanov, HLL, HLLC) | 2, 3 | ρ, ρu, E | – | no |
//! | [`acoustics2d`], [`acoustics3d`] (seed 002 upwind flux) | 2, 3 | p, v | ρ, c | yes |
//! | [`elastic3d`] (seed 002 upwind flux) | 3 | v, σ | ρ, λ, μ | yes |
//! | [`shallow_water2d`] | 2 | h, hu, hv | – | no |
//! | [`mhd2d`] (ideal MHD with GLM cleaning; Rusanov, HLL) | 2 | ρ, ρu (3), E, B (3), ψ | – | no |

pub mod acoustics;
pub mod advection;
pub mod burgers;
pub mod elastic;
pub mod euler;
pub mod maxwell;
pub mod mhd;
pub mod shallow_water;

pub use acoustics::{acoustics2d, acoustics3d};
pub use advection::{advection2d, advection3d};
pub use burgers::burgers2d;
pub use elastic::elastic3d;
pub use euler::{euler2d, euler3d};
pub use maxwell::{maxwell2d, maxwell3d};
pub use mhd::mhd2d;
pub use shallow_water::shallow_water2d;

/// Maxwell TM (the law of the first cases).
pub type MaxwellTm = maxwell2d::Law;

/// What the macro's generated code reaches as `dg_path` inside this crate (users of `dg` need none of it).
#[doc(hidden)]
pub mod support {
    pub use dg_core as core;
    pub use dg_ir as ir;

    /// The laws of this crate get their command-line commands registered by `dg` itself (which depends on this
    /// crate, not the other way round).
    macro_rules! __register_law_commands {
        ($law:ty) => {};
    }
    pub(crate) use __register_law_commands;
}

/// The IR of every law of this crate, for tests and listings.
pub fn all_ir() -> Vec<dg_ir::LawIr> {
    vec![
        advection2d::ir(),
        advection3d::ir(),
        burgers2d::ir(),
        maxwell2d::ir(),
        maxwell3d::ir(),
        euler2d::ir(),
        euler3d::ir(),
        acoustics2d::ir(),
        acoustics3d::ir(),
        elastic3d::ir(),
        shallow_water2d::ir(),
        mhd2d::ir(),
    ]
}
