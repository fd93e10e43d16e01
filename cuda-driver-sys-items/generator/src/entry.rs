//! Emits `entry.rs`: one typed `EntryPoint` per versioned `PFN_*` typedef, and one per C spelling
//! at the version whose ABI the linked function has.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::c_spellings::CSpellings;
use crate::function_docs::{entry_doc, entry_spelling_doc};
use crate::item_docs::doc_attrs;
use crate::parsed::Parsed;

pub(crate) struct Entries {
    pub(crate) tokens: TokenStream,
    /// C spelling → its versioned typedef, per stream mode (normal, per-thread).
    pub(crate) c_spelling: BTreeMap<String, (String, String)>,
    pub(crate) derived: usize,
}

/// `PFN_cuMemcpyHtoD_v7000_ptds` → ("cuMemcpyHtoD", 7000, Some("ptds")).
fn split_pfn(name: &str) -> Option<(String, u32, Option<String>)> {
    static RE: LazyLock<regex::Regex> =
        LazyLock::new(|| regex::Regex::new(r"^PFN_(cu\w+)_v(\d+)(?:_(ptds|ptsz))?$").unwrap());
    let c = RE.captures(name)?;
    Some((
        c[1].to_string(),
        c[2].parse().ok()?,
        c.get(3).map(|m| m.as_str().to_string()),
    ))
}

static VERSION_SUFFIX: LazyLock<regex::Regex> =
    LazyLock::new(|| regex::Regex::new(r"_v(\d+)$").unwrap());

/// The ordinal of an ABI variant from its symbol: `cuCtxCreate` 1, `cuCtxCreate_v2` 2, ...
fn symbol_ordinal(sym: &str) -> usize {
    let sym = sym.trim_end_matches("_ptds").trim_end_matches("_ptsz");
    VERSION_SUFFIX
        .captures(sym)
        .and_then(|c| c[1].parse().ok())
        .unwrap_or(1)
}

