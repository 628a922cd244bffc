//! Finite volumes on a regular 2D grid (seed 003): one cell per work item, dimensional splitting (an x-sweep, then
//! a y-sweep on the updated state), the law's numerical flux at the faces, first-order or MUSCL–Hancock with the
//! minmod limiter. Any 2D law of the macro runs here.
//!
//! - [`grid`]: the grid, its boundaries, the state layout (each variable its own row-major array, seed 003's
//!   struct of arrays).
//! - [`cpu`]: the CPU reference sweeps and the time loop (the reference the generated kernels are verified
//!   against, and the native CPU path).
//! - [`variant`], [`render`]: the variant space (how the y-sweep reaches the columns: tiled or naive transposes,
//!   strided or across; the sweep's work-group size) and the kernel source from `templates/fv/`.
//! - [`device`]: the step on a device and the step-limit reduction. [`verify`]: every variant against the CPU.
//! - [`tuning`]: the [`Fv`] formulation and its tuner (a variant timed as one step).

pub mod cpu;
pub mod device;
pub mod grid;
pub mod render;
pub mod tuning;
pub mod variant;
pub mod verify;

pub use cpu::{run, FvError, FvPosition, FvRun, Reconstruction};
pub use device::FvDeviceOperator;
pub use grid::{FvGrid, Side, Window};
pub use tuning::Fv;
pub use variant::{Faces, FvVariant, Transpose};
