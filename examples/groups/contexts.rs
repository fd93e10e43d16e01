//! The context groups of the Driver API: the primary context's flags and state, set, retained,
//! released and reset; a context created, made current, pushed and popped, and what it reports
//! (device, flags, id, API version, stream priorities, execution affinity); every limit read, the
//! stack size set; the cache and shared memory configuration; L2 persisting lines reset; the
//! context synchronized after a kernel that writes host-mapped words late (the words must be
//! there); an event recorded on the context after such a kernel and waited for by the primary
//! context, whose kernel then copies the words (the copy must hold them); a context limited to
//! part of the SMs (execution affinity: its SM count checked where the driver makes one, which it
//! does only under MPS); the deprecated attach and detach. Then, in the manner of NVIDIA's
//! threadMigration sample, one context used by four threads in turn, each pushing it, launching a
//! kernel, checking what the kernel left and popping it. C twin: contexts.cpp.
//! Kernels: examples/kernels/graphs.ptx (add_value) and late_write.ptx (late_fill, copy_words);
//! argv[1] is the kernels folder.

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
/// What the shared context's data starts as, before the threads add to it.
const BASE: c_int = 100;
/// The host-mapped words the late kernel writes, and the primary context's copy of them.
const WORDS: usize = 256;
/// How long the late kernel waits before it writes: far longer than the host takes to read the
/// words after a call that did not wait for it.
const LATE_NS: u64 = 200_000_000;

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

/// Launches late_fill on the current context's null stream: `value` into the WORDS words at
/// `words`, LATE_NS after the kernel starts.
unsafe fn fill_late(late_fill: CUfunction, mut words: CUdeviceptr, mut value: c_uint) {
    unsafe {
        let (mut n, mut ns) = (WORDS as c_uint, LATE_NS);
        let mut args: [*mut c_void; 4] = [
            (&raw mut words).cast(),
            (&raw mut n).cast(),
            (&raw mut value).cast(),
            (&raw mut ns).cast(),
        ];
        check!(cuLaunchKernel(
            late_fill,
            1,
            1,
            1,
            256,
            1,
            1,
            0,
            ptr::null_mut(),
            args.as_mut_ptr(),
            ptr::null_mut(),
        ));
    }
}

