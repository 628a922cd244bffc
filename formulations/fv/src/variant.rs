//! Finite-volume variants as SPEC strings: `fv/<tiled|naive|strided|across>/<twice|once>/w<W>/<f32|f64>`.
//!
//! The y-sweep's access, the tuned axis of seed 003: `tiled` (transpose through shared-memory tiles, sweep the
//! transposed rows, transpose back), `naive` (the same with an element-per-item transpose), `strided` (no
//! transpose: neighbouring work items take neighbouring cells of a column, `nx` apart) and `across` (no
//! transpose: neighbouring work items take neighbouring columns).
//!
//! Face fluxes: `twice` (a cell per work item, each cell computing both its faces' fluxes, so every face's flux
//! twice) or `once` (each face's flux computed once: a work group per segment of a line through shared memory,
//! and for `across` a work item marching along a few cells of its column). `W`: work items per group of the
//! sweeps.

use dg_codegen::{Precision, VariantError};
use std::fmt;
use std::str::FromStr;

/// Work-group sizes of the sweep kernels.
pub const SWEEP_WIDTHS: [usize; 3] = [64, 128, 256];

/// How the y-sweep reaches its columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Transpose {
    /// Shared-memory tiled transposes around a row sweep.
    Tiled,
    /// Element-per-item transposes around a row sweep.
    Naive,
    /// No transpose; work items along a column (strided).
    Strided,
    /// No transpose; neighbouring work items on neighbouring columns.
    Across,
}

impl Transpose {
    /// Every choice.
    pub const ALL: [Transpose; 4] = [Transpose::Tiled, Transpose::Naive, Transpose::Strided, Transpose::Across];

    fn name(self) -> &'static str {
        match self {
            Transpose::Tiled => "tiled",
            Transpose::Naive => "naive",
            Transpose::Strided => "strided",
            Transpose::Across => "across",
        }
    }
}

/// How often each face's numerical flux (and, at second order, each cell's reconstruction) is computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Faces {
    /// By each of the face's two cells (a cell per work item).
    Twice,
    /// Once (shared memory along a line segment, or registers along a marching work item).
    Once,
}

impl Faces {
    /// Both choices.
    pub const ALL: [Faces; 2] = [Faces::Twice, Faces::Once];

    fn name(self) -> &'static str {
        match self {
            Faces::Twice => "twice",
            Faces::Once => "once",
        }
    }
}

/// One finite-volume variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct FvVariant {
    /// The y-sweep's access.
    pub transpose: Transpose,
    /// How often each face's flux is computed.
    pub faces: Faces,
    /// Work items per group of the sweeps.
    pub width: usize,
    /// Precision.
    pub precision: Precision,
}

impl fmt::Display for FvVariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "fv/{}/{}/w{}/{}", self.transpose.name(), self.faces.name(), self.width, self.precision.name())
    }
}

impl FromStr for FvVariant {
    type Err = VariantError;

    fn from_str(spec: &str) -> Result<Self, Self::Err> {
        let err = |reason: &str| {
            VariantError::Parse {
            spec: spec.to_string(),
            reason: format!(
                "{reason}; finite-volume variants read fv/<tiled|naive|strided|across>/<twice|once>/w<W>/<f32|f64> with W in \
                 {SWEEP_WIDTHS:?}"
            ),
        }
        };
        let parts: Vec<&str> = spec.split('/').collect();
        let ["fv", transpose, faces, width, precision] = parts[..] else {
            return Err(err("it is not fv/<transpose>/<faces>/w<W>/<precision>"));
        };
        let transpose = Transpose::ALL
            .into_iter()
            .find(|t| t.name() == transpose)
            .ok_or_else(|| err(&format!("`{transpose}` is not a transpose")))?;
        let faces = Faces::ALL
            .into_iter()
            .find(|f| f.name() == faces)
            .ok_or_else(|| err(&format!("`{faces}` is neither twice nor once")))?;
        let width: usize = width
            .strip_prefix('w')
            .and_then(|w| w.parse().ok())
            .ok_or_else(|| err(&format!("`{width}` is not w<W>")))?;
        if !SWEEP_WIDTHS.contains(&width) {
            return Err(err(&format!("w{width} is not offered")));
        }
        let precision = match precision {
            "f32" => Precision::F32,
            "f64" => Precision::F64,
            _ => return Err(err("the last part must be f32 or f64")),
        };
        Ok(Self { transpose, faces, width, precision })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_round_trip_and_bad_ones_are_refused() {
        for transpose in Transpose::ALL {
            for faces in Faces::ALL {
                for width in SWEEP_WIDTHS {
                    for precision in [Precision::F32, Precision::F64] {
                        let v = FvVariant { transpose, faces, width, precision };
                        assert_eq!(v.to_string().parse::<FvVariant>().expect("parses"), v);
                    }
                }
            }
        }
        for bad in [
            "fv/tiled/once/w32/f32",
            "fv/diagonal/once/w64/f32",
            "hex/tiled/once/w64/f32",
            "fv/tiled/once/w64",
            "fv/tiled/w64/f32",
            "fv/tiled/thrice/w64/f32",
        ] {
            assert!(bad.parse::<FvVariant>().is_err(), "{bad}");
        }
    }
}
