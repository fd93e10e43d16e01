// Ports 001_690d02e65a5330ea.txt, L.5 (Driver Entry Point Access): L.5.2 the versioned PFN_*
// typedefs of cudaTypedefs.h (PFN_cuMemAlloc_v3020/_v2000) and the unversioned latest one;
// L.5.3.1 cuGetProcAddress with a CUDA version (cuStreamBeginCapture 10000 and 10010, CUDA_VERSION
// for the latest, a version below 10000 for which there is none); L.5.3.3 the per-thread
// default-stream variant of cuLaunchKernel (CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM /
// _LEGACY_STREAM); L.5.3.4 a function looked up with the running driver's version
// (cuDriverGetVersion) through a prototype declared by hand, with the post's message when the
// symbol is missing. C twin: proc_address.cpp.
// L.5.3.2 (cudaGetDriverEntryPoint) needs the CUDA runtime library: it is ported in
// runtime_interop.rs, with the runtime's flags compared as the driver's are here.
// The post's calls use the CUDA 11.3 cuGetProcAddress with four arguments; from CUDA 12.0 on,
// cuda.h maps cuGetProcAddress to cuGetProcAddress_v2, which adds the CUdriverProcAddressQueryResult
// *symbolStatus argument and returns CUDA_SUCCESS for a missing symbol or an insufficient version,
// telling which in symbolStatus. The calls below pass it, and each result is printed.
// Completed: cuInit and a context (cuMemAlloc is called through the pointer it got), the printing
// of every lookup, and the checks of what the appendix says should happen (Result line).
// CUDA 13.0 headers (feature cuda-13000), each marked below: cuCtxCreate becomes cuCtxCreate_v4
// (4 arguments), and cudaTypedefs.h no longer defines the unversioned PFN_cuMemAlloc,
// PFN_cuStreamBeginCapture, PFN_cuLaunchKernel, so they are declared here as the versioned
// typedefs the 12.x macros named.
//
// The raw calls below are the post's. cuda-driver-sys also has a typed cuGetProcAddress, which
// gives a non-null function of exactly the typedef's type, or says why there is none:
//     let pfn_cuMemAlloc_v2 = cuda_driver_sys::entry::cuMemAlloc_v3020.get()?;
// (`entry::cuMemAlloc_v2000`, `entry::cuStreamBeginCapture_v10010`, `entry::cuLaunchKernel_v7000_ptsz`
// and so on; `EntryPointInfo::lookup` for the untyped pointer).
#![allow(non_snake_case, non_camel_case_types)] // the post's names: pfn_cuMemAlloc_v2, PFN_cuFoo, ...

#[path = "common/mod.rs"]
mod common;

use std::ffi::{c_char, c_int, c_ulonglong, c_void};
use std::process::exit;
use std::ptr;

use common::{p, pfn_ptr, s};
use cuda_check::check_driver;
use cuda_driver_sys::*;

// The post's older typedefs PFN_cuMemAlloc_v2000 and PFN_cuStreamBeginCapture_v10000 are only
// declared inside #if defined(__CUDA_API_VERSION_INTERNAL) in the CUDA 12 cudaTypedefs.h, and the
// C twin declares them by hand; cuda-driver-sys has them (CUdeviceptr_v1, internal too, is u32).

// completion: prints what one cuGetProcAddress call gave
unsafe fn printLookup(
    what: &str,
    code: CUresult,
    symbolStatus: CUdriverProcAddressQueryResult,
    pfn: *mut c_void,
) {
    unsafe {
        let mut err_name: *const c_char = ptr::null();
        let _ = cuGetErrorName(code, &mut err_name);
        let mut status = "?";
        match symbolStatus {
            CU_GET_PROC_ADDRESS_SUCCESS => status = "CU_GET_PROC_ADDRESS_SUCCESS",
            CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND => status = "CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND",
            CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT => {
                status = "CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT"
            }
            _ => {}
        }
        println!("{}: {}, {}, pfn = {}", what, s(err_name), status, p(pfn));
    }
}

