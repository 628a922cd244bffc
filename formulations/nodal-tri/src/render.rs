//! The nodal triangle kernels' source from `templates/nodal-tri/` (one concern per file) and the common
//! templates, for CUDA C or OpenCL C.

use crate::microblock::{microblock, Microblock};
use crate::variant::{
    Layout, MirrorInputs, Partition, Precision, Storage, Surface, Variant, VolumeForm, TILE_ELEMENTS,
};
use dg_codegen::cexpr::Divisions;
use dg_codegen::program::{
    engine, insert_law, matrix_text, render_pieces, LawInput, RenderError, Target, KERNEL_SUFFIX, PRELUDE_SUFFIX,
};
use dg_codegen::LawShape;
use dg_core::triangle::ReferenceTriangle;
use dg_ir::FunctionRole;

/// The law's functions invert a divisor shared by several divisions once (as the modal kernels do): Euler's fluxes
/// divide by the densities five to ten times each, at every node and face node.
const DIVISIONS: Divisions = Divisions::SharedReciprocals;

/// Sizes that follow from the order and the variant.
#[derive(Debug, Clone, Copy)]
pub struct Geometry {
    /// Nodes per element.
    pub np: usize,
    /// Nodes per face.
    pub nfp: usize,
    /// The microblock.
    pub microblock: Microblock,
    /// Work items per group of the volume kernel.
    pub volume_threads: usize,
    /// Work items per group of the surface (or flux) kernel.
    pub surface_threads: usize,
    /// Work items per group of the lift kernel (split surface).
    pub lift_threads: usize,
    /// Elements per work group of the volume kernel (one sequential pass).
    pub volume_elements: usize,
    /// Elements per work group of the surface kernels (one sequential pass).
    pub surface_elements: usize,
    /// Tile partition: output nodes per work item (`⌈np / threads⌉`); 0 otherwise.
    pub tile_outputs: usize,
    /// Row stride of the transposed matrices the tile kernels read (`np` rounded up to 16, so that every tile's
    /// block of rows fits and starts aligned).
    pub tile_stride: usize,
    /// Tile partition: nodes whose contravariant fluxes are in local memory at once (the sum over nodes runs in
    /// chunks; the face jumps reuse the chunk's memory, so it holds at least half of them).
    pub tile_chunk: usize,
    /// Mma partitions: rows of a warp's tile and columns of a step of the tensor-core instruction (8 × 4 for
    /// `m8n8k4.f64`, 16 × 4 for `m16n8k4.f64`, 16 × 8 for `m16n8k8.tf32`); [`mma_shape`] of the precision otherwise.
    pub mma_shape: (usize, usize),
    /// Mma partitions: whether the operator's columns come in three sections (−Dr, −Ds, LIFT), each padded to whole
    /// steps of `mma_shape.1` columns ([`Partition::Mma16Regs`], whose lanes form a node's two fluxes once for both
    /// matrices' steps), or packed (`2·np + 3·nfp` columns, padded once at the end).
    pub mma_sections: bool,
    /// Mirror tiles, `balanced<t>` and `segregated<t>`: how the folded rows are shared out among an element's work
    /// items (`tile_outputs` the most a work item computes); `None`: consecutive representatives.
    pub mirror_share: Option<crate::mirror::RowShare>,
}

impl Geometry {
    /// The sizes of `variant` at order `order`.
    pub fn new(order: usize, variant: &Variant) -> Self {
        let np = dg_core::triangle::num_nodes(order);
        let nfp = order + 1;
        let mb = microblock(np, 16, 0.10);
        let mma_shape = match variant.partition {
            Partition::Mma16 | Partition::Mma16Regs => MMA16_SHAPE,
            _ => mma_shape(variant.precision),
        };
        let mma_sections = variant.partition == Partition::Mma16Regs;
        // the element-group partitions: the same work items and `variant.group` elements per group for every kernel
        let per_group = |threads: usize, tile_outputs: usize, tile_chunk: usize| Self {
            np,
            nfp,
            microblock: mb,
            volume_threads: threads,
            surface_threads: threads,
            lift_threads: threads,
            volume_elements: variant.group,
            surface_elements: variant.group,
            tile_outputs,
            tile_stride: np.next_multiple_of(16),
            tile_chunk,
            mma_shape,
            mma_sections,
            mirror_share: None,
        };
        match variant.partition {
            Partition::Node => {
                let e = variant.group * mb.elements;
                let per = match variant.surface {
                    Surface::Fused | Surface::Merged => np.max(3 * nfp),
                    Surface::Split => 3 * nfp,
                };
                Self {
                    np,
                    nfp,
                    microblock: mb,
                    volume_threads: variant.group * mb.floats,
                    surface_threads: e * per,
                    lift_threads: e * np,
                    volume_elements: e,
                    surface_elements: e,
                    tile_outputs: 0,
                    tile_stride: np.next_multiple_of(16),
                    tile_chunk: 0,
                    mma_shape,
                    mma_sections,
                    mirror_share: None,
                }
            }
            Partition::Element => per_group(variant.group, 0, 0),
            // (mixed keeps at most two values per node and product, fewer than flux-first's two per variable: with
            // eight or more work items per element, whose chunks of 16 nodes left each two nodes per barrier, its
            // chunk is the whole element, one pass; on an H200 that made tile8 4–5 % faster at N = 7, 8 f32 and tile4
            // 4–19 % slower)
            Partition::Tile { threads } => per_group(
                variant.group * threads,
                tile_outputs(np, threads.max(1), variant.precision),
                match variant.form {
                    VolumeForm::Mixed if threads >= 8 => np,
                    _ => np.min((3 * nfp).div_ceil(2).max(16)),
                },
            ),
            // (the mirror tiles: `tile_outputs` folded rows per work item, `tile_stride` rows per folded column,
            // `tile_chunk` representatives per chunk — about as many values as the face jumps that reuse the memory;
            // `whole<t>`: every representative)
            // (`balanced<t>`, `segregated<t>`: the work items' shares of the pairs and fixed nodes, each block rounded
            // up to the vector width, `crate::mirror::RowShare`)
            Partition::Mirror { threads, inputs } => {
                let reps = crate::mirror::Mirror::reps_at(order);
                let width = if variant.precision == Precision::F32 { 4 } else { 2 };
                let share = match inputs {
                    MirrorInputs::WholeElement { rows, .. } => rows.share(order, threads, width),
                    _ => None,
                };
                let outputs = match share {
                    Some(share) => share.rows(),
                    None => mirror_outputs(2 * reps, threads.max(1), variant.precision),
                };
                let covered = share.map_or(threads * outputs, |s| s.covered_rows());
                Self {
                    tile_stride: covered.next_multiple_of(4),
                    mirror_share: share,
                    ..per_group(
                        variant.group * threads,
                        outputs,
                        match inputs {
                            MirrorInputs::WholeElement { .. } => reps,
                            _ => reps.min((3 * nfp).div_ceil(2).max(8)),
                        },
                    )
                }
            }
            Partition::Mma => per_group(32 * np.div_ceil(mma_shape.0), 0, 0),
            Partition::Mma16 => per_group(32 * np.div_ceil(mma_shape.0) * MMA16_KSPLIT, 0, 0),
            // (one warp per 8 elements; the rules allow groups of 8, 16 or 32)
            Partition::Mma16Regs => per_group(4 * variant.group, 0, 0),
            // (one warp per tile of 8 symmetric folded rows, `crate::mirror_mma`)
            Partition::MirrorMma { .. } => {
                let shape = crate::mirror_mma::MirrorMmaShape::of(variant.precision);
                per_group(32 * crate::mirror_mma::MirrorMmaLayout::at(order, shape).warps(), 0, 0)
            }
            Partition::Gemm => per_group(variant.group, 0, 0),
        }
    }

