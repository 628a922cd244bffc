//! Kernels of the nodal strong form on tetrahedra (seed 002): three strategies per kernel role, chosen per order
//! on the device.
//!
//! - node per thread: K_blk elements per block, fields in shared memory, matrices through the cache;
//! - element per thread: the matrices in shared memory (rejected where they do not fit);
//! - GEMM: the gradient [Dr; Ds; Dt]·Q and the lift LIFT·J as BLAS GEMMs with seed 002's padded shapes (cuBLAS on
//!   CUDA; absent on OpenCL), with node-local volume and per-face-node flux kernels.
//!
//! One program per (law, order, precision, target) holds every valid kernel of every strategy, so that a
//! compiler pays its fixed cost once (PoCL most of all); the variant of a run picks kernels from it.

mod cost;
mod plan;
mod render;
mod variant;

pub use cost::{gemm_cost, kernel_cost, step_cost, KernelCost};
pub use plan::VolumePlan;
pub(crate) use render::TEMPLATES;
pub use render::{gemm_matrices, render_tet, TetKernel, TetProgram, TetRole};
pub use variant::{pad_np, pad_three_np, Strategy, TetLimits, TetVariant, ELEMENT_WIDTHS, KB_CHOICES, KU_CHOICES};
