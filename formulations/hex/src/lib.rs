//! The nodal weak-form DG formulation on hexahedra (seed 003, CLAC): the (D + 1)³ Gauss–Legendre nodes of each
//! trilinear cell carry the solution, so the mass matrix is diagonal; the volume term is sum-factorised (~D⁴ per
//! cell) and face values are 1D extrapolations.
//!
//! - [`cpu`]: the CPU reference operator (the independent reference the generated kernels are verified against,
//!   and the native CPU path of `dg run`).
//! - [`variant`], [`render`]: the variant space (fused or split surface, specialised or generic, cells per work
//!   group) and the kernel source from `templates/hex/`.
//! - [`device`]: the operator on a device, one kernel per zone (cells of one geometry class; interior faces and
//!   each boundary condition).
//! - [`index_range`]: the buffers the kernels index with 32-bit integers, checked for a mesh before it is built.
//! - [`verify`]: every variant's right-hand side against the CPU operator on a mesh of box and trilinear cells.
//! - [`tuning`]: the [`Hex`] formulation and its tuner (a variant timed as one right-hand side).

pub mod cpu;
pub mod device;
pub mod index_range;
pub mod render;
pub mod tuning;
pub mod variant;
pub mod verify;

pub use cpu::HexOperator;
pub use device::{HexDeviceOperator, HexDeviceSystem};
pub use render::{render_hex, Geometry, HexProgram, HexRole};
pub use tuning::Hex;
pub use variant::{HexVariant, Layout, Surface, CELLS_PER_GROUP};
