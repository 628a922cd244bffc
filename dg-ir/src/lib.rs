//! The intermediate representation of a dg law.
//!
//! Each law function (flux, wave speed, numerical fluxes, boundary states, source) becomes an [`IrFunction`]:
//! a DAG of scalar operations over named inputs. The DAG is built by running the macro-generated generic law
//! code with the symbolic scalar [`Sym`] ([`trace`]); hash-consing makes equal subexpressions one node
//! (common-subexpression elimination), constants are folded. On top: an evaluator ([`IrFunction::eval`]),
//! flop counts ([`IrFunction::flops`]), linearity in the state ([`IrFunction::linear_outputs`]), a readable
//! printer, and a stable content hash of the whole law ([`LawIr::hash`]).

mod divergence;
mod function;
mod graph;
mod law;
mod sym;

pub use divergence::DivergencePlan;
pub use function::{FlopCount, Inputs, IrFunction};
pub use graph::{InputKind, NodeId, Op};
pub use law::{registered_laws, FunctionRole, LawIr, LawRegistration};
pub use sym::{trace, Sym, SymBool};

#[doc(hidden)]
pub use inventory;
