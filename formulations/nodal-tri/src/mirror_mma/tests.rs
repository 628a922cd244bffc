//! Unit tests of `mirror_mma`: the tensor-core fragments multiplied lane by lane (kept outside the hashed source:
//! editing them moves no code fingerprint).

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
