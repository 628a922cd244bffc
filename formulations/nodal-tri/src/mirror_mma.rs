//! The folded operators ([`crate::mirror`]) in the fragments of the FP64 tensor cores' `mma.m16n8k4.f64`, for the
//! `mmamirror` kernels ([`crate::variant::Partition::MirrorMma`]).
//!
//! The kernel forms the transposed products: a group's 16 elements are the instruction's 16 rows (its A operand,
//! the folded inputs in local memory: lane l = 4·g + t holds A(g, t) and A(g + 8, t), element g and g + 8 at folded
//! column 4·step + t), the folded rows come in tiles of 8 (its B operand, from this buffer: lane l holds B(t, g), the
//! operator's folded row 8·tile + g at folded column 4·step + t) and the accumulators hold C(g, 2t), C(g, 2t + 1),
//! C(g + 8, 2t), C(g + 8, 2t + 1) (elements g and g + 8, folded rows 8·tile + 2t and 8·tile + 2t + 1). A warp owns one
//! row tile of the symmetric rows and the same tile of the antisymmetric rows, so that it writes y_i = sym + anti and
//! y_P(i) = sym − anti from its own registers.
//!
//! Four sections, each `[tile][step][lane]`: the volume operator's symmetric rows (negated: the right-hand side
//! is −∇·F), its antisymmetric rows, the lift's symmetric rows, its antisymmetric rows. A volume step below
//! [`MirrorMmaLayout::sum_steps`] reads the representatives' sums (folded columns 4·step + t < reps), a later one
//! the pairs' differences (column `reps` + 4·(step − sum_steps) + t, for 4·(step − sum_steps) + t < pairs); a lift
//! step the face representatives (4·step + t < face reps). Entries past a section's rows or columns are zero.

use crate::mirror::{Mirror, MirrorError};
use dg_core::triangle::ReferenceTriangle;

/// Lanes of a warp: a fragment holds one f64 per lane.
const LANES: usize = 32;

/// The sizes and offsets of the `mmamirror` kernels' operator fragments at one order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MirrorMmaLayout {
    /// Mirror representatives (pairs, then fixed nodes).
    pub reps: usize,
    /// Pairs among them.
    pub pairs: usize,
    /// Face representatives (the lift's folded columns).
    pub face_reps: usize,
    /// Volume steps over the representatives' sums: ⌈reps / 4⌉.
    pub sum_steps: usize,
    /// Volume steps over the pairs' differences: ⌈pairs / 4⌉.
    pub diff_steps: usize,
    /// Lift steps: ⌈face reps / 4⌉.
    pub face_steps: usize,
    /// Tiles of 8 symmetric rows: ⌈reps / 8⌉ (one warp each).
    pub sym_tiles: usize,
    /// Tiles of 8 antisymmetric rows: ⌈pairs / 8⌉ (the first warps').
    pub anti_tiles: usize,
}

impl MirrorMmaLayout {
    /// The layout at order `order`.
    pub fn at(order: usize) -> Self {
        let reps = Mirror::reps_at(order);
        let pairs = reps - Mirror::fixed_nodes(order);
        let face_reps = Mirror::face_reps_at(order);
        Self {
            reps,
            pairs,
            face_reps,
            sum_steps: reps.div_ceil(4),
            diff_steps: pairs.div_ceil(4),
            face_steps: face_reps.div_ceil(4),
            sym_tiles: reps.div_ceil(8),
            anti_tiles: pairs.div_ceil(8),
        }
    }

    /// Warps per group: one per tile of symmetric rows.
    pub fn warps(&self) -> usize {
        self.sym_tiles
    }

    /// Volume steps of a tile: the sums', then the differences'.
    pub fn volume_steps(&self) -> usize {
        self.sum_steps + self.diff_steps
    }

    /// Where the antisymmetric rows' volume fragments start.
    pub fn anti_volume(&self) -> usize {
        self.sym_tiles * self.volume_steps() * LANES
    }

    /// Where the symmetric rows' lift fragments start.
    pub fn sym_lift(&self) -> usize {
        self.anti_volume() + self.anti_tiles * self.volume_steps() * LANES
    }

    /// Where the antisymmetric rows' lift fragments start.
    pub fn anti_lift(&self) -> usize {
        self.sym_lift() + self.sym_tiles * self.face_steps * LANES
    }

    /// Values in the buffer.
    pub fn len(&self) -> usize {
        self.anti_lift() + self.anti_tiles * self.face_steps * LANES
    }

    /// Whether the buffer is empty (never: every order has a representative).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The folded column a volume step's lane column `t` (0..4) reads: a representative's sum (`c`), a pair's
    /// difference (`reps + c`), or none (padding).
    pub fn volume_column(&self, step: usize, t: usize) -> Option<usize> {
        if step < self.sum_steps {
            let c = 4 * step + t;
            (c < self.reps).then_some(c)
        } else {
            let c = 4 * (step - self.sum_steps) + t;
            (c < self.pairs).then_some(self.reps + c)
        }
    }
}

