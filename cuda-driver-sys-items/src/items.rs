// The items, in a file of their own: this crate compiles them, and cuda-driver-sys includes the
// same file when rustdoc documents it (`cfg(doc)`), so that its pages show the items as written
// (rustdoc shows an item re-exported from another crate with its type aliases resolved).

// The generated files (see `cargo xtask regenerate`): the committed ones, where each item of every
// header version carries the cfg of the versions it exists in (`cuda_ge_<V>`, set by the build
// script for every version up to the selected one), or with the `bindgen` feature those the build
// script wrote from the local headers into OUT_DIR. The build script names the folder
// (`CUDA_DRIVER_SYS_GENERATED`, an absolute path: the interop modules' roots, in generated/, use
// this macro too). This is the one macro the crate keeps: `#[path]` cannot name a folder given at
// build time (it takes no `env!`), only `include!` can. Everything else is a plain `mod`/`pub use`.
macro_rules! generated {
    ($file:literal) => {
        include!(concat!(env!("CUDA_DRIVER_SYS_GENERATED"), "/", $file));
    };
}

/// bindgen's translation of `cuda.h` and `cudaTypedefs.h` (types, constants, `PFN_*`),
/// re-exported at the crate root. bindgen derives `PartialEq` for structs holding callbacks.
#[allow(unknown_lints, unpredictable_function_pointer_comparisons)]
mod bindings {
    generated!("bindings.rs");
}
pub use bindings::*;

/// The functions, under their real symbols: linked (`functions.rs`), or under `dynamic-loading`
/// calling through pointers resolved on first use (`dynamic.rs`). Under
/// `per-thread-default-stream` the C spellings shadow some legacy-stream symbols (as the header's
/// macros do in C), which are then unused; under `table-only` all but four are unused, and so
/// never linked.
#[allow(dead_code)]
pub(crate) mod functions {
    use crate::bindings::*;
    #[cfg(not(feature = "dynamic-loading"))]
    generated!("functions.rs");
    #[cfg(feature = "dynamic-loading")]
    generated!("dynamic.rs");
}
#[cfg(not(feature = "table-only"))]
pub use self::functions::*;
// The C spellings of functions. Explicit re-exports shadow the glob above where a C spelling
// takes over a legacy symbol's name (`cuStreamQuery` under `per-thread-default-stream`).
#[cfg(not(feature = "table-only"))]
generated!("function_names.rs");
#[cfg(feature = "table-only")]
pub use self::functions::{cuDriverGetVersion, cuGetErrorName, cuGetErrorString};
// CUDA 12+ headers: `cuGetProcAddress` is `cuGetProcAddress_v2` (with the symbol status).
#[cfg(all(feature = "table-only", cuda_ge_12000))]
pub use self::functions::cuGetProcAddress_v2;
#[cfg(all(
    feature = "table-only",
    cuda_ge_12000,
    not(feature = "per-thread-default-stream")
))]
pub use self::functions::cuGetProcAddress_v2 as cuGetProcAddress;
#[cfg(all(
    feature = "table-only",
    cuda_ge_12000,
    feature = "per-thread-default-stream"
))]
pub use self::inline::cuGetProcAddress_v2_ptsz as cuGetProcAddress;
// CUDA 11 headers: `cuGetProcAddress` (v1, CUDA 11.3+), without the status argument.
#[cfg(all(
    feature = "table-only",
    not(cuda_ge_12000),
    not(feature = "per-thread-default-stream")
))]
pub use self::functions::cuGetProcAddress;
#[cfg(all(
    feature = "table-only",
    not(cuda_ge_12000),
    feature = "per-thread-default-stream"
))]
pub use self::inline::cuGetProcAddress_ptsz as cuGetProcAddress;

// The unversioned `PFN_*` macros, every enumerator at top level, and the macro constants
// bindgen cannot translate.
generated!("names.rs");

