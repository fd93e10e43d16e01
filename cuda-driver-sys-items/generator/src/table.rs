//! Emits `table.rs`: the driver-entry table's methods of one header, one slot per C spelling.

use std::collections::{BTreeMap, BTreeSet};

use proc_macro2::TokenStream;
use quote::{format_ident, quote, ToTokens};

use crate::c_spellings::CSpellings;
use crate::function_docs::table_method_doc;
use crate::header_set::HeaderSet;
use crate::item_docs::doc_attrs;
use crate::parsed::Parsed;

/// The driver-entry table's part for this header: one slot per C spelling a program calls (not
/// the symbols the macros name, which are the same functions), each a method of `DriverTable`
/// (defined by hand in `table.rs`, with one field of slots per header) with the function's
/// signature.
pub(crate) fn generate(
    b: &Parsed,
    spellings: &CSpellings,
    c_spelling: &BTreeMap<String, (String, String)>,
    set: &HeaderSet,
) -> Result<TokenStream, String> {
    // The table's slots of this header: `DriverTable`'s field of the same name (table.rs).
    let field = format_ident!("{}", set.table_field());
    let targets: BTreeSet<&String> = spellings
        .functions
        .iter()
        .flat_map(|(c, (n, p))| [n, p].into_iter().filter(move |s| *s != c))
        .collect();
    let mut methods = TokenStream::new();
    let mut entries = Vec::new();
    let mut slot_names = Vec::new();
    for (c_name, (n_sym, _)) in &spellings.functions {
        if targets.contains(c_name) {
            continue;
        }
        let Some((n, p)) = c_spelling.get(c_name) else {
            return Err(format!(
                "{c_name} has no PFN typedef: the table cannot type it"
            ));
        };
        let Some(decl) = b.functions.get(n_sym).or_else(|| b.functions.get(c_name)) else {
            return Err(format!("{c_name}: no declaration of {n_sym}"));
        };
        if b.pfn_signature(&b.pfns[n]) != b.pfn_signature(&b.pfns[p]) {
            return Err(format!("{c_name}: {n} and {p} differ"));
        }
        let id = format_ident!("{c_name}");
        let (en, ep) = (format_ident!("{}", &n[4..]), format_ident!("{}", &p[4..]));
        let inputs = &decl.sig.inputs;
        let args: Vec<&syn::Pat> = inputs
            .iter()
            .map(|a| match a {
                syn::FnArg::Typed(t) => &*t.pat,
                syn::FnArg::Receiver(_) => unreachable!("extern functions have no receiver"),
            })
            .collect();
        if args
            .iter()
            .any(|a| a.to_token_stream().to_string() == "driver_fn")
        {
            return Err(format!("{c_name} has a parameter named driver_fn"));
        }
        if b.ret(&decl.sig.output) != b.canonical(&syn::parse_quote!(CUresult)) {
            return Err(format!("{c_name} does not return CUresult"));
        }
        let doc = doc_attrs(&table_method_doc(c_name, n_sym, n, p));
        methods.extend(quote! {
            #(#doc)*
            #[inline]
            pub unsafe fn #id(&self, #inputs) -> CUresult {
                match self.#field.resolve(&self.mode, Index::#id as usize, entry::#en) {
                    Ok(driver_fn) => driver_fn(#(#args),*),
                    Err(code) => code,
                }
            }
        });
        entries.push(quote! {
            TableEntry { name: #c_name, legacy: entry::#en.info(), per_thread: entry::#ep.info() }
        });
        slot_names.push(id);
    }
    // Slot numbers as an enum and the length as a constant of its own: a function added by a
    // newer header changes neither the methods nor the entries of the others (see the `merge`
    // module).
    let count = proc_macro2::Literal::usize_unsuffixed(entries.len());
    Ok(quote! {
        /// How many functions the table holds.
        pub const TABLE_LEN: usize = #count;

        /// What each slot of [`DriverTable`] resolves: the C spelling, and its entry point in
        /// each stream mode.
        pub const TABLE_ENTRIES: [TableEntry; TABLE_LEN] = [#(#entries),*];

        /// The slot of each function, in the order of [`TABLE_ENTRIES`].
        #[repr(usize)]
        #[derive(Clone, Copy)]
        pub(crate) enum Index {
            #(#slot_names,)*
        }

        impl DriverTable {
            #methods
        }
    })
}
