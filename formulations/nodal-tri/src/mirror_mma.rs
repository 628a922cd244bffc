//! The folded operators ([`crate::mirror`]) in the tensor cores' fragments, for the `mmamirror` kernels
//! ([`crate::variant::Partition::MirrorMma`]): in f64 `mma.m16n8k4.f64`, in f32 `mma.m16n8k8.tf32` three times on
//! operands split into high and low tf32 parts ([`MirrorMmaShape`]).
//!
//! The kernel forms the transposed products: a group's 16 elements are the instruction's 16 rows (its A operand,
//! the folded inputs in local memory: lane l = 4·g + t holds A(g, t) and A(g + 8, t), element g and g + 8 at folded
//! column w·step + t, and with the tf32 shape also A(g, t + 4) and A(g + 8, t + 4)), the folded rows come in tiles of
//! 8 (its B operand, from this buffer: lane l holds B(t, g), and with the tf32 shape B(t + 4, g), the operator's
//! folded row 8·tile + g at folded columns w·step + t and w·step + t + 4) and the accumulators hold C(g, 2t),
//! C(g, 2t + 1), C(g + 8, 2t), C(g + 8, 2t + 1) (elements g and g + 8, folded rows 8·tile + 2t and 8·tile + 2t + 1),
//! w being the shape's step width (4 or 8 folded columns). With the f64 shape a warp owns one row tile of the
//! symmetric rows and the same tile of the antisymmetric rows, so that it writes y_i = sym + anti and y_P(i) = sym −
//! anti from its own registers; with the tf32 shape a warp owns [`TF32_TILES_PER_WARP`] tiles of one kind (the
//! symmetric rows' warps first), so that it splits each A fragment it reads once for all of them, and the group
//! combines sym and anti through local memory ([`tf32_result_values`]).
//!
//! Four sections, each `[tile][step][lane][value]`: the volume operator's symmetric rows (negated: the right-hand
//! side is −∇·F), its antisymmetric rows, the lift's symmetric rows, its antisymmetric rows. A volume step below
//! [`MirrorMmaLayout::sum_steps`] reads the representatives' sums (folded columns w·step + t < reps), a later one
//! the pairs' differences (column `reps` + w·(step − sum_steps) + t, for w·(step − sum_steps) + t < pairs); a lift
//! step the face representatives (w·step + t < face reps). Entries past a section's rows or columns are zero. A
//! lane's values: one f64 (f64 shape); B(t, g) and B(t + 4, g) rounded to f32 (tf32 shape: two values, one 8-byte
//! load; the kernel splits each into its high tf32 part and the rest, as it splits A).

use crate::mirror::{Mirror, MirrorError};
use crate::variant::Precision;
use dg_core::triangle::ReferenceTriangle;

/// Lanes of a warp.
const LANES: usize = 32;

/// The tensor-core instruction of the `mmamirror` kernels, by precision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MirrorMmaShape {
    /// f64: `mma.m16n8k4.f64` (compute capability 9.0), 4 folded columns a step, one value per lane.
    F64,
    /// f32: `mma.m16n8k8.tf32` three times (A_lo·B_hi + A_hi·B_lo + A_hi·B_hi, the high parts truncated to tf32,
    /// which keeps f32 accuracy; compute capability 8.0), 8 folded columns a step, two values per lane (B(t, g) and
    /// B(t + 4, g) in f32, which the kernel splits as it splits A).
    Tf32,
}

impl MirrorMmaShape {
    /// The shape the kernels of `precision` run.
    pub fn of(precision: Precision) -> Self {
        match precision {
            Precision::F64 => Self::F64,
            Precision::F32 => Self::Tf32,
        }
    }

    /// Folded columns a step (the instruction's k).
    pub fn width(self) -> usize {
        match self {
            Self::F64 => 4,
            Self::Tf32 => 8,
        }
    }

    /// Values a lane holds of a step's B fragment.
    pub fn lane_values(self) -> usize {
        match self {
            Self::F64 => 1,
            Self::Tf32 => 2,
        }
    }

