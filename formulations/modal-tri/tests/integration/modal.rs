//! The modal (seed 001) CPU operator: free-stream preservation, conservation on a periodic mesh, invariance under
//! renumbering the elements, and convergence of the operator to the exact divergence.

use dg_core::law::ConservationLaw;
use dg_core::mesh::{perturb_interior, rectangle, Diagonal, RectangleSpec, TriMesh};
use dg_core::space::DgSpace2d;
use dg_core::triangle::ModalTriangle;
use dg_modal_tri::cpu::ModalOperator2d;
use dg_runtime::cpu::BoundaryBinding;
use rand::{Rng, SeedableRng};
use std::collections::HashMap;

fn periodic_mesh(n: usize, perturb: f64) -> TriMesh {
    let mut mesh = rectangle(&RectangleSpec {
        periodic_x: true,
        periodic_y: true,
        diagonal: Diagonal::Alternating,
        ..RectangleSpec::unit_square(n)
    })
    .unwrap();
    if perturb > 0.0 {
        perturb_interior(&mut mesh, perturb, 3);
    }
    mesh
}

fn operator<L: ConservationLaw>(law: L, mesh: TriMesh, p: usize) -> (ModalOperator2d<L, f64>, DgSpace2d) {
    let space = DgSpace2d::new(mesh, 1).unwrap();
    let binding = BoundaryBinding::for_law(&law, &space, &HashMap::new()).unwrap();
    let op = ModalOperator2d::new(law, ModalTriangle::new(p).unwrap(), &space, &binding, &[]);
    (op, space)
}

/// A random gas state per element and mode: density and pressure stay positive at every point.
fn random_euler_state(op: &ModalOperator2d<dg_laws::euler2d::Law, f64>, seed: u64) -> Vec<f64> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut q = op.project(|_, _, out| {
        out.copy_from_slice(&[1.0, 0.2, -0.1, 2.5]);
    });
    for v in q.iter_mut() {
        *v += 0.02 * rng.random_range(-1.0..1.0);
    }
    q
}

#[test]
fn a_uniform_flow_has_a_zero_right_hand_side() {
    for p in 1..=5 {
        let (op, _) = operator(dg_laws::euler2d::Law::default(), periodic_mesh(5, 0.2), p);
        let q = op.project(|_, _, out| out.copy_from_slice(&[1.3, 0.4, -0.7, 3.1]));
        let mut rhs = vec![f64::NAN; q.len()];
        op.apply(&q, 0.0, &mut rhs);
        let worst = rhs.iter().fold(0.0f64, |m, v| dg_core::max_or_nan(m, v.abs()));
        assert!(worst < 1e-11, "p={p}: |rhs| = {worst}");
    }
}

#[test]
fn mass_momentum_and_energy_are_conserved_on_a_periodic_mesh() {
    let phi0 = 1.0 / 2f64.sqrt(); // the constant mode of the orthonormal basis on the reference triangle
    for p in 1..=4 {
        let (op, space) = operator(dg_laws::euler2d::Law::default(), periodic_mesh(6, 0.25), p);
        let q = random_euler_state(&op, p as u64);
        let mut rhs = vec![f64::NAN; q.len()];
        op.apply(&q, 0.0, &mut rhs);
        let nm = op.element().nmodes;
        for v in 0..4 {
            // d/dt ∫ u_v = Σ_k J_k · dU_{k,v,0}/dt · φ0 · (reference area factor folded into J)
            let (mut total, mut scale) = (0.0, 0.0);
            for k in 0..space.num_elements() {
                let term = space.geometry[k].j * rhs[(k * 4 + v) * nm] * phi0;
                total += term;
                scale += term.abs();
            }
            assert!(total.abs() < 1e-12 * scale.max(1.0), "p={p} variable {v}: {total} (scale {scale})");
            assert!(scale > 1e-6, "the random state should produce a nonzero right-hand side");
        }
    }
}

