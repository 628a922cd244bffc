//! Tetrahedral variants: the strategy, its block sizes and the precision, as SPEC strings
//! (`tet/node/v4/s2/u8/f32`, `tet/elem/w128/u8/f64`, `tet/gemm/u8/f32`, `tet/gemm-merged/u8/f32`,
//! `tet/gemm-merged/mma-lift/u2/f32`, `tet/gemm/mma/u1/f32`, `tet/gemm-merged/mma-ab3/u1/f32`), and seed 002's
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
    /// Seed 002's GEMMs plus node-local kernels; with `merged`, the node-local kernel and the face kernel are one
    /// pass (each element's state read once).
    Gemm {
        /// Node-local and face kernels merged.
        merged: bool,
        /// What computes the products.
        engine: GemmEngine,
    },
}

/// What computes the GEMM strategy's products (the gradient, divergence and lift GEMMs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum GemmEngine {
    /// The device's BLAS (cuBLAS) for all three.
    Blas,
    /// The lift on a generated tensor-core kernel (f32 as three tf32 products of split operands, CUDA on compute
    /// capability 8.0 and later), the other two on the BLAS.
    MmaLift,
    /// All three on generated tensor-core kernels: no BLAS.
    Mma,
    /// As [`GemmEngine::Mma`], and an AB3 step's update made by the lift kernel as it writes each right-hand-side
    /// value (no update kernel: the update block of the SPEC is not used; a law without a source term only).
    MmaAb3,
}

impl Strategy {
    /// The GEMM strategy with the BLAS computing its products (seed 002's).
    pub const fn blas_gemm(merged: bool) -> Self {
        Strategy::Gemm { merged, engine: GemmEngine::Blas }
    }

    /// Whether its surface kernels read the face-node traces (node and element per thread), which the AB3
    /// update then extracts; the GEMM strategy's face kernel reads the state itself.
    pub fn reads_traces(&self) -> bool {
        !matches!(self, Strategy::Gemm { .. })
    }

    /// Whether it needs the device's BLAS.
    pub fn needs_blas(&self) -> bool {
        matches!(self, Strategy::Gemm { engine: GemmEngine::Blas | GemmEngine::MmaLift, .. })
    }

    /// Whether an AB3 step's update is made by the lift kernel (no update kernel of its own).
    pub fn updates_in_lift(&self) -> bool {
        matches!(self, Strategy::Gemm { engine: GemmEngine::MmaAb3, .. })
    }

    /// Whether it needs the generated tensor-core GEMM kernels (and a device that may run them).
    pub fn needs_tensor_cores(&self) -> bool {
        matches!(self, Strategy::Gemm { engine: GemmEngine::MmaLift | GemmEngine::Mma | GemmEngine::MmaAb3, .. })
    }

    /// Whether the GEMM strategy's node-local and face kernels are one pass.
    pub fn is_merged_gemm(&self) -> bool {
        matches!(self, Strategy::Gemm { merged: true, .. })
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
            Strategy::Gemm { merged, engine } => {
                let name = if merged { "gemm-merged" } else { "gemm" };
                let engine = match engine {
                    GemmEngine::Blas => "",
                    GemmEngine::MmaLift => "/mma-lift",
                    GemmEngine::Mma => "/mma",
                    GemmEngine::MmaAb3 => "/mma-ab3",
                };
                write!(f, "tet/{name}{engine}/u{}/{p}", self.update)
            }
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
                 tet/gemm[-merged][/mma-lift|/mma|/mma-ab3]/u<K>/<f32|f64> with K in {KB_CHOICES:?} and W in \
                 {ELEMENT_WIDTHS:?} (mma: tensor cores, f32 only)"
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
            Some(&name @ ("gemm" | "gemm-merged")) if parts.len() == 4 || parts.len() == 5 => {
                let engine = match parts.len() {
                    4 => GemmEngine::Blas,
                    _ => match parts[2] {
                        "mma-lift" => GemmEngine::MmaLift,
                        "mma" => GemmEngine::Mma,
                        "mma-ab3" => GemmEngine::MmaAb3,
                        other => return Err(err(&format!("`{other}` is not mma-lift, mma or mma-ab3"))),
                    },
                };
                let merged = name == "gemm-merged";
                (Strategy::Gemm { merged, engine }, number(parts[parts.len() - 2], 'u', &KU_CHOICES)?)
            }
            _ => return Err(err("unknown strategy or wrong number of parts")),
        };
        if precision == Precision::F64 && engine_of(strategy) != GemmEngine::Blas {
            return Err(err("the tensor-core GEMM kernels are f32 only (three tf32 products of split operands)"));
        }
        Ok(Self { strategy, update, precision })
    }
}

/// The GEMM engine of a strategy (the BLAS for those that are no GEMM strategy).
fn engine_of(strategy: Strategy) -> GemmEngine {
    match strategy {
        Strategy::Gemm { engine, .. } => engine,
        _ => GemmEngine::Blas,
    }
}

/// What the device allows a kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TetLimits {
    /// Largest work group.
    pub max_work_group: usize,
    /// Static local (shared) memory per work group, bytes.
    pub local_memory: usize,
    /// Whether generated kernels may use the tf32 tensor cores (`mma.sync.m16n8k8.tf32`: CUDA on compute
    /// capability 8.0 and later); the tensor-core GEMM kernels are in the program only then (and in f32).
    pub tensor_cores: bool,
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