    /// The mma partition's operator [−Dr −Ds LIFT] in tensor-core tiles: row tiles of [`Geometry::mma_shape`]`.0`
    /// nodes and steps of `.1` columns (`2·np + 3·nfp` columns, zero past them; or, with
    /// [`Geometry::mma_sections`], each section zero-padded to whole steps).
    pub fn mma_tiles(&self) -> (usize, usize) {
        let (rows, depth) = self.mma_shape;
        let steps = if self.mma_sections {
            let (node_steps, face_steps) = self.mma_section_steps();
            2 * node_steps + face_steps
        } else {
            (2 * self.np + 3 * self.nfp).div_ceil(depth)
        };
        (self.np.div_ceil(rows), steps)
    }

    /// With [`Geometry::mma_sections`]: the steps of each of −Dr's and −Ds's sections (`⌈np / depth⌉`) and of
    /// LIFT's (`⌈3·nfp / depth⌉`).
    pub fn mma_section_steps(&self) -> (usize, usize) {
        let depth = self.mma_shape.1;
        (self.np.div_ceil(depth), (3 * self.nfp).div_ceil(depth))
    }

    /// Mma partitions: the parts the product's columns are split into, one set of warps each (split-K):
    /// [`MMA16_KSPLIT`] for the 16-row tiles, which would otherwise leave half the warps of the 8-row ones to a
    /// group's loads and stores; 1 otherwise.
    pub fn mma_ksplit(&self, variant: &Variant) -> usize {
        match variant.partition {
            Partition::Mma16 => MMA16_KSPLIT,
            _ => 1,
        }
    }

    /// Mirror partition: the folded operators' rows, two per mirror representative
    /// ([`crate::mirror::Mirror::reps_at`]).
    pub fn mirror_rows(&self) -> usize {
        2 * crate::mirror::Mirror::reps_at(self.nfp - 1)
    }

    /// Tile partition: rows of the padded, transposed matrices (`threads · tile_outputs ≥ np`).
    pub fn tile_rows(&self, variant: &Variant) -> usize {
        match variant.partition {
            Partition::Tile { threads } => threads * self.tile_outputs,
            _ => 0,
        }
    }

    /// Tile partition, matrix-local: rows of each column of Dr and of Ds kept in local memory, [`Geometry::tile_rows`]
    /// rounded up to a whole pair (the two matrices are interleaved two rows at a time, see
    /// `crate::device::tile_matrices`).
    pub fn tile_pair_rows(&self, variant: &Variant) -> usize {
        self.tile_rows(variant).next_multiple_of(2)
    }

    /// Values of Dr, Ds and LIFT together.
    pub fn matrix_values(&self) -> usize {
        2 * self.np * self.np + self.np * 3 * self.nfp
    }

    /// Values of the constant matrices of `variant` (matrix-const): Dr, Ds and LIFT, transposed and padded for
    /// tiles.
    pub fn constant_values(&self, variant: &Variant) -> usize {
        match variant.partition {
            Partition::Tile { .. } => (2 * self.np + 3 * self.nfp) * self.tile_stride,
            _ => self.matrix_values(),
        }
    }

    /// Local memory of the most demanding kernel for a law of shape `law`, in bytes.
    pub fn local_bytes(&self, law: &LawShape, bytes: usize, variant: &Variant) -> usize {
        let nvars = law.nvars;
        let local_mats = variant.storage == Storage::MatrixLocal;
        let (np, nf) = (self.np, 3 * self.nfp);
        let values = match variant.partition {
            Partition::Node => {
                let volume = 2 * nvars * self.volume_threads + if local_mats { 2 * np * np } else { 0 };
                let surface = match variant.surface {
                    Surface::Fused | Surface::Merged => nvars * self.surface_elements * nf,
                    Surface::Split => 0,
                } + if local_mats { np * nf } else { 0 };
                volume.max(surface)
            }
            Partition::Element => match (local_mats, variant.surface) {
                (false, _) => 0,
                (true, Surface::Merged) => 2 * np * np + np * nf,
                (true, _) => (2 * np * np).max(np * nf),
            },
            // one chunk of contravariant fluxes (the face jumps reuse it), and the transposed, padded matrices (Dr
            // and Ds in whole pairs of rows);
            // values per node in a chunk: two per variable, or (mixed) at most two per product of the divergence
            // plan (two per flux-first variable, one per shared field)
            Partition::Tile { .. } => {
                let rows = self.tile_rows(variant);
                let slots = match variant.form {
                    VolumeForm::Mixed => 2 * law.divergence_products,
                    _ => 2 * nvars,
                };
                let chunk = (slots * self.tile_chunk).max(nf * nvars) * self.volume_elements;
                chunk + if local_mats { 2 * np * self.tile_pair_rows(variant) + nf * rows } else { 0 }
            }
            // one chunk of folded inputs (four per flux-first variable and representative, two per shared field),
            // the face jumps reusing it, and the folded operators
            // (staged: the chunk alone — the jumps are formed in the neighbours' face states —, and the group's
            // states, neighbours' face states, neighbours' materials, face data (three normals and scales per face)
            // and boundary conditions (one per face, counted as a value))
            Partition::Mirror { inputs, .. } => {
                let slots = mirror_input_slots(law, variant.form);
                let g = self.volume_elements;
                let chunk = match inputs {
                    MirrorInputs::Staged => {
                        (slots * self.tile_chunk + nvars * (np + nf) + (3 * law.materials).max(1) + 9 + 3) * g
                    }
                    // (faces ahead: the faces' normals and scales, and their boundary conditions and neighbours
                    // besides, or the whole-element tiles' one link per face)
                    MirrorInputs::WholeElement { .. } => ((slots * self.tile_chunk).max(nf * nvars) + 9 + 3) * g,
                    _ if inputs.reads_faces_ahead() => ((slots * self.tile_chunk).max(nf * nvars) + 9 + 6) * g,
                    _ => (slots * self.tile_chunk).max(nf * nvars) * g,
                };
                let face_reps = crate::mirror::Mirror::face_reps_at(self.nfp - 1);
                chunk + if local_mats { (np + face_reps) * self.tile_stride } else { 0 }
            }
            // the group's contravariant fluxes and face jumps, every variable, in 8-column tiles of whole steps
            // (the output goes through the same memory, one copy per split-K part: fewer values than B's)
            Partition::Mma | Partition::Mma16 => (nvars * self.volume_elements * self.mma_shape.1 * self.mma_tiles().1)
                .max(self.mma_ksplit(variant) * nvars * np * self.volume_elements),
            // B in registers, the output stored from them
            Partition::Mma16Regs => 0,
            // the folded inputs (four per flux-first variable and representative, two per shared field, the
            // representatives padded to whole steps) and the face jumps: in f64 each column the group's elements and
            // a few more (`mirror_mma_stride`); in f32 in the lanes' fragment order, the jumps folded
            Partition::MirrorMma { .. } => {
                let slots = mirror_input_slots(law, variant.form);
                let shape = crate::mirror_mma::MirrorMmaShape::of(variant.precision);
                let layout = crate::mirror_mma::MirrorMmaLayout::at(self.nfp - 1, shape);
                match shape {
                    // ([`crate::mirror_mma::Tf32Blocks`])
                    crate::mirror_mma::MirrorMmaShape::Tf32 => {
                        let (flux_first, shared) = mirror_folded_counts(law, variant.form);
                        let results = crate::mirror_mma::tf32_result_values(&layout, nvars);
                        layout.tf32_blocks(flux_first, shared, nvars).bytes(self.volume_elements, results) / bytes
                    }
                    crate::mirror_mma::MirrorMmaShape::F64 => {
                        (slots * shape.width() * layout.sum_steps + nvars * nf)
                            * mirror_mma_stride(self.volume_elements)
                            * shape.value_bytes()
                            / bytes
                    }
                }
            }
            // the fluxes and jumps go to global memory, the products to the library
            Partition::Gemm => 0,
        };
        values * bytes
    }
}

/// The mirror tiles' folded inputs per representative (`rhs_mirror.tera`, `rhs_mirror_mma.tera`,
/// `rhs_mirror_tf32.tera`) for `flux_first` flux-first variables and `shared` shared fields: four per flux-first
/// variable (the sums and differences of a = gr + gs and b = gr − gs), two per shared field (its sums and differences).
fn folded_slots(flux_first: usize, shared: usize) -> usize {
    4 * flux_first + 2 * shared
}

