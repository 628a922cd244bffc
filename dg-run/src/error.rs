//! The one error type of every run and study, whatever the formulation and backend.

use dg_runtime::run_loop::LoopError;
use dg_runtime::study::StudyError;

/// Why a run or a study failed.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// An option is out of range, or options conflict.
    #[error("invalid option: {0}")]
    InvalidOption(String),
    /// The run stopped because its state was no longer admissible (a blow-up, negative density or pressure).
    #[error("the run stopped at step {step} (t = {time:.6e}): {reason}")]
    Stopped {
        /// Steps taken.
        step: u64,
        /// Time reached.
        time: f64,
        /// What was found.
        reason: String,
    },
    /// Splitting the mesh or exchanging between MPI ranks failed.
    #[error(transparent)]
    Parallel(#[from] dg_parallel::ParallelError),
    /// Writing a checkpoint or an output failed.
    #[error("{0}")]
    Output(String),
    /// A restart file cannot be read or does not fit.
    #[error(transparent)]
    Restart(#[from] dg_runtime::restart::RestartError),
    /// A boundary tag has no condition.
    #[error(transparent)]
    Boundary(#[from] dg_runtime::cpu::BoundaryError),
    /// The reference element or a mesh operation failed.
    #[error(transparent)]
    Core(#[from] dg_core::CoreError),
    /// An elliptic (hybridizable DG) solve failed.
    #[error(transparent)]
    Hdg(#[from] dg_hdg::HdgError),
    /// The mesh or space is invalid.
    #[error(transparent)]
    Space(#[from] dg_core::space::SpaceError),
    /// The law has no IR or the formulation cannot run it.
    #[error(transparent)]
    Formulation(#[from] dg_runtime::formulation::FormulationError),
    /// The variant is not one of the formulation's.
    #[error(transparent)]
    Variant(#[from] dg_codegen::VariantError),
    /// Choosing the kernel variant (database, tuning) failed.
    #[error("choosing the kernel variant: {0}")]
    Choice(#[from] crate::winners::ChoiceError),
    /// Building or running the device operator failed.
    #[error(transparent)]
    Operator(#[from] dg_runtime::DeviceOperatorError),
    /// A device call failed.
    #[error(transparent)]
    Backend(#[from] dg_runtime::backend::BackendError),
    /// One run of a convergence study failed.
    #[error("order {order}, level {level}: {source}")]
    Study {
        /// Order.
        order: usize,
        /// Level.
        level: usize,
        /// What went wrong.
        source: Box<RunError>,
    },
}

impl<E: Into<RunError>> From<LoopError<E>> for RunError {
    fn from(e: LoopError<E>) -> Self {
        match e {
            LoopError::Options(m) => RunError::InvalidOption(m),
            LoopError::NotAdmissible { step, time, reason, .. } => RunError::Stopped { step, time, reason },
            LoopError::Output(m) => RunError::Output(m),
            LoopError::System(e) => e.into(),
        }
    }
}

impl From<std::convert::Infallible> for RunError {
    fn from(never: std::convert::Infallible) -> Self {
        match never {}
    }
}

impl From<StudyError<RunError>> for RunError {
    fn from(e: StudyError<RunError>) -> Self {
        match e {
            StudyError::Plan(m) => RunError::InvalidOption(m),
            StudyError::NotFinite { order, level, error } => RunError::Study {
                order,
                level,
                source: Box::new(RunError::Stopped {
                    step: 0,
                    time: 0.0,
                    reason: format!("its error is {error}, not a finite number"),
                }),
            },
            StudyError::Run { order, level, source } => RunError::Study { order, level, source: Box::new(source) },
        }
    }
}
