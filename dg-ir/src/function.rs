//! One traced law function: a compact DAG in topological order with its outputs.

use crate::graph::{Graph, InputKind, NodeId, Op};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// A law function as an expression DAG. Nodes are in topological order (operands before uses); only nodes
/// reachable from an output are kept.
#[derive(Debug, Clone, PartialEq)]
pub struct IrFunction {
    /// Function name (`flux`, `numerical_flux`, `boundary:wall`, …).
    pub name: String,
    /// The nodes.
    pub nodes: Vec<Op>,
    /// Output nodes, in output order.
    pub outputs: Vec<NodeId>,
}

/// Values of the inputs of a function, by kind.
#[derive(Debug, Clone, Default)]
pub struct Inputs {
    /// Values per kind (index = input index).
    pub values: BTreeMap<InputKind, Vec<f64>>,
}

impl Inputs {
    /// Sets the values of one kind of input.
    pub fn with(mut self, kind: InputKind, values: &[f64]) -> Self {
        self.values.insert(kind, values.to_vec());
        self
    }

    fn get(&self, kind: InputKind, index: u16) -> f64 {
        self.values.get(&kind).and_then(|v| v.get(index as usize)).copied().unwrap_or_else(|| {
            panic!("IR evaluation: no value given for input {kind:?}[{index}]");
        })
    }
}

/// Operation counts of a function (after CSE). `total` counts add, mul, div, sqrt and transcendental ops as
/// one flop each; comparisons and selects are listed but not counted as flops.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FlopCount {
    /// Additions, subtractions, negations.
    pub add: usize,
    /// Multiplications (integer powers count their multiplications).
    pub mul: usize,
    /// Divisions.
    pub div: usize,
    /// Square roots.
    pub sqrt: usize,
    /// exp, ln, sin, cos, powf, abs, min, max.
    pub special: usize,
    /// Comparisons, logic and selects.
    pub branch: usize,
    /// add + mul + div + sqrt + special.
    pub total: usize,
}

/// Applies an operation to constant operand values (booleans as 1.0 / 0.0).
pub(crate) fn apply(op: &Op, v: &[f64]) -> f64 {
    let b = |x: bool| if x { 1.0 } else { 0.0 };
    match *op {
        Op::Input(..) => f64::NAN,
        Op::Const(bits) => f64::from_bits(bits),
        Op::Neg(_) => -v[0],
        Op::Sqrt(_) => v[0].sqrt(),
        Op::Abs(_) => v[0].abs(),
        Op::Exp(_) => v[0].exp(),
        Op::Ln(_) => v[0].ln(),
        Op::Sin(_) => v[0].sin(),
        Op::Cos(_) => v[0].cos(),
        Op::Powi(_, n) => v[0].powi(n),
        Op::Add(..) => v[0] + v[1],
        Op::Sub(..) => v[0] - v[1],
        Op::Mul(..) => v[0] * v[1],
        Op::Div(..) => v[0] / v[1],
        Op::Min(..) => v[0].min(v[1]),
        Op::Max(..) => v[0].max(v[1]),
        Op::Powf(..) => v[0].powf(v[1]),
        Op::Lt(..) => b(v[0] < v[1]),
        Op::Le(..) => b(v[0] <= v[1]),
        Op::Eq(..) => b(v[0] == v[1]),
        Op::Ne(..) => b(v[0] != v[1]),
        Op::And(..) => b(v[0] != 0.0 && v[1] != 0.0),
        Op::Or(..) => b(v[0] != 0.0 || v[1] != 0.0),
        Op::Not(_) => b(v[0] == 0.0),
        Op::Select(..) => {
            if v[0] != 0.0 {
                v[1]
            } else {
                v[2]
            }
        }
    }
}

/// Polynomial degree of a node in the state inputs: 0, 1, or "more / not a polynomial".
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Degree {
    Constant,
    Linear,
    Nonlinear,
}

