//! The tuning database: winners per (device, law and IR hash, numerical flux, formulation, element, order,
//! precision, kernel role, problem-size bucket, code fingerprint), in human-readable JSON files.
//!
//! Shipped results live in `tuning-db/` of the repository and are compiled into the `dg` binary; new results go
//! to the user cache directory (`$DG_CACHE_DIR`, else `$XDG_CACHE_HOME/dg`, else `~/.cache/dg`). One file per
//! device. Writes take an exclusive lock on a lock file, re-read the file, merge, and replace it atomically
//! (write, flush, rename, flush the directory), so concurrent tuners lose no entry and a crash loses no file. A
//! corrupt file is reported and skipped; it is kept aside, never silently overwritten.
//!
//! - [`key`]: the typed key, whose code fingerprint is computed from the templates and generator source
//!   ([`dg_codegen::fingerprint::code_hash`]): results of other generated code are never reused.
//! - [`store`]: the files, sources, lookups ([`DeviceDb`]) and merges.

pub mod key;
pub mod store;

pub use key::{size_bucket, KernelFamily, TuningKey};
pub use store::{
    cache_dir, file_name, merge_into, parse_file, read_file, set_user_dir, sync_dir, user_dir, write_durably,
    ArithmeticUnits, Candidate, Ceilings, DbError, DbSource, DeviceDb, DeviceFile, DeviceResults, Entry, Found,
    SCHEMA_VERSION,
};
