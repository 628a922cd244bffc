//! The variant space of the nodal strong-form kernels, SPEC strings and validity rules.
//!
//! SPEC grammar: `<partition>/<group>/seq<s>/<storage>/<surface>/<layout>/<precision>[/diff-first|/mixed]`, e.g.
//! `node/mb2/seq1/field-local/fused/elem-major/f32`, `elem/wg64/seq1/matrix-const/split/node-major/f64/diff-first`
//! or `tile4/wg32/seq1/matrix-local/merged/node-major/f64` (four work items per element, 32 elements per group), or
//! `mma/wg16/seq2/field-local/merged/node-major/f64` (the operator on the tensor cores, 16 elements per group), or
//! `gemm/wg128/seq1/field-local/merged/node-major/f64` (a flux kernel, then the operator as library GEMMs).
//! The optional last part is the volume formulation; without it, the flux is evaluated at the nodes and then
//! differentiated (`flux-first`, valid for every law).

pub use dg_codegen::kernel_space::{DeviceLimits, LawShape, Precision, VariantError};
use std::fmt;
use std::str::FromStr;

/// The most work items resident on one multiprocessor of the devices the launch bounds of `whole<t>b<G>` are for
/// (CUDA compute capability 8.0 and later: 2,048).
pub const MAX_RESIDENT_WORK_ITEMS: usize = 2048;

/// The SPEC grammar, shown with every SPEC that does not parse.
pub const GRAMMAR: &str = "  expected <partition>/<group>/seq<s>/<storage>/<surface>/<layout>/<precision>[/<form>]\n  partition: node, elem, tile<t> (t work items per element), mirror<t> (tiles on the operator folded by the triangle's mirror symmetry: half the products; on request), ahead<t> (mirror tiles reading their face indices and face data as a pass starts and their first face states during the last chunk's sum), unrolled<t> (ahead<t> with the volume's and the lift's column loops unrolled; on request), whole<t> (unrolled<t> over the whole element in one chunk, each face's neighbour found from its packed link; whole<t>b<G>: the same under CUDA's __launch_bounds__ asking for G groups per multiprocessor), staged<t> (mirror tiles whose group's states, face data and neighbours' face states reach local memory by asynchronous copies: CUDA sm_80+ cp.async; tiled layout, wg8, wg16 or wg32; on request), mma (tensor cores, CUDA sm_80+: f64, or f32 as three tf32 products), mma16 (f64 on m16n8k4, CUDA sm_90+), mma16r (mma16 with B formed in registers, a warp per 8 elements: field-local), mmamirror (the mirror tiles' products on the tensor cores: f64 on m16n8k4, CUDA sm_90+, or f32 as three tf32 products on m16n8k8, CUDA sm_80+ (on request); wg16 (f32 also wg32), field-local, tiled, seq1; mmamirrorb<G>: under __launch_bounds__ for G groups per multiprocessor), gemm (a flux kernel, then cuBLAS GEMMs: field-local, merged, node-major, seq1); group: mb<k> (node: microblocks per group) or wg<k> (elem, tile, mirror, ahead, unrolled, whole, staged, mma, mma16, mma16r, mmamirror, gemm: elements per group); seq: seq<s>; the tuner explores mb1, mb2, wg32, wg128, seq1, seq2, tile4, tile8 (and tile6 mixed; mixed tiles and merged elements in f32 only) with wg32, seq1, mma (f64) with wg8, wg16, wg32, seq1, seq2, mma16 and mma16r the same field-local, ahead3, 4, 5, 7 mixed on the tiled layout, matrix-local, with wg32, seq1 (and with wg16 in f64), whole3, 4, 5, 7 the same with wg32 in f32 (and whole5b5) and wg16 in f64, mmamirror (f64) flux-first and mixed, and gemm with wg32, wg128\n  storage: field-local, matrix-local, matrix-const; surface: fused, split, merged; layout: elem-major, node-major, tiled (merged elements, tiles and mma kernels: tiles of 32 elements, each contiguous; mma ones on request); precision: f32, f64; form (optional): flux-first (default), diff-first (linear laws), mixed (tiles and merged elements of linear laws whose variables share fields' gradients)\n  example: node/mb2/seq1/field-local/fused/elem-major/f32";

