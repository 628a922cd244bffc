//! Small helpers around `nalgebra` matrices: inversion with a typed error, row-major export.

use crate::{CoreError, Real};
use nalgebra::DMatrix;

/// Dense `f64` matrix used for every operator.
pub type Matrix = DMatrix<f64>;

/// Inverts a square matrix, naming it in the error when it is singular.
pub fn inverse(m: &Matrix, name: &'static str) -> Result<Matrix, CoreError> {
    m.clone().try_inverse().ok_or(CoreError::Singular(name))
}

/// Copies a matrix into a row-major vector of `T` (the layout kernels and the CPU operator use).
pub fn to_row_major<T: Real>(m: &Matrix) -> Vec<T> {
    let mut out = Vec::with_capacity(m.nrows() * m.ncols());
    for i in 0..m.nrows() {
        for j in 0..m.ncols() {
            out.push(T::from_f64(m[(i, j)]));
        }
    }
    out
}
