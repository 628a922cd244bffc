//! The workspace root's integration tests, one module per concern, linked into one test binary: each binary links
//! the whole of dg, and CI builds them from scratch on two cores.

/// Tests that keep both cores busy (OpenCL on PoCL, whose threads spin, convergence studies, the external crate's
/// build) take this lock, so that they run one at a time as they did in separate test binaries; short tests run
/// beside them.
pub fn heavy() -> std::sync::MutexGuard<'static, ()> {
    static HEAVY: std::sync::Mutex<()> = std::sync::Mutex::new(());
    HEAVY.lock().unwrap_or_else(|e| e.into_inner())
}

mod cli;
mod euler;
mod fv;
mod hdg;
mod hex;
mod kernels_opencl;
mod kernels_source;
mod maxwell;
mod maxwell_macro_law;
mod mpi;
mod restart;
mod shipped_db;
mod stability;
mod vtu_meshio;
mod waves;