impl IrFunction {
    /// Keeps the nodes reachable from `outputs`, renumbered in topological order.
    pub(crate) fn from_graph(name: &str, graph: &Graph, outputs: Vec<NodeId>) -> Self {
        let mut live = vec![false; graph.nodes.len()];
        let mut stack = outputs.clone();
        while let Some(id) = stack.pop() {
            if !live[id as usize] {
                live[id as usize] = true;
                stack.extend(graph.nodes[id as usize].operands());
            }
        }
        // graph nodes are already topological (operands are created first)
        let mut new_id = vec![NodeId::MAX; graph.nodes.len()];
        let mut nodes = Vec::new();
        for (id, op) in graph.nodes.iter().enumerate() {
            if live[id] {
                new_id[id] = nodes.len() as NodeId;
                nodes.push(op.map_operands(|a| new_id[a as usize]));
            }
        }
        let outputs = outputs.iter().map(|&o| new_id[o as usize]).collect();
        Self { name: name.to_string(), nodes, outputs }
    }

    /// Evaluates the outputs for the given inputs.
    pub fn eval(&self, inputs: &Inputs) -> Vec<f64> {
        let mut values = Vec::with_capacity(self.nodes.len());
        let mut operands = Vec::with_capacity(3);
        for op in &self.nodes {
            let value = match *op {
                Op::Input(kind, index) => inputs.get(kind, index),
                _ => {
                    operands.clear();
                    operands.extend(op.operands().iter().map(|&a| values[a as usize]));
                    apply(op, &operands)
                }
            };
            values.push(value);
        }
        self.outputs.iter().map(|&o| values[o as usize]).collect()
    }

    /// Operation counts.
    pub fn flops(&self) -> FlopCount {
        let mut c = FlopCount::default();
        for op in &self.nodes {
            match *op {
                Op::Input(..) | Op::Const(_) => {}
                Op::Neg(_) | Op::Add(..) | Op::Sub(..) => c.add += 1,
                Op::Mul(..) => c.mul += 1,
                Op::Powi(_, n) => {
                    c.mul += (n.unsigned_abs() as usize).saturating_sub(1);
                    if n < 0 {
                        c.div += 1;
                    }
                }
                Op::Div(..) => c.div += 1,
                Op::Sqrt(_) => c.sqrt += 1,
                Op::Exp(_)
                | Op::Ln(_)
                | Op::Sin(_)
                | Op::Cos(_)
                | Op::Powf(..)
                | Op::Abs(_)
                | Op::Min(..)
                | Op::Max(..) => c.special += 1,
                Op::Lt(..)
                | Op::Le(..)
                | Op::Eq(..)
                | Op::Ne(..)
                | Op::And(..)
                | Op::Or(..)
                | Op::Not(_)
                | Op::Select(..) => c.branch += 1,
            }
        }
        c.total = c.add + c.mul + c.div + c.sqrt + c.special;
        c
    }

    /// For each output: the state inputs (q, or q⁻; index < 64) it depends on, as a bit mask.
    pub fn state_dependencies(&self) -> Vec<u64> {
        let mut deps: Vec<u64> = Vec::with_capacity(self.nodes.len());
        for op in &self.nodes {
            let mask = match *op {
                Op::Input(InputKind::StateM, i) if i < 64 => 1u64 << i,
                Op::Input(..) | Op::Const(_) => 0,
                _ => op.operands().iter().fold(0, |m, &a| m | deps[a as usize]),
            };
            deps.push(mask);
        }
        self.outputs.iter().map(|&o| deps[o as usize]).collect()
    }

