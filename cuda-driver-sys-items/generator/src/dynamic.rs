//! Emits `dynamic.rs`: the functions under their real symbols for the `dynamic-loading` feature,
//! each a trampoline through a slot that its first call resolves.

use std::collections::BTreeMap;

use proc_macro2::TokenStream;
use quote::{format_ident, quote, ToTokens};

use crate::c_spellings::CSpellings;
use crate::function_docs::{function_doc, FunctionFacts};
use crate::header_set::HeaderSet;
use crate::item_docs::doc_attrs;
use crate::parsed::Parsed;

/// The functions' real symbols as they are under `dynamic-loading`: each an `unsafe extern "C"
/// fn` of the declared signature that calls through its slot, which first holds a resolver of the
/// same signature (the first call asks the loader, stores the driver's function and calls it, or
/// returns the loader's code), so that later calls are one load and an indirect call.
///
/// Slots are numbered by an enum and the count is a constant of its own, so that a function added
/// by a newer header changes no other item (see the `merge` module). The four functions taken by
/// name are this header's `cuGetProcAddress` (`cuGetProcAddress_v2` where it has one, else CUDA
/// 11.3's `cuGetProcAddress`, the only one an 11.x driver exports), `cuDriverGetVersion`,
/// `cuGetErrorName` and `cuGetErrorString` (for `cuda.h` only: an interop header's functions are
/// all looked up). Each header's functions form one `SET` for the loader (`loader::FunctionSet`).
/// Each function is documented from its `facts`.
pub(crate) fn generate<'a>(
    b: &Parsed,
    spellings: &CSpellings,
    c_spelling: &BTreeMap<String, (String, String)>,
    set: &HeaderSet,
    facts: &dyn Fn(&str) -> FunctionFacts<'a>,
) -> Result<TokenStream, String> {
    // Only cuda.h's functions bootstrap the loader; every other header's are looked up.
    let by_name_list: Vec<&str> = if set.is_core() {
        let proc_address = ["cuGetProcAddress_v2", "cuGetProcAddress"]
            .into_iter()
            .find(|s| b.functions.contains_key(*s))
            .ok_or("the header declares no cuGetProcAddress")?;
        vec![
            proc_address,
            "cuDriverGetVersion",
            "cuGetErrorName",
            "cuGetErrorString",
        ]
    } else {
        Vec::new()
    };
    let mut functions = Vec::new();
    let mut slots = Vec::new();
    let mut variants = Vec::new();
    let mut trampolines = TokenStream::new();
    let mut resolvers = TokenStream::new();
    for (sym, decl) in b.functions.iter() {
        // The typedef of the symbol itself: the name `sym` is a C spelling too, which in one
        // stream mode may bind another symbol (`cuEventRecord` is `cuEventRecord_ptsz` under
        // per-thread); the mode where it binds `sym` gives `sym`'s own ABI.
        let (Some((n, p)), Some((n_sym, p_sym))) =
            (c_spelling.get(sym), spellings.functions.get(sym))
        else {
            return Err(format!("{sym} has no PFN typedef: it cannot be resolved"));
        };
        let n = match (n_sym == sym, p_sym == sym) {
            (true, _) => n,
            (false, true) => p,
            (false, false) => {
                return Err(format!(
                    "{sym}: its name binds {n_sym} and {p_sym}, never itself"
                ))
            }
        };
        if b.ret(&decl.sig.output) != b.canonical(&syn::parse_quote!(CUresult)) {
            return Err(format!("{sym} does not return CUresult"));
        }
        let inputs = &decl.sig.inputs;
        let mut args = Vec::new();
        let mut types = Vec::new();
        for a in inputs {
            let syn::FnArg::Typed(t) = a else {
                return Err(format!("{sym}: a receiver in an extern function"));
            };
            if t.pat.to_token_stream().to_string() == "driver_fn" {
                return Err(format!("{sym} has a parameter named driver_fn"));
            }
            args.push(&*t.pat);
            types.push(&*t.ty);
        }
        let id = format_ident!("{sym}");
        let entry = format_ident!("{}", &n[4..]);
        let symbol = syn::LitCStr::new(
            &std::ffi::CString::new(sym.clone()).unwrap(),
            proc_macro2::Span::call_site(),
        );
        let by_name = by_name_list.contains(&sym.as_str());
        let attrs = &decl.attrs;
        functions.push(quote! {
            Function { symbol: #symbol, entry: super::entry::#entry.info(), by_name: #by_name }
        });
        slots.push(quote! { AtomicPtr::new(Resolve::#id as *mut c_void) });
        variants.push(id.clone());
        let doc = doc_attrs(&function_doc(sym, &facts(sym), true));
        trampolines.extend(quote! {
            #(#doc)*
            #(#attrs)*
            #[inline]
            pub unsafe extern "C" fn #id(#inputs) -> CUresult {
                let driver_fn: unsafe extern "C" fn(#(#types),*) -> CUresult =
                    unsafe { transmute(SLOTS[Index::#id as usize].load(Ordering::Acquire)) };
                unsafe { driver_fn(#(#args),*) }
            }
        });
        resolvers.extend(quote! {
            unsafe extern "C" fn #id(#inputs) -> CUresult {
                match crate::loader::resolve(&SET, Index::#id as usize) {
                    Ok(driver_fn) => {
                        let driver_fn: unsafe extern "C" fn(#(#types),*) -> CUresult =
                            unsafe { transmute(driver_fn.as_ptr()) };
                        unsafe { driver_fn(#(#args),*) }
                    }
                    Err(code) => code,
                }
            }
        });
    }
    let bootstrap = set.is_core().then(|| {
        let by_name = by_name_list.iter().map(|s| format_ident!("{s}"));
        quote! {
            /// The slots of the header's `cuGetProcAddress` (`cuGetProcAddress_v2`, or CUDA 11's
            /// `cuGetProcAddress` where the header has no `_v2`), `cuDriverGetVersion`,
            /// `cuGetErrorName` and `cuGetErrorString`, filled by name when the library is loaded.
            pub(crate) const BOOTSTRAP: [Index; 4] = [#(Index::#by_name),*];
        }
    });
    let count = proc_macro2::Literal::usize_unsuffixed(functions.len());
    Ok(quote! {
        use ::core::ffi::c_void;
        use ::core::mem::transmute;
        use ::core::sync::atomic::{AtomicBool, AtomicPtr, Ordering};
        use crate::loader::{Function, FunctionSet};

        /// How many functions there are.
        pub(crate) const FUNCTIONS_LEN: usize = #count;

        /// Every function: its real symbol and the entry point of its ABI.
        pub(crate) const FUNCTIONS: [Function; FUNCTIONS_LEN] = [#(#functions),*];

        /// What each function calls: its resolver until the first call resolves it, then the
        /// driver's function.
        pub(crate) static SLOTS: [AtomicPtr<c_void>; FUNCTIONS_LEN] = [#(#slots),*];

        /// The slot of each function, in the order of [`FUNCTIONS`].
        #[repr(usize)]
        #[derive(Clone, Copy)]
        pub(crate) enum Index {
            #(#variants),*
        }

        /// Which functions the driver was found to lack (looked up once, never called).
        static MISSING: [AtomicBool; FUNCTIONS_LEN] = [const { AtomicBool::new(false) }; FUNCTIONS_LEN];

        /// This header's functions, for the loader.
        pub(crate) static SET: FunctionSet = FunctionSet {
            functions: &FUNCTIONS,
            slots: &SLOTS,
            missing: &MISSING,
        };

        #bootstrap

        #trampolines

        /// The first call of each function: resolve, store, call (or return the loader's code).
        struct Resolve;

        impl Resolve {
            #resolvers
        }
    })
}
