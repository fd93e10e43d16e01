//! The bindgen pass: bindgen run on a header set (with the stream mode's and the internal view's
//! definitions), and a module's output without the items of `cuda.h` it repeats.

use std::collections::{BTreeMap, BTreeSet};

use quote::ToTokens;

use crate::header_set::HeaderSet;
use crate::Options;

/// The regex bindgen matches a header's path with.
fn file_regex(header: &str) -> String {
    format!(".*[/\\\\]{}", regex::escape(header))
}

pub(crate) fn run_bindgen(
    opts: &Options,
    set: &HeaderSet,
    defines: &[&str],
    blocked: &BTreeSet<String>,
) -> Result<String, String> {
    let mut builder = bindgen::Builder::default()
        .header_contents("cuda_driver_sys_wrapper.h", &set.wrapper())
        .clang_args(opts.clang_args(set))
        .clang_args(defines.iter().copied());
    for h in set.headers {
        builder = builder.allowlist_file(file_regex(h));
    }
    builder = builder
        .use_core()
        .ctypes_prefix("::core::ffi")
        .default_enum_style(bindgen::EnumVariation::NewType {
            is_bitfield: false,
            is_global: false,
        })
        .prepend_enum_name(false)
        .derive_default(true)
        .derive_debug(true)
        .derive_copy(true)
        // Enum newtypes always get PartialEq, Eq and Hash (matching, map keys); structs get only
        // Debug, Copy, Clone and Default, as C's (comparing their callbacks means little, and
        // the derives would cost every dependent's build).
        .derive_eq(false)
        .derive_hash(false)
        .derive_partialeq(false)
        .impl_debug(false)
        .layout_tests(false)
        .generate_comments(false)
        .merge_extern_blocks(true)
        .must_use_type("cudaError_enum")
        .must_use_type("CUresult");
    for f in blocked {
        builder = builder.blocklist_function(format!("^{f}$"));
    }
    let bindings = builder.generate().map_err(|e| {
        format!(
            "bindgen failed on {} in {}: {e}",
            set.headers[0],
            opts.include_dir.display()
        )
    })?;
    Ok(bindings.to_string())
}

/// The name an item of bindgen's output defines (for an `impl`, its type's).
fn item_name(item: &syn::Item) -> Option<String> {
    Some(match item {
        syn::Item::Struct(s) => s.ident.to_string(),
        syn::Item::Union(u) => u.ident.to_string(),
        syn::Item::Type(t) => t.ident.to_string(),
        syn::Item::Const(c) => c.ident.to_string(),
        syn::Item::Enum(e) => e.ident.to_string(),
        syn::Item::Fn(f) => f.sig.ident.to_string(),
        syn::Item::Impl(i) => format!("impl {}", i.self_ty.to_token_stream()),
        syn::Item::Use(u) => format!("use {}", u.tree.to_token_stream()),
        _ => return None,
    })
}

/// A module's bindgen output without `cuda.h`'s items, which bindgen emits again where the
/// module's items use them (`CUresult`, `CUarray`): the module uses the crate's. bindgen is not
/// told to leave them out (a blocklisted type is one it cannot derive `Copy` for, which would
/// change how the module's unions are written); each item dropped must be exactly `cuda.h`'s.
pub(crate) fn strip_core(src: &str, core_src: &str) -> Result<String, String> {
    let parse =
        |s: &str| syn::parse_file(s).map_err(|e| format!("bindgen output does not parse: {e}"));
    let core = parse(core_src)?;
    let core_items: BTreeMap<String, Vec<String>> =
        core.items.iter().fold(BTreeMap::new(), |mut m, i| {
            if let Some(n) = item_name(i) {
                m.entry(n)
                    .or_default()
                    .push(i.to_token_stream().to_string());
            }
            m
        });
    let mut file = parse(src)?;
    let mut err = None;
    file.items.retain(|i| {
        let Some(name) = item_name(i) else {
            return true;
        };
        match core_items.get(&name) {
            None => true,
            Some(texts) if texts.contains(&i.to_token_stream().to_string()) => false,
            Some(_) => {
                err = Some(format!(
                    "the module's `{name}` differs from cuda.h's item of that name"
                ));
                true
            }
        }
    });
    match err {
        Some(e) => Err(e),
        None => Ok(prettyplease::unparse(&file)),
    }
}