/// [`folded_slots`] from the law's shape: every variable flux-first outside the mixed form.
fn mirror_input_slots(law: &LawShape, form: VolumeForm) -> usize {
    let (flux_first, shared) = mirror_folded_counts(law, form);
    folded_slots(flux_first, shared)
}

/// The flux-first variables and the shared fields whose folded inputs the mirror kernels form, from the law's shape
/// ([`insert_folded_inputs`] finds the same counts in the law's plan).
fn mirror_folded_counts(law: &LawShape, form: VolumeForm) -> (usize, usize) {
    match form {
        VolumeForm::Mixed => (law.divergence_products - law.shared_gradients, law.shared_gradients),
        _ => (law.nvars, 0),
    }
}

/// The mirror kernels' folded inputs in their templates' terms: `ff` (the flux-first variables: every variable without
/// the mixed form's plan), `gbase` (the shared fields' first slot, after four per flux-first variable), `slots` (all of
/// them, [`folded_slots`]), and with no plan, empty `gw` and `shared`. Returns the flux-first variables' and the shared
/// fields' counts.
fn insert_folded_inputs(ctx: &mut tera::Context, plan: Option<&dg_ir::DivergencePlan>, nv: usize) -> (usize, usize) {
    let (ff, ngw): (Vec<usize>, usize) = match plan {
        Some(plan) => (plan.flux_first.clone(), plan.gradients.len()),
        None => ((0..nv).collect(), 0),
    };
    let slots = folded_slots(ff.len(), ngw);
    ctx.insert("ff", &ff);
    ctx.insert("gbase", &(4 * ff.len()));
    ctx.insert("slots", &slots);
    if plan.is_none() {
        ctx.insert("gw", &Vec::<usize>::new());
        ctx.insert("shared", &Vec::<usize>::new());
    }
    (ff.len(), ngw)
}

/// The f64 `mmamirror` kernel's stride between the folded columns of its local memory (`rhs_mirror_mma.tera`): the
/// group's elements and 4 more, so that the 16 lanes of a half-warp reading A(g, t) and A(g + 8, t) (4 columns t of 4
/// elements g, 8-byte values) meet 16 different pairs of banks (8·t + 2·g). (The f32 kernel keeps its fragments in
/// the lanes' order, [`crate::mirror_mma::Tf32Blocks`].)
pub fn mirror_mma_stride(group: usize) -> usize {
    group + 4
}

/// Tile partition: face nodes whose indices, face data and states a work item loads before it forms their jumps.
const TILE_FACE_BATCH: usize = 4;

/// Mirror tiles in f32: face nodes whose states a work item has in flight at once (the first batch during the last
/// chunk's sum, its indices and face data read as the pass starts).
const MIRROR_FACE_BATCH_F32: usize = 8;

/// The tile of `m16n8k4.f64` ([`Partition::Mma16`]): 16 rows, steps of 4 columns.
pub const MMA16_SHAPE: (usize, usize) = (16, 4);

/// [`Partition::Mma16`]: the product's steps are shared out among this many warps per row tile, each summing its
/// part; the parts meet in the store (one more local-memory read per value).
pub const MMA16_KSPLIT: usize = 2;

/// [`Partition::Mma16Regs`]: the registers a work item may hold (`__launch_bounds__`: 16 warps per SM). Each warp's
/// accumulators alone fill 72 of them at N = 7, 8 (every row tile of three variables); uncapped, the compiler took
/// 166 at N = 8 (12 warps per SM), and on an H200 the cap made the N = 7 right-hand side 8 % faster than every
/// other candidate (docs/performance.md, "B in registers").
pub const MMA16R_REGISTERS: usize = 128;

/// [`Partition::Mma`] in f64, field-local, one group at a time (seq1): the steps ahead of its use at which a warp
/// reads a fragment of the operator, into a ring of registers. On an H200 a distance of 2, 4 or 6 made these kernels
/// 1–7 % faster at N = 5..8 (8 elements per group: 3.4–7.2 %); the same ring made the 16-row tiles (split-K) slower
/// at N = 5, 6 and two groups in sequence slower at N = 6..8 (docs/performance.md, "The f64 operator's fragments
/// read ahead").
pub const MMA_PREFETCH: usize = 4;

/// The tensor-core instruction's tile of the operator in a precision: rows of a warp's tile and columns of a step
/// (f64: `mma.m8n8k4.f64`; f32: `mma.m16n8k8.tf32`, three products of split operands).
pub fn mma_shape(precision: Precision) -> (usize, usize) {
    match precision {
        Precision::F64 => (8, 4),
        Precision::F32 => (16, 8),
    }
}

/// Folded rows per work item of a mirror tile: `⌈rows / threads⌉` rounded up to the vector width (4 values in
/// f32, 2 in f64) where every work item keeps a row, else to an even count (a representative's two rows).
fn mirror_outputs(rows: usize, threads: usize, precision: Precision) -> usize {
    let base = rows.div_ceil(threads);
    let widths: &[usize] = if precision == Precision::F32 { &[4, 2] } else { &[2] };
    widths
        .iter()
        .map(|&w| base.next_multiple_of(w))
        .find(|&o| (threads - 1) * o < rows)
        .unwrap_or(base.next_multiple_of(2))
}

/// Output nodes per work item of a tile: `⌈np / threads⌉`, rounded up to a multiple of the vector width (4 values
/// in f32, 2 in f64, else 2, else 1) where every work item keeps a node and the block stays within the padded rows.
fn tile_outputs(np: usize, threads: usize, precision: Precision) -> usize {
    let base = np.div_ceil(threads);
    let widths: &[usize] = if precision == Precision::F32 { &[4, 2] } else { &[2] };
    widths
        .iter()
        .map(|&w| base.next_multiple_of(w))
        .find(|&o| (threads - 1) * o < np && threads * o <= np.next_multiple_of(16))
        .unwrap_or(base)
}

/// A kernel of the generated program and how to launch it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct KernelLaunch {
    /// The kernel's role (`volume`, `surface`, `flux`, `lift`, `rhs`, `tile`, `mma`, `gemm_flux`); its function name
    /// is [`KernelSource::symbol`].
    pub name: &'static str,
    /// Work items per group.
    pub local_size: usize,
    /// Elements per group and pass (0 for the update kernel, which is per value).
    pub elements_per_group: usize,
}

/// Generated program for one spec.
#[derive(Debug, Clone)]
pub struct KernelSource {
    /// The language.
    pub target: Target,
    /// The variant.
    pub variant: Variant,
    /// The whole program text.
    pub source: String,
    /// The kernels of one right-hand-side evaluation, in launch order.
    pub rhs_kernels: Vec<KernelLaunch>,
    /// Sizes.
    pub geometry: Geometry,
    /// Variables of the law.
    pub nvars: usize,
    /// Material coefficients per element.
    pub nmaterials: usize,
    /// The program in pieces, with symbol placeholders, for batching many variants into one program.
    pub pieces: ProgramPieces,
    /// Function name of each kernel role in the program that holds it (`volume` → `volume`, or `volume_k3` in a
    /// batch).
    pub symbols: Vec<(&'static str, String)>,
    /// Whether the law has a source term (the nodes' coordinates are uploaded for it).
    pub law_has_source: bool,
    /// Whether the merged kernel adds the source term in its store (element, tile, mma, mma16 and mma16r
    /// partitions; their argument list then takes the nodes' coordinates before the stage's), so that no `source`
    /// kernel follows.
    pub source_in_store: bool,
}

/// A program in pieces: the dialect, the prelude (sizes, matrices, law, face jump) and the kernel parts, with
/// [`PRELUDE_SUFFIX`] and [`KERNEL_SUFFIX`] where names must become unique in a batch.
#[derive(Debug, Clone)]
pub struct ProgramPieces {
    /// Dialect macros and the `real` type.
    pub dialect: String,
    /// Sizes, constant matrices, the law's functions and the face jump.
    pub prelude: String,
    /// Kernel parts: the kernel roles each defines, and its text.
    pub parts: Vec<(Vec<&'static str>, String)>,
}

/// Macros the prelude and kernel parts define; a batch undefines them before each prelude.
pub const PRELUDE_MACROS: [&str; 10] =
    ["NP", "NFP", "NFACE_NODES", "NV", "NMAT", "MBE", "MBF", "NODE_OFF", "SURF_E", "SURF_T"];

impl KernelSource {
    /// Function name of the kernel with role `name` (`volume`, `surface`, `flux`, `lift`, `update`, `lincomb`).
    pub fn symbol<'a>(&'a self, name: &'a str) -> &'a str {
        self.symbols.iter().find(|(role, _)| *role == name).map_or(name, |(_, symbol)| symbol.as_str())
    }

