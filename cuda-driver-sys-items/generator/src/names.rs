//! Emits `names.rs`: the unversioned `PFN_cuX` macros, every enumerator at top level, and the macro
//! constants bindgen cannot translate.

use std::collections::{BTreeMap, BTreeSet};

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::c_spellings::CSpellings;
use crate::item_docs::{const_doc, doc_attrs, enumerator_doc, pfn_macro_doc, SetDocs};
use crate::macros::is_non_constant_macro;
use crate::parsed::Parsed;

/// What [`generate`] wrote: the tokens of `names.rs`, and counts for the summary.
pub(crate) struct Names {
    /// `PFN_cuX` aliases, enumerators, macro constants.
    pub(crate) tokens: TokenStream,
    pub(crate) enumerators: usize,
    pub(crate) macro_constants: usize,
}

/// The tokens of `names.rs`, each item documented from the facts of `docs`: the `PFN_cuX`
/// macros of `spellings`, the enumerators of `b`, and those of the object-like `macros` that are
/// constants bindgen left out (by their expansion in the normal mode, `exp_n`).
pub(crate) fn generate(
    b: &Parsed,
    macros: &BTreeSet<String>,
    exp_n: &BTreeMap<String, String>,
    spellings: &CSpellings,
    docs: &SetDocs,
) -> Result<Names, String> {
    let mut out = TokenStream::new();

    // The header's `PFN_cuX` macros, each the typedef it names in each stream mode.
    for (m, (n, p)) in &spellings.pfn_macros {
        let (id, tn, tp) = (
            format_ident!("{m}"),
            format_ident!("{n}"),
            format_ident!("{p}"),
        );
        let doc = doc_attrs(&pfn_macro_doc(m, n, p, docs));
        if n == p {
            out.extend(quote! { #(#doc)* pub type #id = #tn; });
        } else {
            out.extend(quote! {
                #(#doc)*
                #[cfg(not(feature = "per-thread-default-stream"))]
                pub type #id = #tn;
                #(#doc)*
                #[cfg(feature = "per-thread-default-stream")]
                pub type #id = #tp;
            });
        }
    }

    // Every enumerator at top level, as C spells it, typed with the C typedef's name.
    let display = b.enum_display_names();
    let mut enumerators = 0;
    let mut enum_of: BTreeMap<String, String> = BTreeMap::new();
    for (ty, consts) in &b.enums {
        let tname = format_ident!("{}", display[ty]);
        for c in consts {
            let id = format_ident!("{c}");
            let value = b
                .enumerator_values
                .get(c)
                .ok_or_else(|| format!("enumerator {c} of {ty} has no integer value"))?;
            let doc = doc_attrs(&enumerator_doc(c, value, &display[ty]));
            out.extend(quote! { #(#doc)* pub const #id: #tname = #tname::#id; });
            enum_of.insert(c.clone(), display[ty].clone());
            enumerators += 1;
        }
    }

    // Macro constants bindgen could not translate.
    let cast_re = regex::Regex::new(
        r"^\(\(\s*(\w+)\s*(\*?)\s*\)\s*\(?\s*(-?\s*(?:0[xX][0-9a-fA-F]+|\d+))\s*\)?\s*\)$",
    )
    .unwrap();
    let mut macro_constants = 0;
    for m in macros {
        if spellings.claims(m) || b.consts.contains_key(m) || enum_of.contains_key(m) {
            continue;
        }
        let e = &exp_n[m];
        if e == m || is_non_constant_macro(m, e) {
            continue;
        }
        let id = format_ident!("{m}");
        let doc = doc_attrs(&const_doc(m, docs));
        out.extend(quote! { #(#doc)* });
        if let Some(c) = cast_re.captures(e) {
            let value: TokenStream = c[3].replace(' ', "").parse().unwrap();
            let ty: TokenStream = match (&c[1], &c[2]) {
                ("void", "*") => quote!(*mut ::core::ffi::c_void),
                (t, "") if b.aliases.contains_key(t) => {
                    let t = format_ident!("{t}");
                    quote!(#t)
                }
                (t, s) => return Err(format!("macro {m} = {e}: cast to {t}{s} is not handled")),
            };
            out.extend(quote! { pub const #id: #ty = #value as #ty; });
        } else if let Some(t) = enum_of.get(e) {
            let (t, v) = (format_ident!("{t}"), format_ident!("{e}"));
            out.extend(quote! { pub const #id: #t = #t::#v; });
        } else if let Some(t) = b.consts.get(e) {
            let v = format_ident!("{e}");
            out.extend(quote! { pub const #id: #t = #v; });
        } else {
            return Err(format!(
                "macro {m} expands to `{e}`, which the generator cannot translate"
            ));
        }
        macro_constants += 1;
    }
    Ok(Names {
        tokens: out,
        enumerators,
        macro_constants,
    })
}
