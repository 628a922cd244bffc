//! Unit tests of `mirror`: the folded operators against the dense ones (kept outside the hashed source: editing
//! them moves no code fingerprint).

use super::*;
use rand::{Rng, SeedableRng};

fn dense(m: &Matrix, x: &[f64]) -> Vec<f64> {
    (0..m.nrows()).map(|i| (0..m.ncols()).map(|j| m[(i, j)] * x[j]).sum()).collect()
}

fn worst(a: &[f64], b: &[f64]) -> f64 {
    let scale = b.iter().fold(1.0f64, |s, x| s.max(x.abs()));
    a.iter().zip(b).map(|(x, y)| (x - y).abs() / scale).fold(0.0, |w, e| if e > w || e.is_nan() { e } else { w })
}

/// The folded operators, applied the way the mirror kernels apply them (sums and differences of the pairs'
/// values, symmetric and antisymmetric rows, y_i = sym + anti and y_P(i) = sym − anti), give Dr·gr + Ds·gs,
/// Dr·q, Ds·q and LIFT·J of random data at every order, compared with the element's dense matrices.
#[test]
fn the_folded_operators_reproduce_the_dense_products() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    for order in 1..=10 {
        let el = ReferenceTriangle::new(order).expect("element");
        let m = Mirror::of(&el).expect("mirror");
        assert_eq!(m.reps(), Mirror::reps_at(order), "N = {order}");
        assert_eq!(m.nodes.len() - m.pairs, Mirror::fixed_nodes(order), "N = {order}");
        assert_eq!(m.face_columns.len(), Mirror::face_reps_at(order), "N = {order}");
        let fv = m.volume_operator(&el).expect("volume");
        let fl = m.lift_operator(&el).expect("lift");
        let (np, nf, reps) = (el.np, 3 * el.nfp, m.reps());
        let mut rand_vec = |n: usize| (0..n).map(|_| rng.random_range(-1.0..1.0)).collect::<Vec<f64>>();
        let (gr, gs, q, jump) = (rand_vec(np), rand_vec(np), rand_vec(np), rand_vec(nf));
        let (a, b): (Vec<f64>, Vec<f64>) = gr.iter().zip(&gs).map(|(r, s)| (r + s, r - s)).unzip();
        let sum = |x: &[f64], c: usize| x[m.nodes[c]] + x[m.partners[c]];
        let diff = |x: &[f64], c: usize| x[m.nodes[c]] - x[m.partners[c]];
        let (mut div, mut dr, mut ds, mut lift) = (vec![0.0; np], vec![0.0; np], vec![0.0; np], vec![0.0; np]);
        for r in 0..reps {
            let (mut div_s, mut div_a, mut x_s, mut x_a, mut y_s, mut y_a) = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
            for c in 0..reps {
                div_s += fv[(2 * r, c)] * sum(&a, c);
                div_a += fv[(2 * r + 1, c)] * sum(&b, c);
                x_s += fv[(2 * r, c)] * sum(&q, c);
                x_a += fv[(2 * r + 1, c)] * sum(&q, c);
            }
            for c in 0..m.pairs {
                div_s += fv[(2 * r, reps + c)] * diff(&b, c);
                div_a += fv[(2 * r + 1, reps + c)] * diff(&a, c);
                y_s += fv[(2 * r, reps + c)] * diff(&q, c);
                y_a += fv[(2 * r + 1, reps + c)] * diff(&q, c);
            }
            // Dr·q = X + Y; Ds·q = X − Y on symmetric rows, Y − X on antisymmetric ones
            let (dr_s, dr_a, ds_s, ds_a) = (x_s + y_s, x_a + y_a, x_s - y_s, y_a - x_a);
            let (mut l_s, mut l_a) = (0.0, 0.0);
            for (c, (&f, &g)) in m.face_columns.iter().zip(&m.face_partners).enumerate() {
                l_s += fl[(2 * r, c)] * (jump[f] + jump[g]);
                l_a += fl[(2 * r + 1, c)] * (jump[f] - jump[g]);
            }
            let (i, h) = (m.nodes[r], m.partners[r]);
            for (out, s, an) in
                [(&mut div, div_s, div_a), (&mut dr, dr_s, dr_a), (&mut ds, ds_s, ds_a), (&mut lift, l_s, l_a)]
            {
                out[i] = s + an;
                if h != i {
                    out[h] = s - an;
                }
            }
        }
        let want_div: Vec<f64> = dense(&el.dr, &gr).iter().zip(dense(&el.ds, &gs)).map(|(x, y)| x + y).collect();
        for (name, got, want) in [
            ("Dr·gr + Ds·gs", &div, want_div),
            ("Dr·q", &dr, dense(&el.dr, &q)),
            ("Ds·q", &ds, dense(&el.ds, &q)),
            ("LIFT·J", &lift, dense(&el.lift, &jump)),
        ] {
            let e = worst(got, &want);
            assert!(e < 1e-12, "N = {order}: {name} off by {e:e}");
        }
    }
}

