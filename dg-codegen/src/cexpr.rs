//! An IR function as C statements, valid in CUDA C and OpenCL C alike.

use crate::program::PRELUDE_SUFFIX;
use dg_ir::{InputKind, IrFunction, Op};
use std::fmt::Write as _;

/// How the inputs of a function are spelled in the generated code.
pub struct InputNames<'a> {
    /// q⁻ (or q) array name.
    pub state_m: &'a str,
    /// q⁺ array name.
    pub state_p: &'a str,
    /// Own material array name.
    pub material_m: &'a str,
    /// Neighbour material array name.
    pub material_p: &'a str,
    /// Normal component names.
    pub normal: [&'a str; 3],
    /// Position component names.
    pub position: [&'a str; 3],
    /// Time.
    pub time: &'a str,
    /// Parameter values, baked in as constants.
    pub params: &'a [f64],
}

/// A constant as a C literal of the kernel's precision (`real` is the kernel's float type).
pub fn literal(value: f64, single: bool) -> String {
    if value.is_nan() {
        return "(0.0/0.0)".into();
    }
    if value.is_infinite() {
        return if value > 0.0 { "(1.0/0.0)".into() } else { "(-1.0/0.0)".into() };
    }
    let mut text = format!("{value:?}");
    if !text.contains('.') && !text.contains('e') && !text.contains("inf") {
        text.push_str(".0");
    }
    if single {
        format!("{text}f")
    } else {
        text
    }
}

/// How an emitted function writes its divisions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Divisions {
    /// Every division as the law wrote it.
    AsWritten,
    /// A value that divides two or more others is inverted once (`{prefix}r{id} = 1 / value`, written before its
    /// first use) and each of those divisions becomes a product with the reciprocal (`1 / value` itself becomes
    /// the reciprocal). A GPU division is a sequence of a dozen dependent instructions (a reciprocal estimate
    /// refined by fused multiply-adds, and a slow path), a product is one; the results differ from the divisions
    /// by an ulp or two. Euler's fluxes divide by the densities five to ten times each. A value that divides only
    /// once, and a constant, is divided as written. A formulation chooses this where the law's functions are a
    /// large part of its kernels' work (changing it changes the kernels, so their tuning results too).
    SharedReciprocals,
    /// As [`Divisions::SharedReciprocals`], and in single precision the reciprocals, the remaining divisions and the
    /// square roots are the hardware's approximations (`dg_rcp`, `dg_div`, `dg_sqrt` of `law.tera`: on CUDA
    /// `rcp.approx.f32`, `div.full.f32` and `sqrt.approx.f32`, one or two instructions within 2 ulp over the whole
    /// range; on OpenCL `native_recip`, `native_divide`, `native_sqrt`) instead of the IEEE-rounded sequences. Double
    /// precision is written as with [`Divisions::SharedReciprocals`].
    ApproximateSingle,
}

impl Divisions {
    /// Whether single-precision code uses the approximations of [`Divisions::ApproximateSingle`].
    pub fn approximate(self, single: bool) -> bool {
        single && self == Divisions::ApproximateSingle
    }
}

