//! The buffers the hexahedral kernels index with 32-bit integers: a mesh whose buffers they cannot reach is refused
//! before anything is built for it (by the runner, from the cell count) and again by the device operator.

use dg_runtime::DeviceOperatorError;

/// Refuses `cells` cells of degree `order` with `nvars` variables whose buffers the kernels could not index.
pub fn check_mesh(cells: usize, nvars: usize, order: usize) -> Result<(), DeviceOperatorError> {
    let n1 = order + 1;
    check(cells, nvars, n1 * n1 * n1, 6 * n1 * n1)
}

/// [`check_mesh`] for `k` cells of `np` nodes and `nface` face points.
pub(crate) fn check(k: usize, nv: usize, np: usize, nface: usize) -> Result<(), DeviceOperatorError> {
    dg_runtime::operator_error::check_index_range(&indexed_buffers(k, nv, np, nface))
}

/// The buffers the kernels index with 32-bit integers and the values each holds, for `k` cells of `np` nodes and
/// `nface` face points with `nv` variables.
fn indexed_buffers(k: usize, nv: usize, np: usize, nface: usize) -> [(&'static str, usize); 4] {
    [
        ("the state", k.saturating_mul(nv).saturating_mul(np)),
        ("the face traces", k.saturating_mul(nv).saturating_mul(nface)),
        // ten values per node: more than the state's for every law of fewer than ten variables
        ("the geometry", k.saturating_mul(10).saturating_mul(np)),
        ("the face geometry", k.saturating_mul(4).saturating_mul(nface)),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The geometry (ten values per node) outgrows 32-bit indices before the state and the face traces do: at
    /// D = 3, 3.5M cells of Maxwell's six variables (traces 2.02e9 values) passed the operator's former check and
    /// the kernels' `(k * 10 + e) * NP + i` would have wrapped.
    #[test]
    fn the_geometry_is_held_to_32_bit_indices_too() {
        let err = check_mesh(3_500_000, 6, 3).unwrap_err();
        assert!(
            matches!(&err, DeviceOperatorError::IndexRange { what, values } if what == "the geometry" && *values == 2_240_000_000),
            "{err}"
        );
        assert!(check_mesh(3_000_000, 6, 3).is_ok());
        assert!(check(3_000_000, 6, 64, 96).is_ok());
        // a 160³ Euler box at D = 3 (refused on an H200 after 134 s of building it, 2026-12-02)
        assert!(check_mesh(160 * 160 * 160, 5, 3).is_err());
    }
}
