//! The physics crate of dg: conservation laws as small files of flux functions.
//!
//! Each law implements [`dg_core::law::ConservationLaw`]. Laws are written by hand for now; the flux-DSL
//! issue replaces them by `#[conservation_law]` definitions that generate the same trait implementation.

pub mod maxwell_tm;

pub use maxwell_tm::MaxwellTm;