/// C statements computing `f`'s outputs into `outputs[i]` (`out_name(i)` gives each output's lvalue).
/// Temporaries are named `{prefix}{id}`; divisions are written as `divisions` says.
pub fn emit(
    f: &IrFunction,
    names: &InputNames<'_>,
    out_name: &dyn Fn(usize) -> String,
    prefix: &str,
    single: bool,
    divisions: Divisions,
) -> String {
    let mut code = String::new();
    let name_of = |id: u32| -> String {
        match f.nodes[id as usize] {
            Op::Input(kind, i) => input(kind, i as usize, names, single),
            Op::Const(bits) => literal(f64::from_bits(bits), single),
            _ => format!("{prefix}{id}"),
        }
    };
    let shared = match divisions {
        Divisions::AsWritten => vec![false; f.nodes.len()],
        Divisions::SharedReciprocals | Divisions::ApproximateSingle => shared_divisors(f),
    };
    let approximate = divisions.approximate(single);
    let is_const = |id: u32| matches!(f.nodes[id as usize], Op::Const(_));
    let is_one = |id: u32| matches!(f.nodes[id as usize], Op::Const(bits) if f64::from_bits(bits) == 1.0);
    let mut inverted = vec![false; f.nodes.len()];
    for (id, op) in f.nodes.iter().enumerate() {
        let n = |a: u32| name_of(a);
        if let Op::Div(_, b) = *op {
            if shared[b as usize] && !inverted[b as usize] {
                inverted[b as usize] = true;
                let reciprocal = if approximate {
                    format!("dg_rcp{PRELUDE_SUFFIX}({})", n(b))
                } else {
                    format!("{} / {}", literal(1.0, single), n(b))
                };
                let _ = writeln!(code, "const real {prefix}r{b} = {reciprocal};");
            }
        }
        let (ty, rhs) = match *op {
            Op::Input(..) | Op::Const(_) => continue,
            Op::Neg(a) => ("real", format!("-{}", n(a))),
            Op::Sqrt(a) if approximate => ("real", format!("dg_sqrt{PRELUDE_SUFFIX}({})", n(a))),
            Op::Sqrt(a) => ("real", format!("sqrt({})", n(a))),
            Op::Abs(a) => ("real", format!("fabs({})", n(a))),
            Op::Exp(a) => ("real", format!("exp({})", n(a))),
            Op::Ln(a) => ("real", format!("log({})", n(a))),
            Op::Sin(a) => ("real", format!("sin({})", n(a))),
            Op::Cos(a) => ("real", format!("cos({})", n(a))),
            Op::Powi(a, k) => ("real", powi(&n(a), k, single)),
            Op::Add(a, b) => ("real", format!("{} + {}", n(a), n(b))),
            Op::Sub(a, b) => ("real", format!("{} - {}", n(a), n(b))),
            Op::Mul(a, b) => ("real", format!("{} * {}", n(a), n(b))),
            Op::Div(a, b) if shared[b as usize] && is_one(a) => ("real", format!("{prefix}r{b}")),
            Op::Div(a, b) if shared[b as usize] => ("real", format!("{} * {prefix}r{b}", n(a))),
            Op::Div(a, b) if approximate && !is_const(b) => {
                ("real", format!("dg_div{PRELUDE_SUFFIX}({}, {})", n(a), n(b)))
            }
            Op::Div(a, b) => ("real", format!("{} / {}", n(a), n(b))),
            Op::Min(a, b) => ("real", format!("fmin({}, {})", n(a), n(b))),
            Op::Max(a, b) => ("real", format!("fmax({}, {})", n(a), n(b))),
            Op::Powf(a, b) => ("real", format!("pow({}, {})", n(a), n(b))),
            Op::Lt(a, b) => ("int", format!("{} < {}", n(a), n(b))),
            Op::Le(a, b) => ("int", format!("{} <= {}", n(a), n(b))),
            Op::Eq(a, b) => ("int", format!("{} == {}", n(a), n(b))),
            Op::Ne(a, b) => ("int", format!("{} != {}", n(a), n(b))),
            Op::And(a, b) => ("int", format!("{} && {}", n(a), n(b))),
            Op::Or(a, b) => ("int", format!("{} || {}", n(a), n(b))),
            Op::Not(a) => ("int", format!("!{}", n(a))),
            Op::Select(c, a, b) => ("real", format!("{} ? {} : {}", n(c), n(a), n(b))),
        };
        let _ = writeln!(code, "const {ty} {prefix}{id} = {rhs};");
    }
    for (i, &o) in f.outputs.iter().enumerate() {
        let _ = writeln!(code, "{} = {};", out_name(i), name_of(o));
    }
    code
}

/// Which nodes divide two or more others (constants excluded: the compiler folds their reciprocals where exact).
fn shared_divisors(f: &IrFunction) -> Vec<bool> {
    let mut uses = vec![0u32; f.nodes.len()];
    for op in &f.nodes {
        if let Op::Div(_, b) = *op {
            uses[b as usize] += 1;
        }
    }
    f.nodes.iter().zip(uses).map(|(op, u)| u >= 2 && !matches!(op, Op::Const(_))).collect()
}

fn input(kind: InputKind, i: usize, names: &InputNames<'_>, single: bool) -> String {
    match kind {
        InputKind::StateM => format!("{}[{i}]", names.state_m),
        InputKind::StateP => format!("{}[{i}]", names.state_p),
        InputKind::MaterialM => format!("{}[{i}]", names.material_m),
        InputKind::MaterialP => format!("{}[{i}]", names.material_p),
        InputKind::Normal => names.normal[i].to_string(),
        InputKind::Position => names.position[i].to_string(),
        InputKind::Time => names.time.to_string(),
        InputKind::Param => literal(names.params.get(i).copied().unwrap_or(f64::NAN), single),
    }
}