/// Exactness makes this comparison sharp: for a linear law and a state of degree p, both cubatures are exact, so
/// the two numberings must agree to round-off (with a nonlinear flux they would differ by quadrature error,
/// since the collapsed cubature is not symmetric under rotating an element's vertices).
#[test]
fn renumbering_the_elements_renumbers_the_right_hand_side_and_changes_nothing_else() {
    let p = 3;
    let mesh = periodic_mesh(5, 0.2);
    let k = mesh.elements.len();
    // reverse the element order and rotate each element's vertices (its local faces change too)
    let mut shuffled = mesh.clone();
    shuffled.elements = mesh.elements.iter().rev().map(|&[a, b, c]| [b, c, a]).collect();
    shuffled.lattice = None;
    shuffled.origins = Vec::new();
    let law = dg_laws::advection2d::Law::default();
    let (op_a, _) = operator(law, mesh, p);
    let (op_b, _) = operator(law, shuffled, p);
    let field = |x: f64, y: f64, out: &mut [f64]| out[0] = 0.3 + x * x * y - 2.0 * y * y * y + x * y;
    let (qa, qb) = (op_a.project(field), op_b.project(field));
    let (mut ra, mut rb) = (vec![0.0; qa.len()], vec![0.0; qb.len()]);
    op_a.apply(&qa, 0.0, &mut ra);
    op_b.apply(&qb, 0.0, &mut rb);
    // element by element (element e of one numbering is element k − 1 − e of the other): the constant mode (the
    // element mean) and the L2 norm do not depend on how the element's vertices are listed
    let nm = op_a.element().nmodes;
    let norm = |c: &[f64]| c.iter().map(|x| x * x).sum::<f64>().sqrt();
    let (mut worst, mut largest) = (0.0f64, 0.0f64);
    for e in 0..k {
        let a = &ra[e * nm..(e + 1) * nm];
        let b = &rb[(k - 1 - e) * nm..(k - e) * nm];
        worst = [(a[0] - b[0]).abs(), (norm(a) - norm(b)).abs()].into_iter().fold(worst, dg_core::max_or_nan);
        largest = largest.max(norm(a));
    }
    assert!(largest > 1e-3, "the state should give a nonzero right-hand side");
    assert!(worst < 1e-10 * largest, "right-hand sides differ by {worst} (largest {largest})");
}

#[test]
fn the_operator_converges_to_the_exact_divergence_for_advection() {
    use std::f64::consts::PI;
    let law = dg_laws::advection2d::Law::default();
    let (ax, ay) = (1.0, 0.5); // the law's default velocity
    let u = |x: f64, y: f64| (2.0 * PI * x).sin() * (2.0 * PI * y).sin();
    let minus_div = |x: f64, y: f64| {
        -(ax * 2.0 * PI * (2.0 * PI * x).cos() * (2.0 * PI * y).sin()
            + ay * 2.0 * PI * (2.0 * PI * x).sin() * (2.0 * PI * y).cos())
    };
    for p in 1..=3 {
        let mut errors = Vec::new();
        for n in [8, 16] {
            let (op, space) = operator(law, periodic_mesh(n, 0.0), p);
            let q = op.project(|x, y, out| out[0] = u(x, y));
            let mut rhs = vec![0.0; q.len()];
            op.apply(&q, 0.0, &mut rhs);
            let exact = op.project(|x, y, out| out[0] = minus_div(x, y));
            let nm = op.element().nmodes;
            let err: f64 = (0..space.num_elements())
                .map(|k| {
                    space.geometry[k].j * (0..nm).map(|j| (rhs[k * nm + j] - exact[k * nm + j]).powi(2)).sum::<f64>()
                })
                .sum::<f64>()
                .sqrt();
            errors.push(err);
        }
        let rate = (errors[0] / errors[1]).log2();
        eprintln!("p={p}: errors {errors:?}, rate {rate:.2}");
        assert!(rate > p as f64 - 0.3, "p={p}: errors {errors:?}, rate {rate:.2}");
    }
}

/// Shu's isentropic vortex on the periodic square [0, 10]², advected by (1, 1): the exact solution is the initial
/// one shifted by (t, t). Classical RK4 with a step small enough that the time error stays below the space error.
fn isentropic_vortex(x: f64, y: f64, t: f64, out: &mut [f64]) {
    use std::f64::consts::PI;
    let (gamma, beta) = (1.4, 5.0);
    let wrap = |z: f64| (z - t).rem_euclid(10.0);
    let (dx, dy) = (wrap(x) - 5.0, wrap(y) - 5.0);
    let e = (1.0 - dx * dx - dy * dy).exp();
    let (u, v) = (1.0 - beta / (2.0 * PI) * e.sqrt() * dy, 1.0 + beta / (2.0 * PI) * e.sqrt() * dx);
    let temperature = 1.0 - (gamma - 1.0) * beta * beta / (8.0 * gamma * PI * PI) * e;
    let rho = temperature.powf(1.0 / (gamma - 1.0));
    let p = rho.powf(gamma);
    out.copy_from_slice(&[rho, rho * u, rho * v, p / (gamma - 1.0) + 0.5 * rho * (u * u + v * v)]);
}

