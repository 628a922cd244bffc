//! Hexahedral variants as SPEC strings: `hex/<fused|split>/<spec|gen>/c<C>/<f32|f64>`.
//!
//! - `fused`: one kernel per cell zone computes the volume term, the face fluxes (into shared memory, barrier)
//!   and collects them; `split`: a volume kernel per cell zone, a flux kernel per interface zone (interior faces,
//!   each boundary condition) and a collect kernel per cell zone.
//! - `spec`: the order, the zone's geometry class (axis-aligned box cells with a constant metric, or general
//!   trilinear cells) and the law's parameters are compiled in; `gen`: one kernel for every cell, the order (loop
//!   bounds, 1D operators), the geometry (per-node metric of every cell) and the parameters passed at run time.
//! - `C`: cells per work group (one work item per node).

use dg_codegen::{Precision, VariantError};
use std::fmt;
use std::str::FromStr;

/// Cells per work group the cell kernels are generated for.
pub const CELLS_PER_GROUP: [usize; 6] = [1, 2, 4, 8, 16, 32];

/// How the surface term is computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Surface {
    /// Face fluxes in shared memory inside the cell kernel.
    Fused,
    /// Separate volume, flux and collect kernels.
    Split,
}

/// One hexahedral variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct HexVariant {
    /// Fused or split surface.
    pub surface: Surface,
    /// Order, geometry class and parameters compiled in (else passed at run time).
    pub specialised: bool,
    /// Cells per work group of the cell kernels.
    pub cells: usize,
    /// Precision.
    pub precision: Precision,
}

impl fmt::Display for HexVariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let surface = match self.surface {
            Surface::Fused => "fused",
            Surface::Split => "split",
        };
        let kind = if self.specialised { "spec" } else { "gen" };
        write!(f, "hex/{surface}/{kind}/c{}/{}", self.cells, self.precision.name())
    }
}

impl FromStr for HexVariant {
    type Err = VariantError;

    fn from_str(spec: &str) -> Result<Self, Self::Err> {
        let err = |reason: &str| VariantError::Parse {
            spec: spec.to_string(),
            reason: format!(
                "{reason}; hexahedral variants read hex/<fused|split>/<spec|gen>/c<C>/<f32|f64> with C in \
                 {CELLS_PER_GROUP:?}"
            ),
        };
        let parts: Vec<&str> = spec.split('/').collect();
        let [head, surface, kind, cells, precision] = parts[..] else {
            return Err(err("it does not have five parts"));
        };
        if head != "hex" {
            return Err(err("it does not start with `hex/`"));
        }
        let surface = match surface {
            "fused" => Surface::Fused,
            "split" => Surface::Split,
            _ => return Err(err(&format!("`{surface}` is neither fused nor split"))),
        };
        let specialised = match kind {
            "spec" => true,
            "gen" => false,
            _ => return Err(err(&format!("`{kind}` is neither spec nor gen"))),
        };
        let cells: usize = cells
            .strip_prefix('c')
            .and_then(|c| c.parse().ok())
            .ok_or_else(|| err(&format!("`{cells}` is not c<C>")))?;
        if !CELLS_PER_GROUP.contains(&cells) {
            return Err(err(&format!("c{cells} is not offered")));
        }
        let precision = match precision {
            "f32" => Precision::F32,
            "f64" => Precision::F64,
            _ => return Err(err("the last part must be f32 or f64")),
        };
        Ok(Self { surface, specialised, cells, precision })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_round_trip_and_bad_ones_are_refused() {
        for surface in [Surface::Fused, Surface::Split] {
            for specialised in [true, false] {
                for cells in CELLS_PER_GROUP {
                    for precision in [Precision::F32, Precision::F64] {
                        let v = HexVariant { surface, specialised, cells, precision };
                        assert_eq!(v.to_string().parse::<HexVariant>().expect("parses"), v);
                    }
                }
            }
        }
        for bad in ["hex/fused/spec/c3/f32", "tet/fused/spec/c1/f32", "hex/fused/c1/f32", "hex/glued/spec/c1/f32"] {
            assert!(bad.parse::<HexVariant>().is_err(), "{bad}");
        }
    }
}
