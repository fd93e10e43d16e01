//! Emits `bindings.rs` (and hands the `extern` block to [`crate::functions`]): bindgen's output
//! with the macros the header `#undef`s left out, the unsigned complements corrected and the
//! enumerators only the internal view declares dropped; every public item documented
//! ([`crate::item_docs`]).

use std::collections::{BTreeMap, BTreeSet};

use quote::ToTokens;

use crate::item_docs::{document_bindings, SetDocs};

/// The text of `bindings.rs` (bindgen's output without its `extern` block), and the `extern` block
/// alone, for [`crate::functions`]: a `table-only` build re-exports none of the functions but the
/// four the table needs. Constants named in `dropped` are left out, those in `replaced` replaced,
/// and the associated constants `enumerators_dropped[type]` of enum newtypes left out. The
/// types are documented from the facts of `docs`. Also the `compat-0-3` attribute of each
/// renumbered enumerator ([`crate::compat`]), by name.
pub(crate) fn split_functions(
    src: &str,
    dropped: &BTreeSet<String>,
    replaced: &BTreeMap<String, syn::Item>,
    enumerators_dropped: &BTreeMap<String, BTreeSet<String>>,
    docs: &SetDocs,
) -> Result<(String, Vec<syn::Item>, crate::compat::Marked), String> {
    let file = syn::parse_file(src).map_err(|e| format!("bindgen output does not parse: {e}"))?;
    let const_name = |i: &syn::Item| match i {
        syn::Item::Const(c) => Some(c.ident.to_string()),
        _ => None,
    };
    let (functions, types): (Vec<syn::Item>, Vec<syn::Item>) = file
        .items
        .into_iter()
        .filter(|i| const_name(i).is_none_or(|n| !dropped.contains(&n)))
        .map(|i| match const_name(&i).and_then(|n| replaced.get(&n)) {
            Some(r) => r.clone(),
            None => i,
        })
        .map(|mut i| {
            if let syn::Item::Impl(imp) = &mut i {
                if let Some(gone) = enumerators_dropped.get(&imp.self_ty.to_token_stream().to_string()) {
                    imp.items.retain(|ii| {
                        !matches!(ii, syn::ImplItem::Const(c) if gone.contains(&c.ident.to_string()))
                    });
                }
            }
            i
        })
        .partition(|i| matches!(i, syn::Item::ForeignMod(_)));
    let mut types = syn::File {
        shebang: None,
        attrs: vec![],
        items: types,
    };
    document_bindings(&mut types, docs);
    let renumbered = crate::compat::mark_renumbered(&mut types);
    Ok((prettyplease::unparse(&types), functions, renumbered))
}
