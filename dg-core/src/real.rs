//! The floating-point types dg computes in.

/// A real scalar: `f32` or `f64`. Operators are built in `f64` and converted with [`Real::from_f64`].
pub trait Real:
    num_traits::Float
    + num_traits::NumAssign
    + crate::law::LawScalar
    + crate::law::Scalar<Bool = bool>
    + Copy
    + Send
    + Sync
    + std::fmt::Debug
    + std::iter::Sum
    + 'static
{
    /// Converts from `f64` (rounding for `f32`).
    fn from_f64(x: f64) -> Self;
    /// Converts to `f64` (exact).
    fn as_f64(self) -> f64;
    /// Name used in kernel specs and reports (`f32`, `f64`).
    const NAME: &'static str;
}

impl Real for f32 {
    fn from_f64(x: f64) -> Self {
        x as f32
    }
    fn as_f64(self) -> f64 {
        self as f64
    }
    const NAME: &'static str = "f32";
}

impl Real for f64 {
    fn from_f64(x: f64) -> Self {
        x
    }
    fn as_f64(self) -> f64 {
        self
    }
    const NAME: &'static str = "f64";
}
