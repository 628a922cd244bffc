//! Kernel generation of dg: what every formulation's renderer shares, from a law's IR to kernel source text.
//!
//! - [`cexpr`]: an IR function as C statements (the law's flux, numerical flux and boundary states inside the
//!   kernels).
//! - [`program`]: the target language, the law as C device functions, the common templates and the tera engine
//!   over a formulation's own templates (`templates/<formulation>/`).
//! - [`kernel_space`]: what every variant space shares (precision, law shape, device limits, SPEC errors).
//! - [`fingerprint`]: the hash of the templates and generator source behind a formulation's kernels (tuning keys).
//!
//! Each formulation crate (`formulations/*`) owns its variant space and renderer and calls into this crate.
//! Pure functions: no device, no I/O; rendering a spec is deterministic.

pub mod cexpr;
pub mod fingerprint;
pub mod halo;
pub mod kernel_space;
pub mod program;
pub mod state_check;
pub mod tensor_cores;

pub use kernel_space::{DeviceLimits, LawShape, Precision, VariantError};
pub use program::{LawInput, RenderError, Target};
