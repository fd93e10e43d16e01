//! The CUDA runtime API (`cuda_runtime_api.h`, `driver_types.h`; the library `libcudart.so.12`)
//! as far as `runtime_interop` uses it, declared by hand from the CUDA 12.0 headers, the version of
//! the runtime library it runs with (the pinned wheel `nvidia-cuda-runtime-cu12==12.0.146` that
//! `ci/fetch-deps.sh` fetches, or a CUDA 12 toolkit's). Deliberately not in `cuda-driver-sys`,
//! whose scope is the driver API; included only by the examples that use the runtime
//! (`#[path = "common/cudart.rs"] mod cudart;`, beside `common`, whose `s` it prints with).
//!
//! The library is loaded at run time (`dlopen`), never linked: building the examples needs no
//! runtime library, and every other example needs nothing but the driver. [`load`] looks for
//! `libcudart.so.12` in `$CUDART_LIBRARY_PATH`, then where the loader looks (`LD_LIBRARY_PATH`,
//! `ld.so.cache`, the system folders: what the C twin, linked against it, gets), then in this
//! checkout's `target/ci-deps/cudart/lib`, then in a toolkit (`$CUDA_PATH`, `$CUDA_HOME`,
//! `/usr/local/cuda`; `lib64`, `targets/x86_64-linux/lib`), and says in one line what it tried
//! when there is none. The functions below are the C prototypes; each calls the library's symbol
//! (loading the library first if [`load`] was not called, and exiting with that line if there is
//! none).
//!
//! C enums are `#[repr(transparent)]` newtypes over the C integer, as in `cuda-driver-sys`, so a
//! value the 12.0 headers do not know, from a newer runtime, is an ordinary value.
//! With the feature `per-thread-default-stream` (C's `CUDA_API_PER_THREAD_DEFAULT_STREAM`) the
//! functions call the symbols `cuda_runtime_api.h` then selects: `cudaMemcpy_ptds`,
//! `cudaGetDriverEntryPoint_ptsz`.
#![allow(non_camel_case_types, non_upper_case_globals, non_snake_case)] // the C names

use std::ffi::{c_char, c_int, c_uint, c_ulonglong, c_void, CStr, CString};
use std::path::PathBuf;
use std::sync::OnceLock;

/// C's `cudaError_t` (`enum cudaError`): a runtime call's result.
#[repr(transparent)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[must_use = "a cudaError_t says whether the call failed"]
pub struct cudaError_t(pub c_uint);

/// `cudaSuccess`: the call succeeded.
pub const cudaSuccess: cudaError_t = cudaError_t(0);

/// C's `enum cudaMemcpyKind`: the direction of a `cudaMemcpy`.
#[repr(transparent)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct cudaMemcpyKind(pub c_uint);

/// `cudaMemcpyHostToDevice`: host memory to device memory.
pub const cudaMemcpyHostToDevice: cudaMemcpyKind = cudaMemcpyKind(1);

/// C's `enum cudaGetDriverEntryPointFlags`: which variant `cudaGetDriverEntryPoint` looks for
/// (passed as its `unsigned long long flags`: `cudaEnableDefault.0 as c_ulonglong`).
#[repr(transparent)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct cudaGetDriverEntryPointFlags(pub c_uint);

/// `cudaEnableDefault`: the per-thread default-stream variant when built with
/// `CUDA_API_PER_THREAD_DEFAULT_STREAM` (here: the feature `per-thread-default-stream`), else the
/// legacy one.
pub const cudaEnableDefault: cudaGetDriverEntryPointFlags = cudaGetDriverEntryPointFlags(0x0);
/// `cudaEnableLegacyStream`: the legacy default-stream variant.
pub const cudaEnableLegacyStream: cudaGetDriverEntryPointFlags = cudaGetDriverEntryPointFlags(0x1);
/// `cudaEnablePerThreadDefaultStream`: the per-thread default-stream variant where there is one.
pub const cudaEnablePerThreadDefaultStream: cudaGetDriverEntryPointFlags =
    cudaGetDriverEntryPointFlags(0x2);

/// C's `enum cudaDriverEntryPointQueryResult`: what `cudaGetDriverEntryPoint` found.
#[repr(transparent)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct cudaDriverEntryPointQueryResult(pub c_uint);

