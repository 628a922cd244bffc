//! The expression graph: nodes, hash-consing (CSE) and constant folding.

use std::collections::HashMap;

/// Index of a node in its function's graph.
pub type NodeId = u32;

/// Where an input value comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum InputKind {
    /// State on the own side (q, or q⁻ on a face).
    StateM,
    /// State on the other side of a face (q⁺).
    StateP,
    /// Material of the own element.
    MaterialM,
    /// Material across the face.
    MaterialP,
    /// Unit normal component.
    Normal,
    /// Position component.
    Position,
    /// Time.
    Time,
    /// A law parameter (a `#[param]` constant).
    Param,
}

impl InputKind {
    /// Whether this input is (part of) the conserved state.
    pub fn is_state(self) -> bool {
        matches!(self, InputKind::StateM | InputKind::StateP)
    }
}

/// One operation. Booleans (comparisons, logic) are nodes too; `Select` picks by a boolean node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Op {
    /// Input `index` of a kind.
    Input(InputKind, u16),
    /// A constant, by its bit pattern.
    Const(u64),
    /// −a.
    Neg(NodeId),
    /// √a.
    Sqrt(NodeId),
    /// |a|.
    Abs(NodeId),
    /// eᵃ.
    Exp(NodeId),
    /// ln a.
    Ln(NodeId),
    /// sin a.
    Sin(NodeId),
    /// cos a.
    Cos(NodeId),
    /// aⁿ, integer n.
    Powi(NodeId, i32),
    /// a + b.
    Add(NodeId, NodeId),
    /// a − b.
    Sub(NodeId, NodeId),
    /// a · b.
    Mul(NodeId, NodeId),
    /// a / b.
    Div(NodeId, NodeId),
    /// min(a, b).
    Min(NodeId, NodeId),
    /// max(a, b).
    Max(NodeId, NodeId),
    /// aᵇ.
    Powf(NodeId, NodeId),
    /// a < b.
    Lt(NodeId, NodeId),
    /// a ≤ b.
    Le(NodeId, NodeId),
    /// a == b.
    Eq(NodeId, NodeId),
    /// a ≠ b.
    Ne(NodeId, NodeId),
    /// a ∧ b.
    And(NodeId, NodeId),
    /// a ∨ b.
    Or(NodeId, NodeId),
    /// ¬a.
    Not(NodeId),
    /// c ? a : b.
    Select(NodeId, NodeId, NodeId),
}

impl Op {
    /// The operands of this node.
    pub fn operands(&self) -> Vec<NodeId> {
        match *self {
            Op::Input(..) | Op::Const(_) => vec![],
            Op::Neg(a) | Op::Sqrt(a) | Op::Abs(a) | Op::Exp(a) | Op::Ln(a) | Op::Sin(a) | Op::Cos(a) | Op::Not(a) => {
                vec![a]
            }
            Op::Powi(a, _) => vec![a],
            Op::Add(a, b)
            | Op::Sub(a, b)
            | Op::Mul(a, b)
            | Op::Div(a, b)
            | Op::Min(a, b)
            | Op::Max(a, b)
            | Op::Powf(a, b)
            | Op::Lt(a, b)
            | Op::Le(a, b)
            | Op::Eq(a, b)
            | Op::Ne(a, b)
            | Op::And(a, b)
            | Op::Or(a, b) => vec![a, b],
            Op::Select(c, a, b) => vec![c, a, b],
        }
    }

    /// The same operation on renumbered operands.
    pub fn map_operands(&self, f: impl Fn(NodeId) -> NodeId) -> Op {
        match *self {
            Op::Input(k, i) => Op::Input(k, i),
            Op::Const(c) => Op::Const(c),
            Op::Neg(a) => Op::Neg(f(a)),
            Op::Sqrt(a) => Op::Sqrt(f(a)),
            Op::Abs(a) => Op::Abs(f(a)),
            Op::Exp(a) => Op::Exp(f(a)),
            Op::Ln(a) => Op::Ln(f(a)),
            Op::Sin(a) => Op::Sin(f(a)),
            Op::Cos(a) => Op::Cos(f(a)),
            Op::Not(a) => Op::Not(f(a)),
            Op::Powi(a, n) => Op::Powi(f(a), n),
            Op::Add(a, b) => Op::Add(f(a), f(b)),
            Op::Sub(a, b) => Op::Sub(f(a), f(b)),
            Op::Mul(a, b) => Op::Mul(f(a), f(b)),
            Op::Div(a, b) => Op::Div(f(a), f(b)),
            Op::Min(a, b) => Op::Min(f(a), f(b)),
            Op::Max(a, b) => Op::Max(f(a), f(b)),
            Op::Powf(a, b) => Op::Powf(f(a), f(b)),
            Op::Lt(a, b) => Op::Lt(f(a), f(b)),
            Op::Le(a, b) => Op::Le(f(a), f(b)),
            Op::Eq(a, b) => Op::Eq(f(a), f(b)),
            Op::Ne(a, b) => Op::Ne(f(a), f(b)),
            Op::And(a, b) => Op::And(f(a), f(b)),
            Op::Or(a, b) => Op::Or(f(a), f(b)),
            Op::Select(c, a, b) => Op::Select(f(c), f(a), f(b)),
        }
    }
}

