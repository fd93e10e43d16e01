//! Helpers shared by the tests that run against the real driver library (`driver.rs`, `table.rs`,
//! `dynamic.rs`, `interop.rs`, `examples_parity.rs`, `check_error_strings.rs`, `load_from.rs`).

use std::ffi::{c_void, CStr};

use cuda_driver_sys::{cuDriverGetVersion, CUDA_SUCCESS};

/// `target_command`: the programs a test starts, through the target's runner where there is one.
#[allow(dead_code)]
#[path = "../../cuda-check/tests/runner/mod.rs"]
pub mod runner;

/// The driver's version, from `cuDriverGetVersion` (which must succeed).
#[allow(dead_code)]
pub fn driver_version() -> i32 {
    let mut v = 0;
    let code = unsafe { cuDriverGetVersion(&mut v) };
    assert_eq!(code, CUDA_SUCCESS, "cuDriverGetVersion");
    v
}

/// The header version the bindings (and this build's C side) come from, e.g. 12000.
#[allow(dead_code)]
pub fn header_version() -> i32 {
    env!("CUDA_HEADER_VERSION").parse().unwrap()
}

/// `symbol` in the driver library `libcuda.so.1`, the one the process loaded (or, where it loaded
/// none, as the loader finds it); null where the library lacks it.
#[allow(dead_code)]
pub fn dlsym(symbol: &CStr) -> *const c_void {
    unsafe {
        let lib = libc::dlopen(c"libcuda.so.1".as_ptr(), libc::RTLD_NOW);
        assert!(
            !lib.is_null(),
            "no driver library libcuda.so.1 to look {symbol:?} up in"
        );
        libc::dlsym(lib, symbol.as_ptr()) as *const c_void
    }
}

/// Functions of the interop headers a driver library may lack entirely, with the reason: found,
/// they are compared like the rest; absent (not exported, and `cuGetProcAddress` says "symbol not
/// found"), they are listed and accepted (`interop.rs`, and `dynamic.rs` with the modules on).
#[allow(dead_code)]
pub const MAY_BE_ABSENT: &[(&str, &str)] = &[(
    "cuEventCreateFromEGLSync",
    "absent from the x86-64 driver libraries seen (Debian's 535, the H100 machine's 580.159.04): \
     no export, unknown to cuGetProcAddress",
)];

/// Why `symbol` may be absent from a driver library ([`MAY_BE_ABSENT`]); `None` where it may not.
#[allow(dead_code)]
pub fn may_be_absent(symbol: &CStr) -> Option<&'static str> {
    MAY_BE_ABSENT
        .iter()
        .find(|(s, _)| symbol.to_str() == Ok(s))
        .map(|(_, why)| *why)
}