/// `cudaDriverEntryPointSuccess`: found; the function pointer is valid.
pub const cudaDriverEntryPointSuccess: cudaDriverEntryPointQueryResult =
    cudaDriverEntryPointQueryResult(0);
/// `cudaDriverEntryPointSymbolNotFound`: no such driver function.
pub const cudaDriverEntryPointSymbolNotFound: cudaDriverEntryPointQueryResult =
    cudaDriverEntryPointQueryResult(1);
/// `cudaDriverEntryPointVersionNotSufficent` (sic, the header's spelling): the function is newer
/// than the runtime's CUDA version.
pub const cudaDriverEntryPointVersionNotSufficent: cudaDriverEntryPointQueryResult =
    cudaDriverEntryPointQueryResult(2);

/// The library's file name: the CUDA 12 runtime, whose ABI the declarations here are.
const LIBRARY: &str = "libcudart.so.12";

/// The runtime's functions, resolved from the loaded library.
struct Cudart {
    cudaMalloc: unsafe extern "C" fn(*mut *mut c_void, usize) -> cudaError_t,
    cudaFree: unsafe extern "C" fn(*mut c_void) -> cudaError_t,
    cudaMemcpy:
        unsafe extern "C" fn(*mut c_void, *const c_void, usize, cudaMemcpyKind) -> cudaError_t,
    cudaGetDevice: unsafe extern "C" fn(*mut c_int) -> cudaError_t,
    cudaRuntimeGetVersion: unsafe extern "C" fn(*mut c_int) -> cudaError_t,
    cudaGetDriverEntryPoint: unsafe extern "C" fn(
        *const c_char,
        *mut *mut c_void,
        c_ulonglong,
        *mut cudaDriverEntryPointQueryResult,
    ) -> cudaError_t,
    cudaGetErrorName: unsafe extern "C" fn(cudaError_t) -> *const c_char,
    cudaGetErrorString: unsafe extern "C" fn(cudaError_t) -> *const c_char,
}

static CUDART: OnceLock<Result<Cudart, String>> = OnceLock::new();

/// Loads `libcudart.so.12` (once; the places are in the module documentation) and resolves the
/// functions of this module; `Err` is one line: what was tried, and how to get the library.
pub fn load() -> Result<(), String> {
    CUDART
        .get_or_init(open)
        .as_ref()
        .map(|_| ())
        .map_err(Clone::clone)
}

/// The loaded functions; exits with [`load`]'s line when there is no library.
fn cudart() -> &'static Cudart {
    match CUDART.get_or_init(open) {
        Ok(cudart) => cudart,
        Err(message) => {
            eprintln!("{message}");
            std::process::exit(1);
        }
    }
}

/// The places of the module documentation, in order: a path to `dlopen` (a bare file name: where
/// the loader looks), and how to name it in the message.
fn candidates() -> Vec<(PathBuf, String)> {
    let mut all = Vec::new();
    if let Some(dir) = std::env::var_os("CUDART_LIBRARY_PATH").map(PathBuf::from) {
        let what = format!("$CUDART_LIBRARY_PATH={}", dir.display());
        all.push((dir.join(LIBRARY), what));
    }
    let loader = "the loader's path (LD_LIBRARY_PATH, ld.so.cache)".to_string();
    all.push((PathBuf::from(LIBRARY), loader));
    let mut dirs = vec![PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/target/ci-deps/cudart/lib"
    ))];
    let roots = ["CUDA_PATH", "CUDA_HOME"]
        .into_iter()
        .filter_map(|var| std::env::var_os(var).map(PathBuf::from))
        .chain([PathBuf::from("/usr/local/cuda")]);
    for root in roots {
        dirs.push(root.join("lib64"));
        dirs.push(root.join("targets/x86_64-linux/lib"));
    }
    all.extend(
        dirs.into_iter()
            .map(|dir| (dir.join(LIBRARY), dir.display().to_string())),
    );
    all
}

