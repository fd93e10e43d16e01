//! The green contexts group of the Driver API: the device's SM resource split by count into two
//! groups, a resource descriptor and a green context for each, their SM resources read back (from
//! the green context and from the context it converts to), a stream in each. Checked: each stream's
//! green context; a kernel launched in each partition, recording the SM each of its blocks ran on
//! in host-mapped words, ran on no more SMs than the partition was given, and the two sets of SMs
//! are disjoint; each partition's stream, whose last kernel marks a host-mapped word 100 ms (the
//! first) or 300 ms (the second) after it starts, has marked it when synchronized; the green
//! contexts' ids differ (CUDA 13.0 headers); and an event orders the second partition's work after
//! the first's, once through the streams and once through the green contexts: the first partition's
//! kernel writes its words 300 ms after it starts, the event captures it (cuEventRecord on the
//! first partition's stream; cuGreenCtxRecordEvent), the second partition waits for it
//! (cuStreamWaitEvent on its stream; cuGreenCtxWaitEvent), and its kernel copies the words, which
//! must be the first kernel's. Controls `no_wait` and `no_green_wait`: the second partition does
//! not wait (on its stream, or as a green context), so its kernel runs beside the first and copies
//! the words before they are written, and that check fails. Functions of newer headers than the GPU
//! driver (cuDevSmResourceSplit, cuStreamGetDevResource: CUDA 13.1) are looked up with the typed
//! cuGetProcAddress (`entry`): their answer is printed, or where the driver has no such function,
//! the driver's answer to the lookup (`show_missing`).
//! C twin: green_contexts.cpp.
//! Kernels: examples/kernels/green_contexts.ptx and late_write.ptx, loaded as libraries
//! (context-independent); argv[1] is the kernels folder.
#![allow(clippy::needless_range_loop)] // C's index loops, as the twin writes them

#[path = "common/mod.rs"]
mod common;

use std::ffi::{c_uint, c_void};
use std::mem::{size_of, zeroed};
use std::process::exit;
use std::ptr;

use common::{c_path, check, control, expect, expect_all, finish, kernel_file, primary_context};
use cuda_driver_sys::*;

const BLOCKS: usize = 1024;
const MAX_SM: usize = 1024;
/// The words the first partition writes late and the second copies.
const WORDS: usize = 1 << 16;
/// How long the first partition's kernel waits before it writes: far longer than the copy takes.
const LATE_NS: u64 = 300_000_000;
/// How long each partition's last kernel waits before it marks its stream finished: the second's
/// far longer than the first's, so that the host, checking the second after synchronizing with
/// the first, would find it unfinished without synchronizing with it too.
const FINISH_NS: [u64; 2] = [100_000_000, 300_000_000];
/// The mark of a partition's finished stream.
const FINISHED: c_uint = 0xf1d;

/// The SM count of an SM resource.
fn sm_count(r: &CUdevResource) -> c_uint {
    unsafe { r.__bindgen_anon_1.sm.smCount }
}

/// The library of the PTX at `path` (C's cuLibraryLoadFromFile with no options); whether it
/// loaded (a failure reported).
unsafe fn load_library(library: &mut CUlibrary, path: &std::ffi::CStr) -> bool {
    unsafe {
        check!(cuLibraryLoadFromFile(
            library,
            path.as_ptr(),
            ptr::null_mut(),
            ptr::null_mut(),
            0,
            ptr::null_mut(),
            ptr::null_mut(),
            0,
        ))
    }
}

