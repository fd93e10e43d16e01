//! One version's items split into keys and containers (extern and impl blocks, enums, constant
//! arrays, list macros), whose contents are merged one level down.

use std::collections::BTreeSet;

use proc_macro2::TokenStream;
use quote::ToTokens;

use super::sequence::{merge_seq, Entry};
use crate::rust_syntax::{item_array_mut, macro_list};

/// A top-level item, with the contents of a container split out.
pub(super) enum Top {
    Leaf(syn::Item),
    Extern(syn::ItemForeignMod, Vec<Entry<syn::ForeignItem>>),
    Impl(syn::ItemImpl, Vec<Entry<syn::ImplItem>>),
    Enum(syn::ItemEnum, Vec<Entry<syn::Variant>>),
    /// A `const` or `static` whose value is an array literal (`[a, b]` or `&[a, b]`).
    Array(syn::Item, Vec<Entry<syn::Expr>>),
    /// A macro invocation whose body is a comma-separated list of expressions.
    List(syn::ItemMacro, Vec<Entry<syn::Expr>>),
}

pub(super) fn tokens(t: &impl ToTokens) -> String {
    t.to_token_stream().to_string()
}

fn leaves<T: ToTokens + Clone>(items: &[T], v: usize) -> Vec<Entry<T>> {
    items
        .iter()
        .map(|i| Entry {
            key: tokens(i),
            versions: BTreeSet::from([v]),
            value: i.clone(),
        })
        .collect()
}

/// The array literal of a `const` or `static` item, behind at most one `&`.
fn item_array(i: &syn::Item) -> Option<&syn::ExprArray> {
    fn array_of(e: &syn::Expr) -> Option<&syn::ExprArray> {
        match e {
            syn::Expr::Array(a) => Some(a),
            syn::Expr::Reference(r) => array_of(&r.expr),
            _ => None,
        }
    }
    match i {
        syn::Item::Const(c) => array_of(&c.expr),
        syn::Item::Static(s) => array_of(&s.expr),
        _ => None,
    }
}

/// The key and the split contents of one item of version `v`'s file.
pub(super) fn split_item(item: &syn::Item, v: usize) -> Result<(String, Top), String> {
    Ok(match item {
        syn::Item::ForeignMod(m) => {
            let mut tmpl = m.clone();
            let items = std::mem::take(&mut tmpl.items);
            (
                format!("extern {}", tokens(&tmpl)),
                Top::Extern(tmpl, leaves(&items, v)),
            )
        }
        syn::Item::Impl(i) => {
            let mut tmpl = i.clone();
            let items = std::mem::take(&mut tmpl.items);
            (
                format!("impl {}", tokens(&tmpl)),
                Top::Impl(tmpl, leaves(&items, v)),
            )
        }
        syn::Item::Enum(e) => {
            let mut tmpl = e.clone();
            let variants: Vec<syn::Variant> =
                std::mem::take(&mut tmpl.variants).into_iter().collect();
            (
                format!("enum {}", tokens(&tmpl)),
                Top::Enum(tmpl, leaves(&variants, v)),
            )
        }
        syn::Item::Const(_) | syn::Item::Static(_) if item_array(item).is_some() => {
            let mut tmpl = item.clone();
            let arr = item_array_mut(&mut tmpl).unwrap();
            let elems: Vec<syn::Expr> = std::mem::take(&mut arr.elems).into_iter().collect();
            (
                format!("array {}", tokens(&tmpl)),
                Top::Array(tmpl, leaves(&elems, v)),
            )
        }
        syn::Item::Macro(m) if m.ident.is_none() && macro_list(m).is_some() => {
            let elems = macro_list(m).unwrap();
            let mut tmpl = m.clone();
            tmpl.mac.tokens = TokenStream::new();
            (
                format!("macro {}", tokens(&tmpl)),
                Top::List(tmpl, leaves(&elems, v)),
            )
        }
        other => (format!("item {}", tokens(other)), Top::Leaf(other.clone())),
    })
}

/// Joins version `v`'s instance of a container to the merged one.
pub(super) fn combine_top(merged: &mut Top, next: Top, v: usize) {
    fn seq<T>(m: &mut Vec<Entry<T>>, n: Vec<Entry<T>>, v: usize) {
        let n = n.into_iter().map(|e| (e.key, e.value)).collect();
        *m = merge_seq(std::mem::take(m), n, v, &mut |_, _, _| {});
    }
    match (merged, next) {
        (Top::Leaf(_), Top::Leaf(_)) => {}
        (Top::Extern(_, m), Top::Extern(_, n)) => seq(m, n, v),
        (Top::Impl(_, m), Top::Impl(_, n)) => seq(m, n, v),
        (Top::Enum(_, m), Top::Enum(_, n)) => seq(m, n, v),
        (Top::Array(_, m), Top::Array(_, n)) => seq(m, n, v),
        (Top::List(_, m), Top::List(_, n)) => seq(m, n, v),
        _ => unreachable!("equal keys are the same kind of item"),
    }
}