/// What one work item computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Partition {
    /// One work item per output node; a work group holds whole microblocks (seed 000).
    Node,
    /// One work item per element, looping over its nodes (seed 001, 002).
    Element,
    /// `threads` work items per element sharing its contravariant fluxes and face jumps through local memory, each
    /// producing a block of output nodes for every variable (in-line parallelism with register tiling: each matrix
    /// entry read serves every variable, each flux value every row of the block). Volume and surface merged.
    Tile {
        /// Work items per element.
        threads: usize,
    },
    /// [`Partition::Tile`] on the operator folded by the reference triangle's mirror symmetry (r, s) ↦ (s, r)
    /// ([`crate::mirror`]): each work item keeps the symmetric and antisymmetric rows of its block of mirror
    /// representatives, so each folded column costs one multiply-add per row — np columns against Dr's and Ds's
    /// 2·np — and the lift about half of its np·3·nfp; the store writes both nodes of each pair. Flux-first or
    /// mixed.
    ///
    /// Staged (`staged<t>`), the group's inputs reach local memory by asynchronous copies (CUDA `cp.async`, compute
    /// capability 8.0 and later; OpenCL copies through registers): a pass's elements' states, face data and
    /// boundary conditions (the first pass's as the group starts, each later one's during the lift of the pass
    /// before), then, from the face indices read ahead, the neighbours' face states and materials, whose latency the
    /// volume sum hides; the face jumps are formed in place of the neighbours' states. The states are not read one
    /// chunk ahead into registers, and no face gather waits after the volume sum. The tiled layout, 8, 16 or 32
    /// elements per group (a group within one tile). Measured 1.03–1.37× slower than the mirror tiles on an H100
    /// (docs/performance.md): valid on request, not in the list.
    ///
    /// Faces ahead (`ahead<t>`): as the mirror tiles, but each work item reads its face nodes' neighbour offsets and
    /// its faces' normals, scales, boundary conditions and neighbours as a pass starts (the faces' data then in local
    /// memory), and its first batch of face nodes' states during the last chunk's sum, so that the face stage waits
    /// on no index load and the first batch waits on nothing. `unrolled<t>`: the same with the volume's and the
    /// lift's column loops unrolled. `whole<t>`: unrolled, over the whole element in one chunk, and each face's
    /// neighbour found from its packed link. `balanced<t>`: `whole<t>` with each work item an even share of the pairs
    /// (both rows) and of the fixed nodes (their symmetric rows alone); `segregated<t>`: the pairs on t − 1 work
    /// items, the fixed nodes on the last.
    Mirror {
        /// Work items per element.
        threads: usize,
        /// How a pass's inputs reach the work items.
        inputs: MirrorInputs,
    },
    /// The whole operator as one matrix product per group of elements on the tensor cores (CUDA `mma.sync`,
    /// compute capability 8.0 and later): [−Dr −Ds LIFT] (one warp per 8 output nodes in f64, 16 in f32, its
    /// fragments of the matrix in registers (matrix-local) or read through the cache at each step (field-local))
    /// times the group's contravariant fluxes and face jumps (in local memory). Volume and surface merged. f64 runs
    /// `m8n8k4.f64`; f32 runs `m16n8k8.tf32` three times on operands split into high and low tf32 parts, which
    /// keeps f32 accuracy (one tf32 product alone would not).
    Mma,
    /// [`Partition::Mma`] in f64 on the `m16n8k4.f64` instruction of compute capability 9.0 (one warp per 16 output
    /// nodes): an H200 issues it at the rate of `m8n8k4`, so it does twice the work per issue (66 against 33
    /// TFLOP/s, chains of each instruction alone; `scripts/probe/dmma_shapes.cu`). Needs
    /// [`DeviceLimits::f64_mma_m16`].
    Mma16,
    /// [`Partition::Mma16`] with B in registers: each warp owns 8 elements (one column tile of B) and every row
    /// tile of the operator, and each lane forms the values of B its fragments hold — lane l the contravariant
    /// fluxes of node 4·step + l % 4 (its r-part for −Dr's step, its s-part for −Ds's) or the face jump of face node
    /// 4·step + l % 4 of element l / 4 — so B never passes through local memory, no work group waits at a barrier
    /// and each node's flux is formed once. The operator's columns come in three sections, each padded to whole
    /// steps ([`crate::render::Geometry::mma_sections`]). Fragments of A read through the cache (field-local). f64,
    /// compute capability 9.0.
    Mma16Regs,
    /// The mirror tiles' products ([`Partition::Mirror`]) on the tensor cores ([`crate::mirror_mma`]): in f64
    /// `mma.m16n8k4.f64` (CUDA compute capability 9.0), in f32 `mma.m16n8k8.tf32` three times per product on
    /// operands split into high and low tf32 parts (compute capability 8.0), which keeps f32 accuracy. A group of 16
    /// elements forms its folded inputs and face jumps in local memory (in the products' precision), then each warp
    /// multiplies them by one tile of 8 symmetric and one of 8 antisymmetric folded rows (the elements as the
    /// instruction's rows, the operator's fragments read through the cache) and stores y_i = sym + anti, y_P(i) =
    /// sym − anti from its accumulators. One warp per tile of symmetric rows (4 at N = 8), 16 elements per group,
    /// field-local, merged, tiled, flux-first or mixed. `mmamirror b<G>` (`min_groups` = G > 0): CUDA's
    /// `__launch_bounds__(work items, G)`, which caps the registers so that G groups fit a multiprocessor.
    MirrorMma {
        /// Groups per multiprocessor the launch bounds ask for; 0: none.
        min_groups: usize,
    },
    /// Seed 002's GEMM strategy on triangles: a kernel writes each element's contravariant fluxes rx·Fx + ry·Fy,
    /// sx·Fx + sy·Fy at every node and its face jumps at every face node (one work item per element, `group`
    /// elements per work group), then one library GEMM per variable (cuBLAS) applies the whole operator
    /// [−Dr −Ds LIFT] to every element at once: volume and lift in one product, the right-hand side written once.
    /// Needs a BLAS ([`DeviceLimits::blas`]).
    Gemm,
}

impl Partition {
    /// Whether the partition runs the operator on the tensor cores ([`Partition::Mma`], [`Partition::Mma16`],
    /// [`Partition::Mma16Regs`]).
    pub fn is_mma(&self) -> bool {
        matches!(self, Partition::Mma | Partition::Mma16 | Partition::Mma16Regs)
    }

    /// Whether the partition runs `m16n8k4.f64`, an instruction of compute capability 9.0.
    pub fn is_mma16(&self) -> bool {
        matches!(self, Partition::Mma16 | Partition::Mma16Regs)
    }
}

/// Where the operator matrices (Dr, Ds, LIFT) live.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Storage {
    /// Fields (fluxes, face jumps) in local memory, matrices read from global memory through the cache.
    FieldLocal,
    /// Matrices copied to local memory by each work group (fields in local memory too); in the mma partition, the
    /// operator's fragments held in the registers of the warps that use them, once per work group.
    MatrixLocal,
    /// Matrices as compile-time constants in the source.
    MatrixConst,
}

/// How the surface term is computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Surface {
    /// Numerical flux and lift in one kernel.
    Fused,
    /// A flux kernel writing face jumps, then a lift kernel.
    Split,
    /// Volume and surface in one kernel (element partition): the right-hand side is written once and never read
    /// back, which halves the memory traffic of the surface term.
    Merged,
}

/// Elements per tile of the [`Layout::Tiled`] state layout (a warp's width; `sizes.tera`'s `NODE_OFF` shifts by 5).
pub const TILE_ELEMENTS: usize = 32;

/// Device layout of the state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Layout {
    /// Per field, element after element in padded microblocks (seed 000).
    ElementMajor,
    /// Per field, node after node, elements fastest (basis-function-major, seed 001).
    NodeMajor,
    /// Node-major inside tiles of 32 elements, a tile's every variable contiguous: variable v at node i of element
    /// k at (k / 32)·32·NP·NV + v·32·NP + i·32 + k mod 32. A warp's loads of one element tile are then offsets
    /// from one address known at compile time (the node-major layout's rows lie a run-time row length apart), and
    /// each tile is one contiguous block. Generated for the merged element kernels and the tile partition.
    Tiled,
}

