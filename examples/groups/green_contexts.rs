//! The green contexts group of the Driver API: the device's SM resource split by count into two
//! groups, a resource descriptor and a green context for each, their SM resources read back (from
//! the green context and from the context it converts to), a stream in each, a kernel launched in
//! each partition recording the SM each of its blocks ran on, and the check that each partition
//! ran on no more SMs than it was given and that the two sets of SMs are disjoint; an event
//! recorded in one green context and waited for by the other. Functions of newer headers than the
//! GPU driver (cuDevSmResourceSplit, cuStreamGetDevResource: CUDA 13.1) are looked up with the
//! typed cuGetProcAddress (`entry`): CUDA_ERROR_NOT_FOUND where the driver has none.
//! C twin: green_contexts.cpp.
//! Kernel: examples/kernels/green_contexts.ptx, loaded as a library (context-independent); argv[1]
//! is the kernels folder.
#![allow(clippy::needless_range_loop)] // C's index loops, as the twin writes them

#[path = "common/mod.rs"]
mod common;

use std::ffi::{c_uint, c_void};
use std::mem::{size_of, zeroed};
use std::process::exit;
use std::ptr;

use common::{c_path, check, expect, finish, kernel_file, primary_context};
use cuda_driver_sys::*;

const BLOCKS: usize = 1024;
const MAX_SM: usize = 1024;

/// The SM count of an SM resource.
fn sm_count(r: &CUdevResource) -> c_uint {
    unsafe { r.__bindgen_anon_1.sm.smCount }
}