/// The balanced and the segregated shares keep every folded row that can be nonzero exactly once (every pair's
/// two rows, every fixed node's symmetric row) and no fixed node's antisymmetric row, each within its work item's
/// block; at N = 8 with five balanced work items, 45 rows for 45 values, and at N = 7 with five segregated ones,
/// four work items of eight rows and one of four.
#[test]
fn the_shared_rows_keep_each_nonzero_row_once() {
    for order in 1..=10 {
        let el = ReferenceTriangle::new(order).expect("element");
        let m = Mirror::of(&el).expect("mirror");
        for threads in 1..=8 {
            for width in [1, 2, 4] {
                for share in [RowShare::balanced(order, threads, width), RowShare::segregated(order, threads, width)] {
                    let rows = kernel_rows(&m, Some(share), share.covered_rows() + 3);
                    let mut kept: Vec<usize> = rows.iter().flatten().copied().collect();
                    kept.sort_unstable();
                    let want: Vec<usize> = (0..2 * m.reps()).filter(|&i| i % 2 == 0 || i / 2 < m.pairs).collect();
                    assert_eq!(kept, want, "N = {order}, {threads} work items, width {width}: {share:?}");
                    for c in share.active() {
                        assert_eq!(c.item_rows % width, 0);
                        for (i, row) in rows.iter().enumerate().skip(c.base).take(c.items * c.item_rows) {
                            if row.is_some() {
                                assert!((i - c.base) % c.item_rows < c.rows(), "N = {order}: row {i} past its share");
                            }
                        }
                    }
                }
            }
        }
    }
    let b = RowShare::balanced(8, 5, 1);
    assert_eq!((b.classes[0].pairs, b.classes[0].fixed, b.rows()), (4, 1, 9));
    assert!(!b.is_idle(8, 4) && b.is_idle(8, 5));
    assert!(RowShare::balanced(1, 3, 1).is_idle(1, 2));
    let s = RowShare::segregated(7, 5, 4);
    assert_eq!(
        s.active().map(|c| (c.items, c.pairs, c.fixed, c.item_rows)).collect::<Vec<_>>(),
        [(4, 4, 0, 8), (1, 0, 4, 4)]
    );
    assert_eq!((s.rows(), s.covered_rows()), (8, 36));
    assert!((0..5).all(|i| !s.is_idle(7, i)));
    // N = 7 over nine work items: eight share 16 pairs, two each, and the ninth takes the four fixed nodes
    assert!(!RowShare::segregated(7, 9, 1).is_idle(7, 8));
    // over eighteen, the seventeenth has no pair left
    assert!(RowShare::segregated(7, 18, 1).is_idle(7, 16));
}

/// The folding refuses an operator without the symmetry: Dr alone does not commute with the mirror.
#[test]
fn an_operator_without_the_symmetry_is_refused() {
    let mut el = ReferenceTriangle::new(5).expect("element");
    let m = Mirror::of(&el).expect("mirror");
    el.ds = el.dr.clone();
    assert!(matches!(m.volume_operator(&el), Err(MirrorError::NotSymmetric { .. })));
    let mut el = ReferenceTriangle::new(4).expect("element");
    el.lift[(0, 0)] += 0.5;
    let m4 = Mirror::of(&el).expect("mirror");
    assert!(matches!(m4.lift_operator(&el), Err(MirrorError::NotSymmetric { .. })));
    // a NaN anywhere in an operator is refused, not dropped by a maximum
    let mut el = ReferenceTriangle::new(3).expect("element");
    let m3 = Mirror::of(&el).expect("mirror");
    el.dr[(1, 2)] = f64::NAN;
    assert!(matches!(m3.volume_operator(&el), Err(MirrorError::NotSymmetric { .. })));
}