// CUDA 13: cudaTypedefs.h has no unversioned PFN_cuX; the versioned typedefs the 12.x macros named.
#[cfg(feature = "cuda-13000")]
type PFN_cuMemAlloc = PFN_cuMemAlloc_v3020;
#[cfg(all(feature = "cuda-13000", not(feature = "per-thread-default-stream")))]
type PFN_cuStreamBeginCapture = PFN_cuStreamBeginCapture_v10010;
#[cfg(all(feature = "cuda-13000", feature = "per-thread-default-stream"))]
type PFN_cuStreamBeginCapture = PFN_cuStreamBeginCapture_v10010_ptsz;
#[cfg(all(feature = "cuda-13000", not(feature = "per-thread-default-stream")))]
type PFN_cuLaunchKernel = PFN_cuLaunchKernel_v4000;
#[cfg(all(feature = "cuda-13000", feature = "per-thread-default-stream"))]
type PFN_cuLaunchKernel = PFN_cuLaunchKernel_v7000_ptsz;

fn main() {
    unsafe {
        // completion: initialisation and a context, for the calls through the pointers
        check_driver!(cuInit(0));
        let mut context: CUcontext = ptr::null_mut();
        let device: CUdevice = 0;
        #[cfg(not(feature = "cuda-13000"))]
        check_driver!(cuCtxCreate(&mut context, 0, device));
        #[cfg(feature = "cuda-13000")] // CUDA 13: cuCtxCreate_v4, with a CUctxCreateParams* (NULL: none)
        check_driver!(cuCtxCreate(&mut context, ptr::null_mut(), 0, device));
        let mut code: CUresult;
        let mut symbolStatus: CUdriverProcAddressQueryResult;
        let mut pass = true;

        // L.5.2 Driver Function Typedefs
        let mut pfn_cuMemAlloc_v2: PFN_cuMemAlloc_v3020 = None;
        let mut pfn_cuMemAlloc_v1: PFN_cuMemAlloc_v2000 = None;
        let mut pfn_cuMemAlloc: PFN_cuMemAlloc = None; // the latest version this toolkit knows (_v3020)
        symbolStatus = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
        code = cuGetProcAddress(
            c"cuMemAlloc".as_ptr(),
            &mut pfn_cuMemAlloc_v2 as *mut _ as *mut *mut c_void,
            3020,
            CU_GET_PROC_ADDRESS_DEFAULT.0 as cuuint64_t,
            &mut symbolStatus,
        );
        printLookup(
            "cuMemAlloc, 3020",
            code,
            symbolStatus,
            pfn_ptr(pfn_cuMemAlloc_v2),
        );
        symbolStatus = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
        code = cuGetProcAddress(
            c"cuMemAlloc".as_ptr(),
            &mut pfn_cuMemAlloc_v1 as *mut _ as *mut *mut c_void,
            2000,
            CU_GET_PROC_ADDRESS_DEFAULT.0 as cuuint64_t,
            &mut symbolStatus,
        );
        printLookup(
            "cuMemAlloc, 2000",
            code,
            symbolStatus,
            pfn_ptr(pfn_cuMemAlloc_v1),
        );
        symbolStatus = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
        code = cuGetProcAddress(
            c"cuMemAlloc".as_ptr(),
            &mut pfn_cuMemAlloc as *mut _ as *mut *mut c_void,
            CUDA_VERSION as c_int,
            CU_GET_PROC_ADDRESS_DEFAULT.0 as cuuint64_t,
            &mut symbolStatus,
        );
        printLookup(
            "cuMemAlloc, CUDA_VERSION",
            code,
            symbolStatus,
            pfn_ptr(pfn_cuMemAlloc),
        );
        println!(
            "pfn_cuMemAlloc_v1 {} pfn_cuMemAlloc_v2",
            if pfn_ptr(pfn_cuMemAlloc_v1) == pfn_ptr(pfn_cuMemAlloc_v2) {
                "=="
            } else {
                "!="
            }
        );
        println!(
            "pfn_cuMemAlloc {} pfn_cuMemAlloc_v2",
            if pfn_ptr(pfn_cuMemAlloc) == pfn_ptr(pfn_cuMemAlloc_v2) {
                "=="
            } else {
                "!="
            }
        );
        pass = pass
            && pfn_cuMemAlloc_v2.is_some()
            && pfn_ptr(pfn_cuMemAlloc) == pfn_ptr(pfn_cuMemAlloc_v2);
        // completion: call the latest cuMemAlloc through its pointer
        let mut dptr: CUdeviceptr = 0;
        if let Some(pfn_cuMemAlloc) = pfn_cuMemAlloc {
            check_driver!(pfn_cuMemAlloc(&mut dptr, 100));
        }
        println!("dptr = {}", p(dptr as *const c_void));
        pass = pass && dptr != 0;
        check_driver!(cuMemFree(dptr));

        // L.5.3.1 Using the driver API
        // Declare the entry points for cuStreamBeginCapture
        let mut pfn_cuStreamBeginCapture_v1: PFN_cuStreamBeginCapture_v10000 = None;
        let mut pfn_cuStreamBeginCapture_v2: PFN_cuStreamBeginCapture_v10010 = None;

        // Get the function pointer to the cuStreamBeginCapture driver symbol
        symbolStatus = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
        code = cuGetProcAddress(
            c"cuStreamBeginCapture".as_ptr(),
            &mut pfn_cuStreamBeginCapture_v1 as *mut _ as *mut *mut c_void,
            10000,
            CU_GET_PROC_ADDRESS_DEFAULT.0 as cuuint64_t,
            &mut symbolStatus,
        );
        printLookup(
            "cuStreamBeginCapture, 10000",
            code,
            symbolStatus,
            pfn_ptr(pfn_cuStreamBeginCapture_v1),
        );
        // Get the function pointer to the cuStreamBeginCapture_v2 driver symbol
        symbolStatus = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
        code = cuGetProcAddress(
            c"cuStreamBeginCapture".as_ptr(),
            &mut pfn_cuStreamBeginCapture_v2 as *mut _ as *mut *mut c_void,
            10010,
            CU_GET_PROC_ADDRESS_DEFAULT.0 as cuuint64_t,
            &mut symbolStatus,
        );
        printLookup(
            "cuStreamBeginCapture, 10010",
            code,
            symbolStatus,
            pfn_ptr(pfn_cuStreamBeginCapture_v2),
        );

        // Declare the entry point
        let mut pfn_cuStreamBeginCapture_latest: PFN_cuStreamBeginCapture = None;
        // Initialize the entry point. Specifying CUDA_VERSION gives the latest version this toolkit knows
        symbolStatus = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
        code = cuGetProcAddress(
            c"cuStreamBeginCapture".as_ptr(),
            &mut pfn_cuStreamBeginCapture_latest as *mut _ as *mut *mut c_void,
            CUDA_VERSION as c_int,
            CU_GET_PROC_ADDRESS_DEFAULT.0 as cuuint64_t,
            &mut symbolStatus,
        );
        printLookup(
            "cuStreamBeginCapture, CUDA_VERSION",
            code,
            symbolStatus,
            pfn_ptr(pfn_cuStreamBeginCapture_latest),
        );
        println!(
            "pfn_cuStreamBeginCapture_v1 {} pfn_cuStreamBeginCapture_v2",
            if pfn_ptr(pfn_cuStreamBeginCapture_v1) == pfn_ptr(pfn_cuStreamBeginCapture_v2) {
                "=="
            } else {
                "!="
            }
        );
        println!(
            "pfn_cuStreamBeginCapture_latest {} pfn_cuStreamBeginCapture_v2",
            if pfn_ptr(pfn_cuStreamBeginCapture_latest) == pfn_ptr(pfn_cuStreamBeginCapture_v2) {
                "=="
            } else {
                "!="
            }
        );
        pass = pass
            && pfn_cuStreamBeginCapture_v1.is_some()
            && pfn_cuStreamBeginCapture_v2.is_some()
            && pfn_ptr(pfn_cuStreamBeginCapture_v1) != pfn_ptr(pfn_cuStreamBeginCapture_v2)
            && pfn_ptr(pfn_cuStreamBeginCapture_latest) == pfn_ptr(pfn_cuStreamBeginCapture_v2);
        // a version older than 10000 (CUDA 10.0) has no cuStreamBeginCapture
        let mut pfn_cuStreamBeginCapture_invalid: PFN_cuStreamBeginCapture_v10000 = None;
        symbolStatus = CU_GET_PROC_ADDRESS_SUCCESS;
        code = cuGetProcAddress(
            c"cuStreamBeginCapture".as_ptr(),
            &mut pfn_cuStreamBeginCapture_invalid as *mut _ as *mut *mut c_void,
            9020,
            CU_GET_PROC_ADDRESS_DEFAULT.0 as cuuint64_t,
            &mut symbolStatus,
        );
        printLookup(
            "cuStreamBeginCapture, 9020",
            code,
            symbolStatus,
            pfn_ptr(pfn_cuStreamBeginCapture_invalid),
        );
        pass = pass
            && pfn_cuStreamBeginCapture_invalid.is_none()
            && symbolStatus == CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT;

        // L.5.3.3 Retrieve per-thread default stream versions
        let mut pfn_cuLaunchKernel_legacy: PFN_cuLaunchKernel_v4000 = None;
        let mut pfn_cuLaunchKernel_ptsz: PFN_cuLaunchKernel_v7000_ptsz = None;
        let mut pfn_cuLaunchKernel_default: PFN_cuLaunchKernel = None;
        symbolStatus = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
        code = cuGetProcAddress(
            c"cuLaunchKernel".as_ptr(),
            &mut pfn_cuLaunchKernel_legacy as *mut _ as *mut *mut c_void,
            CUDA_VERSION as c_int,
            CU_GET_PROC_ADDRESS_LEGACY_STREAM.0 as cuuint64_t,
            &mut symbolStatus,
        );
        printLookup(
            "cuLaunchKernel, CU_GET_PROC_ADDRESS_LEGACY_STREAM",
            code,
            symbolStatus,
            pfn_ptr(pfn_cuLaunchKernel_legacy),
        );
        symbolStatus = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
        code = cuGetProcAddress(
            c"cuLaunchKernel".as_ptr(),
            &mut pfn_cuLaunchKernel_ptsz as *mut _ as *mut *mut c_void,
            CUDA_VERSION as c_int,
            CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM.0 as cuuint64_t,
            &mut symbolStatus,
        );
        printLookup(
            "cuLaunchKernel, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM",
            code,
            symbolStatus,
            pfn_ptr(pfn_cuLaunchKernel_ptsz),
        );
        symbolStatus = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
        code = cuGetProcAddress(
            c"cuLaunchKernel".as_ptr(),
            &mut pfn_cuLaunchKernel_default as *mut _ as *mut *mut c_void,
            CUDA_VERSION as c_int,
            CU_GET_PROC_ADDRESS_DEFAULT.0 as cuuint64_t,
            &mut symbolStatus,
        );
        printLookup(
            "cuLaunchKernel, CU_GET_PROC_ADDRESS_DEFAULT",
            code,
            symbolStatus,
            pfn_ptr(pfn_cuLaunchKernel_default),
        );
        println!(
            "per-thread default stream version {} legacy stream version",
            if pfn_ptr(pfn_cuLaunchKernel_ptsz) == pfn_ptr(pfn_cuLaunchKernel_legacy) {
                "=="
            } else {
                "!="
            }
        );
        // the default is the legacy stream version, or the per-thread one when built with the feature
        // per-thread-default-stream (C's CUDA_API_PER_THREAD_DEFAULT_STREAM: then cuGetProcAddress adds
        // the flag to every call)
        println!(
            "default version {} legacy stream version",
            if pfn_ptr(pfn_cuLaunchKernel_default) == pfn_ptr(pfn_cuLaunchKernel_legacy) {
                "=="
            } else {
                "!="
            }
        );
        println!(
            "default version {} per-thread default stream version",
            if pfn_ptr(pfn_cuLaunchKernel_default) == pfn_ptr(pfn_cuLaunchKernel_ptsz) {
                "=="
            } else {
                "!="
            }
        );
        pass = pass
            && pfn_cuLaunchKernel_legacy.is_some()
            && pfn_cuLaunchKernel_ptsz.is_some()
            && pfn_ptr(pfn_cuLaunchKernel_ptsz) != pfn_ptr(pfn_cuLaunchKernel_legacy)
            && (pfn_ptr(pfn_cuLaunchKernel_default) == pfn_ptr(pfn_cuLaunchKernel_legacy)
                || pfn_ptr(pfn_cuLaunchKernel_default) == pfn_ptr(pfn_cuLaunchKernel_ptsz));

        // L.5.3.4 Access new CUDA features
        {
            // Manually define the prototype as cudaTypedefs.h in CUDA 11.3 does not have the cuFoo typedef
            type PFN_cuFoo = Option<unsafe extern "C" fn(...) -> CUresult>;
            let mut pfn_cuFoo: PFN_cuFoo = None;

            // Get the address for cuFoo API using cuGetProcAddress with the running driver's version
            let mut driverVersion: c_int = 0;
            let _ = cuDriverGetVersion(&mut driverVersion);
            symbolStatus = CU_GET_PROC_ADDRESS_SUCCESS;
            code = cuGetProcAddress(
                c"cuFoo".as_ptr(),
                &mut pfn_cuFoo as *mut _ as *mut *mut c_void,
                driverVersion,
                CU_GET_PROC_ADDRESS_DEFAULT.0 as cuuint64_t,
                &mut symbolStatus,
            );
            printLookup(
                "cuFoo, driverVersion",
                code,
                symbolStatus,
                pfn_ptr(pfn_cuFoo),
            );

            if let Some(pfn_cuFoo) = pfn_cuFoo {
                let _ = pfn_cuFoo();
            } else {
                println!("Cannot retrieve the address to cuFoo. Check if the latest driver for CUDA 12.0 is installed.");
                // guard: the post's assert(0) here would abort; cuFoo is the post's made-up name and no driver has it
            }
            pass =
                pass && pfn_cuFoo.is_none() && symbolStatus == CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;

            // completion: the same with a function that exists, from CUDA 12.0 on: cuCtxGetId
            type PFN_cuCtxGetId_byHand =
                Option<unsafe extern "C" fn(ctx: CUcontext, ctxId: *mut c_ulonglong) -> CUresult>;
            let mut pfn_cuCtxGetId: PFN_cuCtxGetId_byHand = None;
            symbolStatus = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
            code = cuGetProcAddress(
                c"cuCtxGetId".as_ptr(),
                &mut pfn_cuCtxGetId as *mut _ as *mut *mut c_void,
                driverVersion,
                CU_GET_PROC_ADDRESS_DEFAULT.0 as cuuint64_t,
                &mut symbolStatus,
            );
            printLookup(
                "cuCtxGetId, driverVersion",
                code,
                symbolStatus,
                pfn_ptr(pfn_cuCtxGetId),
            );
            if let Some(pfn_cuCtxGetId) = pfn_cuCtxGetId {
                let mut ctxId: c_ulonglong = 0;
                check_driver!(pfn_cuCtxGetId(context, &mut ctxId));
                println!(
                    "cuCtxGetId: the context's id is {}",
                    if ctxId != 0 { "non-zero" } else { "0" }
                );
            } else {
                println!("Cannot retrieve the address to cuCtxGetId. Check if the latest driver for CUDA 12.0 is installed.");
            }
            pass = pass && pfn_cuCtxGetId.is_some();
        }

        println!("Result = {}", if pass { "PASS" } else { "FAIL" });
        check_driver!(cuCtxDestroy(context));
        exit(if pass { 0 } else { 1 });
    }
}