    /// Bytes of one value of the products' operands (f64, or the tf32 parts kept as f32).
    pub fn value_bytes(self) -> usize {
        match self {
            Self::F64 => 8,
            Self::Tf32 => 4,
        }
    }
}

/// The sizes and offsets of the `mmamirror` kernels' operator fragments at one order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MirrorMmaLayout {
    /// The instruction.
    pub shape: MirrorMmaShape,
    /// Mirror representatives (pairs, then fixed nodes).
    pub reps: usize,
    /// Pairs among them.
    pub pairs: usize,
    /// Face representatives (the lift's folded columns).
    pub face_reps: usize,
    /// Volume steps over the representatives' sums: ⌈reps / w⌉ (w: the shape's width).
    pub sum_steps: usize,
    /// Volume steps over the pairs' differences: ⌈pairs / w⌉.
    pub diff_steps: usize,
    /// Lift steps: ⌈face reps / w⌉.
    pub face_steps: usize,
    /// Tiles of 8 symmetric rows: ⌈reps / 8⌉ (f64: one warp each), with the tf32 shape rounded up to whole
    /// [`TF32_TILES_PER_WARP`] (the tiles past the rows zero).
    pub sym_tiles: usize,
    /// Tiles of 8 antisymmetric rows: ⌈pairs / 8⌉ (f64: the first warps'), with the tf32 shape rounded up as
    /// `sym_tiles`.
    pub anti_tiles: usize,
}

/// Row tiles of one kind a warp of the tf32 kernel multiplies (`rhs_mirror_tf32.tera`): each A fragment it reads is
/// split once for all of them.
pub const TF32_TILES_PER_WARP: usize = 2;

/// Values a row takes in the tf32 kernel's results (its 16 elements and 4 more, so that the 32 lanes writing one
/// accumulator meet 32 banks: lane 4·g + t's row 2·t apart from lane g's, 40·t ≡ 8·t modulo 32).
pub const TF32_RESULT_STRIDE: usize = 20;

impl MirrorMmaLayout {
    /// The layout at order `order` for the instruction `shape`.
    pub fn at(order: usize, shape: MirrorMmaShape) -> Self {
        let reps = Mirror::reps_at(order);
        let pairs = reps - Mirror::fixed_nodes(order);
        let face_reps = Mirror::face_reps_at(order);
        let w = shape.width();
        let tiles = |rows: usize| match shape {
            MirrorMmaShape::F64 => rows.div_ceil(8),
            MirrorMmaShape::Tf32 => rows.div_ceil(8).next_multiple_of(TF32_TILES_PER_WARP),
        };
        Self {
            shape,
            reps,
            pairs,
            face_reps,
            sum_steps: reps.div_ceil(w),
            diff_steps: pairs.div_ceil(w),
            face_steps: face_reps.div_ceil(w),
            sym_tiles: tiles(reps),
            anti_tiles: tiles(pairs),
        }
    }

    /// Warps per group: f64 one per tile of symmetric rows; tf32 [`TF32_TILES_PER_WARP`] tiles each, the
    /// symmetric rows' ([`MirrorMmaLayout::sym_warps`]), then the antisymmetric rows'.
    pub fn warps(&self) -> usize {
        match self.shape {
            MirrorMmaShape::F64 => self.sym_tiles,
            MirrorMmaShape::Tf32 => (self.sym_tiles + self.anti_tiles) / TF32_TILES_PER_WARP,
        }
    }

    /// The tf32 kernel's warps of symmetric rows (the first ones).
    pub fn sym_warps(&self) -> usize {
        self.sym_tiles / TF32_TILES_PER_WARP
    }

    /// Volume steps of a tile: the sums', then the differences'.
    pub fn volume_steps(&self) -> usize {
        self.sum_steps + self.diff_steps
    }

    /// Values of one step's fragment (every lane's).
    pub fn step_values(&self) -> usize {
        LANES * self.shape.lane_values()
    }

    /// Where the antisymmetric rows' volume fragments start.
    pub fn anti_volume(&self) -> usize {
        self.sym_tiles * self.volume_steps() * self.step_values()
    }

    /// Where the symmetric rows' lift fragments start.
    pub fn sym_lift(&self) -> usize {
        self.anti_volume() + self.anti_tiles * self.volume_steps() * self.step_values()
    }

