//! Property tests of every law: the native code and the IR evaluator agree; every numerical flux is
//! consistent and conservative.

use dg_core::law::ConservationLaw;
use dg_ir::{FunctionRole, InputKind, Inputs, LawIr};
use dg_laws::*;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

/// How random data becomes valid states and materials for a law (uniform numbers in [0, 1) → physics).
#[derive(Clone, Copy)]
enum Physics {
    /// Every variable uniform in [−1, 1].
    Generic,
    /// Euler: ρ, p ∈ [0.5, 2], velocity components in [−1, 1].
    Euler,
    /// Shallow water: h ∈ [0.5, 2], velocity in [−1, 1].
    ShallowWater,
    /// MHD: ρ, p ∈ [0.5, 2], three velocity and three field components in [−1, 1], ψ ∈ [−1, 1].
    Mhd,
}

#[derive(Clone, Copy)]
enum Media {
    None,
    /// ρ ∈ [0.5, 2], c ∈ [0.5, 2].
    Acoustic,
    /// ρ ∈ [1, 3], λ ∈ [0.5, 3], μ ∈ [0.5, 2].
    Elastic,
}

fn state(physics: Physics, nv: usize, dim: usize, u: &[f64]) -> Vec<f64> {
    let lerp = |x: f64, a: f64, b: f64| a + (b - a) * x;
    match physics {
        Physics::Generic => u[..nv].iter().map(|&x| lerp(x, -1.0, 1.0)).collect(),
        Physics::Euler => {
            let rho = lerp(u[0], 0.5, 2.0);
            let p = lerp(u[1], 0.5, 2.0);
            let vel: Vec<f64> = (0..dim).map(|d| lerp(u[2 + d], -1.0, 1.0)).collect();
            let kinetic = 0.5 * rho * vel.iter().map(|v| v * v).sum::<f64>();
            let mut q = vec![rho];
            q.extend(vel.iter().map(|v| rho * v));
            q.push(p / 0.4 + kinetic);
            q
        }
        Physics::ShallowWater => {
            let h = lerp(u[0], 0.5, 2.0);
            vec![h, h * lerp(u[1], -1.0, 1.0), h * lerp(u[2], -1.0, 1.0)]
        }
        Physics::Mhd => {
            let (rho, p) = (lerp(u[0], 0.5, 2.0), lerp(u[1], 0.5, 2.0));
            let vel: Vec<f64> = (2..5).map(|i| lerp(u[i], -1.0, 1.0)).collect();
            let b: Vec<f64> = (5..8).map(|i| lerp(u[i], -1.0, 1.0)).collect();
            let kinetic = 0.5 * rho * vel.iter().map(|v| v * v).sum::<f64>();
            let magnetic = 0.5 * b.iter().map(|v| v * v).sum::<f64>();
            let mut q = vec![rho];
            q.extend(vel.iter().map(|v| rho * v));
            q.push(p / (5.0 / 3.0 - 1.0) + kinetic + magnetic);
            q.extend(&b);
            q.push(lerp(u[8], -1.0, 1.0));
            q
        }
    }
}

fn material(media: Media, u: &[f64]) -> Vec<f64> {
    let lerp = |x: f64, a: f64, b: f64| a + (b - a) * x;
    match media {
        Media::None => vec![],
        Media::Acoustic => vec![lerp(u[0], 0.5, 2.0), lerp(u[1], 0.5, 2.0)],
        Media::Elastic => vec![lerp(u[0], 1.0, 3.0), lerp(u[1], 0.5, 3.0), lerp(u[2], 0.5, 2.0)],
    }
}

fn unit_normal(dim: usize, u: &[f64]) -> Vec<f64> {
    let theta = 2.0 * std::f64::consts::PI * u[0];
    match dim {
        1 => vec![if u[0] < 0.5 { -1.0 } else { 1.0 }],
        2 => vec![theta.cos(), theta.sin()],
        _ => {
            let z = 2.0 * u[1] - 1.0;
            let r = (1.0 - z * z).sqrt();
            vec![r * theta.cos(), r * theta.sin(), z]
        }
    }
}

fn close(a: f64, b: f64, rel: f64) -> bool {
    a == b || (a - b).abs() <= rel * a.abs().max(b.abs())
}

fn close_scaled(a: f64, b: f64, rel: f64, scale: f64) -> bool {
    (a - b).abs() <= rel * scale.max(a.abs()).max(b.abs())
}

fn agree(what: &str, native: &[f64], ir: &[f64]) -> Result<(), TestCaseError> {
    prop_assert_eq!(native.len(), ir.len(), "{}: output count", what);
    for (i, (a, b)) in native.iter().zip(ir).enumerate() {
        prop_assert!(close(*a, *b, 1e-13), "{} output {}: native {} vs IR {}", what, i, a, b);
    }
    Ok(())
}

