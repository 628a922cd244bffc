//! Hexahedral variants as SPEC strings: `hex/<fused|split>/<spec|gen>/c<C>/<kvi|vki>/<f32|f64>`.
//!
//! - `fused`: one kernel per cell zone computes the volume term, the face fluxes (into shared memory, barrier)
//!   and collects them; `split`: a volume kernel per cell zone, a flux kernel per interface zone (interior faces,
//!   each boundary condition) and a collect kernel per cell zone.
//! - `spec`: the order, the zone's geometry class (axis-aligned box cells with a constant metric, or general
//!   trilinear cells) and the law's parameters are compiled in; `gen`: one kernel for every cell, the order (loop
//!   bounds, 1D operators), the geometry (per-node metric of every cell) and the parameters passed at run time.
//! - `C`: cells per work group (one work item per node).
//! - the state's layout, named by its index order: `kvi` (cell, then variable, then node: each cell's values
//!   together) or `vki` (variable, then cell, then node: one array per variable, the nodes of neighbouring cells
//!   contiguous).

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

/// The order of a state's indices in device memory (k: cell, v: variable, i: node).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Layout {
    /// `(k · NV + v) · NP + i`: a cell's values together (the CPU operator's layout).
    Kvi,
    /// `(v · K + k) · NP + i`: an array per variable.
    Vki,
}

impl Layout {
    /// Both layouts.
    pub const ALL: [Layout; 2] = [Layout::Kvi, Layout::Vki];

    /// The SPEC name.
    pub fn name(self) -> &'static str {
        match self {
            Layout::Kvi => "kvi",
            Layout::Vki => "vki",
        }
    }

    /// The strides of the cell and of the variable index in a state of `cells` cells, `nv` variables and `np`
    /// nodes per cell (the node stride is 1).
    pub fn strides(self, cells: usize, nv: usize, np: usize) -> (usize, usize) {
        match self {
            Layout::Kvi => (nv * np, np),
            Layout::Vki => (np, cells * np),
        }
    }

    /// Where the value of (cell k, variable v, node i) lies.
    pub fn index(self, (cells, nv, np): (usize, usize, usize), k: usize, v: usize, i: usize) -> usize {
        let (cs, vs) = self.strides(cells, nv, np);
        k * cs + v * vs + i
    }
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
    /// The state's layout.
    pub layout: Layout,
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
        write!(f, "hex/{surface}/{kind}/c{}/{}/{}", self.cells, self.layout.name(), self.precision.name())
    }
}

impl FromStr for HexVariant {
    type Err = VariantError;

    fn from_str(spec: &str) -> Result<Self, Self::Err> {
        let err = |reason: &str| VariantError::Parse {
            spec: spec.to_string(),
            reason: format!(
                "{reason}; hexahedral variants read hex/<fused|split>/<spec|gen>/c<C>/<kvi|vki>/<f32|f64> with C in \
                 {CELLS_PER_GROUP:?}"
            ),
        };
        let parts: Vec<&str> = spec.split('/').collect();
        let [head, surface, kind, cells, layout, precision] = parts[..] else {
            return Err(err("it does not have six parts"));
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
        let layout = Layout::ALL
            .into_iter()
            .find(|l| l.name() == layout)
            .ok_or_else(|| err(&format!("`{layout}` is neither kvi nor vki")))?;
        let precision = match precision {
            "f32" => Precision::F32,
            "f64" => Precision::F64,
            _ => return Err(err("the last part must be f32 or f64")),
        };
        Ok(Self { surface, specialised, cells, layout, precision })
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
                    for layout in Layout::ALL {
                        for precision in [Precision::F32, Precision::F64] {
                            let v = HexVariant { surface, specialised, cells, layout, precision };
                            assert_eq!(v.to_string().parse::<HexVariant>().expect("parses"), v);
                        }
                    }
                }
            }
        }
        for bad in [
            "hex/fused/spec/c3/kvi/f32",
            "tet/fused/spec/c1/kvi/f32",
            "hex/fused/c1/kvi/f32",
            "hex/glued/spec/c1/kvi/f32",
            "hex/fused/spec/c1/f32",
            "hex/fused/spec/c1/ikv/f32",
        ] {
            assert!(bad.parse::<HexVariant>().is_err(), "{bad}");
        }
    }

    #[test]
    fn both_layouts_place_every_value_once() {
        let (cells, nv, np) = (5, 3, 8);
        for layout in Layout::ALL {
            let mut seen = vec![false; cells * nv * np];
            for k in 0..cells {
                for v in 0..nv {
                    for i in 0..np {
                        let at = layout.index((cells, nv, np), k, v, i);
                        assert!(!seen[at], "{layout:?}: ({k}, {v}, {i}) lands on a taken place");
                        seen[at] = true;
                    }
                }
            }
        }
        assert_eq!(Layout::Kvi.index((cells, nv, np), 1, 2, 3), (nv + 2) * np + 3);
        assert_eq!(Layout::Vki.index((cells, nv, np), 1, 2, 3), (2 * cells + 1) * np + 3);
    }
}