/// A graph under construction: every distinct operation exists once.
#[derive(Debug, Default, Clone)]
pub struct Graph {
    pub(crate) nodes: Vec<Op>,
    index: HashMap<Op, NodeId>,
}

impl Graph {
    /// The constant value of a node, if it is a constant.
    pub(crate) fn constant(&self, id: NodeId) -> Option<f64> {
        match self.nodes[id as usize] {
            Op::Const(bits) => Some(f64::from_bits(bits)),
            _ => None,
        }
    }

    /// Adds an operation (or finds the existing one), after folding and simplification.
    pub(crate) fn push(&mut self, op: Op) -> NodeId {
        let op = canonical(op);
        if let Some(folded) = self.fold(&op) {
            return folded;
        }
        if let Some(&id) = self.index.get(&op) {
            return id;
        }
        let id = self.nodes.len() as NodeId;
        self.nodes.push(op);
        self.index.insert(op, id);
        id
    }

    pub(crate) fn constant_node(&mut self, value: f64) -> NodeId {
        // −0.0 and 0.0 are one constant
        let value = if value == 0.0 { 0.0 } else { value };
        self.push(Op::Const(value.to_bits()))
    }

    fn fold(&mut self, op: &Op) -> Option<NodeId> {
        let operands = op.operands();
        if matches!(op, Op::Input(..) | Op::Const(_)) {
            return None;
        }
        let values: Vec<Option<f64>> = operands.iter().map(|&a| self.constant(a)).collect();
        if values.iter().all(Option::is_some) {
            let v: Vec<f64> = values.into_iter().map(|v| v.expect("checked")).collect();
            let value = crate::function::apply(op, &v);
            if value.is_finite() {
                return Some(self.constant_node(value));
            }
            return None;
        }
        let is = |i: usize, c: f64| values.get(i).copied().flatten() == Some(c);
        match *op {
            Op::Add(_, b) if is(0, 0.0) => Some(b),
            Op::Add(a, _) | Op::Sub(a, _) if is(1, 0.0) => Some(a),
            Op::Mul(_, b) if is(0, 1.0) => Some(b),
            Op::Mul(a, _) | Op::Div(a, _) if is(1, 1.0) => Some(a),
            Op::Mul(..) if is(0, 0.0) || is(1, 0.0) => Some(self.constant_node(0.0)),
            Op::Sub(_, b) if is(0, 0.0) => Some(self.push(Op::Neg(b))),
            Op::Neg(a) => match self.nodes[a as usize] {
                Op::Neg(inner) => Some(inner),
                _ => None,
            },
            Op::Select(c, a, b) => match self.constant(c) {
                Some(v) => Some(if v != 0.0 { a } else { b }),
                None if a == b => Some(a),
                None => None,
            },
            _ => None,
        }
    }
}

/// Orders the operands of commutative operations so that a + b and b + a are one node.
fn canonical(op: Op) -> Op {
    let sort = |a: NodeId, b: NodeId| if a <= b { (a, b) } else { (b, a) };
    match op {
        Op::Add(a, b) => {
            let (a, b) = sort(a, b);
            Op::Add(a, b)
        }
        Op::Mul(a, b) => {
            let (a, b) = sort(a, b);
            Op::Mul(a, b)
        }
        Op::Min(a, b) => {
            let (a, b) = sort(a, b);
            Op::Min(a, b)
        }
        Op::Max(a, b) => {
            let (a, b) = sort(a, b);
            Op::Max(a, b)
        }
        Op::Eq(a, b) => {
            let (a, b) = sort(a, b);
            Op::Eq(a, b)
        }
        Op::Ne(a, b) => {
            let (a, b) = sort(a, b);
            Op::Ne(a, b)
        }
        Op::And(a, b) => {
            let (a, b) = sort(a, b);
            Op::And(a, b)
        }
        Op::Or(a, b) => {
            let (a, b) = sort(a, b);
            Op::Or(a, b)
        }
        other => other,
    }
}
