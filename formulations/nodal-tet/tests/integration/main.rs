//! The crate's integration tests, one binary (each a module: one link instead of one per file).

mod codegen;
mod gemm_host;