/// x^k by repeated multiplication for small |k| (exact like `powi`), `pow` otherwise.
fn powi(x: &str, k: i32, single: bool) -> String {
    match k {
        0 => literal(1.0, single),
        1..=4 => vec![x; k as usize].join(" * "),
        -4..=-1 => format!("{} / ({})", literal(1.0, single), vec![x; (-k) as usize].join(" * ")),
        _ => format!("pow({x}, {})", literal(k as f64, single)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dg_ir::{InputKind, IrFunction, Op};

    fn names() -> InputNames<'static> {
        InputNames {
            state_m: "qm",
            state_p: "qp",
            material_m: "mm",
            material_p: "mp",
            normal: ["nx", "ny", "0"],
            position: ["px", "py", "0"],
            time: "t",
            params: &[],
        }
    }

    /// qm[1] / qm[0], qm[2] / qm[0], qm[3] / (qm[1] + qm[2]), qm[0] / 2.0, qm[1] / 2.0, 1 / qm[0].
    fn ratios() -> IrFunction {
        let nodes = vec![
            Op::Input(InputKind::StateM, 0),
            Op::Input(InputKind::StateM, 1),
            Op::Input(InputKind::StateM, 2),
            Op::Input(InputKind::StateM, 3),
            Op::Div(1, 0),
            Op::Div(2, 0),
            Op::Add(1, 2),
            Op::Div(3, 6),
            Op::Const(2.0f64.to_bits()),
            Op::Div(0, 8),
            Op::Div(1, 8),
            Op::Const(1.0f64.to_bits()),
            Op::Div(11, 0),
        ];
        IrFunction { name: "ratios".into(), nodes, outputs: vec![4, 5, 7, 9, 10, 12] }
    }

    #[test]
    fn a_divisor_of_two_values_is_inverted_once_before_its_first_use() {
        let code = emit(&ratios(), &names(), &|i| format!("out[{i}]"), "n", false, Divisions::SharedReciprocals);
        let lines: Vec<&str> = code.lines().collect();
        assert_eq!(lines.iter().filter(|l| l.contains("/ qm[0]")).count(), 1, "{code}");
        let inverse = lines.iter().position(|l| *l == "const real nr0 = 1.0 / qm[0];").expect(&code);
        let first = lines.iter().position(|l| *l == "const real n4 = qm[1] * nr0;").expect(&code);
        assert!(inverse < first, "{code}");
        assert!(lines.contains(&"const real n5 = qm[2] * nr0;"), "{code}");
        assert!(lines.contains(&"const real n12 = nr0;"), "1 / value is the reciprocal itself: {code}");
    }

    #[test]
    fn approximate_single_calls_the_approximations_in_f32_only() {
        let code = emit(&ratios(), &names(), &|i| format!("out[{i}]"), "n", true, Divisions::ApproximateSingle);
        assert!(code.contains("const real nr0 = dg_rcp@P@(qm[0]);"), "{code}");
        assert!(code.contains("const real n7 = dg_div@P@(qm[3], n6);"), "{code}");
        assert!(code.contains("const real n9 = qm[0] / 2.0f;"), "a constant divisor is divided as written: {code}");
        assert!(!code.contains(" / qm[0]"), "{code}");
        let double = emit(&ratios(), &names(), &|i| format!("out[{i}]"), "n", false, Divisions::ApproximateSingle);
        let shared = emit(&ratios(), &names(), &|i| format!("out[{i}]"), "n", false, Divisions::SharedReciprocals);
        assert_eq!(double, shared, "f64 is written as with shared reciprocals");
    }

    #[test]
    fn as_written_keeps_every_division() {
        let code = emit(&ratios(), &names(), &|i| format!("out[{i}]"), "n", false, Divisions::AsWritten);
        assert_eq!(code.matches(" / ").count(), 6, "{code}");
        assert!(!code.contains("nr0"), "{code}");
    }

    #[test]
    fn a_divisor_of_one_value_and_a_constant_divisor_are_divided_as_written() {
        let code = emit(&ratios(), &names(), &|i| format!("out[{i}]"), "n", true, Divisions::SharedReciprocals);
        assert!(code.contains("const real n7 = qm[3] / n6;"), "{code}");
        assert!(!code.contains("nr6"), "{code}");
        assert!(code.contains("const real n9 = qm[0] / 2.0f;"), "{code}");
        assert!(code.contains("const real n10 = qm[1] / 2.0f;"), "{code}");
        assert!(code.contains("const real nr0 = 1.0f / qm[0];"), "single precision literal: {code}");
    }
}
