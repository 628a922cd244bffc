//! The variant space of the modal kernels and its SPEC strings.
//!
//! SPEC grammar: `modal/wg<g>/<surface>/<tables>/<layout>/<precision>`, e.g. `modal/wg128/edge/const/mode-major/f64`.

use dg_codegen::{Precision, VariantError};
use std::fmt;
use std::str::FromStr;

/// Work-group sizes the tuner explores.
pub const MODAL_GROUPS: [usize; 3] = [64, 128, 256];

/// How the surface integral is formed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum ModalSurface {
    /// One work item per edge computes its numerical flux once and writes the left and right elements'
    /// contributions to temporaries indexed by edge; the volume kernel gathers them (seed 001, no atomics).
    Edge,
    /// One work item per edge adds both contributions to the right-hand side with atomic additions.
    Atomic,
    /// One work item per element does its volume and its three edges (each flux computed twice), writing the
    /// right-hand side once.
    Element,
    /// As [`ModalSurface::Element`], with the element's coefficients read once and held for its volume and edges,
    /// and each neighbour's read once per edge (not again at every edge point).
    ElementRegs,
    /// One work item per edge forms both traces at its Gauss points and stores the numerical flux there, computed
    /// once; one work item per element forms its volume integral and lifts its three edges' stored fluxes, writing
    /// the right-hand side once (no neighbour's coefficients and no Riemann solver in the element kernel).
    EdgeFlux,
    /// As [`ModalSurface::EdgeFlux`], with two work items per element in the element kernel, each holding the
    /// coefficients and results of half the variables and exchanging its share of the state at each volume point
    /// with its partner: half the registers per work item, twice the work items.
    EdgeFluxPair,
    /// One warp per 8 elements on the f64 tensor cores (CUDA, compute capability 8.0 and later): the traces at
    /// every volume and edge point are one matrix product [φ(volume); φ(edges)]·C of the elements' coefficients,
    /// each lane evaluates the fluxes at its two (element, point) pairs from the product's result in its
    /// registers, and the whole right-hand side is a second product [w∂φ/∂r  w∂φ/∂s  wφ(edges)]ᵀ·F.
    Mma,
}

impl ModalSurface {
    /// Every surface strategy, in the order the tuner meets them ([`ModalVariant::all`]).
    pub const ALL: [ModalSurface; 7] = [
        ModalSurface::Edge,
        ModalSurface::Atomic,
        ModalSurface::Element,
        ModalSurface::ElementRegs,
        ModalSurface::Mma,
        ModalSurface::EdgeFlux,
        ModalSurface::EdgeFluxPair,
    ];

    /// The surface's name in a variant spec.
    pub fn name(self) -> &'static str {
        match self {
            ModalSurface::Edge => "edge",
            ModalSurface::Atomic => "atomic",
            ModalSurface::Element => "element",
            ModalSurface::ElementRegs => "element-regs",
            ModalSurface::Mma => "mma",
            ModalSurface::EdgeFlux => "edge-flux",
            ModalSurface::EdgeFluxPair => "edge-flux-pair",
        }
    }
}

/// Elements per work group of the mma surface: 8 per warp, one per 4 work items.
pub const MMA_ITEMS_PER_ELEMENT: usize = 4;

/// Where the basis tables live.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Tables {
    /// Compile-time constants in constant memory.
    Const,
    /// Copied from global to local (shared) memory by each work group.
    Shared,
}

/// Device layout of the modal coefficients.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum ModalLayout {
    /// C\[v\]\[j\]\[k\]: element index fastest, so a work item per element reads coalesced (seed 001).
    ModeMajor,
    /// C\[k\]\[v\]\[j\]: an element's coefficients together (the CPU layout).
    ElemMajor,
    /// Tiles of [`TILE_ELEMENTS`] elements, each tile one contiguous block of all its coefficients, element fastest
    /// inside it: coefficient j of variable v of element k at (k / 32)·32·NV·NM + (v·NM + j)·32 + k mod 32. A work
    /// item per element reads as coalesced as mode-major, and every offset within its tile is a constant of the
    /// kernel (mode-major's rows lie the run-time element count apart); the element count is padded to whole tiles.
    Tiled,
}

/// Elements per tile of the [`ModalLayout::Tiled`] layout (a warp's width; `modal_sizes.tera`'s `QIDX` shifts by 5).
pub const TILE_ELEMENTS: usize = 32;

/// One point of the modal variant space.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct ModalVariant {
    /// Work-group size (elements or edges per group).
    pub group: usize,
    /// Surface strategy.
    pub surface: ModalSurface,
    /// Table storage.
    pub tables: Tables,
    /// Coefficient layout.
    pub layout: ModalLayout,
    /// Precision.
    pub precision: Precision,
}

impl ModalVariant {
    /// Every variant of one precision: groups × surfaces × tables × layouts (the mma surface in f64, const tables and
    /// mode-major only).
    pub fn all(precision: Precision) -> Vec<ModalVariant> {
        let mut out = Vec::new();
        for group in MODAL_GROUPS {
            for surface in ModalSurface::ALL {
                if surface == ModalSurface::Mma && precision != Precision::F64 {
                    continue;
                }
                for tables in [Tables::Const, Tables::Shared] {
                    for layout in [ModalLayout::ModeMajor, ModalLayout::ElemMajor, ModalLayout::Tiled] {
                        if surface == ModalSurface::Mma && (layout != ModalLayout::ModeMajor || tables != Tables::Const)
                        {
                            continue;
                        }
                        out.push(ModalVariant { group, surface, tables, layout, precision });
                    }
                }
            }
        }
        out
    }