struct Sample {
    qm: Vec<f64>,
    qp: Vec<f64>,
    mm: Vec<f64>,
    mp: Vec<f64>,
    n: Vec<f64>,
    x: Vec<f64>,
    t: f64,
}

fn sample<L: ConservationLaw>(physics: Physics, media: Media, u: &[f64], same_material: bool) -> Sample {
    let (nv, dim) = (L::NVARS, L::DIM);
    let mm = material(media, &u[20..23]);
    Sample {
        qm: state(physics, nv, dim, &u[0..10]),
        qp: state(physics, nv, dim, &u[10..20]),
        mp: if same_material { mm.clone() } else { material(media, &u[23..26]) },
        mm,
        n: unit_normal(dim, &u[26..28]),
        x: u[28..28 + dim].iter().map(|v| 4.0 * v - 2.0).collect(),
        t: u[31],
    }
}

fn inputs(law_ir: &LawIr, s: &Sample, swap: bool) -> Inputs {
    let params: Vec<f64> = law_ir.params.iter().map(|p| p.1).collect();
    let (a, b, ma, mb) = if swap { (&s.qp, &s.qm, &s.mp, &s.mm) } else { (&s.qm, &s.qp, &s.mm, &s.mp) };
    Inputs::default()
        .with(InputKind::StateM, a)
        .with(InputKind::StateP, b)
        .with(InputKind::MaterialM, ma)
        .with(InputKind::MaterialP, mb)
        .with(InputKind::Normal, &s.n)
        .with(InputKind::Position, &s.x)
        .with(InputKind::Time, &[s.t])
        .with(InputKind::Param, &params)
}

/// Native vs IR for every function; consistency and conservation of every numerical flux.
fn check<L: ConservationLaw + Default>(
    law_ir: &LawIr,
    physics: Physics,
    media: Media,
    u: &[f64],
) -> Result<(), TestCaseError> {
    let (nv, dim) = (L::NVARS, L::DIM);
    let base = L::default();
    prop_assert_eq!(base.param_values(), law_ir.params.iter().map(|p| p.1).collect::<Vec<_>>());
    let s = sample::<L>(physics, media, u, false);
    let inp = inputs(law_ir, &s, false);

    let mut f = vec![0.0; dim * nv];
    base.flux(&s.qm, &s.mm, &mut f);
    agree("flux", &f, &law_ir.function("flux").expect("flux").eval(&inp))?;
    let speed = base.max_speed(&s.qm, &s.mm, &s.n);
    agree("max_speed", &[speed], &law_ir.function("max_speed").expect("max_speed").eval(&inp))?;
    prop_assert!(speed >= 0.0);

    let normal_flux = |q: &[f64], m: &[f64], n: &[f64]| -> Vec<f64> {
        let mut f = vec![0.0; dim * nv];
        base.flux(q, m, &mut f);
        (0..nv).map(|v| (0..dim).map(|d| n[d] * f[d * nv + v]).sum()).collect()
    };
    for name in base.numerical_flux_names() {
        let mut law = L::default();
        prop_assert!(law.select_numerical_flux(name));
        let mut out = vec![0.0; nv];
        law.numerical_flux(&s.qm, &s.qp, &s.mm, &s.mp, &s.n, &mut out);
        let ir_f = law_ir.function(&format!("numerical_flux:{name}")).expect("numerical flux traced");
        agree(&format!("numerical flux {name}"), &out, &ir_f.eval(&inp))?;

        // consistency: F*(q, q, n) = F(q)·n
        law.numerical_flux(&s.qm, &s.qm, &s.mm, &s.mm, &s.n, &mut out);
        let exact = normal_flux(&s.qm, &s.mm, &s.n);
        let scale = exact.iter().fold(1e-300f64, |m, v| m.max(v.abs()));
        for v in 0..nv {
            prop_assert!(
                close_scaled(out[v], exact[v], 1e-12, scale),
                "{} consistency, variable {}: {} vs {}",
                name,
                v,
                out[v],
                exact[v]
            );
        }
        // conservation: F*(qm, qp, n) = −F*(qp, qm, −n) (same material on both sides: with jumping
        // coefficients the acoustic/elastic systems are not in conservation form)
        let e = sample::<L>(physics, media, u, true);
        let neg: Vec<f64> = e.n.iter().map(|v| -v).collect();
        let (mut a, mut b) = (vec![0.0; nv], vec![0.0; nv]);
        law.numerical_flux(&e.qm, &e.qp, &e.mm, &e.mp, &e.n, &mut a);
        law.numerical_flux(&e.qp, &e.qm, &e.mp, &e.mm, &neg, &mut b);
        let scale = a.iter().chain(&b).fold(1e-300f64, |m, v| m.max(v.abs()));
        for v in 0..nv {
            prop_assert!(
                close_scaled(a[v], -b[v], 1e-12, scale),
                "{} conservation, variable {}: {} vs {}",
                name,
                v,
                a[v],
                -b[v]
            );
        }
    }
    for (bc, name) in base.boundary_names().iter().enumerate() {
        let mut out = vec![0.0; nv];
        base.boundary_state(bc, &s.qm, &s.mm, &s.n, &s.x, s.t, &mut out);
        agree(
            &format!("boundary {name}"),
            &out,
            &law_ir.function(&format!("boundary:{name}")).expect("traced").eval(&inp),
        )?;
    }
    if base.has_source() {
        let mut out = vec![0.0; nv];
        base.source(&s.qm, &s.mm, &s.x, s.t, &mut out);
        agree("source", &out, &law_ir.function("source").expect("traced").eval(&inp))?;
    }
    Ok(())
}

