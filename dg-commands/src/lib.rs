//! The bodies of dg's kernel commands, written once for every formulation and law: what `dg verify`,
//! `dg autotune`, `dg bench` (and its per-kernel report), `dg db` and `dg devices` do with a law's
//! [`dg_runtime::formulation::Tuner`] and the tuning database. They print their tables and progress bars and
//! return a [`CommandError`]; the command line (`dg::cli`) parses arguments and calls them.

pub mod autotune;
pub mod bench;
pub mod db;
pub mod devices;
pub mod kernel_report;
pub mod laws;
pub mod verify;

use dg_codegen::{DeviceLimits, Precision};
use dg_run::formulations::FormulationId;
use dg_run::registry::LawCommands;
use dg_runtime::backend::Device;
use dg_runtime::formulation::{TimedOperation, TuneTarget, Tuner};

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

/// What a formulation generates a law's kernels from: its IR, parameter values and numerical flux (the law's
/// default when none is named); [`KernelInputs::call`] lends them as the formulations take them.
pub struct KernelInputs {
    ir: dg_ir::LawIr,
    params: Vec<f64>,
    flux: String,
}

impl KernelInputs {
    /// `law`'s inputs with numerical flux `flux` (its default when `None`).
    pub fn of(law: &dyn LawCommands, flux: Option<&str>) -> Result<Self, CommandError> {
        let ir = law.ir()?;
        let (params, default_flux) = law.kernel_inputs();
        Ok(Self { ir, params, flux: flux.map_or(default_flux, str::to_string) })
    }

    /// The IR.
    pub fn ir(&self) -> &dg_ir::LawIr {
        &self.ir
    }

    /// As the formulations take them.
    pub fn call(&self) -> dg_runtime::formulation::LawCall<'_> {
        dg_runtime::formulation::LawCall { ir: &self.ir, params: &self.params, numerical_flux: &self.flux }
    }
}

/// What the variant rules need to know of `device`, its BLAS included (variants built on library GEMMs).
pub fn limits_of(device: &mut dyn Device) -> DeviceLimits {
    dg_runtime::backend::limits_with_blas(device)
}

/// A tuner of `law` (with numerical flux `flux`, its default when `None`) in `formulation` for `target`.
pub fn open_tuner(
    law: &dyn LawCommands,
    formulation: FormulationId,
    flux: Option<&str>,
    device: &mut dyn Device,
    target: TuneTarget,
) -> Result<Box<dyn Tuner>, CommandError> {
    Ok(law.tuner(formulation, flux, device, target)?)
}

/// The target of `order` and `precision` with a timing problem of `timing_dofs`, timing the formulation's unit.
pub fn unit_target(order: usize, precision: Precision, timing_dofs: u64) -> TuneTarget {
    TuneTarget { order, precision, timing_dofs, operation: TimedOperation::Unit }
}

/// Why a command failed.
#[derive(Debug, thiserror::Error)]
pub enum CommandError {
    /// The formulation, the law or the pipeline.
    #[error(transparent)]
    Formulation(#[from] dg_runtime::formulation::FormulationError),
    /// A device call.
    #[error(transparent)]
    Backend(#[from] dg_runtime::backend::BackendError),
    /// The tuning database.
    #[error(transparent)]
    Database(#[from] dg_runtime::tuning_db::DbError),
    /// Writing JSON.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    /// A picture.
    #[error(transparent)]
    Picture(#[from] dg_run::picture::PictureError),
    /// What the command was doing when something below failed.
    #[error("{message}: {source}")]
    Context {
        /// What was being done.
        message: String,
        /// What failed.
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// The command ran and its result is a failure (a variant failed verification, nothing was stored), or its
    /// input is wrong; the message says which.
    #[error("{0}")]
    Failed(String),
}

/// Returns early with [`CommandError::Failed`] and a formatted message.
#[macro_export]
#[doc(hidden)]
macro_rules! bail {
    ($($arg:tt)*) => {
        return Err($crate::CommandError::Failed(format!($($arg)*)))
    };
}

/// Adds what a command was doing to an error, or turns a missing value into one.
pub trait Context<T> {
    /// The error with `message` in front.
    fn context(self, message: &str) -> Result<T, CommandError>;
    /// The error with the message `f` makes in front.
    fn with_context<F: FnOnce() -> String>(self, f: F) -> Result<T, CommandError>;
}

impl<T, E: std::error::Error + Send + Sync + 'static> Context<T> for Result<T, E> {
    fn context(self, message: &str) -> Result<T, CommandError> {
        self.with_context(|| message.to_string())
    }
    fn with_context<F: FnOnce() -> String>(self, f: F) -> Result<T, CommandError> {
        self.map_err(|e| CommandError::Context { message: f(), source: Box::new(e) })
    }
}

impl<T> Context<T> for Option<T> {
    fn context(self, message: &str) -> Result<T, CommandError> {
        self.ok_or_else(|| CommandError::Failed(message.to_string()))
    }
    fn with_context<F: FnOnce() -> String>(self, f: F) -> Result<T, CommandError> {
        self.ok_or_else(|| CommandError::Failed(f()))
    }
}
