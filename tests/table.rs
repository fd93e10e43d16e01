//! The driver-entry table against the real driver library. Written to build under every feature
//! set, `table-only` included (it references no driver function but through the table), so that
//! `ci/test.sh` can build it with `cuda-13000,table-only`, check with `nm` that the binary imports
//! no driver symbol but the four the table needs, and run it on CI's 535 (CUDA 12.2) driver.

use std::ffi::{c_void, CStr};

use cuda_driver_sys::table::TABLE_ENTRIES;
use cuda_driver_sys::*;

fn header_version() -> i32 {
    env!("CUDA_HEADER_VERSION").parse().unwrap()
}

fn driver_version(t: &DriverTable) -> i32 {
    let mut v = 0;
    assert_eq!(unsafe { t.cuDriverGetVersion(&mut v) }, CUDA_SUCCESS);
    v
}

/// The driver library as the process loaded it.
fn dlsym(symbol: &CStr) -> *const c_void {
    unsafe {
        let lib = libc::dlopen(c"libcuda.so.1".as_ptr(), libc::RTLD_NOW | libc::RTLD_NOLOAD);
        assert!(!lib.is_null(), "libcuda.so.1 is not loaded in this process");
        libc::dlsym(lib, symbol.as_ptr()) as *const c_void
    }
}

