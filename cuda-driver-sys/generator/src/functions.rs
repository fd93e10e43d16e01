//! Emits `functions.rs`: bindgen's `extern` block of the header's functions, under their real
//! symbols (linked), as [`crate::bindings::split_functions`] took it out of bindgen's output.

/// The text of `functions.rs`: the `extern` block(s) of bindgen's output.
pub(crate) fn emit(extern_blocks: Vec<syn::Item>) -> String {
    crate::unparse(extern_blocks)
}
