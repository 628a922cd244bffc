//! Execution of dg operators.
//!
//! - [`time`]: explicit time integrators (low-storage RK4(5), SSP-RK3, classical RK4, Adams–Bashforth 3) written
//!   once over [`time::OdeSystem`], so every backend reuses them.
//! - [`cpu`]: the native CPU backend: the nodal strong-form DG operator for any
//!   [`dg_core::law::ConservationLaw`], multithreaded with rayon. It is the reference every generated kernel is
//!   verified against.
//! - [`tet_device`], [`tet_verify`]: the tetrahedral kernels of seed 002 on a device (right-hand side, AB3 step,
//!   cuBLAS GEMMs) and their verification against the CPU operator.

pub mod backend;
pub mod ceilings;
pub mod cpu;
pub mod device_operator;
pub mod device_system;
pub mod modal_device;
pub mod modal_verify;
pub mod tet_device;
pub mod tet_verify;
pub mod time;
pub mod tuning_db;
pub mod verify;
