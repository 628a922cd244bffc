//! The crate's integration tests, one binary (each a module: one link instead of one per file).

mod device;
mod mma;
mod modal;
