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

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    fn dense(m: &dg_core::matrix::Matrix, x: &[f64]) -> Vec<f64> {
        (0..m.nrows()).map(|i| (0..m.ncols()).map(|j| m[(i, j)] * x[j]).sum()).collect()
    }

    /// A value in f32 split as the tf32 kernel splits its operands: the high part truncated to tf32, and the rest
    /// (exact in f32) as the tensor cores read it, truncated to its leading tf32 bits.
    fn split_as_kernel(x: f64) -> (f64, f64) {
        let hi = f32::from_bits((x as f32).to_bits() & 0xffff_e000);
        (hi as f64, f32::from_bits((x as f32 - hi).to_bits() & 0xffff_e000) as f64)
    }

    /// One step of the kernel's product as the hardware defines it, lane by lane (g = l / 4, t = l % 4): A(g, k)
    /// and A(g + 8, k) of lane l's columns k (t, and with the tf32 shape t + 4; `a[l]`, f32 values for tf32), B(k,
    /// g) of the same columns (`b`, the buffer's values of lane l), C(g, 2t), C(g, 2t + 1), C(g + 8, 2t), C(g + 8,
    /// 2t + 1) accumulated into `c[l]`. The tf32 shape splits each A and B value as the kernel does
    /// ([`split_as_kernel`]) and forms A_lo·B_hi + A_hi·B_lo + A_hi·B_hi.
    fn mma(shape: MirrorMmaShape, c: &mut [[f64; 4]; 32], a: &[[[f64; 2]; 2]; 32], b: &[[f64; 2]; 32]) {
        let w = shape.width();
        let (mut am, mut bh, mut bl) = ([[[0.0; 8]; 16]; 2], [[0.0; 8]; 8], [[0.0; 8]; 8]);
        for l in 0..32 {
            let (g, t) = (l / 4, l % 4);
            for (half, k) in [t, t + 4].into_iter().enumerate().take(w / 4) {
                for (h, row) in [g, g + 8].into_iter().enumerate() {
                    let x = a[l][half][h];
                    match shape {
                        MirrorMmaShape::F64 => am[0][row][k] = x,
                        MirrorMmaShape::Tf32 => (am[0][row][k], am[1][row][k]) = split_as_kernel(x),
                    }
                }
                match shape {
                    MirrorMmaShape::F64 => bh[k][g] = b[l][0],
                    MirrorMmaShape::Tf32 => (bh[k][g], bl[k][g]) = split_as_kernel(b[l][half]),
                }
            }
        }
        for (l, cl) in c.iter_mut().enumerate() {
            let (g, t) = (l / 4, l % 4);
            for (j, cj) in cl.iter_mut().enumerate() {
                let (row, col) = (g + 8 * (j / 2), 2 * t + j % 2);
                let (ah, al) = (&am[0][row], &am[1][row]);
                *cj += (0..w).map(|k| al[k] * bh[k][col] + ah[k] * bl[k][col] + ah[k] * bh[k][col]).sum::<f64>();
            }
        }
    }

    /// The fragments, multiplied lane by lane as the kernel does (the group's 16 elements' folded inputs as A, each
    /// warp's symmetric and antisymmetric row tiles as B, y_i = sym + anti and y_P(i) = sym − anti from the lanes'
    /// accumulators), give −(Dr·gr + Ds·gs) + LIFT·J of random data for 16 elements at N = 1..10, against the
    /// element's dense matrices: to 1e-11 with the f64 shape, to f32's accuracy (2e-5 of 1 + |value|) with the tf32
    /// shape's three split products, and not with its high parts alone (from N = 3); a fragment planted one lane off
    /// fails.
    #[test]
    fn the_fragments_reproduce_the_dense_right_hand_side() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(11);
        for shape in [MirrorMmaShape::F64, MirrorMmaShape::Tf32] {
            for order in 1..=10 {
                let el = ReferenceTriangle::new(order).expect("element");
                let m = Mirror::of(&el).expect("mirror");
                let layout = MirrorMmaLayout::at(order, shape);
                assert_eq!((layout.reps, layout.pairs, layout.face_reps), (m.reps(), m.pairs, m.face_columns.len()));
                let frags = mirror_mma_fragments(&el, shape).expect("fragments");
                assert_eq!(frags.len(), layout.len());
                let mut planted = frags.clone();
                // (an entry swapped with a different one a lane on)
                let lv = shape.lane_values();
                let i = (0..planted.len() - lv)
                    .find(|&i| (planted[i] - planted[i + lv]).abs() > 0.1)
                    .expect("two different entries");
                planted.swap(i, i + lv);
                // (the tf32 shape with B truncated to tf32: no low parts, one tf32 product)
                let coarse: Vec<f64> = frags.iter().map(|&x| split_as_kernel(x).0).collect();
                // (below N = 3 nearly every entry is exact in tf32: too few low parts to drop; from N = 3 one tf32
                // product is 2.5e-3 … 1.3e-2 off, the split 5.5e-7 … 9.0e-6 at N = 1..10, most of it the operands'
                // rounding to f32)
                let cases = [(&frags, "right"), (&planted, "planted"), (&coarse, "coarse")];
                let tf32_from_3 = shape == MirrorMmaShape::Tf32 && order >= 3;
                for (frags, case) in cases.into_iter().take(if tf32_from_3 { 3 } else { 2 }) {
                    let worst = product_error(&mut rng, &el, &m, &layout, frags);
                    let tolerance = match shape {
                        MirrorMmaShape::F64 => 1e-11,
                        MirrorMmaShape::Tf32 => 2e-5,
                    };
                    match case {
                        "right" => assert!(worst < tolerance, "{shape:?} N = {order}: off by {worst:e}"),
                        "planted" => assert!(
                            worst.is_nan() || worst >= 1e-3,
                            "{shape:?} N = {order}: a planted fragment passed ({worst:e})"
                        ),
                        _ => assert!(worst > 1e-3, "{shape:?} N = {order}: one tf32 product is {worst:e} off"),
                    }
                }
            }
        }
    }

    /// The tf32 kernel's block layout: every (element, column) of a step has its own value; lane 4·g + t finds
    /// A(g, t), A(g + 8, t), A(g, t + 4), A(g + 8, t + 4) in its four; each quarter-warp's 16-byte reads meet
    /// 8 different 16-byte words modulo 8 (no bank conflict); the 32 elements of a group writing one column (two
    /// halves, 128 values apart) meet 16 banks (2-way at most).
    #[test]
    fn the_tf32_blocks_hold_each_lanes_fragment_in_one_word() {
        let mut seen = [false; TF32_BLOCK_VALUES];
        for el in 0..16 {
            for c in 0..8 {
                let at = tf32_value_at(el, c);
                assert!(at < TF32_BLOCK_VALUES && !seen[at], "element {el} column {c}: value {at} taken");
                seen[at] = true;
            }
        }
        for lane in 0..LANES {
            let (g, t) = (lane / 4, lane % 4);
            let p = tf32_lane_position(lane);
            let want = [(g, t), (g + 8, t), (g, t + 4), (g + 8, t + 4)].map(|(el, c)| tf32_value_at(el, c));
            assert_eq!(want, [4 * p, 4 * p + 1, 4 * p + 2, 4 * p + 3], "lane {lane}");
        }
        for quarter in 0..4 {
            let mut words: Vec<usize> = (8 * quarter..8 * quarter + 8).map(|l| tf32_lane_position(l) % 8).collect();
            words.sort_unstable();
            assert_eq!(words, (0..8).collect::<Vec<_>>(), "quarter-warp {quarter}");
        }
        for c in 0..8 {
            let mut per_bank = [0usize; 32];
            for e in 0..32 {
                per_bank[((e >> 4) * TF32_BLOCK_VALUES + tf32_value_at(e & 15, c)) % 32] += 1;
            }
            assert!(per_bank.iter().all(|&n| n <= 2), "column {c}: {per_bank:?}");
        }
    }

    /// The largest difference, over 16 elements of random data, between the kernel's product (emulated lane by lane
    /// from `frags`) and −(Dr·gr + Ds·gs) + LIFT·J from the element's dense matrices; NaN stays NaN.
    fn product_error(
        rng: &mut rand::rngs::StdRng,
        el: &ReferenceTriangle,
        m: &Mirror,
        layout: &MirrorMmaLayout,
        frags: &[f64],
    ) -> f64 {
        let shape = layout.shape;
        let (np, nf, w, lv) = (el.np, 3 * el.nfp, shape.width(), shape.lane_values());
        let mut rand_vec = |n: usize| (0..n).map(|_| rng.random_range(-1.0..1.0)).collect::<Vec<f64>>();
        let elements: Vec<(Vec<f64>, Vec<f64>, Vec<f64>)> =
            (0..16).map(|_| (rand_vec(np), rand_vec(np), rand_vec(nf))).collect();
        // the folded inputs per element: a = gr + gs, b = gr − gs at the representatives' sums and the pairs'
        // differences, and the jumps' sums and differences
        let sum = |x: &[f64], c: usize| x[m.nodes[c]] + x[m.partners[c]];
        let diff = |x: &[f64], c: usize| x[m.nodes[c]] - x[m.partners[c]];
        let input = |e: usize, anti: bool, column: Option<usize>| -> f64 {
            let (gr, gs, _) = &elements[e];
            let a: Vec<f64> = gr.iter().zip(gs).map(|(r, s)| r + s).collect();
            let b: Vec<f64> = gr.iter().zip(gs).map(|(r, s)| r - s).collect();
            match column {
                None => 0.0,
                Some(c) if c < m.reps() => sum(if anti { &b } else { &a }, c),
                Some(c) => diff(if anti { &a } else { &b }, c - m.reps()),
            }
        };
        let jump_input = |e: usize, anti: bool, column: Option<usize>| -> f64 {
            let j = &elements[e].2;
            match column {
                None => 0.0,
                Some(c) if anti => j[m.face_columns[c]] - j[m.face_partners[c]],
                Some(c) => j[m.face_columns[c]] + j[m.face_partners[c]],
            }
        };
        let mut got = vec![vec![f64::NAN; np]; 16];
        // (tile by tile: the symmetric rows' tile and the antisymmetric rows' of the same rows, whichever warps
        // multiply them)
        for wp in 0..layout.sym_tiles {
            let has_anti = wp < layout.anti_tiles;
            let (mut sym, mut anti) = ([[0.0; 4]; 32], [[0.0; 4]; 32]);
            for (sec, steps) in [(0, layout.volume_steps()), (1, layout.face_steps)] {
                for step in 0..steps {
                    for half in [false, true] {
                        if half && !has_anti {
                            continue;
                        }
                        let base = match (sec, half) {
                            (0, false) => 0,
                            (0, true) => layout.anti_volume(),
                            (_, false) => layout.sym_lift(),
                            (_, true) => layout.anti_lift(),
                        };
                        let b: [[f64; 2]; 32] = std::array::from_fn(|l| {
                            let at = base + (wp * steps + step) * layout.step_values() + l * lv;
                            std::array::from_fn(|v| if v < lv { frags[at + v] } else { 0.0 })
                        });
                        let a: [[[f64; 2]; 2]; 32] = std::array::from_fn(|l| {
                            let (g, t) = (l / 4, l % 4);
                            std::array::from_fn(|h| {
                                let k = t + 4 * h;
                                let value = |e: usize| match (k < w, sec) {
                                    (false, _) => 0.0,
                                    (true, 0) => input(e, half, layout.volume_column(step, k)),
                                    (true, _) => jump_input(e, half, layout.face_column(step, k)),
                                };
                                [value(g), value(g + 8)]
                            })
                        });
                        mma(shape, if half { &mut anti } else { &mut sym }, &a, &b);
                    }
                }
            }
            for l in 0..32 {
                let (g, t) = (l / 4, l % 4);
                for j in 0..4 {
                    let (e, r) = (g + 8 * (j / 2), 8 * wp + 2 * t + j % 2);
                    if r >= m.reps() {
                        continue;
                    }
                    let (s, an) = (sym[l][j], if r < m.pairs { anti[l][j] } else { 0.0 });
                    got[e][m.nodes[r]] = s + an;
                    if r < m.pairs {
                        got[e][m.partners[r]] = s - an;
                    }
                }
            }
        }
        let mut worst = 0.0f64;
        for (e, (gr, gs, jump)) in elements.iter().enumerate() {
            let (dgr, dgs, lj) = (dense(&el.dr, gr), dense(&el.ds, gs), dense(&el.lift, jump));
            for i in 0..np {
                let want = -(dgr[i] + dgs[i]) + lj[i];
                let err = (got[e][i] - want).abs() / (1.0 + want.abs());
                worst = if err.is_nan() || err > worst { err } else { worst };
            }
        }
        worst
    }
}
