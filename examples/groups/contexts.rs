//! The context groups of the Driver API: the primary context's flags and state, set, retained,
//! released and reset; a context created, made current, pushed and popped, and what it reports
//! (device, flags, id, API version, stream priorities, execution affinity); every limit read, the
//! stack size set; the cache and shared memory configuration; L2 persisting lines reset; an event
//! recorded on a context and waited for; a context limited to part of the SMs (execution
//! affinity); the deprecated attach and detach. Then, in the manner of NVIDIA's threadMigration
//! sample, one context used by four threads in turn, each pushing it, launching a kernel and
//! popping it, the result checked. C twin: contexts.cpp.
//! Kernels: examples/kernels/graphs.ptx (add_value); argv[1] is the kernels folder.

#[path = "common/mod.rs"]
mod common;

use std::ffi::{c_char, c_int, c_uint, c_ulonglong, c_void, OsStr, OsString};
use std::mem::{size_of, zeroed};
use std::process::exit;
use std::ptr;

use common::{c_path, kernel_path, s};
use cuda_driver_sys::*;

const N: usize = 256;

/// A context handle moved to another thread (a raw pointer is not `Send`; the driver allows a
/// context to be current on any thread).
#[derive(Clone, Copy)]
struct Shared(CUcontext, CUfunction);
unsafe impl Send for Shared {}

/// One thread's turn with the shared context: push it, add `value` to every element, pop it.
fn worker(shared: Shared, mut data: CUdeviceptr, mut value: c_int) -> bool {
    let Shared(ctx, add_value) = shared;
    let mut current: CUcontext = ptr::null_mut();
    let mut popped: CUcontext = ptr::null_mut();
    let mut n = N as c_int;
    let mut args: [*mut c_void; 3] = [
        &raw mut data as *mut c_void,
        &raw mut value as *mut c_void,
        &raw mut n as *mut c_void,
    ];
    check!(unsafe { cuCtxPushCurrent(ctx) })
        && check!(unsafe { cuCtxGetCurrent(&mut current) })
        && current == ctx
        && check!(unsafe {
            cuLaunchKernel(
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
            )
        })
        && check!(unsafe { cuCtxSynchronize() })
        && check!(unsafe { cuCtxPopCurrent(&mut popped) })
        && popped == ctx
}

