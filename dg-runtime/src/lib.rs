//! Execution of dg operators, for any formulation: this crate knows none of them.
//!
//! - [`backend`]: devices (CUDA through cudarc and NVRTC, OpenCL through opencl3), discovery and fingerprints,
//!   buffers, launches, GEMMs, the kernel binary cache, and a planted-bug device for self-tests.
//! - [`time`]: explicit time integrators (low-storage RK4(5), SSP-RK3, classical RK4, Adams–Bashforth 3) written
//!   once over [`time::OdeSystem`], so every backend and formulation reuses them.
//! - [`cpu`]: what the formulations' CPU reference operators share (boundary bindings, vector updates, the nodal
//!   face-node jump).
//! - [`verify`]: random states, NaN-failing relative errors, verification outcomes.
//! - [`formulation`]: the contract a formulation fulfils ([`formulation::Formulation`], [`formulation::Tuner`])
//!   and [`pipeline`]: verify, autotune and bench written once against it.
//! - [`tuning_db`], [`ceilings`]: the tuning database with typed keys, and the device's measured ceilings.

pub mod backend;
pub mod ceilings;
pub mod cpu;
pub mod formulation;
pub mod host_memory;
pub mod operator_error;
pub mod pipeline;
pub mod restart;
pub mod run_loop;
pub mod stability;
pub mod startup;
pub mod state_check;
pub mod step_system;
pub mod study;
pub mod time;
pub mod tuning_db;
pub mod verify;

pub use operator_error::DeviceOperatorError;