/// How the volume term ∇·F(q) is formed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum VolumeForm {
    /// Evaluate F at the nodes, then differentiate it (every law).
    FluxFirst,
    /// Differentiate the fields, then apply the flux to the derivatives: ∇·F(q) = Σ_d F_d(∂q/∂x_d). Valid when
    /// the flux is linear and homogeneous in the state (the IR says so); half the matrix work and half the
    /// per-thread storage of flux-first.
    DiffFirst,
    /// Tiles or merged elements of a linear law whose variables' fluxes read shared fields
    /// ([`dg_ir::DivergencePlan`]): flux-first for the variables whose flux mixes fields, and the reference gradient
    /// of each field that several variables' fluxes read summed once and shared (Maxwell TM: ∇Ez serves Hx and Hy;
    /// two products per direction instead of three).
    Mixed,
}

/// One point of the variant space.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Variant {
    /// Work partition.
    pub partition: Partition,
    /// Node partition: microblocks per work group; element partition: work-group size in elements.
    pub group: usize,
    /// Work groups' worth of elements each work group processes one after the other.
    pub seq: usize,
    /// Matrix / field storage.
    pub storage: Storage,
    /// Surface strategy.
    pub surface: Surface,
    /// State layout.
    pub layout: Layout,
    /// Precision.
    pub precision: Precision,
    /// Volume formulation.
    pub form: VolumeForm,
}

/// How `whole<t>`'s folded rows are shared out among an element's work items ([`MirrorInputs::WholeElement`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum WholeRows {
    /// `whole<t>`: consecutive representatives, both rows of each (a fixed node's zero antisymmetric row and the
    /// padding of the last work item included).
    Consecutive,
    /// `balanced<t>`: every work item an even share of the pairs (both rows) and of the fixed nodes (their symmetric
    /// rows alone), [`crate::mirror::RowShare::balanced`].
    Balanced,
    /// `segregated<t>`: the pairs evenly on t − 1 work items, the fixed nodes' symmetric rows on the last,
    /// [`crate::mirror::RowShare::segregated`].
    Segregated,
}

impl MirrorInputs {
    /// Whether a pass reads its face indices and face data as it starts and its first face states during the
    /// volume sum's last chunk (`ahead<t>`, `unrolled<t>` and the whole-element tiles).
    pub fn reads_faces_ahead(self) -> bool {
        matches!(self, MirrorInputs::FacesAhead | MirrorInputs::FacesAheadUnrolled | MirrorInputs::WholeElement { .. })
    }

    /// Whether the volume's and the lift's column loops are unrolled (`unrolled<t>` and the whole-element tiles).
    pub fn unrolls_columns(self) -> bool {
        matches!(self, MirrorInputs::FacesAheadUnrolled | MirrorInputs::WholeElement { .. })
    }
}

impl WholeRows {
    /// Every way of sharing the rows: `whole`, `balanced`, `segregated`.
    pub const ALL: [WholeRows; 3] = [WholeRows::Consecutive, WholeRows::Balanced, WholeRows::Segregated];

    /// The sharing a SPEC's partition names and what follows its name (`balanced4b5`: `Balanced`, `4b5`); `None`
    /// for another partition.
    pub fn split_prefix(partition: &str) -> Option<(Self, &str)> {
        Self::ALL.into_iter().find_map(|rows| partition.strip_prefix(rows.name()).map(|rest| (rows, rest)))
    }

    /// How `threads` work items of an element share its folded rows at order `order`, each block rounded up to
    /// `width` rows: [`crate::mirror::RowShare::balanced`] or [`crate::mirror::RowShare::segregated`]; `None` for the
    /// consecutive representatives of `whole<t>`.
    pub fn share(self, order: usize, threads: usize, width: usize) -> Option<crate::mirror::RowShare> {
        match self {
            WholeRows::Consecutive => None,
            WholeRows::Balanced => Some(crate::mirror::RowShare::balanced(order, threads, width)),
            WholeRows::Segregated => Some(crate::mirror::RowShare::segregated(order, threads, width)),
        }
    }

    /// The partition's name in a SPEC.
    pub fn name(self) -> &'static str {
        match self {
            WholeRows::Consecutive => "whole",
            WholeRows::Balanced => "balanced",
            WholeRows::Segregated => "segregated",
        }
    }
}

