//! Translation of law function bodies into generic Rust over a scalar `S`, with the checks of the subset.
//!
//! Arithmetic stays arithmetic (`S` implements the operators); literals and constants become `S::cst`;
//! comparisons, math functions and `if`/`else` become calls of `dg_core::law::Scalar` / `select`; calls of
//! other law functions gain the hidden parameter argument `__p`; built-in numerical fluxes are expanded with
//! the law's own `flux`, `max_speed` and `signal_speeds`. Anything else is a spanned error with a hint.

mod calls;

use crate::model::{FnDef, Law, Ty, BUILTIN_FLUXES, MATH_FUNCTIONS};
use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::{BinOp, Block, Expr, Lit, Pat, Stmt, UnOp};

fn err(tokens: impl ToTokens, message: impl std::fmt::Display) -> syn::Error {
    syn::Error::new_spanned(tokens, message.to_string())
}

pub struct Translator<'a> {
    law: &'a Law,
    scopes: Vec<Vec<(String, Ty)>>,
}

impl<'a> Translator<'a> {
    /// Translates the body of `f`.
    pub fn function_body(law: &'a Law, f: &FnDef) -> syn::Result<TokenStream> {
        let mut t = Translator { law, scopes: vec![f.params.iter().map(|p| (p.ident.to_string(), p.ty)).collect()] };
        t.block(&f.body)
    }

    fn lookup(&self, name: &str) -> Option<Ty> {
        self.scopes.iter().rev().find_map(|s| s.iter().rev().find(|(n, _)| n == name).map(|(_, t)| *t))
    }

    fn scalar(&self) -> TokenStream {
        quote!(<S as __Scalar>)
    }

