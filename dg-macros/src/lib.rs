//! The `#[conservation_law]` attribute macro of dg.
//!
//! The macro turns a law definition written in a small Rust subset into an implementation of
//! `dg_core::law::ConservationLaw` and an IR value for kernel generation. It arrives with the flux-DSL issue;
//! until then the laws of `dg-laws` implement the trait by hand. This crate holds nothing else.
