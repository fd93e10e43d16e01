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

/// The driver library's name: what a linked program loads first, what `dynamic-loading` opens first.
#[allow(dead_code)]
pub const LIBRARY: &CStr = if cfg!(windows) {
    c"nvcuda.dll"
} else {
    c"libcuda.so.1"
};

/// What the loader's message says of a library file that does not exist.
#[allow(dead_code)]
pub const NO_SUCH_FILE: &str = if cfg!(windows) {
    "Windows error 126"
} else {
    "No such file"
};

/// `symbol` in the driver library [`LIBRARY`], the one the process loaded (or, where it loaded
/// none, as the loader finds it); null where the library lacks it.
#[allow(dead_code)]
pub fn dlsym(symbol: &CStr) -> *const c_void {
    unsafe {
        let lib = sys::open(LIBRARY);
        assert!(
            !lib.is_null(),
            "no driver library {LIBRARY:?} to look {symbol:?} up in"
        );
        sys::symbol(lib, symbol)
    }
}

/// Whether this process has the driver library loaded, without loading it.
#[allow(dead_code)]
pub fn is_loaded() -> bool {
    unsafe { sys::is_loaded(LIBRARY) }
}

/// The function a linked driver function's address leads to. On Windows the address of a
/// function imported without `dllimport` (a Rust `extern` block whose library cargo links) is the
/// executable's import thunk, `jmp [rip + disp32]` through the import address table: its target
/// is read there. Elsewhere the address itself.
#[allow(dead_code)]
pub fn linked_target(address: *const c_void) -> *const c_void {
    if !cfg!(windows) {
        return address;
    }
    let code = address as *const u8;
    // SAFETY: the first six bytes of a function's code; the slot is the thunk's own operand.
    unsafe {
        assert_eq!(
            [*code, *code.add(1)],
            [0xff, 0x25],
            "{address:?} is no import thunk"
        );
        let disp = (code.add(2) as *const i32).read_unaligned();
        *(code.add(6).offset(disp as isize) as *const *const c_void)
    }
}

#[cfg(unix)]
mod sys {
    use std::ffi::{c_void, CStr};

    pub unsafe fn open(name: &CStr) -> *mut c_void {
        libc::dlopen(name.as_ptr(), libc::RTLD_NOW)
    }

    pub unsafe fn symbol(lib: *mut c_void, name: &CStr) -> *const c_void {
        libc::dlsym(lib, name.as_ptr())
    }

    pub unsafe fn is_loaded(name: &CStr) -> bool {
        !libc::dlopen(name.as_ptr(), libc::RTLD_NOW | libc::RTLD_NOLOAD).is_null()
    }
}

#[cfg(windows)]
mod sys {
    use std::ffi::{c_char, c_void, CStr};

    #[link(name = "kernel32")]
    extern "system" {
        fn LoadLibraryA(name: *const c_char) -> *mut c_void;
        fn GetModuleHandleA(name: *const c_char) -> *mut c_void;
        fn GetProcAddress(module: *mut c_void, name: *const c_char) -> *const c_void;
    }

    pub unsafe fn open(name: &CStr) -> *mut c_void {
        LoadLibraryA(name.as_ptr())
    }

    pub unsafe fn symbol(lib: *mut c_void, name: &CStr) -> *const c_void {
        GetProcAddress(lib, name.as_ptr())
    }

    pub unsafe fn is_loaded(name: &CStr) -> bool {
        !GetModuleHandleA(name.as_ptr()).is_null()
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
