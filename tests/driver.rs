//! `cuda-driver-sys` against the real driver library: Debian's 535 (CUDA 12.2) with no GPU in CI,
//! the GPU machine's driver in the carried bundle.
//!
//! Environment read by these tests (set by `cargo xtask test`):
//! - `CUDA_DRIVER_EXPECT_VERSION`: the version the driver library must report (12020 for 535);
//! - `CUDA_DRIVER_EXPECT_NO_DEVICE=1`: `cuInit(0)` must fail with `CUDA_ERROR_NO_DEVICE` (no GPU);
//!   without it, it must succeed.

use std::collections::BTreeMap;
use std::ffi::{c_void, CStr};

use cuda_driver_sys::*;

mod common;
use common::{dlsym, driver_version, header_version};

#[test]
fn driver_version_is_the_librarys() {
    let v = driver_version();
    println!("cuDriverGetVersion: {v}");
    match std::env::var("CUDA_DRIVER_EXPECT_VERSION") {
        Ok(expected) => assert_eq!(v.to_string(), expected),
        Err(_) => assert!(
            v >= 12000,
            "a driver for CUDA 12 or later reports at least 12000, got {v}"
        ),
    }
    // The same function through the typed cuGetProcAddress helper gives the same answer.
    let get_version = entry::cuDriverGetVersion.get().unwrap();
    let mut w = 0;
    assert_eq!(unsafe { get_version(&mut w) }, CUDA_SUCCESS);
    assert_eq!(v, w);
}

#[test]
fn cu_init() {
    let code = unsafe { cuInit(0) };
    if std::env::var_os("CUDA_DRIVER_EXPECT_NO_DEVICE").is_some() {
        assert_eq!(code, CUresult::CUDA_ERROR_NO_DEVICE);
        // Later calls: not initialised.
        let mut dev: CUdevice = 0;
        assert_eq!(
            unsafe { cuDeviceGet(&mut dev, 0) },
            CUDA_ERROR_NOT_INITIALIZED
        );
    } else {
        assert_eq!(code, CUDA_SUCCESS, "cuInit(0) on a machine with a GPU");
    }
}

/// One C spelling, from the generated `linked.rs`.
struct Linked {
    name: &'static CStr,
    symbol: &'static CStr,
    /// The address the linker gave the Rust name (on Windows: through its import thunk; under
    /// `dynamic-loading`: the function the loader resolved for the symbol); `None` where this
    /// build must not reference the symbol (a header newer than CI's driver), which is then
    /// looked up with `dlsym`.
    address: Option<*const c_void>,
    entry: Option<EntryPointInfo>,
}

