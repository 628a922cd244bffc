//! The bodies of the kernel commands, written once for every formulation and law: what `dg verify`,
//! `dg autotune` and `dg bench` do with a law's [`dg_runtime::formulation::Tuner`]. The command line
//! ([`crate::cli`]) parses arguments and calls them.

pub mod autotune;
pub mod bench;
pub mod db;
pub mod devices;
pub mod tet_report;
pub mod verify;

use crate::formulations::FormulationId;
use crate::registry::LawCommands;
use dg_codegen::{DeviceLimits, Precision};
use dg_runtime::backend::Device;
use dg_runtime::formulation::{TuneTarget, Tuner};

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

/// What the variant rules need to know of `device`.
pub fn limits_of(device: &dyn Device) -> DeviceLimits {
    DeviceLimits { local_memory: device.local_memory(), max_work_group: device.max_work_group() }
}

/// A tuner of `law` (with numerical flux `flux`, its default when `None`) in `formulation` at `order` and `precision` with a timing problem of `timing_dofs`.
pub fn open_tuner(
    law: &dyn LawCommands,
    formulation: FormulationId,
    flux: Option<&str>,
    device: &mut dyn Device,
    order: usize,
    precision: Precision,
    timing_dofs: u64,
) -> anyhow::Result<Box<dyn Tuner>> {
    Ok(law.tuner(formulation, flux, device, TuneTarget { order, precision, timing_dofs })?)
}