    /// Where the antisymmetric rows' lift fragments start.
    pub fn anti_lift(&self) -> usize {
        self.sym_lift() + self.sym_tiles * self.face_steps * self.step_values()
    }

    /// Values in the buffer.
    pub fn len(&self) -> usize {
        self.anti_lift() + self.anti_tiles * self.face_steps * self.step_values()
    }

    /// Whether the buffer is empty (never: every order has a representative).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The folded column a volume step's column `t` (0..w) reads: a representative's sum (`c`), a pair's
    /// difference (`reps + c`), or none (padding).
    pub fn volume_column(&self, step: usize, t: usize) -> Option<usize> {
        let w = self.shape.width();
        if step < self.sum_steps {
            let c = w * step + t;
            (c < self.reps).then_some(c)
        } else {
            let c = w * (step - self.sum_steps) + t;
            (c < self.pairs).then_some(self.reps + c)
        }
    }

    /// The face representative a lift step's column `t` (0..w) reads, or none (padding).
    pub fn face_column(&self, step: usize, t: usize) -> Option<usize> {
        Some(self.shape.width() * step + t).filter(|&c| c < self.face_reps)
    }

    /// Where the tf32 kernel (`rhs_mirror_tf32.tera`) keeps its A fragments in local memory, for `flux_first`
    /// flux-first variables, `shared` shared fields and `nv` variables ([`Tf32Blocks`]).
    pub fn tf32_blocks(&self, flux_first: usize, shared: usize, nv: usize) -> Tf32Blocks {
        let ff_blocks = 2 * self.sum_steps + 2 * self.diff_steps;
        let gw_blocks = self.sum_steps + self.diff_steps;
        let gw_base = flux_first * ff_blocks;
        let jump_base = gw_base + shared * gw_blocks;
        Tf32Blocks { ff_blocks, gw_base, gw_blocks, jump_base, blocks: jump_base + 2 * nv * self.face_steps }
    }
}

/// Values in one block of the tf32 kernel's local memory per half of 16 elements: the 32 lanes' A fragments of one
/// step (four values each).
pub const TF32_BLOCK_VALUES: usize = LANES * 4;

/// The tf32 kernel's local memory in blocks ([`TF32_BLOCK_VALUES`] f32 values per half of 16 elements), each one
/// step of one folded input: a flux-first variable's sums of a and sums of b (`sum_steps` blocks each), then its
/// differences of b and differences of a (`diff_steps` each); a shared field's sums, then its differences; each
/// variable's folded jumps, their sums, then their differences (`face_steps` each).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tf32Blocks {
    /// Blocks per flux-first variable.
    pub ff_blocks: usize,
    /// The first shared field's first block.
    pub gw_base: usize,
    /// Blocks per shared field.
    pub gw_blocks: usize,
    /// The first variable's first folded-jump block.
    pub jump_base: usize,
    /// All of them.
    pub blocks: usize,
}

/// Where lane `lane` = 4·g + t's four A values sit in a block of the tf32 kernel's local memory (per half of 16
/// elements): values 4·p … 4·p + 3 with p = 8·⌊g/2⌋ + ((4·(g mod 2) + ⌊g/2⌋ + t) mod 8), `XPOS` in
/// `rhs_mirror_tf32.tera`. Each quarter-warp's 8 lanes (the 16-byte reads' unit) cover 8 consecutive 16-byte words,
/// and for a fixed t the 8 values of g land in 8 different words modulo 8, so that the 32 elements writing one
/// column meet 16 banks.
pub fn tf32_lane_position(lane: usize) -> usize {
    let (g, t) = (lane / 4, lane % 4);
    8 * (g >> 1) + ((4 * (g & 1) + (g >> 1) + t) & 7)
}