#[test]
fn the_isentropic_vortex_converges_at_least_at_order_p_plus_one_half() {
    use dg_runtime::time::{Integrator, Scheme};
    let t_end = 0.5;
    for p in 1..=3 {
        let mut errors = Vec::new();
        for n in [20, 40] {
            let mesh = rectangle(&RectangleSpec {
                lower: [0.0, 0.0],
                upper: [10.0, 10.0],
                nx: n,
                ny: n,
                diagonal: Diagonal::Alternating,
                periodic_x: true,
                periodic_y: true,
            })
            .unwrap();
            let (mut op, space) = operator(dg_laws::euler2d::Law::default(), mesh, p);
            let mut q = op.project(|x, y, out| isentropic_vortex(x, y, 0.0, out));
            // |u| + c ≤ 1.5 + 1.2 everywhere in this flow
            let h = 10.0 / n as f64;
            let steps = (t_end / (0.2 * h / 2.7 / (2 * p + 1) as f64)).ceil() as usize;
            let dt = t_end / steps as f64;
            let mut rk = Integrator::new(Scheme::Rk4);
            for step in 0..steps {
                rk.step(&mut op, step as f64 * dt, dt, &mut q).unwrap();
            }
            // ‖ρ_h − ρ‖ in L2, by the element's cubature (degree 2p) against the exact density at its points
            let w = &op.element().volume.w;
            let mut exact = [0.0; 4];
            let err: f64 = (0..space.num_elements())
                .map(|k| {
                    let values = op.values_at_cubature(&q, k);
                    let points = op.cubature_points(k);
                    let sum: f64 = (0..w.len())
                        .map(|i| {
                            isentropic_vortex(points[i][0], points[i][1], t_end, &mut exact);
                            w[i] * (values[i] - exact[0]).powi(2)
                        })
                        .sum();
                    space.geometry[k].j * sum
                })
                .sum::<f64>()
                .sqrt();
            errors.push(err);
        }
        let rate = (errors[0] / errors[1]).log2();
        eprintln!("isentropic vortex p={p}: density L2 errors {errors:?}, rate {rate:.2}");
        // the proven rate for DG on general triangulations is p + 1/2 (Johnson–Pitkäranta); p + 1 is typical.
        // Measured here with Rusanov's flux: 2.11, 2.54, 3.79 for p = 1, 2, 3 (p = 2 stays near 2.5 on finer pairs
        // and at later times too; HLLC gives 2.83 — open question for the nonlinear-laws issue)
        assert!(rate > p as f64 + 0.4, "p={p}: errors {errors:?}, rate {rate:.2}");
    }
}

/// A p = 1 Euler state with random means and slopes large enough that many elements need limiting.
fn rough_euler_state(op: &ModalOperator2d<dg_laws::euler2d::Law, f64>, seed: u64) -> Vec<f64> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let phi0 = op.element().phi[(0, 0)];
    let mut q = vec![0.0; op.state_len()];
    for k in 0..op.num_elements() {
        let mean = [rng.random_range(0.5..1.5), rng.random_range(-0.3..0.3), rng.random_range(-0.3..0.3), 2.5];
        for v in 0..4 {
            q[(k * 4 + v) * 3] = mean[v] / phi0;
            for j in 1..3 {
                q[(k * 4 + v) * 3 + j] = 0.3 * mean[v].abs().max(0.1) * rng.random_range(-1.0..1.0);
            }
        }
    }
    q
}

#[test]
fn barth_jespersen_keeps_edge_values_within_the_neighbour_means_and_the_means_unchanged() {
    let (mut op, space) = operator(dg_laws::euler2d::Law::default(), periodic_mesh(6, 0.2), 1);
    op.enable_limiter(false).unwrap();
    let q = rough_euler_state(&op, 4);
    let mut limited = q.clone();
    op.apply_limiter(&mut limited);
    let phi0 = op.element().phi[(0, 0)];
    let mean = |u: &[f64], k: usize, v: usize| u[(k * 4 + v) * 3] * phi0;
    let (mut changed, mut worst) = (0, 0.0f64);
    for k in 0..space.num_elements() {
        let neighbours: Vec<usize> = space.connectivity.links[k]
            .iter()
            .filter_map(|l| match l {
                dg_core::mesh::FaceLink::Interior { element, .. } => Some(*element),
                _ => None,
            })
            .collect();
        for v in 0..4 {
            assert_eq!(mean(&limited, k, v), mean(&q, k, v), "the limiter must not change means");
            let values = neighbours.iter().map(|&e| mean(&q, e, v)).chain([mean(&q, k, v)]);
            let (lo, hi) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), m| (a.min(m), b.max(m)));
            for f in 0..3 {
                for g in 0..2 {
                    let value: f64 =
                        (0..3).map(|j| op.element().phi_edge[f][(g, j)] * limited[(k * 4 + v) * 3 + j]).sum();
                    worst = worst.max(lo - value).max(value - hi);
                }
            }
            changed += usize::from(limited[(k * 4 + v) * 3 + 1] != q[(k * 4 + v) * 3 + 1]);
        }
    }
    assert!(worst < 1e-12, "an edge value leaves its neighbours' range by {worst}");
    assert!(changed > 20, "the rough state should need limiting somewhere (only {changed} slopes changed)");
}

