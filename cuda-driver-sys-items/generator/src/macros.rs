//! The headers' object-like macros: their names, their expansions through the C preprocessor in
//! each stream mode, and the unsigned constants bindgen mistranslates.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::process::Command;
use std::sync::LazyLock;

use quote::format_ident;

use crate::header_set::HeaderSet;
use crate::parsed::Parsed;
use crate::Options;

pub(crate) fn object_like_macros(header: &str) -> BTreeSet<String> {
    let re = regex::Regex::new(r"(?m)^\s*#\s*define\s+([A-Za-z_]\w*)(\s|$)").unwrap();
    re.captures_iter(header).map(|c| c[1].to_string()).collect()
}

/// Expands each macro through the C preprocessor, with the header included as a C program
/// includes it. A macro not defined in this mode expands to its own name.
pub(crate) fn expand_macros(
    opts: &Options,
    set: &HeaderSet,
    names: &BTreeSet<String>,
    defines: &[&str],
) -> Result<BTreeMap<String, String>, String> {
    let dir = opts.out_dir.join(".preprocess");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let probe = dir.join("probe.c");
    let mut src = set.wrapper();
    for n in names {
        writeln!(src, "__cuda_driver_sys_macro__ \"{n}\" {n}").unwrap();
    }
    std::fs::write(&probe, src).map_err(|e| format!("{}: {e}", probe.display()))?;
    let out = Command::new(&opts.c_compiler)
        .args(["-E", "-P"])
        .args(opts.clang_args(set))
        .args(defines)
        .arg(&probe)
        .output()
        .map_err(|e| {
            format!(
                "cannot run the C preprocessor {}: {e}",
                opts.c_compiler.display()
            )
        })?;
    std::fs::remove_dir_all(&dir).ok();
    if !out.status.success() {
        return Err(format!(
            "the C preprocessor {} failed: {}",
            opts.c_compiler.display(),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let re = regex::Regex::new(r#"^__cuda_driver_sys_macro__ "(\w+)" ?(.*)$"#).unwrap();
    let mut map = BTreeMap::new();
    for line in text.lines() {
        if let Some(c) = re.captures(line) {
            map.insert(c[1].to_string(), c[2].trim().to_string());
        }
    }
    if map.len() != names.len() {
        return Err(format!(
            "the preprocessor expanded {} of {} macros",
            map.len(),
            names.len()
        ));
    }
    Ok(map)
}

/// Macros that are no constants of the API: include guards, calling conventions, attribute and
/// versioning helpers, feature-test markers. Anything else the generator cannot translate is an
/// error, so a new kind of macro in a new header is never dropped silently.
pub(crate) fn is_non_constant_macro(name: &str, expansion: &str) -> bool {
    name.starts_with("__")
        || expansion.is_empty()
        || matches!(
            name,
            "CUDAAPI" | "CUDA_CB" | "CUDATYPEDEFS_H" | "CU_UUID_HAS_BEEN_DEFINED"
        )
        || expansion.starts_with("__attribute__")
}

/// Macro constants that complement an unsigned literal (13.5: `(~0u)`): bindgen's evaluator
/// loses the unsignedness and writes `i32 = -1`; C's value is the unsigned one (`0xffffffff`).
pub(crate) fn unsigned_complements(
    b: &Parsed,
    expansions: &BTreeMap<String, String>,
) -> BTreeMap<String, syn::Item> {
    static RE: LazyLock<regex::Regex> = LazyLock::new(|| {
        regex::Regex::new(r"^\(*~(0[xX][0-9a-fA-F]+|\d+)([uU])([lL]{0,2})\)*$").unwrap()
    });
    let mut out = BTreeMap::new();
    for name in b.consts.keys() {
        let Some(e) = expansions.get(name) else {
            continue;
        };
        let e: String = e.chars().filter(|c| !c.is_whitespace()).collect();
        let Some(c) = RE.captures(&e) else { continue };
        let literal = &c[1];
        let n = match literal
            .strip_prefix("0x")
            .or_else(|| literal.strip_prefix("0X"))
        {
            Some(hex) => u64::from_str_radix(hex, 16),
            None => literal.parse(),
        };
        let Ok(n) = n else { continue };
        let id = format_ident!("{name}");
        // `u`: unsigned int; `ul`, `ull`: 64 bits on the platforms CUDA supports (LP64).
        let item: syn::Item = if c[3].is_empty() {
            let v = proc_macro2::Literal::u32_unsuffixed(!(n as u32));
            syn::parse_quote!(pub const #id: u32 = #v;)
        } else {
            let v = proc_macro2::Literal::u64_unsuffixed(!n);
            syn::parse_quote!(pub const #id: u64 = #v;)
        };
        out.insert(name.clone(), item);
    }
    out
}
