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
    /// The mesh's faces do not meet the way the kernels address them.
    #[error("{0}")]
    Connectivity(String),
    /// A buffer the kernels index holds more values than their 32-bit indices reach.
    #[error(
        "the mesh is too large for the kernels' 32-bit indices: {what} would hold {values} values (at most {}); \
         split it over MPI ranks or use a coarser mesh",
        i32::MAX
    )]
    IndexRange {
        /// The buffer.
        what: String,
        /// Its values.
        values: usize,
    },
}

/// Refuses buffers (name, values) the kernels could not index with 32-bit integers: without this check a large
/// mesh on a device with the memory for it would wrap its indices and read or write the wrong values.
pub fn check_index_range(buffers: &[(&str, usize)]) -> Result<(), DeviceOperatorError> {
    match buffers.iter().find(|(_, values)| *values > i32::MAX as usize) {
        Some(&(what, values)) => Err(DeviceOperatorError::IndexRange { what: what.to_string(), values }),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_past_32_bit_indices_are_refused_by_name() {
        let limit = i32::MAX as usize;
        assert!(check_index_range(&[("state", limit), ("faces", 12)]).is_ok());
        let err = check_index_range(&[("state", 10), ("face data", limit + 1)]).unwrap_err();
        assert!(
            matches!(&err, DeviceOperatorError::IndexRange { what, values } if what == "face data" && *values == limit + 1)
        );
        assert!(err.to_string().contains("face data would hold 2147483648 values (at most 2147483647)"), "{err}");
    }
}
