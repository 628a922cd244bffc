//! Unit tests of `device`: the layouts' offsets and strides, the neighbour links, the tensor-core fragments (kept
//! outside the hashed source: editing them moves no code fingerprint).

use super::{
    field_stride, kernel_variable_stride, mma_fragments, neighbour_links, node_offset, value_at, value_offset,
};
use crate::render::{closed_face_node, render_nodal_tri};
use crate::variant::{Layout, Precision, Variant};
use dg_codegen::{LawInput, Target};
use dg_core::law::ConservationLaw;
use dg_core::triangle::ReferenceTriangle;

#[test]
fn the_faces_links_reach_every_neighbour_node_of_vmap_p() {
    use dg_core::mesh::{rectangle, Diagonal, RectangleSpec};
    for (order, diagonal, periodic) in
        [(1, Diagonal::Right, false), (4, Diagonal::Left, true), (7, Diagonal::Alternating, true)]
    {
        let spec = RectangleSpec {
            nx: 5,
            ny: 4,
            diagonal,
            periodic_x: periodic,
            periodic_y: periodic,
            ..RectangleSpec::unit_square(5)
        };
        let space = dg_core::space::DgSpace2d::new(rectangle(&spec).expect("mesh"), order).expect("space");
        let (np, nfp) = (space.element.np, space.element.nfp);
        // each boundary face's condition: its tag plus 3, so that no code equals its tag by accident
        let codes: Vec<i32> = space.face_tag.iter().map(|t| t.map_or(-1, |tag| tag as i32 + 3)).collect();
        let links = neighbour_links(&space, &codes).expect("a conforming mesh's faces meet node for node");
        let (mut reversed, mut boundary) = ([0usize; 2], 0);
        for (face, &l) in links.iter().enumerate() {
            let (e, f) = (face / 3, face % 3);
            if let dg_core::mesh::FaceLink::Boundary { tag } = space.connectivity.links[e][f] {
                // a boundary face carries its condition c as −(c + 1)
                assert_eq!(l, -(tag as i32 + 3) - 1, "N={order} element {e} face {f}");
                boundary += 1;
                continue;
            }
            assert!(l >= 0, "N={order} element {e} face {f}: interior link {l}");
            let l = l as usize;
            let (e2, f2, rev) = (l >> 3, (l >> 1) & 3, l & 1);
            for i in 0..nfp {
                let node = e2 * np + closed_face_node(nfp, f2, if rev == 1 { nfp - 1 - i } else { i });
                assert_eq!(
                    node,
                    space.vmap_p[(3 * e + f) * nfp + i],
                    "N={order} element {e} face {f} node {i}: link {l} ({e2}, {f2}, {rev}), vmap_p {:?}",
                    &space.vmap_p[(3 * e + f) * nfp..(3 * e + f + 1) * nfp]
                );
            }
            reversed[rev] += 1;
        }
        // both orientations occur (face 2's mask runs against the others'), so both branches were checked
        assert!(reversed[0] > 0 && reversed[1] > 0, "N={order}: {reversed:?}");
        assert_eq!(boundary, if periodic { 0 } else { 2 * (spec.nx + spec.ny) }, "N={order}");
    }
}

#[test]
fn a_face_that_meets_its_neighbour_in_neither_order_is_refused() {
    use dg_core::mesh::{rectangle, RectangleSpec};
    let mut space =
        dg_core::space::DgSpace2d::new(rectangle(&RectangleSpec::unit_square(3)).expect("mesh"), 3).expect("space");
    let nfp = space.element.nfp;
    // an interior face: swap two of its middle nodes' neighbours (neither order of the neighbour's face then)
    let face = (0..space.vmap_p.len() / nfp)
        .find(|&f| space.vmap_p[f * nfp] != space.vmap_m[f * nfp])
        .expect("an interior face");
    space.vmap_p.swap(face * nfp + 1, face * nfp + 2);
    let codes: Vec<i32> = space.face_tag.iter().map(|t| t.map_or(-1, |_| 0)).collect();
    let err = neighbour_links(&space, &codes).expect_err("refused");
    assert!(err.to_string().contains("does not meet face"), "{err}");
}