// The generated list of C spellings with the symbol each links, names only (no address taken).
macro_rules! linked_functions {
    ($($(#[$m:meta])* ($name:literal, $symbol:literal, $f:ident, $entry:expr)),* $(,)?) => {
        vec![$($(#[$m])* ($name, $symbol)),*]
    };
}
fn linked_symbols() -> Vec<(&'static CStr, &'static CStr)> {
    include!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/cuda-driver-sys/src/generated/v",
        env!("CUDA_HEADER_VERSION"),
        "/linked.rs"
    ))
}

#[test]
fn table_resolves_what_the_driver_has_and_names_the_rest() {
    let t = DriverTable::new(StreamMode::BUILD);
    let driver = driver_version(&t);
    let symbols = linked_symbols();
    let (mut resolved, mut missing, mut failures) = (0, Vec::new(), Vec::new());
    for (name, status) in t.entries() {
        let symbol = symbols
            .iter()
            .find(|(n, _)| n.to_str() == Ok(name))
            .map(|(_, s)| *s)
            .unwrap_or_else(|| panic!("{name} is in the table but not in linked.rs"));
        // cuda.h's static inline `cuGetProcAddress_v2_ptsz` is no driver symbol: the table
        // reaches the driver's `cuGetProcAddress_v2`, which the inline calls.
        let symbol = if symbol == c"cuGetProcAddress_v2_ptsz" {
            c"cuGetProcAddress_v2"
        } else {
            symbol
        };
        let linked = dlsym(symbol);
        match status {
            // The table's pointer is the directly linked symbol's.
            Ok(p) if p.as_ptr() as *const c_void == linked => resolved += 1,
            Ok(p) => failures.push(format!("{name}: table {p:?}, {symbol:?} at {linked:?}")),
            // Not in this driver: the symbol is absent too.
            Err(e) if linked.is_null() => missing.push(format!("{name} ({e})")),
            Err(e) => failures.push(format!("{name}: {e}, yet {symbol:?} is in the library")),
        }
    }
    println!(
        "table of the CUDA {} header on driver {driver}: {} functions, {resolved} resolved (each \
         equal to its linked symbol), {} not in this driver",
        header_version(),
        TABLE_ENTRIES.len(),
        missing.len()
    );
    for m in &missing {
        println!("  not found: {m}");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(resolved + missing.len(), TABLE_ENTRIES.len());
    assert!(resolved > 370, "only {resolved} resolved");
    if header_version() <= driver {
        assert!(
            missing.is_empty(),
            "a driver at least as new as the header has every function"
        );
    } else {
        assert!(
            !missing.is_empty(),
            "a header newer than the driver has functions it lacks"
        );
    }
}

#[test]
fn a_missing_function_returns_not_found_with_its_name() {
    let t = table();
    let driver = driver_version(t);
    // cuCtxCreate of the 13.0 header is cuCtxCreate_v4 (12.5): absent from a 12.2 driver.
    #[cfg(feature = "cuda-13000")]
    if driver < 12050 {
        let mut ctx: CUcontext = std::ptr::null_mut();
        let code = unsafe { t.cuCtxCreate(&mut ctx, std::ptr::null_mut(), 0, 0) };
        assert_eq!(code, CUDA_ERROR_NOT_FOUND);
        let e = t.pointer("cuCtxCreate").unwrap().unwrap_err();
        assert_eq!(e.entry.symbol, c"cuCtxCreate");
        assert_eq!(e.entry.version, 12050);
        println!("cuCtxCreate: {e}");
        assert!(ctx.is_null(), "nothing was called");
    }
    assert!(t.pointer("cuNoSuchFunction").is_none());
    assert!(driver >= 12000);
}

/// `driver_init` (post 000 §1.2) through the table: what it prints, and what a C program would see.
#[test]
fn driver_init_logic_through_the_table() {
    let t = table();
    let code = unsafe { t.cuInit(0) };
    let mut err_message: *const std::ffi::c_char = std::ptr::null();
    let _ = unsafe { t.cuGetErrorString(code, &mut err_message) };
    let mut driver_version = 0;
    let _ = unsafe { t.cuDriverGetVersion(&mut driver_version) };
    println!("CUDA Driver version is {driver_version}");
    let mut device_name = [0 as std::ffi::c_char; 100];
    let name_code = unsafe { t.cuDeviceGetName(device_name.as_mut_ptr(), 100, 0) };
    if std::env::var_os("CUDA_DRIVER_EXPECT_NO_DEVICE").is_some() {
        let message = unsafe { CStr::from_ptr(err_message) };
        println!(
            "Initialize failed. code = {}, message = {}",
            code.0,
            message.to_str().unwrap()
        );
        assert_eq!(code, CUDA_ERROR_NO_DEVICE);
        assert_eq!(message, c"no CUDA-capable device is detected");
        assert_eq!(name_code, CUDA_ERROR_NOT_INITIALIZED);
    } else {
        assert_eq!(code, CUDA_SUCCESS);
        assert_eq!(name_code, CUDA_SUCCESS);
        let name = unsafe { CStr::from_ptr(device_name.as_ptr()) };
        println!("Device 0 name is {}", name.to_str().unwrap());
    }
    assert!(driver_version >= 12000);
}

#[test]
fn tables_in_both_stream_modes() {
    let legacy = DriverTable::new(StreamMode::Legacy);
    let per_thread = DriverTable::new(StreamMode::PerThread);
    let l = legacy.pointer("cuMemcpyHtoD").unwrap().unwrap().as_ptr() as *const c_void;
    let p = per_thread
        .pointer("cuMemcpyHtoD")
        .unwrap()
        .unwrap()
        .as_ptr() as *const c_void;
    assert_eq!(l, dlsym(c"cuMemcpyHtoD_v2"));
    assert_eq!(p, dlsym(c"cuMemcpyHtoD_v2_ptds"));
    // Functions without stream semantics are the same in both.
    assert_eq!(
        legacy.pointer("cuInit").unwrap().unwrap(),
        per_thread.pointer("cuInit").unwrap().unwrap()
    );
    assert_eq!(table().mode(), StreamMode::BUILD);
}

#[test]
fn table_is_safe_from_many_threads() {
    static T: DriverTable = DriverTable::new(StreamMode::Legacy);
    let threads: Vec<_> = (0..8)
        .map(|_| std::thread::spawn(|| T.resolve_all()))
        .collect();
    let counts: Vec<usize> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    assert!(
        counts.iter().all(|&c| c == counts[0] && c > 370),
        "{counts:?}"
    );
}
