//! The rustdoc of the functions and of what reaches them: the function under its real symbol
//! (linked and `dynamic-loading`), its C spellings, its typed entry points and the driver-entry
//! table's method, from the facts of [`header_docs`](crate::header_docs) and of the emitters.

use std::collections::BTreeMap;

use crate::c_spellings::CSpellings;
use crate::header_docs::{typedef_version, version_name, Declaration, Group};
use crate::item_docs::{code, header_fact, ItemDoc, SetDocs};

/// What a function of the bindings is, for its doc lines.
pub struct FunctionFacts<'a> {
    /// The header (`cuda.h`).
    pub header: &'a str,
    /// Its declaration as the header writes it (under the C spelling `cuMemAlloc` for
    /// `cuMemAlloc_v2`, which the header's macro names).
    pub declaration: Option<&'a Declaration>,
    /// The C spellings that bind this symbol: (spelling, in the default stream mode, under
    /// `per-thread-default-stream`).
    pub spellings: Vec<(&'a str, bool, bool)>,
    /// Its `PFN_*` typedef (`PFN_cuMemAlloc_v3020`).
    pub typedef: Option<&'a str>,
    /// The Doxygen group of its declaration.
    pub group: Option<&'a Group>,
}

/// What the docs of the function `sym` say: its declaration (under `sym`, or under the C spelling
/// whose macro names it), the C spellings that bind it, the typedef of its own ABI, its group.
/// `c_spelling` is each C spelling's versioned typedef per stream mode ([`crate::entry`]).
pub(crate) fn function_facts<'a>(
    sym: &str,
    spellings: &'a CSpellings,
    c_spelling: &'a BTreeMap<String, (String, String)>,
    docs: &'a SetDocs,
) -> FunctionFacts<'a> {
    let binding: Vec<(&str, bool, bool)> = spellings
        .functions
        .iter()
        .filter(|(_, (n, p))| n == sym || p == sym)
        .map(|(c, (n, p))| (c.as_str(), n == sym, p == sym))
        .collect();
    let declared = std::iter::once(sym)
        .chain(binding.iter().map(|s| s.0))
        .find(|c| docs.header.function(c).is_some());
    let typedef = match (c_spelling.get(sym), spellings.functions.get(sym)) {
        (Some((n, p)), Some((n_sym, _))) => Some(if n_sym == sym { n } else { p }.as_str()),
        _ => None,
    };
    FunctionFacts {
        header: &docs.header.file,
        declaration: declared.and_then(|c| docs.header.function(c)),
        spellings: binding,
        typedef,
        group: declared.and_then(|c| docs.header.function_group(c)),
    }
}

/// The doc lines of a function under its real symbol (`cuMemAlloc_v2`): its declaration, the C
/// spellings that bind it, its typedef and that typedef's ABI, its entry point, its reference
/// page; with `dynamic`, what a `dynamic-loading` function calls. The function is an item of a
/// module whose parent holds the C spellings and `entry` (the crate root, or `gl`, ...).
pub fn function_doc(symbol: &str, f: &FunctionFacts, dynamic: bool) -> Vec<String> {
    let declaration = match f.declaration {
        Some(d) => code(&d.text),
        None => format!("`{symbol}` of `{}`.", f.header),
    };
    let spelled: Vec<String> = f
        .spellings
        .iter()
        .filter(|(name, _, _)| *name != symbol)
        .map(|(name, normal, per_thread)| {
            let mode = match (normal, per_thread) {
                (true, true) => "",
                (true, false) => " (default stream mode)",
                (false, _) => " (under `per-thread-default-stream`)",
            };
            format!("[`{name}`](super::{name}){mode}")
        })
        .collect();
    ItemDoc {
        declaration,
        header: Some(header_fact(f.header)),
        c_spelling: (!spelled.is_empty()).then(|| spelled.join(", ")),
        typedef: f.typedef.map(|t| format!("[`{t}`]{}", abi(t))),
        entry_point: f.typedef.map(entry_link),
        calls: dynamic.then(|| {
            let via = if f.typedef.is_some() {
                " through the entry point"
            } else {
                ""
            };
            format!(
                "the driver's `{symbol}`{via}, resolved on its first call (feature \
                 `dynamic-loading`; see [`loader`](crate::loader))"
            )
        }),
        group: f.group,
        ..ItemDoc::default()
    }
    .lines()
}

