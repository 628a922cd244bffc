//! The modal mma surface without a GPU: its uploaded fragments multiplied lane by lane with the PTX fragment maps
//! and the kernel's operand layout (`templates/modal-tri/modal_mma.tera`), and its rules.
use dg_codegen::program::{LawInput, RenderError, Target};
use dg_codegen::DeviceLimits;
use dg_core::triangle::ModalTriangle;
use dg_modal_tri::render::{check_modal, mma_fragments, modal_table, render_modal, MmaShape};
use dg_modal_tri::ModalVariant;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// Euler's shape: four variables, a conservative flux.
const EULER: dg_modal_tri::ModalLawShape = dg_modal_tri::ModalLawShape { nvars: 4, conservative_flux: true };

/// One `mma.sync.m8n8k4.f64` as the PTX fragment maps define it, lane by lane: A(l / 4, l % 4) in `a[l]`,
/// B(l % 4, l / 4) in `b[l]`, C(l / 4, 2·(l % 4) + h) in `c[l][h]`.
fn mma_m8n8k4(c: &mut [[f64; 2]; 32], a: &[f64], b: &[f64]) {
    for (lane, out) in c.iter_mut().enumerate() {
        for (h, value) in out.iter_mut().enumerate() {
            let (row, col) = (lane / 4, 2 * (lane % 4) + h);
            *value += (0..4).map(|kk| a[row * 4 + kk] * b[col * 4 + kk]).sum::<f64>();
        }
    }
}

/// The template's B index: row r of column `col` of an operand of `steps` steps (`MMA_FRAG`).
fn frag(col: usize, r: usize, steps: usize) -> usize {
    ((col / 8) * steps + r / 4) * 32 + (col % 8) * 4 + r % 4
}

/// `used` random columns of `rows` values each and their B operand of `steps` steps in the template's layout (zero
/// padding rows, `cols` columns).
fn random_operand(rng: &mut StdRng, used: usize, rows: usize, steps: usize, cols: usize) -> (Vec<f64>, Vec<f64>) {
    let values: Vec<f64> = (0..used * rows).map(|_| rng.random_range(-1.0..1.0)).collect();
    let mut b = vec![0.0; cols * 4 * steps];
    for col in 0..used {
        for r in 0..rows {
            b[frag(col, r, steps)] = values[col * rows + r];
        }
    }
    (values, b)
}

/// Multiplies fragments as the kernel's warps do: A's (row tile, step) fragments times B in fragment order,
/// the result row-major with `8 · column tiles` columns.
fn product(a: &[f64], rows: usize, steps: usize, b: &[f64], tiles: usize) -> Vec<f64> {
    let cols = 8 * tiles;
    let mut out = vec![f64::NAN; 8 * rows * cols];
    for r in 0..rows {
        for n in 0..tiles {
            let mut c = [[0.0; 2]; 32];
            for s in 0..steps {
                let lanes_a = &a[(r * steps + s) * 32..][..32];
                let lanes_b = &b[(n * steps + s) * 32..][..32];
                // mma_m8n8k4 reads A(l / 4, l % 4) at a[l] and B(l % 4, l / 4) at b[l]
                mma_m8n8k4(&mut c, lanes_a, lanes_b);
            }
            for (lane, pair) in c.iter().enumerate() {
                for (h, &v) in pair.iter().enumerate() {
                    out[(8 * r + lane / 4) * cols + 8 * n + 2 * (lane % 4) + h] = v;
                }
            }
        }
    }
    out
}