macro_rules! law_properties {
    ($test:ident, $law:ident, $physics:expr, $media:expr) => {
        proptest! {
            #![proptest_config(ProptestConfig::with_cases(10_000))]
            #[test]
            fn $test(u in prop::collection::vec(0.0f64..1.0, 32)) {
                let ir = $law::ir();
                check::<$law::Law>(&ir, $physics, $media, &u)?;
            }
        }
    };
}

law_properties!(advection2d_properties, advection2d, Physics::Generic, Media::None);
law_properties!(advection3d_properties, advection3d, Physics::Generic, Media::None);
law_properties!(burgers2d_properties, burgers2d, Physics::Generic, Media::None);
law_properties!(maxwell2d_properties, maxwell2d, Physics::Generic, Media::None);
law_properties!(maxwell3d_properties, maxwell3d, Physics::Generic, Media::None);
law_properties!(euler2d_properties, euler2d, Physics::Euler, Media::None);
law_properties!(euler3d_properties, euler3d, Physics::Euler, Media::None);
law_properties!(acoustics2d_properties, acoustics2d, Physics::Generic, Media::Acoustic);
law_properties!(acoustics3d_properties, acoustics3d, Physics::Generic, Media::Acoustic);
law_properties!(elastic3d_properties, elastic3d, Physics::Generic, Media::Elastic);
law_properties!(shallow_water2d_properties, shallow_water2d, Physics::ShallowWater, Media::None);
law_properties!(mhd2d_properties, mhd2d, Physics::Mhd, Media::None);

/// The MHD states of the property tests have the pressure they were built with, so the flux's pressure is right.
#[test]
fn mhd_pressure_and_wave_speeds_are_those_of_the_state() {
    let law = mhd2d::Law::default();
    let (rho, p, vel, b, psi) = (1.3, 0.7, [0.2, -0.4, 0.1], [0.6, -0.3, 0.8], 0.25);
    let kinetic = 0.5 * rho * vel.iter().map(|v: &f64| v * v).sum::<f64>();
    let magnetic = 0.5 * b.iter().map(|v: &f64| v * v).sum::<f64>();
    let q = [rho, rho * vel[0], rho * vel[1], rho * vel[2], p * 1.5 + kinetic + magnetic, b[0], b[1], b[2], psi];
    // x-flux of momentum: ρu² + p + ½|B|² − Bx²; of energy: (E + p_t) u − Bx (u·B); of ψ: c_h² Bx
    let mut f = [0.0; 18];
    law.flux(&q, &[], &mut f);
    let pt = p + magnetic;
    assert!((f[1] - (rho * vel[0] * vel[0] + pt - b[0] * b[0])).abs() < 1e-14);
    let ub: f64 = (0..3).map(|d| vel[d] * b[d]).sum();
    assert!((f[4] - ((q[4] + pt) * vel[0] - b[0] * ub)).abs() < 1e-14);
    assert!((f[5] - psi).abs() < 1e-15 && (f[8] - 4.0 * b[0]).abs() < 1e-14);
    // the fast speed along x: c_f² = ½(a² + b² + √((a² + b²)² − 4 a² bx²/ρ))
    let a2 = 5.0 / 3.0 * p / rho;
    let b2 = 2.0 * magnetic / rho;
    let cf = (0.5 * (a2 + b2 + ((a2 + b2).powi(2) - 4.0 * a2 * b[0] * b[0] / rho).sqrt())).sqrt();
    let speed = law.max_speed(&q, &[], &[1.0, 0.0]);
    assert!((speed - (vel[0].abs() + cf).max(2.0)).abs() < 1e-14, "{speed} vs {}", vel[0].abs() + cf);
    let mut s = [0.0; 9];
    law.source(&q, &[], &[0.0, 0.0], 0.0, &mut s);
    assert_eq!(s[8], -psi);
    assert!(s[..8].iter().all(|&v| v == 0.0));
}

#[test]
fn every_law_has_every_function_traced() {
    for ir in all_ir() {
        assert!(ir.function("flux").is_some() && ir.function("max_speed").is_some(), "{}", ir.name);
        assert!(ir.functions_of(FunctionRole::NumericalFlux).count() >= 1, "{}", ir.name);
        assert_eq!(ir.function("flux").unwrap().outputs.len(), ir.dim * ir.variables.len());
    }
}
