//! The driver-entry table against the real driver library. Written to build under every feature
//! set, `table-only` included (it references no driver function but through the table), so that
//! `cargo xtask test` can build it with `cuda-13000,table-only`, check with `nm` that the binary imports
//! no driver symbol but the four the table needs, and run it on CI's 535 (CUDA 12.2) driver.

use std::ffi::{c_void, CStr};

use cuda_driver_sys::table::TABLE_ENTRIES;
use cuda_driver_sys::*;

mod common;
use common::{dlsym, header_version};

fn driver_version(t: &DriverTable) -> i32 {
    let mut v = 0;
    assert_eq!(unsafe { t.cuDriverGetVersion(&mut v) }, CUDA_SUCCESS);
    v
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
        "/../cuda-driver-sys-items/src/generated/linked.rs"
    ))
}

#[test]
fn table_resolves_what_the_driver_has_and_names_the_rest() {
    let t = DriverTable::new(StreamMode::BUILD);
    let driver = driver_version(&t);
    let symbols = linked_symbols();
    let (mut resolved, mut missing, mut failures) = (0, Vec::new(), Vec::new());
    // cuda.h's slots (the interop modules' are interop.rs's).
    let core = TABLE_ENTRIES
        .iter()
        .map(|e| (e.name, t.pointer(e.name).unwrap()));
    for (name, status) in core {
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
            Ok(p) if std::ptr::eq(p.as_ptr(), linked) => resolved += 1,
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
    // Every header from 11.7 on has more than 360 functions (11.7: 365); the 11.4 driver (470)
    // has 350 of 11.8's 368, the 12.2 driver every one of 11.7-12.2's.
    assert!(resolved > 340, "only {resolved} resolved");
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
        counts.iter().all(|&c| c == counts[0] && c > 360),
        "{counts:?}"
    );
}

/// `vector_add` (appendix L's host program) through the table: on a GPU every element is checked
/// on the host; without one, the error path is what C sees.
#[test]
fn vector_add_through_the_table() {
    let t = table();
    let code = unsafe { t.cuInit(0) };
    if std::env::var_os("CUDA_DRIVER_EXPECT_NO_DEVICE").is_some() {
        assert_eq!(code, CUDA_ERROR_NO_DEVICE);
        let mut dev: CUdevice = 0;
        assert_eq!(
            unsafe { t.cuDeviceGet(&mut dev, 0) },
            CUDA_ERROR_NOT_INITIALIZED
        );
        return;
    }
    assert_eq!(code, CUDA_SUCCESS);
    let ptx_path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/kernels/vector_add.ptx"
    );
    let ptx_path = std::env::var("CUDA_KERNELS_DIR")
        .map_or(ptx_path.to_string(), |d| format!("{d}/vector_add.ptx"));
    let ptx = std::ffi::CString::new(std::fs::read(&ptx_path).expect("vector_add.ptx")).unwrap();
    let check = |code: CUresult, what: &str| assert_eq!(code, CUDA_SUCCESS, "{what}");
    unsafe {
        let mut device: CUdevice = 0;
        check(t.cuDeviceGet(&mut device, 0), "cuDeviceGet");
        // The primary context: the same call in every header version (cuCtxCreate is not).
        let mut ctx: CUcontext = std::ptr::null_mut();
        check(
            t.cuDevicePrimaryCtxRetain(&mut ctx, device),
            "cuDevicePrimaryCtxRetain",
        );
        check(t.cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
        let mut module: CUmodule = std::ptr::null_mut();
        check(
            t.cuModuleLoadData(&mut module, ptx.as_ptr().cast()),
            "cuModuleLoadData",
        );
        let mut vec_add: CUfunction = std::ptr::null_mut();
        check(
            t.cuModuleGetFunction(&mut vec_add, module, c"VecAdd".as_ptr()),
            "cuModuleGetFunction",
        );
        let n: i32 = 1 << 20;
        let size = n as usize * size_of::<f32>();
        let h_a: Vec<f32> = (0..n).map(|i| i as f32).collect();
        let h_b: Vec<f32> = (0..n).map(|i| (2 * i) as f32 + 0.5).collect();
        let mut h_c = vec![0f32; n as usize];
        let (mut d_a, mut d_b, mut d_c): (CUdeviceptr, CUdeviceptr, CUdeviceptr) = (0, 0, 0);
        check(t.cuMemAlloc(&mut d_a, size), "cuMemAlloc");
        check(t.cuMemAlloc(&mut d_b, size), "cuMemAlloc");
        check(t.cuMemAlloc(&mut d_c, size), "cuMemAlloc");
        check(
            t.cuMemcpyHtoD(d_a, h_a.as_ptr().cast(), size),
            "cuMemcpyHtoD",
        );
        check(
            t.cuMemcpyHtoD(d_b, h_b.as_ptr().cast(), size),
            "cuMemcpyHtoD",
        );
        let threads_per_block = 256;
        let blocks = (n as u32).div_ceil(threads_per_block);
        let mut args: [*mut c_void; 4] = [
            (&mut d_a as *mut CUdeviceptr).cast(),
            (&mut d_b as *mut CUdeviceptr).cast(),
            (&mut d_c as *mut CUdeviceptr).cast(),
            (&n as *const i32).cast_mut().cast(),
        ];
        check(
            t.cuLaunchKernel(
                vec_add,
                blocks,
                1,
                1,
                threads_per_block,
                1,
                1,
                0,
                std::ptr::null_mut(),
                args.as_mut_ptr(),
                std::ptr::null_mut(),
            ),
            "cuLaunchKernel",
        );
        check(
            t.cuMemcpyDtoH(h_c.as_mut_ptr().cast(), d_c, size),
            "cuMemcpyDtoH",
        );
        let wrong = (0..n as usize)
            .filter(|&i| h_c[i] != h_a[i] + h_b[i])
            .count();
        println!(
            "vector_add through the table: {} of {n} elements correct",
            n as usize - wrong
        );
        assert_eq!(wrong, 0);
        for p in [d_a, d_b, d_c] {
            check(t.cuMemFree(p), "cuMemFree");
        }
        check(t.cuModuleUnload(module), "cuModuleUnload");
        check(
            t.cuDevicePrimaryCtxRelease(device),
            "cuDevicePrimaryCtxRelease",
        );
    }
}
