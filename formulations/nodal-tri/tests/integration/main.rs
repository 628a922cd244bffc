//! The crate's integration tests, one binary (each a module: one link instead of one per file).

mod cost;
mod gemm_host;
mod mirror;
mod mixed;
mod search;
mod tuning_buffers;