    /// Seed 001's design: edge-wise surface, tables in constant memory, mode-major, 256 threads.
    pub fn seed(precision: Precision) -> Self {
        ModalVariant {
            group: 256,
            surface: ModalSurface::Edge,
            tables: Tables::Const,
            layout: ModalLayout::ModeMajor,
            precision,
        }
    }
}

impl fmt::Display for ModalVariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let surface = self.surface.name();
        let tables = match self.tables {
            Tables::Const => "const",
            Tables::Shared => "shared",
        };
        let layout = match self.layout {
            ModalLayout::ModeMajor => "mode-major",
            ModalLayout::ElemMajor => "elem-major",
            ModalLayout::Tiled => "tiled",
        };
        let precision = match self.precision {
            Precision::F32 => "f32",
            Precision::F64 => "f64",
        };
        write!(f, "modal/wg{}/{surface}/{tables}/{layout}/{precision}", self.group)
    }
}

impl FromStr for ModalVariant {
    type Err = VariantError;

    fn from_str(spec: &str) -> Result<Self, Self::Err> {
        let surfaces = ModalSurface::ALL.map(ModalSurface::name).join("|");
        let err = |reason: String| {
            VariantError::Parse {
            spec: spec.to_string(),
            reason: format!(
                "{reason} (modal SPEC: modal/wg<64|128|256…>/<{surfaces}>/<const|shared>/<mode-major|elem-major|tiled>/<f32|f64>)"
            ),
        }
        };
        let parts: Vec<&str> = spec.split('/').collect();
        if parts.len() != 6 || parts[0] != "modal" {
            return Err(err(format!("expected 6 parts starting with `modal`, got {}", parts.len())));
        }
        let group = parts[1]
            .strip_prefix("wg")
            .and_then(|g| g.parse::<usize>().ok())
            .filter(|g| (32..=1024).contains(g) && g % 32 == 0)
            .ok_or_else(|| {
                err(format!("`{}` is not a work-group size wg<k> (k a multiple of 32 up to 1024)", parts[1]))
            })?;
        let surface = ModalSurface::ALL
            .into_iter()
            .find(|s| s.name() == parts[2])
            .ok_or_else(|| err(format!("unknown surface `{}`", parts[2])))?;
        let tables = match parts[3] {
            "const" => Tables::Const,
            "shared" => Tables::Shared,
            other => return Err(err(format!("unknown table storage `{other}`"))),
        };
        let layout = match parts[4] {
            "mode-major" => ModalLayout::ModeMajor,
            "elem-major" => ModalLayout::ElemMajor,
            "tiled" => ModalLayout::Tiled,
            other => return Err(err(format!("unknown layout `{other}`"))),
        };
        let precision = match parts[5] {
            "f32" => Precision::F32,
            "f64" => Precision::F64,
            other => return Err(err(format!("unknown precision `{other}`"))),
        };
        Ok(ModalVariant { group, surface, tables, layout, precision })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_variant_round_trips_through_its_spec() {
        for precision in [Precision::F32, Precision::F64] {
            let all = ModalVariant::all(precision);
            assert_eq!(all.len(), if precision == Precision::F64 { 111 } else { 108 });
            for v in all {
                assert_eq!(v.to_string().parse::<ModalVariant>().unwrap(), v);
            }
        }
    }

    #[test]
    fn the_tiled_layout_is_in_the_list_for_every_surface_but_mma() {
        let spec = "modal/wg64/edge-flux-pair/const/tiled/f64";
        let v: ModalVariant = spec.parse().unwrap();
        assert_eq!((v.layout, v.to_string().as_str()), (ModalLayout::Tiled, spec));
        for precision in [Precision::F32, Precision::F64] {
            let tiled: Vec<_> =
                ModalVariant::all(precision).into_iter().filter(|v| v.layout == ModalLayout::Tiled).collect();
            // 3 groups × 6 surfaces × 2 table storages
            assert_eq!(tiled.len(), 36, "{precision:?}");
            assert!(tiled.iter().all(|v| v.surface != ModalSurface::Mma));
        }
        let e = "modal/wg64/edge/const/tiles/f64".parse::<ModalVariant>().unwrap_err().to_string();
        assert!(e.contains("unknown layout `tiles`") && e.contains("<mode-major|elem-major|tiled>"), "{e}");
    }

    #[test]
    fn malformed_specs_are_rejected_with_the_grammar() {
        for bad in ["modal/wg100/edge/const/mode-major/f64", "modal/wg64/faces/const/mode-major/f64", "elem/wg64"] {
            let e = bad.parse::<ModalVariant>().unwrap_err().to_string();
            assert!(e.contains("modal SPEC"), "{e}");
            // every surface the parser accepts, named in the grammar it prints
            assert!(e.contains("/<edge|atomic|element|element-regs|mma|edge-flux|edge-flux-pair>/"), "{e}");
        }
    }
}
