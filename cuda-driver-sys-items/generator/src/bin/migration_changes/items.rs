//! The items a dependent can name, read from Rust bindings: cuda-driver-sys 0.3.0's `cuda.rs`
//! (bindgen's Rust enums) and this crate's generated files projected onto one header version
//! (newtype enums with associated constants). Both become the same [`Items`]; cust_raw 0.11.3's
//! `cuda.rs` is read as 0.3.0's is.

use std::collections::BTreeMap;

use quote::ToTokens;

use crate::layout::Layout;

/// Where an item of this crate is: the crate root, or a module behind a feature (`profiler`).
pub type Feature = Option<&'static str>;

/// The names of one set of bindings, each with what a change is measured on.
#[derive(Default)]
pub struct Items {
    /// Top-level constants: their value (the integer, or the expression's text).
    pub consts: BTreeMap<String, (String, Feature)>,
    /// Enumerators, keyed by (the enum's C tag, as `CUdevice_attribute_enum`; the enumerator).
    pub enumerators: BTreeMap<(String, String), (i128, Feature)>,
    /// Types: structs, unions, enums, aliases.
    pub types: BTreeMap<String, Feature>,
    /// Functions: their signature, with the paths of the C types left out (`c_uint`).
    pub functions: BTreeMap<String, (String, Feature)>,
    /// An enum's C tag to its typedef name (`CUdevice_attribute_enum` to `CUdevice_attribute`).
    pub typedef_names: BTreeMap<String, String>,
    /// The layout of each type that is (or aliases) a struct or union.
    pub layouts: BTreeMap<String, Layout>,
}

impl Items {
    /// The items of one bindings file; `feature` is where the file's items are. The `impl`
    /// blocks last: 0.3.0's aliases of enumerators precede their enum.
    pub fn add_file(&mut self, file: &syn::File, feature: Feature) -> Result<(), String> {
        let (impls, others): (Vec<&syn::Item>, Vec<&syn::Item>) = file
            .items
            .iter()
            .filter(|i| !per_thread_only(i))
            .partition(|i| matches!(i, syn::Item::Impl(_)));
        for item in others.into_iter().chain(impls) {
            self.add_item(item, feature)?;
        }
        Ok(())
    }

