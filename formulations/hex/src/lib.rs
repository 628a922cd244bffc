//! The nodal weak-form DG formulation on hexahedra (seed 003, CLAC): the (D + 1)³ Gauss–Legendre nodes of each
//! trilinear cell carry the solution, so the mass matrix is diagonal; the volume term is sum-factorised (~D⁴ per
//! cell) and face values are 1D extrapolations.
//!
//! - [`cpu`]: the CPU reference operator (the independent reference the generated kernels are verified against,
//!   and the native CPU path of `dg run`).

pub mod cpu;

pub use cpu::HexOperator;
