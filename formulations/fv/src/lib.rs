//! Finite volumes on a regular 2D grid (seed 003): one cell per work item, dimensional splitting (an x-sweep, then
//! a y-sweep on the updated state), the law's numerical flux at the faces, first-order or MUSCL–Hancock with the
//! minmod limiter. Any 2D law of the macro runs here.
//!
//! - [`grid`]: the grid, its boundaries, the state layout (each variable its own row-major array, seed 003's
//!   struct of arrays).
//! - [`cpu`]: the CPU reference sweeps and the time loop (the reference the generated kernels will be verified
//!   against).

pub mod cpu;
pub mod grid;

pub use cpu::{run, FvError, FvRun, Reconstruction};
pub use grid::{FvGrid, Side};
