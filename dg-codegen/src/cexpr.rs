//! An IR function as C statements, valid in CUDA C and OpenCL C alike.

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

/// C statements computing `f`'s outputs into `outputs[i]` (`out_name(i)` gives each output's lvalue).
/// Temporaries are named `{prefix}{id}`.
pub fn emit(
    f: &IrFunction,
    names: &InputNames<'_>,
    out_name: &dyn Fn(usize) -> String,
    prefix: &str,
    single: bool,
) -> String {
    let mut code = String::new();
    let name_of = |id: u32| -> String {
        match f.nodes[id as usize] {
            Op::Input(kind, i) => input(kind, i as usize, names, single),
            Op::Const(bits) => literal(f64::from_bits(bits), single),
            _ => format!("{prefix}{id}"),
        }
    };
    for (id, op) in f.nodes.iter().enumerate() {
        let n = |a: u32| name_of(a);
        let (ty, rhs) = match *op {
            Op::Input(..) | Op::Const(_) => continue,
            Op::Neg(a) => ("real", format!("-{}", n(a))),
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
