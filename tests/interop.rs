//! The other driver-API headers (`cudaProfiler.h`, `cudaGL.h`, `cudaEGL.h`, `cudaVDPAU.h`, the
//! features `profiler`, `gl`, `egl`, `vdpau` of `cuda-driver-sys`, this package's `interop` feature)
//! against the real driver library, as `driver.rs` does for `cuda.h`: every C spelling's linked
//! address is the pointer `cuGetProcAddress` returns for its typedef's version, and every
//! versioned `PFN_*` typedef resolves or the driver says why. Counts are printed per header.
//! Layout, constants and prototypes of these modules are checked with `cuda.h`'s (`layout.rs`,
//! `constants.rs`, `prototypes.rs`).

use std::ffi::{c_void, CStr};

use cuda_driver_sys::*;

mod common;
use common::{dlsym, driver_version, header_version};

/// One C spelling, from a generated `<module>_linked.rs`.
struct Linked {
    name: &'static CStr,
    symbol: &'static CStr,
    /// The address the linker gave the Rust name; `None` where the symbol is looked up by `dlsym`.
    address: Option<*const c_void>,
    entry: Option<EntryPointInfo>,
}

// Every linked address, but of `cuEventCreateFromEGLSync`, which x86-64 driver libraries need
// not have (Debian's 535 has it neither as an export nor through `cuGetProcAddress`): taking its
// address would not link there, so it is looked up with `dlsym` on every driver. Under
// `dynamic-loading` the Rust names are the loader's trampolines (checked by
// `the_loader_resolves_each_symbol_to_the_librarys`), and under `table-only` there are none:
// every symbol is looked up with `dlsym`.
macro_rules! address {
    (cuEventCreateFromEGLSync) => {
        None
    };
    ($f:ident) => {{
        #[cfg(any(feature = "dynamic-loading", feature = "table-only"))]
        let address = None;
        #[cfg(not(any(feature = "dynamic-loading", feature = "table-only")))]
        let address = Some(common::linked_target($f as *const c_void));
        address
    }};
}

/// Why `symbol` is absent, where the driver said "symbol not found" and `common::MAY_BE_ABSENT` lists it.
fn may_be_absent(e: &ProcAddressError, symbol: &CStr) -> Option<&'static str> {
    let absent = matches!(e.kind, ProcAddressErrorKind::SymbolNotFound);
    absent.then(|| common::may_be_absent(symbol)).flatten()
}

