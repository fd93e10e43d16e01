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
use common::{dlsym, header_version};

fn driver_version() -> i32 {
    let mut v = 0;
    assert_eq!(unsafe { cuDriverGetVersion(&mut v) }, CUDA_SUCCESS);
    v
}

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
// address would not link there, so it is looked up with `dlsym` on every driver.
macro_rules! address {
    (cuEventCreateFromEGLSync) => {
        None
    };
    ($f:ident) => {
        Some($f as *const c_void)
    };
}

/// Functions a driver library may lack entirely, with the reason: found, they are compared like
/// the rest; absent (not exported, and `cuGetProcAddress` says "symbol not found"), they are
/// listed and accepted.
const MAY_BE_ABSENT: &[(&str, &str)] = &[(
    "cuEventCreateFromEGLSync",
    "absent from Debian's 535 x86-64 driver library (no export, unknown to cuGetProcAddress)",
)];

fn may_be_absent(e: &ProcAddressError, symbol: &CStr) -> Option<&'static str> {
    let absent = matches!(e.kind, ProcAddressErrorKind::SymbolNotFound);
    MAY_BE_ABSENT
        .iter()
        .find(|(s, _)| absent && symbol.to_str() == Ok(s))
        .map(|(_, why)| *why)
}

macro_rules! linked_functions {
    ($($(#[$m:meta])* ($name:literal, $symbol:literal, $f:ident, $entry:expr)),* $(,)?) => {
        vec![$($(#[$m])* Linked { name: $name, symbol: $symbol, address: address!($f), entry: $entry }),*]
    };
}
macro_rules! linked {
    ($module:ident, $file:literal) => {{
        #[allow(unused_imports)]
        use cuda_driver_sys::$module::entry;
        include!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../cuda-driver-sys/src/generated/",
            $file
        ))
    }};
}

/// Each module: its header, its C spellings, its versioned entry points.
fn modules() -> Vec<(&'static str, Vec<Linked>, &'static [EntryPointInfo])> {
    vec![
        (
            "cudaProfiler.h",
            linked!(profiler, "profiler_linked.rs"),
            &profiler::entry::ALL[..],
        ),
        ("cudaGL.h", linked!(gl, "gl_linked.rs"), &gl::entry::ALL[..]),
        (
            "cudaEGL.h",
            linked!(egl, "egl_linked.rs"),
            &egl::entry::ALL[..],
        ),
        (
            "cudaVDPAU.h",
            linked!(vdpau, "vdpau_linked.rs"),
            &vdpau::entry::ALL[..],
        ),
    ]
}

#[test]
fn every_c_spelling_is_the_symbol_cu_get_proc_address_returns() {
    let driver = driver_version();
    let header = header_version();
    let mut failures = Vec::new();
    let mut total = 0;
    for (header_name, rows, _) in modules() {
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
    for (header_name, _, all) in modules() {
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
