//! Calls inside law bodies: methods (`sqrt`, `max`, `powi` …), the law's own functions (inlined) and the built-in
//! numerical fluxes (Rusanov, HLL, HLLC, upwind, central).

use super::*;

impl Translator<'_> {
    pub(super) fn method_call(&mut self, m: &syn::ExprMethodCall) -> syn::Result<TokenStream> {
        let s = self.scalar();
        let name = m.method.to_string();
        let Some(&(_, arity)) = MATH_FUNCTIONS.iter().find(|(f, _)| *f == name) else {
            return Err(err(
                &m.method,
                format!("method `{name}` is not supported\n  = help: supported: {}", math_list()),
            ));
        };
        if m.args.len() + 1 != arity {
            return Err(err(m, format!("`{name}` takes {} argument(s) besides the receiver", arity - 1)));
        }
        let receiver = self.expr(&m.receiver)?;
        let method = &m.method;
        if name == "powi" {
            let exponent = int_literal(&m.args[0])?;
            return Ok(quote!(#s::#method(#receiver, #exponent)));
        }
        let args = m.args.iter().map(|a| self.expr(a)).collect::<syn::Result<Vec<_>>>()?;
        Ok(quote!(#s::#method(#receiver #(, #args)*)))
    }

    pub(super) fn call(&mut self, c: &syn::ExprCall) -> syn::Result<TokenStream> {
        let s = self.scalar();
        let Expr::Path(p) = &*c.func else { return Err(err(&c.func, "only named functions can be called")) };
        let Some(ident) = p.path.get_ident() else {
            return Err(err(p, "only the law's own functions, math functions and built-in fluxes can be called"));
        };
        let name = ident.to_string();
        if let Some(&(_, arity)) = MATH_FUNCTIONS.iter().find(|(f, _)| *f == name) {
            if c.args.len() != arity {
                return Err(err(c, format!("`{name}` takes {arity} argument(s), {} given", c.args.len())));
            }
            if name == "powi" {
                let base = self.expr(&c.args[0])?;
                let exponent = int_literal(&c.args[1])?;
                return Ok(quote!(#s::powi(#base, #exponent)));
            }
            let args = c.args.iter().map(|a| self.expr(a)).collect::<syn::Result<Vec<_>>>()?;
            return Ok(quote!(#s::#ident(#(#args),*)));
        }
        if BUILTIN_FLUXES.contains(&name.as_str()) {
            return self.builtin_flux(c, &name);
        }
        let Some(f) = self.law.fn_named(&name) else {
            let law_fns: Vec<String> = self.law.fns.iter().map(|f| f.ident.to_string()).collect();
            return Err(err(
                ident,
                format!(
                    "unknown function `{name}`\n  = help: callable here: the law's functions ({}), math functions ({}) and built-in fluxes ({})",
                    law_fns.join(", "),
                    math_list(),
                    BUILTIN_FLUXES.join(", ")
                ),
            ));
        };
        if c.args.len() != f.params.len() {
            let sig: Vec<String> = f.params.iter().map(|p| format!("{}: {}", p.ident, p.ty.describe())).collect();
            return Err(err(
                c,
                format!(
                    "`{name}` takes {} argument(s), {} given\n  = help: fn {name}({})",
                    f.params.len(),
                    c.args.len(),
                    sig.join(", ")
                ),
            ));
        }
        let args = c.args.iter().map(|a| self.expr(a)).collect::<syn::Result<Vec<_>>>()?;
        Ok(quote!(#ident(__p #(, #args)*)))
    }

    /// `rusanov(qm, qp, [mm, mp,] n)` and its siblings, expanded with the law's functions.
    fn builtin_flux(&mut self, c: &syn::ExprCall, name: &str) -> syn::Result<TokenStream> {
        let law = self.law;
        let k = &law.dg_path;
        let s = self.scalar();
        let has_mat = law.material.is_some();
        let expected = if has_mat { 5 } else { 3 };
        if c.args.len() != expected {
            let sig = if has_mat { "(qm, qp, mm, mp, n)" } else { "(qm, qp, n)" };
            return Err(err(c, format!("`{name}` takes the arguments of the numerical flux: {name}{sig}")));
        }
        let args = c.args.iter().map(|a| self.expr(a)).collect::<syn::Result<Vec<_>>>()?;
        let (qm, qp, n) = (&args[0], &args[1], &args[expected - 1]);
        let (mm_init, mp_init) = if has_mat { (args[2].clone(), args[3].clone()) } else { (quote!(()), quote!(())) };
        // argument list of a law function for one side
        let side = |f: &FnDef, q: TokenStream, m: TokenStream| -> TokenStream {
            let a: Vec<TokenStream> = f
                .params
                .iter()
                .map(|p| match p.ty {
                    Ty::State => q.clone(),
                    Ty::Material => m.clone(),
                    _ => quote!(__n),
                })
                .collect();
            quote!(#(#a),*)
        };
        let flux = law.fn_named("flux").expect("checked: flux exists");
        let speed = law.fn_named("max_speed").expect("checked: max_speed exists");
        let flux_m = side(flux, quote!(__qm), quote!(__mm));
        let flux_p = side(flux, quote!(__qp), quote!(__mp));
        let prelude = quote! {
            let __qm = #qm;
            let __qp = #qp;
            let __mm = #mm_init;
            let __mp = #mp_init;
            let __n = #n;
            let __fm = #k::core::law::builtin::normal_flux(&flux(__p, #flux_m), &__n);
            let __fp = #k::core::law::builtin::normal_flux(&flux(__p, #flux_p), &__n);
        };
        let signal = || -> syn::Result<(TokenStream, TokenStream)> {
            let Some(ss) = law.fn_named("signal_speeds") else {
                return Err(err(
                    c,
                    format!("`{name}` needs the law's signal speeds\n  = help: add `fn signal_speeds(q: State, n: Normal) -> [Real; 2]` (slowest and fastest wave speed along n)"),
                ));
            };
            let (a, b) = (side(ss, quote!(__qm), quote!(__mm)), side(ss, quote!(__qp), quote!(__mp)));
            Ok((
                quote!(#s::min(signal_speeds(__p, #a)[0], signal_speeds(__p, #b)[0])),
                quote!(#s::max(signal_speeds(__p, #a)[1], signal_speeds(__p, #b)[1])),
            ))
        };
        let body = match name {
            "central" => quote!(#k::core::law::builtin::central(__fm, __fp)),
            "rusanov" => {
                let (a, b) = (side(speed, quote!(__qm), quote!(__mm)), side(speed, quote!(__qp), quote!(__mp)));
                quote!(#k::core::law::builtin::rusanov(__fm, __fp, __qm, __qp, #s::max(max_speed(__p, #a), max_speed(__p, #b))))
            }
            "hll" => {
                let (sl, sr) = signal()?;
                quote!(#k::core::law::builtin::hll(__fm, __fp, __qm, __qp, #sl, #sr))
            }
            "hllc" => {
                let (sl, sr) = signal()?;
                let dim = law.dim;
                let fields = law.state.field_names();
                let momentum: Vec<String> = ["mx", "my", "mz"][..dim].iter().map(|s| s.to_string()).collect();
                let expected_fields: Vec<String> = std::iter::once("rho".to_string())
                    .chain(momentum)
                    .chain(std::iter::once("e".to_string()))
                    .collect();
                if fields != expected_fields {
                    return Err(err(
                        c,
                        format!("`hllc` is built in for the Euler equations only\n  = help: it needs `State {{ {} }}` in this order and `fn pressure(q: State) -> Real`", expected_fields.join(", ")),
                    ));
                }
                let Some(pressure) = law.fn_named("pressure") else {
                    return Err(err(c, "`hllc` needs `fn pressure(q: State) -> Real`"));
                };
                let (pa, pb) = (side(pressure, quote!(__qm), quote!(__mm)), side(pressure, quote!(__qp), quote!(__mp)));
                quote!(#k::core::law::builtin::hllc(__fm, __fp, __qm, __qp, pressure(__p, #pa), pressure(__p, #pb), &__n, #dim, #sl, #sr))
            }
            "upwind" => {
                if law.state.fields.len() != 1 {
                    return Err(err(
                        c,
                        "`upwind` is built in for scalar linear laws (one state variable)\n  = help: for linear systems write the upwind flux in the law (see maxwell2d or acoustics2d in dg-laws)",
                    ));
                }
                let one = side(
                    flux,
                    quote!(<State<S> as #k::core::law::StateVector<S>>::from_fn(|_| #s::cst(1.0))),
                    quote!(__mm),
                );
                let zero = side(
                    flux,
                    quote!(<State<S> as #k::core::law::StateVector<S>>::from_fn(|_| #s::cst(0.0))),
                    quote!(__mm),
                );
                quote! {
                    let __a = #k::core::law::StateVector::<S>::get(&#k::core::law::builtin::normal_flux(&flux(__p, #one), &__n), 0)
                        - #k::core::law::StateVector::<S>::get(&#k::core::law::builtin::normal_flux(&flux(__p, #zero), &__n), 0);
                    #k::core::law::builtin::upwind_scalar(__fm, __fp, __a)
                }
            }
            _ => unreachable!("only built-in names reach here"),
        };
        Ok(quote!({ #prelude #body }))
    }
}