#[test]
fn a_boundary_face_without_a_condition_is_refused() {
    use dg_core::mesh::{rectangle, RectangleSpec};
    let space =
        dg_core::space::DgSpace2d::new(rectangle(&RectangleSpec::unit_square(3)).expect("mesh"), 2).expect("space");
    let mut codes: Vec<i32> = space.face_tag.iter().map(|t| t.map_or(-1, |_| 1)).collect();
    assert!(neighbour_links(&space, &codes).is_ok());
    let face = space.face_tag.iter().position(Option::is_some).expect("a boundary face");
    codes[face] = -1;
    let err = neighbour_links(&space, &codes).expect_err("refused");
    assert!(err.to_string().contains("has no boundary condition"), "{err}");
}

#[test]
fn every_stored_node_is_found_again_and_padding_holds_none() {
    let law = dg_laws::MaxwellTm::default();
    let ir = dg_runtime::formulation::law_ir(&law).expect("the law lowers");
    let params = law.param_values();
    let input = LawInput { ir: &ir, params: &params, numerical_flux: law.numerical_flux_name() };
    let tiled: Variant = "elem/wg32/seq1/matrix-local/merged/tiled/f32".parse().expect("a tiled variant");
    for layout in [Layout::ElementMajor, Layout::NodeMajor, Layout::Tiled] {
        // (the first listed variant of the layout that OpenCL C renders: the tensor-core kernels are CUDA C)
        let opencl = |v: &Variant| {
            let element = ReferenceTriangle::new(1).expect("element");
            render_nodal_tri(&input, &element, v, Target::OpenCl).is_ok()
        };
        let variant =
            Variant::all(Precision::F32).into_iter().find(|v| v.layout == layout && opencl(v)).unwrap_or(tiled);
        for order in [1, 4, 7] {
            let element = ReferenceTriangle::new(order).expect("element");
            let source = render_nodal_tri(&input, &element, &variant, Target::OpenCl).expect("renders");
            let k = 1013;
            let fs = field_stride(&source, k);
            let nv = source.nvars;
            let mut seen = vec![false; nv * fs];
            for e in 0..k {
                for i in 0..element.np {
                    for v in 0..nv {
                        let o = value_offset(&source, v, e, i, fs);
                        assert_eq!(value_at(&source, o, k, fs), Some((v, e, i)), "{variant} N={order}");
                        assert!(!std::mem::replace(&mut seen[o], true), "offset {o} stored twice");
                    }
                    // what the kernels add: v · (their variable stride) + NODE_OFF
                    let stride = kernel_variable_stride(&source, fs);
                    assert_eq!(
                        value_offset(&source, nv - 1, e, i, fs),
                        (nv - 1) * stride + node_offset(&source, e, i, fs),
                        "{variant} N={order}"
                    );
                }
            }
            let padding = (0..nv * fs).filter(|&o| !seen[o]).collect::<Vec<_>>();
            assert!(padding.iter().all(|&o| value_at(&source, o, k, fs).is_none()), "{variant} N={order}");
            assert_eq!(nv * fs - padding.len(), nv * k * element.np);
        }
    }
}

/// The tile kernels' operator: the 4-vector at pair p of column j (what `TILE_PAIR(j, p)` reads) is
/// Dr(2p, j), Dr(2p + 1, j), Ds(2p, j), Ds(2p + 1, j), zero past the last node; then LIFT's columns of `stride`.
#[test]
fn tile_matrices_interleave_dr_and_ds_in_pairs_of_rows_then_hold_lift() {
    use super::tile_matrices;
    for order in [1, 4, 7, 8] {
        let el = ReferenceTriangle::new(order).expect("element");
        let (np, nf, stride) = (el.np, 3 * el.nfp, el.np.next_multiple_of(16));
        let tiled: Vec<f64> = tile_matrices(&el, stride);
        assert_eq!(tiled.len(), (2 * np + nf) * stride, "N={order}");
        let entry = |m: &dg_core::matrix::Matrix, i: usize, j: usize| if i < np { m[(i, j)] } else { 0.0 };
        for j in 0..np {
            for p in 0..stride / 2 {
                let at = j * 2 * stride + 4 * p;
                let expected = [
                    entry(&el.dr, 2 * p, j),
                    entry(&el.dr, 2 * p + 1, j),
                    entry(&el.ds, 2 * p, j),
                    entry(&el.ds, 2 * p + 1, j),
                ];
                assert_eq!(tiled[at..at + 4], expected, "N={order} column {j} pair {p}");
            }
        }
        for j in 0..nf {
            for i in 0..stride {
                assert_eq!(tiled[2 * np * stride + j * stride + i], entry(&el.lift, i, j), "N={order} LIFT ({i}, {j})");
            }
        }
    }
}

