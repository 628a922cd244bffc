//! Reads the law module into a model and checks its shape: which structs, constants and functions it has,
//! and that the required functions have the signatures their roles need.

use crate::args::LawArgs;
use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Attribute, Block, Expr, FnArg, Ident, Item, ItemMod, Pat, ReturnType, Type, Visibility};

/// Names of the built-in numerical fluxes (not usable as law function names).
pub const BUILTIN_FLUXES: [&str; 5] = ["central", "rusanov", "hll", "hllc", "upwind"];
/// Math functions of the subset: (name, number of arguments).
pub const MATH_FUNCTIONS: [(&str, usize); 10] = [
    ("sqrt", 1),
    ("abs", 1),
    ("exp", 1),
    ("ln", 1),
    ("sin", 1),
    ("cos", 1),
    ("min", 2),
    ("max", 2),
    ("powi", 2),
    ("powf", 2),
];

/// The types a law function may take and return.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ty {
    Real,
    State,
    Material,
    Normal,
    Position,
    StateArray(usize),
    RealArray(usize),
}

impl Ty {
    pub fn describe(self) -> String {
        match self {
            Ty::Real => "Real".into(),
            Ty::State => "State".into(),
            Ty::Material => "Material".into(),
            Ty::Normal => "Normal".into(),
            Ty::Position => "Position".into(),
            Ty::StateArray(n) => format!("[State; {n}]"),
            Ty::RealArray(n) => format!("[Real; {n}]"),
        }
    }
}

/// `struct State` or `struct Material`.
pub struct StructDef {
    pub ident: Ident,
    pub attrs: Vec<Attribute>,
    pub vis: Visibility,
    pub fields: Vec<(Ident, Vec<Attribute>)>,
}

impl StructDef {
    pub fn field_names(&self) -> Vec<String> {
        self.fields.iter().map(|(f, _)| f.to_string()).collect()
    }
}

/// A constant; `#[param]` ones become run-time parameters of the law.
pub struct ConstDef {
    pub ident: Ident,
    pub attrs: Vec<Attribute>,
    pub vis: Visibility,
    pub expr: Expr,
    pub is_param: bool,
}

/// What a function is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Flux,
    MaxSpeed,
    NumericalFlux,
    Boundary,
    Source,
    SignalSpeeds,
    Admissible,
    Helper,
}

pub struct Param {
    pub ident: Ident,
    pub ty: Ty,
}

pub struct FnDef {
    pub ident: Ident,
    pub attrs: Vec<Attribute>,
    pub vis: Visibility,
    pub role: Role,
    pub params: Vec<Param>,
    pub ret: Ty,
    pub body: Block,
}

pub struct Law {
    pub dim: usize,
    pub name: String,
    pub dg_path: syn::Path,
    pub attrs: Vec<Attribute>,
    pub vis: Visibility,
    pub ident: Ident,
    pub state: StructDef,
    pub material: Option<StructDef>,
    pub consts: Vec<ConstDef>,
    pub fns: Vec<FnDef>,
}

fn has_marker(attrs: &[Attribute], name: &str) -> bool {
    attrs.iter().any(|a| a.path().is_ident(name))
}

fn strip_markers(attrs: &[Attribute]) -> Vec<Attribute> {
    attrs
        .iter()
        .filter(|a| !["param", "boundary", "numerical_flux"].iter().any(|m| a.path().is_ident(m)))
        .cloned()
        .collect()
}

pub fn parse_ty(ty: &Type, dim_hint: usize) -> syn::Result<Ty> {
    let _ = dim_hint;
    let unsupported = |t: &dyn quote::ToTokens| {
        syn::Error::new_spanned(
            t,
            "unsupported type in a law: use Real, State, Material, Normal, Position, [State; N] or [Real; N]\n  = help: every quantity of a law is a Real (f32 or f64, chosen when the law runs)",
        )
    };
    match ty {
        Type::Path(p) if p.qself.is_none() => {
            let Some(ident) = p.path.get_ident() else { return Err(unsupported(ty)) };
            match ident.to_string().as_str() {
                "Real" => Ok(Ty::Real),
                "State" => Ok(Ty::State),
                "Material" => Ok(Ty::Material),
                "Normal" => Ok(Ty::Normal),
                "Position" => Ok(Ty::Position),
                _ => Err(unsupported(ty)),
            }
        }
        Type::Array(a) => {
            let len = match &a.len {
                Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. }) => i.base10_parse::<usize>()?,
                other => return Err(syn::Error::new_spanned(other, "array lengths in a law are integer literals")),
            };
            match parse_ty(&a.elem, dim_hint)? {
                Ty::State => Ok(Ty::StateArray(len)),
                Ty::Real => Ok(Ty::RealArray(len)),
                _ => Err(unsupported(ty)),
            }
        }
        _ => Err(unsupported(ty)),
    }
}

