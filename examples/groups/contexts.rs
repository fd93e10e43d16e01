//! The context groups of the Driver API: the primary context's flags and state, set, retained,
//! released and reset; a context created, made current, pushed and popped, and what it reports
//! (device, flags, id, API version, stream priorities, execution affinity); every limit read, the
//! stack size set; the cache and shared memory configuration; L2 persisting lines reset; an event
//! recorded on a context and waited for; a context limited to part of the SMs (execution
//! affinity); the deprecated attach and detach. Then, in the manner of NVIDIA's threadMigration
//! sample, one context used by four threads in turn, each pushing it, launching a kernel,
//! checking what the kernel left and popping it. C twin: contexts.cpp.
//! Kernels: examples/kernels/graphs.ptx (add_value); argv[1] is the kernels folder.

#[path = "common/mod.rs"]
mod common;

use std::ffi::{c_int, c_uint, c_ulonglong, c_void};
use std::mem::{size_of, zeroed};
use std::process::exit;
use std::ptr;

use common::{
    check, expect, expect_all, finish, get_function, load_module, result_name, show, yes,
};
use cuda_driver_sys::*;

const N: usize = 256;

/// A context handle moved to another thread (a raw pointer is not `Send`; the driver allows a
/// context to be current on any thread).
#[derive(Clone, Copy)]
struct Shared(CUcontext, CUfunction);
unsafe impl Send for Shared {}

/// One thread's turn with the shared context: push it, add `value` to every element, pop it.
/// Gives how many elements then held `expected`, and whether the context was current from the
/// push to the pop.
unsafe fn worker(
    shared: Shared,
    mut data: CUdeviceptr,
    mut value: c_int,
    expected: c_int,
) -> (usize, bool) {
    unsafe {
        let Shared(ctx, add_value) = shared;
        let mut current: CUcontext = ptr::null_mut();
        let mut popped: CUcontext = ptr::null_mut();
        let mut n = N as c_int;
        let mut args: [*mut c_void; 3] = [
            &raw mut data as *mut c_void,
            &raw mut value as *mut c_void,
            &raw mut n as *mut c_void,
        ];
        let mut host = [0 as c_int; N];
        let turn = check!(cuCtxPushCurrent(ctx))
            && check!(cuCtxGetCurrent(&mut current))
            && current == ctx
            && check!(cuLaunchKernel(
                add_value,
                1,
                1,
                1,
                N as c_uint,
                1,
                1,
                0,
                ptr::null_mut(),
                args.as_mut_ptr(),
                ptr::null_mut(),
            ))
            && check!(cuCtxSynchronize())
            && check!(cuMemcpyDtoH(
                host.as_mut_ptr() as *mut c_void,
                data,
                size_of::<[c_int; N]>(),
            ))
            && check!(cuCtxPopCurrent(&mut popped))
            && popped == ctx;
        (host.iter().filter(|&&h| h == expected).count(), turn)
    }
}

