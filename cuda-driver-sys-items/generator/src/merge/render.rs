//! The merged entries rendered: each item under the cfg of its versions, and each version
//! projected back out (the self-check).

use std::collections::BTreeSet;

use proc_macro2::TokenStream;
use quote::ToTokens;

use super::items::{tokens, Top};
use super::sequence::Entry;
use super::variants::Variants;
use super::versions::{
    declared_name, foreign_name, impl_item_name, name_values, name_versions, with_versions,
};
use crate::rust_syntax::{expr_attrs, foreign_attrs, impl_attrs, item_array_mut, item_attrs};
use crate::version_docs::first_declared_value;

fn cfg_attr(pred: TokenStream) -> syn::Attribute {
    syn::parse_quote!(#[cfg(#pred)])
}

/// The cfg of a container's element, where it is not in every version its container is in.
fn inner_cfg(
    set: &BTreeSet<usize>,
    parent: &BTreeSet<usize>,
    variants: &Variants,
) -> Option<syn::Attribute> {
    (set != parent)
        .then(|| variants.cfg_of(set).map(cfg_attr))
        .flatten()
}

/// The members of an `extern` block or an `impl` with their cfgs (`with_cfgs`), and, with
/// `versions_lines`, the versions line of each named one in its docs.
fn members<T: Clone>(
    es: &[Entry<T>],
    parent: &BTreeSet<usize>,
    variants: &Variants,
    versions_lines: bool,
    attrs: fn(&mut T) -> Result<&mut Vec<syn::Attribute>, String>,
    name: fn(&T) -> Option<String>,
) -> Result<Vec<T>, String> {
    let mut items = with_cfgs(es, parent, variants, attrs)?;
    if versions_lines {
        let names = name_versions(es, name);
        let values = name_values(es, name, |e| {
            let mut e = e.clone();
            attrs(&mut e).ok().and_then(|a| first_declared_value(a))
        });
        for (item, e) in items.iter_mut().zip(es) {
            if let Some(n) = name(item) {
                with_versions(
                    attrs(item)?,
                    &e.versions,
                    &names[&n],
                    values.get(&n),
                    variants,
                );
            }
        }
    }
    Ok(items)
}

/// The elements of a container, each under its cfg where it needs one.
fn with_cfgs<T: Clone>(
    es: &[Entry<T>],
    parent: &BTreeSet<usize>,
    variants: &Variants,
    attrs: impl Fn(&mut T) -> Result<&mut Vec<syn::Attribute>, String>,
) -> Result<Vec<T>, String> {
    es.iter()
        .map(|x| {
            let mut v = x.value.clone();
            if let Some(a) = inner_cfg(&x.versions, parent, variants) {
                attrs(&mut v)?.insert(0, a);
            }
            Ok(v)
        })
        .collect()
}

/// How many elements a container has, and how many of them differ from it in versions.
fn element_counts(t: &Top, parent: &BTreeSet<usize>) -> (usize, usize) {
    fn count<T>(es: &[Entry<T>], parent: &BTreeSet<usize>) -> (usize, usize) {
        (
            es.len(),
            es.iter().filter(|e| &e.versions != parent).count(),
        )
    }
    match t {
        Top::Leaf(_) => (0, 0),
        Top::Extern(_, es) => count(es, parent),
        Top::Impl(_, es) => count(es, parent),
        Top::Enum(_, es) => count(es, parent),
        Top::Array(_, es) => count(es, parent),
        Top::List(_, es) => count(es, parent),
    }
}

/// The item under its cfg (where not in every version), with its contents under theirs (where
/// not in every version the item is in). With `versions_lines`, each documented item (top-level,
/// or of an `extern` or `impl` block) says in its docs which versions it exists in.
pub(super) fn render(
    merged: &[Entry<Top>],
    variants: &Variants,
    versions_lines: bool,
) -> Result<(String, usize, usize), String> {
    let (mut count, mut with_cfg) = (0, 0);
    let top_name = |t: &Top| match t {
        Top::Leaf(i) => declared_name(i),
        _ => None,
    };
    let top_names = name_versions(merged, top_name);
    let top_values = name_values(merged, top_name, |t| match t {
        Top::Leaf(i) => item_attrs(&mut i.clone())
            .ok()
            .and_then(|a| first_declared_value(a)),
        _ => None,
    });
    let mut text = String::new();
    let mut run: Vec<syn::Item> = Vec::new();
    let flush = |run: &mut Vec<syn::Item>, text: &mut String| {
        if !run.is_empty() {
            text.push_str(&prettyplease::unparse(&syn::File {
                shebang: None,
                attrs: vec![],
                items: std::mem::take(run),
            }));
        }
    };
    for e in merged {
        let own = variants.cfg_of(&e.versions);
        let (n, c) = element_counts(&e.value, &e.versions);
        count += 1 + n;
        with_cfg += own.is_some() as usize + c;
        let p = &e.versions;
        let mut item = match &e.value {
            Top::List(tmpl, es) => {
                // Rendered by hand, one element a line (prettyplease keeps a macro's body on one
                // line).
                flush(&mut run, &mut text);
                if let Some(pred) = &own {
                    text.push_str(&format!("{}\n", one_line(&cfg_attr(pred.clone()))));
                }
                text.push_str(&format!("{}! {{\n", tokens(&tmpl.mac.path)));
                for el in es {
                    if let Some(a) = inner_cfg(&el.versions, p, variants) {
                        text.push_str(&format!("    {}\n", one_line(&a)));
                    }
                    // The element's own attributes, one a line too.
                    let mut value = el.value.clone();
                    for a in expr_attrs(&mut value)
                        .map(std::mem::take)
                        .unwrap_or_default()
                    {
                        text.push_str(&format!("    {}\n", one_line(&a)));
                    }
                    text.push_str(&format!("    {},\n", one_line(&value)));
                }
                text.push_str("}\n");
                continue;
            }
            Top::Leaf(i) => {
                let mut i = i.clone();
                if let Some(name) = declared_name(&i).filter(|_| versions_lines) {
                    // A re-export (a C spelling) that names one item in all its versions: rustdoc
                    // shows that item's docs under it, whose versions line is the same.
                    let same_target = matches!(i, syn::Item::Use(_)) && *p == top_names[&name];
                    if !same_target {
                        with_versions(
                            item_attrs(&mut i)?,
                            p,
                            &top_names[&name],
                            top_values.get(&name),
                            variants,
                        );
                    }
                }
                i
            }
            Top::Extern(tmpl, es) => {
                let mut m = tmpl.clone();
                m.items = members(es, p, variants, versions_lines, foreign_attrs, foreign_name)?;
                syn::Item::ForeignMod(m)
            }
            Top::Impl(tmpl, es) => {
                let mut m = tmpl.clone();
                m.items = members(es, p, variants, versions_lines, impl_attrs, impl_item_name)?;
                syn::Item::Impl(m)
            }
            Top::Enum(tmpl, es) => {
                let mut m = tmpl.clone();
                m.variants = with_cfgs(es, p, variants, |v| Ok(&mut v.attrs))?
                    .into_iter()
                    .collect();
                syn::Item::Enum(m)
            }
            Top::Array(tmpl, es) => {
                let mut m = tmpl.clone();
                item_array_mut(&mut m).unwrap().elems = with_cfgs(es, p, variants, expr_attrs)?
                    .into_iter()
                    .collect();
                m
            }
        };
        if let Some(pred) = own {
            item_attrs(&mut item)?.insert(0, cfg_attr(pred));
        }
        run.push(item);
    }
    flush(&mut run, &mut text);
    Ok((text, count, with_cfg))
}

/// An expression or attribute on one line, spaced as rustfmt would (`Some(entry::x.info())`):
/// the generator writes list macros one element a line, and a macro's pattern may not take the
/// trailing commas a wrapped element would get.
fn one_line(t: &impl ToTokens) -> String {
    let mut s = tokens(t);
    for (from, to) in [
        ("# [", "#["),
        (" :: ", "::"),
        (":: ", "::"),
        (" . ", "."),
        (" (", "("),
        ("( ", "("),
        (" )", ")"),
        (" ]", "]"),
        (" ,", ","),
    ] {
        s = s.replace(from, to);
    }
    s
}