/// The uploaded fragments, multiplied lane by lane with the PTX maps and the template's B layout, give the
/// traces at every point and the weak-form right-hand side that the element's own matrices give (φ, ∂φ, the
/// weights and the edge bases of `ModalTriangle`, not the table), for p = 1..5 and three group sizes.
#[test]
fn the_mma_fragments_multiply_to_the_element_operators() {
    let mut rng = StdRng::seed_from_u64(7);
    for order in 1..=5 {
        let el = ModalTriangle::new(order).unwrap();
        let (nq, nm, ng) = (el.volume.w.len(), el.nmodes, el.edge.points.len());
        for group in [64, 128, 256] {
            let nv = 4;
            let shape = MmaShape::of(&el, nv, group);
            let (a1, a2) = mma_fragments(&el, &shape, &modal_table(&el));
            let cols = 8 * shape.column_tiles;
            // one warp: 8 elements, column tile v = variable v
            let used = nv * 8;
            // B1: random coefficients
            let (coeff, b1) = random_operand(&mut rng, used, nm, shape.steps1, cols);
            let u = product(&a1, shape.rows1, shape.steps1, &b1, shape.column_tiles);
            for col in 0..used {
                let c = &coeff[col * nm..][..nm];
                for i in 0..nq {
                    let want: f64 = (0..nm).map(|j| el.phi[(i, j)] * c[j]).sum();
                    assert!((u[i * cols + col] - want).abs() < 1e-12, "p={order} U({i},{col})");
                }
                for f in 0..3 {
                    for g in 0..ng {
                        let want: f64 = (0..nm).map(|j| el.phi_edge[f][(g, j)] * c[j]).sum();
                        let got = u[(shape.edge_row + f * ng + g) * cols + col];
                        assert!((got - want).abs() < 1e-12, "p={order} edge U({f},{g},{col})");
                    }
                }
            }
            // B2: random fluxes at the points
            let k2 = 2 * nq + 3 * ng;
            let (flux, b2) = random_operand(&mut rng, used, k2, shape.steps2, cols);
            let out = product(&a2, shape.rows2, shape.steps2, &b2, shape.column_tiles);
            for col in 0..used {
                let fl = &flux[col * k2..][..k2];
                for j in 0..nm {
                    let volume: f64 = (0..nq)
                        .map(|i| el.volume.w[i] * (el.phi_r[(i, j)] * fl[i] + el.phi_s[(i, j)] * fl[nq + i]))
                        .sum();
                    let edges: f64 = (0..3 * ng)
                        .map(|pe| el.edge.weights[pe % ng] * el.phi_edge[pe / ng][(pe % ng, j)] * fl[2 * nq + pe])
                        .sum();
                    let got = out[j * cols + col];
                    assert!((got - (volume + edges)).abs() < 1e-12, "p={order} R({j},{col}): {got}");
                }
            }
        }
    }
}

/// The mma surface is refused where its instructions or its memory are not there, with the reason.
#[test]
fn the_mma_rules_refuse_what_cannot_run() {
    let el = ModalTriangle::new(4).unwrap();
    let gpu = DeviceLimits {
        local_memory: 48 * 1024,
        max_work_group: 1024,
        tensor_cores: true,
        f64_mma_m16: true,
        blas: false,
        async_copies: true,
    };
    let ok: ModalVariant = "modal/wg128/mma/const/mode-major/f64".parse().unwrap();
    assert!(check_modal(&ok, &el, &EULER, &gpu).is_ok());
    let no_tc = DeviceLimits { tensor_cores: false, ..gpu };
    assert!(check_modal(&ok, &el, &EULER, &no_tc).unwrap_err().to_string().contains("tensor cores"));
    for bad in [
        "modal/wg128/mma/const/mode-major/f32",
        "modal/wg128/mma/const/elem-major/f64",
        "modal/wg128/mma/const/tiled/f64",
        "modal/wg128/mma/shared/mode-major/f64",
    ] {
        let v: ModalVariant = bad.parse().unwrap();
        assert!(check_modal(&v, &el, &EULER, &gpu).is_err(), "{bad}");
    }
    // eight warps' B2 at p = 4: beyond 48 KiB
    let big: ModalVariant = "modal/wg256/mma/const/mode-major/f64".parse().unwrap();
    assert!(check_modal(&big, &el, &EULER, &gpu).unwrap_err().to_string().contains("local memory"));
    // and OpenCL cannot have it at all
    let law = dg_laws::euler2d::Law::default();
    let ir = dg_runtime::formulation::law_ir(&law).unwrap();
    let params = dg_core::law::ConservationLaw::param_values(&law);
    let input = LawInput { ir: &ir, params: &params, numerical_flux: "hllc_flux" };
    let err = render_modal(&input, &el, &ok, Target::OpenCl).unwrap_err();
    assert!(matches!(err, RenderError::Variant(_)), "{err}");
}