/// One typed [`EntryPoint`] per `PFN_*` typedef, named like the typedef without `PFN_`
/// (`entry::cuMemAlloc_v3020`), and one per C spelling (`entry::cuMemAlloc`) at the version whose
/// ABI the linked function has.
///
/// ```no_run
/// use cuda_driver_sys::entry;
///
/// // A `unsafe extern "C" fn(*mut CUdeviceptr, usize) -> CUresult`, never null.
/// let mem_alloc = entry::cuMemAlloc_v3020.get().expect("cuMemAlloc in this driver");
/// # let _ = mem_alloc;
/// ```
pub mod entry {
    generated!("entry.rs");
}

// One module per other driver-API header and its typedef header, built like the crate root from
// `cuda.h` (its root, `generated/<module>.rs`, is written by the generator): types, functions
// under their real symbols and C spellings, `PFN_*` typedefs and macros, enumerators, typed entry
// points (`gl::entry::cuGraphicsGLRegisterBuffer`), and the header's part of the driver-entry
// table; under `dynamic-loading` and `table-only` as well. Each is re-exported at the top level.

/// `cudaProfiler.h` and `cudaProfilerTypedefs.h` (feature `profiler`): `cuProfilerStart` and
/// `cuProfilerStop` delimit the capture range of Nsight Systems (`nsys profile
/// --capture-range=cudaProfilerApi`) and Nsight Compute (`ncu --profile-from-start off`).
///
/// ```no_run
/// use cuda_driver_sys::*;
///
/// unsafe {
///     let _ = cuProfilerStart();
///     // ... the work to profile ...
///     let _ = cuProfilerStop();
/// }
/// ```
#[cfg(feature = "profiler")]
#[path = "generated/profiler.rs"]
pub mod profiler;
#[cfg(feature = "profiler")]
pub use profiler::*;

/// `cudaGL.h` and `cudaGLTypedefs.h` (feature `gl`): OpenGL interop. `GLuint` and `GLenum` are
/// bound from `GL/gl.h`; no OpenGL library is needed to build or link. On Windows
/// (`cfg(windows)`) also `cuWGLGetDevice` and its `HGPUNV`, which `cudaGL.h` declares only there.
///
/// ```no_run
/// use cuda_driver_sys::*;
///
/// # let buffer: GLuint = 1; // a buffer object of the current OpenGL context
/// unsafe {
///     let mut resource: CUgraphicsResource = core::ptr::null_mut();
///     let _ = cuGraphicsGLRegisterBuffer(&mut resource, buffer, 0);
/// }
/// ```
#[cfg(feature = "gl")]
#[path = "generated/gl.rs"]
pub mod gl;
#[cfg(feature = "gl")]
pub use gl::*;

/// `cudaEGL.h` and `cudaEGLTypedefs.h` (feature `egl`): EGL image, stream and sync interop.
/// `EGLImageKHR`, `EGLStreamKHR`, `EGLSyncKHR` and the other EGL types are bound from `EGL/egl.h`
/// and `EGL/eglext.h` (with `EGL_NO_X11`: the native types without Xlib, the same sizes); no EGL
/// library is needed to build or link.
#[cfg(feature = "egl")]
#[path = "generated/egl.rs"]
pub mod egl;
#[cfg(feature = "egl")]
pub use egl::*;

/// `cudaVDPAU.h` and `cudaVDPAUTypedefs.h` (feature `vdpau`): VDPAU interop. `VdpDevice`,
/// `VdpGetProcAddress`, the surface handles and `VdpStatus` are bound from `vdpau/vdpau.h`; no
/// VDPAU library is needed to build or link.
#[cfg(feature = "vdpau")]
#[path = "generated/vdpau.rs"]
pub mod vdpau;
#[cfg(feature = "vdpau")]
pub use vdpau::*;

pub mod inline;
pub mod loader;
// The loader's state machine and the slots, and the atomics they use: the code the model check
// (tests/loom.rs) runs under loom.
#[cfg(feature = "dynamic-loading")]
mod loading;
#[cfg(any(feature = "table", feature = "dynamic-loading"))]
mod slot;
mod sync;
mod proc_address;
pub use proc_address::{EntryPoint, EntryPointInfo, ProcAddressError, ProcAddressErrorKind};
#[cfg(feature = "table")]
pub mod table;
#[cfg(feature = "table")]
pub use self::table::{table, DriverTable, StreamMode, TableEntry};