/// The operator fragments of the `mmamirror` kernels for `element` ([`MirrorMmaLayout`]'s sections and order).
pub fn mirror_mma_fragments(element: &ReferenceTriangle) -> Result<Vec<f64>, MirrorError> {
    let mirror = Mirror::of(element)?;
    let volume = mirror.volume_operator(element)?;
    let lift = mirror.lift_operator(element)?;
    let layout = MirrorMmaLayout::at(element.order);
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
                    let column = if s < 2 {
                        layout.volume_column(step, t)
                    } else {
                        Some(4 * step + t).filter(|&c| c < layout.face_reps)
                    };
                    out.push(match column {
                        Some(c) if rep < rows => sign * matrix[(2 * rep + odd, c)],
                        _ => 0.0,
                    });
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

    /// One `mma.m16n8k4.f64` as the hardware defines it, lane by lane: lane l = 4·g + t gives A(g, t), A(g + 8, t)
    /// (`a[l]`) and B(t, g) (`b[l]`), and receives C(g, 2t), C(g, 2t + 1), C(g + 8, 2t), C(g + 8, 2t + 1) (`c[l]`).
    fn mma(c: &mut [[f64; 4]; 32], a: &[[f64; 2]; 32], b: &[f64; 32]) {
        let (mut am, mut bm) = ([[0.0; 4]; 16], [[0.0; 8]; 4]);
        for l in 0..32 {
            let (g, t) = (l / 4, l % 4);
            am[g][t] = a[l][0];
            am[g + 8][t] = a[l][1];
            bm[t][g] = b[l];
        }
        for (l, cl) in c.iter_mut().enumerate() {
            let (g, t) = (l / 4, l % 4);
            for (j, cj) in cl.iter_mut().enumerate() {
                let (row, col) = (g + 8 * (j / 2), 2 * t + j % 2);
                *cj += (0..4).map(|k| am[row][k] * bm[k][col]).sum::<f64>();
            }
        }
    }

    /// The fragments, multiplied lane by lane as the kernel does (the group's 16 elements' folded inputs as A, each
    /// warp's symmetric and antisymmetric row tiles as B, y_i = sym + anti and y_P(i) = sym − anti from the lanes'
    /// accumulators), give −(Dr·gr + Ds·gs) + LIFT·J of random data for 16 elements at N = 1..10, against the
    /// element's dense matrices; a fragment planted one lane off fails.
    #[test]
    fn the_fragments_reproduce_the_dense_right_hand_side() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(11);
        for order in 1..=10 {
            let el = ReferenceTriangle::new(order).expect("element");
            let m = Mirror::of(&el).expect("mirror");
            let layout = MirrorMmaLayout::at(order);
            assert_eq!((layout.reps, layout.pairs, layout.face_reps), (m.reps(), m.pairs, m.face_columns.len()));
            let frags = mirror_mma_fragments(&el).expect("fragments");
            assert_eq!(frags.len(), layout.len());
            let (np, nf) = (el.np, 3 * el.nfp);
            let mut planted = frags.clone();
            // (an entry swapped with a different one a lane on)
            let i = (0..planted.len() - 1)
                .find(|&i| (planted[i] - planted[i + 1]).abs() > 0.1)
                .expect("two different entries");
            planted.swap(i, i + 1);
            for (frags, planted) in [(&frags, false), (&planted, true)] {
                let mut rand_vec = |n: usize| (0..n).map(|_| rng.random_range(-1.0..1.0)).collect::<Vec<f64>>();
                let elements: Vec<(Vec<f64>, Vec<f64>, Vec<f64>)> =
                    (0..16).map(|_| (rand_vec(np), rand_vec(np), rand_vec(nf))).collect();
                // the folded inputs per element: a = gr + gs, b = gr − gs at the representatives' sums and the
                // pairs' differences, and the jumps' sums and differences
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
                let jump_input = |e: usize, anti: bool, c: usize| -> f64 {
                    let j = &elements[e].2;
                    match c < m.face_columns.len() {
                        false => 0.0,
                        true if anti => j[m.face_columns[c]] - j[m.face_partners[c]],
                        true => j[m.face_columns[c]] + j[m.face_partners[c]],
                    }
                };
                let mut got = vec![vec![f64::NAN; np]; 16];
                for w in 0..layout.warps() {
                    let has_anti = w < layout.anti_tiles;
                    let (mut sym, mut anti) = ([[0.0; 4]; 32], [[0.0; 4]; 32]);
                    for (sec, steps) in [(0, layout.volume_steps()), (1, layout.face_steps)] {
                        for step in 0..steps {
                            for half in [false, true] {
                                if half && !has_anti {
                                    continue;
                                }
                                let (base, tiles_before) = match (sec, half) {
                                    (0, false) => (0, w),
                                    (0, true) => (layout.anti_volume(), w),
                                    (_, false) => (layout.sym_lift(), w),
                                    (_, true) => (layout.anti_lift(), w),
                                };
                                let b: [f64; 32] =
                                    std::array::from_fn(|l| frags[base + (tiles_before * steps + step) * LANES + l]);
                                let a: [[f64; 2]; 32] = std::array::from_fn(|l| {
                                    let (g, t) = (l / 4, l % 4);
                                    let value = |e: usize| match sec {
                                        0 => input(e, half, layout.volume_column(step, t)),
                                        _ => jump_input(e, half, 4 * step + t),
                                    };
                                    [value(g), value(g + 8)]
                                });
                                mma(if half { &mut anti } else { &mut sym }, &a, &b);
                            }
                        }
                    }
                    for l in 0..32 {
                        let (g, t) = (l / 4, l % 4);
                        for j in 0..4 {
                            let (e, r) = (g + 8 * (j / 2), 8 * w + 2 * t + j % 2);
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
                        let err = (got[e][i] - want).abs();
                        worst = if err.is_nan() || err > worst { err } else { worst };
                    }
                }
                match planted {
                    false => assert!(worst < 1e-11, "N = {order}: off by {worst:e}"),
                    true => {
                        assert!(worst.is_nan() || worst >= 1e-6, "N = {order}: a planted fragment passed ({worst:e})")
                    }
                }
            }
        }
    }
}
