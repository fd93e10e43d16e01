//! The versions line of each documented item of a merged file ("Since CUDA 12.4",
//! [`crate::version_docs`]): from the versions of its entry and of every entry of its name.

use std::collections::{BTreeMap, BTreeSet};

use super::sequence::Entry;
use super::variants::Variants;
use crate::version_docs::append_versions;

/// The header versions each name is declared in, over all entries of one level (an item whose
/// text changed between versions is several entries of one name).
pub(super) fn name_versions<T>(
    es: &[Entry<T>],
    name: impl Fn(&T) -> Option<String>,
) -> BTreeMap<String, BTreeSet<usize>> {
    let mut out: BTreeMap<String, BTreeSet<usize>> = BTreeMap::new();
    for e in es {
        if let Some(n) = name(&e.value) {
            out.entry(n).or_default().extend(&e.versions);
        }
    }
    out
}

/// The values one name's entries declare, each with the entry's variants.
pub(super) type Values = Vec<(BTreeSet<usize>, String)>;

/// The values the entries of each name declare in their docs (`declared`: an enumerator's `1`,
/// a `#define`'s text, [`first_declared_value`](crate::version_docs::first_declared_value)), each with the entry's variants; a name with an
/// entry that declares none has none.
pub(super) fn name_values<T>(
    es: &[Entry<T>],
    name: impl Fn(&T) -> Option<String>,
    declared: impl Fn(&T) -> Option<String>,
) -> BTreeMap<String, Values> {
    let mut out: BTreeMap<String, Option<Values>> = BTreeMap::new();
    for e in es {
        let Some(n) = name(&e.value) else { continue };
        let slot = out.entry(n).or_insert_with(|| Some(Vec::new()));
        match (declared(&e.value), slot.as_mut()) {
            (Some(d), Some(list)) => list.push((e.versions.clone(), d)),
            _ => *slot = None,
        }
    }
    out.into_iter()
        .filter_map(|(n, v)| v.map(|v| (n, v)))
        .collect()
}

/// Appends the versions line to the docs `attrs` of an item present in the variants `set` whose
/// name is present in `name_set` and declares `values` (each with its variants), with the target
/// it is on where only one has it.
pub(super) fn with_versions(
    attrs: &mut Vec<syn::Attribute>,
    set: &BTreeSet<usize>,
    name_set: &BTreeSet<usize>,
    values: Option<&Values>,
    variants: &Variants,
) {
    let values: Vec<(Vec<u32>, String)> = values
        .into_iter()
        .flatten()
        .map(|(set, value)| (variants.versions_of(set), value.clone()))
        .collect();
    append_versions(
        attrs,
        &variants.versions_of(set),
        &variants.versions_of(name_set),
        &variants.versions,
        &values,
        variants.target_note(set),
    );
}

/// The name a top-level item declares (a `use`'s last name).
pub(super) fn declared_name(i: &syn::Item) -> Option<String> {
    fn use_name(t: &syn::UseTree) -> Option<String> {
        match t {
            syn::UseTree::Path(p) => use_name(&p.tree),
            syn::UseTree::Name(n) => Some(n.ident.to_string()),
            syn::UseTree::Rename(r) => Some(r.rename.to_string()),
            _ => None,
        }
    }
    Some(match i {
        syn::Item::Const(x) => x.ident.to_string(),
        syn::Item::Static(x) => x.ident.to_string(),
        syn::Item::Struct(x) => x.ident.to_string(),
        syn::Item::Union(x) => x.ident.to_string(),
        syn::Item::Enum(x) => x.ident.to_string(),
        syn::Item::Type(x) => x.ident.to_string(),
        syn::Item::Fn(x) => x.sig.ident.to_string(),
        syn::Item::Use(x) => use_name(&x.tree)?,
        _ => return None,
    })
}

/// The name a function or static of an `extern` block declares.
pub(super) fn foreign_name(i: &syn::ForeignItem) -> Option<String> {
    match i {
        syn::ForeignItem::Fn(f) => Some(f.sig.ident.to_string()),
        syn::ForeignItem::Static(s) => Some(s.ident.to_string()),
        _ => None,
    }
}

/// The name an associated constant or function of an `impl` block declares.
pub(super) fn impl_item_name(i: &syn::ImplItem) -> Option<String> {
    match i {
        syn::ImplItem::Const(c) => Some(c.ident.to_string()),
        syn::ImplItem::Fn(f) => Some(f.sig.ident.to_string()),
        _ => None,
    }
}