fn main() {
    unsafe {
        let ptx_path = c_path(kernel_file("green_contexts.ptx"));
        let late_path = c_path(kernel_file("late_write.ptx"));

        if !check!(cuInit(0)) {
            exit(1);
        }
        // The primary context first, as cuGreenCtxCreate's documentation advises.
        let Some((device, primary)) = primary_context() else {
            finish();
        };
        let (mut library, mut late_library): (CUlibrary, CUlibrary) =
            (ptr::null_mut(), ptr::null_mut());
        let mut record_sm: CUkernel = ptr::null_mut();
        let (mut late_fill, mut copy_words): (CUkernel, CUkernel) =
            (ptr::null_mut(), ptr::null_mut());
        if !load_library(&mut library, &ptx_path)
            || !check!(cuLibraryGetKernel(
                &mut record_sm,
                library,
                c"record_sm".as_ptr()
            ))
            || !load_library(&mut late_library, &late_path)
            || !check!(cuLibraryGetKernel(
                &mut late_fill,
                late_library,
                c"late_fill".as_ptr()
            ))
            || !check!(cuLibraryGetKernel(
                &mut copy_words,
                late_library,
                c"copy_words".as_ptr()
            ))
        {
            finish();
        }

        let mut sm: CUdevResource = zeroed();
        if !check!(cuDeviceGetDevResource(
            device,
            &mut sm,
            CU_DEV_RESOURCE_TYPE_SM
        )) {
            finish();
        }
        println!("  device: {} SMs", sm_count(&sm));
        #[cfg(feature = "cuda-13000")]
        {
            let device_sm = sm.__bindgen_anon_1.sm;
            println!(
                "  minimum partition {}, co-scheduled alignment {}",
                device_sm.minSmPartitionSize, device_sm.smCoscheduledAlignment
            );
        }

        // How many groups of at least 16 SMs there could be, then two of them.
        let mut groups: c_uint = 0;
        check!(cuDevSmResourceSplitByCount(
            ptr::null_mut(),
            &mut groups,
            &sm,
            ptr::null_mut(),
            0,
            16
        ));
        println!("  groups of 16 SMs or more: {}", groups);
        let mut split: [CUdevResource; 2] = zeroed();
        let mut remaining: CUdevResource = zeroed();
        groups = 2;
        if !check!(cuDevSmResourceSplitByCount(
            split.as_mut_ptr(),
            &mut groups,
            &sm,
            &mut remaining,
            0,
            16
        )) {
            finish();
        }
        println!(
            "  {} groups of {} and {} SMs, {} remaining",
            groups,
            sm_count(&split[0]),
            sm_count(&split[1]),
            sm_count(&remaining)
        );

        expect(groups == 2, "two groups of SMs");
        // Each partition's blocks' SMs, and its finish mark: host memory every context maps, the
        // SMs not yet recorded (no SM has that number), the marks not yet made.
        let mut host_words: *mut c_void = ptr::null_mut();
        let flags_host = CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP;
        let host_bytes = (2 * BLOCKS + 2) * size_of::<c_uint>();
        if !check!(cuMemHostAlloc(&mut host_words, host_bytes, flags_host)) {
            finish();
        }
        let host = std::slice::from_raw_parts_mut(host_words.cast::<c_uint>(), 2 * BLOCKS + 2);
        host.fill(c_uint::MAX);
        host[2 * BLOCKS..].fill(0);
        let host = host.as_ptr();
        let mut host_device: CUdeviceptr = 0;
        check!(cuMemHostGetDevicePointer(&mut host_device, host_words, 0));
        let word = size_of::<c_uint>() as CUdeviceptr;
        let mut green: [CUgreenCtx; 2] = [ptr::null_mut(); 2];
        let mut ctx: [CUcontext; 2] = [ptr::null_mut(); 2];
        let mut stream: [CUstream; 2] = [ptr::null_mut(); 2];
        for i in 0..2 {
            println!("partition {}:", i);
            let mut desc: CUdevResourceDesc = ptr::null_mut();
            if !check!(cuDevResourceGenerateDesc(&mut desc, &mut split[i], 1))
                || !check!(cuGreenCtxCreate(
                    &mut green[i],
                    desc,
                    device,
                    CU_GREEN_CTX_DEFAULT_STREAM.0
                ))
            {
                finish();
            }
            let mut r: CUdevResource = zeroed();
            check!(cuGreenCtxGetDevResource(
                green[i],
                &mut r,
                CU_DEV_RESOURCE_TYPE_SM
            ));
            println!("  the green context: {} SMs", sm_count(&r));
            check!(cuCtxFromGreenCtx(&mut ctx[i], green[i]));
            r = zeroed();
            check!(cuCtxGetDevResource(ctx[i], &mut r, CU_DEV_RESOURCE_TYPE_SM));
            println!("  its context: {} SMs", sm_count(&r));
            check!(cuGreenCtxStreamCreate(
                &mut stream[i],
                green[i],
                CU_STREAM_NON_BLOCKING.0,
                0
            ));
            let mut owner: CUgreenCtx = ptr::null_mut();
            check!(cuStreamGetGreenCtx(stream[i], &mut owner));
            expect(owner == green[i], "the stream's green context");
            #[cfg(feature = "cuda-13010")]
            {
                r = zeroed();
                match entry::cuStreamGetDevResource_v13010.get() {
                    Ok(stream_get_dev_resource) => {
                        let code =
                            stream_get_dev_resource(stream[i], &mut r, CU_DEV_RESOURCE_TYPE_SM);
                        if common::show("  cuStreamGetDevResource", code) {
                            println!("  the stream: {} SMs", sm_count(&r));
                        }
                    }
                    Err(e) => common::show_missing("  cuStreamGetDevResource", e),
                }
            }
        }
        // Every kernel loaded into each partition's context before any runs: loaded at its first
        // launch, a kernel could wait for the other partition's work (on an H200 the copy of the
        // rounds below did), which would order that work without the event, or end a partition's
        // work before the host synchronizes with it.
        for i in 0..2 {
            check!(cuCtxSetCurrent(ctx[i]));
            for kernel in [record_sm, late_fill, copy_words] {
                let mut function: CUfunction = ptr::null_mut();
                check!(cuKernelGetFunction(&mut function, kernel));
                check!(cuFuncLoad(function));
            }
        }
        for i in 0..2 {
            // The kernels, in the context the green context converts to, on its stream: the SMs
            // recorded, then the stream's finish marked late.
            check!(cuCtxSetCurrent(ctx[i]));
            let mut f: CUfunction = ptr::null_mut();
            check!(cuKernelGetFunction(&mut f, record_sm));
            let mut sm_of_block = host_device + (i * BLOCKS) as CUdeviceptr * word;
            let mut args: [*mut c_void; 1] = [&raw mut sm_of_block as *mut c_void];
            check!(cuLaunchKernel(
                f,
                BLOCKS as c_uint,
                1,
                1,
                128,
                1,
                1,
                0,
                stream[i],
                args.as_mut_ptr(),
                ptr::null_mut(),
            ));
            let mut mark: CUfunction = ptr::null_mut();
            check!(cuKernelGetFunction(&mut mark, late_fill));
            let mut mark_at = host_device + (2 * BLOCKS + i) as CUdeviceptr * word;
            let (mut one, mut finished, mut ns) = (1 as c_uint, FINISHED, FINISH_NS[i]);
            let mut mark_args: [*mut c_void; 4] = [
                (&raw mut mark_at).cast(),
                (&raw mut one).cast(),
                (&raw mut finished).cast(),
                (&raw mut ns).cast(),
            ];
            check!(cuLaunchKernel(
                mark,
                1,
                1,
                1,
                32,
                1,
                1,
                0,
                stream[i],
                mark_args.as_mut_ptr(),
                ptr::null_mut(),
            ));
        }
        #[cfg(feature = "cuda-13000")]
        {
            let (mut id0, mut id1): (u64, u64) = (0, 0);
            check!(cuGreenCtxGetId(green[0], &mut id0));
            check!(cuGreenCtxGetId(green[1], &mut id1));
            expect(id0 != id1, "two green contexts' ids differ");
        }

        let mut used = vec![[false; MAX_SM]; 2];
        for i in 0..2 {
            check!(cuCtxSetCurrent(ctx[i]));
            check!(cuStreamSynchronize(stream[i]));
            expect(
                host.add(2 * BLOCKS + i).read_volatile() == FINISHED,
                "a partition's stream finished when synchronized",
            );
            let (mut distinct, mut recorded): (c_uint, usize) = (0, 0);
            for b in 0..BLOCKS {
                let sm = host.add(i * BLOCKS + b).read_volatile() as usize;
                if sm < MAX_SM {
                    recorded += 1;
                }
                let s = if sm < MAX_SM { sm } else { MAX_SM - 1 };
                if !used[i][s] {
                    used[i][s] = true;
                    distinct += 1;
                }
            }
            expect_all(
                &format!("partition {i}: blocks that recorded their SM"),
                recorded,
                BLOCKS,
            );
            expect(
                distinct > 0 && distinct <= sm_count(&split[i]),
                "a partition ran on its SMs only",
            );
        }
        let mut disjoint = true;
        for s in 0..MAX_SM {
            if used[0][s] && used[1][s] {
                disjoint = false;
            }
        }
        expect(disjoint, "the partitions' SMs are disjoint");

        // The event orders the second partition's work after the first's: through the streams, then
        // through the green contexts.
        let mut done: CUevent = ptr::null_mut();
        let (mut written, mut seen): (CUdeviceptr, CUdeviceptr) = (0, 0);
        // The event of the first partition's context, as cuEventRecord wants.
        check!(cuCtxSetCurrent(ctx[0]));
        check!(cuEventCreate(&mut done, CU_EVENT_DISABLE_TIMING.0));
        check!(cuCtxSetCurrent(primary));
        check!(cuMemAlloc(&mut written, WORDS * size_of::<c_uint>()));
        check!(cuMemAlloc(&mut seen, WORDS * size_of::<c_uint>()));
        check!(cuMemsetD32(written, 0, WORDS));
        check!(cuCtxSynchronize());
        let mut copied = vec![0 as c_uint; WORDS];
        for round in 0..2 {
            let through_green = round == 1;
            let (mut n, mut value, mut ns) = (WORDS as c_uint, 0x1a7e0 + round as c_uint, LATE_NS);
            check!(cuCtxSetCurrent(ctx[0]));
            let mut fill: CUfunction = ptr::null_mut();
            check!(cuKernelGetFunction(&mut fill, late_fill));
            let mut fill_args: [*mut c_void; 4] = [
                (&raw mut written).cast(),
                (&raw mut n).cast(),
                (&raw mut value).cast(),
                (&raw mut ns).cast(),
            ];
            check!(cuLaunchKernel(
                fill,
                1,
                1,
                1,
                256,
                1,
                1,
                0,
                stream[0],
                fill_args.as_mut_ptr(),
                ptr::null_mut(),
            ));
            if through_green {
                check!(cuGreenCtxRecordEvent(green[0], done));
            } else {
                check!(cuEventRecord(done, stream[0]));
            }
            check!(cuCtxSetCurrent(ctx[1]));
            if through_green && !control("no_green_wait") {
                check!(cuGreenCtxWaitEvent(green[1], done));
            }
            if !through_green && !control("no_wait") {
                check!(cuStreamWaitEvent(stream[1], done, 0));
            }
            let mut copy: CUfunction = ptr::null_mut();
            check!(cuKernelGetFunction(&mut copy, copy_words));
            let mut copy_args: [*mut c_void; 3] = [
                (&raw mut written).cast(),
                (&raw mut seen).cast(),
                (&raw mut n).cast(),
            ];
            check!(cuLaunchKernel(
                copy,
                1,
                1,
                1,
                256,
                1,
                1,
                0,
                stream[1],
                copy_args.as_mut_ptr(),
                ptr::null_mut(),
            ));
            check!(cuStreamSynchronize(stream[1]));
            check!(cuMemcpyDtoH(
                copied.as_mut_ptr() as *mut c_void,
                seen,
                WORDS * size_of::<c_uint>(),
            ));
            let same = copied.iter().filter(|w| **w == value).count();
            // Whether every word came through, not how many: without a wait, how many is a race.
            let what = if through_green {
                "partition 1 copied partition 0's late words after cuGreenCtxWaitEvent"
            } else {
                "partition 1 copied partition 0's late words after cuStreamWaitEvent"
            };
            println!("{what}: {}", if same == WORDS { "all" } else { "not all" });
            expect(same == WORDS, what);
            check!(cuCtxSetCurrent(ctx[0]));
            check!(cuStreamSynchronize(stream[0]));
        }

        #[cfg(feature = "cuda-13010")]
        {
            let mut groups_of: [CUdevResource; 2] = zeroed();
            let mut params: [CU_DEV_SM_RESOURCE_GROUP_PARAMS; 2] = zeroed();
            params[0].smCount = 16;
            params[1].smCount = 16;
            match entry::cuDevSmResourceSplit_v13010.get() {
                Ok(sm_resource_split) => {
                    common::show(
                        "cuDevSmResourceSplit",
                        sm_resource_split(
                            groups_of.as_mut_ptr(),
                            2,
                            &sm,
                            ptr::null_mut(),
                            0,
                            params.as_mut_ptr(),
                        ),
                    );
                }
                Err(e) => common::show_missing("cuDevSmResourceSplit", e),
            }
        }

        check!(cuEventDestroy(done));
        check!(cuCtxSetCurrent(primary));
        check!(cuMemFree(written));
        check!(cuMemFree(seen));
        check!(cuMemFreeHost(host_words));
        for i in 0..2 {
            check!(cuCtxSetCurrent(ctx[i]));
            check!(cuStreamDestroy(stream[i]));
            check!(cuCtxSetCurrent(primary));
            check!(cuGreenCtxDestroy(green[i]));
        }
        check!(cuLibraryUnload(library));
        check!(cuLibraryUnload(late_library));
        check!(cuDevicePrimaryCtxRelease(device));
        finish()
    }
}
