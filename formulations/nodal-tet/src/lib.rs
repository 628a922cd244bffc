//! The nodal strong-form DG formulation on tetrahedra (seed 002, Modave et al.): three strategies per kernel role,
//! chosen per order on the device, and the Adams–Bashforth 3 step with the trace extraction fused into the update.
//!
//! - node per thread: K_blk elements per block, fields in shared memory, matrices through the cache;
//! - element per thread: the matrices in shared memory (rejected where they do not fit);
//! - GEMM: the gradient [Dr; Ds; Dt]·Q and the lift LIFT·J as BLAS GEMMs with seed 002's padded shapes (cuBLAS on
//!   CUDA; absent on OpenCL), with node-local volume and per-face-node flux kernels; or those products (the lift
//!   alone, or all three) on generated tf32 tensor-core kernels ([`mma`], CUDA, f32).
//!
//! One program per (law, order, precision, target) holds every valid kernel of every strategy, so that a
//! compiler pays its fixed cost once (PoCL most of all); the variant of a run picks kernels from it.
//!
//! - [`variant`], [`plan`], [`render`], [`mma`], [`cost`]: variant space, volume plan, kernel source from
//!   `templates/nodal-tet/`, the tensor-core GEMM kernels' shapes and operands, flops and bytes per kernel.
//! - [`cpu`]: the CPU reference operator. [`device`]: the operator on a device (right-hand side, AB3 step, GEMMs).
//! - [`verify`]: every kernel on the verification mesh. [`bench`](mod@bench): every kernel timed (seed 002's tables).
//! - [`tuning`]: the [`NodalTet`] formulation and its tuner (a variant timed as one whole AB3 step).

pub mod bench;
pub mod cost;
pub mod cpu;
pub mod device;
pub mod mma;
pub mod plan;
pub mod render;
pub mod tuning;
pub mod variant;
pub mod verify;

pub use cost::{gemm_cost, kernel_cost, step_cost, KernelCost};
pub use cpu::NodalOperator3d;
pub use device::TetDeviceOperator;
pub use mma::{MmaGemm, MmaLoad, TetGemm};
pub use plan::VolumePlan;
pub use render::{gemm_matrices, render_tet, TetKernel, TetProgram, TetRole};
pub use tuning::NodalTet;

pub use variant::{
    pad_np, pad_three_np, GemmEngine, Strategy, TetLimits, TetVariant, ELEMENT_WIDTHS, KB_CHOICES, KU_CHOICES,
};