/// The value of a block (per half) that element `el` (0..16 of the half) at the step's folded column `c` (0..8) goes
/// to (`XAT` in `rhs_mirror_tf32.tera`): lane (el mod 8, c mod 4)'s value ⌊el/8⌋ + 2·⌊c/4⌋, so that each lane holds
/// A(g, t), A(g + 8, t), A(g, t + 4), A(g + 8, t + 4) in the order of the instruction's registers a0 … a3.
pub fn tf32_value_at(el: usize, c: usize) -> usize {
    4 * tf32_lane_position(4 * (el & 7) + (c & 3)) + (el >> 3) + 2 * ((c >> 2) & 1)
}

/// Values of the tf32 kernel's results for one half of 16 elements and `nv` variables: the symmetric rows'
/// accumulators (`[variable][row][element]`, [`TF32_RESULT_STRIDE`] values a row), then the antisymmetric rows', in
/// the half's blocks ([`Tf32Blocks::half_blocks`]).
pub fn tf32_result_values(layout: &MirrorMmaLayout, nv: usize) -> usize {
    nv * 8 * (layout.sym_tiles + layout.anti_tiles) * TF32_RESULT_STRIDE
}

impl Tf32Blocks {
    /// Blocks a half takes in local memory: its A fragments' or its results' (`results` values,
    /// [`tf32_result_values`], written over its inputs once its products are done), whichever are more.
    pub fn half_blocks(&self, results: usize) -> usize {
        self.blocks.max(results.div_ceil(TF32_BLOCK_VALUES))
    }

    /// f32 values of local memory for a group of `group` elements (whole halves of 16, [`Tf32Blocks::half_blocks`]
    /// each).
    pub fn values(&self, group: usize, results: usize) -> usize {
        self.half_blocks(results) * group.div_ceil(16) * TF32_BLOCK_VALUES
    }

    /// Bytes of local memory for a group of `group` elements ([`Tf32Blocks::values`], 4 bytes each).
    pub fn bytes(&self, group: usize, results: usize) -> usize {
        4 * self.values(group, results)
    }
}

/// The operator fragments of the `mmamirror` kernels for `element` and the instruction `shape`
/// ([`MirrorMmaLayout`]'s sections and order; the tf32 shape's values are f32 values, exact in f64).
pub fn mirror_mma_fragments(element: &ReferenceTriangle, shape: MirrorMmaShape) -> Result<Vec<f64>, MirrorError> {
    let mirror = Mirror::of(element)?;
    let volume = mirror.volume_operator(element)?;
    let lift = mirror.lift_operator(element)?;
    let layout = MirrorMmaLayout::at(element.order, shape);
    let mut out = Vec::with_capacity(layout.len());
    // (rows of the section: representative r's symmetric row 2r or antisymmetric row 2r + 1, for r below `rows`)
    let sections: [(&dg_core::matrix::Matrix, usize, usize, f64, usize, usize); 4] = [
        (&volume, 0, layout.reps, -1.0, layout.sym_tiles, layout.volume_steps()),
        (&volume, 1, layout.pairs, -1.0, layout.anti_tiles, layout.volume_steps()),
        (&lift, 0, layout.reps, 1.0, layout.sym_tiles, layout.face_steps),
        (&lift, 1, layout.pairs, 1.0, layout.anti_tiles, layout.face_steps),
    ];
    for (s, &(matrix, odd, rows, sign, tiles, steps)) in sections.iter().enumerate() {
        for tile in 0..tiles {
            for step in 0..steps {
                for lane in 0..LANES {
                    let (g, t) = (lane / 4, lane % 4);
                    let rep = 8 * tile + g;
                    // B(k, g): the entry of folded row `rep` at the step's column k
                    let entry = |k: usize| {
                        let column = if s < 2 { layout.volume_column(step, k) } else { layout.face_column(step, k) };
                        match column {
                            Some(c) if rep < rows => sign * matrix[(2 * rep + odd, c)],
                            _ => 0.0,
                        }
                    };
                    match shape {
                        MirrorMmaShape::F64 => out.push(entry(t)),
                        MirrorMmaShape::Tf32 => out.extend([entry(t), entry(t + 4)].map(|x| x as f32 as f64)),
                    }
                }
            }
        }
    }
    debug_assert_eq!(out.len(), layout.len());
    Ok(out)
}

// (the unit tests live in their own file, outside the code fingerprint: editing them moves no tuning entry)
#[cfg(test)]
mod tests;
