//! The workspace root's integration tests, one module per concern, linked into one test binary: each binary links
//! the whole of dg, and CI builds them from scratch on two cores.

mod cli;
mod euler;
mod external_law_example;
mod kernels_opencl;
mod kernels_source;
mod macro_ui;
mod maxwell;
mod maxwell_macro_law;
mod restart;
mod stability;
mod vtu_meshio;
mod waves;