/// `, the ABI of CUDA 3.2` for `PFN_cuMemAlloc_v3020`.
fn abi(pfn: &str) -> String {
    typedef_version(pfn)
        .map(|v| format!(", the ABI of CUDA {}", version_name(v)))
        .unwrap_or_default()
}

/// A link to the entry point of a `PFN_*` typedef, from a child module of the header's module.
fn entry_link(pfn: &str) -> String {
    format!("[`entry::{0}`](super::entry::{0})", &pfn[4..])
}

/// The doc lines of a C spelling that binds another symbol (`pub use ... as cuMemAlloc;`):
/// what it binds in each stream mode. rustdoc shows them above the function's own.
pub fn c_spelling_doc(c_name: &str, normal: &str, per_thread: &str) -> Vec<String> {
    let line = if normal == per_thread {
        format!("C spelling `{c_name}`: binds [`{normal}`] in both stream modes.")
    } else {
        let show = |s: &str| {
            if s == c_name {
                format!("`{s}` itself")
            } else {
                format!("`{s}`")
            }
        };
        format!(
            "C spelling `{c_name}`: binds {} by default, {} under `per-thread-default-stream`.",
            show(normal),
            show(per_thread)
        )
    };
    vec![line, String::new()]
}

/// The doc lines of a typed entry point of a `PFN_*` typedef (`entry::cuMemAlloc_v3020`): the
/// driver function it reaches.
pub fn entry_doc(pfn: &str, symbol: &str, version: u32, per_thread: bool) -> Vec<String> {
    let flag = if per_thread {
        " with `CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM`"
    } else {
        ""
    };
    vec![format!(
        "`cuGetProcAddress(\"{symbol}\", {version})`{flag}: the driver's `{symbol}` with the ABI \
         of CUDA {}, typed [`{pfn}`].",
        version_name(version)
    )]
}

/// The doc lines of the entry point of a C spelling (`entry::cuMemAlloc`).
pub fn entry_spelling_doc(c_name: &str, normal: &str, per_thread: &str) -> Vec<String> {
    let target = |t: &str| format!("[`{}`]", &t[4..]);
    let line = if normal == per_thread {
        format!(
            "The entry point of the C spelling `{c_name}`: {}, the ABI of the function it binds.",
            target(normal)
        )
    } else {
        format!(
            "The entry point of the C spelling `{c_name}`: {} by default, {} under \
             `per-thread-default-stream`, the ABI of the function it binds.",
            target(normal),
            target(per_thread)
        )
    };
    vec![line]
}

/// The doc lines of a method of the driver-entry table (`DriverTable::cuMemAlloc`): the function
/// it reaches and how (links through `entry`, which each table module has in scope).
pub fn table_method_doc(
    c_name: &str,
    symbol: &str,
    pfn: &str,
    per_thread_pfn: &str,
) -> Vec<String> {
    let (base, version) = (
        pfn[4..].rsplit_once("_v").map_or(c_name, |(b, _)| b),
        typedef_version(pfn).unwrap_or_default(),
    );
    let per_thread = if per_thread_pfn == pfn {
        String::new()
    } else {
        format!(", per thread [`entry::{}`]", &per_thread_pfn[4..])
    };
    vec![
        format!(
            "`{c_name}` through `cuGetProcAddress(\"{base}\", {version})`: the driver's \
             `{symbol}`; `CUDA_ERROR_NOT_FOUND` where the driver has no such function, the code \
             `cuGetProcAddress` failed with where it failed (see the [module](self))."
        ),
        String::new(),
        format!(
            "- Entry point: [`entry::{}`]{per_thread}{}",
            &pfn[4..],
            abi(pfn)
        ),
        String::new(),
        "# Safety".into(),
        "As for the C function.".into(),
    ]
}