/// B of the mma kernels' tests: 8 columns (elements), `rows` rows (r-fluxes, s-fluxes, face jumps), random in the
/// first `filled`, zero padding after.
fn random_columns<T: dg_core::Real>(rng: &mut rand::rngs::StdRng, rows: usize, filled: usize) -> Vec<[T; 8]> {
    use rand::Rng;
    (0..rows)
        .map(|r| std::array::from_fn(|_| T::from_f64(if r < filled { rng.random_range(-1.0..1.0) } else { 0.0 })))
        .collect()
}

/// The f32 mma kernel's product, emulated with the PTX fragment maps of `mma.m16n8k8.tf32` (g = l / 4, t = l % 4;
/// A: lane l holds a_j = (g + 8·(j % 2), t + 4·(j / 2)); B: b_h = (t + 4·h, g); C: c_j = (g + 8·(j / 2), 2·t + j % 2))
/// and the kernel's three products of tf32 parts (B split as the kernel splits it), equals −Dr·Gr − Ds·Gs + LIFT·J
/// to f32 accuracy; one tf32 product alone does not (the split is what keeps the accuracy).
#[test]
fn tf32_fragments_multiply_to_the_strong_form_operator_to_f32_accuracy() {
    use dg_codegen::tensor_cores::tf32_round;
    use rand::SeedableRng;
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    for order in [1, 2, 5, 8] {
        let el = ReferenceTriangle::new(order).expect("element");
        let (np, nf) = (el.np, 3 * el.nfp);
        let (mtiles, ksteps) = (np.div_ceil(16), (2 * np + nf).div_ceil(8));
        let frag: Vec<f32> = mma_fragments(&el, crate::render::mma_shape(Precision::F32), false);
        assert_eq!(frag.len(), mtiles * ksteps * 32 * 8);
        let g: Vec<[f32; 8]> = random_columns(&mut rng, 8 * ksteps, 2 * np + nf);
        let (mut worst_split, mut worst_single) = (0.0f64, 0.0f64);
        for tile in 0..mtiles {
            // per lane: the split sum and a single tf32 product, c_j for j = 0..3
            let mut c = [[0.0f64; 4]; 32];
            let mut single = [[0.0f64; 4]; 32];
            for step in 0..ksteps {
                let at = |l: usize, j: usize| frag[((tile * ksteps + step) * 32 + l) * 8 + j] as f64;
                // the warp's A tile from the lanes' fragments, B's split as the kernel's cvt.rna does
                let mut a_hi = [[0.0f64; 8]; 16];
                let mut a_lo = [[0.0f64; 8]; 16];
                let mut b_hi = [[0.0f64; 8]; 8];
                let mut b_lo = [[0.0f64; 8]; 8];
                for l in 0..32 {
                    let (gr, t) = (l / 4, l % 4);
                    for j in 0..4 {
                        let (row, col) = (gr + 8 * (j % 2), t + 4 * (j / 2));
                        a_hi[row][col] = at(l, j);
                        a_lo[row][col] = at(l, 4 + j);
                    }
                    for h in 0..2 {
                        let (k, n) = (t + 4 * h, gr);
                        let b = g[8 * step + k][n];
                        let hi = tf32_round(b);
                        b_hi[k][n] = hi as f64;
                        b_lo[k][n] = tf32_round(b - hi) as f64;
                    }
                }
                for (l, (acc, one)) in c.iter_mut().zip(single.iter_mut()).enumerate() {
                    for j in 0..4 {
                        let (row, col) = (l / 4 + 8 * (j / 2), 2 * (l % 4) + j % 2);
                        acc[j] += (0..8)
                            .map(|k| {
                                a_lo[row][k] * b_hi[k][col] + a_hi[row][k] * b_lo[k][col] + a_hi[row][k] * b_hi[k][col]
                            })
                            .sum::<f64>();
                        one[j] += (0..8).map(|k| a_hi[row][k] * b_hi[k][col]).sum::<f64>();
                    }
                }
            }
            for l in 0..32 {
                for j in 0..4 {
                    let i = 16 * tile + l / 4 + 8 * (j / 2);
                    let e = 2 * (l % 4) + j % 2;
                    let (expected, scale) = if i < np {
                        let terms: Vec<f64> = (0..np)
                            .flat_map(|m| [-el.dr[(i, m)] * g[m][e] as f64, -el.ds[(i, m)] * g[np + m][e] as f64])
                            .chain((0..nf).map(|m| el.lift[(i, m)] * g[2 * np + m][e] as f64))
                            .collect();
                        (terms.iter().sum::<f64>(), terms.iter().map(|x| x.abs()).sum::<f64>())
                    } else {
                        (0.0, 1.0)
                    };
                    let split = (c[l][j] - expected).abs() / scale;
                    assert!(split <= 1e-6, "N={order} i={i} e={e}: {split:e} of the terms' magnitude");
                    worst_split = worst_split.max(split);
                    worst_single = worst_single.max((single[l][j] - expected).abs() / scale);
                }
            }
        }
        assert!(worst_single > 1e-5, "N={order}: one tf32 product is {worst_single:e} off, split {worst_split:e}");
    }
}