fn main() {
    // KERNELS graphs.ptx
    if !check!(unsafe { cuInit(0) }) {
        exit(1);
    }
    let mut device: CUdevice = 0;
    if !check!(unsafe { cuDeviceGet(&mut device, 0) }) {
        exit(1);
    }
    let mut all_ok = true;

    // The primary context.
    let mut flags: c_uint = 0;
    let mut active: c_int = 0;
    show("cuDevicePrimaryCtxGetState", unsafe {
        cuDevicePrimaryCtxGetState(device, &mut flags, &mut active)
    });
    println!("  flags {:#x}, active {}", flags, active);
    show("cuDevicePrimaryCtxSetFlags(SCHED_BLOCKING_SYNC)", unsafe {
        cuDevicePrimaryCtxSetFlags(device, CU_CTX_SCHED_BLOCKING_SYNC.0)
    });
    let mut primary: CUcontext = ptr::null_mut();
    show("cuDevicePrimaryCtxRetain", unsafe {
        cuDevicePrimaryCtxRetain(&mut primary, device)
    });
    show("cuDevicePrimaryCtxGetState", unsafe {
        cuDevicePrimaryCtxGetState(device, &mut flags, &mut active)
    });
    println!("  flags {:#x}, active {}", flags, active);
    check!(unsafe { cuCtxSetCurrent(primary) });
    let mut affinity: CUexecAffinityParam = unsafe { zeroed() };
    show("cuCtxGetExecAffinity(SM_COUNT)", unsafe {
        cuCtxGetExecAffinity(&mut affinity, CU_EXEC_AFFINITY_TYPE_SM_COUNT)
    });
    let mut sms: c_int = 0;
    check!(unsafe {
        cuDeviceGetAttribute(&mut sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device)
    });
    println!(
        "  every SM: {}",
        yes(unsafe { affinity.param.smCount.val } as c_int == sms)
    );

    // A context of its own.
    let mut ctx: CUcontext = ptr::null_mut();
    let mut current: CUcontext = ptr::null_mut();
    #[cfg(feature = "cuda-13000")]
    show("cuCtxCreate", unsafe {
        cuCtxCreate(&mut ctx, ptr::null_mut(), CU_CTX_SCHED_AUTO.0, device)
    });
    #[cfg(not(feature = "cuda-13000"))]
    show("cuCtxCreate", unsafe {
        cuCtxCreate(&mut ctx, CU_CTX_SCHED_AUTO.0, device)
    });
    show("cuCtxGetCurrent", unsafe { cuCtxGetCurrent(&mut current) });
    println!("  the new context is current: {}", yes(current == ctx));
    let mut ctx_device: CUdevice = -1;
    show("cuCtxGetDevice", unsafe { cuCtxGetDevice(&mut ctx_device) });
    println!("  device 0: {}", yes(ctx_device == device));
    #[cfg(feature = "cuda-13000")]
    {
        ctx_device = -1;
        show("cuCtxGetDevice_v2", unsafe {
            cuCtxGetDevice_v2(&mut ctx_device, ctx)
        });
        println!("  device 0: {}", yes(ctx_device == device));
        show("cuCtxSynchronize_v2", unsafe { cuCtxSynchronize_v2(ctx) });
    }
    show("cuCtxSynchronize", unsafe { cuCtxSynchronize() });
    let (mut id_ctx, mut id_primary): (c_ulonglong, c_ulonglong) = (0, 0);
    show("cuCtxGetId", unsafe { cuCtxGetId(ctx, &mut id_ctx) });
    show("cuCtxGetId", unsafe {
        cuCtxGetId(primary, &mut id_primary)
    });
    println!("  ids differ: {}", yes(id_ctx != id_primary));
    let mut version: c_uint = 0;
    show("cuCtxGetApiVersion", unsafe {
        cuCtxGetApiVersion(ctx, &mut version)
    });
    println!("  {}", version);
    show("cuCtxGetFlags", unsafe { cuCtxGetFlags(&mut flags) });
    println!("  {:#x}", flags);
    show("cuCtxSetFlags(SCHED_SPIN)", unsafe {
        cuCtxSetFlags(CU_CTX_SCHED_SPIN.0)
    });
    show("cuCtxGetFlags", unsafe { cuCtxGetFlags(&mut flags) });
    println!("  {:#x}", flags);
    let (mut least, mut greatest): (c_int, c_int) = (0, 0);
    show("cuCtxGetStreamPriorityRange", unsafe {
        cuCtxGetStreamPriorityRange(&mut least, &mut greatest)
    });
    println!("  {} to {}", least, greatest);
    #[allow(deprecated)] // this header's CU_LIMIT_MAX, as C's
    let max = CU_LIMIT_MAX.0 as c_int;
    for limit in 0..max {
        let mut value: usize = 0;
        let code = unsafe { cuCtxGetLimit(&mut value, CUlimit(limit as _)) };
        let mut name: *const c_char = ptr::null();
        let _ = unsafe { cuGetErrorName(code, &mut name) };
        println!(
            "  cuCtxGetLimit({}) = {}, {}",
            limit,
            unsafe { s(name) },
            value
        );
    }
    show("cuCtxSetLimit(STACK_SIZE)", unsafe {
        cuCtxSetLimit(CU_LIMIT_STACK_SIZE, 4096)
    });
    let mut stack: usize = 0;
    show("cuCtxGetLimit(STACK_SIZE)", unsafe {
        cuCtxGetLimit(&mut stack, CU_LIMIT_STACK_SIZE)
    });
    println!("  {}", stack);
    let mut cache = CU_FUNC_CACHE_PREFER_NONE;
    show("cuCtxSetCacheConfig(PREFER_SHARED)", unsafe {
        cuCtxSetCacheConfig(CU_FUNC_CACHE_PREFER_SHARED)
    });
    show("cuCtxGetCacheConfig", unsafe {
        cuCtxGetCacheConfig(&mut cache)
    });
    println!(
        "  prefer shared: {}",
        yes(cache == CU_FUNC_CACHE_PREFER_SHARED)
    );
    let mut shared = CU_SHARED_MEM_CONFIG_DEFAULT_BANK_SIZE;
    show("cuCtxSetSharedMemConfig(FOUR_BYTE)", unsafe {
        cuCtxSetSharedMemConfig(CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE)
    });
    show("cuCtxGetSharedMemConfig", unsafe {
        cuCtxGetSharedMemConfig(&mut shared)
    });
    show("cuCtxResetPersistingL2Cache", unsafe {
        cuCtxResetPersistingL2Cache()
    });
    let mut event: CUevent = ptr::null_mut();
    check!(unsafe { cuEventCreate(&mut event, CU_EVENT_DISABLE_TIMING.0) });
    show("cuCtxRecordEvent", unsafe { cuCtxRecordEvent(ctx, event) });
    show("cuCtxWaitEvent", unsafe { cuCtxWaitEvent(primary, event) });
    check!(unsafe { cuEventDestroy(event) });

    // Push and pop.
    let mut popped: CUcontext = ptr::null_mut();
    show("cuCtxPushCurrent(primary)", unsafe {
        cuCtxPushCurrent(primary)
    });
    check!(unsafe { cuCtxGetCurrent(&mut current) });
    println!(
        "  the primary context is current: {}",
        yes(current == primary)
    );
    show("cuCtxPopCurrent", unsafe { cuCtxPopCurrent(&mut popped) });
    check!(unsafe { cuCtxGetCurrent(&mut current) });
    println!(
        "  popped the primary context: {}; the new one is current again: {}",
        yes(popped == primary),
        yes(current == ctx)
    );

    // The deprecated attach and detach.
    let mut attached: CUcontext = ptr::null_mut();
    if show("cuCtxAttach", unsafe { cuCtxAttach(&mut attached, 0) }) {
        show("cuCtxDetach", unsafe { cuCtxDetach(attached) });
    }

    // Thread migration: the context used by four threads in turn.
    let mut module: CUmodule = ptr::null_mut();
    let mut add_value: CUfunction = ptr::null_mut();
    let mut data: CUdeviceptr = 0;
    if !check!(unsafe { cuModuleLoad(&mut module, ptx_path.as_ptr()) })
        || !check!(unsafe { cuModuleGetFunction(&mut add_value, module, c"add_value".as_ptr()) })
    {
        exit(1);
    }
    check!(unsafe { cuMemAlloc(&mut data, N * size_of::<c_int>()) });
    check!(unsafe { cuMemsetD32(data, 0, N) });
    show("cuCtxPopCurrent", unsafe { cuCtxPopCurrent(&mut popped) });
    check!(unsafe { cuCtxGetCurrent(&mut current) });
    println!(
        "  the main thread is back on the primary context: {}",
        yes(current == primary)
    );
    let shared_ctx = Shared(ctx, add_value);
    for t in 0..4 {
        let thread = std::thread::spawn(move || worker(shared_ctx, data, t + 1));
        let ok = thread.join().unwrap_or(false);
        println!(
            "thread {}: pushed, launched, popped: {}",
            t,
            if ok { "ok" } else { "WRONG" }
        );
        all_ok = all_ok && ok;
    }
    check!(unsafe { cuCtxPushCurrent(ctx) });
    let mut host = [0 as c_int; N];
    check!(unsafe {
        cuMemcpyDtoH(
            host.as_mut_ptr() as *mut c_void,
            data,
            size_of::<[c_int; N]>(),
        )
    });
    let sum = host.iter().all(|&h| h == 1 + 2 + 3 + 4);
    println!(
        "every element 10 after the four threads: {}",
        if sum { "ok" } else { "WRONG" }
    );
    all_ok = all_ok && sum;
    check!(unsafe { cuMemFree(data) });
    check!(unsafe { cuModuleUnload(module) });
    show("cuCtxDestroy", unsafe { cuCtxDestroy(ctx) });

    // A context limited to part of the SMs.
    let mut supported: c_int = 0;
    show("cuDeviceGetExecAffinitySupport(SM_COUNT)", unsafe {
        cuDeviceGetExecAffinitySupport(&mut supported, CU_EXEC_AFFINITY_TYPE_SM_COUNT, device)
    });
    println!("  {}", supported);
    let mut limited: CUexecAffinityParam = unsafe { zeroed() };
    limited.type_ = CU_EXEC_AFFINITY_TYPE_SM_COUNT;
    limited.param.smCount.val = 8;
    let mut params: CUctxCreateParams = unsafe { zeroed() };
    params.execAffinityParams = &mut limited;
    params.numExecAffinityParams = 1;
    let mut part: CUcontext = ptr::null_mut();
    #[cfg(feature = "cuda-13000")]
    let created = show("cuCtxCreate(exec affinity)", unsafe {
        cuCtxCreate(&mut part, &mut params, 0, device)
    });
    #[cfg(not(feature = "cuda-13000"))]
    let created = {
        let created = show("cuCtxCreate_v4(exec affinity)", unsafe {
            cuCtxCreate_v4(&mut part, &mut params, 0, device)
        });
        if created {
            check!(unsafe { cuCtxDestroy(part) });
            part = ptr::null_mut();
        }
        show("cuCtxCreate_v3(exec affinity)", unsafe {
            cuCtxCreate_v3(&mut part, &mut limited, 1, 0, device)
        })
    };
    if created {
        affinity = unsafe { zeroed() };
        show("cuCtxGetExecAffinity(SM_COUNT)", unsafe {
            cuCtxGetExecAffinity(&mut affinity, CU_EXEC_AFFINITY_TYPE_SM_COUNT)
        });
        println!("  {} SMs", unsafe { affinity.param.smCount.val });
        check!(unsafe { cuCtxDestroy(part) });
    }

    check!(unsafe { cuCtxSetCurrent(ptr::null_mut()) });
    show("cuDevicePrimaryCtxRelease", unsafe {
        cuDevicePrimaryCtxRelease(device)
    });
    show("cuDevicePrimaryCtxReset", unsafe {
        cuDevicePrimaryCtxReset(device)
    });
    show("cuDevicePrimaryCtxGetState", unsafe {
        cuDevicePrimaryCtxGetState(device, &mut flags, &mut active)
    });
    println!("  active {}", active);
    println!("Result = {}", if all_ok { "PASS" } else { "FAIL" });
    exit(if all_ok { 0 } else { 1 });
}
