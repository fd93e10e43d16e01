//! Emits `function_names.rs`: the C spellings of the functions (`cuCtxCreate` is
//! `cuCtxCreate_v2`), each re-exported as the symbol its macro names in each stream mode.

use std::collections::BTreeMap;

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::c_spellings::HAND_WRITTEN_INLINES;
use crate::function_docs::c_spelling_doc;
use crate::item_docs::doc_attrs;

/// The tokens of `function_names.rs`, from the C spellings' symbols per stream mode
/// ([`CSpellings::functions`](crate::c_spellings::CSpellings::functions)).
pub(crate) fn generate(functions: &BTreeMap<String, (String, String)>) -> TokenStream {
    let path_of = |sym: &str| -> TokenStream {
        let id = format_ident!("{sym}");
        if HAND_WRITTEN_INLINES.contains(&sym) {
            quote!(crate::inline::#id)
        } else {
            quote!(self::functions::#id)
        }
    };
    let mut fn_out = TokenStream::new();
    for (c_name, (n_sym, p_sym)) in functions {
        let id = format_ident!("{c_name}");
        let (pn, pp) = (path_of(n_sym), path_of(p_sym));
        let doc = doc_attrs(&c_spelling_doc(c_name, n_sym, p_sym));
        if n_sym == p_sym {
            if n_sym != c_name {
                fn_out.extend(quote! { #(#doc)* pub use #pn as #id; });
            }
            continue;
        }
        if n_sym != c_name {
            fn_out.extend(quote! {
                #(#doc)*
                #[cfg(not(feature = "per-thread-default-stream"))]
                pub use #pn as #id;
            });
        }
        if p_sym != c_name {
            fn_out.extend(quote! {
                #(#doc)*
                #[cfg(feature = "per-thread-default-stream")]
                pub use #pp as #id;
            });
        }
    }
    fn_out
}
