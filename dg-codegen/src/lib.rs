//! Kernel generation of dg: from a law's IR, an order and a variant to kernel source text.
//!
//! - [`microblock`]: seed 000's padding rule (pad to 16 or 32 values, microblock = fewest elements with less
//!   than 10% waste).
//! - [`variant`]: the variant space (work partition, elements per group, sequential microblocks, operator
//!   storage, surface strategy, layout, precision), its readable SPEC strings and the rules that reject invalid
//!   combinations with a reason.
//! - [`cexpr`]: an IR function as C statements (the law's flux, numerical flux and boundary states inside the
//!   kernels).
//! - [`render`]: kernel source from the tera templates in `templates/`, for CUDA C or OpenCL C.
//! - [`tet`]: the tetrahedral kernels of seed 002 (node-per-thread, element-per-thread, GEMM strategies).
//! - [`cost`]: flops and minimal bytes per kernel (the roofline model).
//! - [`fingerprint`]: the hash of the templates and generator source behind each kernel family (tuning keys).
//!
//! Pure functions: no device, no I/O; rendering a spec is deterministic.

pub mod batch;
pub mod cexpr;
pub mod cost;
pub mod fingerprint;
pub mod microblock;
pub mod modal;
pub mod render;
pub mod tet;
pub mod variant;

pub use fingerprint::KernelFamily;
pub use render::{render, KernelSource, RenderError, Target};
pub use variant::{Formulation, LawShape, Layout, Partition, Precision, Storage, Surface, Variant, VariantError};
