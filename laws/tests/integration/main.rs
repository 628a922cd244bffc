//! The crate's integration tests, one binary (each a module: one link instead of one per file).

mod ir;
mod properties;
mod upwind;