/// The f64 mma kernels' products, emulated lane by lane with the PTX fragment maps (g = l / 4, t = l % 4) of
/// `mma.m8n8k4.f64` (A: lane l holds (g, t); B: (t, g); C: (g, 2·t + h)) and of `mma.m16n8k4.f64` (A: (g + 8·j, t)
/// for j = 0, 1; B: (t, g); C: (g + 8·(j / 2), 2·t + j % 2)), equal −Dr·Gr − Ds·Gs + LIFT·J: the fragments hold
/// the operator where each instruction expects it, padding included.
#[test]
fn mma_fragments_multiply_to_the_strong_form_operator() {
    use rand::SeedableRng;
    let mut rng = rand::rngs::StdRng::seed_from_u64(5);
    let shapes = [
        (crate::render::mma_shape(Precision::F64), false),
        (crate::render::MMA16_SHAPE, false),
        (crate::render::MMA16_SHAPE, true),
    ];
    for (shape, sections) in shapes {
        let (rows, depth) = shape;
        let halves = rows / 8;
        for order in [1, 2, 5, 6, 7, 8] {
            let el = ReferenceTriangle::new(order).expect("element");
            let (np, nf) = (el.np, 3 * el.nfp);
            // B's rows: the r-fluxes, the s-fluxes and the jumps, each block padded to whole steps with sections
            let (node_rows, face_rows) =
                if sections { (np.next_multiple_of(depth), nf.next_multiple_of(depth)) } else { (np, nf) };
            let (mtiles, ksteps) = (np.div_ceil(rows), (2 * node_rows + face_rows).div_ceil(depth));
            let frag: Vec<f64> = mma_fragments(&el, shape, sections);
            assert_eq!(frag.len(), mtiles * ksteps * 32 * halves);
            let g: Vec<[f64; 8]> = random_columns(&mut rng, depth * ksteps, depth * ksteps);
            for tile in 0..mtiles {
                // lane l's accumulators: C(g + 8·(j / 2), 2·t + j % 2)
                let mut c = vec![[0.0f64; 4]; 32];
                for step in 0..ksteps {
                    // the warp's A tile from the lanes' fragments, B's values, then D = A·B + C over the warp
                    let mut a = vec![[0.0f64; 4]; rows];
                    for l in 0..32 {
                        for j in 0..halves {
                            a[l / 4 + 8 * j][l % 4] = frag[((tile * ksteps + step) * 32 + l) * halves + j];
                        }
                    }
                    let b = |k: usize, n: usize| g[depth * step + k][n];
                    for (l, acc) in c.iter_mut().enumerate() {
                        for (j, value) in acc.iter_mut().enumerate().take(2 * halves) {
                            let (row, col) = (l / 4 + 8 * (j / 2), 2 * (l % 4) + j % 2);
                            *value += (0..4).map(|kk| a[row][kk] * b(kk, col)).sum::<f64>();
                        }
                    }
                }
                for (l, acc) in c.iter().enumerate() {
                    for (j, value) in acc.iter().enumerate().take(2 * halves) {
                        let (i, e) = (rows * tile + l / 4 + 8 * (j / 2), 2 * (l % 4) + j % 2);
                        let expected = if i < np {
                            (0..np).map(|m| -el.dr[(i, m)] * g[m][e] - el.ds[(i, m)] * g[node_rows + m][e]).sum::<f64>()
                                + (0..nf).map(|m| el.lift[(i, m)] * g[2 * node_rows + m][e]).sum::<f64>()
                        } else {
                            0.0
                        };
                        assert!(
                            (value - expected).abs() <= 1e-12 * (1.0 + expected.abs()),
                            "{rows}-row tiles (sections: {sections}) N={order} i={i} e={e}"
                        );
                    }
                }
            }
        }
    }
}
