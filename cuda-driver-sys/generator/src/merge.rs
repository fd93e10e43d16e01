//! The merge stage: combines the per-version outputs of [`generate`](crate::generate) (one
//! directory per CUDA header version) into one set of files in which every item appears once per
//! distinct text, under the `cfg` of the versions it exists in.
//!
//! The build script of `cuda-driver-sys` sets `cuda_ge_<V>` for every known version `V` at or
//! below the selected one, so an item present in versions `a..=b` carries
//! `#[cfg(all(cuda_ge_a, not(cuda_ge_<next after b>)))]` (a bound is left out at either end of
//! the known versions; an item in every version carries no `cfg`).
//!
//! The merge works item by item, with no knowledge of what the generator writes: top-level items
//! are compared by their tokens, and the contents of containers are merged one level down:
//! `extern` blocks (per function), `impl` blocks (per associated item), enums (per variant),
//! constant arrays (per element) and macro invocations whose body is a list of expressions (per
//! element). A container whose header differs between versions is a different item. Whatever a
//! later generator writes is merged the same way.
//!
//! Before writing, every version is projected back out of the merged files (its `cfg`s applied)
//! and compared token by token with that version's own output: a merge that would change what
//! any version compiles is an error, never a file.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use proc_macro2::TokenStream;
use quote::{format_ident, quote, ToTokens};
use syn::punctuated::Punctuated;

/// One version's output directory.
pub struct Input {
    /// `CUDA_VERSION` of the header it was generated from (`12090`).
    pub version: u32,
    /// The directory [`generate`](crate::generate) wrote.
    pub dir: PathBuf,
}

/// Per merged file: how many items (top-level and in containers) it holds, and how many of them
/// carry a version `cfg`.
#[derive(Debug)]
pub struct MergeSummary {
    pub files: Vec<(String, usize, usize)>,
}

/// Merges `inputs` (any order) into `out_dir`. `hint` says how to regenerate.
pub fn merge(inputs: &[Input], out_dir: &Path, hint: &str) -> Result<MergeSummary, String> {
    let mut inputs: Vec<&Input> = inputs.iter().collect();
    inputs.sort_by_key(|i| i.version);
    if inputs.is_empty() {
        return Err("merge: no input directories".into());
    }
    let versions: Vec<u32> = inputs.iter().map(|i| i.version).collect();
    let newest = inputs.last().unwrap();
    let mut names: Vec<String> = std::fs::read_dir(&newest.dir)
        .map_err(|e| format!("{}: {e}", newest.dir.display()))?
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".rs"))
        .collect();
    names.sort();
    std::fs::create_dir_all(out_dir).map_err(|e| format!("{}: {e}", out_dir.display()))?;
    let mut summary = MergeSummary { files: Vec::new() };
    for name in &names {
        let mut merged: Vec<Entry<Top>> = Vec::new();
        let mut originals = Vec::new();
        let mut comments = String::new();
        for (vi, input) in inputs.iter().enumerate() {
            let path = input.dir.join(name);
            let text = std::fs::read_to_string(&path)
                .map_err(|e| format!("merge: cannot read {}: {e}", path.display()))?;
            comments = leading_comments(&text);
            let file = syn::parse_file(&text)
                .map_err(|e| format!("merge: {} does not parse: {e}", path.display()))?;
            let items = file
                .items
                .iter()
                .map(|i| split_item(i, vi))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| format!("merge: {}: {e}", path.display()))?;
            merged = merge_seq(merged, items, vi, &mut combine_top);
            originals.push(file);
        }
        // Every version, projected back out, is exactly its own output (up to the trailing commas
        // of lists, which splitting an item into its elements drops).
        for (vi, original) in originals.iter().enumerate() {
            let projected = project(&merged, vi);
            let mut expected = TokenStream::new();
            for item in &original.items {
                let (_, t) = split_item(item, vi)?;
                let all = |_: &_| true;
                rebuild(
                    &t,
                    |es| pick_if(es, all),
                    |es| pick_if(es, all),
                    |es| pick_if(es, all),
                    |es| pick_if(es, all),
                )
                .to_tokens(&mut expected);
            }
            if projected.to_string() != expected.to_string() {
                return Err(format!(
                    "merge: {name} for CUDA_VERSION {} would not be what the generator wrote",
                    versions[vi]
                ));
            }
        }
        let (text, count, with_cfg) = render(&merged, &versions)?;
        // The header pair the file comes from: a module's (`gl_bindings.rs`: cudaGL.h) or cuda.h's.
        let set = crate::MODULES
            .iter()
            .find(|m| name.starts_with(&format!("{}_", m.module)))
            .unwrap_or(&crate::CORE);
        let header = format!(
            "// @generated by cuda-driver-sys-generator from the {} and {} of \
             CUDA {}: one copy of each item, under the\n// cfg of the header versions it exists \
             in (`cuda_ge_<V>`, set by cuda-driver-sys's build script for every version <= the \
             selected one).\n// Do not edit by hand. To regenerate: {hint}\n\n",
            set.headers[0],
            set.headers[1],
            versions
                .iter()
                .map(|v| format!("{}.{}", v / 1000, v % 1000 / 10))
                .collect::<Vec<_>>()
                .join(", ")
        );
        let path = out_dir.join(name);
        std::fs::write(&path, format!("{header}{comments}{text}"))
            .map_err(|e| format!("{}: {e}", path.display()))?;
        summary.files.push((name.clone(), count, with_cfg));
    }
    Ok(summary)
}

