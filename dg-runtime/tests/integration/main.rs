//! The crate's integration tests, one binary (each a module: one link instead of one per file).

mod ceilings;
mod conservative_flux;
mod fuzz_restart;
mod fuzz_tuning_db;
mod state_check;