macro_rules! linked_functions {
    ($($(#[$m:meta])* ($name:literal, $symbol:literal, $f:ident, $entry:expr)),* $(,)?) => {
        vec![$($(#[$m])* Linked { name: $name, symbol: $symbol, address: address!($f), entry: $entry }),*]
    };
}
/// One module's row of [`modules`]: its header, the generated `<module>_linked.rs` list of its C
/// spellings, its entry points and its table slots.
macro_rules! module {
    ($header:literal, $module:ident) => {{
        #[allow(unused_imports)]
        use cuda_driver_sys::$module::entry;
        (
            $header,
            include!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../cuda-driver-sys-items/src/generated/",
                stringify!($module),
                "_linked.rs"
            )),
            &$module::entry::ALL[..],
            &$module::table::TABLE_ENTRIES[..],
        )
    }};
}

/// One module: its header, its C spellings, its versioned entry points, its table slots.
type Module = (
    &'static str,
    Vec<Linked>,
    &'static [EntryPointInfo],
    &'static [TableEntry],
);

fn modules() -> Vec<Module> {
    vec![
        module!("cudaProfiler.h", profiler),
        module!("cudaGL.h", gl),
        module!("cudaEGL.h", egl),
        module!("cudaVDPAU.h", vdpau),
    ]
}

/// Whether a function the driver lacks may be: newer than the driver, or in `common::MAY_BE_ABSENT`.
fn lack_is_expected(e: &ProcAddressError, symbol: &CStr, driver: i32) -> bool {
    e.entry.version > driver || may_be_absent(e, symbol).is_some()
}

#[test]
fn every_c_spelling_is_the_symbol_cu_get_proc_address_returns() {
    let driver = driver_version();
    let header = header_version();
    let mut failures = Vec::new();
    let mut total = 0;
    for (header_name, rows, _, _) in modules() {
        let (mut matched, mut newer, mut by_dlsym, mut no_typedef) = (0, 0, 0, Vec::new());
        let mut absent = Vec::new();
        let mut missing = Vec::new();
        for row in &rows {
            let name = row.name.to_str().unwrap();
            let linked = match row.address {
                Some(a) => a,
                None => {
                    by_dlsym += 1;
                    dlsym(row.symbol)
                }
            };
            let Some(entry) = row.entry else {
                no_typedef.push(name);
                continue;
            };
            if entry.version > driver {
                newer += 1;
                continue;
            }
            let flags = if entry.per_thread {
                CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM
            } else {
                CU_GET_PROC_ADDRESS_LEGACY_STREAM
            };
            match entry.lookup(flags) {
                Ok(p) if linked.is_null() => missing.push(format!(
                    "{name} ({:?}): not exported by the library, cuGetProcAddress gives {p:?}",
                    row.symbol
                )),
                Ok(p) if std::ptr::eq(p.as_ptr(), linked) => matched += 1,
                Ok(p) => failures.push(format!(
                    "{header_name} {name}: linked {:?} at {linked:?}, cuGetProcAddress({:?}, {}) \
                     gives {p:?}",
                    row.symbol, entry.symbol, entry.version
                )),
                Err(e) => match may_be_absent(&e, row.symbol) {
                    Some(why) if linked.is_null() => absent.push(format!("{name}: {why}")),
                    _ => failures.push(format!("{header_name} {name}: {e}")),
                },
            }
        }
        println!(
            "{header_name}: {} C spellings; {matched} equal to cuGetProcAddress's pointer; {newer} \
             newer than the driver ({driver}); {} without a typedef; {by_dlsym} looked up by dlsym; \
             {} not exported by the library; {} absent from the driver",
            rows.len(),
            no_typedef.len(),
            missing.len(),
            absent.len()
        );
        for m in missing.iter().chain(&absent) {
            println!("  {m}");
        }
        if !no_typedef.is_empty() {
            failures.push(format!(
                "{header_name}: C spellings without a typedef: {}",
                no_typedef.join(" ")
            ));
        }
        // Every C spelling is compared, or is newer than the driver, or is absent from it
        // entirely (MAY_BE_ABSENT). A symbol that cuGetProcAddress has but the library does not
        // export is a failure: a C program linking it would not start.
        if header <= driver {
            assert_eq!(newer, 0, "{header_name}");
        }
        failures.extend(missing.iter().map(|m| format!("{header_name}: {m}")));
        assert!(matched > 0, "{header_name}: nothing compared");
        total += matched;
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    println!("interop headers: {total} C spellings equal to cuGetProcAddress's pointer");
}

#[test]
fn every_versioned_typedef_resolves() {
    let driver = driver_version();
    let mut failures = Vec::new();
    for (header_name, _, all, _) in modules() {
        let (mut resolved, mut newer, mut absent, mut legacy_only) = (0, 0, Vec::new(), Vec::new());
        for info in all {
            if info.version > driver {
                newer += 1;
                continue;
            }
            match info.lookup(info.default_flags()) {
                Ok(_) => resolved += 1,
                // Under per-thread-default-stream the default flags ask for the per-thread
                // variant, which a legacy ABI (cuGLMapBufferObject at 3020) does not have: as C's
                // cuGetProcAddress does. The legacy-stream lookup must then find it.
                Err(ProcAddressError {
                    kind: ProcAddressErrorKind::VersionNotSufficient,
                    ..
                }) if cfg!(feature = "per-thread-default-stream") => {
                    match info.lookup(CU_GET_PROC_ADDRESS_LEGACY_STREAM) {
                        Ok(_) => legacy_only.push(format!("{:?}@{}", info.symbol, info.version)),
                        Err(e) => failures.push(format!("{header_name}: {e}")),
                    }
                }
                Err(e) => match may_be_absent(&e, info.symbol) {
                    Some(why) => absent.push(format!("{:?}: {why}", e.entry.symbol)),
                    None => failures.push(format!("{header_name}: {e}")),
                },
            }
        }
        println!(
            "{header_name}: {} PFN_* typedefs, {resolved} resolved by driver {driver}, {newer} newer \
             than it, {} absent from it, {} only with the legacy stream {:?}",
            all.len(),
            absent.len(),
            legacy_only.len(),
            legacy_only
        );
        for a in &absent {
            println!("  {a}");
        }
        assert!(resolved > 0, "{header_name}: nothing resolved");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The entry points of the C spellings call what the C spellings call (a typed lookup of the
/// per-thread variant under `per-thread-default-stream`).
#[test]
fn c_spelling_entry_points_follow_the_stream_mode() {
    let e = gl::entry::cuGLMapBufferObject.info();
    assert_eq!(e.symbol, c"cuGLMapBufferObject");
    assert_eq!(e.per_thread, cfg!(feature = "per-thread-default-stream"));
    let e = gl::entry::cuGLCtxCreate.info();
    assert_eq!((e.symbol, e.version), (c"cuGLCtxCreate", 3020));
}

/// The driver-entry table's slots of these headers (after `cuda.h`'s, in `entries()`): each C
/// spelling resolves to the symbol it links in C (`dlsym`), or the driver lacks it (newer than
/// the driver, or `common::MAY_BE_ABSENT`) and the table says so. Under `dynamic-loading` and
/// `table-only` as well.
#[test]
fn the_table_resolves_each_c_spelling_to_its_symbol() {
    let t = table();
    let driver = driver_version();
    let mut failures = Vec::new();
    let mut names = Vec::new();
    for (header_name, rows, _, slots) in modules() {
        let (mut equal, mut lacking) = (0, Vec::new());
        for e in slots {
            names.push(e.name);
            let row = rows
                .iter()
                .find(|r| r.name.to_str() == Ok(e.name))
                .unwrap_or_else(|| panic!("{} is in the table but not in its linked.rs", e.name));
            let in_library = dlsym(row.symbol);
            match t.pointer(e.name) {
                Some(Ok(p)) if std::ptr::eq(p.as_ptr(), in_library) => equal += 1,
                Some(Ok(p)) => failures.push(format!(
                    "{header_name} {}: table {p:?}, {:?} at {in_library:?}",
                    e.name, row.symbol
                )),
                Some(Err(err))
                    if in_library.is_null() && lack_is_expected(&err, row.symbol, driver) =>
                {
                    lacking.push(format!("{} ({err})", e.name))
                }
                Some(Err(err)) => failures.push(format!("{header_name} {}: {err}", e.name)),
                None => failures.push(format!("{header_name} {}: not in the table", e.name)),
            }
        }
        println!(
            "table, {header_name}: {} functions, {equal} equal to the symbol of their C spelling, \
             {} not in driver {driver}",
            slots.len(),
            lacking.len()
        );
        for l in &lacking {
            println!("  not found: {l}");
        }
        assert!(equal > 0, "{header_name}: nothing resolved");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // entries(): cuda.h's slots, then each module's, in order.
    let all: Vec<&str> = t.entries().map(|(name, _)| name).collect();
    assert_eq!(all.len(), table::TABLE_ENTRIES.len() + names.len());
    assert_eq!(&all[table::TABLE_ENTRIES.len()..], &names[..]);
}

/// Calls through the table, the C spelling and the typed entry point reach the same driver
/// function: `cuProfilerStop` (legal in any state: with no device, the driver's "not
/// initialized") returns the same code each way.
#[test]
fn calls_through_the_table_reach_the_driver() {
    let via_table = unsafe { table().cuProfilerStop() };
    let via_entry = match profiler::entry::cuProfilerStop.get() {
        Ok(f) => unsafe { f() },
        Err(e) => panic!("{e}"),
    };
    println!(
        "cuProfilerStop: {via_table:?} through the table, {via_entry:?} through its entry point"
    );
    assert_eq!(via_table, via_entry);
    #[cfg(not(feature = "table-only"))]
    assert_eq!(unsafe { cuProfilerStop() }, via_table);
}

/// Under `dynamic-loading`: every function of these headers, under its real symbol, resolves to
/// the library's symbol of that name, or the driver lacks it and the loader says so.
#[cfg(feature = "dynamic-loading")]
#[test]
fn the_loader_resolves_each_symbol_to_the_librarys() {
    let driver = driver_version();
    let mut failures = Vec::new();
    for (header_name, rows, _, _) in modules() {
        let mut symbols: Vec<&CStr> = rows.iter().map(|r| r.symbol).collect();
        symbols.sort();
        symbols.dedup();
        let (mut equal, mut lacking) = (0, 0);
        for symbol in &symbols {
            let in_library = dlsym(symbol);
            match loader::function(symbol) {
                Some(Ok(p)) if std::ptr::eq(p.as_ptr(), in_library) => equal += 1,
                Some(Err(loader::FunctionError::NotFound(e)))
                    if in_library.is_null() && lack_is_expected(&e, symbol, driver) =>
                {
                    lacking += 1
                }
                other => failures.push(format!(
                    "{header_name} {symbol:?}: {other:?}, dlsym {in_library:?}"
                )),
            }
        }
        println!(
            "dynamic-loading, {header_name}: {} symbols, {equal} equal to dlsym, {lacking} not in driver {driver}",
            symbols.len()
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
