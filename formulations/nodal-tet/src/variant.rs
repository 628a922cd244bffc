//! Tetrahedral variants: the strategy, its block sizes and the precision, as SPEC strings
//! (`tet/node/v4/s2/u8/f32`, `tet/elem/w128/u8/f64`, `tet/gemm/u8/f32`, `tet/gemm-merged/u8/f32`), and seed 002's
//! padding rules.

use dg_codegen::{Precision, VariantError};
use std::fmt;
use std::str::FromStr;

/// Elements per block the node-per-thread volume and surface kernels and the update kernel are generated for.
pub const KB_CHOICES: [usize; 5] = [1, 2, 4, 8, 16];
/// Elements per block of the AB3 update kernel.
pub const KU_CHOICES: [usize; 5] = [1, 2, 4, 8, 16];
/// Work-group sizes of the element-per-thread kernels.
pub const ELEMENT_WIDTHS: [usize; 3] = [64, 128, 256];

/// Which kernels compute the volume and surface terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Strategy {
    /// Node per thread with `volume` and `surface` elements per block.
    Node {
        /// K_blk of the volume kernel.
        volume: usize,
        /// K_blk of the surface kernel.
        surface: usize,
    },
    /// Element per thread, work groups of `width`.
    Element {
        /// Work-group size.
        width: usize,
    },
    /// BLAS GEMMs plus node-local kernels; with `merged`, the node-local kernel and the face kernel are one pass
    /// (each element's state read once).
    Gemm {
        /// Node-local and face kernels merged.
        merged: bool,
    },
}

impl Strategy {
    /// Whether its surface kernels read the face-node traces (node and element per thread), which the AB3
    /// update then extracts; the GEMM strategy's face kernel reads the state itself.
    pub fn reads_traces(&self) -> bool {
        !matches!(self, Strategy::Gemm { .. })
    }
}

/// One tetrahedral variant: strategy, update block and precision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct TetVariant {
    /// Volume and surface strategy.
    pub strategy: Strategy,
    /// Elements per block of the AB3 update kernel.
    pub update: usize,
    /// Precision.
    pub precision: Precision,
}

impl fmt::Display for TetVariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = match self.precision {
            Precision::F32 => "f32",
            Precision::F64 => "f64",
        };
        match self.strategy {
            Strategy::Node { volume, surface } => write!(f, "tet/node/v{volume}/s{surface}/u{}/{p}", self.update),
            Strategy::Element { width } => write!(f, "tet/elem/w{width}/u{}/{p}", self.update),
            Strategy::Gemm { merged: false } => write!(f, "tet/gemm/u{}/{p}", self.update),
            Strategy::Gemm { merged: true } => write!(f, "tet/gemm-merged/u{}/{p}", self.update),
        }
    }
}

impl FromStr for TetVariant {
    type Err = VariantError;

    fn from_str(spec: &str) -> Result<Self, Self::Err> {
        let err = |reason: &str| {
            VariantError::Parse {
            spec: spec.to_string(),
            reason: format!(
                "{reason}; tetrahedral variants read tet/node/v<K>/s<K>/u<K>/<f32|f64>, tet/elem/w<W>/u<K>/<f32|f64> or \
                 tet/gemm[-merged]/u<K>/<f32|f64> with K in {KB_CHOICES:?} and W in {ELEMENT_WIDTHS:?}"
            ),
        }
        };
        let parts: Vec<&str> = spec.split('/').collect();
        if parts.first() != Some(&"tet") {
            return Err(err("it does not start with `tet/`"));
        }
        let number = |part: &str, prefix: char, allowed: &[usize]| -> Result<usize, VariantError> {
            let n: usize = part
                .strip_prefix(prefix)
                .and_then(|n| n.parse().ok())
                .ok_or_else(|| err(&format!("`{part}` is not {prefix}<number>")))?;
            if allowed.contains(&n) {
                Ok(n)
            } else {
                Err(err(&format!("{prefix}{n} is not offered")))
            }
        };
        let precision = match parts.last() {
            Some(&"f32") => Precision::F32,
            Some(&"f64") => Precision::F64,
            _ => return Err(err("the last part must be f32 or f64")),
        };
        let (strategy, update) = match parts.get(1) {
            Some(&"node") if parts.len() == 6 => (
                Strategy::Node {
                    volume: number(parts[2], 'v', &KB_CHOICES)?,
                    surface: number(parts[3], 's', &KB_CHOICES)?,
                },
                number(parts[4], 'u', &KU_CHOICES)?,
            ),
            Some(&"elem") if parts.len() == 5 => (
                Strategy::Element { width: number(parts[2], 'w', &ELEMENT_WIDTHS)? },
                number(parts[3], 'u', &KU_CHOICES)?,
            ),
            Some(&"gemm") if parts.len() == 4 => {
                (Strategy::Gemm { merged: false }, number(parts[2], 'u', &KU_CHOICES)?)
            }
            Some(&"gemm-merged") if parts.len() == 4 => {
                (Strategy::Gemm { merged: true }, number(parts[2], 'u', &KU_CHOICES)?)
            }
            _ => return Err(err("unknown strategy or wrong number of parts")),
        };
        Ok(Self { strategy, update, precision })
    }
}

/// What the device allows a kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TetLimits {
    /// Largest work group.
    pub max_work_group: usize,
    /// Static local (shared) memory per work group, bytes.
    pub local_memory: usize,
}

/// Np padded as seed 002's Table 4 (the GEMM row count and the state's column stride): 84 → 128, 120 → 128,
/// 165 → 256; smaller orders are not padded.
pub fn pad_np(np: usize) -> usize {
    match np {
        0..=56 => np,
        57..=128 => 128,
        _ => np.next_multiple_of(256),
    }
}

/// 3·Np padded as seed 002's Table 4: 12 → 16, 30 → 32, 60 → 64, 105 → 128, 168 → 256, 252 → 256, 360 → 384,
/// 495 → 512.
pub fn pad_three_np(m: usize) -> usize {
    match m {
        0..=16 => 16,
        17..=32 => 32,
        33..=64 => 64,
        65..=128 => 128,
        129..=256 => 256,
        _ => m.next_multiple_of(128),
    }
}