#[test]
fn the_positivity_guard_reduces_elements_with_negative_point_pressure_to_their_mean() {
    let (mut op, space) = operator(dg_laws::euler2d::Law::default(), periodic_mesh(4, 0.0), 1);
    op.enable_limiter(true).unwrap();
    // a smooth state (so Barth–Jespersen keeps the slopes) whose energy dips below the kinetic energy at some
    // points: positive mean pressure, negative pressure at the points near the dip
    let mut q = op.project(|x, y, out| {
        let rho = 1.0;
        let u = 2.0 * (std::f64::consts::TAU * x).sin();
        let e = 2.2 + 0.9 * (std::f64::consts::TAU * y).cos() - 0.1;
        out.copy_from_slice(&[rho, rho * u, 0.0, e]);
    });
    let pressure = |s: &[f64]| 0.4 * (s[3] - 0.5 * (s[1] * s[1] + s[2] * s[2]) / s[0]);
    let min_point_pressure = |q: &[f64]| {
        let mut min = f64::INFINITY;
        let mut state = [0.0; 4];
        for k in 0..space.num_elements() {
            for (r, s) in [(-1.0, -1.0), (1.0, -1.0), (-1.0, 1.0), (0.0, -1.0), (-1.0, 0.0), (0.0, 0.0)] {
                op.evaluate(q, k, r, s, &mut state);
                min = min.min(pressure(&state));
            }
        }
        min
    };
    assert!(min_point_pressure(&q) < 0.0, "the test state must have negative point pressures");
    op.apply_limiter(&mut q);
    let after = min_point_pressure(&q);
    assert!(after > 0.0, "pressure still negative after the guard: {after}");
}

/// A law's source term is added in the volume integral by every surface but mma, so no source kernel follows and
/// the last kernel can fold a stage's update; the mma program keeps its source kernel, launched last. The volume
/// table gains w_q φ_j(x_q) only where the source is in it; a law without a source keeps its program text.
#[test]
fn the_source_is_added_in_the_volume_integral_except_on_mma() {
    use dg_codegen::program::{LawInput, Target};
    use dg_modal_tri::render::{modal_table, render_modal};
    use dg_modal_tri::{ModalRole, ModalVariant};
    let el = dg_core::triangle::ModalTriangle::new(3).unwrap();
    let law = dg_laws::mhd2d::Law::default();
    let ir = dg_runtime::formulation::law_ir(&law).unwrap();
    let params = dg_core::law::ConservationLaw::param_values(&law);
    let input = LawInput { ir: &ir, params: &params, numerical_flux: "numerical_flux" };
    let base = modal_table(&el).len();
    let (nq, nm) = (el.volume.w.len(), el.nmodes);
    for spec in [
        "modal/wg64/edge/const/mode-major/f64",
        "modal/wg64/atomic/shared/elem-major/f32",
        "modal/wg128/element/const/mode-major/f64",
        "modal/wg128/element-regs/shared/mode-major/f64",
        "modal/wg64/edge-flux/const/mode-major/f32",
        "modal/wg128/edge-flux-pair/const/mode-major/f64",
    ] {
        let v: ModalVariant = spec.parse().unwrap();
        let src = render_modal(&input, &el, &v, Target::Cuda).unwrap();
        assert!(src.source_in_volume, "{spec}");
        assert!(src.rhs_kernels.iter().all(|l| l.role != ModalRole::Source), "{spec}");
        assert!(!src.source.contains("modal_source"), "{spec}");
        assert!(src.source.contains("law_source") && src.source.contains("src_xy[2 * ("), "{spec}");
        assert_eq!(src.table.len(), base + nq * nm, "{spec}");
        // w_q φ_j(x_q) after the basis table
        assert!((src.table[base + nm + 1] - el.volume.w[1] * el.phi[(1, 1)]).abs() < 1e-15, "{spec}");
    }
    let mma: ModalVariant = "modal/wg128/mma/const/mode-major/f64".parse().unwrap();
    let src = render_modal(&input, &el, &mma, Target::Cuda).unwrap();
    assert!(!src.source_in_volume);
    assert_eq!(src.rhs_kernels.last().map(|l| l.role), Some(ModalRole::Source));
    // a law without a source: no trace of it
    let euler = dg_laws::euler2d::Law::default();
    let eir = dg_runtime::formulation::law_ir(&euler).unwrap();
    let eparams = dg_core::law::ConservationLaw::param_values(&euler);
    let einput = LawInput { ir: &eir, params: &eparams, numerical_flux: "hllc_flux" };
    let v: ModalVariant = "modal/wg128/edge-flux-pair/const/mode-major/f64".parse().unwrap();
    let src = render_modal(&einput, &el, &v, Target::Cuda).unwrap();
    assert!(!src.source_in_volume && !src.source.contains("src_xy") && !src.source.contains("T_WPHI "));
    assert_eq!(src.table.len(), base);
}
