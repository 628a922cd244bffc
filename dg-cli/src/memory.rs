//! The memory a run's mesh needs, bounded from below before the mesh is built, against what this machine has
//! available ([`dg_runtime::host_memory`]).

use dg_runtime::host_memory::{self, available_bytes};

/// The elements a run is made of, with the least memory one of them takes in a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ElementKind {
    /// A triangle of the nodal or modal formulations.
    Triangle,
    /// A tetrahedron.
    Tetrahedron,
    /// A triangle of the hybridizable DG solver (element matrices, trace system).
    HdgTriangle,
}

impl ElementKind {
    /// Bytes per element a run takes at the least: below what `/usr/bin/time` measured at degree 1 (the least
    /// per element) on this project's 2-core machine, 2026-12-02 (maximum resident set over elements: Maxwell
    /// 3.0 KB and Euler 1.6 KB per triangle on the native CPU path, Euler 2.8 KB through PoCL; acoustics 5.6 KB per
    /// tetrahedron; helmholtz-square 7.2 KB per triangle), so that no run which fits is refused.
    pub fn least_bytes(self) -> u128 {
        match self {
            Self::Triangle => 1024,
            Self::Tetrahedron | Self::HdgTriangle => 2048,
        }
    }

    fn plural(self) -> &'static str {
        match self {
            Self::Triangle | Self::HdgTriangle => "triangles",
            Self::Tetrahedron => "tetrahedra",
        }
    }
}

/// Refuses `elements` elements of `kind` (what the user asked for: `asked`, e.g. "--nx 20000") when even the
/// least they need exceeds the memory this machine has available; where that is unknown (no `/proc/meminfo`),
/// passes.
pub fn ensure_fits(kind: ElementKind, elements: u128, asked: &str) -> anyhow::Result<()> {
    ensure_fits_in(available_bytes(), kind, elements, asked)
}

fn ensure_fits_in(available: Option<u128>, kind: ElementKind, elements: u128, asked: &str) -> anyhow::Result<()> {
    let least = elements.saturating_mul(kind.least_bytes());
    let made = format!("{asked} makes {elements} {}, which need", kind.plural());
    ensure_bytes_fit_in(available, least, &made, "use a coarser mesh")
}

/// Bytes per degree of freedom a timing problem (`dg autotune`, `dg bench` `--min-dofs`) takes on the host at the
/// least: its state, a reference and a copy read back, in f64.
pub const TIMING_LEAST_BYTES_PER_DOF: u128 = 24;

/// Refuses a timing problem of `dofs` degrees of freedom (`flag`: `--min-dofs`, `--nodes`) that this machine's
/// memory cannot hold.
pub fn ensure_timing_fits(flag: &str, dofs: u64) -> anyhow::Result<()> {
    let least = dofs as u128 * TIMING_LEAST_BYTES_PER_DOF;
    let made = format!("{flag} {dofs} needs");
    ensure_bytes_fit_in(available_bytes(), least, &made, "time a smaller problem")
}

fn ensure_bytes_fit_in(available: Option<u128>, least: u128, made: &str, advice: &str) -> anyhow::Result<()> {
    host_memory::ensure_available_in(available, least, made, advice).map_err(anyhow::Error::msg)
}

/// `base` elements after `levels` uniform refinements, each multiplying them by `factor` (4 for triangles, 8 for
/// tetrahedra).
pub fn refined(base: u128, factor: u128, levels: usize) -> u128 {
    (0..levels).fold(base, |n, _| n.saturating_mul(factor))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mesh_beyond_the_available_memory_is_refused_with_the_figures() {
        let available = Some(8_000_000_000);
        // 2 · 20000² triangles: 819 GB at the least
        let err = ensure_fits_in(available, ElementKind::Triangle, 800_000_000, "--nx 20000").unwrap_err();
        let text = err.to_string();
        assert!(text.contains("--nx 20000 makes 800000000 triangles"), "{text}");
        assert!(text.contains("at least 819.2 GB") && text.contains("8.0 GB available"), "{text}");
        assert!(ensure_fits_in(available, ElementKind::Triangle, 7_000_000, "--nx 1870").is_ok());
        assert!(ensure_fits_in(None, ElementKind::Tetrahedron, u128::MAX, "--nx 512").is_ok());
        let err = ensure_bytes_fit_in(available, 9_000_000_000, "--min-dofs 375000000 needs", "smaller").unwrap_err();
        assert_eq!(
            err.to_string(),
            "--min-dofs 375000000 needs at least 9.0 GB of memory; this machine has 8.0 GB available: smaller"
        );
        assert_eq!(refined(3, 4, 2), 48);
        assert_eq!(refined(u128::MAX / 2, 8, 3), u128::MAX);
    }
}
