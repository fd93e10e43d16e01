//! The tables of the test stub nvcuda.dll (nvcuda_stub.c), written into the equipment folder:
//! - nvcuda.def: its exports, every function of the bindings (*functions.rs, every header
//!   version) and, under the base name, the first ABI of each function the bindings know only as
//!   _v2 or later (cuMemAlloc beside cuMemAlloc_v2, as the driver has it), for the linker and for
//!   x86_64-w64-mingw32-dlltool (the import library cuda.lib);
//! - nvcuda_table.h: STUB_DRIVER_VERSION, the newest header version (every function is there:
//!   a build of any header runs its code as on a driver that new without a GPU);
//!   STUB_FUNCTION for each export nvcuda_stub.c does not define itself; STUB_ENTRY for each
//!   (base name, version, per-thread, symbol) of the bindings' dynamic-loading tables
//!   (*dynamic.rs with *entry.rs) at most that version, what its cuGetProcAddress resolves; and
//!   STUB_ERROR for each code the real library names, with its cuGetErrorName and
//!   cuGetErrorString.

use super::environment::Windows;
use crate::base::{files, prototypes, Result};
use std::collections::{BTreeMap, BTreeSet};
use std::ffi::{c_char, c_int, CStr};
use std::path::Path;

/// An entry point of the dynamic-loading tables: base name, version, per-thread, symbol.
type Entry = (String, u32, bool, String);

/// Writes nvcuda.def and nvcuda_table.h into the equipment folder of `windows`, the stub
/// reporting its driver version and the error strings of the real library `libcuda`, from the C
/// source `stub_c`; the line of counts.
pub fn write(libcuda: &Path, stub_c: &Path, windows: &Windows) -> Result<String> {
    let (generated, version) = (prototypes::generated(), windows.driver);
    let exports = prototypes::functions()?;
    let defined: BTreeSet<String> = (files::read(stub_c)?.lines())
        .filter_map(|line| prototypes::function_at(line.strip_prefix("CUresult ")?))
        .map(String::from)
        .collect();
    let not_bound: Vec<&String> = defined.difference(&exports).collect();
    if exports.is_empty() || !not_bound.is_empty() {
        let (count, dir) = (exports.len(), generated.display());
        let e = format!("{count} functions in {dir}; defined by the stub but not in the bindings: {not_bound:?}");
        return Err(e.into());
    }
    let errors = driver_errors(libcuda)?;
    let (entries, first_abis) = entry_points(&generated, &exports)?;
    let exports: BTreeSet<String> = exports.union(&first_abis).cloned().collect();

    let mut def = String::from("LIBRARY nvcuda.dll\nEXPORTS\n");
    for e in &exports {
        def += &format!("    {e}\n");
    }
    files::write(&windows.equipment.join("nvcuda.def"), def)?;
    let mut header = format!(
        "/* Written by `cargo xtask platforms` (xtask/src/platforms/windows/nvcuda_table.rs) from {} and {}. */\n",
        generated.display(),
        libcuda.display()
    );
    header += &format!("STUB_DRIVER_VERSION({version})\n");
    for e in exports.iter().filter(|e| !defined.contains(*e)) {
        header += &format!("STUB_FUNCTION({e})\n");
    }
    let supported: Vec<&Entry> = entries.iter().filter(|e| e.1 <= version).collect();
    for (base, v, per_thread, symbol) in &supported {
        let (base, per_thread, symbol) = (c_string(base), u8::from(*per_thread), c_string(symbol));
        header += &format!("STUB_ENTRY({base}, {v}, {per_thread}, {symbol})\n");
    }
    for (code, name, message) in &errors {
        let (name, message) = (c_string(name), c_string(message));
        header += &format!("STUB_ERROR({code}, {name}, {message})\n");
    }
    files::write(&windows.equipment.join("nvcuda_table.h"), header)?;
    Ok(format!(
        "stub nvcuda.dll tables: {} exports ({} first ABIs), driver version {version}, {} of {} entry points, {} error codes",
        exports.len(),
        first_abis.len(),
        supported.len(),
        entries.len(),
        errors.len()
    ))
}

/// The name and message of each result code below 1000 that the real driver library at `path`
/// names (Debian's 535 on Linux; no GPU needed for these).
fn driver_errors(path: &Path) -> Result<Vec<(i32, String, String)>> {
    type StringFn = unsafe extern "C" fn(c_int, *mut *const c_char) -> c_int;
    // SAFETY: the driver library, loaded as the tests load it.
    let library = unsafe { libloading::Library::new(path) }
        .map_err(|e| format!("cannot load {}: {e}", path.display()))?;
    let symbol = |name: &str| {
        // SAFETY: the driver API's prototypes of these two functions.
        unsafe { library.get::<StringFn>(name.as_bytes()) }
            .map_err(|_| format!("{} exports no {name}", path.display()))
    };
    let (name, message) = (symbol("cuGetErrorName")?, symbol("cuGetErrorString")?);
    let string = |f: &StringFn, code| {
        let mut text: *const c_char = std::ptr::null();
        // SAFETY: on success the library gives a static NUL-terminated string.
        let status = unsafe { f(code, &mut text) };
        (status == 0 && !text.is_null()).then(|| {
            unsafe { CStr::from_ptr(text) }
                .to_string_lossy()
                .into_owned()
        })
    };
    let mut errors = Vec::new();
    for code in 0..1000 {
        if let Some(name) = string(&name, code) {
            let message = string(&message, code).ok_or_else(|| {
                format!(
                    "{} names code {code} but has no message for it",
                    path.display()
                )
            })?;
            errors.push((code, name, message));
        }
    }
    Ok(errors)
}

