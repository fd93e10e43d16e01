//! The `compat-0-3` deprecations: each enumerator whose value differs from the one cuda-driver-sys
//! 0.3.0 gave the same name (`renumbered_since_0_3.txt`, written by the `migration_changes` bin
//! from 0.3.0's bindings) is deprecated when a dependent turns on `compat-0-3`, with a note naming
//! both values and the name that has 0.3.0's value. The same name is not deprecated under a
//! header that gives it 0.3.0's value. Its top-level copy (`names.rs`) is deprecated alike.

use std::collections::BTreeMap;

use proc_macro2::TokenStream;
use quote::ToTokens;

/// The `compat-0-3` attribute of each enumerator marked, by name.
pub(crate) type Marked = BTreeMap<String, syn::Attribute>;

/// `(C tag of the enum, enumerator, 0.3.0's value)`, from `renumbered_since_0_3.txt`.
fn renumbered() -> impl Iterator<Item = (&'static str, &'static str, i128)> {
    include_str!("renumbered_since_0_3.txt")
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| {
            let mut w = l.split_whitespace();
            Some((w.next()?, w.next()?, w.next()?.parse().ok()?))
        })
}

/// The value of a newtype enumerator, `E(92)`.
fn value(c: &syn::ImplItemConst) -> Option<i128> {
    let syn::Expr::Call(call) = &c.expr else {
        return None;
    };
    match call.args.first()? {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => i.base10_parse().ok(),
        _ => None,
    }
}

/// Adds `#[cfg_attr(feature = "compat-0-3", deprecated = "...")]` to the enumerators of `file`
/// whose value is not 0.3.0's; returns each one's attribute, by name, for [`mark_top_level`].
pub(crate) fn mark_renumbered(file: &mut syn::File) -> Marked {
    let mut marked = BTreeMap::new();
    for item in &mut file.items {
        let syn::Item::Impl(imp) = item else { continue };
        let tag = imp.self_ty.to_token_stream().to_string();
        let values: Vec<(String, Option<i128>)> = imp
            .items
            .iter()
            .filter_map(|ii| match ii {
                syn::ImplItem::Const(c) => Some((c.ident.to_string(), value(c))),
                _ => None,
            })
            .collect();
        for (_, name, old) in renumbered().filter(|(t, _, _)| *t == tag) {
            let Some(c) = imp.items.iter_mut().find_map(|ii| match ii {
                syn::ImplItem::Const(c) if c.ident == name => Some(c),
                _ => None,
            }) else {
                continue;
            };
            let Some(new) = value(c).filter(|v| *v != old) else {
                continue;
            };
            // The name of 0.3.0's value here: the same name with an ABI suffix (`..._V1`).
            let holder = values.iter().find(|(n, v)| {
                *v == Some(old)
                    && n.strip_prefix(name).is_some_and(|rest| {
                        rest.len() > 2
                            && (rest.starts_with("_V") || rest.starts_with("_v"))
                            && rest[2..].bytes().all(|b| b.is_ascii_digit())
                    })
            });
            let instead = match holder {
                Some((n, _)) => format!("{tag}::{n}"),
                None => format!("{tag}({old})"),
            };
            let note = format!(
                "cuda-driver-sys 0.3 gave {name} the value {old}; this header gives it {new}. \
                 To keep 0.3's meaning write {instead}; to mean {new}, allow(deprecated) here"
            );
            let attr: syn::Attribute = syn::parse_quote! {
                #[cfg_attr(feature = "compat-0-3", deprecated(note = #note))]
            };
            c.attrs.push(attr.clone());
            marked.insert(name.to_string(), attr);
        }
    }
    marked
}

/// The top-level constants of `names` (`names.rs`: every enumerator at top level) named in
/// `marked`, with the same attribute.
pub(crate) fn mark_top_level(names: TokenStream, marked: &Marked) -> Result<TokenStream, String> {
    let mut file: syn::File =
        syn::parse2(names).map_err(|e| format!("names.rs does not parse: {e}"))?;
    for item in &mut file.items {
        if let syn::Item::Const(c) = item {
            if let Some(attr) = marked.get(&c.ident.to_string()) {
                c.attrs.push(attr.clone());
            }
        }
    }
    Ok(file.to_token_stream())
}