    /// For each output: whether it is affine in the state inputs (coefficients may depend on materials,
    /// normals, positions, time and parameters, but not on the state).
    pub fn linear_outputs(&self) -> Vec<bool> {
        use Degree::*;
        let mut deg: Vec<Degree> = Vec::with_capacity(self.nodes.len());
        for op in &self.nodes {
            let d = |a: NodeId| deg[a as usize];
            let value = match *op {
                Op::Input(kind, _) => {
                    if kind.is_state() {
                        Linear
                    } else {
                        Constant
                    }
                }
                Op::Const(_) => Constant,
                Op::Neg(a) => d(a),
                Op::Add(a, b) | Op::Sub(a, b) => d(a).max(d(b)),
                Op::Mul(a, b) => match (d(a), d(b)) {
                    (Constant, x) | (x, Constant) => x,
                    _ => Nonlinear,
                },
                Op::Div(a, b) => {
                    if d(b) == Constant {
                        d(a)
                    } else {
                        Nonlinear
                    }
                }
                Op::Powi(a, n) => match (d(a), n) {
                    (Constant, _) => Constant,
                    (x, 1) => x,
                    _ => Nonlinear,
                },
                Op::Select(c, a, b) => {
                    if d(c) == Constant {
                        d(a).max(d(b))
                    } else {
                        Nonlinear
                    }
                }
                _ => {
                    if op.operands().iter().all(|&a| d(a) == Constant) {
                        Constant
                    } else {
                        Nonlinear
                    }
                }
            };
            deg.push(value);
        }
        self.outputs.iter().map(|&o| deg[o as usize] != Nonlinear).collect()
    }

    /// Readable listing: one line per operation, inputs by name. `input_name(kind, index)` names inputs.
    pub fn print(
        &self,
        input_name: &dyn Fn(InputKind, usize) -> String,
        output_name: &dyn Fn(usize) -> String,
    ) -> String {
        let mut text = String::new();
        let flops = self.flops();
        let _ = writeln!(
            text,
            "fn {}: {} nodes, {} flops ({} add, {} mul, {} div, {} sqrt, {} special), {} branch ops",
            self.name,
            self.nodes.len(),
            flops.total,
            flops.add,
            flops.mul,
            flops.div,
            flops.sqrt,
            flops.special,
            flops.branch
        );
        let name_of = |id: NodeId| -> String {
            match self.nodes[id as usize] {
                Op::Input(kind, index) => input_name(kind, index as usize),
                Op::Const(bits) => format!("{:?}", f64::from_bits(bits)),
                _ => format!("t{id}"),
            }
        };
        for (id, op) in self.nodes.iter().enumerate() {
            if matches!(op, Op::Input(..) | Op::Const(_)) {
                continue;
            }
            let n = |a: NodeId| name_of(a);
            let rhs = match *op {
                Op::Neg(a) => format!("-{}", n(a)),
                Op::Sqrt(a) => format!("sqrt({})", n(a)),
                Op::Abs(a) => format!("abs({})", n(a)),
                Op::Exp(a) => format!("exp({})", n(a)),
                Op::Ln(a) => format!("ln({})", n(a)),
                Op::Sin(a) => format!("sin({})", n(a)),
                Op::Cos(a) => format!("cos({})", n(a)),
                Op::Not(a) => format!("!{}", n(a)),
                Op::Powi(a, k) => format!("{}^{k}", n(a)),
                Op::Add(a, b) => format!("{} + {}", n(a), n(b)),
                Op::Sub(a, b) => format!("{} - {}", n(a), n(b)),
                Op::Mul(a, b) => format!("{} * {}", n(a), n(b)),
                Op::Div(a, b) => format!("{} / {}", n(a), n(b)),
                Op::Min(a, b) => format!("min({}, {})", n(a), n(b)),
                Op::Max(a, b) => format!("max({}, {})", n(a), n(b)),
                Op::Powf(a, b) => format!("pow({}, {})", n(a), n(b)),
                Op::Lt(a, b) => format!("{} < {}", n(a), n(b)),
                Op::Le(a, b) => format!("{} <= {}", n(a), n(b)),
                Op::Eq(a, b) => format!("{} == {}", n(a), n(b)),
                Op::Ne(a, b) => format!("{} != {}", n(a), n(b)),
                Op::And(a, b) => format!("{} && {}", n(a), n(b)),
                Op::Or(a, b) => format!("{} || {}", n(a), n(b)),
                Op::Select(c, a, b) => format!("{} ? {} : {}", n(c), n(a), n(b)),
                Op::Input(..) | Op::Const(_) => unreachable!("skipped above"),
            };
            let _ = writeln!(text, "  t{id} = {rhs}");
        }
        for (i, &o) in self.outputs.iter().enumerate() {
            let _ = writeln!(text, "  {} = {}", output_name(i), name_of(o));
        }
        text
    }
}