    /// Elements one work group of `kernel` handles: `elements_per_group · seq` (whole microblocks for the
    /// node-partition volume kernel).
    pub fn elements_per_group(&self, kernel: &KernelLaunch) -> usize {
        let seq = self.variant.seq;
        if kernel.name == "source" {
            return kernel.elements_per_group;
        }
        if kernel.name == "volume" && self.variant.partition == Partition::Node {
            return self.geometry.microblock.elements * self.variant.group * seq;
        }
        kernel.elements_per_group * seq
    }

    /// Work groups for `kernel` on `k` elements.
    pub fn groups(&self, kernel: &KernelLaunch, k: usize) -> usize {
        k.div_ceil(self.elements_per_group(kernel)).max(1)
    }

    /// Whether the law has a source term: the merged element, tile and tensor-core kernels add it in their store,
    /// every other program's `source` kernel after the others.
    pub fn has_source(&self) -> bool {
        self.law_has_source
    }

    /// The smallest element count every right-hand-side kernel's groups divide: a launch over elements
    /// `first..end` (the kernels' group offset `g0`) needs `first` to be a multiple of it.
    pub fn element_quantum(&self) -> usize {
        fn gcd(a: usize, b: usize) -> usize {
            if b == 0 {
                a
            } else {
                gcd(b, a % b)
            }
        }
        self.rhs_kernels.iter().map(|k| self.elements_per_group(k)).fold(1, |l, e| l / gcd(l, e) * e)
    }
}

/// The nodal triangle templates (`templates/nodal-tri/`), besides the common ones.
pub const TEMPLATES: [(&str, &str); 18] = [
    ("sizes", include_str!("../../../templates/nodal-tri/sizes.tera")),
    ("matrices", include_str!("../../../templates/nodal-tri/matrices.tera")),
    ("face_jump", include_str!("../../../templates/nodal-tri/face_jump.tera")),
    ("volume_node", include_str!("../../../templates/nodal-tri/volume_node.tera")),
    ("volume_elem", include_str!("../../../templates/nodal-tri/volume_elem.tera")),
    ("surface_node", include_str!("../../../templates/nodal-tri/surface_node.tera")),
    ("surface_elem", include_str!("../../../templates/nodal-tri/surface_elem.tera")),
    ("face_batch", include_str!("../../../templates/nodal-tri/face_batch.tera")),
    ("rhs_tile", include_str!("../../../templates/nodal-tri/rhs_tile.tera")),
    ("rhs_mirror", include_str!("../../../templates/nodal-tri/rhs_mirror.tera")),
    ("rhs_mma", include_str!("../../../templates/nodal-tri/rhs_mma.tera")),
    ("rhs_mma_regs", include_str!("../../../templates/nodal-tri/rhs_mma_regs.tera")),
    ("rhs_mirror_mma", include_str!("../../../templates/nodal-tri/rhs_mirror_mma.tera")),
    ("rhs_mirror_tf32", include_str!("../../../templates/nodal-tri/rhs_mirror_tf32.tera")),
    ("gemm_flux", include_str!("../../../templates/nodal-tri/gemm_flux.tera")),
    ("source_node", include_str!("../../../templates/nodal-tri/source_node.tera")),
    ("source_at_node", include_str!("../../../templates/nodal-tri/source_at_node.tera")),
    ("energy", include_str!("../../../templates/nodal-tri/energy.tera")),
];

/// Elements (one work item each) per work group of the source kernel (`source_node.tera`), which a law with a
/// source term adds after the right-hand-side kernels.
pub const SOURCE_GROUP: usize = 64;

/// Elements (one work item each) per work group of the energy kernel (`energy.tera`), which every program holds for
/// the runs' growth check ([`crate::device::DeviceOperator::square_norm`]).
pub const ENERGY_GROUP: usize = 128;

/// One shared field of the mixed form, as the tile and element templates read it.
#[derive(serde::Serialize)]
struct SharedGradient {
    /// The field.
    field: usize,
    /// Its position among the shared gradients.
    slot: usize,
    /// The variables whose flux reads it.
    vars: Vec<usize>,
}

/// The mixed form's plan in the template's terms: `ff` (flux-first variables), `gw` (fields whose gradients are
/// shared) and `shared` (each such field with the variables that read it).
fn insert_divergence_plan(ctx: &mut tera::Context, plan: &dg_ir::DivergencePlan) {
    let shared: Vec<SharedGradient> = plan
        .gradients
        .iter()
        .enumerate()
        .map(|(slot, &field)| SharedGradient {
            field,
            slot,
            vars: plan.from_gradients.iter().filter(|(_, reads)| reads.contains(&slot)).map(|(v, _)| *v).collect(),
        })
        .collect();
    ctx.insert("ff", &plan.flux_first);
    // the first slot of the shared fields in a chunk, after two per flux-first variable
    ctx.insert("gbase", &(2 * plan.flux_first.len()));
    ctx.insert("gw", &plan.gradients);
    ctx.insert("shared", &shared);
}

/// The mirror tiles' context (`rhs_mirror.tera`): the mirror pairs, the work items' rows and chunks, where the
/// kernel reads the folded operators, and the folded inputs per representative (four per flux-first variable, two
/// per shared field; every variable flux-first without the mixed form's plan).
#[allow(clippy::too_many_arguments)]
fn insert_mirror(
    ctx: &mut tera::Context,
    element: &ReferenceTriangle,
    variant: &Variant,
    geometry: &Geometry,
    threads: usize,
    plan: Option<&dg_ir::DivergencePlan>,
    nv: usize,
    target: Target,
) -> Result<(), RenderError> {
    let mirror = crate::mirror::Mirror::of(element).map_err(|e| RenderError::Template(e.to_string()))?;
    if 2 * mirror.reps() != geometry.mirror_rows() {
        return Err(RenderError::Template(format!(
            "the element's {} mirror representatives differ from the {} the sizes assume",
            mirror.reps(),
            geometry.mirror_rows() / 2
        )));
    }
    let single = variant.precision == Precision::F32;
    let (outputs, stride, chunk) = (geometry.tile_outputs, geometry.tile_stride, geometry.tile_chunk);
    let inputs = match variant.partition {
        Partition::Mirror { inputs, .. } => inputs,
        _ => MirrorInputs::Chunks,
    };
    let staged = inputs == MirrorInputs::Staged;
    let ahead = inputs.reads_faces_ahead();
    ctx.insert("threads", &threads);
    ctx.insert("outputs", &outputs);
    // (a work item's block of a folded column is `item_rows` long, its first `pair_rows` rows its pairs'
    // (symmetric and antisymmetric alternating), then its fixed nodes' symmetric rows: the consecutive tiles' blocks
    // are their `outputs` rows, all in pairs; `balanced<t>` and `segregated<t>` share them out by classes of work
    // items (`crate::mirror::RowShare`), each class's code in its own branch on `part` when there are two, `open`
    // and `close` around it, `local` its work item's index within the class)
    let share = geometry.mirror_share;
    let item_rows = share.map_or(outputs, |s| s.item_rows());
    // CUDA reads a work item's rows of a folded column as vectors (OpenCL value by value)
    let width = match (single, target) {
        (_, Target::OpenCl) => 1,
        (true, _) if item_rows.is_multiple_of(4) => 4,
        _ => 2,
    };
    ctx.insert("width", &width);
    ctx.insert("classes", &share_classes(share, outputs, width));
    // the first row of this work item's block
    let i0 = match share.map(|s| s.active().copied().collect::<Vec<_>>()).as_deref() {
        Some([a, b]) => format!("{} ? {} : {}", class_test(a), class_first_row(a), class_first_row(b)),
        Some([a]) => class_first_row(a),
        _ => format!("part * {item_rows}"),
    };
    ctx.insert("i0", &i0);
    ctx.insert("shared_rows", &share.is_some());
    ctx.insert("item_rows", &item_rows);
    ctx.insert("stride", &stride);
    ctx.insert("chunk", &chunk);
    ctx.insert("chunk_reps", &chunk.div_ceil(threads));
    // faces ahead: the chunks written out one after another (first representative and count); the others loop
    // over them at run time (one entry)
    let chunks: Vec<_> = if ahead {
        (0..mirror.reps())
            .step_by(chunk.max(1))
            .map(|start| serde_json::json!({ "start": start, "count": chunk.min(mirror.reps() - start) }))
            .collect()
    } else {
        vec![serde_json::json!({ "start": 0, "count": chunk })]
    };
    ctx.insert("chunks", &chunks);
    ctx.insert("reps", &mirror.reps());
    ctx.insert("pairs", &mirror.pairs);
    ctx.insert("face_reps", &mirror.face_columns.len());
    ctx.insert("mirror_nodes", &mirror.nodes);
    ctx.insert("mirror_partners", &mirror.partners);
    ctx.insert("face_columns", &mirror.face_columns);
    ctx.insert("face_partners", &mirror.face_partners);
    let (flux_first, shared) = insert_folded_inputs(ctx, plan, nv);
    let slots = folded_slots(flux_first, shared);
    let nf = 3 * geometry.nfp;
    // (staged: the jumps are formed in the neighbours' face states, so the scratch holds a chunk alone)
    ctx.insert("staged", &staged);
    ctx.insert("ahead", &ahead);
    ctx.insert("unroll_columns", &inputs.unrolls_columns());
    // (`whole<t>b<G>`: CUDA's launch bounds, G groups of the group's work items per multiprocessor)
    let min_groups = match inputs {
        MirrorInputs::WholeElement { min_groups, .. } => min_groups,
        _ => 0,
    };
    ctx.insert("min_groups", &min_groups);
    if staged {
        ctx.insert("scratch", &(slots * chunk * variant.group));
    } else {
        ctx.insert("scratch", &((slots * chunk).max(nf * nv) * variant.group));
    }
    // values per 16-byte vector in CUDA (one in OpenCL): the matrix-local copy's and, staged, the state's rows of
    // the group's elements
    let cw = match (target, single) {
        (Target::Cuda, true) => 4,
        (Target::Cuda, false) => 2,
        _ => 1,
    };
    ctx.insert("cw", &cw);
    ctx.insert("state_vecs", &(nv * geometry.np * variant.group / cw));
    ctx.insert("row_vecs", &(variant.group / cw));
    ctx.insert("items", &(variant.group * threads));
    // the faces (of three) a work item takes: staged, their neighbours' materials; faces ahead, their data
    ctx.insert("face_groups", &3usize.div_ceil(threads));
    let face_nodes = nf.div_ceil(threads);
    ctx.insert("face_nodes", &face_nodes);
    // (a batch's states are in flight together: faces ahead in f32 take all of a work item's face nodes at once, up
    // to MIRROR_FACE_BATCH_F32; in f64, whose mirror tiles hold 155 registers at N = 7, the tiles' batches)
    let batch = if ahead && single { MIRROR_FACE_BATCH_F32 } else { TILE_FACE_BATCH };
    ctx.insert("face_batch", &face_nodes.min(batch));
    ctx.insert(
        "vector",
        match (single, width) {
            (true, 4) => "float4",
            (true, 2) => "float2",
            (false, 2) => "double2",
            _ => "real",
        },
    );
    let values = (geometry.np + mirror.face_columns.len()) * stride;
    ctx.insert("cvec", if single { "float4" } else { "double2" });
    ctx.insert("local_mat", &values);
    ctx.insert("mat_vecs", &(values / cw));
    ctx.insert("mat_trips", &(values / cw).div_ceil(variant.group * threads));
    let array = if variant.storage == Storage::MatrixLocal { "s_mat" } else { "folded" };
    ctx.insert("mat_array", array);
    ctx.insert("lift_base", &(geometry.np * stride));
    Ok(())
}

/// The `mmamirror` kernels' context (`rhs_mirror_mma.tera` in f64, `rhs_mirror_tf32.tera` in f32): the mirror pairs,
/// the fragments' sections and steps ([`crate::mirror_mma::MirrorMmaLayout`]), the group's work items in the loads
/// (`parts` per element) and the folded inputs per representative (four per flux-first variable, two per shared
/// field; every variable flux-first without the mixed form's plan); in f32 also the local memory's blocks
/// ([`crate::mirror_mma::Tf32Blocks`]).
fn insert_mirror_mma(
    ctx: &mut tera::Context,
    element: &ReferenceTriangle,
    variant: &Variant,
    plan: Option<&dg_ir::DivergencePlan>,
    nv: usize,
) -> Result<(), RenderError> {
    let mirror = crate::mirror::Mirror::of(element).map_err(|e| RenderError::Template(e.to_string()))?;
    let shape = crate::mirror_mma::MirrorMmaShape::of(variant.precision);
    let layout = crate::mirror_mma::MirrorMmaLayout::at(element.order, shape);
    let width = shape.width();
    if (mirror.reps(), mirror.pairs, mirror.face_columns.len()) != (layout.reps, layout.pairs, layout.face_reps) {
        return Err(RenderError::Template(format!(
            "the element's mirror ({} representatives, {} pairs) differs from the fragments' layout {layout:?}",
            mirror.reps(),
            mirror.pairs
        )));
    }
    let threads = 32 * layout.warps();
    ctx.insert("threads", &threads);
    let parts = threads / variant.group;
    ctx.insert("parts", &parts);
    let tf32 = shape == crate::mirror_mma::MirrorMmaShape::Tf32;
    // the representatives and face nodes each work item takes in the loads: in f64 whole steps of representatives and
    // the face nodes; in f32 the representatives and the face representatives (`rhs_mirror_tf32.tera` writes the
    // columns past them zero in loops of their own)
    let (reps_per, face_per) = if tf32 {
        (layout.reps.div_ceil(parts), layout.face_reps.div_ceil(parts))
    } else {
        ((width * layout.sum_steps).div_ceil(parts), (3 * element.nfp).div_ceil(parts))
    };
    ctx.insert("reps_per", &reps_per);
    ctx.insert("face_per", &face_per);
    ctx.insert("reps", &layout.reps);
    ctx.insert("pairs", &layout.pairs);
    ctx.insert("face_reps", &layout.face_reps);
    ctx.insert("reps_padded", &(width * layout.sum_steps));
    ctx.insert("width", &width);
    ctx.insert("sum_steps", &layout.sum_steps);
    ctx.insert("diff_steps", &layout.diff_steps);
    ctx.insert("face_steps", &layout.face_steps);
    ctx.insert("volume_steps", &layout.volume_steps());
    ctx.insert("anti_tiles", &layout.anti_tiles);
    // (the sections' offsets in lanes' fragments: `ops_t` values)
    let lv = shape.lane_values();
    ctx.insert("anti_volume", &(layout.anti_volume() / lv));
    ctx.insert("sym_lift", &(layout.sym_lift() / lv));
    ctx.insert("anti_lift", &(layout.anti_lift() / lv));
    let min_groups = match variant.partition {
        Partition::MirrorMma { min_groups } => min_groups,
        _ => 0,
    };
    ctx.insert("min_groups", &min_groups);
    ctx.insert("cs", &mirror_mma_stride(variant.group));
    ctx.insert("mirror_nodes", &mirror.nodes);
    ctx.insert("mirror_partners", &mirror.partners);
    // the face representatives' columns and mirrors, padded to whole steps with a valid column (its value unused)
    let pad = |v: &[usize]| {
        let mut v = v.to_vec();
        v.resize(width * layout.face_steps, 0);
        v
    };
    ctx.insert("face_columns", &pad(&mirror.face_columns));
    ctx.insert("face_partners", &pad(&mirror.face_partners));
    let (flux_first, shared) = insert_folded_inputs(ctx, plan, nv);
    if tf32 {
        // (`rhs_mirror_tf32.tera`: the group in halves of 16 elements; the A fragments' blocks)
        let blocks = layout.tf32_blocks(flux_first, shared, nv);
        let results = crate::mirror_mma::tf32_result_values(&layout, nv);
        // (each half's results over its inputs: its blocks hold the larger)
        ctx.insert("x_values", &blocks.values(variant.group, results));
        ctx.insert("tpw", &crate::mirror_mma::TF32_TILES_PER_WARP);
        ctx.insert("sym_warps", &layout.sym_warps());
        ctx.insert("sym_rows", &(8 * layout.sym_tiles));
        ctx.insert("anti_rows", &(8 * layout.anti_tiles));
        ctx.insert("ystride", &crate::mirror_mma::TF32_RESULT_STRIDE);
        ctx.insert("halves", &variant.group.div_ceil(16));
        ctx.insert("diff_cols", &(width * layout.diff_steps));
        ctx.insert("ff_blocks", &blocks.ff_blocks);
        ctx.insert("gw_base", &blocks.gw_base);
        ctx.insert("gw_blocks", &blocks.gw_blocks);
        ctx.insert("jump_base", &blocks.jump_base);
        ctx.insert("blocks", &blocks.blocks);
    }
    Ok(())
}

/// One class of an element's work items as `rhs_mirror.tera` writes its volume sum, lift and store
/// ([`crate::mirror::ShareClass`]): with two classes each in a branch on `part` (`open`, `close`).
#[derive(serde::Serialize)]
struct ClassContext {
    /// The branch's head (`if (part < 4) {` or `else {`); empty with one class.
    open: String,
    /// The branch's end; empty with one class.
    close: &'static str,
    /// The work item's index within its class, as C.
    local: String,
    /// Pairs per work item (0: the consecutive tiles, whose store takes its own path).
    pairs: usize,
    /// Fixed nodes per work item.
    fixed: usize,
    /// Rows of its pairs (symmetric and antisymmetric alternating), before its fixed nodes' rows.
    pair_rows: usize,
    /// Rows it computes.
    rows: usize,
    /// Rows of its block of a folded column.
    item_rows: usize,
    /// Vectors of `width` values a block is read in.
    vectors: usize,
}

/// The classes of `share` (the consecutive tiles: one class of `outputs` rows, all in pairs), each block read in
/// vectors of `width`.
fn share_classes(share: Option<crate::mirror::RowShare>, outputs: usize, width: usize) -> Vec<ClassContext> {
    let Some(share) = share else {
        return vec![ClassContext {
            open: String::new(),
            close: "",
            local: "part".into(),
            pairs: 0,
            fixed: 0,
            pair_rows: outputs,
            rows: outputs,
            item_rows: outputs,
            vectors: outputs / width,
        }];
    };
    let several = share.active().count() > 1;
    share
        .active()
        .enumerate()
        .map(|(n, c)| ClassContext {
            open: match (several, n) {
                (false, _) => String::new(),
                (true, 0) => format!("if ({}) {{", class_test(c)),
                (true, _) => "else {".into(),
            },
            close: if several { "}" } else { "" },
            local: class_local(c),
            pairs: c.pairs,
            fixed: c.fixed,
            pair_rows: 2 * c.pairs,
            rows: c.rows(),
            item_rows: c.item_rows,
            vectors: c.item_rows / width,
        })
        .collect()
}

/// The test, as C, that holds for the work items of class `c` and for no later class's (`part < 4`).
fn class_test(c: &crate::mirror::ShareClass) -> String {
    format!("part < {}", c.first + c.items)
}

/// The work item's index within class `c`, as C: `part` in the first class, `(part - first)` in a later one.
fn class_local(c: &crate::mirror::ShareClass) -> String {
    if c.first == 0 {
        "part".into()
    } else {
        format!("(part - {})", c.first)
    }
}

/// The first row of the work item's block of a folded column in class `c`, as C.
fn class_first_row(c: &crate::mirror::ShareClass) -> String {
    if c.base == 0 {
        format!("{} * {}", class_local(c), c.item_rows)
    } else {
        format!("{} + {} * {}", c.base, class_local(c), c.item_rows)
    }
}

/// Whether the closed form of the face mask (`FACE_NODE` in `face_jump.tera`) gives the element's:
/// node i of face 0 is node i; of face 1, column N − i of row i; of face 2, column 0 of row i, where row r starts at
/// node r(N + 1) − r(r − 1)/2.
fn closed_form_face_mask_matches(element: &ReferenceTriangle) -> bool {
    element
        .fmask
        .iter()
        .enumerate()
        .all(|(face, nodes)| nodes.iter().enumerate().all(|(i, &node)| closed_face_node(element.nfp, face, i) == node))
}

/// The element's node at node `i` of face `face` (`nfp` nodes per face), in the closed form `FACE_NODE` computes:
/// row r of the triangle starts at node r·nfp − r(r − 1)/2.
pub(crate) fn closed_face_node(nfp: usize, face: usize, i: usize) -> usize {
    let row_start = i * nfp - i * i.saturating_sub(1) / 2;
    match face {
        0 => i,
        1 => row_start + nfp - 1 - i,
        _ => row_start,
    }
}

/// Whether `variant`'s kernel reads each face's packed link (`LINK_NODE` in `face_jump.tera`; a boundary face's
/// condition) where the others read `vmap_p`, `face_bc` and `neigh`: the merged element-per-thread kernels and the
/// tensor-core kernels (whose face-node jobs then wait on one load before the neighbour's state instead of two).
/// (Measured on an H200, `docs/performance.md`: the tiles, which spread an element's face nodes over work items,
/// were slower with the links; so were the faces-ahead mirror tiles on an H100 at N = 6 and 8, except read over the
/// whole element in one chunk, `whole<t>`.)
pub fn uses_links(variant: &Variant) -> bool {
    (variant.partition == Partition::Element && variant.surface == Surface::Merged)
        || variant.partition.is_mma()
        || matches!(variant.partition, Partition::Mirror { inputs: MirrorInputs::WholeElement { .. }, .. })
        || matches!(variant.partition, Partition::MirrorMma { .. })
}

/// Renders the nodal triangle program of `variant` for `law` on `element`.
pub fn render_nodal_tri(
    law: &LawInput<'_>,
    element: &ReferenceTriangle,
    variant: &Variant,
    target: Target,
) -> Result<KernelSource, RenderError> {
    let ir = law.ir;
    let law_err = |reason: String| RenderError::Law { law: ir.name.clone(), reason };
    if ir.dim != 2 {
        return Err(law_err(format!("the nodal triangle kernels need a 2D law (this one is {}D)", ir.dim)));
    }
    if variant.form == VolumeForm::DiffFirst && !ir.flux_is_linear_homogeneous() {
        return Err(law_err("diff-first needs a flux linear and homogeneous in the state".into()));
    }
    let single = variant.precision == Precision::F32;
    let geometry = Geometry::new(element.order, variant);
    let mut ctx = tera::Context::new();
    insert_law(&mut ctx, law, single, DIVISIONS)?;
    ctx.insert("cuda", &(target == Target::Cuda));
    ctx.insert("double", &!single);
    ctx.insert("np", &geometry.np);
    ctx.insert("nfp", &geometry.nfp);
    ctx.insert("nv", &ir.variables.len());
    ctx.insert("nmat", &ir.materials.len());
    if variant.layout == Layout::Tiled {
        // (the tiled layout's tile, in the element-major layout's terms: MBE elements in MBF values, every variable)
        ctx.insert("mbe", &TILE_ELEMENTS);
        ctx.insert("mbf", &(TILE_ELEMENTS * geometry.np * ir.variables.len()));
    } else {
        ctx.insert("mbe", &geometry.microblock.elements);
        ctx.insert("mbf", &geometry.microblock.floats);
    }
    ctx.insert("node_major", &(variant.layout == Layout::NodeMajor));
    ctx.insert("tiled_layout", &(variant.layout == Layout::Tiled));
    ctx.insert("matrix_const", &(variant.storage == Storage::MatrixConst));
    ctx.insert("matrix_local", &(variant.storage == Storage::MatrixLocal));
    ctx.insert("dr", &matrix_text(&element.dr, single));
    ctx.insert("ds", &matrix_text(&element.ds, single));
    ctx.insert("lift", &matrix_text(&element.lift, single));
    let (dr_at, ds_at, lift_at) = match variant.storage {
        Storage::FieldLocal => ("dr".to_string(), "ds".to_string(), "lift_mat".to_string()),
        Storage::MatrixLocal => ("s_dr".to_string(), "s_ds".to_string(), "s_lift".to_string()),
        Storage::MatrixConst => {
            (format!("C_DR{PRELUDE_SUFFIX}"), format!("C_DS{PRELUDE_SUFFIX}"), format!("C_LIFT{PRELUDE_SUFFIX}"))
        }
    };
    ctx.insert("dr_at", &dr_at);
    ctx.insert("ds_at", &ds_at);
    ctx.insert("lift_at", &lift_at);
    ctx.insert("p", PRELUDE_SUFFIX);
    ctx.insert("k", KERNEL_SUFFIX);
    ctx.insert("source_group", &SOURCE_GROUP);
    ctx.insert("energy_group", &ENERGY_GROUP);
    ctx.insert("group", &variant.group);
    ctx.insert("seq", &variant.seq);
    ctx.insert("fused", &(variant.surface == Surface::Fused));
    ctx.insert("merged", &(variant.surface == Surface::Merged));
    // a law's source term in the store of the merged element, tile and tensor-core kernels (node, gemm and the fused
    // and split surfaces: its own kernel)
    let has_source = ir.functions_of(FunctionRole::Source).next().is_some();
    let source_in_store = has_source
        && variant.surface == Surface::Merged
        && matches!(
            variant.partition,
            Partition::Element
                | Partition::Tile { .. }
                | Partition::Mirror { .. }
                | Partition::Mma
                | Partition::Mma16
                | Partition::Mma16Regs
                | Partition::MirrorMma { .. }
        );
    ctx.insert("fold_source", &source_in_store);
    ctx.insert("diff_first", &(variant.form == VolumeForm::DiffFirst));
    ctx.insert("mixed", &(variant.form == VolumeForm::Mixed));
    ctx.insert("surface_t", &geometry.np.max(3 * geometry.nfp));
    // the element's node at each face node (face 0's, then 1's, then 2's)
    ctx.insert("fmask_nodes", &element.fmask.iter().flatten().collect::<Vec<_>>());
    let tera = engine(&TEMPLATES)?;
    let (volume, surface) = match variant.partition {
        Partition::Node => ("volume_node", "surface_node"),
        Partition::Element => ("volume_elem", "surface_elem"),
        Partition::Tile { .. } => ("rhs_tile", "rhs_tile"),
        Partition::Mirror { .. } => ("rhs_mirror", "rhs_mirror"),
        Partition::Mma | Partition::Mma16 => ("rhs_mma", "rhs_mma"),
        Partition::Mma16Regs => ("rhs_mma_regs", "rhs_mma_regs"),
        Partition::MirrorMma { .. } if variant.precision == Precision::F32 => ("rhs_mirror_tf32", "rhs_mirror_tf32"),
        Partition::MirrorMma { .. } => ("rhs_mirror_mma", "rhs_mirror_mma"),
        Partition::Gemm => ("gemm_flux", "gemm_flux"),
    };
    // the kernels that read links (`uses_links`) find the neighbour's nodes from each face's packed link, not from
    // vmap_p, and a face's own nodes from the closed-form face mask (FACE_NODE), not from vmap_m
    let links = uses_links(variant);
    ctx.insert("links", &links);
    ctx.insert("closed_face", &links);
    if links && !closed_form_face_mask_matches(element) {
        return Err(RenderError::Template(format!(
            "the closed-form face mask (FACE_NODE) differs from the element's at N = {}: {:?}",
            element.order, element.fmask
        )));
    }
    if variant.partition.is_mma() {
        if target != Target::Cuda {
            return Err(law_err(format!("{variant} is generated in CUDA C (tensor-core instructions)")));
        }
        let (mtiles, ksteps) = geometry.mma_tiles();
        ctx.insert("rows", &geometry.mma_shape.0);
        ctx.insert("depth", &geometry.mma_shape.1);
        ctx.insert("warps", &(mtiles * geometry.mma_ksplit(variant)));
        ctx.insert("ksteps", &ksteps);
        ctx.insert("krows", &(2 * geometry.np + 3 * geometry.nfp));
        ctx.insert("ntiles", &(ir.variables.len() * variant.group / 8));
        ctx.insert("threads", &geometry.volume_threads);
        ctx.insert("parts", &(geometry.volume_threads / variant.group));
        ctx.insert("gtiles", &(variant.group / 8));
        let ksplit = geometry.mma_ksplit(variant);
        ctx.insert("ksplit", &ksplit);
        ctx.insert("mtiles", &mtiles);
        ctx.insert("kper", &ksteps.div_ceil(ksplit));
        ctx.insert("prefetch", &MMA_PREFETCH);
        // values of one part's output in local memory (every variable, node and element of the group)
        ctx.insert("stage_values", &(ir.variables.len() * geometry.np * variant.group));
        // B in registers (mma16r): the steps of each section of the operator's columns
        let (node_steps, face_steps) = geometry.mma_section_steps();
        ctx.insert("node_steps", &node_steps);
        ctx.insert("face_steps", &face_steps);
        // B in registers: each work item's registers capped (`__launch_bounds__`) so that more warps share an SM
        ctx.insert("min_groups", &(65536 / (geometry.volume_threads * MMA16R_REGISTERS)).max(1));
    }
    // the mixed form's plan (tiles and merged elements; the rules refuse it elsewhere)
    let plan = match variant.form {
        VolumeForm::Mixed => Some(
            ir.divergence_plan()
                .ok_or_else(|| law_err("mixed needs a flux linear and homogeneous in the state".into()))?,
        ),
        _ => None,
    };
    if let Some(plan) = &plan {
        insert_divergence_plan(&mut ctx, plan);
    }
    if let Partition::Tile { threads } = variant.partition {
        let outputs = geometry.tile_outputs;
        ctx.insert("threads", &threads);
        ctx.insert("outputs", &outputs);
        ctx.insert("rows", &geometry.tile_rows(variant));
        ctx.insert("stride", &geometry.tile_stride);
        ctx.insert("chunk", &geometry.tile_chunk);
        let nv = ir.variables.len();
        // values per node in a chunk: two contravariant fluxes per variable, or (mixed) per flux-first variable, and
        // one per shared field
        let slots = match &plan {
            Some(plan) => 2 * plan.flux_first.len() + plan.gradients.len(),
            None => 2 * nv,
        };
        ctx.insert("scratch", &((slots * geometry.tile_chunk).max(3 * geometry.nfp * nv) * variant.group));
        // CUDA reads a block row of a matrix from local memory as vectors where the block's length allows
        // constant memory is read value by value (uniform addresses, the constant cache)
        let width = match (single, target) {
            (_, Target::OpenCl) => 1,
            _ if variant.storage == Storage::MatrixConst => 1,
            (true, _) if outputs.is_multiple_of(4) => 4,
            _ if outputs.is_multiple_of(2) => 2,
            _ => 1,
        };
        if variant.storage == Storage::MatrixConst {
            let tiled = crate::device::tile_matrices::<f64>(element, geometry.tile_stride);
            let columns = tiled.len() / geometry.tile_stride;
            let matrix = dg_core::matrix::Matrix::from_row_slice(columns, geometry.tile_stride, &tiled);
            ctx.insert("tiled", &matrix_text(&matrix, single));
        }
        let (chunk_nodes, face_nodes) = (geometry.tile_chunk.div_ceil(threads), (3 * geometry.nfp).div_ceil(threads));
        ctx.insert("chunk_nodes", &chunk_nodes);
        ctx.insert("face_nodes", &face_nodes);
        ctx.insert("face_batch", &face_nodes.min(TILE_FACE_BATCH));
        ctx.insert("width", &width);
        ctx.insert("vectors", &(outputs / width));
        let vector = match (single, width) {
            (true, 4) => "float4",
            (true, 2) => "float2",
            (false, 2) => "double2",
            _ => "real",
        };
        ctx.insert("vector", vector);
        // CUDA reads both matrices' entries of a pair of output rows at once (`tile_matrices` interleaves them): one
        // float4, or two double2, per pair where the block is whole pairs
        let cuda_vectors = target == Target::Cuda && variant.storage != Storage::MatrixConst;
        ctx.insert("pairs", &(cuda_vectors && outputs.is_multiple_of(2)));
        // matrix-local: the copy to local memory, Dr and Ds as vectors of one pair of rows of either matrix (whole
        // pairs of the interleaved columns), LIFT as the block's vectors
        let rows = geometry.tile_rows(variant);
        let drows = geometry.tile_pair_rows(variant);
        let cw = if target == Target::Cuda {
            if single {
                4
            } else {
                2
            }
        } else {
            1
        };
        let group_items = variant.group * threads;
        ctx.insert("drows", &drows);
        ctx.insert("cw", &cw);
        ctx.insert("cvec", if single { "float4" } else { "double2" });
        ctx.insert("dd_values", &(2 * geometry.np * drows));
        ctx.insert("dd_vecs", &(2 * geometry.np * drows / cw));
        ctx.insert("dd_col", &(2 * drows / cw));
        ctx.insert("dd_stride", &(2 * geometry.tile_stride / cw));
        ctx.insert("dd_trips", &(2 * geometry.np * drows / cw).div_ceil(group_items));
        let lift_values = 3 * geometry.nfp * rows;
        ctx.insert("lift_vecs", &(lift_values / width));
        ctx.insert("lift_col", &(rows / width));
        ctx.insert("lift_stride", &(geometry.tile_stride / width));
        ctx.insert("lift_trips", &(lift_values / width).div_ceil(group_items));
        ctx.insert("local_mat", &(2 * geometry.np * drows + lift_values));
        // where the kernel reads the operator: its array, the values per column of Dr and Ds, where LIFT starts and
        // its values per column (local memory keeps only the rows the work items use)
        let (array, kept, lift_rows) = match variant.storage {
            Storage::MatrixLocal => ("s_mat".to_string(), drows, rows),
            Storage::MatrixConst => (format!("C_TILE{PRELUDE_SUFFIX}"), geometry.tile_stride, geometry.tile_stride),
            Storage::FieldLocal => ("tiled".to_string(), geometry.tile_stride, geometry.tile_stride),
        };
        ctx.insert("tile_array", &array);
        ctx.insert("dd_span", &(2 * kept));
        ctx.insert("lift_base", &(2 * geometry.np * kept));
        ctx.insert("lift_rows", &lift_rows);
    }
    if matches!(variant.partition, Partition::MirrorMma { .. }) {
        if target != Target::Cuda {
            return Err(law_err(format!("{variant} is generated in CUDA C (tensor-core instructions)")));
        }
        insert_mirror_mma(&mut ctx, element, variant, plan.as_ref(), ir.variables.len())?;
    }
    if let Partition::Mirror { threads, .. } = variant.partition {
        insert_mirror(&mut ctx, element, variant, &geometry, threads, plan.as_ref(), ir.variables.len(), target)?;
        // (staged: the neighbours' materials, at least one value)
        ctx.insert("mp_values", &(3 * ir.materials.len() * variant.group).max(1));
    }
    let piece = |names: &[&str]| render_pieces(&tera, &ctx, names);
    let mut parts = Vec::new();
    match variant.surface {
        Surface::Fused => {
            parts.push((vec!["volume"], piece(&[volume])?));
            parts.push((vec!["surface"], piece(&[surface])?));
        }
        Surface::Split => {
            parts.push((vec!["volume"], piece(&[volume])?));
            parts.push((vec!["flux", "lift"], piece(&[surface])?));
        }
        Surface::Merged if matches!(variant.partition, Partition::Tile { .. }) => {
            parts.push((vec!["tile"], piece(&[volume])?))
        }
        Surface::Merged if matches!(variant.partition, Partition::Mirror { .. }) => {
            parts.push((vec!["mirror"], piece(&[volume])?))
        }
        Surface::Merged if variant.partition.is_mma() => parts.push((vec!["mma"], piece(&[volume])?)),
        Surface::Merged if matches!(variant.partition, Partition::MirrorMma { .. }) => {
            parts.push((vec!["mmamirror"], piece(&[volume])?))
        }
        Surface::Merged if variant.partition == Partition::Gemm => parts.push((vec!["gemm_flux"], piece(&[volume])?)),
        Surface::Merged => parts.push((vec!["rhs"], piece(&[volume])?)),
    }
    // a law's source term, where the store does not add it: its own kernel, launched after the others (they write
    // the right-hand side; it adds S)
    if has_source && !source_in_store {
        parts.push((vec!["source"], piece(&["source_node"])?));
    }
    parts.push((vec!["update", "lincomb"], piece(&["update"])?));
    parts.push((vec!["energy"], piece(&["energy"])?));
    let pieces = ProgramPieces {
        dialect: piece(&["dialect"])?,
        // (a law with a source: the source at a node, which the source kernel or the merged kernels' store calls)
        prelude: piece(if has_source {
            &["sizes", "matrices", "law", "face_jump", "source_at_node"]
        } else {
            &["sizes", "matrices", "law", "face_jump"]
        })?,
        parts,
    };
    let mut source = format!("/* dg kernels: {} N={} {} */\n", ir.name, element.order, variant);
    source.push_str(&pieces.dialect);
    source.push_str(&pieces.prelude);
    for (_, text) in &pieces.parts {
        source.push_str(text);
    }
    let source = source.replace(PRELUDE_SUFFIX, "").replace(KERNEL_SUFFIX, "");
    let symbols = pieces.parts.iter().flat_map(|(roles, _)| roles.iter().map(|r| (*r, r.to_string()))).collect();
    let mut rhs_kernels = vec![KernelLaunch {
        name: match (variant.partition, variant.surface) {
            (Partition::Tile { .. }, _) => "tile",
            (Partition::Mirror { .. }, _) => "mirror",
            (Partition::Mma | Partition::Mma16 | Partition::Mma16Regs, _) => "mma",
            (Partition::MirrorMma { .. }, _) => "mmamirror",
            (Partition::Gemm, _) => "gemm_flux",
            (_, Surface::Merged) => "rhs",
            _ => "volume",
        },
        local_size: geometry.volume_threads,
        elements_per_group: geometry.volume_elements,
    }];
    match variant.surface {
        Surface::Merged => {}
        Surface::Fused => rhs_kernels.push(KernelLaunch {
            name: "surface",
            local_size: geometry.surface_threads,
            elements_per_group: geometry.surface_elements,
        }),
        Surface::Split => {
            rhs_kernels.push(KernelLaunch {
                name: "flux",
                local_size: geometry.surface_threads,
                elements_per_group: geometry.surface_elements,
            });
            rhs_kernels.push(KernelLaunch {
                name: "lift",
                local_size: geometry.lift_threads,
                elements_per_group: geometry.surface_elements,
            });
        }
    }
    if has_source && !source_in_store {
        rhs_kernels.push(KernelLaunch { name: "source", local_size: SOURCE_GROUP, elements_per_group: SOURCE_GROUP });
    }
    Ok(KernelSource {
        target,
        variant: *variant,
        source,
        rhs_kernels,
        geometry,
        nvars: ir.variables.len(),
        nmaterials: ir.materials.len(),
        pieces,
        symbols,
        law_has_source: has_source,
        source_in_store,
    })
}