/// Each function's symbol with its entry point, from the dynamic-loading tables, and the first
/// ABIs the bindings declare no function for.
fn entry_points(
    generated: &Path,
    exports: &BTreeSet<String>,
) -> Result<(BTreeSet<Entry>, BTreeSet<String>)> {
    let (mut entries, mut first_abis) = (BTreeSet::new(), BTreeSet::new());
    for dynamic in files::named(generated, "", "dynamic.rs")? {
        let entry = generated.join(files::name(&dynamic).replace("dynamic.rs", "entry.rs"));
        let consts = entry_consts(&files::read(&entry)?);
        let bound = bound_symbols(&files::read(&dynamic)?);
        for (symbol, constant) in &bound {
            let (base, version, per_thread) = consts
                .get(constant)
                .ok_or_else(|| format!("{}: no entry point {constant}", dynamic.display()))?;
            entries.insert((base.clone(), *version, *per_thread, symbol.clone()));
        }
        // The entry points of an ABI the bindings declare no function for, superseded by a _v2
        // (cuMemAlloc at 2000): the driver exports them under the base name. (The per-thread
        // ones among them are left out: their symbols' suffixes are not in the bindings.)
        let used: BTreeSet<&String> = bound.iter().map(|(_, c)| c).collect();
        for (constant, (base, version, per_thread)) in &consts {
            if !used.contains(constant) && !per_thread && !exports.contains(base) {
                entries.insert((base.clone(), *version, false, base.clone()));
                first_abis.insert(base.clone());
            }
        }
    }
    let symbols: BTreeSet<&String> = entries.iter().map(|e| &e.3).collect();
    let unknown: Vec<&&String> = symbols
        .iter()
        .filter(|s| !exports.contains(**s) && !first_abis.contains(**s))
        .collect();
    if !unknown.is_empty() || symbols.len() != exports.len() + first_abis.len() {
        let (symbols, functions) = (symbols.len(), exports.len());
        let e = format!("the dynamic-loading tables name {symbols} symbols, the bindings {functions} functions; not functions: {unknown:?}");
        return Err(e.into());
    }
    Ok((entries, first_abis))
}

/// The leading identifier characters of `text`.
fn word(text: &str) -> &str {
    let end = text
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(text.len());
    &text[..end]
}

/// `pub const NAME: EntryPoint<...> = unsafe { EntryPoint::new[_per_thread](c"BASE", VERSION) }`
/// of an entry.rs: NAME -> (BASE, VERSION, per-thread).
fn entry_consts(text: &str) -> BTreeMap<String, (String, u32, bool)> {
    let compact: String = text.split_whitespace().collect();
    let entry = |part: &str| {
        let name = word(part);
        let rest = part[name.len()..].strip_prefix(":EntryPoint<")?;
        let call = rest.split_once(">=unsafe{EntryPoint::")?.1;
        let (per_thread, args) = match call.strip_prefix("new_per_thread(c\"") {
            Some(args) => (true, args),
            None => (false, call.strip_prefix("new(c\"")?),
        };
        let (base, version) = args.split_once("\",")?;
        let version = version.split(')').next()?.parse().ok()?;
        Some((name.to_string(), (base.to_string(), version, per_thread)))
    };
    compact
        .split("pubconst")
        .skip(1)
        .filter_map(entry)
        .collect()
}

/// `symbol: c"SYMBOL", entry: super::entry::CONST.info()` of a dynamic.rs: (SYMBOL, CONST).
fn bound_symbols(text: &str) -> Vec<(String, String)> {
    let compact: String = text.split_whitespace().collect();
    compact
        .split("symbol:c\"")
        .skip(1)
        .filter_map(|part| {
            let symbol = word(part);
            let constant = part[symbol.len()..].strip_prefix("\",entry:super::entry::")?;
            let name = word(constant);
            constant[name.len()..]
                .starts_with(".info()")
                .then(|| (symbol.to_string(), name.to_string()))
        })
        .collect()
}

/// `s` as a C string literal.
fn c_string(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_driver_library_is_named() {
        let e = driver_errors(Path::new("/nonexistent/libcuda.so.1")).unwrap_err();
        assert!(e
            .to_string()
            .starts_with("cannot load /nonexistent/libcuda.so.1: "));
    }

    #[test]
    fn entry_points_and_bound_symbols_are_read() {
        let entry = "pub const cuMemAlloc_v3020: EntryPoint<PFN_cuMemAlloc_v3020> = unsafe {\n    EntryPoint::new(c\"cuMemAlloc\", 3020)\n};\n\
                     pub const cuX_ptsz: EntryPoint<\n    PFN_cuX,\n> = unsafe { EntryPoint::new_per_thread(c\"cuX\", 7000) };\n\
                     pub const NOT: u32 = 1;\n";
        let consts = entry_consts(entry);
        assert_eq!(
            consts["cuMemAlloc_v3020"],
            ("cuMemAlloc".into(), 3020, false)
        );
        assert_eq!(consts["cuX_ptsz"], ("cuX".into(), 7000, true));
        assert_eq!(consts.len(), 2);
        let dynamic = "Function {\n  symbol: c\"cuMemAlloc_v2\",\n  entry: super::entry::cuMemAlloc_v3020.info(),\n}";
        assert_eq!(
            bound_symbols(dynamic),
            [("cuMemAlloc_v2".into(), "cuMemAlloc_v3020".into())]
        );
        assert!(bound_symbols("symbol: c\"cuA\", entry: other::cuA.info()").is_empty());
    }
}
