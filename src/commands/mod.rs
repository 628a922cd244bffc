//! The bodies of the kernel commands, generic over the law: what `dg verify`, `dg autotune`, `dg bench` and
//! `dg tet-bench` do once the law's type is known. [`crate::registry`] instantiates them for every registered law;
//! the command line ([`crate::cli`]) parses arguments and dispatches through the registry.

pub mod autotune;
pub mod verify;

use dg_codegen::variant::Precision;

/// Precision choice on the command line.
#[derive(Debug, Clone, Copy, clap::ValueEnum, PartialEq, Eq)]
pub enum PrecisionArg {
    /// Single precision.
    F32,
    /// Double precision.
    F64,
    /// Both.
    Both,
}

impl PrecisionArg {
    /// The precisions selected.
    pub fn list(self) -> Vec<Precision> {
        match self {
            PrecisionArg::F32 => vec![Precision::F32],
            PrecisionArg::F64 => vec![Precision::F64],
            PrecisionArg::Both => vec![Precision::F32, Precision::F64],
        }
    }
}
