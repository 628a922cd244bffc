//! The error of building or running a formulation's operator on a device.

use crate::backend::BackendError;
use dg_codegen::{RenderError, VariantError};

/// Errors of a device operator (any formulation).
#[derive(Debug, thiserror::Error)]
pub enum DeviceOperatorError {
    /// The variant does not fit.
    #[error(transparent)]
    Variant(#[from] VariantError),
    /// Rendering failed.
    #[error(transparent)]
    Render(#[from] RenderError),
    /// A device call failed.
    #[error(transparent)]
    Backend(#[from] BackendError),
    /// The precision does not match the device or the variant.
    #[error("{0}")]
    Precision(String),
}
