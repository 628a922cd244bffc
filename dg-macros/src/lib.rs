//! The `#[conservation_law]` attribute macro of dg.
//!
//! It reads a module that describes a conservation law in a small Rust subset (see `docs/laws.md`) and emits:
//! the law's functions generic over a scalar (native `f32`/`f64` code and symbolic tracing share them), an
//! implementation of `dg_core::law::ConservationLaw` for the generated `Law` type, a `ir()` function building
//! the law's IR, and a registration so that `dg laws` lists it.
//!
//! The crate has three parts: `model` reads and checks the module, `body` translates function bodies (and
//! rejects anything outside the subset with a spanned error and a hint), `emit` writes the output.

mod args;
mod body;
mod emit;
mod model;

use proc_macro::TokenStream;

/// Declares a conservation law. See `docs/laws.md` for the syntax and a worked example.
///
/// ```text
/// #[dg::conservation_law(dim = 2)]
/// pub mod advection2d {
///     pub struct State { pub u: Real }
///     #[param] pub const AX: Real = 1.0;
///     #[param] pub const AY: Real = 0.5;
///     pub fn flux(q: State) -> [State; 2] { [State { u: AX * q.u }, State { u: AY * q.u }] }
///     pub fn max_speed(q: State, n: Normal) -> Real { (AX * n.x + AY * n.y).abs() }
///     pub fn numerical_flux(qm: State, qp: State, n: Normal) -> State { upwind(qm, qp, n) }
/// }
/// ```
#[proc_macro_attribute]
pub fn conservation_law(attr: TokenStream, item: TokenStream) -> TokenStream {
    match expand(attr.into(), item.into()) {
        Ok(tokens) => tokens.into(),
        Err(err) => err.to_compile_error().into(),
    }
}

fn expand(attr: proc_macro2::TokenStream, item: proc_macro2::TokenStream) -> syn::Result<proc_macro2::TokenStream> {
    let args = args::LawArgs::parse(attr)?;
    let module: syn::ItemMod = syn::parse2(item)
        .map_err(|e| syn::Error::new(e.span(), "#[conservation_law] goes on a module: `pub mod my_law { … }`"))?;
    let law = model::Law::from_module(args, module)?;
    emit::emit(&law)
}