/// How the mirror tiles' inputs reach the work items ([`Partition::Mirror`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum MirrorInputs {
    /// `mirror<t>`: each chunk's states loaded into registers one chunk ahead; the face stage reads its indices,
    /// then the states they point to, batch by batch.
    Chunks,
    /// `ahead<t>`: as [`MirrorInputs::Chunks`], with the face indices and face data read as a pass starts and the
    /// first batch of face states during the last chunk's sum; with several passes per group (seq > 1), a later
    /// pass's first chunk, face indices and data and geometry are read during the lift of the pass before.
    FacesAhead,
    /// `unrolled<t>`: as [`MirrorInputs::FacesAhead`], with the volume's and the lift's column loops unrolled (every
    /// operator entry and folded input at an offset the compiler knows).
    FacesAheadUnrolled,
    /// `whole<t>`: as [`MirrorInputs::FacesAheadUnrolled`], with every representative in one chunk (one volume sum
    /// over the whole element, its states all read as the pass starts) and each face's neighbour node found from
    /// the face's packed link (one int per face: no `vmap_p`, `face_bc` or `neigh` read). `whole<t>b<G>`
    /// (`min_groups` = G > 0): CUDA's `__launch_bounds__(work items, G)`, which caps the registers so that G groups fit
    /// a multiprocessor (OpenCL has no such hint: the kernel is written without it).
    ///
    /// `balanced<t>` and `segregated<t>` ([`WholeRows`]): the same, with the folded rows shared out among the work items
    /// otherwise than consecutively ([`crate::mirror::RowShare`]).
    WholeElement {
        /// Groups per multiprocessor the launch bounds ask for; 0: none.
        min_groups: usize,
        /// How the folded rows are shared out among an element's work items.
        rows: WholeRows,
    },
    /// `staged<t>`: the group's inputs copied to local memory asynchronously.
    Staged,
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let partition = match self.partition {
            Partition::Node => "node".to_string(),
            Partition::Element => "elem".to_string(),
            Partition::Tile { threads } => format!("tile{threads}"),
            Partition::Mirror { threads, inputs: MirrorInputs::Chunks } => format!("mirror{threads}"),
            Partition::Mirror { threads, inputs: MirrorInputs::FacesAhead } => format!("ahead{threads}"),
            Partition::Mirror { threads, inputs: MirrorInputs::FacesAheadUnrolled } => format!("unrolled{threads}"),
            Partition::Mirror { threads, inputs: MirrorInputs::WholeElement { min_groups, rows } } => {
                let name = rows.name();
                match min_groups {
                    0 => format!("{name}{threads}"),
                    g => format!("{name}{threads}b{g}"),
                }
            }
            Partition::Mirror { threads, inputs: MirrorInputs::Staged } => format!("staged{threads}"),
            Partition::Mma => "mma".to_string(),
            Partition::Mma16 => "mma16".to_string(),
            Partition::Mma16Regs => "mma16r".to_string(),
            Partition::MirrorMma { min_groups: 0 } => "mmamirror".to_string(),
            Partition::MirrorMma { min_groups } => format!("mmamirrorb{min_groups}"),
            Partition::Gemm => "gemm".to_string(),
        };
        let group = match self.partition {
            Partition::Node => format!("mb{}", self.group),
            Partition::Element
            | Partition::Tile { .. }
            | Partition::Mirror { .. }
            | Partition::Mma
            | Partition::Mma16
            | Partition::Mma16Regs
            | Partition::MirrorMma { .. }
            | Partition::Gemm => format!("wg{}", self.group),
        };
        let storage = match self.storage {
            Storage::FieldLocal => "field-local",
            Storage::MatrixLocal => "matrix-local",
            Storage::MatrixConst => "matrix-const",
        };
        let surface = match self.surface {
            Surface::Fused => "fused",
            Surface::Split => "split",
            Surface::Merged => "merged",
        };
        let layout = match self.layout {
            Layout::ElementMajor => "elem-major",
            Layout::NodeMajor => "node-major",
            Layout::Tiled => "tiled",
        };
        let precision = match self.precision {
            Precision::F32 => "f32",
            Precision::F64 => "f64",
        };
        write!(f, "{partition}/{group}/seq{}/{storage}/{surface}/{layout}/{precision}", self.seq)?;
        match self.form {
            VolumeForm::FluxFirst => {}
            VolumeForm::DiffFirst => write!(f, "/diff-first")?,
            VolumeForm::Mixed => write!(f, "/mixed")?,
        }
        Ok(())
    }
}

impl FromStr for Variant {
    type Err = VariantError;
    fn from_str(spec: &str) -> Result<Self, VariantError> {
        let bad =
            |reason: String| VariantError::Parse { spec: spec.to_string(), reason: format!("{reason}\n{GRAMMAR}") };
        let parts: Vec<&str> = spec.split('/').collect();
        if parts.len() != 7 && parts.len() != 8 {
            return Err(bad(format!("{} parts instead of 7 or 8", parts.len())));
        }
        let number = |text: &str, prefix: &str| -> Result<usize, VariantError> {
            text.strip_prefix(prefix)
                .and_then(|n| n.parse::<usize>().ok())
                .filter(|&n| n > 0)
                .ok_or_else(|| bad(format!("`{text}` should be {prefix}<positive number>")))
        };
        let partition = match parts[0] {
            "node" => Partition::Node,
            "elem" => Partition::Element,
            "mma" => Partition::Mma,
            "mma16" => Partition::Mma16,
            "mma16r" => Partition::Mma16Regs,
            "mmamirror" => Partition::MirrorMma { min_groups: 0 },
            other if other.starts_with("mmamirrorb") => {
                Partition::MirrorMma { min_groups: number(&other["mmamirror".len()..], "b")? }
            }
            "gemm" => Partition::Gemm,
            other if other.starts_with("tile") => Partition::Tile { threads: number(other, "tile")? },
            other if other.starts_with("mirror") => {
                Partition::Mirror { threads: number(other, "mirror")?, inputs: MirrorInputs::Chunks }
            }
            other if other.starts_with("ahead") => {
                Partition::Mirror { threads: number(other, "ahead")?, inputs: MirrorInputs::FacesAhead }
            }
            other if other.starts_with("unrolled") => {
                Partition::Mirror { threads: number(other, "unrolled")?, inputs: MirrorInputs::FacesAheadUnrolled }
            }
            other if other.starts_with("staged") => {
                Partition::Mirror { threads: number(other, "staged")?, inputs: MirrorInputs::Staged }
            }
            // (the whole-element tiles: `whole<t>`, `balanced<t>`, `segregated<t>`, each with `b<G>` or not)
            other => {
                let Some((rows, rest)) = WholeRows::split_prefix(other) else {
                    return Err(bad(format!("unknown partition `{other}`")));
                };
                let (threads, min_groups) = match rest.split_once('b') {
                    Some((head, groups)) => (head, number(&format!("b{groups}"), "b")?),
                    None => (rest, 0),
                };
                Partition::Mirror {
                    threads: number(&format!("{}{threads}", rows.name()), rows.name())?,
                    inputs: MirrorInputs::WholeElement { min_groups, rows },
                }
            }
        };
        let group = match partition {
            Partition::Node => number(parts[1], "mb")?,
            Partition::Element
            | Partition::Tile { .. }
            | Partition::Mirror { .. }
            | Partition::Mma
            | Partition::Mma16
            | Partition::Mma16Regs
            | Partition::MirrorMma { .. }
            | Partition::Gemm => number(parts[1], "wg")?,
        };
        let seq = number(parts[2], "seq")?;
        let storage = match parts[3] {
            "field-local" => Storage::FieldLocal,
            "matrix-local" => Storage::MatrixLocal,
            "matrix-const" => Storage::MatrixConst,
            other => return Err(bad(format!("unknown storage `{other}`"))),
        };
        let surface = match parts[4] {
            "fused" => Surface::Fused,
            "split" => Surface::Split,
            "merged" => Surface::Merged,
            other => return Err(bad(format!("unknown surface `{other}`"))),
        };
        let layout = match parts[5] {
            "elem-major" => Layout::ElementMajor,
            "node-major" => Layout::NodeMajor,
            "tiled" => Layout::Tiled,
            other => return Err(bad(format!("unknown layout `{other}`"))),
        };
        let precision = match parts[6] {
            "f32" => Precision::F32,
            "f64" => Precision::F64,
            other => return Err(bad(format!("unknown precision `{other}`"))),
        };
        let form = match parts.get(7) {
            None | Some(&"flux-first") => VolumeForm::FluxFirst,
            Some(&"diff-first") => VolumeForm::DiffFirst,
            Some(&"mixed") => VolumeForm::Mixed,
            Some(other) => return Err(bad(format!("unknown formulation `{other}`"))),
        };
        Ok(Variant { partition, group, seq, storage, surface, layout, precision, form })
    }
}

