// Ports 000_c1fa1a8379f4e9c9.txt, section 1.3 (CUcontext), the same program as
// 003_0fb4f74d196ab567.txt section 4: two contexts on the per-thread context stack (cuCtxCreate,
// cuCtxGetCurrent, cuCtxPushCurrent, cuCtxPopCurrent, cuCtxDestroy), then the primary context
// (cuDevicePrimaryCtxRetain / cuDevicePrimaryCtxRelease). C twin: context_stack.cpp.
// CUDA 13.0 headers (marked below): cuCtxCreate becomes cuCtxCreate_v4, which takes a
// CUctxCreateParams* (NULL: none) before the flags.
#![allow(non_snake_case)] // the post's names: ctxA, ctxB

#[path = "common/mod.rs"]
mod common;

use std::ptr;

use common::p;
use cuda_check::check_driver;
// CUDA driver API (cuda.h)
use cuda_driver_sys::*;

fn main() {
    unsafe {
        // check the driver's initialisation
        check_driver!(cuInit(0));
        // create contexts for the device
        let mut ctxA: CUcontext = ptr::null_mut(); // CUcontext is *mut CUctx_st
        let mut ctxB: CUcontext = ptr::null_mut();
        let device: CUdevice = 0;
        #[cfg(not(feature = "cuda-13000"))]
        check_driver!(cuCtxCreate(&mut ctxA, CU_CTX_SCHED_AUTO.0, device)); // creates ctxA on the device and pushes it
        #[cfg(feature = "cuda-13000")] // CUDA 13: cuCtxCreate_v4, with a CUctxCreateParams* (NULL: none)
        check_driver!(cuCtxCreate(
            &mut ctxA,
            ptr::null_mut(),
            CU_CTX_SCHED_AUTO.0,
            device
        ));
        #[cfg(not(feature = "cuda-13000"))]
        check_driver!(cuCtxCreate(&mut ctxB, CU_CTX_SCHED_AUTO.0, device));
        #[cfg(feature = "cuda-13000")] // CUDA 13: cuCtxCreate_v4, with a CUctxCreateParams* (NULL: none)
        check_driver!(cuCtxCreate(
            &mut ctxB,
            ptr::null_mut(),
            CU_CTX_SCHED_AUTO.0,
            device
        ));
        println!("ctxA = {}", p(ctxA));
        println!("ctxB = {}", p(ctxB));
        /*  context stack:
           ctxB -- top <--- current_context
           ctxA
           ...
        */
        // the current context
        let mut current_context: CUcontext = ptr::null_mut();
        check_driver!(cuCtxGetCurrent(&mut current_context)); // ctxB, the last one created
        println!("current_context = {}", p(current_context));
        // push a context
        check_driver!(cuCtxPushCurrent(ctxA));
        check_driver!(cuCtxGetCurrent(&mut current_context)); // the top of the stack
        println!("after pushing, current_context = {}", p(current_context));
        /*  context stack:
            ctxA -- top <--- current_context
            ctxB
            ...
        */
        // pop the current context
        let mut popped_ctx: CUcontext = ptr::null_mut();
        check_driver!(cuCtxPopCurrent(&mut popped_ctx)); // pops ctxA into popped_ctx
        check_driver!(cuCtxGetCurrent(&mut current_context)); // the top of the stack
        println!("after poping, popped_ctx = {}", p(popped_ctx)); // ctxA
        println!("after poping, current_context = {}", p(current_context)); // ctxB

        check_driver!(cuCtxDestroy(ctxA));
        check_driver!(cuCtxDestroy(ctxB));

        // better: the device's primary context, one per device, what the runtime API uses
        check_driver!(cuDevicePrimaryCtxRetain(&mut ctxA, device));
        println!("ctxA = {}", p(ctxA));
        check_driver!(cuDevicePrimaryCtxRelease(device));
    }
}