    fn block(&mut self, block: &Block) -> syn::Result<TokenStream> {
        self.scopes.push(Vec::new());
        let mut out = Vec::new();
        let n = block.stmts.len();
        if n == 0 {
            return Err(err(block, "empty body: a law function ends with the expression that is its value"));
        }
        for (i, stmt) in block.stmts.iter().enumerate() {
            let last = i + 1 == n;
            match stmt {
                Stmt::Local(local) => {
                    if last {
                        return Err(err(stmt, "the body must end with an expression (its value), not a `let`"));
                    }
                    out.push(self.local(local)?);
                }
                Stmt::Expr(e, None) if last => out.push(self.expr(e)?),
                Stmt::Expr(e, semi) => {
                    if let Some(early) = forbidden(e) {
                        return Err(early);
                    }
                    let _ = semi;
                    return Err(err(stmt, "a statement without `let` has no effect here\n  = help: bind it with `let name = …;` or make it the final expression"));
                }
                Stmt::Item(item) => return Err(err(item, "items cannot be declared inside law functions\n  = help: declare constants and functions at the law's top level")),
                Stmt::Macro(m) => return Err(err(m, "macros are not supported inside law bodies")),
            }
        }
        self.scopes.pop();
        Ok(quote!({ #(#out)* }))
    }

    fn local(&mut self, local: &syn::Local) -> syn::Result<TokenStream> {
        let Some(init) = &local.init else {
            return Err(err(local, "`let` needs a value: `let name = …;`"));
        };
        if let Some((_, diverge)) = &init.diverge {
            return Err(err(diverge, "`let … else` is not supported"));
        }
        let value = self.expr(&init.expr)?;
        let inferred = self.infer(&init.expr);
        match &local.pat {
            Pat::Ident(pi) => {
                if pi.mutability.is_some() {
                    return Err(err(pi, "`let mut` is not supported: values are never reassigned\n  = help: use a new `let` binding for each new value"));
                }
                self.scopes.last_mut().expect("scope").push((pi.ident.to_string(), inferred.unwrap_or(Ty::Real)));
                let ident = &pi.ident;
                Ok(quote!(let #ident = #value;))
            }
            Pat::Type(pt) => {
                let Pat::Ident(pi) = &*pt.pat else {
                    return Err(err(&pt.pat, "bind a plain name: `let x: Real = …;`"));
                };
                let ty = crate::model::parse_ty(&pt.ty, self.law.dim)?;
                self.scopes.last_mut().expect("scope").push((pi.ident.to_string(), ty));
                let ident = &pi.ident;
                Ok(quote!(let #ident = #value;))
            }
            Pat::Slice(ps) => {
                let mut idents = Vec::new();
                for p in &ps.elems {
                    let Pat::Ident(pi) = p else {
                        return Err(err(p, "array patterns bind plain names: `let [a, b] = …;`"));
                    };
                    idents.push(pi.ident.clone());
                    let element = match inferred {
                        Some(Ty::StateArray(_)) => Ty::State,
                        _ => Ty::Real,
                    };
                    self.scopes.last_mut().expect("scope").push((pi.ident.to_string(), element));
                }
                Ok(quote!(let [#(#idents),*] = #value;))
            }
            other => Err(err(other, "only `let name = …;`, `let name: Type = …;` and `let [a, b] = …;` are supported")),
        }
    }

    /// The type of an expression where it can be told syntactically (for field checks).
    fn infer(&self, e: &Expr) -> Option<Ty> {
        match e {
            Expr::Path(p) => p.path.get_ident().and_then(|i| self.lookup(&i.to_string())),
            Expr::Struct(s) => match s.path.get_ident()?.to_string().as_str() {
                "State" => Some(Ty::State),
                "Material" => Some(Ty::Material),
                _ => None,
            },
            Expr::Call(c) => {
                let Expr::Path(p) = &*c.func else { return None };
                let name = p.path.get_ident()?.to_string();
                if BUILTIN_FLUXES.contains(&name.as_str()) {
                    return Some(Ty::State);
                }
                self.law.fn_named(&name).map(|f| f.ret)
            }
            Expr::Index(i) => match self.infer(&i.expr)? {
                Ty::StateArray(_) => Some(Ty::State),
                _ => Some(Ty::Real),
            },
            Expr::Paren(p) => self.infer(&p.expr),
            Expr::If(i) => i.then_branch.stmts.last().and_then(|s| match s {
                Stmt::Expr(e, None) => self.infer(e),
                _ => None,
            }),
            Expr::Array(a) => match a.elems.first().and_then(|e| self.infer(e)) {
                Some(Ty::State) => Some(Ty::StateArray(a.elems.len())),
                _ => Some(Ty::RealArray(a.elems.len())),
            },
            _ => Some(Ty::Real),
        }
    }

    fn fields_of(&self, ty: Ty) -> Option<Vec<String>> {
        let axes = ["x", "y", "z"][..self.law.dim].iter().map(|s| s.to_string()).collect();
        match ty {
            Ty::State => Some(self.law.state.field_names()),
            Ty::Material => self.law.material.as_ref().map(|m| m.field_names()),
            Ty::Normal | Ty::Position => Some(axes),
            _ => None,
        }
    }

    pub fn expr(&mut self, e: &Expr) -> syn::Result<TokenStream> {
        if let Some(error) = forbidden(e) {
            return Err(error);
        }
        let s = self.scalar();
        match e {
            Expr::Lit(l) => match &l.lit {
                Lit::Float(_) | Lit::Int(_) => {
                    let lit = &l.lit;
                    Ok(quote_spanned!(lit.span()=> #s::cst(#lit as f64)))
                }
                other => Err(err(other, "only numeric literals are supported (all law values are Real)")),
            },
            Expr::Path(p) => self.path(p),
            Expr::Paren(p) => {
                let inner = self.expr(&p.expr)?;
                Ok(quote!((#inner)))
            }
            Expr::Group(g) => self.expr(&g.expr),
            Expr::Unary(u) => {
                let inner = self.expr(&u.expr)?;
                match u.op {
                    UnOp::Neg(_) => Ok(quote!((-#inner))),
                    UnOp::Not(_) => Ok(quote!(#s::not(#inner))),
                    _ => Err(err(u, "dereferencing is not supported: law values are passed by value")),
                }
            }
            Expr::Binary(b) => {
                let (l, r) = (self.expr(&b.left)?, self.expr(&b.right)?);
                let op = &b.op;
                Ok(match b.op {
                    BinOp::Add(_) | BinOp::Sub(_) | BinOp::Mul(_) | BinOp::Div(_) => quote!((#l #op #r)),
                    BinOp::Lt(_) => quote!(#s::lt(#l, #r)),
                    BinOp::Le(_) => quote!(#s::le(#l, #r)),
                    BinOp::Gt(_) => quote!(#s::gt(#l, #r)),
                    BinOp::Ge(_) => quote!(#s::ge(#l, #r)),
                    BinOp::Eq(_) => quote!(#s::eq(#l, #r)),
                    BinOp::Ne(_) => quote!(#s::ne(#l, #r)),
                    BinOp::And(_) => quote!(#s::and(#l, #r)),
                    BinOp::Or(_) => quote!(#s::or(#l, #r)),
                    _ => {
                        return Err(err(op, format!(
                            "operator `{}` is not supported in law bodies\n  = help: use + - * / for arithmetic, comparisons and && || for conditions; assignment is replaced by new `let` bindings",
                            op.to_token_stream()
                        )))
                    }
                })
            }
            Expr::If(i) => self.if_expr(i),
            Expr::Block(b) => {
                if b.label.is_some() {
                    return Err(err(b, "labelled blocks are not supported"));
                }
                self.block(&b.block)
            }
            Expr::Call(c) => self.call(c),
            Expr::MethodCall(m) => self.method_call(m),
            Expr::Field(f) => {
                let base = self.expr(&f.base)?;
                let syn::Member::Named(field) = &f.member else {
                    return Err(err(&f.member, "fields are accessed by name (`q.rho`)"));
                };
                if let Some(ty) = self.infer(&f.base) {
                    if let Some(fields) = self.fields_of(ty) {
                        if !fields.contains(&field.to_string()) {
                            return Err(err(
                                field,
                                format!(
                                    "no field `{field}` on {}\n  = help: its fields are {}",
                                    ty.describe(),
                                    fields.join(", ")
                                ),
                            ));
                        }
                    } else if ty == Ty::Real {
                        return Err(err(field, format!("`{}` is a Real and has no fields", f.base.to_token_stream())));
                    }
                }
                Ok(quote!(#base.#field))
            }
            Expr::Struct(st) => self.struct_literal(st),
            Expr::Array(a) => {
                let elems = a.elems.iter().map(|e| self.expr(e)).collect::<syn::Result<Vec<_>>>()?;
                Ok(quote!([#(#elems),*]))
            }
            Expr::Index(i) => {
                let base = self.expr(&i.expr)?;
                match &*i.index {
                    Expr::Lit(syn::ExprLit { lit: Lit::Int(n), .. }) => Ok(quote!(#base[#n])),
                    other => Err(err(other, "array indices are integer literals (`s[0]`)")),
                }
            }
            other => Err(err(other, "this expression is not part of the law language\n  = help: law bodies use let, arithmetic, comparisons, if/else, math functions, struct literals, fields and calls of the law's functions")),
        }
    }

    fn path(&self, p: &syn::ExprPath) -> syn::Result<TokenStream> {
        let s = self.scalar();
        let Some(ident) = p.path.get_ident() else {
            return Err(err(
                p,
                "paths are not allowed in law bodies\n  = help: declare a constant in the law instead, e.g. `const PI: Real = 3.141592653589793;`",
            ));
        };
        let name = ident.to_string();
        if self.lookup(&name).is_some() {
            return Ok(quote!(#ident));
        }
        if let Some(c) = self.law.consts.iter().find(|c| c.ident == name) {
            if c.is_param {
                let field = format_ident!("{}", name.to_lowercase(), span = ident.span());
                return Ok(quote!(__p.#field));
            }
            return Ok(quote!(#s::cst(#ident)));
        }
        Err(err(
            ident,
            format!(
                "`{name}` is not defined in this law\n  = help: law bodies may use their parameters, `let` bindings and the law's constants; values from outside the law cannot be captured"
            ),
        ))
    }

    fn if_expr(&mut self, i: &syn::ExprIf) -> syn::Result<TokenStream> {
        let Some((_, else_branch)) = &i.else_branch else {
            return Err(err(i, "`if` needs an `else`: both branches are evaluated and one is selected\n  = help: write `if c { a } else { b }`"));
        };
        if let Expr::Let(l) = &*i.cond {
            return Err(err(l, "`if let` is not supported"));
        }
        let cond = self.expr(&i.cond)?;
        let then = self.block(&i.then_branch)?;
        let other = self.expr(else_branch)?;
        let k = &self.law.dg_path;
        Ok(quote!(#k::core::law::select(#cond, #then, #other)))
    }

    fn struct_literal(&mut self, st: &syn::ExprStruct) -> syn::Result<TokenStream> {
        let name = st.path.get_ident().map(|i| i.to_string()).unwrap_or_default();
        let (ty, fields) = match name.as_str() {
            "State" => (Ty::State, self.law.state.field_names()),
            "Material" if self.law.material.is_some() => {
                (Ty::Material, self.fields_of(Ty::Material).unwrap_or_default())
            }
            _ => {
                return Err(err(
                    &st.path,
                    format!(
                        "`{}` cannot be built in a law body\n  = help: struct literals build `State` (or `Material`)",
                        st.path.to_token_stream()
                    ),
                ))
            }
        };
        if let Some(rest) = &st.rest {
            return Err(err(rest, "`..` is not supported: give every field"));
        }
        let mut given = Vec::new();
        let mut out = Vec::new();
        for fv in &st.fields {
            let syn::Member::Named(field) = &fv.member else { return Err(err(&fv.member, "fields are named")) };
            if !fields.contains(&field.to_string()) {
                return Err(err(
                    field,
                    format!("no field `{field}` on {}\n  = help: its fields are {}", ty.describe(), fields.join(", ")),
                ));
            }
            given.push(field.to_string());
            let value = self.expr(&fv.expr)?;
            out.push(quote!(#field: #value));
        }
        let missing: Vec<&String> = fields.iter().filter(|f| !given.contains(f)).collect();
        if !missing.is_empty() {
            return Err(err(
                st,
                format!(
                    "missing field(s) {} in {}",
                    missing.iter().map(|s| format!("`{s}`")).collect::<Vec<_>>().join(", "),
                    ty.describe()
                ),
            ));
        }
        let path = &st.path;
        Ok(quote!(#path { #(#out),* }))
    }
}

fn math_list() -> String {
    MATH_FUNCTIONS.iter().map(|(f, _)| *f).collect::<Vec<_>>().join(", ")
}

fn int_literal(e: &Expr) -> syn::Result<TokenStream> {
    let (neg, inner) = match e {
        Expr::Unary(syn::ExprUnary { op: UnOp::Neg(_), expr, .. }) => (true, &**expr),
        other => (false, other),
    };
    match inner {
        Expr::Lit(syn::ExprLit { lit: Lit::Int(i), .. }) => {
            let v: i32 = i.base10_parse()?;
            let v = if neg { -v } else { v };
            Ok(quote!(#v))
        }
        other => Err(err(
            other,
            "`powi` takes an integer literal exponent, e.g. `x.powi(2)`; use `powf` for a Real exponent",
        )),
    }
}

/// Constructs that are outside the subset, with their own explanation.
fn forbidden(e: &Expr) -> Option<syn::Error> {
    let msg = match e {
        Expr::ForLoop(_) | Expr::While(_) | Expr::Loop(_) => {
            "loops are not supported in law bodies\n  = help: write the operations out (a law body is a straight-line expression the IR can trace)"
        }
        Expr::Closure(_) => "closures are not supported in law bodies\n  = help: declare a function in the law instead",
        Expr::Match(_) => "`match` is not supported\n  = help: use if / else",
        Expr::Return(_) => "`return` is not supported\n  = help: the last expression of the body is its value",
        Expr::Reference(_) => "references are not supported: states are passed by value",
        Expr::Macro(_) => "macros are not supported inside law bodies",
        Expr::Cast(_) => "`as` casts are not supported: every law value is Real",
        Expr::Assign(_) => "assignment is not supported\n  = help: bind a new name with `let`",
        Expr::Unsafe(_) | Expr::Async(_) | Expr::Await(_) => "unsafe and async code is not part of the law language",
        Expr::Tuple(_) => "tuples are not supported\n  = help: return several Reals as an array, e.g. `[a, b]` with `-> [Real; 2]`",
        Expr::Range(_) => "ranges are not supported in law bodies",
        Expr::Break(_) | Expr::Continue(_) => "loops are not supported in law bodies",
        _ => return None,
    };
    Some(err(e, msg))
}