/// `dlopen` of the first candidate that loads, and `dlsym` of every function.
fn open() -> Result<Cudart, String> {
    let mut tried = Vec::new();
    for (path, what) in candidates() {
        let Ok(c_path) = CString::new(path.as_os_str().as_encoded_bytes()) else {
            tried.push(format!("{what} (a NUL in the path)"));
            continue;
        };
        // SAFETY: a NUL-terminated path; loading the CUDA runtime runs only its initialisers.
        let handle = unsafe { libc::dlopen(c_path.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
        if !handle.is_null() {
            return resolve(handle, &c_path);
        }
        if path.is_file() {
            // There, but not loadable: say why (dlerror's message of this dlopen).
            // SAFETY: dlerror returns null or a NUL-terminated string.
            let why = unsafe { crate::common::s(libc::dlerror()) };
            tried.push(format!("{what} ({why})"));
        } else {
            tried.push(what);
        }
    }
    Err(format!(
        "runtime_interop needs the CUDA runtime library {LIBRARY} and found none (looked in: {}): \
         run ci/fetch-deps.sh, or set CUDART_LIBRARY_PATH to its folder, or install a CUDA 12 toolkit",
        tried.join("; ")
    ))
}

/// Every function of [`Cudart`] from the library `handle` (loaded from `path`).
fn resolve(handle: *mut c_void, path: &CStr) -> Result<Cudart, String> {
    let symbol = |name: &CStr| {
        // SAFETY: a handle from dlopen, a NUL-terminated name.
        let address = unsafe { libc::dlsym(handle, name.as_ptr()) };
        if address.is_null() {
            Err(format!(
                "{} has no {}: not a CUDA 12 runtime library",
                path.to_string_lossy(),
                name.to_string_lossy()
            ))
        } else {
            Ok(address)
        }
    };
    #[cfg(not(feature = "per-thread-default-stream"))]
    let (memcpy, entry_point) = (c"cudaMemcpy", c"cudaGetDriverEntryPoint");
    #[cfg(feature = "per-thread-default-stream")]
    let (memcpy, entry_point) = (c"cudaMemcpy_ptds", c"cudaGetDriverEntryPoint_ptsz");
    // SAFETY: each symbol is the CUDA 12 runtime's function of that name, whose C prototype
    // (cuda_runtime_api.h) the field's type is.
    unsafe {
        Ok(Cudart {
            cudaMalloc: function(symbol(c"cudaMalloc")?),
            cudaFree: function(symbol(c"cudaFree")?),
            cudaMemcpy: function(symbol(memcpy)?),
            cudaGetDevice: function(symbol(c"cudaGetDevice")?),
            cudaRuntimeGetVersion: function(symbol(c"cudaRuntimeGetVersion")?),
            cudaGetDriverEntryPoint: function(symbol(entry_point)?),
            cudaGetErrorName: function(symbol(c"cudaGetErrorName")?),
            cudaGetErrorString: function(symbol(c"cudaGetErrorString")?),
        })
    }
}

/// A function pointer of type `F` from a non-null address `dlsym` gave.
///
/// # Safety
/// `F` is an `unsafe extern "C" fn` type, the prototype of the function at `address`.
unsafe fn function<F: Copy>(address: *mut c_void) -> F {
    const { assert!(size_of::<F>() == size_of::<*mut c_void>()) };
    // SAFETY: a data pointer from dlsym converts to a function pointer of the same size on the
    // platforms CUDA supports (POSIX requires it of dlsym); the type is the caller's contract.
    unsafe { std::mem::transmute_copy::<*mut c_void, F>(&address) }
}

/// `cudaError_t cudaMalloc(void **devPtr, size_t size)`.
///
/// # Safety
/// As in C: `devPtr` is writable.
pub unsafe fn cudaMalloc(devPtr: *mut *mut c_void, size: usize) -> cudaError_t {
    unsafe { (cudart().cudaMalloc)(devPtr, size) }
}

/// `cudaError_t cudaFree(void *devPtr)`; `cudaFree(0)` initialises the runtime.
///
/// # Safety
/// As in C: `devPtr` is null or an allocation not yet freed.
pub unsafe fn cudaFree(devPtr: *mut c_void) -> cudaError_t {
    unsafe { (cudart().cudaFree)(devPtr) }
}

/// `cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind)`
/// (`cudaMemcpy_ptds` with the feature `per-thread-default-stream`).
///
/// # Safety
/// As in C: `count` bytes are readable at `src` and writable at `dst`, on the sides `kind` says.
pub unsafe fn cudaMemcpy(
    dst: *mut c_void,
    src: *const c_void,
    count: usize,
    kind: cudaMemcpyKind,
) -> cudaError_t {
    unsafe { (cudart().cudaMemcpy)(dst, src, count, kind) }
}

/// `cudaError_t cudaGetDevice(int *device)`.
///
/// # Safety
/// As in C: `device` is writable.
pub unsafe fn cudaGetDevice(device: *mut c_int) -> cudaError_t {
    unsafe { (cudart().cudaGetDevice)(device) }
}

/// `cudaError_t cudaRuntimeGetVersion(int *runtimeVersion)`: 12000 for the 12.0 library.
///
/// # Safety
/// As in C: `runtimeVersion` is writable.
pub unsafe fn cudaRuntimeGetVersion(runtimeVersion: *mut c_int) -> cudaError_t {
    unsafe { (cudart().cudaRuntimeGetVersion)(runtimeVersion) }
}

/// `cudaError_t cudaGetDriverEntryPoint(const char *symbol, void **funcPtr, unsigned long long
/// flags, enum cudaDriverEntryPointQueryResult *driverStatus)`, the CUDA 12 form (CUDA 11's had no
/// `driverStatus`; it may be null). `cudaGetDriverEntryPoint_ptsz` with the feature
/// `per-thread-default-stream`.
///
/// # Safety
/// As in C: `symbol` is a NUL-terminated string, `funcPtr` is writable, `driverStatus` is null or
/// writable.
pub unsafe fn cudaGetDriverEntryPoint(
    symbol: *const c_char,
    funcPtr: *mut *mut c_void,
    flags: c_ulonglong,
    driverStatus: *mut cudaDriverEntryPointQueryResult,
) -> cudaError_t {
    unsafe { (cudart().cudaGetDriverEntryPoint)(symbol, funcPtr, flags, driverStatus) }
}

/// `const char* cudaGetErrorName(cudaError_t error)`: the enumerator's name (a static string, for
/// an unknown code too).
///
/// # Safety
/// None beyond C's: any code is accepted.
pub unsafe fn cudaGetErrorName(error: cudaError_t) -> *const c_char {
    unsafe { (cudart().cudaGetErrorName)(error) }
}

/// `const char* cudaGetErrorString(cudaError_t error)`: the description (a static string).
///
/// # Safety
/// None beyond C's: any code is accepted.
pub unsafe fn cudaGetErrorString(error: cudaError_t) -> *const c_char {
    unsafe { (cudart().cudaGetErrorString)(error) }
}

/// What [`check_runtime!`] does: `true` for `cudaSuccess`; otherwise prints, as the C twin's
/// `__check_cuda_runtime` does, `<file>:<line>  <op> failed. ` and `  code = <cudaGetErrorName>,
/// message = <cudaGetErrorString>`, and returns `false`. `op` is printed on one line, as C's `#op`:
/// the line breaks `stringify!` keeps become spaces, and the trailing comma of a call rustfmt
/// wrote one argument a line is dropped.
pub fn check(code: cudaError_t, op: &str, file: &str, line: u32) -> bool {
    if code == cudaSuccess {
        return true;
    }
    let op = op.lines().map(str::trim).collect::<Vec<_>>().join(" ");
    let op = op.replace(",)", ")");
    // SAFETY: both return a static NUL-terminated string (for an unknown code too).
    let (err_name, err_message) = unsafe {
        (
            crate::common::s(cudaGetErrorName(code)),
            crate::common::s(cudaGetErrorString(code)),
        )
    };
    println!("{file}:{line}  {op} failed. \n  code = {err_name}, message = {err_message}");
    false
}

/// `checkRuntime(op)` of the C twin: the runtime's `check_driver!`. Evaluates a [`cudaError_t`]
/// expression and gives `true` for `cudaSuccess`; otherwise prints the report (file, line, the
/// expression, without an enclosing `unsafe { }`, the error's name and message) and gives `false`.
macro_rules! check_runtime {
    (unsafe { $($inner:tt)* }) => {
        $crate::cudart::check(unsafe { $($inner)* }, stringify!($($inner)*), file!(), line!())
    };
    ($e:expr) => {
        $crate::cudart::check($e, stringify!($e), file!(), line!())
    };
}
pub(crate) use check_runtime;