fn main() {
    let ptx_path = c_path(kernel_file("green_contexts.ptx"));

    if !check!(unsafe { cuInit(0) }) {
        exit(1);
    }
    // The primary context first, as cuGreenCtxCreate's documentation advises.
    let Some((device, primary)) = primary_context() else {
        finish();
    };
    let mut library: CUlibrary = ptr::null_mut();
    let mut record_sm: CUkernel = ptr::null_mut();
    if !check!(unsafe {
        cuLibraryLoadFromFile(
            &mut library,
            ptx_path.as_ptr(),
            ptr::null_mut(),
            ptr::null_mut(),
            0,
            ptr::null_mut(),
            ptr::null_mut(),
            0,
        )
    }) || !check!(unsafe { cuLibraryGetKernel(&mut record_sm, library, c"record_sm".as_ptr()) })
    {
        finish();
    }

    let mut sm: CUdevResource = unsafe { zeroed() };
    if !check!(unsafe { cuDeviceGetDevResource(device, &mut sm, CU_DEV_RESOURCE_TYPE_SM) }) {
        finish();
    }
    println!("  device: {} SMs", sm_count(&sm));
    #[cfg(feature = "cuda-13000")]
    {
        let device_sm = unsafe { sm.__bindgen_anon_1.sm };
        println!(
            "  minimum partition {}, co-scheduled alignment {}",
            device_sm.minSmPartitionSize, device_sm.smCoscheduledAlignment
        );
    }

    // How many groups of at least 16 SMs there could be, then two of them.
    let mut groups: c_uint = 0;
    check!(unsafe {
        cuDevSmResourceSplitByCount(ptr::null_mut(), &mut groups, &sm, ptr::null_mut(), 0, 16)
    });
    println!("  groups of 16 SMs or more: {}", groups);
    let mut split: [CUdevResource; 2] = unsafe { zeroed() };
    let mut remaining: CUdevResource = unsafe { zeroed() };
    groups = 2;
    if !check!(unsafe {
        cuDevSmResourceSplitByCount(split.as_mut_ptr(), &mut groups, &sm, &mut remaining, 0, 16)
    }) {
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
    let mut green: [CUgreenCtx; 2] = [ptr::null_mut(); 2];
    let mut ctx: [CUcontext; 2] = [ptr::null_mut(); 2];
    let mut stream: [CUstream; 2] = [ptr::null_mut(); 2];
    let mut sm_of_block: [CUdeviceptr; 2] = [0; 2];
    for i in 0..2 {
        println!("partition {}:", i);
        let mut desc: CUdevResourceDesc = ptr::null_mut();
        if !check!(unsafe { cuDevResourceGenerateDesc(&mut desc, &mut split[i], 1) })
            || !check!(unsafe {
                cuGreenCtxCreate(&mut green[i], desc, device, CU_GREEN_CTX_DEFAULT_STREAM.0)
            })
        {
            finish();
        }
        let mut r: CUdevResource = unsafe { zeroed() };
        check!(unsafe { cuGreenCtxGetDevResource(green[i], &mut r, CU_DEV_RESOURCE_TYPE_SM) });
        println!("  the green context: {} SMs", sm_count(&r));
        check!(unsafe { cuCtxFromGreenCtx(&mut ctx[i], green[i]) });
        r = unsafe { zeroed() };
        check!(unsafe { cuCtxGetDevResource(ctx[i], &mut r, CU_DEV_RESOURCE_TYPE_SM) });
        println!("  its context: {} SMs", sm_count(&r));
        check!(unsafe {
            cuGreenCtxStreamCreate(&mut stream[i], green[i], CU_STREAM_NON_BLOCKING.0, 0)
        });
        let mut owner: CUgreenCtx = ptr::null_mut();
        check!(unsafe { cuStreamGetGreenCtx(stream[i], &mut owner) });
        expect(owner == green[i], "the stream's green context");
        #[cfg(feature = "cuda-13010")]
        {
            r = unsafe { zeroed() };
            let code = entry::cuStreamGetDevResource_v13010.get().map_or(
                CUDA_ERROR_NOT_FOUND,
                |stream_get_dev_resource| unsafe {
                    stream_get_dev_resource(stream[i], &mut r, CU_DEV_RESOURCE_TYPE_SM)
                },
            );
            if common::show("  cuStreamGetDevResource", code) {
                println!("  the stream: {} SMs", sm_count(&r));
            }
        }

        // The kernel, in the context the green context converts to, on its stream.
        check!(unsafe { cuCtxSetCurrent(ctx[i]) });
        let mut f: CUfunction = ptr::null_mut();
        check!(unsafe { cuKernelGetFunction(&mut f, record_sm) });
        check!(unsafe { cuMemAlloc(&mut sm_of_block[i], BLOCKS * size_of::<c_uint>()) });
        let mut args: [*mut c_void; 1] = [&raw mut sm_of_block[i] as *mut c_void];
        check!(unsafe {
            cuLaunchKernel(
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
            )
        });
    }
    #[cfg(feature = "cuda-13000")]
    {
        let (mut id0, mut id1): (u64, u64) = (0, 0);
        check!(unsafe { cuGreenCtxGetId(green[0], &mut id0) });
        check!(unsafe { cuGreenCtxGetId(green[1], &mut id1) });
        expect(id0 != id1, "two green contexts' ids differ");
    }

    // The second partition waits for the first one's work.
    let mut done: CUevent = ptr::null_mut();
    check!(unsafe { cuEventCreate(&mut done, CU_EVENT_DISABLE_TIMING.0) });
    check!(unsafe { cuGreenCtxRecordEvent(green[0], done) });
    check!(unsafe { cuGreenCtxWaitEvent(green[1], done) });

    let mut host = vec![[0 as c_uint; BLOCKS]; 2];
    let mut used = vec![[false; MAX_SM]; 2];
    for i in 0..2 {
        check!(unsafe { cuCtxSetCurrent(ctx[i]) });
        check!(unsafe { cuStreamSynchronize(stream[i]) });
        check!(unsafe {
            cuMemcpyDtoH(
                host[i].as_mut_ptr() as *mut c_void,
                sm_of_block[i],
                size_of::<[c_uint; BLOCKS]>(),
            )
        });
        let mut distinct: c_uint = 0;
        for b in 0..BLOCKS {
            let s = if (host[i][b] as usize) < MAX_SM {
                host[i][b] as usize
            } else {
                MAX_SM - 1
            };
            if !used[i][s] {
                used[i][s] = true;
                distinct += 1;
            }
        }
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

    #[cfg(feature = "cuda-13010")]
    {
        let mut groups_of: [CUdevResource; 2] = unsafe { zeroed() };
        let mut params: [CU_DEV_SM_RESOURCE_GROUP_PARAMS; 2] = unsafe { zeroed() };
        params[0].smCount = 16;
        params[1].smCount = 16;
        let code = entry::cuDevSmResourceSplit_v13010.get().map_or(
            CUDA_ERROR_NOT_FOUND,
            |sm_resource_split| unsafe {
                sm_resource_split(
                    groups_of.as_mut_ptr(),
                    2,
                    &sm,
                    ptr::null_mut(),
                    0,
                    params.as_mut_ptr(),
                )
            },
        );
        common::show("cuDevSmResourceSplit", code);
    }

    check!(unsafe { cuEventDestroy(done) });
    for i in 0..2 {
        check!(unsafe { cuCtxSetCurrent(ctx[i]) });
        check!(unsafe { cuMemFree(sm_of_block[i]) });
        check!(unsafe { cuStreamDestroy(stream[i]) });
        check!(unsafe { cuCtxSetCurrent(primary) });
        check!(unsafe { cuGreenCtxDestroy(green[i]) });
    }
    check!(unsafe { cuLibraryUnload(library) });
    check!(unsafe { cuDevicePrimaryCtxRelease(device) });
    finish()
}
