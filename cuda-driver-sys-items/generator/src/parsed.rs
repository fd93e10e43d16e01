//! bindgen's output read back: the functions, typedefs, `PFN_*` types, enums and constants the
//! emitters work from, and the canonical (typedef-resolved) text of a signature.

use std::collections::{BTreeMap, BTreeSet};

use quote::ToTokens;

use crate::item_docs::enumerator_value;
use crate::rust_syntax::option_inner;

pub(crate) struct Parsed {
    /// Function name → its declaration.
    pub(crate) functions: BTreeMap<String, syn::ForeignItemFn>,
    /// `pub type A = B;` for every non-PFN alias.
    pub(crate) aliases: BTreeMap<String, syn::Type>,
    /// `PFN_*` typedef name → the bare function type inside its `Option<...>`.
    pub(crate) pfns: BTreeMap<String, syn::TypeBareFn>,
    /// Newtype enum name → the names of its constants.
    pub(crate) enums: BTreeMap<String, Vec<String>>,
    /// Enumerator name → its value as bindgen writes it (`1`, `-2`).
    pub(crate) enumerator_values: BTreeMap<String, String>,
    /// Top-level `pub const NAME: TYPE` (macro constants bindgen translated).
    pub(crate) consts: BTreeMap<String, syn::Type>,
}

pub(crate) fn parse(src: &str) -> Result<Parsed, String> {
    let file = syn::parse_file(src).map_err(|e| format!("bindgen output does not parse: {e}"))?;
    let mut p = Parsed {
        functions: BTreeMap::new(),
        aliases: BTreeMap::new(),
        pfns: BTreeMap::new(),
        enums: BTreeMap::new(),
        enumerator_values: BTreeMap::new(),
        consts: BTreeMap::new(),
    };
    let mut newtypes = BTreeSet::new();
    for item in &file.items {
        match item {
            syn::Item::ForeignMod(m) => {
                for fi in &m.items {
                    if let syn::ForeignItem::Fn(f) = fi {
                        p.functions.insert(f.sig.ident.to_string(), f.clone());
                    }
                }
            }
            syn::Item::Type(t) => {
                let name = t.ident.to_string();
                if name.starts_with("PFN_") {
                    let inner = option_inner(&t.ty)
                        .cloned()
                        .ok_or_else(|| format!("{name} is not an Option<fn> typedef"))?;
                    p.pfns.insert(name, inner);
                } else {
                    p.aliases.insert(name, (*t.ty).clone());
                }
            }
            syn::Item::Struct(s) => {
                let is_newtype = s.attrs.iter().any(|a| {
                    a.path().is_ident("repr")
                        && a.to_token_stream().to_string().contains("transparent")
                });
                if is_newtype {
                    newtypes.insert(s.ident.to_string());
                }
            }
            syn::Item::Impl(i) => {
                let ty = i.self_ty.to_token_stream().to_string();
                for ii in &i.items {
                    if let syn::ImplItem::Const(c) = ii {
                        if let Some(value) = enumerator_value(&c.expr) {
                            p.enumerator_values.insert(c.ident.to_string(), value);
                        }
                        p.enums
                            .entry(ty.clone())
                            .or_default()
                            .push(c.ident.to_string());
                    }
                }
            }
            syn::Item::Const(c) => {
                p.consts.insert(c.ident.to_string(), (*c.ty).clone());
            }
            // bindgen writes `typedef enum X_enum {..} X;` as `pub use self::X_enum as X;`.
            syn::Item::Use(u) => {
                if let syn::UseTree::Path(path) = &u.tree {
                    if let syn::UseTree::Rename(r) = &*path.tree {
                        let target: syn::Type = syn::parse_str(&r.ident.to_string()).unwrap();
                        p.aliases.insert(r.rename.to_string(), target);
                    }
                }
            }
            _ => {}
        }
    }
    p.enums.retain(|k, _| newtypes.contains(k));
    Ok(p)
}

impl Parsed {
    /// A type with every typedef resolved, as a string: two signatures with the same canonical
    /// text have the same ABI.
    pub(crate) fn canonical(&self, ty: &syn::Type) -> String {
        match ty {
            syn::Type::Path(tp) if tp.qself.is_none() && tp.path.segments.len() == 1 => {
                let name = tp.path.segments[0].ident.to_string();
                match self.aliases.get(&name) {
                    Some(t) => self.canonical(t),
                    None => name,
                }
            }
            syn::Type::Ptr(p) => format!(
                "*{} {}",
                if p.mutability.is_some() {
                    "mut"
                } else {
                    "const"
                },
                self.canonical(&p.elem)
            ),
            other => other.to_token_stream().to_string(),
        }
    }

    pub(crate) fn fn_signature(&self, f: &syn::ForeignItemFn) -> String {
        let args: Vec<String> = f
            .sig
            .inputs
            .iter()
            .map(|a| match a {
                syn::FnArg::Typed(t) => self.canonical(&t.ty),
                syn::FnArg::Receiver(_) => unreachable!("extern functions have no receiver"),
            })
            .collect();
        format!("({}) -> {}", args.join(", "), self.ret(&f.sig.output))
    }

    pub(crate) fn pfn_signature(&self, f: &syn::TypeBareFn) -> String {
        let args: Vec<String> = f.inputs.iter().map(|a| self.canonical(&a.ty)).collect();
        format!("({}) -> {}", args.join(", "), self.ret(&f.output))
    }

    pub(crate) fn ret(&self, r: &syn::ReturnType) -> String {
        match r {
            syn::ReturnType::Default => "()".into(),
            syn::ReturnType::Type(_, t) => self.canonical(t),
        }
    }

    /// Which typedef names an enum type: `CUresult` for `cudaError_enum`, the enum itself where
    /// none does.
    pub(crate) fn enum_display_names(&self) -> BTreeMap<String, String> {
        let mut names: BTreeMap<String, String> =
            self.enums.keys().map(|k| (k.clone(), k.clone())).collect();
        for (alias, ty) in &self.aliases {
            let target = ty.to_token_stream().to_string();
            if let Some(n) = names.get_mut(&target) {
                if n == &target {
                    *n = alias.clone();
                }
            }
        }
        names
    }
}