fn parse_struct(s: &syn::ItemStruct) -> syn::Result<StructDef> {
    if !s.generics.params.is_empty() {
        return Err(syn::Error::new_spanned(
            &s.generics,
            "law structs take no generic parameters (Real is chosen for you)",
        ));
    }
    let syn::Fields::Named(named) = &s.fields else {
        return Err(syn::Error::new_spanned(
            &s.fields,
            format!("`{}` needs named fields, e.g. `pub struct {} {{ pub u: Real }}`", s.ident, s.ident),
        ));
    };
    if named.named.is_empty() {
        return Err(syn::Error::new_spanned(s, format!("`{}` needs at least one field", s.ident)));
    }
    let mut fields = Vec::new();
    for f in &named.named {
        if parse_ty(&f.ty, 0)? != Ty::Real {
            return Err(syn::Error::new_spanned(&f.ty, format!("fields of `{}` are Real", s.ident)));
        }
        fields.push((f.ident.clone().expect("named field"), f.attrs.clone()));
    }
    Ok(StructDef { ident: s.ident.clone(), attrs: s.attrs.clone(), vis: s.vis.clone(), fields })
}

fn parse_fn(f: &syn::ItemFn, law_dim: usize) -> syn::Result<FnDef> {
    let sig = &f.sig;
    if !sig.generics.params.is_empty() {
        return Err(syn::Error::new_spanned(&sig.generics, "law functions take no generic parameters"));
    }
    if let Some(t) = sig.asyncness.as_ref().map(|t| t.span()).or(sig.unsafety.as_ref().map(|t| t.span())) {
        return Err(syn::Error::new(t, "law functions are plain functions (no async, no unsafe)"));
    }
    let name = sig.ident.to_string();
    if BUILTIN_FLUXES.contains(&name.as_str()) || MATH_FUNCTIONS.iter().any(|(m, _)| *m == name) {
        return Err(syn::Error::new_spanned(
            &sig.ident,
            format!("`{name}` is a built-in of the law language\n  = help: name your function differently, e.g. `{name}_flux`"),
        ));
    }
    let mut params = Vec::new();
    for arg in &sig.inputs {
        let FnArg::Typed(pt) = arg else {
            return Err(syn::Error::new_spanned(arg, "law functions are free functions: no `self`"));
        };
        let Pat::Ident(pi) = &*pt.pat else {
            return Err(syn::Error::new_spanned(&pt.pat, "parameters are plain names, e.g. `q: State`"));
        };
        if pi.mutability.is_some() || pi.by_ref.is_some() {
            return Err(syn::Error::new_spanned(&pt.pat, "parameters are plain names (no `mut`, no `ref`)"));
        }
        params.push(Param { ident: pi.ident.clone(), ty: parse_ty(&pt.ty, law_dim)? });
    }
    let ret = match &sig.output {
        ReturnType::Default => {
            return Err(syn::Error::new_spanned(
                sig,
                format!("`{name}` must return a value, e.g. `-> Real` or `-> State`"),
            ))
        }
        ReturnType::Type(_, t) => parse_ty(t, law_dim)?,
    };
    let role = if has_marker(&f.attrs, "boundary") {
        Role::Boundary
    } else if has_marker(&f.attrs, "numerical_flux") || name == "numerical_flux" {
        Role::NumericalFlux
    } else {
        match name.as_str() {
            "flux" => Role::Flux,
            "max_speed" => Role::MaxSpeed,
            "source" => Role::Source,
            "signal_speeds" => Role::SignalSpeeds,
            "admissible" => Role::Admissible,
            _ => Role::Helper,
        }
    };
    Ok(FnDef {
        ident: sig.ident.clone(),
        attrs: strip_markers(&f.attrs),
        vis: f.vis.clone(),
        role,
        params,
        ret,
        body: (*f.block).clone(),
    })
}

