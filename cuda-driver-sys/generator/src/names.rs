//! Emits `names.rs`: the unversioned `PFN_cuX` macros, every enumerator at top level, and the macro
//! constants bindgen cannot translate; and works out the C spellings of the functions, which
//! [`crate::function_names`] emits.

use std::collections::{BTreeMap, BTreeSet};

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::item_docs::{const_doc, doc_attrs, enumerator_doc, pfn_macro_doc, SetDocs};
use crate::macros::is_non_constant_macro;
use crate::parsed::Parsed;

/// What [`generate`] found: the tokens of `names.rs`, the C spellings of the functions and the
/// header's `PFN_cuX` macros, and counts for the summary.
pub(crate) struct Names {
    /// `PFN_cuX` aliases, enumerators, macro constants.
    pub(crate) tokens: TokenStream,
    /// C spelling → (symbol in the normal mode, symbol in the per-thread mode). A symbol may be
    /// a hand-written inline (`cuGetProcAddress_v2_ptsz`).
    pub(crate) functions: BTreeMap<String, (String, String)>,
    /// `PFN_cuX` macro → (typedef in the normal mode, in the per-thread mode), where the header
    /// has such macros.
    pub(crate) pfn_macros: BTreeMap<String, (String, String)>,
    pub(crate) enumerators: usize,
    pub(crate) macro_constants: usize,
    /// PFN macros of the header that name no type.
    pub(crate) broken: Vec<String>,
}

/// `cuda.h`'s static inline functions, written by hand in `cuda-driver-sys`: the per-thread
/// `cuGetProcAddress` of CUDA 12+ (`_v2_ptsz`) and of CUDA 11 (`_ptsz`).
pub(crate) const HAND_WRITTEN_INLINES: &[&str] =
    &["cuGetProcAddress_v2_ptsz", "cuGetProcAddress_ptsz"];

fn is_ident(s: &str) -> bool {
    !s.is_empty()
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !s.starts_with(|c: char| c.is_ascii_digit())
}

/// The C spellings (from the function-like renaming macros, in both stream modes), the
/// `PFN_cuX` macros, and the tokens of `names.rs`, each item documented from the facts of `docs`.
pub(crate) fn generate(
    b: &Parsed,
    macros: &BTreeSet<String>,
    exp_n: &BTreeMap<String, String>,
    exp_p: &BTreeMap<String, String>,
    normal: &Parsed,
    per_thread: &Parsed,
    docs: &SetDocs,
) -> Result<Names, String> {
    let mut out = TokenStream::new();
    let mut functions = BTreeMap::new();
    let mut pfn_macros = BTreeMap::new();
    let mut handled = BTreeSet::new();
    let mut broken = Vec::new();
    let declared =
        |f: &str, p: &Parsed| p.functions.contains_key(f) || HAND_WRITTEN_INLINES.contains(&f);

    // Every function a C program can call by name, with the symbol the call reaches.
    for f in normal.functions.keys() {
        functions.insert(f.clone(), (f.clone(), f.clone()));
    }
    for m in macros {
        let (n, p) = (&exp_n[m], &exp_p[m]);
        let n_fn = is_ident(n) && declared(n, normal);
        let p_fn = is_ident(p) && declared(p, per_thread);
        if m.starts_with("PFN_") {
            // Header typos make some macros unusable in C as well (12.x:
            // `PFN_cuGraphBatchMemOpNodeSetParams _v11070`, `PFN_cuStreamGetId_v12000_v12000`):
            // such a macro is recorded and not bound.
            let typedef = |e: &str| is_ident(e) && b.pfns.contains_key(e);
            if typedef(n) && typedef(p) {
                pfn_macros.insert(m.clone(), (n.clone(), p.clone()));
            } else if !typedef(n) {
                broken.push(format!("`{m}` expands to `{n}`"));
            } else {
                broken.push(format!("`{m}` expands to `{p}` in the per-thread mode"));
            }
            handled.insert(m.clone());
            continue;
        }
        if !(n_fn || p_fn) {
            continue;
        }
        // A name that is a function in one mode only keeps its own symbol in the other.
        let n_sym = if n_fn { n.clone() } else { m.clone() };
        let p_sym = if p_fn { p.clone() } else { m.clone() };
        if !declared(&n_sym, normal) && !declared(&p_sym, per_thread) {
            return Err(format!("macro {m} names no declared function ({n} / {p})"));
        }
        functions.insert(m.clone(), (n_sym, p_sym));
        handled.insert(m.clone());
    }
    // The per-thread mode's own names (cuMemcpy_ptds, ...) are callable by those names too.
    for f in per_thread.functions.keys() {
        functions.entry(f.clone()).or_insert((f.clone(), f.clone()));
    }

    for (m, (n, p)) in &pfn_macros {
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
        if handled.contains(m) || b.consts.contains_key(m) || enum_of.contains_key(m) {
            continue;
        }
        let e = &exp_n[m];
        if e == m || is_non_constant_macro(m, e) || functions.contains_key(m) {
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
        functions,
        pfn_macros,
        enumerators,
        macro_constants,
        broken,
    })
}