/// How many of the WORDS host-mapped words at `words` hold `value`, as the GPU left them.
///
/// # Safety
/// `words` points to WORDS words of page-locked host memory.
unsafe fn holding(words: *const c_uint, value: c_uint) -> usize {
    // SAFETY: the caller's.
    (0..WORDS)
        .filter(|&i| unsafe { words.add(i).read_volatile() } == value)
        .count()
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
        expect(
            flags & CU_CTX_SCHED_MASK.0 == CU_CTX_SCHED_BLOCKING_SYNC.0,
            "the primary context's flags set",
        );
        check!(cuCtxSetCurrent(primary));
        // The primary context's copy of the late words, loaded now: loaded at its first launch,
        // it could wait for the other context's kernel, as the event is to make it.
        let copier = load_module("late_write.ptx");
        let copy_words = get_function(copier, c"copy_words");
        if copy_words.is_null() || !check!(cuFuncLoad(copy_words)) {
            finish();
        }
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
        let late = load_module("late_write.ptx");
        let late_fill = get_function(late, c"late_fill");
        if late_fill.is_null() {
            finish();
        }
        // The late words and the primary context's copy of them: host memory both contexts map.
        let mut host_words: *mut c_void = ptr::null_mut();
        let flags_host = CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP;
        let host_bytes = 2 * WORDS * size_of::<c_uint>();
        if !check!(cuMemHostAlloc(&mut host_words, host_bytes, flags_host)) {
            finish();
        }
        ptr::write_bytes(host_words.cast::<u8>(), 0, host_bytes);
        let words = host_words.cast::<c_uint>();
        let copied = words.add(WORDS);
        let mut words_device: CUdeviceptr = 0;
        check!(cuMemHostGetDevicePointer(&mut words_device, host_words, 0));
        let copied_device = words_device + (WORDS * size_of::<c_uint>()) as CUdeviceptr;
        #[cfg(feature = "cuda-13000")]
        {
            ctx_device = -1;
            check!(cuCtxGetDevice_v2(&mut ctx_device, ctx));
            expect(ctx_device == device, "the context's device (v2)");
            fill_late(late_fill, words_device, 1);
            check!(cuCtxSynchronize_v2(ctx));
            expect_all(
                "words of the late kernel, after cuCtxSynchronize_v2",
                holding(words, 1),
                WORDS,
            );
        }
        fill_late(late_fill, words_device, 2);
        check!(cuCtxSynchronize());
        expect_all(
            "words of the late kernel, after cuCtxSynchronize",
            holding(words, 2),
            WORDS,
        );
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
        expect(stack >= 4096, "the stack size set (4096 or more)");
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
        // An event recorded on the context after a late kernel, which the primary context waits
        // for.
        let mut event: CUevent = ptr::null_mut();
        check!(cuEventCreate(&mut event, CU_EVENT_DISABLE_TIMING.0));
        fill_late(late_fill, words_device, 3);
        check!(cuCtxRecordEvent(ctx, event));
        check!(cuCtxWaitEvent(primary, event));

        // Push and pop: the primary context, pushed, copies the words after the event.
        let mut popped: CUcontext = ptr::null_mut();
        check!(cuCtxPushCurrent(primary));
        check!(cuCtxGetCurrent(&mut current));
        expect(current == primary, "the primary context pushed");
        let (mut from, mut to, mut n) = (words_device, copied_device, WORDS as c_uint);
        let mut copy_args: [*mut c_void; 3] = [
            (&raw mut from).cast(),
            (&raw mut to).cast(),
            (&raw mut n).cast(),
        ];
        check!(cuLaunchKernel(
            copy_words,
            1,
            1,
            1,
            256,
            1,
            1,
            0,
            ptr::null_mut(),
            copy_args.as_mut_ptr(),
            ptr::null_mut(),
        ));
        check!(cuCtxSynchronize());
        expect_all(
            "words the primary context copied after cuCtxWaitEvent",
            holding(copied, 3),
            WORDS,
        );
        check!(cuCtxPopCurrent(&mut popped));
        check!(cuCtxGetCurrent(&mut current));
        expect(
            popped == primary && current == ctx,
            "the primary context popped, the new one current again",
        );
        check!(cuEventDestroy(event));

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
        check!(cuMemsetD32(data, BASE as c_uint, N));
        check!(cuCtxPopCurrent(&mut popped));
        check!(cuCtxGetCurrent(&mut current));
        expect(
            current == primary,
            "the main thread back on the primary context",
        );
        let shared_ctx = Shared(ctx, add_value);
        for t in 0..4 {
            let expected = BASE + (t + 1) * (t + 2) / 2;
            let thread = std::thread::spawn(move || worker(shared_ctx, data, t + 1, expected));
            let (same, turn) = thread.join().unwrap_or((0, false));
            expect_all(&format!("thread {t}: elements {expected}"), same, N);
            expect(turn, "the context current from the push to the pop");
        }
        check!(cuCtxPushCurrent(ctx));
        check!(cuMemFree(data));
        check!(cuModuleUnload(module));
        check!(cuModuleUnload(late));
        check!(cuMemFreeHost(host_words));
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
        let code = {
            let code = cuCtxCreate(&mut part, &mut params, 0, device);
            show("cuCtxCreate(exec affinity)", code);
            code
        };
        #[cfg(not(feature = "cuda-13000"))]
        let code = {
            if show(
                "cuCtxCreate_v4(exec affinity)",
                cuCtxCreate_v4(&mut part, &mut params, 0, device),
            ) {
                check!(cuCtxDestroy(part));
                part = ptr::null_mut();
            }
            let code = cuCtxCreate_v3(&mut part, &mut limited, 1, 0, device);
            show("cuCtxCreate_v3(exec affinity)", code);
            code
        };
        if code == CUDA_SUCCESS {
            affinity = zeroed();
            show(
                "cuCtxGetExecAffinity(SM_COUNT)",
                cuCtxGetExecAffinity(&mut affinity, CU_EXEC_AFFINITY_TYPE_SM_COUNT),
            );
            let count = affinity.param.smCount.val;
            println!("  {} SMs", count);
            expect(
                count >= 8 && (count as c_int) < sms,
                "the limited context has the 8 SMs asked for or more, not all",
            );
            check!(cuCtxDestroy(part));
        } else {
            println!("  its SM count: not checked (the driver limits SMs only under MPS)");
            expect(
                code == CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY,
                "the SM-count affinity refused only as unsupported",
            );
        }

        check!(cuModuleUnload(copier));
        check!(cuCtxSetCurrent(ptr::null_mut()));
        check!(cuDevicePrimaryCtxRelease(device));
        check!(cuDevicePrimaryCtxReset(device));
        check!(cuDevicePrimaryCtxGetState(device, &mut flags, &mut active));
        expect(active == 0, "the primary context inactive after its reset");
        finish()
    }
}