pub(crate) fn generate(b: &Parsed, spellings: &CSpellings) -> Result<Entries, String> {
    let mut out = quote! {
        use super::*;
        use crate::EntryPoint;
    };
    // Versioned typedefs, grouped by the base name cuGetProcAddress takes.
    let mut by_base: BTreeMap<String, Vec<(u32, String)>> = BTreeMap::new();
    let mut all = Vec::new();
    for name in b.pfns.keys() {
        let Some((base, version, pt)) = split_pfn(name) else {
            return Err(format!(
                "typedef {name} does not read as PFN_<symbol>_v<version>"
            ));
        };
        let id = format_ident!("{}", &name[4..]);
        let ty = format_ident!("{name}");
        let sym = syn::LitCStr::new(
            &std::ffi::CString::new(base.clone()).unwrap(),
            proc_macro2::Span::call_site(),
        );
        let lit = proc_macro2::Literal::i32_unsuffixed(version as i32);
        let ctor = if pt.is_some() {
            quote!(new_per_thread)
        } else {
            quote!(new)
        };
        let doc = doc_attrs(&entry_doc(name, &base, version, pt.is_some()));
        out.extend(quote! {
            #(#doc)*
            pub const #id: EntryPoint<#ty> = unsafe { EntryPoint::#ctor(#sym, #lit) };
        });
        let per_thread = pt.is_some();
        all.push(quote! {
            crate::EntryPointInfo { symbol: #sym, version: #lit, per_thread: #per_thread }
        });
        if pt.is_none() {
            by_base
                .entry(base)
                .or_default()
                .push((version, name.clone()));
        }
    }
    for v in by_base.values_mut() {
        v.sort();
    }

    let pfn_sig: BTreeMap<&String, String> = b
        .pfns
        .iter()
        .map(|(k, f)| (k, b.pfn_signature(f)))
        .collect();
    // C spelling → typedef: the header's PFN_cuX macro where it has one; otherwise (CUDA 13
    // headers have none) the typedef whose signature is the linked symbol's, the n-th ABI
    // variant for the symbol's _vN suffix where several share it.
    let derive = |c_name: &str, sym: &str| -> Result<Option<String>, String> {
        let Some(f) = b.functions.get(sym) else {
            return Ok(None);
        };
        let sig = b.fn_signature(f);
        let base = sym.trim_end_matches("_ptds").trim_end_matches("_ptsz");
        let base = VERSION_SUFFIX.replace(base, "").to_string();
        let candidates = by_base.get(&base).or_else(|| by_base.get(c_name));
        let Some(cands) = candidates else {
            return Ok(None);
        };
        let matching: Vec<&(u32, String)> =
            cands.iter().filter(|(_, t)| pfn_sig[t] == sig).collect();
        match matching.len() {
            0 => Ok(None),
            1 => Ok(Some(matching[0].1.clone())),
            _ => {
                let k = symbol_ordinal(sym);
                match cands.get(k - 1) {
                    Some((_, t)) if pfn_sig[t] == sig => Ok(Some(t.clone())),
                    _ => Err(format!(
                        "{c_name} ({sym}): several typedefs match {sig} and none is variant {k}"
                    )),
                }
            }
        }
    };
    // The per-thread typedef (`_ptds`/`_ptsz`) of the same ABI variant as `n`, for a symbol with
    // that suffix; `n` itself for any other symbol.
    let stream_variant = |n: &String, sym: &str| -> String {
        let Some(pt) = ["ptds", "ptsz"]
            .into_iter()
            .find(|s| sym.ends_with(&format!("_{s}")))
        else {
            return n.clone();
        };
        // The same version's per-thread typedef first: 11.7/11.8's `PFN_cuStreamBatchMemOp_v8000`
        // takes the new `CUstreamBatchMemOpParams` while its `_ptsz` twin takes `_v1`, so a
        // search by signature alone would pick the 11.7 ABI for the 8.0 symbol.
        let same_version = format!("{n}_{pt}");
        if b.pfns.contains_key(&same_version) {
            return same_version;
        }
        b.pfns
            .keys()
            .find(|k| {
                split_pfn(k).is_some_and(|(base, _, s)| {
                    s.as_deref() == Some(pt) && n.starts_with(&format!("PFN_{base}_v"))
                }) && pfn_sig[*k] == pfn_sig[n]
            })
            .cloned()
            .unwrap_or_else(|| n.clone())
    };
    let mut c_spelling = BTreeMap::new();
    let mut derived = 0;
    let mut disagreements = Vec::new();
    for (c_name, (n_sym, p_sym)) in &spellings.functions {
        let from_macro = spellings.pfn_macros.get(&format!("PFN_{c_name}"));
        let (n, p) = match (derive(c_name, n_sym)?, from_macro) {
            (Some(d), Some((n, p))) if &d == n => (n.clone(), p.clone()),
            (Some(d), Some((n, _))) => {
                // The header's PFN macro names another ABI than the function macro (12.0:
                // PFN_cuCtxCreate is the _v3 type, cuCtxCreate is cuCtxCreate_v2): the entry
                // follows the linked symbol, so that it calls what the C spelling calls.
                disagreements.push(format!(
                    "`PFN_{c_name}` is `{n}`, but `{c_name}` links `{n_sym}`, whose type is `{d}`"
                ));
                (stream_variant(&d, n_sym), stream_variant(&d, p_sym))
            }
            (None, Some((n, p))) => (n.clone(), p.clone()),
            (Some(d), None) => {
                derived += 1;
                (stream_variant(&d, n_sym), stream_variant(&d, p_sym))
            }
            (None, None) => continue,
        };
        c_spelling.insert(c_name.clone(), (n, p));
    }
    for (c_name, (n, p)) in &c_spelling {
        let id = format_ident!("{c_name}");
        if b.pfns.contains_key(&format!("PFN_{c_name}")) {
            continue; // a C spelling that is itself a versioned name (cuCtxCreate_v3 has none)
        }
        let (en, ep) = (format_ident!("{}", &n[4..]), format_ident!("{}", &p[4..]));
        let doc = doc_attrs(&entry_spelling_doc(c_name, n, p));
        // Re-exports, not constants of their own: the same item under a second name, which the
        // compiler does not type-check and evaluate once more (docs/BUILD-COST.md); inlined, each
        // still has its own page.
        if n == p {
            out.extend(quote! { #(#doc)* #[doc(inline)] pub use self::#en as #id; });
        } else {
            out.extend(quote! {
                #(#doc)*
                #[cfg(not(feature = "per-thread-default-stream"))]
                #[doc(inline)]
                pub use self::#en as #id;
                #(#doc)*
                #[cfg(feature = "per-thread-default-stream")]
                #[doc(inline)]
                pub use self::#ep as #id;
            });
        }
    }
    let notes: Vec<String> = spellings
        .broken
        .iter()
        .cloned()
        .chain(disagreements)
        .collect();
    out.extend(quote! {
        /// Defects of this header that the bindings work around: `PFN_*` macros that name no type
        /// (not bound), and `PFN_cuX` macros that name another ABI than the function `cuX` links
        /// (the entry point [`cuX`](self) follows the linked function).
        pub const HEADER_NOTES: &[&str] = &[#(#notes),*];
    });
    // The length is a constant of its own, so that the list itself is the same item in every
    // header version that has the same entry points (see the `merge` module).
    let count = proc_macro2::Literal::usize_unsuffixed(all.len());
    out.extend(quote! {
        /// How many entry points [`ALL`] holds.
        pub const ALL_LEN: usize = #count;
        /// Every versioned entry point of `cudaTypedefs.h`: symbol, version and stream mode.
        pub const ALL: [crate::EntryPointInfo; ALL_LEN] = [#(#all),*];
    });
    Ok(Entries {
        tokens: out,
        c_spelling,
        derived,
    })
}