/// The `//` lines that follow the generator's two-line `@generated` header (kept as they are);
/// not a doc comment (`///`), which belongs to the first item.
fn leading_comments(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines().skip(2).skip_while(|l| l.is_empty()) {
        if !line.starts_with("//") || line.starts_with("///") || line.starts_with("//!") {
            break;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Merging sequences

struct Entry<T> {
    key: String,
    versions: BTreeSet<usize>,
    value: T,
}

/// Merges version `v`'s sequence `next` into `merged`, keeping the order of every version: the
/// elements of a longest common subsequence of keys join their entries (`combine` merging their
/// contents); every other element of `next` is inserted where its neighbours put it.
fn merge_seq<T>(
    merged: Vec<Entry<T>>,
    next: Vec<(String, T)>,
    v: usize,
    combine: &mut impl FnMut(&mut T, T, usize),
) -> Vec<Entry<T>> {
    let a: Vec<&str> = merged.iter().map(|e| e.key.as_str()).collect();
    let b: Vec<&str> = next.iter().map(|(k, _)| k.as_str()).collect();
    let targets = lcs_targets(&a, &b);
    // In a gap between two joined entries, the old ones come first (an item that changed reads
    // as its old text, then its new one).
    let mut gap_end = vec![merged.len(); targets.len()];
    let mut end = merged.len();
    for (k, t) in targets.iter().enumerate().rev() {
        if let Some(j) = t {
            end = *j;
        }
        gap_end[k] = end;
    }
    let mut old: Vec<Option<Entry<T>>> = merged.into_iter().map(Some).collect();
    let mut out = Vec::with_capacity(old.len() + next.len());
    let mut taken = 0;
    for (((key, value), target), gap_end) in next.into_iter().zip(targets).zip(gap_end) {
        for slot in old.iter_mut().take(gap_end).skip(taken) {
            out.extend(slot.take());
        }
        taken = taken.max(gap_end);
        match target {
            Some(j) => {
                let mut e = old[j].take().expect("each entry is joined once");
                e.versions.insert(v);
                combine(&mut e.value, value, v);
                out.push(e);
                taken = j + 1;
            }
            None => out.push(Entry {
                key,
                versions: BTreeSet::from([v]),
                value,
            }),
        }
    }
    for slot in old.iter_mut().skip(taken) {
        out.extend(slot.take());
    }
    out
}

/// For each element of `b`, the index in `a` it is matched to by a longest common subsequence
/// (common prefix and suffix first, dynamic programming on the rest).
fn lcs_targets(a: &[&str], b: &[&str]) -> Vec<Option<usize>> {
    let mut targets = vec![None; b.len()];
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    for (i, t) in targets.iter_mut().enumerate().take(prefix) {
        *t = Some(i);
    }
    let suffix = a[prefix..]
        .iter()
        .rev()
        .zip(b[prefix..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    for k in 0..suffix {
        targets[b.len() - 1 - k] = Some(a.len() - 1 - k);
    }
    let (a_mid, b_mid) = (&a[prefix..a.len() - suffix], &b[prefix..b.len() - suffix]);
    let (n, m) = (a_mid.len(), b_mid.len());
    if n == 0 || m == 0 {
        return targets;
    }
    // len[i][j]: the LCS length of a_mid[i..] and b_mid[j..].
    let mut len = vec![0u32; (n + 1) * (m + 1)];
    let at = |i: usize, j: usize| i * (m + 1) + j;
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            len[at(i, j)] = if a_mid[i] == b_mid[j] {
                len[at(i + 1, j + 1)] + 1
            } else {
                len[at(i + 1, j)].max(len[at(i, j + 1)])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    while i < n && j < m {
        if a_mid[i] == b_mid[j] {
            targets[prefix + j] = Some(prefix + i);
            i += 1;
            j += 1;
        } else if len[at(i + 1, j)] >= len[at(i, j + 1)] {
            i += 1;
        } else {
            j += 1;
        }
    }
    targets
}

// ---------------------------------------------------------------------------------------------
// Items and their contents

/// A top-level item, with the contents of a container split out.
enum Top {
    Leaf(syn::Item),
    Extern(syn::ItemForeignMod, Vec<Entry<syn::ForeignItem>>),
    Impl(syn::ItemImpl, Vec<Entry<syn::ImplItem>>),
    Enum(syn::ItemEnum, Vec<Entry<syn::Variant>>),
    /// A `const` or `static` whose value is an array literal (`[a, b]` or `&[a, b]`).
    Array(syn::Item, Vec<Entry<syn::Expr>>),
    /// A macro invocation whose body is a comma-separated list of expressions.
    List(syn::ItemMacro, Vec<Entry<syn::Expr>>),
}

fn tokens(t: &impl ToTokens) -> String {
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

/// The array literal of a constant, behind at most one `&`.
fn array_of(e: &syn::Expr) -> Option<&syn::ExprArray> {
    match e {
        syn::Expr::Array(a) => Some(a),
        syn::Expr::Reference(r) => array_of(&r.expr),
        _ => None,
    }
}

fn array_of_mut(e: &mut syn::Expr) -> Option<&mut syn::ExprArray> {
    match e {
        syn::Expr::Array(a) => Some(a),
        syn::Expr::Reference(r) => array_of_mut(&mut r.expr),
        _ => None,
    }
}

/// The array literal of a `const` or `static` item.
fn item_array(i: &syn::Item) -> Option<&syn::ExprArray> {
    match i {
        syn::Item::Const(c) => array_of(&c.expr),
        syn::Item::Static(s) => array_of(&s.expr),
        _ => None,
    }
}

fn item_array_mut(i: &mut syn::Item) -> Option<&mut syn::ExprArray> {
    match i {
        syn::Item::Const(c) => array_of_mut(&mut c.expr),
        syn::Item::Static(s) => array_of_mut(&mut s.expr),
        _ => None,
    }
}

fn parse_list(m: &syn::ItemMacro) -> Option<Vec<syn::Expr>> {
    let parser = Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated;
    syn::parse::Parser::parse2(parser, m.mac.tokens.clone())
        .ok()
        .map(|p| p.into_iter().collect())
}

/// The key and the split contents of one item of version `v`'s file.
fn split_item(item: &syn::Item, v: usize) -> Result<(String, Top), String> {
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
        syn::Item::Macro(m) if m.ident.is_none() && parse_list(m).is_some() => {
            let elems = parse_list(m).unwrap();
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
fn combine_top(merged: &mut Top, next: Top, v: usize) {
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

// ---------------------------------------------------------------------------------------------
// Projection (the self-check) and rendering

/// Version `vi`'s file out of the merged entries, without any version cfg.
fn project(merged: &[Entry<Top>], vi: usize) -> TokenStream {
    let has = |s: &BTreeSet<usize>| s.contains(&vi);
    let mut out = TokenStream::new();
    for e in merged.iter().filter(|e| e.versions.contains(&vi)) {
        rebuild(
            &e.value,
            |es| pick_if(es, has),
            |es| pick_if(es, has),
            |es| pick_if(es, has),
            |es| pick_if(es, has),
        )
        .to_tokens(&mut out);
    }
    out
}

fn pick_if<T: Clone>(es: &[Entry<T>], keep: impl Fn(&BTreeSet<usize>) -> bool) -> Vec<T> {
    es.iter()
        .filter(|e| keep(&e.versions))
        .map(|e| e.value.clone())
        .collect()
}

/// A container's item with its contents chosen by the four closures.
fn rebuild(
    t: &Top,
    foreign: impl Fn(&[Entry<syn::ForeignItem>]) -> Vec<syn::ForeignItem>,
    impl_items: impl Fn(&[Entry<syn::ImplItem>]) -> Vec<syn::ImplItem>,
    variants: impl Fn(&[Entry<syn::Variant>]) -> Vec<syn::Variant>,
    exprs: impl Fn(&[Entry<syn::Expr>]) -> Vec<syn::Expr>,
) -> syn::Item {
    match t {
        Top::Leaf(i) => i.clone(),
        Top::Extern(tmpl, es) => {
            let mut m = tmpl.clone();
            m.items = foreign(es);
            syn::Item::ForeignMod(m)
        }
        Top::Impl(tmpl, es) => {
            let mut m = tmpl.clone();
            m.items = impl_items(es);
            syn::Item::Impl(m)
        }
        Top::Enum(tmpl, es) => {
            let mut m = tmpl.clone();
            m.variants = variants(es).into_iter().collect();
            syn::Item::Enum(m)
        }
        Top::Array(tmpl, es) => {
            let mut m = tmpl.clone();
            item_array_mut(&mut m).unwrap().elems = exprs(es).into_iter().collect();
            m
        }
        Top::List(tmpl, es) => {
            let mut m = tmpl.clone();
            let list: Punctuated<syn::Expr, syn::Token![,]> = exprs(es).into_iter().collect();
            m.mac.tokens = list.to_token_stream();
            syn::Item::Macro(m)
        }
    }
}

/// The `cfg` predicate of a set of version indices, `None` for every version.
fn cfg_of(set: &BTreeSet<usize>, versions: &[u32]) -> Option<TokenStream> {
    if set.len() == versions.len() {
        return None;
    }
    let ge = |i: usize| {
        let id = format_ident!("cuda_ge_{}", versions[i]);
        quote!(#id)
    };
    let mut runs = Vec::new();
    let mut iter = set.iter().copied().peekable();
    while let Some(a) = iter.next() {
        let mut b = a;
        while iter.peek() == Some(&(b + 1)) {
            b = iter.next().unwrap();
        }
        runs.push((a, b));
    }
    let preds: Vec<TokenStream> = runs
        .iter()
        .map(|&(a, b)| {
            let lower = (a > 0).then(|| ge(a));
            let upper = (b + 1 < versions.len()).then(|| {
                let n = ge(b + 1);
                quote!(not(#n))
            });
            match (lower, upper) {
                (Some(l), Some(u)) => quote!(all(#l, #u)),
                (Some(l), None) => l,
                (None, Some(u)) => u,
                (None, None) => unreachable!("a run over every version is the whole set"),
            }
        })
        .collect();
    Some(if preds.len() == 1 {
        preds[0].clone()
    } else {
        quote!(any(#(#preds),*))
    })
}

fn cfg_attr(pred: TokenStream) -> syn::Attribute {
    syn::parse_quote!(#[cfg(#pred)])
}

/// The cfg of a container's element, where it is not in every version its container is in.
fn inner_cfg(
    set: &BTreeSet<usize>,
    parent: &BTreeSet<usize>,
    versions: &[u32],
) -> Option<syn::Attribute> {
    (set != parent)
        .then(|| cfg_of(set, versions).map(cfg_attr))
        .flatten()
}

/// The elements of a container, each under its cfg where it needs one.
fn with_cfgs<T: Clone>(
    es: &[Entry<T>],
    parent: &BTreeSet<usize>,
    versions: &[u32],
    attrs: impl Fn(&mut T) -> Result<&mut Vec<syn::Attribute>, String>,
) -> Result<Vec<T>, String> {
    es.iter()
        .map(|x| {
            let mut v = x.value.clone();
            if let Some(a) = inner_cfg(&x.versions, parent, versions) {
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
/// not in every version the item is in).
fn render(merged: &[Entry<Top>], versions: &[u32]) -> Result<(String, usize, usize), String> {
    let (mut count, mut with_cfg) = (0, 0);
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
        let own = cfg_of(&e.versions, versions);
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
                    if let Some(a) = inner_cfg(&el.versions, p, versions) {
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
            Top::Leaf(i) => i.clone(),
            Top::Extern(tmpl, es) => {
                let mut m = tmpl.clone();
                m.items = with_cfgs(es, p, versions, |v| Ok(foreign_attrs(v)))?;
                syn::Item::ForeignMod(m)
            }
            Top::Impl(tmpl, es) => {
                let mut m = tmpl.clone();
                m.items = with_cfgs(es, p, versions, impl_attrs)?;
                syn::Item::Impl(m)
            }
            Top::Enum(tmpl, es) => {
                let mut m = tmpl.clone();
                m.variants = with_cfgs(es, p, versions, |v| Ok(&mut v.attrs))?
                    .into_iter()
                    .collect();
                syn::Item::Enum(m)
            }
            Top::Array(tmpl, es) => {
                let mut m = tmpl.clone();
                item_array_mut(&mut m).unwrap().elems = with_cfgs(es, p, versions, expr_attrs)?
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

fn item_attrs(i: &mut syn::Item) -> Result<&mut Vec<syn::Attribute>, String> {
    use syn::Item::*;
    Ok(match i {
        Const(x) => &mut x.attrs,
        Enum(x) => &mut x.attrs,
        ExternCrate(x) => &mut x.attrs,
        Fn(x) => &mut x.attrs,
        ForeignMod(x) => &mut x.attrs,
        Impl(x) => &mut x.attrs,
        Macro(x) => &mut x.attrs,
        Mod(x) => &mut x.attrs,
        Static(x) => &mut x.attrs,
        Struct(x) => &mut x.attrs,
        Trait(x) => &mut x.attrs,
        TraitAlias(x) => &mut x.attrs,
        Type(x) => &mut x.attrs,
        Union(x) => &mut x.attrs,
        Use(x) => &mut x.attrs,
        other => return Err(format!("merge: cannot put a cfg on {}", tokens(other))),
    })
}

fn foreign_attrs(i: &mut syn::ForeignItem) -> &mut Vec<syn::Attribute> {
    match i {
        syn::ForeignItem::Fn(x) => &mut x.attrs,
        syn::ForeignItem::Static(x) => &mut x.attrs,
        syn::ForeignItem::Type(x) => &mut x.attrs,
        syn::ForeignItem::Macro(x) => &mut x.attrs,
        _ => unreachable!("syn's foreign items are the four above"),
    }
}

fn impl_attrs(i: &mut syn::ImplItem) -> Result<&mut Vec<syn::Attribute>, String> {
    Ok(match i {
        syn::ImplItem::Const(x) => &mut x.attrs,
        syn::ImplItem::Fn(x) => &mut x.attrs,
        syn::ImplItem::Type(x) => &mut x.attrs,
        syn::ImplItem::Macro(x) => &mut x.attrs,
        other => return Err(format!("merge: cannot put a cfg on {}", tokens(other))),
    })
}

fn expr_attrs(e: &mut syn::Expr) -> Result<&mut Vec<syn::Attribute>, String> {
    use syn::Expr::*;
    Ok(match e {
        Array(x) => &mut x.attrs,
        Call(x) => &mut x.attrs,
        Lit(x) => &mut x.attrs,
        MethodCall(x) => &mut x.attrs,
        Path(x) => &mut x.attrs,
        Reference(x) => &mut x.attrs,
        Struct(x) => &mut x.attrs,
        Tuple(x) => &mut x.attrs,
        other => return Err(format!("merge: cannot put a cfg on {}", tokens(other))),
    })
}
