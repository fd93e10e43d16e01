//! Emits `functions.rs`: bindgen's `extern` block of the header's functions, under their real
//! symbols (linked), as [`crate::bindings::split_functions`] took it out of bindgen's output, each
//! function documented ([`crate::function_docs`]).

use crate::function_docs::{function_doc, FunctionFacts};
use crate::item_docs::prepend;

/// The text of `functions.rs`: the `extern` block(s) of bindgen's output, each function with the
/// doc lines of its `facts`.
pub(crate) fn emit<'a>(
    mut extern_blocks: Vec<syn::Item>,
    facts: &dyn Fn(&str) -> FunctionFacts<'a>,
) -> String {
    for block in &mut extern_blocks {
        let syn::Item::ForeignMod(m) = block else {
            continue;
        };
        for item in &mut m.items {
            if let syn::ForeignItem::Fn(f) = item {
                let symbol = f.sig.ident.to_string();
                prepend(&mut f.attrs, &function_doc(&symbol, &facts(&symbol), false));
            }
        }
    }
    prettyplease::unparse(&syn::File {
        shebang: None,
        attrs: vec![],
        items: extern_blocks,
    })
}