/// Checks a function's parameter kinds against what its role needs: `required` in order of appearance by
/// type, `optional` may appear too. Returns a spanned error naming the expected signature.
fn check_signature(f: &FnDef, required: &[Ty], optional: &[Ty], ret: Ty, expected: &str) -> syn::Result<()> {
    let wrong = |span: Span, what: String| syn::Error::new(span, format!("{what}\n  = help: expected `{expected}`"));
    if f.ret != ret {
        return Err(wrong(
            f.ident.span(),
            format!("`{}` returns {}, not {}", f.ident, ret.describe(), f.ret.describe()),
        ));
    }
    let mut need: Vec<Ty> = required.to_vec();
    let mut may: Vec<Ty> = optional.to_vec();
    for p in &f.params {
        if let Some(i) = need.iter().position(|&t| t == p.ty) {
            need.remove(i);
        } else if let Some(i) = may.iter().position(|&t| t == p.ty) {
            may.remove(i);
        } else {
            return Err(wrong(
                p.ident.span(),
                format!("`{}` does not take a parameter of type {} here", f.ident, p.ty.describe()),
            ));
        }
    }
    if let Some(t) = need.first() {
        return Err(wrong(f.ident.span(), format!("`{}` is missing a parameter of type {}", f.ident, t.describe())));
    }
    Ok(())
}

impl Law {
    pub fn from_module(args: LawArgs, module: ItemMod) -> syn::Result<Self> {
        let Some((_, items)) = module.content else {
            return Err(syn::Error::new_spanned(&module, "the law module needs a body: `pub mod my_law { … }`"));
        };
        let mut state = None;
        let mut material = None;
        let mut consts = Vec::new();
        let mut fns: Vec<FnDef> = Vec::new();
        for item in &items {
            match item {
                Item::Struct(s) if s.ident == "State" => state = Some(parse_struct(s)?),
                Item::Struct(s) if s.ident == "Material" => material = Some(parse_struct(s)?),
                Item::Struct(s) => {
                    return Err(syn::Error::new_spanned(
                        &s.ident,
                        format!("unexpected struct `{}`: a law declares `struct State` and optionally `struct Material`", s.ident),
                    ))
                }
                Item::Const(c) => {
                    if parse_ty(&c.ty, args.dim)? != Ty::Real {
                        return Err(syn::Error::new_spanned(&c.ty, "law constants are Real"));
                    }
                    consts.push(ConstDef {
                        ident: c.ident.clone(),
                        attrs: strip_markers(&c.attrs),
                        vis: c.vis.clone(),
                        expr: (*c.expr).clone(),
                        is_param: has_marker(&c.attrs, "param"),
                    });
                }
                Item::Fn(f) => fns.push(parse_fn(f, args.dim)?),
                other => {
                    return Err(syn::Error::new_spanned(
                        other,
                        "only `struct State`, `struct Material`, constants and functions may appear in a law\n  = help: move other items outside the law module",
                    ))
                }
            }
        }
        let Some(state) = state else {
            return Err(syn::Error::new_spanned(
                &module.ident,
                "missing `struct State`: declare the conserved variables\n  = help: e.g. `pub struct State { pub rho: Real, pub mx: Real, pub my: Real, pub e: Real }`",
            ));
        };
        let law = Law {
            dim: args.dim,
            name: args.name.unwrap_or_else(|| module.ident.to_string()),
            dg_path: args.dg_path,
            attrs: module.attrs,
            vis: module.vis,
            ident: module.ident,
            state,
            material,
            consts,
            fns,
        };
        law.check(args.dim_span)?;
        Ok(law)
    }

    pub fn fn_named(&self, name: &str) -> Option<&FnDef> {
        self.fns.iter().find(|f| f.ident == name)
    }

    pub fn fns_of(&self, role: Role) -> impl Iterator<Item = &FnDef> {
        self.fns.iter().filter(move |f| f.role == role)
    }