// Take every linked address only where the driver is known to have every symbol of the header:
// a header not newer than CI's driver (Debian's 535, CUDA 12.2), or a build for a newer driver
// (`link-every-function`, the GPU bundle).
#[cfg(all(
    not(feature = "dynamic-loading"),
    any(feature = "link-every-function", not(cuda_ge_12030))
))]
macro_rules! address {
    ($f:ident, $symbol:literal) => {
        Some(common::linked_target($f as *const c_void))
    };
}
#[cfg(all(
    not(feature = "dynamic-loading"),
    not(any(feature = "link-every-function", not(cuda_ge_12030)))
))]
macro_rules! address {
    ($f:ident, $symbol:literal) => {
        None
    };
}
// Under `dynamic-loading` each name is the crate's own function, which calls what the loader
// resolved for its symbol: that is the address compared (null where the driver lacks it).
#[cfg(feature = "dynamic-loading")]
macro_rules! address {
    ($f:ident, $symbol:literal) => {
        Some(match cuda_driver_sys::loader::function($symbol) {
            Some(Ok(p)) => p.as_ptr() as *const c_void,
            Some(Err(_)) => std::ptr::null(),
            // Not a driver function: the hand-written inline (see EXCEPTIONS).
            None => $f as *const c_void,
        })
    };
}
macro_rules! linked_functions {
    ($($(#[$m:meta])* ($name:literal, $symbol:literal, $f:ident, $entry:expr)),* $(,)?) => {
        vec![$($(#[$m])* Linked { name: $name, symbol: $symbol, address: address!($f, $symbol), entry: $entry }),*]
    };
}

fn linked() -> Vec<Linked> {
    include!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../cuda-driver-sys-items/src/generated/linked.rs"
    ))
}

/// C spellings whose linked address cannot equal a driver address, with the reason.
/// Keyed by the linked symbol.
const EXCEPTIONS: &[(&str, &str)] = &[
    (
        "cuGetProcAddress_v2_ptsz",
        "cuda.h's static inline (the C spelling under per-thread-default-stream), written in Rust \
         (cuda_driver_sys::inline), not a driver symbol",
    ),
    (
        "cuGetProcAddress_ptsz",
        "CUDA 11 cuda.h's static inline (the C spelling under per-thread-default-stream), written \
         in Rust (cuda_driver_sys::inline), not a driver symbol",
    ),
];

#[test]
fn every_c_spelling_is_the_symbol_cu_get_proc_address_returns() {
    let driver = driver_version();
    let header = header_version();
    let rows = linked();
    let (mut matched, mut newer, mut no_typedef, mut excepted) = (0, 0, Vec::new(), Vec::new());
    let mut missing = Vec::new();
    let mut failures = Vec::new();
    for row in &rows {
        let name = row.name.to_str().unwrap();
        let linked = row.address.unwrap_or_else(|| dlsym(row.symbol));
        if linked.is_null() {
            missing.push(format!("{name} ({:?})", row.symbol));
        }
        if let Some(reason) = EXCEPTIONS
            .iter()
            .find(|(s, _)| row.symbol.to_str() == Ok(s))
            .map(|e| e.1)
        {
            excepted.push(format!("{name}: {reason}"));
            continue;
        }
        let Some(entry) = row.entry else {
            no_typedef.push(name);
            continue;
        };
        // The stream mode of the symbol itself: a legacy-stream symbol stays legacy in a per-thread
        // build (the driver has no per-thread cuMemcpyHtoD at 3020).
        let flags = if entry.per_thread {
            CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM
        } else {
            CU_GET_PROC_ADDRESS_LEGACY_STREAM
        };
        if entry.version > driver {
            // Newer than the driver: the 535 driver answers with its newest variant, the 580
            // one with CUDA_ERROR_INVALID_VALUE; the symbol itself is the test.
            newer += 1;
            continue;
        }
        match entry.lookup(flags) {
            Ok(p) if std::ptr::eq(p.as_ptr(), linked) => matched += 1,
            Ok(p) => failures.push(format!(
                "{name}: linked {:?} at {linked:?}, cuGetProcAddress({:?}, {}) gives {p:?}",
                row.symbol, entry.symbol, entry.version
            )),
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    println!(
        "C spellings: {} declared; {matched} equal to cuGetProcAddress's pointer; {newer} newer than \
         the driver ({driver}); {} without a typedef in cudaTypedefs.h; {} exceptions; {} symbols \
         not in the driver library",
        rows.len(),
        no_typedef.len(),
        excepted.len(),
        missing.len()
    );
    for e in &excepted {
        println!("  exception: {e}");
    }
    println!("  without typedef: {}", no_typedef.join(" "));
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
    if header <= driver {
        assert!(
            missing.is_empty(),
            "declared but not in the driver library:\n{}",
            missing.join("\n")
        );
        assert_eq!(newer, 0);
    }
    assert!(matched > 400, "only {matched} C spellings compared");
}

#[test]
fn every_versioned_typedef_resolves_or_says_why() {
    let driver = driver_version();
    let mut counts: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    let mut failures = Vec::new();
    for info in entry::ALL {
        let what = format!(
            "{}@{}{}",
            info.symbol.to_str().unwrap(),
            info.version,
            if info.per_thread { "/pt" } else { "" }
        );
        let outcome = match info.lookup(info.default_flags()) {
            Ok(_) if info.version <= driver => "resolved",
            Err(ProcAddressError {
                kind: ProcAddressErrorKind::DriverTooOld { .. },
                ..
            }) if info.version > driver => "above the driver's version (refused)",
            Err(ProcAddressError {
                kind: ProcAddressErrorKind::VersionNotSufficient,
                ..
            }) => "version not sufficient",
            Err(ProcAddressError {
                kind: ProcAddressErrorKind::SymbolNotFound,
                ..
            }) => "symbol not found",
            other => {
                failures.push(format!("{what}: {other:?}"));
                continue;
            }
        };
        counts.entry(outcome).or_default().push(what);
    }
    println!(
        "PFN_* typedefs: {} declared, driver {driver}",
        entry::ALL.len()
    );
    for (outcome, names) in &counts {
        println!("  {outcome}: {}", names.len());
        if *outcome != "resolved" {
            println!("    {}", names.join(" "));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Every typedef at most the driver's version resolves, but for what the driver reports as
    // not found or not sufficient, which is listed above.
    let resolved = counts.get("resolved").map_or(0, Vec::len);
    assert!(resolved > 400, "only {resolved} resolved");
}

#[test]
fn typed_helper_reports_the_three_outcomes() {
    let driver = driver_version();
    // Found: a non-null pointer of the typedef's type.
    let init: unsafe extern "C" fn(u32) -> CUresult = entry::cuInit_v2000.get().unwrap();
    let code = unsafe { init(0) };
    assert!(
        code == CUDA_SUCCESS || code == CUDA_ERROR_NO_DEVICE,
        "{code:?}"
    );

    // Symbol not found.
    let missing = unsafe { EntryPoint::<PFN_cuInit_v2000>::new(c"cuNoSuchFunction", 12000) };
    let e = missing.get().unwrap_err();
    assert_eq!(e.kind, ProcAddressErrorKind::SymbolNotFound, "{e}");
    println!("{e}");

    // Version not sufficient: cuMemAllocAsync appeared in 11.2.
    let too_old =
        unsafe { EntryPoint::<PFN_cuMemAllocAsync_v11020>::new(c"cuMemAllocAsync", 11010) };
    let e = too_old.get().unwrap_err();
    assert_eq!(e.kind, ProcAddressErrorKind::VersionNotSufficient, "{e}");
    println!("{e}");

    // A version above the driver's: refused by the helper. The raw call shows why: the 580
    // driver answers CUDA_ERROR_INVALID_VALUE, the 535 driver its own newest variant, which for
    // cuCtxCreate at 12050 is cuCtxCreate_v3, not the _v4 the typedef describes.
    let future = unsafe { EntryPoint::<PFN_cuInit_v2000>::new(c"cuInit", driver + 10) };
    let e = future.get().unwrap_err();
    assert_eq!(e.kind, ProcAddressErrorKind::DriverTooOld { driver }, "{e}");
    println!("{e}");
    let mut raw = std::ptr::null_mut();
    #[cfg(cuda_ge_12000)]
    let code = {
        let mut status = CUdriverProcAddressQueryResult(99);
        let code =
            unsafe { cuGetProcAddress(c"cuCtxCreate".as_ptr(), &mut raw, 12050, 0, &mut status) };
        println!("raw cuGetProcAddress(\"cuCtxCreate\", 12050) on driver {driver}: {code:?} {status:?} {raw:?}");
        code
    };
    // CUDA 11 headers: cuGetProcAddress (v1) has no status.
    #[cfg(not(cuda_ge_12000))]
    let code = {
        let code = unsafe { cuGetProcAddress(c"cuCtxCreate".as_ptr(), &mut raw, 12050, 0) };
        println!(
            "raw cuGetProcAddress v1 (\"cuCtxCreate\", 12050) on driver {driver}: {code:?} {raw:?}"
        );
        code
    };
    if driver < 12050 && code == CUDA_SUCCESS {
        assert_eq!(
            raw as *const c_void,
            dlsym(c"cuCtxCreate_v3"),
            "the reason for the refusal"
        );
    }

    // The version picks the ABI: cuCtxCreate at 3020 is cuCtxCreate_v2, at 11040 cuCtxCreate_v3.
    let v2 = entry::cuCtxCreate_v3020
        .info()
        .lookup(CU_GET_PROC_ADDRESS_DEFAULT)
        .unwrap();
    let v3 = entry::cuCtxCreate_v11040
        .info()
        .lookup(CU_GET_PROC_ADDRESS_DEFAULT)
        .unwrap();
    assert_eq!(v2.as_ptr() as *const c_void, dlsym(c"cuCtxCreate_v2"));
    assert_eq!(v3.as_ptr() as *const c_void, dlsym(c"cuCtxCreate_v3"));
}

#[test]
fn per_thread_entries_differ_from_legacy_ones() {
    let legacy = entry::cuMemcpyHtoD_v3020
        .info()
        .lookup(CU_GET_PROC_ADDRESS_LEGACY_STREAM)
        .unwrap();
    let per_thread = entry::cuMemcpyHtoD_v7000_ptds.get().unwrap();
    assert_eq!(legacy.as_ptr() as *const c_void, dlsym(c"cuMemcpyHtoD_v2"));
    assert_eq!(per_thread as *const c_void, dlsym(c"cuMemcpyHtoD_v2_ptds"));
    // The default flag follows the build's stream mode, as cuda.h's inline does in C: under
    // per-thread-default-stream it asks for the per-thread variant, which has no 3020 version.
    let default = entry::cuMemcpyHtoD_v3020.get();
    let c_spelling = entry::cuMemcpyHtoD.get().unwrap() as *const c_void;
    if cfg!(feature = "per-thread-default-stream") {
        assert_eq!(
            default.unwrap_err().kind,
            ProcAddressErrorKind::VersionNotSufficient
        );
        assert_eq!(c_spelling, dlsym(c"cuMemcpyHtoD_v2_ptds"));
    } else {
        assert_eq!(default.unwrap() as *const c_void, dlsym(c"cuMemcpyHtoD_v2"));
        assert_eq!(c_spelling, dlsym(c"cuMemcpyHtoD_v2"));
    }
}

#[test]
fn typed_helper_is_safe_from_many_threads() {
    let expected: Vec<_> = entry::ALL
        .iter()
        .map(|i| i.lookup(i.default_flags()).map(|p| p.as_ptr() as usize))
        .collect();
    let threads: Vec<_> = (0..8)
        .map(|_| {
            std::thread::spawn(|| {
                entry::ALL
                    .iter()
                    .map(|i| i.lookup(i.default_flags()).map(|p| p.as_ptr() as usize))
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    for t in threads {
        assert_eq!(t.join().unwrap(), expected);
    }
}
