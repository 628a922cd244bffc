//! The symbolic scalar: running law code with [`Sym`] records its operations in a graph.

use crate::function::IrFunction;
use crate::graph::{Graph, InputKind, NodeId, Op};
use dg_core::law::{Pick, Scalar};
use std::cell::RefCell;
use std::ops::{Add, Div, Mul, Neg, Sub};

thread_local! {
    static GRAPH: RefCell<Option<Graph>> = const { RefCell::new(None) };
}

fn push(op: Op) -> NodeId {
    GRAPH.with(|g| g.borrow_mut().as_mut().expect("Sym used outside dg_ir::trace").push(op))
}

/// A symbolic real: a node of the graph being traced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sym(pub NodeId);

/// A symbolic boolean (comparison result).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SymBool(pub NodeId);

impl Sym {
    /// Input `index` of `kind`.
    pub fn input(kind: InputKind, index: usize) -> Sym {
        Sym(push(Op::Input(kind, index as u16)))
    }
}

/// Traces `body`: the symbols it creates and combines form the graph of an [`IrFunction`] whose outputs are
/// the returned symbols. Nested calls are not allowed.
pub fn trace(name: &str, body: impl FnOnce() -> Vec<Sym>) -> IrFunction {
    GRAPH.with(|g| {
        let mut slot = g.borrow_mut();
        assert!(slot.is_none(), "dg_ir::trace cannot be nested");
        *slot = Some(Graph::default());
    });
    struct Reset;
    impl Drop for Reset {
        fn drop(&mut self) {
            GRAPH.with(|g| *g.borrow_mut() = None);
        }
    }
    let reset = Reset;
    let outputs = body();
    let graph = GRAPH.with(|g| g.borrow_mut().take().expect("graph present"));
    drop(reset);
    IrFunction::from_graph(name, &graph, outputs.iter().map(|s| s.0).collect())
}

macro_rules! binary {
    ($tr:ident, $m:ident, $op:ident) => {
        impl $tr for Sym {
            type Output = Sym;
            fn $m(self, rhs: Sym) -> Sym {
                Sym(push(Op::$op(self.0, rhs.0)))
            }
        }
    };
}
binary!(Add, add, Add);
binary!(Sub, sub, Sub);
binary!(Mul, mul, Mul);
binary!(Div, div, Div);

impl Neg for Sym {
    type Output = Sym;
    fn neg(self) -> Sym {
        Sym(push(Op::Neg(self.0)))
    }
}

impl Scalar for Sym {
    type Bool = SymBool;
    fn cst(value: f64) -> Self {
        Sym(GRAPH.with(|g| g.borrow_mut().as_mut().expect("Sym used outside dg_ir::trace").constant_node(value)))
    }
    fn sqrt(self) -> Self {
        Sym(push(Op::Sqrt(self.0)))
    }
    fn abs(self) -> Self {
        Sym(push(Op::Abs(self.0)))
    }
    fn exp(self) -> Self {
        Sym(push(Op::Exp(self.0)))
    }
    fn ln(self) -> Self {
        Sym(push(Op::Ln(self.0)))
    }
    fn sin(self) -> Self {
        Sym(push(Op::Sin(self.0)))
    }
    fn cos(self) -> Self {
        Sym(push(Op::Cos(self.0)))
    }
    fn powi(self, n: i32) -> Self {
        match n {
            0 => Sym::cst(1.0),
            1 => self,
            _ => Sym(push(Op::Powi(self.0, n))),
        }
    }
    fn powf(self, e: Self) -> Self {
        Sym(push(Op::Powf(self.0, e.0)))
    }
    fn min(self, other: Self) -> Self {
        Sym(push(Op::Min(self.0, other.0)))
    }
    fn max(self, other: Self) -> Self {
        Sym(push(Op::Max(self.0, other.0)))
    }
    fn lt(self, other: Self) -> SymBool {
        SymBool(push(Op::Lt(self.0, other.0)))
    }
    fn le(self, other: Self) -> SymBool {
        SymBool(push(Op::Le(self.0, other.0)))
    }
    fn gt(self, other: Self) -> SymBool {
        SymBool(push(Op::Lt(other.0, self.0)))
    }
    fn ge(self, other: Self) -> SymBool {
        SymBool(push(Op::Le(other.0, self.0)))
    }
    fn eq(self, other: Self) -> SymBool {
        SymBool(push(Op::Eq(self.0, other.0)))
    }
    fn ne(self, other: Self) -> SymBool {
        SymBool(push(Op::Ne(self.0, other.0)))
    }
    fn and(a: SymBool, b: SymBool) -> SymBool {
        SymBool(push(Op::And(a.0, b.0)))
    }
    fn or(a: SymBool, b: SymBool) -> SymBool {
        SymBool(push(Op::Or(a.0, b.0)))
    }
    fn not(a: SymBool) -> SymBool {
        SymBool(push(Op::Not(a.0)))
    }
}

impl Pick<SymBool> for Sym {
    fn pick(c: SymBool, a: Self, b: Self) -> Self {
        Sym(push(Op::Select(c.0, a.0, b.0)))
    }
}