    fn check(&self, _dim_span: Span) -> syn::Result<()> {
        let d = self.dim;
        let mat: &[Ty] = if self.material.is_some() { &[Ty::Material] } else { &[] };
        let mat2: &[Ty] = if self.material.is_some() { &[Ty::Material, Ty::Material] } else { &[] };
        for (required, what) in [
            ("flux", "the physical flux"),
            ("max_speed", "the largest wave speed"),
            ("numerical_flux", "the numerical flux"),
        ] {
            if self.fn_named(required).is_none() {
                let example = match required {
                    "flux" => format!("pub fn flux(q: State) -> [State; {d}] {{ … }}"),
                    "max_speed" => "pub fn max_speed(q: State, n: Normal) -> Real { … }".to_string(),
                    _ => "pub fn numerical_flux(qm: State, qp: State, n: Normal) -> State { rusanov(qm, qp, n) }"
                        .to_string(),
                };
                return Err(syn::Error::new_spanned(
                    &self.ident,
                    format!("missing `{required}` ({what})\n  = help: add `{example}`"),
                ));
            }
        }
        for f in &self.fns {
            let concat = |a: &[Ty], b: &[Ty]| [a, b].concat();
            match f.role {
                Role::Flux => check_signature(
                    f,
                    &[Ty::State],
                    mat,
                    Ty::StateArray(d),
                    &format!("fn flux(q: State) -> [State; {d}]"),
                )?,
                Role::MaxSpeed => check_signature(
                    f,
                    &[Ty::State, Ty::Normal],
                    mat,
                    Ty::Real,
                    "fn max_speed(q: State, n: Normal) -> Real",
                )?,
                Role::NumericalFlux => check_signature(
                    f,
                    &concat(&[Ty::State, Ty::State, Ty::Normal], mat2),
                    &[],
                    Ty::State,
                    "fn numerical_flux(qm: State, qp: State, n: Normal) -> State",
                )?,
                Role::Boundary => check_signature(
                    f,
                    &[Ty::State],
                    &concat(mat, &[Ty::Normal, Ty::Position, Ty::Real]),
                    Ty::State,
                    "#[boundary] fn wall(q: State, n: Normal) -> State (optionally x: Position, t: Real)",
                )?,
                Role::Source => check_signature(
                    f,
                    &[Ty::State],
                    &concat(mat, &[Ty::Position, Ty::Real]),
                    Ty::State,
                    "fn source(q: State, x: Position, t: Real) -> State",
                )?,
                Role::SignalSpeeds => check_signature(
                    f,
                    &[Ty::State, Ty::Normal],
                    mat,
                    Ty::RealArray(2),
                    "fn signal_speeds(q: State, n: Normal) -> [Real; 2] (slowest, fastest)",
                )?,
                Role::Admissible => check_signature(
                    f,
                    &[Ty::State],
                    mat,
                    Ty::Real,
                    "fn admissible(q: State) -> Real (positive exactly for admissible states)",
                )?,
                Role::Helper => {
                    if matches!(f.ret, Ty::Normal | Ty::Position) {
                        return Err(syn::Error::new_spanned(
                            &f.ident,
                            "helper functions return Real, State, Material or arrays of those",
                        ));
                    }
                }
            }
        }
        let mut seen: Vec<String> = Vec::new();
        for f in self.fns_of(Role::Boundary) {
            let name = f.ident.to_string();
            if seen.contains(&name) {
                return Err(syn::Error::new_spanned(
                    &f.ident,
                    format!("duplicate boundary `{name}`\n  = help: each boundary condition needs its own name"),
                ));
            }
            seen.push(name);
        }
        let mut names: Vec<String> = Vec::new();
        for f in &self.fns {
            let name = f.ident.to_string();
            if names.contains(&name) {
                return Err(syn::Error::new_spanned(&f.ident, format!("the function `{name}` is defined twice")));
            }
            names.push(name);
        }
        let mut const_names: Vec<String> = Vec::new();
        for c in &self.consts {
            let name = c.ident.to_string();
            if const_names.contains(&name) {
                return Err(syn::Error::new_spanned(&c.ident, format!("the constant `{name}` is defined twice")));
            }
            const_names.push(name);
        }
        Ok(())
    }
}