    fn add_item(&mut self, item: &syn::Item, feature: Feature) -> Result<(), String> {
        match item {
            syn::Item::Const(c) => {
                self.consts
                    .insert(c.ident.to_string(), (value_text(&c.expr), feature));
            }
            syn::Item::Enum(e) => {
                let tag = e.ident.to_string();
                self.types.insert(tag.clone(), feature);
                for v in &e.variants {
                    let (_, expr) = v
                        .discriminant
                        .as_ref()
                        .ok_or_else(|| format!("enumerator {tag}::{} has no value", v.ident))?;
                    let value = integer(expr)
                        .ok_or_else(|| format!("enumerator {tag}::{}: not an integer", v.ident))?;
                    self.enumerators
                        .insert((tag.clone(), v.ident.to_string()), (value, feature));
                }
            }
            syn::Item::Struct(s) => {
                self.types.insert(s.ident.to_string(), feature);
            }
            syn::Item::Union(u) => {
                self.types.insert(u.ident.to_string(), feature);
            }
            syn::Item::Type(t) => {
                self.types.insert(t.ident.to_string(), feature);
            }
            syn::Item::Impl(i) if i.trait_.is_none() => self.add_impl(i, feature)?,
            syn::Item::Use(u) => self.add_use(&u.tree, feature),
            syn::Item::ForeignMod(m) => {
                for f in &m.items {
                    if let syn::ForeignItem::Fn(f) = f {
                        self.functions
                            .insert(f.sig.ident.to_string(), (signature(&f.sig), feature));
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// An enum's associated constants: this crate's enumerators (`E(92)`), and 0.3.0's aliases
    /// of another enumerator (`E::OTHER`).
    fn add_impl(&mut self, imp: &syn::ItemImpl, feature: Feature) -> Result<(), String> {
        let tag = imp.self_ty.to_token_stream().to_string();
        for ii in &imp.items {
            let syn::ImplItem::Const(c) = ii else {
                continue;
            };
            let name = c.ident.to_string();
            let value = match &c.expr {
                syn::Expr::Call(call) if call.args.len() == 1 => integer(&call.args[0]),
                syn::Expr::Path(p) => p
                    .path
                    .segments
                    .last()
                    .and_then(|s| self.enumerators.get(&(tag.clone(), s.ident.to_string())))
                    .map(|(v, _)| *v),
                _ => None,
            }
            .ok_or_else(|| format!("enumerator {tag}::{name}: not an integer"))?;
            self.enumerators
                .insert((tag.clone(), name), (value, feature));
        }
        Ok(())
    }

    /// `pub use self::E as Alias` (a type's typedef name) and `pub use self::functions::cuX_v2 as cuX`
    /// (a function's C spelling, with the signature of the function it binds).
    fn add_use(&mut self, tree: &syn::UseTree, feature: Feature) {
        let mut t = tree;
        while let syn::UseTree::Path(p) = t {
            t = &p.tree;
        }
        let syn::UseTree::Rename(r) = t else { return };
        let (from, to) = (r.ident.to_string(), r.rename.to_string());
        if let Some((sig, _)) = self.functions.get(&from).cloned() {
            self.functions.insert(to, (sig, feature));
        } else if self.types.contains_key(&from) {
            self.types.insert(to.clone(), feature);
            self.typedef_names.insert(from, to);
        }
    }
}

/// Whether an item exists only under the `per-thread-default-stream` feature (a C spelling bound
/// to a `_ptsz` symbol): the tables compare the default stream mode, 0.3.0's only one.
fn per_thread_only(item: &syn::Item) -> bool {
    let attrs = match item {
        syn::Item::Use(u) => &u.attrs,
        syn::Item::Const(c) => &c.attrs,
        syn::Item::Type(t) => &t.attrs,
        _ => return false,
    };
    attrs.iter().any(|a| {
        a.path().is_ident("cfg")
            && a.parse_args::<syn::Meta>().is_ok_and(|m| {
                matches!(&m, syn::Meta::NameValue(nv) if nv.path.is_ident("feature")
                    && nv.value.to_token_stream().to_string() == "\"per-thread-default-stream\"")
            })
    })
}

/// An integer literal, possibly negated, possibly cast (`-1`, `0x10`, `1u32`).
fn integer(expr: &syn::Expr) -> Option<i128> {
    match expr {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => i.base10_parse().ok(),
        syn::Expr::Unary(syn::ExprUnary {
            op: syn::UnOp::Neg(_),
            expr,
            ..
        }) => integer(expr).map(|v| -v),
        syn::Expr::Paren(p) => integer(&p.expr),
        syn::Expr::Cast(c) => integer(&c.expr),
        _ => None,
    }
}

/// A constant's value as the tables show it: the integer, or the expression's tokens.
fn value_text(expr: &syn::Expr) -> String {
    match integer(expr) {
        Some(v) => v.to_string(),
        None => simplify(&expr.to_token_stream().to_string()),
    }
}

/// A signature without parameter names and without the paths of the C and core types, so that
/// 0.3.0's `::std::os::raw::c_uint` and this crate's `::core::ffi::c_uint` compare equal.
fn signature(sig: &syn::Signature) -> String {
    let params: Vec<String> = sig
        .inputs
        .iter()
        .map(|a| match a {
            syn::FnArg::Typed(t) => simplify(&t.ty.to_token_stream().to_string()),
            syn::FnArg::Receiver(r) => r.to_token_stream().to_string(),
        })
        .collect();
    let ret = match &sig.output {
        syn::ReturnType::Default => String::new(),
        syn::ReturnType::Type(_, t) => {
            format!(" -> {}", simplify(&t.to_token_stream().to_string()))
        }
    };
    format!("({}){ret}", params.join(", "))
}

/// Token text with the standard paths dropped and Rust's token spacing tightened.
fn simplify(tokens: &str) -> String {
    const PATHS: [&str; 5] = [
        ":: std :: os :: raw :: ",
        ":: core :: ffi :: ",
        ":: std :: option :: ",
        ":: core :: option :: ",
        "unsafe ",
    ];
    let mut s = tokens.to_string();
    for p in PATHS {
        s = s.replace(p, "");
    }
    s.replace("* mut ", "*mut ")
        .replace("* const ", "*const ")
        .replace(" < ", "<")
        .replace(" >", ">")
        .replace(" ,", ",")
        .replace("( ", "(")
        .replace(" )", ")")
        .replace("extern \"C\" fn (", "extern \"C\" fn(")
}
