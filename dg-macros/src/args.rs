//! Arguments of the attribute: `dim = 2`, optional `name = "…"`, optional `dg_path = some::path`.

use proc_macro2::{Span, TokenStream};
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::{Expr, Lit, Meta, Token};

/// Parsed attribute arguments.
pub struct LawArgs {
    pub dim: usize,
    pub dim_span: Span,
    pub name: Option<String>,
    /// Path under which the `dg` facade (`core`, `ir`) is reached; `::dg` by default.
    pub dg_path: syn::Path,
}

impl LawArgs {
    pub fn parse(attr: TokenStream) -> syn::Result<Self> {
        let metas = Punctuated::<Meta, Token![,]>::parse_terminated.parse2(attr.clone())?;
        let mut dim = None;
        let mut name = None;
        let mut dg_path: syn::Path = syn::parse_quote!(::dg);
        for meta in metas {
            let Meta::NameValue(nv) = &meta else {
                return Err(syn::Error::new_spanned(meta, "expected `key = value` (keys: dim, name, dg_path)"));
            };
            let key = nv.path.get_ident().map(|i| i.to_string()).unwrap_or_default();
            match key.as_str() {
                "dim" => {
                    let value = match &nv.value {
                        Expr::Lit(l) => match &l.lit {
                            Lit::Int(i) => i.base10_parse::<usize>()?,
                            _ => return Err(syn::Error::new_spanned(&nv.value, "`dim` is 1, 2 or 3")),
                        },
                        _ => return Err(syn::Error::new_spanned(&nv.value, "`dim` is 1, 2 or 3")),
                    };
                    if !(1..=3).contains(&value) {
                        return Err(syn::Error::new_spanned(&nv.value, "`dim` is 1, 2 or 3"));
                    }
                    dim = Some((value, syn::spanned::Spanned::span(&nv.value)));
                }
                "name" => match &nv.value {
                    Expr::Lit(syn::ExprLit { lit: Lit::Str(s), .. }) => name = Some(s.value()),
                    other => return Err(syn::Error::new_spanned(other, "`name` is a string, e.g. name = \"euler2d\"")),
                },
                "dg_path" => match &nv.value {
                    Expr::Path(p) => dg_path = p.path.clone(),
                    other => return Err(syn::Error::new_spanned(other, "`dg_path` is a path, e.g. dg_path = ::dg")),
                },
                _ => {
                    return Err(syn::Error::new_spanned(
                        &nv.path,
                        format!("unknown argument `{key}`; expected dim, name or dg_path"),
                    ))
                }
            }
        }
        let Some((dim, dim_span)) = dim else {
            return Err(syn::Error::new(
                Span::call_site(),
                "missing `dim`: write #[conservation_law(dim = 2)] (the space dimension, 1 to 3)",
            ));
        };
        Ok(Self { dim, dim_span, name, dg_path })
    }
}
