//! The CUDA runtime API (`cuda_runtime_api.h`, `driver_types.h`; the library `libcudart.so.12`)
//! as far as `runtime_interop` uses it, declared by hand from the CUDA 12.0 headers, the version of
//! the runtime library it is linked with (the pinned wheel `nvidia-cuda-runtime-cu12==12.0.146`
//! that `ci/fetch-deps.sh` fetches, or a CUDA 12 toolkit). Deliberately not in `cuda-driver-sys`,
//! whose scope is the driver API, and included only by the examples that use the runtime
//! (`#[path = "common/cudart.rs"] mod cudart;`, beside `common`, whose `s` it prints with), so no
//! other example links `libcudart`.
//!
//! Linked against `libcudart.so.12` by that exact name (the wheel has no `libcudart.so` link),
//! from the folder the root package's build script (`build.rs`) found: `CUDART_LIBRARY_PATH`,
//! `target/ci-deps/cudart/lib`, or a toolkit (`CUDA_PATH`, `CUDA_HOME`, `/usr/local/cuda`).
//!
//! C enums are `#[repr(transparent)]` newtypes over the C integer, as in `cuda-driver-sys`, so a
//! value the 12.0 headers do not know, from a newer runtime, is an ordinary value.
//! With the feature `per-thread-default-stream` (C's `CUDA_API_PER_THREAD_DEFAULT_STREAM`) the
//! functions bind the symbols `cuda_runtime_api.h` then selects: `cudaMemcpy_ptds`,
//! `cudaGetDriverEntryPoint_ptsz`.
#![allow(non_camel_case_types, non_upper_case_globals, non_snake_case)] // the C names

#[cfg(not(has_cudart))]
compile_error!("runtime_interop needs the CUDA runtime library libcudart.so.12: run ci/fetch-deps.sh, or set CUDART_LIBRARY_PATH to its folder, or install a CUDA 12 toolkit (CUDA_PATH)");

use std::ffi::{c_char, c_int, c_uint, c_ulonglong, c_void};

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

#[link(name = "libcudart.so.12", kind = "dylib", modifiers = "+verbatim")]
extern "C" {
    /// `cudaError_t cudaMalloc(void **devPtr, size_t size)`.
    pub fn cudaMalloc(devPtr: *mut *mut c_void, size: usize) -> cudaError_t;
    /// `cudaError_t cudaFree(void *devPtr)`; `cudaFree(0)` initialises the runtime.
    pub fn cudaFree(devPtr: *mut c_void) -> cudaError_t;
    /// `cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind)`.
    #[cfg_attr(feature = "per-thread-default-stream", link_name = "cudaMemcpy_ptds")]
    pub fn cudaMemcpy(
        dst: *mut c_void,
        src: *const c_void,
        count: usize,
        kind: cudaMemcpyKind,
    ) -> cudaError_t;
    /// `cudaError_t cudaGetDevice(int *device)`.
    pub fn cudaGetDevice(device: *mut c_int) -> cudaError_t;
    /// `cudaError_t cudaRuntimeGetVersion(int *runtimeVersion)`: 12000 for this library.
    pub fn cudaRuntimeGetVersion(runtimeVersion: *mut c_int) -> cudaError_t;
    /// `cudaError_t cudaGetDriverEntryPoint(const char *symbol, void **funcPtr, unsigned long long
    /// flags, enum cudaDriverEntryPointQueryResult *driverStatus)`, the CUDA 12 form (CUDA 11's
    /// had no `driverStatus`; it may be null).
    #[cfg_attr(
        feature = "per-thread-default-stream",
        link_name = "cudaGetDriverEntryPoint_ptsz"
    )]
    pub fn cudaGetDriverEntryPoint(
        symbol: *const c_char,
        funcPtr: *mut *mut c_void,
        flags: c_ulonglong,
        driverStatus: *mut cudaDriverEntryPointQueryResult,
    ) -> cudaError_t;
    /// `const char* cudaGetErrorName(cudaError_t error)`: the enumerator's name.
    pub fn cudaGetErrorName(error: cudaError_t) -> *const c_char;
    /// `const char* cudaGetErrorString(cudaError_t error)`: the description.
    pub fn cudaGetErrorString(error: cudaError_t) -> *const c_char;
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
