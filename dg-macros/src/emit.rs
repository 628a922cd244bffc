//! Writes the expanded law module.

use crate::body::Translator;
use crate::model::{FnDef, Law, Role, StructDef, Ty};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

fn camel(name: &str) -> String {
    name.split('_')
        .filter(|s| !s.is_empty())
        .map(|s| {
            let mut c = s.chars();
            c.next().map(|f| f.to_uppercase().collect::<String>() + c.as_str()).unwrap_or_default()
        })
        .collect()
}

fn ty_tokens(ty: Ty) -> TokenStream {
    match ty {
        Ty::Real => quote!(S),
        Ty::State => quote!(State<S>),
        Ty::Material => quote!(Material<S>),
        Ty::Normal => quote!(__Normal<S>),
        Ty::Position => quote!(__Position<S>),
        Ty::StateArray(n) => quote!([State<S>; #n]),
        Ty::RealArray(n) => quote!([S; #n]),
    }
}

/// The generic struct, its `StateVector` and `Pick` implementations.
fn emit_struct(law: &Law, def: &StructDef) -> TokenStream {
    let k = &law.dg_path;
    let StructDef { ident, attrs, vis, fields } = def;
    let names: Vec<_> = fields.iter().map(|(f, _)| f).collect();
    let field_attrs: Vec<_> = fields.iter().map(|(_, a)| a).collect();
    let len = names.len();
    let idx: Vec<usize> = (0..len).collect();
    quote! {
        #(#attrs)*
        #[derive(Debug, Clone, Copy, PartialEq)]
        #vis struct #ident<S> {
            #( #(#field_attrs)* pub #names: S, )*
        }
        impl<S: Copy> #k::core::law::StateVector<S> for #ident<S> {
            const LEN: usize = #len;
            fn get(&self, i: usize) -> S {
                match i {
                    #( #idx => self.#names, )*
                    _ => panic!("component {} of a {}-component vector", i, #len),
                }
            }
            fn from_fn(mut f: impl FnMut(usize) -> S) -> Self {
                #( let #names = f(#idx); )*
                Self { #(#names),* }
            }
        }
        impl<B: Copy, S: #k::core::law::Pick<B>> #k::core::law::Pick<B> for #ident<S> {
            fn pick(c: B, a: Self, b: Self) -> Self {
                Self { #( #names: S::pick(c, a.#names, b.#names), )* }
            }
        }
    }
}

fn emit_fn(law: &Law, f: &FnDef) -> syn::Result<TokenStream> {
    let k = &law.dg_path;
    let body = Translator::function_body(law, f)?;
    let FnDef { ident, attrs, vis, params, ret, .. } = f;
    let names: Vec<_> = params.iter().map(|p| &p.ident).collect();
    let tys: Vec<_> = params.iter().map(|p| ty_tokens(p.ty)).collect();
    let ret = ty_tokens(*ret);
    Ok(quote! {
        #(#attrs)*
        #[allow(unused_variables, unused_parens, clippy::all)]
        #vis fn #ident<S: #k::core::law::LawScalar>(__p: &Params<S> #(, #names: #tys)*) -> #ret #body
    })
}

/// Arguments for calling `f` from the trait implementation or the tracer: each parameter by its kind.
/// `states` and `materials` are consumed in order (q⁻ then q⁺).
struct Slots {
    states: Vec<TokenStream>,
    materials: Vec<TokenStream>,
    normal: TokenStream,
    position: TokenStream,
    time: TokenStream,
}

fn call_args(f: &FnDef, slots: &Slots) -> TokenStream {
    let (mut si, mut mi) = (0, 0);
    let args: Vec<TokenStream> = f
        .params
        .iter()
        .map(|p| match p.ty {
            Ty::State => {
                si += 1;
                slots.states[si - 1].clone()
            }
            Ty::Material => {
                mi += 1;
                slots.materials[mi - 1].clone()
            }
            Ty::Normal => slots.normal.clone(),
            Ty::Position => slots.position.clone(),
            _ => slots.time.clone(),
        })
        .collect();
    quote!(#(#args),*)
}

pub fn emit(law: &Law) -> syn::Result<TokenStream> {
    let k = &law.dg_path;
    let dim = law.dim;
    let Law { attrs, vis, ident, .. } = law;
    let name = &law.name;
    let state = emit_struct(law, &law.state);
    let nvars = law.state.fields.len();
    let (material, material_t, nmat, material_names) = match &law.material {
        Some(m) => (emit_struct(law, m), quote!(Material<T>), m.fields.len(), m.field_names()),
        None => (quote!(), quote!(()), 0usize, vec![]),
    };
    let variable_names = law.state.field_names();

    // constants and parameters
    let mut consts = Vec::new();
    let mut param_fields = Vec::new();
    let mut param_defaults = Vec::new();
    let mut param_names = Vec::new();
    let mut param_consts = Vec::new();
    for c in &law.consts {
        let (cident, cattrs, cvis, expr) = (&c.ident, &c.attrs, &c.vis, &c.expr);
        consts.push(quote!(#(#cattrs)* #cvis const #cident: f64 = #expr;));
        if c.is_param {
            let field = format_ident!("{}", c.ident.to_string().to_lowercase());
            param_fields.push(field);
            param_defaults.push(cident.clone());
            param_names.push(c.ident.to_string().to_lowercase());
            param_consts.push(cident.clone());
        }
    }
    let param_idx: Vec<usize> = (0..param_fields.len()).collect();

    let fns = law.fns.iter().map(|f| emit_fn(law, f)).collect::<syn::Result<Vec<_>>>()?;

    // numerical flux choice
    let nfluxes: Vec<&FnDef> = {
        let mut v: Vec<&FnDef> = law.fns_of(Role::NumericalFlux).collect();
        v.sort_by_key(|f| f.ident != "numerical_flux");
        v
    };
    let nflux_names: Vec<String> = nfluxes.iter().map(|f| f.ident.to_string()).collect();
    let nflux_variants: Vec<_> = nfluxes.iter().map(|f| format_ident!("{}", camel(&f.ident.to_string()))).collect();
    let nflux_idents: Vec<_> = nfluxes.iter().map(|f| &f.ident).collect();
    let default_variant = &nflux_variants[0];
    let boundaries: Vec<&FnDef> = law.fns_of(Role::Boundary).collect();
    let boundary_names: Vec<String> = boundaries.iter().map(|f| f.ident.to_string()).collect();
    let boundary_idents: Vec<_> = boundaries.iter().map(|f| &f.ident).collect();
    let boundary_idx: Vec<usize> = (0..boundaries.len()).collect();
    let nbound = boundaries.len();
    let source = law.fn_named("source").filter(|f| f.role == Role::Source);
    let admissible = law.fn_named("admissible").filter(|f| f.role == Role::Admissible);

    let read_state = |slice: TokenStream| quote!(<State<T> as #k::core::law::StateVector<T>>::from_fn(|i| #slice[i]));
    let read_mat = |slice: TokenStream| {
        if law.material.is_some() {
            quote!(<Material<T> as #k::core::law::StateVector<T>>::from_fn(|i| #slice[i]))
        } else {
            quote!(())
        }
    };
    let native = Slots {
        states: vec![quote!(__qm), quote!(__qp)],
        materials: vec![quote!(__mm), quote!(__mp)],
        normal: quote!(__n),
        position: quote!(__x),
        time: quote!(t),
    };
    let flux_fn = law.fn_named("flux").expect("checked");
    let speed_fn = law.fn_named("max_speed").expect("checked");
    let flux_args = call_args(flux_fn, &native);
    let speed_args = call_args(speed_fn, &native);
    let nflux_calls: Vec<TokenStream> = nfluxes.iter().map(|f| call_args(f, &native)).collect();
    let boundary_calls: Vec<TokenStream> = boundaries.iter().map(|f| call_args(f, &native)).collect();
    let (mm_read, mp_read) = (read_mat(quote!(matm)), read_mat(quote!(matp)));
    let (m_read, qm_read, qp_read) = (read_mat(quote!(mat)), read_state(quote!(qm)), read_state(quote!(qp)));
    let q_read = read_state(quote!(q));
    let normal_read = quote!(#k::core::law::Normal::<T>::from_fn(#dim, |d| n[d]));
    let position_read = quote!(#k::core::law::Position::<T>::from_fn(#dim, |d| x[d]));
    let has_source = source.is_some();
    let source_impl = match source {
        Some(f) => {
            let args = call_args(f, &native);
            let si = &f.ident;
            quote! {
                let __p = self.params::<T>();
                let __qm = #q_read;
                let __mm: #material_t = #m_read;
                let __x = #position_read;
                let out = #si(&__p, #args);
                for v in 0..#nvars { s[v] = #k::core::law::StateVector::<T>::get(&out, v); }
            }
        }
        None => quote! { for v in s.iter_mut().take(#nvars) { *v = T::zero(); } },
    };

    let admissible_impl = match admissible {
        Some(f) => {
            let args = call_args(f, &native);
            let ai = &f.ident;
            quote! {
                fn admissibility<T: #k::core::Real>(&self, q: &[T], mat: &[T]) -> Option<T> {
                    let __p = self.params::<T>();
                    let __qm = #q_read;
                    let __mm: #material_t = #m_read;
                    Some(#ai(&__p, #args))
                }
            }
        }
        None => quote! {},
    };

    // IR tracing
    let sym = quote!(#k::ir::Sym);
    let input = |kind: &str, i: TokenStream| {
        let kind = format_ident!("{}", kind);
        quote!(#sym::input(#k::ir::InputKind::#kind, #i))
    };
    let st_m = input("StateM", quote!(i));
    let st_p = input("StateP", quote!(i));
    let mat_m = input("MaterialM", quote!(i));
    let mat_p = input("MaterialP", quote!(i));
    let par = input("Param", quote!(i));
    let nrm = input("Normal", quote!(d));
    let pos = input("Position", quote!(d));
    let tim = input("Time", quote!(0));
    let traced_mat = |m: &TokenStream| {
        if law.material.is_some() {
            quote!(<Material<#sym> as #k::core::law::StateVector<#sym>>::from_fn(|i| #m))
        } else {
            quote!(())
        }
    };
    let (tmm, tmp) = (traced_mat(&mat_m), traced_mat(&mat_p));
    let tracing_prelude = quote! {
        let __p = Params::<#sym> { #( #param_fields: { let i = #param_idx; #par }, )* __marker: ::core::marker::PhantomData };
        let __qm = <State<#sym> as #k::core::law::StateVector<#sym>>::from_fn(|i| #st_m);
        let __qp = <State<#sym> as #k::core::law::StateVector<#sym>>::from_fn(|i| #st_p);
        let __mm = #tmm;
        let __mp = #tmp;
        let __n = #k::core::law::Normal::<#sym>::from_fn(#dim, |d| #nrm);
        let __x = #k::core::law::Position::<#sym>::from_fn(#dim, |d| #pos);
        let t = #tim;
    };
    let flatten_state = quote!((0..#nvars).map(|v| #k::core::law::StateVector::<#sym>::get(&out, v)).collect());
    let mut traces = Vec::new();
    let role = |r: &str| {
        let r = format_ident!("{}", r);
        quote!(#k::ir::FunctionRole::#r)
    };
    {
        let r = role("Flux");
        traces.push(quote! {
            (#r, #k::ir::trace("flux", || {
                #tracing_prelude
                let out = flux(&__p, #flux_args);
                out.iter().flat_map(|fd| (0..#nvars).map(move |v| #k::core::law::StateVector::<#sym>::get(fd, v))).collect()
            }))
        });
        let r = role("MaxSpeed");
        traces.push(quote! {
            (#r, #k::ir::trace("max_speed", || {
                #tracing_prelude
                vec![max_speed(&__p, #speed_args)]
            }))
        });
        let r = role("NumericalFlux");
        for (f, args) in nflux_idents.iter().zip(&nflux_calls) {
            let label = format!("numerical_flux:{f}");
            traces.push(quote! {
                (#r, #k::ir::trace(#label, || {
                    #tracing_prelude
                    let out = #f(&__p, #args);
                    #flatten_state
                }))
            });
        }
        let r = role("Boundary");
        for (f, args) in boundary_idents.iter().zip(&boundary_calls) {
            let label = format!("boundary:{f}");
            traces.push(quote! {
                (#r, #k::ir::trace(#label, || {
                    #tracing_prelude
                    let out = #f(&__p, #args);
                    #flatten_state
                }))
            });
        }
        if let Some(f) = admissible {
            let r = role("Admissible");
            let args = call_args(f, &native);
            let ai = &f.ident;
            traces.push(quote! {
                (#r, #k::ir::trace("admissible", || {
                    #tracing_prelude
                    vec![#ai(&__p, #args)]
                }))
            });
        }
        if let Some(f) = source {
            let r = role("Source");
            let args = call_args(f, &native);
            let si = &f.ident;
            traces.push(quote! {
                (#r, #k::ir::trace("source", || {
                    #tracing_prelude
                    let out = #si(&__p, #args);
                    #flatten_state
                }))
            });
        }
    }
    let flux_ident = &flux_fn.ident;
    let speed_ident = &speed_fn.ident;

    Ok(quote! {
        #(#attrs)*
        #[allow(non_snake_case, clippy::all)]
        #vis mod #ident {
            #[allow(unused_imports)]
            use #k::core::law::Scalar as __Scalar;
            #[allow(unused_imports)]
            use #k::core::law::Normal as __Normal;
            #[allow(unused_imports)]
            use #k::core::law::Position as __Position;

            /// Space dimension of this law.
            pub const DIM: usize = #dim;
            #(#consts)*
            #state
            #material

            /// Run-time parameters of the law (its `#[param]` constants), in the scalar type of the evaluation.
            #[derive(Debug, Clone, Copy)]
            pub struct Params<S> {
                #( pub #param_fields: S, )*
                #[doc(hidden)]
                pub __marker: ::core::marker::PhantomData<S>,
            }

            /// The numerical fluxes this law offers.
            #[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
            pub enum NumericalFlux {
                #[default]
                #( #nflux_variants, )*
            }

            impl NumericalFlux {
                /// Every choice, in the order of `numerical_flux_names`.
                pub const ALL: &'static [NumericalFlux] = &[#(NumericalFlux::#nflux_variants),*];
                /// The choice with this function name.
                pub fn from_name(name: &str) -> Option<Self> {
                    [#(#nflux_names),*].iter().position(|n| *n == name).map(|i| Self::ALL[i])
                }
                /// The function name of this choice.
                pub fn name(self) -> &'static str {
                    let names: &'static [&'static str] = &[#(#nflux_names),*];
                    names[Self::ALL.iter().position(|c| *c == self).expect("every choice is listed")]
                }
            }

            /// The law, with its parameters (defaults: the declared constants) and its numerical flux.
            #[derive(Debug, Clone, Copy, PartialEq)]
            pub struct Law {
                #( pub #param_fields: f64, )*
                /// Which numerical flux to use.
                pub numerical_flux: NumericalFlux,
            }

            impl Default for Law {
                fn default() -> Self {
                    Self { #( #param_fields: #param_defaults, )* numerical_flux: NumericalFlux::#default_variant }
                }
            }

            impl Law {
                /// The parameters in scalar type `S`.
                pub fn params<S: #k::core::law::LawScalar>(&self) -> Params<S> {
                    Params { #( #param_fields: <S as __Scalar>::cst(self.#param_fields), )* __marker: ::core::marker::PhantomData }
                }
                /// Names of the run-time parameters.
                pub const PARAM_NAMES: &'static [&'static str] = &[#(#param_names),*];
            }

            #(#fns)*

            impl #k::core::law::ConservationLaw for Law {
                const DIM: usize = #dim;
                const NVARS: usize = #nvars;
                const NMATERIALS: usize = #nmat;

                fn name(&self) -> &'static str { #name }
                fn variable_names(&self) -> &'static [&'static str] { &[#(#variable_names),*] }
                fn material_names(&self) -> &'static [&'static str] { &[#(#material_names),*] }
                fn boundary_names(&self) -> &'static [&'static str] { &[#(#boundary_names),*] }
                fn numerical_flux_names(&self) -> &'static [&'static str] { &[#(#nflux_names),*] }
                fn numerical_flux_name(&self) -> &'static str {
                    self.numerical_flux.name()
                }
                fn select_numerical_flux(&mut self, name: &str) -> bool {
                    match NumericalFlux::from_name(name) {
                        Some(choice) => {
                            self.numerical_flux = choice;
                            true
                        }
                        None => false,
                    }
                }
                fn param_values(&self) -> Vec<f64> { vec![#(self.#param_fields),*] }

                #[allow(unused_variables)]
                fn flux<T: #k::core::Real>(&self, q: &[T], mat: &[T], f: &mut [T]) {
                    let __p = self.params::<T>();
                    let __qm = #q_read;
                    let __mm: #material_t = #m_read;
                    let out = #flux_ident(&__p, #flux_args);
                    for (d, fd) in out.iter().enumerate() {
                        for v in 0..#nvars {
                            f[d * #nvars + v] = #k::core::law::StateVector::<T>::get(fd, v);
                        }
                    }
                }

                #[allow(unused_variables)]
                fn max_speed<T: #k::core::Real>(&self, q: &[T], mat: &[T], n: &[T]) -> T {
                    let __p = self.params::<T>();
                    let __qm = #q_read;
                    let __mm: #material_t = #m_read;
                    let __n = #normal_read;
                    #speed_ident(&__p, #speed_args)
                }

                #[allow(unused_variables)]
                fn numerical_flux<T: #k::core::Real>(&self, qm: &[T], qp: &[T], matm: &[T], matp: &[T], n: &[T], out: &mut [T]) {
                    let __p = self.params::<T>();
                    let __qm = #qm_read;
                    let __qp = #qp_read;
                    let __mm: #material_t = #mm_read;
                    let __mp: #material_t = #mp_read;
                    let __n = #normal_read;
                    let value = match self.numerical_flux {
                        #( NumericalFlux::#nflux_variants => #nflux_idents(&__p, #nflux_calls), )*
                    };
                    for v in 0..#nvars {
                        out[v] = #k::core::law::StateVector::<T>::get(&value, v);
                    }
                }

                #[allow(unused_variables)]
                fn boundary_state<T: #k::core::Real>(&self, bc: usize, qm: &[T], mat: &[T], n: &[T], x: &[T], t: T, qp: &mut [T]) {
                    let __p = self.params::<T>();
                    let __qm = #qm_read;
                    let __mm: #material_t = #m_read;
                    let __n = #normal_read;
                    let __x = #position_read;
                    let value: State<T> = match bc {
                        #( #boundary_idx => #boundary_idents(&__p, #boundary_calls), )*
                        _ => {
                            debug_assert!(false, "boundary condition {} of a law with {} conditions", bc, #nbound);
                            __qm
                        }
                    };
                    for v in 0..#nvars {
                        qp[v] = #k::core::law::StateVector::<T>::get(&value, v);
                    }
                }

                fn has_source(&self) -> bool { #has_source }

                #[allow(unused_variables)]
                fn source<T: #k::core::Real>(&self, q: &[T], mat: &[T], x: &[T], t: T, s: &mut [T]) {
                    #source_impl
                }

                #admissible_impl
            }

            /// The law's intermediate representation (traced from the functions above).
            #[allow(unused_variables)]
            pub fn ir() -> #k::ir::LawIr {
                #k::ir::LawIr {
                    name: #name.to_string(),
                    dim: #dim,
                    variables: vec![#(#variable_names.to_string()),*],
                    materials: vec![#(#material_names.to_string()),*],
                    params: vec![#( (#param_names.to_string(), #param_consts) ),*],
                    functions: vec![#(#traces),*],
                }
            }

            #k::ir::inventory::submit! {
                #k::ir::LawRegistration { name: #name, dim: #dim, ir }
            }

            // the command line's kernel commands (verify, autotune, bench, …) instantiated for this law
            #k::__register_law_commands!(Law);
        }
    })
}
