//! `cuda.h`'s `static inline` functions, which are no library symbols, written in Rust.

use core::ffi::{c_char, c_int, c_void};

#[cfg(not(cuda_ge_12000))]
use crate::functions::cuGetProcAddress as cuGetProcAddress_v1;
#[cfg(cuda_ge_12000)]
use crate::functions::cuGetProcAddress_v2;
#[cfg(cuda_ge_12000)]
use crate::CUdriverProcAddressQueryResult;
use crate::{
    cuuint64_t, CUresult, CU_GET_PROC_ADDRESS_LEGACY_STREAM,
    CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM,
};

/// What both header inlines do to `flags`: neither stream mode asked for means per-thread.
fn per_thread_unless_asked(mut flags: cuuint64_t) -> cuuint64_t {
    let proc_address_mask = (CU_GET_PROC_ADDRESS_LEGACY_STREAM.0
        | CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM.0)
        as cuuint64_t;
    if flags & proc_address_mask == 0 {
        flags |= CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM.0 as cuuint64_t;
    }
    flags
}

/// `cuGetProcAddress` as a program built with `CUDA_API_PER_THREAD_DEFAULT_STREAM` sees it: when
/// `flags` asks for neither stream mode, it asks for the per-thread one, then calls
/// the driver's `cuGetProcAddress_v2`. The C spelling `cuGetProcAddress` is this function under
/// the `per-thread-default-stream` feature (and so is the crate's `cuGetProcAddress_v2`, as C's
/// macro makes it).
///
/// Built with an 11.x feature, the headers have no `cuGetProcAddress_v2`, and this function is
/// `cuGetProcAddress_ptsz` instead.
///
/// ```no_run
/// use cuda_driver_sys::{inline::cuGetProcAddress_v2_ptsz, CUdriverProcAddressQueryResult};
/// let (mut f, mut status) = (core::ptr::null_mut(), CUdriverProcAddressQueryResult(0));
/// let code = unsafe { cuGetProcAddress_v2_ptsz(c"cuMemcpyHtoD".as_ptr(), &mut f, 7000, 0, &mut status) };
/// # let _ = code;
/// ```
///
/// # Safety
/// As for the driver's `cuGetProcAddress_v2`: `symbol` NUL-terminated, the out-pointers valid
/// for writes.
#[cfg(cuda_ge_12000)]
pub unsafe extern "C" fn cuGetProcAddress_v2_ptsz(
    symbol: *const c_char,
    funcPtr: *mut *mut c_void,
    driverVersion: c_int,
    flags: cuuint64_t,
    symbolStatus: *mut CUdriverProcAddressQueryResult,
) -> CUresult {
    let flags = per_thread_unless_asked(flags);
    cuGetProcAddress_v2(symbol, funcPtr, driverVersion, flags, symbolStatus)
}

/// CUDA 11's `cuGetProcAddress` (no status argument) as a program built with
/// `CUDA_API_PER_THREAD_DEFAULT_STREAM` sees it: when `flags` asks for neither stream mode, it
/// asks for the per-thread one. The C spelling `cuGetProcAddress` is this function under an 11.x
/// feature and `per-thread-default-stream`.
///
/// # Safety
/// As for `cuGetProcAddress`: `symbol` NUL-terminated, `funcPtr` valid for writes.
#[cfg(not(cuda_ge_12000))]
pub unsafe extern "C" fn cuGetProcAddress_ptsz(
    symbol: *const c_char,
    funcPtr: *mut *mut c_void,
    driverVersion: c_int,
    flags: cuuint64_t,
) -> CUresult {
    let flags = per_thread_unless_asked(flags);
    cuGetProcAddress_v1(symbol, funcPtr, driverVersion, flags)
}
