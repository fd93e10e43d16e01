//! Raw FFI bindings to the CUDA Driver API: every type, function, enum and constant of `cuda.h`,
//! and every `PFN_*` typedef of `cudaTypedefs.h`. They link directly against `libcuda`. With the
//! `dynamic-loading` feature they load it on first use instead.
//!
//! C code ports line for line:
//!
//! ```no_run
//! use cuda_driver_sys::*;
//!
//! unsafe {
//!     let code = cuInit(0);
//!     if code != CUresult::CUDA_SUCCESS {
//!         let mut err_message = core::ptr::null();
//!         let _ = cuGetErrorString(code, &mut err_message);
//!         return;
//!     }
//!     let mut ctx: CUcontext = core::ptr::null_mut();
//!     // `cuCtxCreate` is the symbol cuda.h's macro selects (`cuCtxCreate_v2` for CUDA 12).
//!     let _ = cuCtxCreate(&mut ctx, CU_CTX_SCHED_AUTO.0, 0);
//! }
//! ```
//!
//! For error checks that print the failing call, as C's `checkDriver` does, see the
//! `cuda-check` crate.
//!
//! # What is here
//! - **Functions** under their real symbols (`cuCtxCreate_v2`, `cuMemcpyHtoD_v2_ptds`) and under
//!   their C spellings (`cuCtxCreate`, `cuMemcpyHtoD`). A C spelling binds exactly the symbol that
//!   the selected header's macro names, so a call reaches what the same C call reaches.
//! - **Enums** as `#[repr(transparent)]` newtypes over the C integer, with associated constants
//!   (`CUresult::CUDA_SUCCESS`). Every enumerator is also at the top level (`CUDA_SUCCESS`).
//!   A value the headers do not know, from a newer driver, is an ordinary value, never undefined
//!   behaviour. [`CUresult`] is `#[must_use]`.
//! - **Macro constants**, the pointer-valued ones too ([`CU_LAUNCH_PARAM_BUFFER_POINTER`],
//!   [`CU_STREAM_PER_THREAD`], [`CU_DEVICE_CPU`]).
//! - **`PFN_*` typedefs**: the versioned ones (`PFN_cuMemAlloc_v3020`, and the legacy
//!   `PFN_cuMemAlloc_v2000` that the header declares only internally), and the unversioned macros
//!   (`PFN_cuMemAlloc`) where the header has them.
//! - **A typed `cuGetProcAddress`**: [`entry`] holds one [`EntryPoint`] per typedef. It returns a
//!   non-null function pointer of exactly that typedef's type, or says why not.
//! - **A driver-entry [`table`][table-module]**: every function, resolved through `cuGetProcAddress` on
//!   first use. One binary starts on every driver and uses what that driver has.
//! - **The [`loader`]**: whether the process has the driver library, where it came from, or why
//!   it could not be loaded.
//!
//! # Features
//! - `cuda-11070`, `cuda-11080`, `cuda-12000` ... `cuda-12060`, `cuda-12080`, `cuda-12090`,
//!   `cuda-13000` ... `cuda-13050`: the CUDA header the bindings come from. There is one per
//!   minor version from 11.7 to 13.5, except 12.7, which has no header package. A build links only
//!   functions of that header, so it runs on drivers of that version or newer. When several are
//!   on, the newest wins. None on means 12.0. With an 11.x feature, [`cuGetProcAddress`] is
//!   CUDA 11.3's, without the status argument (see [`ProcAddressErrorKind`] for what it can tell).
//! - `cuda-version-from-header`: the version of the `cuda.h` the build finds
//!   (`CUDA_INCLUDE_PATH`, or a toolkit root's `include/`). It picks the newest of the versions
//!   above that is not newer than that header's `CUDA_VERSION`, and overrides the version
//!   features. Without a `cuda.h`, the build stops with one line saying what to set.
//! - `per-thread-default-stream`: C's `CUDA_API_PER_THREAD_DEFAULT_STREAM`. The C spellings and
//!   the `PFN_*` macros bind the `_ptds`/`_ptsz` variants. [`cuGetProcAddress`] turns the default
//!   flag into the per-thread one, as the header's inline function does.
//! - `table`: the driver-entry [`table()`]. Off by default, so that a build that does not use it
//!   does not compile it (about a quarter of the crate's compile time). `table-only` turns it on.
//! - `table-only`: link only `cuGetProcAddress_v2` (`cuGetProcAddress` with an 11.x feature),
//!   `cuDriverGetVersion`, `cuGetErrorName` and `cuGetErrorString`. Every other function is
//!   reached through [`table()`]. A binary built with `cuda-13000` then starts on a 12.x driver.
//! - `dynamic-loading`: link nothing. The driver library is opened on first use (`libcuda.so.1`,
//!   then `libcuda.so`; `nvcuda.dll` on Windows), or from the path given to
//!   [`loader::load_from`]. A binary then starts on a machine without the driver, and can fall
//!   back or say why ([`loader::status`]). The functions keep their names and signatures.
//!   Without the library every call returns `CUDA_ERROR_SHARED_OBJECT_INIT_FAILED`; a function
//!   the driver lacks returns `CUDA_ERROR_NOT_FOUND`. The library must be from CUDA 12.0 or newer
//!   (11.3 or newer with an 11.x feature). Combines with every other feature.
//! - `profiler`, `gl`, `egl`, `vdpau`: the other driver-API headers (`cudaProfiler.h`,
//!   `cudaGL.h`, `cudaEGL.h`, `cudaVDPAU.h`, each with its typedef header), as the modules
//!   `profiler`, `gl`, `egl`, `vdpau`, re-exported at the top level. Their functions are
//!   in [`table()`] and follow `dynamic-loading` and `table-only` like `cuda.h`'s. Building or
//!   running needs no OpenGL, EGL or VDPAU library. The Direct3D headers (Windows only) are not
//!   bound.
//! - `compat-0-3`: for crates migrating from cuda-driver-sys 0.3. Each enumerator whose value
//!   differs from the one 0.3 gave the same name (`CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS`
//!   is 93 in 0.3 and 122 from CUDA 12.0 on) is deprecated, with a note naming both values and
//!   what to write for 0.3's meaning. Off, the names compile silently with the new values
//!   (`docs/MIGRATING-CHANGES.md` lists them).
//! - `bindgen`: generate the bindings at build time from the `cuda.h` on this machine
//!   (`CUDA_INCLUDE_PATH`, or a toolkit root's `include/`) instead of using the committed ones.
//!   Needs libclang.
//!
//! # Linking
//! The build script looks for `libcuda` in this order:
//! 1. `CUDA_LIBRARY_PATH`;
//! 2. a toolkit root: `CUDA_PATH`, `CUDA_ROOT`, `CUDA_TOOLKIT_ROOT_DIR`, `CUDA_HOME`;
//! 3. `pkg-config` (`cuda-13.x`, `cuda-12.x`, `cuda-11.x`; through the `pkg-config` crate, which
//!    honours `PKG_CONFIG_PATH`, the sysroot and the cross-compilation variables);
//! 4. the directories of `LD_LIBRARY_PATH`, the system directories, `/usr/local/nvidia/lib64`,
//!    `/usr/lib/wsl/lib`, and a toolkit's `stubs/`.
//!
//! A driver with only `libcuda.so.1` is linked as it is. When nothing is found, the build script
//! warns and goes on, so `cargo check` and `cargo doc` work anywhere. With `dynamic-loading` it
//! links nothing. Dependent `-sys` crates read `DEP_CUDA_LIB_DIR`, `DEP_CUDA_INCLUDE_DIR` (when
//! known) and `DEP_CUDA_VERSION`.
//!
// The table is behind the `table` feature: without it, its links lead to the feature's line.
#![cfg_attr(feature = "table", doc = "[table-module]: mod@crate::table")]
#![cfg_attr(feature = "table", doc = "[`table()`]: crate::table()")]
#![cfg_attr(not(feature = "table"), doc = "[table-module]: crate#features")]
#![cfg_attr(not(feature = "table"), doc = "[`table()`]: crate#features")]
#![no_std]
// docs.rs (nightly, `--cfg docsrs`): feature-gated items say which feature they need. Left out:
// the features that only choose how the same items are reached, whose negations rustdoc would
// badge on every function as "non-crate feature" (`not(feature = "table-only")`: also linked, not
// only in the table; `not(feature = "per-thread-default-stream")`: a C spelling's default-stream
// symbol, which its docs name), and the version cfgs, as each item's docs say its CUDA versions
// in words.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![cfg_attr(
    docsrs,
    doc(auto_cfg(hide(
        feature = "table-only",
        feature = "per-thread-default-stream",
        cuda_ge_11070,
        cuda_ge_11080,
        cuda_ge_12000,
        cuda_ge_12010,
        cuda_ge_12020,
        cuda_ge_12030,
        cuda_ge_12040,
        cuda_ge_12050,
        cuda_ge_12060,
        cuda_ge_12080,
        cuda_ge_12090,
        cuda_ge_13000,
        cuda_ge_13010,
        cuda_ge_13020,
        cuda_ge_13030,
        cuda_ge_13040,
        cuda_ge_13050
    )))
)]
#![deny(missing_docs)]
#![allow(non_camel_case_types, non_snake_case, non_upper_case_globals)]
#![cfg_attr(feature = "compat-0-3", allow(deprecated))]
#![allow(clippy::all)]

// Every item is cuda-driver-sys-items's (compiled while this crate's build script looks for the
// library). rustdoc shows an item re-exported from another crate with its type aliases resolved
// (`*mut u64` for `*mut CUdeviceptr`), so these docs compile the items' own source instead: the
// same file, the same cfgs (this crate's build script sets them from the items crate's).
#[cfg(not(doc))]
pub use cuda_driver_sys_items::*;
#[cfg(doc)]
include!(concat!(env!("CUDA_DRIVER_SYS_ITEMS_SRC"), "/items.rs"));