fn main() {
    unsafe {
        if !check!(cuInit(0)) {
            exit(1);
        }
        let mut device: CUdevice = 0;
        if !check!(cuDeviceGet(&mut device, 0)) {
            finish();
        }

        // The primary context.
        let mut flags: c_uint = 0;
        let mut active: c_int = 0;
        check!(cuDevicePrimaryCtxGetState(device, &mut flags, &mut active));
        println!("primary context: flags {:#x}, active {}", flags, active);
        check!(cuDevicePrimaryCtxSetFlags(
            device,
            CU_CTX_SCHED_BLOCKING_SYNC.0
        ));
        let mut primary: CUcontext = ptr::null_mut();
        check!(cuDevicePrimaryCtxRetain(&mut primary, device));
        check!(cuDevicePrimaryCtxGetState(device, &mut flags, &mut active));
        println!(
            "primary context retained: flags {:#x}, active {}",
            flags, active
        );
        check!(cuCtxSetCurrent(primary));
        let mut affinity: CUexecAffinityParam = zeroed();
        show(
            "cuCtxGetExecAffinity(SM_COUNT)",
            cuCtxGetExecAffinity(&mut affinity, CU_EXEC_AFFINITY_TYPE_SM_COUNT),
        );
        let mut sms: c_int = 0;
        check!(cuDeviceGetAttribute(
            &mut sms,
            CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
            device
        ));
        println!(
            "  every SM: {}",
            yes(affinity.param.smCount.val as c_int == sms)
        );

        // A context of its own.
        let mut ctx: CUcontext = ptr::null_mut();
        let mut current: CUcontext = ptr::null_mut();
        #[cfg(feature = "cuda-13000")]
        check!(cuCtxCreate(
            &mut ctx,
            ptr::null_mut(),
            CU_CTX_SCHED_AUTO.0,
            device
        ));
        #[cfg(not(feature = "cuda-13000"))]
        check!(cuCtxCreate(&mut ctx, CU_CTX_SCHED_AUTO.0, device));
        check!(cuCtxGetCurrent(&mut current));
        expect(current == ctx, "the new context is current");
        let mut ctx_device: CUdevice = -1;
        check!(cuCtxGetDevice(&mut ctx_device));
        expect(ctx_device == device, "the context's device");
        #[cfg(feature = "cuda-13000")]
        {
            ctx_device = -1;
            check!(cuCtxGetDevice_v2(&mut ctx_device, ctx));
            expect(ctx_device == device, "the context's device (v2)");
            check!(cuCtxSynchronize_v2(ctx));
        }
        check!(cuCtxSynchronize());
        let (mut id_ctx, mut id_primary): (c_ulonglong, c_ulonglong) = (0, 0);
        check!(cuCtxGetId(ctx, &mut id_ctx));
        check!(cuCtxGetId(primary, &mut id_primary));
        expect(id_ctx != id_primary, "two contexts' ids differ");
        let mut version: c_uint = 0;
        check!(cuCtxGetApiVersion(ctx, &mut version));
        println!("API version: {}", version);
        check!(cuCtxGetFlags(&mut flags));
        println!("context flags: {:#x}", flags);
        check!(cuCtxSetFlags(CU_CTX_SCHED_SPIN.0));
        check!(cuCtxGetFlags(&mut flags));
        println!("context flags: {:#x}", flags);
        expect(
            flags & CU_CTX_SCHED_MASK.0 == CU_CTX_SCHED_SPIN.0,
            "the context's flags set",
        );
        let (mut least, mut greatest): (c_int, c_int) = (0, 0);
        check!(cuCtxGetStreamPriorityRange(&mut least, &mut greatest));
        println!("stream priorities: {} to {}", least, greatest);
        #[allow(deprecated)] // this header's CU_LIMIT_MAX, as C's
        let max = CU_LIMIT_MAX.0 as c_int;
        for limit in 0..max {
            let mut value: usize = 0;
            let code = cuCtxGetLimit(&mut value, CUlimit(limit as _));
            println!("cuCtxGetLimit({limit}): {}, {value}", result_name(code));
        }
        check!(cuCtxSetLimit(CU_LIMIT_STACK_SIZE, 4096));
        let mut stack: usize = 0;
        check!(cuCtxGetLimit(&mut stack, CU_LIMIT_STACK_SIZE));
        println!("stack size: {}", stack);
        let mut cache = CU_FUNC_CACHE_PREFER_NONE;
        check!(cuCtxSetCacheConfig(CU_FUNC_CACHE_PREFER_SHARED));
        check!(cuCtxGetCacheConfig(&mut cache));
        expect(
            cache == CU_FUNC_CACHE_PREFER_SHARED,
            "the cache configuration set",
        );
        let mut shared = CU_SHARED_MEM_CONFIG_DEFAULT_BANK_SIZE;
        show(
            "cuCtxSetSharedMemConfig(FOUR_BYTE)",
            cuCtxSetSharedMemConfig(CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE),
        );
        show(
            "cuCtxGetSharedMemConfig",
            cuCtxGetSharedMemConfig(&mut shared),
        );
        check!(cuCtxResetPersistingL2Cache());
        let mut event: CUevent = ptr::null_mut();
        check!(cuEventCreate(&mut event, CU_EVENT_DISABLE_TIMING.0));
        check!(cuCtxRecordEvent(ctx, event));
        check!(cuCtxWaitEvent(primary, event));
        check!(cuEventDestroy(event));

        // Push and pop.
        let mut popped: CUcontext = ptr::null_mut();
        check!(cuCtxPushCurrent(primary));
        check!(cuCtxGetCurrent(&mut current));
        expect(current == primary, "the primary context pushed");
        check!(cuCtxPopCurrent(&mut popped));
        check!(cuCtxGetCurrent(&mut current));
        expect(
            popped == primary && current == ctx,
            "the primary context popped, the new one current again",
        );

        // The deprecated attach and detach.
        let mut attached: CUcontext = ptr::null_mut();
        if show("cuCtxAttach", cuCtxAttach(&mut attached, 0)) {
            show("cuCtxDetach", cuCtxDetach(attached));
        }

        // Thread migration: the context used by four threads in turn.
        let mut data: CUdeviceptr = 0;
        let module = load_module("graphs.ptx");
        let add_value = get_function(module, c"add_value");
        if add_value.is_null() {
            finish();
        }
        check!(cuMemAlloc(&mut data, N * size_of::<c_int>()));
        check!(cuMemsetD32(data, 0, N));
        check!(cuCtxPopCurrent(&mut popped));
        check!(cuCtxGetCurrent(&mut current));
        expect(
            current == primary,
            "the main thread back on the primary context",
        );
        let shared_ctx = Shared(ctx, add_value);
        for t in 0..4 {
            let expected = (t + 1) * (t + 2) / 2;
            let thread = std::thread::spawn(move || worker(shared_ctx, data, t + 1, expected));
            let (same, turn) = thread.join().unwrap_or((0, false));
            expect_all(&format!("thread {t}: elements {expected}"), same, N);
            expect(turn, "the context current from the push to the pop");
        }
        check!(cuCtxPushCurrent(ctx));
        check!(cuMemFree(data));
        check!(cuModuleUnload(module));
        check!(cuCtxDestroy(ctx));

        // A context limited to part of the SMs.
        let mut supported: c_int = 0;
        show(
            "cuDeviceGetExecAffinitySupport(SM_COUNT)",
            cuDeviceGetExecAffinitySupport(&mut supported, CU_EXEC_AFFINITY_TYPE_SM_COUNT, device),
        );
        println!("  supported: {}", supported);
        let mut limited: CUexecAffinityParam = zeroed();
        limited.type_ = CU_EXEC_AFFINITY_TYPE_SM_COUNT;
        limited.param.smCount.val = 8;
        let mut params: CUctxCreateParams = zeroed();
        params.execAffinityParams = &mut limited;
        params.numExecAffinityParams = 1;
        let mut part: CUcontext = ptr::null_mut();
        #[cfg(feature = "cuda-13000")]
        let created = show(
            "cuCtxCreate(exec affinity)",
            cuCtxCreate(&mut part, &mut params, 0, device),
        );
        #[cfg(not(feature = "cuda-13000"))]
        let created = {
            let created = show(
                "cuCtxCreate_v4(exec affinity)",
                cuCtxCreate_v4(&mut part, &mut params, 0, device),
            );
            if created {
                check!(cuCtxDestroy(part));
                part = ptr::null_mut();
            }
            show(
                "cuCtxCreate_v3(exec affinity)",
                cuCtxCreate_v3(&mut part, &mut limited, 1, 0, device),
            )
        };
        if created {
            affinity = zeroed();
            show(
                "cuCtxGetExecAffinity(SM_COUNT)",
                cuCtxGetExecAffinity(&mut affinity, CU_EXEC_AFFINITY_TYPE_SM_COUNT),
            );
            println!("  {} SMs", affinity.param.smCount.val);
            check!(cuCtxDestroy(part));
        }

        check!(cuCtxSetCurrent(ptr::null_mut()));
        check!(cuDevicePrimaryCtxRelease(device));
        check!(cuDevicePrimaryCtxReset(device));
        check!(cuDevicePrimaryCtxGetState(device, &mut flags, &mut active));
        expect(active == 0, "the primary context inactive after its reset");
        finish()
    }
}