impl Variant {
    /// Every combination of the axes (valid or not) for one precision.
    pub fn all(precision: Precision) -> Vec<Variant> {
        let mut out = Vec::new();
        for storage in [Storage::FieldLocal, Storage::MatrixLocal, Storage::MatrixConst] {
            for surface in [Surface::Fused, Surface::Split, Surface::Merged] {
                for seq in [1, 2] {
                    for group in [1, 4] {
                        if surface == Surface::Merged {
                            continue;
                        }
                        out.push(Variant {
                            partition: Partition::Node,
                            group,
                            seq,
                            storage,
                            surface,
                            layout: Layout::ElementMajor,
                            precision,
                            form: VolumeForm::FluxFirst,
                        });
                    }
                    // the merged partitions that share the element's data in local memory (flux-first, node-major)
                    let shared = |partition, group, seq| Variant {
                        partition,
                        group,
                        seq,
                        storage,
                        surface,
                        layout: Layout::NodeMajor,
                        precision,
                        form: VolumeForm::FluxFirst,
                    };
                    // (f32 mma is verified and may be requested, but the tuner does not meet it: on an H200 its
                    // right-hand side was at most 5% faster than the FMA kernels at N = 7, 8 and slower in the folded
                    // loop, whose final error grew 4.6× (the split keeps 22 of f32's 24 bits; docs/performance.md))
                    // (the tensor-core kernels on both layouts: on an H200 the tiled twins of the f64 winners were
                    // 4–5 % faster at N = 5, 7, 1–4 % slower at N = 6, 8; 2026-12-04, scripts/probe/mma_tiled.sh)
                    if surface == Surface::Merged && storage != Storage::MatrixConst && precision == Precision::F64 {
                        for layout in [Layout::NodeMajor, Layout::Tiled] {
                            let on = |partition, group| Variant { layout, ..shared(partition, group, seq) };
                            out.extend([8, 16, 32].map(|group| on(Partition::Mma, group)));
                            // (the 16-row tiles' fragments of A fill 2·ksteps registers: field-local only in the list)
                            if storage == Storage::FieldLocal {
                                out.extend([8, 16, 32].map(|group| on(Partition::Mma16, group)));
                                out.extend([8, 16, 32].map(|group| on(Partition::Mma16Regs, group)));
                            }
                        }
                    }
                    // (the mirror tiles' products on the FP64 tensor cores, flux-first and mixed, in f64: on an H100
                    // (2026-12-06, scripts/probe/mirror_mma.sh) mixed at N = 5..8 took 0.127, 0.130, 0.121, 0.131 ms
                    // (73, 69, 74, 67 % of the roofline; N = 8's best before, balanced7 in groups of 16, 0.157 ms).
                    // In f32 with f64 products it took 0.113, 0.118, 0.099, 0.111 ms: slower than the FMA kernels
                    // (N = 8: balanced4 0.083); so did the launch bounds, `b<G>`, which gained at most 3 % at N = 8 in
                    // either precision. Since 2026-12-07 f32 runs its products as three tf32 products each: first
                    // verified on an H100 and slower still, 0.1216 ms at N = 8 (scripts/probe/mirror_tf32.sh); rebuilt
                    // since, below)
                    // (in f32 the tf32 products, mixed, under launch bounds for nine groups, `mmamirrorb9`: on an H100
                    // (2026-12-07, scripts/probe/mirror_tf32_one_tile.sh, batch_timing.sh, mirror_tf32_face_tables.sh)
                    // 0.0803–0.0811 ms at N = 8 in seven processes on three machines, against balanced4's 0.0822–0.0835
                    // beside them: the fastest N = 8 f32 kernel measured. Without the bounds, in groups of 32 or with
                    // one tile a warp it was slower, as at N = 5..7 against those orders' winners. Tuned with this list
                    // (scripts/probe/tune_tf32_b9.sh) it timed fastest at N = 8, 0.0804 ms against 0.0822, and the
                    // tuner's 3 % hysteresis kept balanced4, the stored winner)
                    // (the GEMM strategy: the library reads the operator, so the storage axis is field-local only)
                    if surface == Surface::Merged && seq == 1 && storage == Storage::FieldLocal {
                        let mirror_mma = |form, min_groups| Variant {
                            form,
                            layout: Layout::Tiled,
                            ..shared(Partition::MirrorMma { min_groups }, 16, 1)
                        };
                        match precision {
                            Precision::F64 => {
                                out.extend([VolumeForm::FluxFirst, VolumeForm::Mixed].map(|form| mirror_mma(form, 0)))
                            }
                            Precision::F32 => out.push(mirror_mma(VolumeForm::Mixed, 9)),
                        }
                        out.extend([32, 128].map(|group| shared(Partition::Gemm, group, 1)));
                    }
                    if surface == Surface::Merged && seq == 1 {
                        // (tile2 and seq4 were measured too and rarely won: 3.5% at N = 7 f64 once; each tile costs
                        // PoCL several seconds to build at high orders, and CI builds every valid variant)
                        // (each tile also on the tiled layout: on an H200 the tiled twins of the f32 winners at
                        // N = 5..8 were 2–7 % faster than node-major, scripts/probe/tiled_layout.sh, 2026-12-04)
                        for layout in [Layout::NodeMajor, Layout::Tiled] {
                            out.extend(
                                [4, 8].map(|threads| Variant { layout, ..shared(Partition::Tile { threads }, 32, 1) }),
                            );
                        }
                        // (mixed, f32, with the storages tiles have won with: each tile costs PoCL seconds to
                        // build; on an H200 the f64 mixed tiles won no order of either operation, so the tuner does
                        // not meet them, and they stay valid on request, `--variant …/f64/mixed`. Six work items
                        // per element — eight output rows each at N = 8, six at N = 7 — won N = 7 (right-hand side
                        // and stage) and N = 5 (stage) on an H200; three and five, flux-first tiles of six, and
                        // mixed tiles at seq2 won no order and are not in the list)
                        if storage != Storage::FieldLocal && precision == Precision::F32 {
                            for layout in [Layout::NodeMajor, Layout::Tiled] {
                                out.extend([4, 6, 8].map(|threads| Variant {
                                    form: VolumeForm::Mixed,
                                    layout,
                                    ..shared(Partition::Tile { threads }, 32, 1)
                                }));
                            }
                        }
                    }
                    // (the mirror tiles, mixed, on the tiled layout: half the tiles' multiply-adds. On an H100
                    // (2026-12-05, scripts/probe/mirror_sweep.sh) three to five work items per element won N = 5..7 of
                    // both precisions, and seven N = 8 f32 (7–8 % faster than five, scripts/probe/mirror_wide.sh and
                    // staged_sweep.sh); two, six and eight were slower at every order, as were the operator read
                    // through the cache (field-local: 1.3–1.9× slower) and two groups in sequence (seq2: 1.1–1.6×))
                    // (and each with its face indices and first face states read ahead, `ahead<t>`: on an H100
                    // (2026-12-06, scripts/probe/faces_ahead_retune.sh) the winners 2–7 % faster than the mirror
                    // tiles' at N = 5..8 f32 and 6 and 15 % at N = 6, 7 f64; N = 5 f64 kept mirror3)
                    // (`ahead<t>` also in f64 in groups of 16, which fit N = 8's local memory where 32 do not
                    // (on an H100, 2026-12-06, scripts/probe/ahead_passes_retune.sh: they won N = 5 and 8), and in f32
                    // with the column loops unrolled, `unrolled<t>` (ahead4 unrolled 5 % faster at N = 6 and 3 % at
                    // N = 7; in f64 slower, 0.159 against 0.136 ms at N = 7). In two passes per group, the second's
                    // first loads in flight during the first's lift, `ahead<t>` lost every order of both precisions
                    // by 7–25 %, and is valid on request only)
                    // (and `whole<t>`: unrolled over the whole element in one chunk, the neighbours from the faces'
                    // links; on an H100 (2026-12-06, scripts/probe/links_chunk.sh and whole_retune.sh) the winner
                    // at N = 4..8 f32 and N = 5, 6, 8 f64 (in groups of 16), 1.04–1.10× faster than the winners
                    // before it. In that tuning `mirror<t>` was 13–26 % slower than the best at every order of both
                    // precisions and `unrolled<t>` 5–34 % in f32: both left the list, valid on request)
                    // (and `balanced<t>`, its rows shared out evenly, no fixed node's zero antisymmetric row kept: on
                    // an H100 (2026-12-06, scripts/probe/balanced_rows.sh and whole_retune.sh) the winner at N = 4, 5,
                    // 8 f32 and N = 3, 6, 8 f64, 1.04–1.06× faster than `whole<t>` there (N = 8 f32: balanced4 0.085
                    // against whole7 0.090 ms). `segregated<t>`, the fixed nodes on a work item of their own, was
                    // 1.12–1.48× slower than the best at every order tried, with its class branch inside the column
                    // loops or outside them (scripts/probe/segregated_rows.sh): valid on request, not in the list)
                    if surface == Surface::Merged && seq == 1 && storage == Storage::MatrixLocal {
                        let mirror_tiles = |inputs, group| {
                            [3, 4, 5, 7].map(|threads| Variant {
                                form: VolumeForm::Mixed,
                                layout: Layout::Tiled,
                                ..shared(Partition::Mirror { threads, inputs }, group, 1)
                            })
                        };
                        // (`whole<t>` with its rows consecutive, then balanced)
                        let whole_tiles = |group| {
                            [WholeRows::Consecutive, WholeRows::Balanced]
                                .map(|rows| mirror_tiles(MirrorInputs::WholeElement { min_groups: 0, rows }, group))
                                .concat()
                        };
                        out.extend(mirror_tiles(MirrorInputs::FacesAhead, 32));
                        match precision {
                            Precision::F32 => {
                                out.extend(whole_tiles(32));
                                // (five work items under launch bounds for five groups: 8 % faster at N = 7 on an
                                // H100, 2026-12-06, scripts/probe/whole_bounds.sh; four, six groups and the other work
                                // item counts' bounds were no faster or slower)
                                out.push(Variant {
                                    form: VolumeForm::Mixed,
                                    layout: Layout::Tiled,
                                    ..shared(
                                        Partition::Mirror {
                                            threads: 5,
                                            inputs: MirrorInputs::WholeElement {
                                                min_groups: 5,
                                                rows: WholeRows::Consecutive,
                                            },
                                        },
                                        32,
                                        1,
                                    )
                                });
                            }
                            Precision::F64 => {
                                out.extend(mirror_tiles(MirrorInputs::FacesAhead, 16));
                                out.extend(whole_tiles(16));
                            }
                        }
                    }
                    // (the tiled layout, merged only: on an H200 (2026-12-04, scripts/probe/tiled_layout.sh) the
                    // tiled twins of the merged element winners were 3–13 % faster at N = 1..4 f32 and N = 3, 4 f64,
                    // and 9 % slower at N = 2 f64 (wg32 diff-first), so both layouts stay in the list)
                    for layout in [Layout::ElementMajor, Layout::NodeMajor, Layout::Tiled] {
                        if layout == Layout::Tiled && surface != Surface::Merged {
                            continue;
                        }
                        for group in [32, 128] {
                            for form in [VolumeForm::FluxFirst, VolumeForm::DiffFirst, VolumeForm::Mixed] {
                                // (mixed elements: merged, f32, the operator in local or constant memory. On an H200
                                // (2026-12-03, maxwell2d) they were 3–6 % faster than every other candidate at
                                // N = 1..4 f32, the field-local ones never; in f64 they lost every order, by 1–100 %,
                                // so the f64 ones stay valid on request, `--variant elem/…/f64/mixed`)
                                if form == VolumeForm::Mixed
                                    && (surface != Surface::Merged
                                        || precision != Precision::F32
                                        || storage == Storage::FieldLocal)
                                {
                                    continue;
                                }
                                out.push(Variant {
                                    partition: Partition::Element,
                                    group,
                                    seq,
                                    storage,
                                    surface,
                                    layout,
                                    precision,
                                    form,
                                });
                            }
                        }
                    }
                }
            }
        }
        out
    }

    /// Checks the variant for a law of shape `law` at order `order`; returns the reason when the kernels cannot
    /// run it.
    pub fn check(&self, order: usize, law: &LawShape, limits: &DeviceLimits) -> Result<(), VariantError> {
        let reject = |reason: String| Err(VariantError::Rejected { spec: self.to_string(), reason });
        let nvars = law.nvars;
        if self.form == VolumeForm::DiffFirst {
            if !law.linear_flux {
                return reject(
                    "diff-first needs a flux linear and homogeneous in the state (this law's is not)".into(),
                );
            }
            if self.partition == Partition::Node {
                return reject(
                    "diff-first is generated for the element partition, where it halves per-thread storage".into(),
                );
            }
        }
        if self.form == VolumeForm::Mixed {
            let merged_element = self.partition == Partition::Element && self.surface == Surface::Merged;
            if !matches!(
                self.partition,
                Partition::Tile { .. } | Partition::Mirror { .. } | Partition::MirrorMma { .. }
            ) && !merged_element
            {
                return reject(
                    "mixed is generated for the tile and mirror partitions (mmamirror too) and the merged element partition"
                        .into(),
                );
            }
            if !law.linear_flux || law.divergence_products >= nvars {
                return reject(format!(
                    "mixed needs a linear flux whose variables share fields' gradients (this law's divergence needs \
                     {} products per direction, one per variable, so flux-first is as cheap)",
                    law.divergence_products
                ));
            }
        }
        let geometry = crate::render::Geometry::new(order, self);
        let bytes = self.precision.bytes();
        if let Partition::Tile { threads } = self.partition {
            if !(1..=16).contains(&threads) {
                return reject("tile partition takes 1 to 16 work items per element".into());
            }
            if self.surface != Surface::Merged || self.layout == Layout::ElementMajor {
                return reject(
                    "tiles are generated merged (volume and surface) on the node-major or tiled layout".into(),
                );
            }
            if self.form == VolumeForm::DiffFirst {
                return reject(
                    "tiles differentiate the contravariant fluxes (as few flops as diff-first, every law)".into(),
                );
            }
            if (threads - 1) * geometry.tile_outputs >= geometry.np {
                return reject(format!(
                    "{threads} work items of {} outputs each leave one without a node (N = {order} has {})",
                    geometry.tile_outputs, geometry.np
                ));
            }
        }
        if let Partition::Mirror { threads, inputs } = self.partition {
            if !(1..=16).contains(&threads) {
                return reject("mirror partition takes 1 to 16 work items per element".into());
            }
            if inputs == MirrorInputs::Staged {
                if self.layout != Layout::Tiled || !matches!(self.group, 8 | 16 | 32) {
                    return reject(
                        "staged mirror tiles copy whole rows of one tile of the tiled layout: tiled, wg8, wg16 or wg32"
                            .into(),
                    );
                }
                if !limits.async_copies {
                    return reject(
                        "staged mirror tiles copy with cp.async, an instruction of CUDA compute capability 8.0 and later"
                            .into(),
                    );
                }
            }
            if let MirrorInputs::WholeElement { min_groups, .. } = inputs {
                if min_groups * self.group * threads > MAX_RESIDENT_WORK_ITEMS {
                    return reject(format!(
                        "launch bounds for {min_groups} groups of {} work items ask for more than the {} a \
                         multiprocessor holds",
                        self.group * threads,
                        MAX_RESIDENT_WORK_ITEMS
                    ));
                }
            }
            if self.surface != Surface::Merged || self.layout == Layout::ElementMajor {
                return reject(
                    "mirror tiles are generated merged (volume and surface) on the node-major or tiled layout".into(),
                );
            }
            if self.form == VolumeForm::DiffFirst {
                return reject("mirror tiles differentiate the contravariant fluxes (flux-first or mixed)".into());
            }
            if self.storage == Storage::MatrixConst {
                return reject(
                    "mirror tiles read the folded operator from local memory (matrix-local) or through the cache \
                     (field-local)"
                        .into(),
                );
            }
            let rows = geometry.mirror_rows();
            if let Some(share) = geometry.mirror_share {
                if (0..threads).any(|item| share.is_idle(order, item)) {
                    return reject(format!(
                        "{threads} work items sharing {} pairs and {} fixed nodes leave one without a row",
                        crate::mirror::Mirror::reps_at(order) - crate::mirror::Mirror::fixed_nodes(order),
                        crate::mirror::Mirror::fixed_nodes(order)
                    ));
                }
            } else if (threads - 1) * geometry.tile_outputs >= rows {
                return reject(format!(
                    "{threads} work items of {} folded rows each leave one without a row (N = {order} has {rows})",
                    geometry.tile_outputs
                ));
            }
        }
        if self.partition.is_mma16() {
            if !limits.f64_mma_m16 {
                return reject(
                    "mma16 and mma16r need the f64 tensor-core shape m16n8k4 of a CUDA device of compute capability 9.0 \
                     or later"
                        .into(),
                );
            }
            if self.precision != Precision::F64 {
                return reject(
                    "mma16 and mma16r are f64 products (f32's mma already runs 16-row tiles: mma/…/f32)".into(),
                );
            }
        }
        if self.partition == Partition::Mma16Regs && self.storage != Storage::FieldLocal {
            return reject(
                "mma16r reads the operator's fragments through the cache (field-local): each warp uses every row tile, \
                 too many fragments to hold in registers"
                    .into(),
            );
        }
        if self.partition.is_mma() {
            if !limits.tensor_cores {
                return reject("mma needs the tensor cores of a CUDA device of compute capability 8.0 or later".into());
            }
            if self.surface != Surface::Merged
                || self.layout == Layout::ElementMajor
                || self.form != VolumeForm::FluxFirst
            {
                return reject(
                    "mma is generated merged (volume and surface), flux-first, on the node-major or tiled layout"
                        .into(),
                );
            }
            if self.storage == Storage::MatrixConst {
                return reject(
                    "mma reads the operator's fragments through the cache (field-local) or keeps them in registers \
                     (matrix-local); constant memory serialises the lanes' different addresses"
                        .into(),
                );
            }
            if !matches!(self.group, 8 | 16 | 32) {
                return reject("mma takes 8, 16 or 32 elements per group (whole 8-column tiles)".into());
            }
        }
        if let Partition::MirrorMma { min_groups } = self.partition {
            let shape = crate::mirror_mma::MirrorMmaShape::of(self.precision);
            let threads = 32 * crate::mirror_mma::MirrorMmaLayout::at(order, shape).warps();
            if min_groups * threads > MAX_RESIDENT_WORK_ITEMS {
                return reject(format!(
                    "launch bounds for {min_groups} groups of {threads} work items ask for more than the {} a \
                     multiprocessor holds",
                    MAX_RESIDENT_WORK_ITEMS
                ));
            }
            if shape == crate::mirror_mma::MirrorMmaShape::F64 && !limits.f64_mma_m16 {
                return reject(
                    "mmamirror in f64 needs the f64 tensor-core shape m16n8k4 of a CUDA device of compute capability \
                     9.0 or later"
                        .into(),
                );
            }
            if !limits.tensor_cores {
                return reject(
                    "mmamirror needs the tensor cores of a CUDA device of compute capability 8.0 or later".into(),
                );
            }
            if self.surface != Surface::Merged
                || self.layout != Layout::Tiled
                || self.form == VolumeForm::DiffFirst
                || self.storage != Storage::FieldLocal
                || !(self.group == 16 || (self.group == 32 && shape == crate::mirror_mma::MirrorMmaShape::Tf32))
                || self.seq != 1
            {
                return reject(
                    "mmamirror is generated merged, on the tiled layout, flux-first or mixed, field-local (the \
                     operator's fragments read through the cache), wg16 (the instruction's 16 rows; in f32 also \
                     wg32, two halves of 16), seq1"
                        .into(),
                );
            }
        }
        if self.partition == Partition::Gemm {
            if !limits.blas {
                return reject(DeviceLimits::NO_BLAS.into());
            }
            if self.surface != Surface::Merged
                || self.layout != Layout::NodeMajor
                || self.form != VolumeForm::FluxFirst
                || self.storage != Storage::FieldLocal
                || self.seq != 1
            {
                return reject(
                    "gemm is generated merged (one product for volume and lift), flux-first, on the node-major layout, \
                     field-local (the library reads the operator), seq1"
                        .into(),
                );
            }
        }
        if self.partition == Partition::Node && self.layout == Layout::NodeMajor {
            return reject("node-per-thread kernels use the element-major (microblock) layout".into());
        }
        if self.layout == Layout::Tiled {
            let merged_element = self.partition == Partition::Element && self.surface == Surface::Merged;
            let tiles = matches!(
                self.partition,
                Partition::Tile { .. } | Partition::Mirror { .. } | Partition::MirrorMma { .. }
            );
            if !merged_element && !self.partition.is_mma() && !tiles {
                return reject(
                    "the tiled layout is generated for the merged element kernels, the tiles and the tensor-core \
                     kernels (elem/…/merged, tile<t>/…, mirror<t>/…, staged<t>/…, mma/…, mma16/…, mma16r/…, mmamirror/…)"
                        .into(),
                );
            }
            if nvars < 2 {
                return reject(
                    "the tiled layout keeps a node's coordinates (for a law's source) in the rows of its first two \
                     variables; a one-variable law uses node-major"
                        .into(),
                );
            }
        }
        if self.partition == Partition::Node && ![1, 2, 4].contains(&self.group) {
            return reject("node partition takes 1, 2 or 4 microblocks per group".into());
        }
        if self.partition != Partition::Node && !self.group.is_power_of_two() {
            return reject("element work groups are powers of two".into());
        }
        if self.partition == Partition::Node && self.surface == Surface::Merged {
            return reject("merged volume and surface is generated for the element partition".into());
        }
        let tuned_axis = if self.form == VolumeForm::DiffFirst {
            Some("diff-first")
        } else if self.surface == Surface::Merged {
            Some("merged")
        } else {
            None
        };
        if let Some(axis) = tuned_axis {
            if self.layout == Layout::ElementMajor {
                return reject(format!(
                    "{axis} is generated for the node-major and tiled layouts only (element-per-thread reads of the element-major \
                     layout are not coalesced; flux-first fused/split keep that combination as a reference)"
                ));
            }
        }
        if self.seq > 1 && self.storage != Storage::MatrixLocal && !self.partition.is_mma() {
            return reject("seq > 1 only pays off when matrices are loaded once per group (matrix-local)".into());
        }
        let threads = geometry.volume_threads.max(geometry.surface_threads);
        if threads > limits.max_work_group {
            return reject(format!("{threads} work items per group exceed the device limit {}", limits.max_work_group));
        }
        let local = geometry.local_bytes(law, bytes, self);
        if local > limits.local_memory {
            return reject(format!("{local} bytes of local memory exceed the device limit {}", limits.local_memory));
        }
        if self.storage == Storage::MatrixConst && geometry.constant_values(self) * bytes > 64 * 1024 {
            return reject("the matrices exceed 64 KiB of constant memory".into());
        }
        Ok(())
    }
}
