//! The launch and occupancy groups of the Driver API on a Hopper GPU: cuLaunchKernelEx with each
//! launch attribute (a thread block cluster whose blocks read each other's shared memory, a
//! cooperative grid-wide barrier, programmatic dependent launch through stream serialization and
//! through its event, priority, memory synchronisation domains, ...), cuLaunchCooperativeKernel
//! (and the deprecated multi-device form), host functions, the function queries (name, parameters,
//! module, loading state, attributes), every occupancy query with clusters, and the CUDA 3 launch
//! API (cuFuncSetBlockShape, cuParamSet*, cuLaunchGrid). C twin: launch.cpp.
//! Kernels: examples/kernels/launch.ptx (compute_90), from launch.cu; argv[1] is the kernels
//! folder. Each call's result is printed by name; the kernels' outputs are checked on the host.
//! Functions of headers newer than the GPU driver (cuFuncGetParamCount, cuLaunchHostFunc_v2:
//! CUDA 13.2) are looked up with the typed cuGetProcAddress (`entry`) at their header version;
//! where the driver has none, the program prints CUDA_ERROR_NOT_FOUND, as the twin does.
#![allow(clippy::needless_range_loop)] // C's index loops, as the twin writes them

#[path = "common/mod.rs"]
mod common;

use std::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::mem::{size_of, zeroed};
use std::process::exit;
use std::ptr;

use common::{
    check, expect, expect_all, finish, load_module, primary_context, result_name, s, show,
};
use cuda_driver_sys::*;

/// cuOccupancyMaxPotentialBlockSize's callback: 4 bytes of dynamic shared memory per thread.
unsafe extern "C" fn smem_per_block(block_size: c_int) -> usize {
    block_size as usize * 4
}

/// A host function enqueued on a stream: counts its calls.
unsafe extern "C" fn count_call(user_data: *mut c_void) {
    unsafe { *(user_data as *mut c_int) += 1 };
}

/// Launches `fill` (64 threads, out[i] = value + i) with one attribute, and checks the output
/// where the launch succeeded.
fn launch_with(
    what: &str,
    fill: CUfunction,
    stream: CUstream,
    mut out: CUdeviceptr,
    mut attr: CUlaunchAttribute,
) {
    let mut value: c_uint = 1000 * attr.id.0;
    let mut args: [*mut c_void; 2] = [&raw mut out as *mut c_void, &raw mut value as *mut c_void];
    let mut config: CUlaunchConfig = unsafe { zeroed() };
    config.gridDimX = 1;
    config.gridDimY = 1;
    config.gridDimZ = 1;
    config.blockDimX = 64;
    config.blockDimY = 1;
    config.blockDimZ = 1;
    config.hStream = stream;
    config.attrs = &mut attr;
    config.numAttrs = 1;
    check!(unsafe { cuMemsetD32(out, 0, 64) });
    if !show(what, unsafe {
        cuLaunchKernelEx(&config, fill, args.as_mut_ptr(), ptr::null_mut())
    }) {
        return;
    }
    check!(unsafe { cuStreamSynchronize(stream) });
    let mut host = [0 as c_uint; 64];
    check!(unsafe {
        cuMemcpyDtoH(
            host.as_mut_ptr() as *mut c_void,
            out,
            size_of::<[c_uint; 64]>(),
        )
    });
    let same = (0..64).filter(|&i| host[i as usize] == value + i).count();
    expect_all("  its output", same, 64);
}

fn main() {
    if !check!(unsafe { cuInit(0) }) {
        exit(1);
    }
    let Some((device, _)) = primary_context() else {
        finish();
    };
    let (mut major, mut minor): (c_int, c_int) = (0, 0);
    check!(unsafe {
        cuDeviceGetAttribute(
            &mut major,
            CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
            device,
        )
    });
    check!(unsafe {
        cuDeviceGetAttribute(
            &mut minor,
            CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
            device,
        )
    });
    println!("compute capability {}.{}", major, minor);
    if major < 9 {
        expect(
            false,
            "clusters and programmatic launches need compute capability 9.0",
        );
        finish();
    }
    let module = load_module("launch.ptx");
    if module.is_null() {
        finish();
    }

    // The function queries.
    let names: [&CStr; 6] = [
        c"cluster_ranks",
        c"grid_barrier",
        c"pdl_primary",
        c"pdl_secondary",
        c"fill",
        c"scale",
    ];
    let mut f: [CUfunction; 6] = [ptr::null_mut(); 6];
    for k in 0..6 {
        if !check!(unsafe { cuModuleGetFunction(&mut f[k], module, names[k].as_ptr()) }) {
            finish();
        }
        let mut name: *const c_char = ptr::null();
        show("cuFuncGetName", unsafe { cuFuncGetName(&mut name, f[k]) });
        println!("  name = {}", unsafe { s(name) });
        let mut owner: CUmodule = ptr::null_mut();
        show("cuFuncGetModule", unsafe {
            cuFuncGetModule(&mut owner, f[k])
        });
        println!(
            "  the module loaded: {}",
            if owner == module { "yes" } else { "no" }
        );
        let mut i: usize = 0;
        loop {
            let (mut offset, mut size): (usize, usize) = (0, 0);
            if unsafe { cuFuncGetParamInfo(f[k], i, &mut offset, &mut size) } != CUDA_SUCCESS {
                println!("  cuFuncGetParamInfo: {} parameters", i);
                break;
            }
            println!("  parameter {}: offset {}, size {}", i, offset, size);
            i += 1;
        }
        #[cfg(feature = "cuda-13020")]
        {
            let mut count: usize = 0;
            let code = entry::cuFuncGetParamCount_v13020
                .get()
                .map_or(CUDA_ERROR_NOT_FOUND, |get_param_count| unsafe {
                    get_param_count(f[k], &mut count)
                });
            if show("cuFuncGetParamCount", code) {
                println!("  count = {}", count);
            }
        }
    }
    let mut state = CU_FUNCTION_LOADING_STATE_UNLOADED;
    show("cuFuncLoad", unsafe { cuFuncLoad(f[0]) });
    show("cuFuncIsLoaded", unsafe {
        cuFuncIsLoaded(&mut state, f[0])
    });
    println!(
        "  cluster_ranks loaded: {}",
        if state == CU_FUNCTION_LOADING_STATE_LOADED {
            "yes"
        } else {
            "no"
        }
    );
    #[allow(deprecated)] // this header's CU_FUNC_ATTRIBUTE_MAX, as C's
    let max = CU_FUNC_ATTRIBUTE_MAX.0 as c_int;
    for a in 0..max {
        let mut value: c_int = -1;
        let code = unsafe { cuFuncGetAttribute(&mut value, CUfunction_attribute(a as _), f[0]) };
        println!("  cuFuncGetAttribute({a}): {}, {value}", result_name(code));
    }
    show(
        "cuFuncSetAttribute(NON_PORTABLE_CLUSTER_SIZE_ALLOWED)",
        unsafe { cuFuncSetAttribute(f[0], CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1) },
    );
    show(
        "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)",
        unsafe {
            cuFuncSetAttribute(
                f[4],
                CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                64 * 1024,
            )
        },
    );
    show(
        "cuFuncSetAttribute(PREFERRED_SHARED_MEMORY_CARVEOUT)",
        unsafe { cuFuncSetAttribute(f[4], CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, 50) },
    );
    show("cuFuncSetCacheConfig", unsafe {
        cuFuncSetCacheConfig(f[4], CU_FUNC_CACHE_PREFER_SHARED)
    });
    show("cuFuncSetSharedMemConfig", unsafe {
        cuFuncSetSharedMemConfig(f[4], CU_SHARED_MEM_CONFIG_DEFAULT_BANK_SIZE)
    });

    // Occupancy.
    let (mut blocks, mut min_grid, mut block, mut clusters, mut cluster_size): (
        c_int,
        c_int,
        c_int,
        c_int,
        c_int,
    ) = (0, 0, 0, 0, 0);
    let mut smem: usize = 0;
    show("cuOccupancyMaxActiveBlocksPerMultiprocessor", unsafe {
        cuOccupancyMaxActiveBlocksPerMultiprocessor(&mut blocks, f[4], 256, 0)
    });
    println!("  fill, 256 threads: {} blocks per SM", blocks);
    show(
        "cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags",
        unsafe {
            cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
                &mut blocks,
                f[4],
                256,
                8192,
                CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE.0,
            )
        },
    );
    println!("  fill, 256 threads, 8 KiB: {} blocks per SM", blocks);
    show("cuOccupancyMaxPotentialBlockSize", unsafe {
        cuOccupancyMaxPotentialBlockSize(&mut min_grid, &mut block, f[4], None, 0, 0)
    });
    println!("  fill: block size {}, minimum grid {}", block, min_grid);
    show("cuOccupancyMaxPotentialBlockSizeWithFlags", unsafe {
        cuOccupancyMaxPotentialBlockSizeWithFlags(
            &mut min_grid,
            &mut block,
            f[4],
            Some(smem_per_block),
            0,
            512,
            CU_OCCUPANCY_DEFAULT.0,
        )
    });
    println!(
        "  fill, 4 bytes per thread, at most 512: block size {}, minimum grid {}",
        block, min_grid
    );
    show("cuOccupancyAvailableDynamicSMemPerBlock", unsafe {
        cuOccupancyAvailableDynamicSMemPerBlock(&mut smem, f[4], 2, 256)
    });
    println!("  fill, 2 blocks of 256 per SM: {} bytes", smem);
    let mut cluster_attr: CUlaunchAttribute = unsafe { zeroed() };
    cluster_attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    cluster_attr.value.clusterDim.x = 2;
    cluster_attr.value.clusterDim.y = 1;
    cluster_attr.value.clusterDim.z = 1;
    let mut config: CUlaunchConfig = unsafe { zeroed() };
    config.gridDimX = 8;
    config.gridDimY = 1;
    config.gridDimZ = 1;
    config.blockDimX = 32;
    config.blockDimY = 1;
    config.blockDimZ = 1;
    show("cuOccupancyMaxPotentialClusterSize", unsafe {
        cuOccupancyMaxPotentialClusterSize(&mut cluster_size, f[0], &config)
    });
    println!(
        "  cluster_ranks, 32 threads: at most {} blocks per cluster",
        cluster_size
    );
    config.attrs = &mut cluster_attr;
    config.numAttrs = 1;
    show("cuOccupancyMaxActiveClusters", unsafe {
        cuOccupancyMaxActiveClusters(&mut clusters, f[0], &config)
    });
    println!(
        "  cluster_ranks, clusters of 2: {} active clusters",
        clusters
    );

    let mut stream: CUstream = ptr::null_mut();
    let mut other: CUstream = ptr::null_mut();
    check!(unsafe { cuStreamCreate(&mut stream, CU_STREAM_NON_BLOCKING.0) });
    check!(unsafe { cuStreamCreate(&mut other, CU_STREAM_NON_BLOCKING.0) });
    let (mut out, mut data, mut counter): (CUdeviceptr, CUdeviceptr, CUdeviceptr) = (0, 0, 0);
    check!(unsafe { cuMemAlloc(&mut out, 1024 * size_of::<c_uint>()) });
    check!(unsafe { cuMemAlloc(&mut data, 64 * size_of::<c_uint>()) });
    check!(unsafe { cuMemAlloc(&mut counter, size_of::<c_uint>()) });
    let mut host = [0 as c_uint; 1024];
    let host_ptr = host.as_mut_ptr() as *mut c_void;

    // A cluster of 2 and one of 4 blocks, with the cluster scheduling policy preference: each
    // block read its neighbour's shared memory.
    let mut size: c_uint = 2;
    while size <= 4 {
        let mut attrs: [CUlaunchAttribute; 2] = unsafe { zeroed() };
        attrs[0].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
        attrs[0].value.clusterDim.x = size;
        attrs[0].value.clusterDim.y = 1;
        attrs[0].value.clusterDim.z = 1;
        attrs[1].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE;
        attrs[1].value.clusterSchedulingPolicyPreference = CU_CLUSTER_SCHEDULING_POLICY_SPREAD;
        config.hStream = stream;
        config.attrs = attrs.as_mut_ptr();
        config.numAttrs = 2;
        let mut args: [*mut c_void; 1] = [&raw mut out as *mut c_void];
        check!(unsafe { cuMemsetD32(out, 0xffffffff, 24) });
        println!("clusters of {} blocks:", size);
        if show(
            "  cuLaunchKernelEx(CLUSTER_DIMENSION, CLUSTER_SCHEDULING_POLICY_PREFERENCE)",
            unsafe { cuLaunchKernelEx(&config, f[0], args.as_mut_ptr(), ptr::null_mut()) },
        ) {
            check!(unsafe { cuStreamSynchronize(stream) });
            check!(unsafe { cuMemcpyDtoH(host_ptr, out, 24 * size_of::<c_uint>()) });
            let mut same = 0;
            for b in 0..8 as c_uint {
                let rank = b % size;
                let next = b - rank + (rank + 1) % size;
                let b = b as usize;
                if host[3 * b] == rank && host[3 * b + 1] == size && host[3 * b + 2] == next {
                    same += 1;
                }
            }
            println!(
                "  block 1: rank {} of {}, read {} from its neighbour",
                host[3], host[4], host[5]
            );
            expect_all("  blocks with their rank and their neighbour's", same, 8);
        } else {
            expect(false, "a cluster launch");
        }
        size += 2;
    }

    // Cooperative launches: every block of the grid resident at once, so the barrier ends.
    let mut coop_args: [*mut c_void; 2] =
        [&raw mut counter as *mut c_void, &raw mut out as *mut c_void];
    let mut coop: CUlaunchAttribute = unsafe { zeroed() };
    coop.id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
    coop.value.cooperative = 1;
    config.gridDimX = 8;
    config.blockDimX = 32;
    config.attrs = &mut coop;
    config.numAttrs = 1;
    for way in 0..3 {
        check!(unsafe { cuMemsetD32(counter, 0, 1) });
        check!(unsafe { cuMemsetD32(out, 0, 8) });
        let launched = if way == 0 {
            show("cuLaunchKernelEx(COOPERATIVE)", unsafe {
                cuLaunchKernelEx(&config, f[1], coop_args.as_mut_ptr(), ptr::null_mut())
            })
        } else if way == 1 {
            show("cuLaunchCooperativeKernel", unsafe {
                cuLaunchCooperativeKernel(
                    f[1],
                    8,
                    1,
                    1,
                    32,
                    1,
                    1,
                    0,
                    stream,
                    coop_args.as_mut_ptr(),
                )
            })
        } else {
            let mut params: CUDA_LAUNCH_PARAMS = unsafe { zeroed() };
            params.function = f[1];
            params.gridDimX = 8;
            params.gridDimY = 1;
            params.gridDimZ = 1;
            params.blockDimX = 32;
            params.blockDimY = 1;
            params.blockDimZ = 1;
            params.hStream = stream;
            params.kernelParams = coop_args.as_mut_ptr();
            show("cuLaunchCooperativeKernelMultiDevice", unsafe {
                cuLaunchCooperativeKernelMultiDevice(&mut params, 1, 0)
            })
        };
        if launched {
            check!(unsafe { cuStreamSynchronize(stream) });
            check!(unsafe { cuMemcpyDtoH(host_ptr, out, size_of::<[c_uint; 8]>()) });
            let same = host[..8].iter().filter(|&&h| h == 8).count();
            expect_all("  blocks that saw all 8 at the barrier", same, 8);
        } else {
            expect(way == 2, "a cooperative launch");
        }
    }

    // Programmatic dependent launch: the secondary starts before the primary ends and waits for
    // its memory (griddepcontrol.wait); first serialized in one stream, then through the event
    // the primary triggers, waited for by another stream.
    let mut programmatic: CUevent = ptr::null_mut();
    check!(unsafe { cuEventCreate(&mut programmatic, CU_EVENT_DISABLE_TIMING.0) });
    for way in 0..2 {
        check!(unsafe { cuMemsetD32(data, 0, 64) });
        check!(unsafe { cuMemsetD32(out, 0, 64) });
        let mut attr: CUlaunchAttribute = unsafe { zeroed() };
        config.gridDimX = 1;
        config.blockDimX = 64;
        config.hStream = stream;
        let mut primary_args: [*mut c_void; 1] = [&raw mut data as *mut c_void];
        let mut secondary_args: [*mut c_void; 2] =
            [&raw mut data as *mut c_void, &raw mut out as *mut c_void];
        let (first, second);
        if way == 0 {
            config.numAttrs = 0;
            first = show("cuLaunchKernelEx(pdl_primary)", unsafe {
                cuLaunchKernelEx(&config, f[2], primary_args.as_mut_ptr(), ptr::null_mut())
            });
            attr.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
            attr.value.programmaticStreamSerializationAllowed = 1;
            config.attrs = &mut attr;
            config.numAttrs = 1;
            second = show(
                "cuLaunchKernelEx(PROGRAMMATIC_STREAM_SERIALIZATION)",
                unsafe {
                    cuLaunchKernelEx(&config, f[3], secondary_args.as_mut_ptr(), ptr::null_mut())
                },
            );
        } else {
            attr.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT;
            attr.value.programmaticEvent.event = programmatic;
            attr.value.programmaticEvent.flags = 0;
            attr.value.programmaticEvent.triggerAtBlockStart = 0;
            config.attrs = &mut attr;
            config.numAttrs = 1;
            first = show("cuLaunchKernelEx(PROGRAMMATIC_EVENT)", unsafe {
                cuLaunchKernelEx(&config, f[2], primary_args.as_mut_ptr(), ptr::null_mut())
            });
            check!(unsafe { cuStreamWaitEvent(other, programmatic, 0) });
            config.hStream = other;
            config.numAttrs = 0;
            second = show("cuLaunchKernelEx(pdl_secondary)", unsafe {
                cuLaunchKernelEx(&config, f[3], secondary_args.as_mut_ptr(), ptr::null_mut())
            });
        }
        check!(unsafe { cuStreamSynchronize(stream) });
        check!(unsafe { cuStreamSynchronize(other) });
        if first && second {
            check!(unsafe { cuMemcpyDtoH(host_ptr, out, 64 * size_of::<c_uint>()) });
            let same = (0..64)
                .filter(|&i| host[i] == 2 * (i as c_uint + 1))
                .count();
            expect_all("  elements the secondary read from the primary", same, 64);
        } else {
            expect(false, "a programmatic dependent launch");
        }
    }

    // One attribute per launch.
    let (mut least, mut greatest): (c_int, c_int) = (0, 0);
    check!(unsafe { cuCtxGetStreamPriorityRange(&mut least, &mut greatest) });
    let mut attr: CUlaunchAttribute = unsafe { zeroed() };
    attr.id = CU_LAUNCH_ATTRIBUTE_IGNORE;
    launch_with("cuLaunchKernelEx(IGNORE)", f[4], stream, out, attr);
    attr = unsafe { zeroed() };
    attr.id = CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW;
    attr.value.accessPolicyWindow.base_ptr = out as *mut c_void;
    attr.value.accessPolicyWindow.num_bytes = 4096;
    attr.value.accessPolicyWindow.hitRatio = 0.5;
    attr.value.accessPolicyWindow.hitProp = CU_ACCESS_PROPERTY_PERSISTING;
    attr.value.accessPolicyWindow.missProp = CU_ACCESS_PROPERTY_STREAMING;
    launch_with(
        "cuLaunchKernelEx(ACCESS_POLICY_WINDOW)",
        f[4],
        stream,
        out,
        attr,
    );
    attr = unsafe { zeroed() };
    attr.id = CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY;
    attr.value.syncPolicy = CU_SYNC_POLICY_SPIN;
    launch_with(
        "cuLaunchKernelEx(SYNCHRONIZATION_POLICY)",
        f[4],
        stream,
        out,
        attr,
    );
    attr = unsafe { zeroed() };
    attr.id = CU_LAUNCH_ATTRIBUTE_PRIORITY;
    attr.value.priority = greatest;
    launch_with("cuLaunchKernelEx(PRIORITY)", f[4], stream, out, attr);
    attr = unsafe { zeroed() };
    attr.id = CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP;
    attr.value.memSyncDomainMap.default_ = 0;
    attr.value.memSyncDomainMap.remote = 1;
    launch_with(
        "cuLaunchKernelEx(MEM_SYNC_DOMAIN_MAP)",
        f[4],
        stream,
        out,
        attr,
    );
    attr = unsafe { zeroed() };
    attr.id = CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN;
    attr.value.memSyncDomain = CU_LAUNCH_MEM_SYNC_DOMAIN_REMOTE;
    launch_with("cuLaunchKernelEx(MEM_SYNC_DOMAIN)", f[4], stream, out, attr);
    let mut completion: CUevent = ptr::null_mut();
    check!(unsafe { cuEventCreate(&mut completion, CU_EVENT_DISABLE_TIMING.0) });
    attr = unsafe { zeroed() };
    attr.id = CU_LAUNCH_ATTRIBUTE_LAUNCH_COMPLETION_EVENT;
    attr.value.launchCompletionEvent.event = completion;
    attr.value.launchCompletionEvent.flags = 0;
    launch_with(
        "cuLaunchKernelEx(LAUNCH_COMPLETION_EVENT)",
        f[4],
        stream,
        out,
        attr,
    );
    attr = unsafe { zeroed() };
    attr.id = CU_LAUNCH_ATTRIBUTE_DEVICE_UPDATABLE_KERNEL_NODE;
    attr.value.deviceUpdatableKernelNode.deviceUpdatable = 1;
    launch_with(
        "cuLaunchKernelEx(DEVICE_UPDATABLE_KERNEL_NODE)",
        f[4],
        stream,
        out,
        attr,
    );
    #[cfg(feature = "cuda-12050")]
    {
        attr = unsafe { zeroed() };
        attr.id = CU_LAUNCH_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT;
        attr.value.sharedMemCarveout = 25;
        launch_with(
            "cuLaunchKernelEx(PREFERRED_SHARED_MEMORY_CARVEOUT)",
            f[4],
            stream,
            out,
            attr,
        );
    }
    #[cfg(feature = "cuda-12080")]
    {
        attr = unsafe { zeroed() };
        attr.id = CU_LAUNCH_ATTRIBUTE_PREFERRED_CLUSTER_DIMENSION;
        attr.value.preferredClusterDim.x = 1;
        attr.value.preferredClusterDim.y = 1;
        attr.value.preferredClusterDim.z = 1;
        launch_with(
            "cuLaunchKernelEx(PREFERRED_CLUSTER_DIMENSION)",
            f[4],
            stream,
            out,
            attr,
        );
    }
    #[cfg(feature = "cuda-13000")]
    {
        attr = unsafe { zeroed() };
        attr.id = CU_LAUNCH_ATTRIBUTE_NVLINK_UTIL_CENTRIC_SCHEDULING;
        attr.value.nvlinkUtilCentricScheduling = 1;
        launch_with(
            "cuLaunchKernelEx(NVLINK_UTIL_CENTRIC_SCHEDULING)",
            f[4],
            stream,
            out,
            attr,
        );
    }
    #[cfg(feature = "cuda-13020")]
    {
        attr = unsafe { zeroed() };
        attr.id = CU_LAUNCH_ATTRIBUTE_PORTABLE_CLUSTER_SIZE_MODE;
        attr.value.portableClusterSizeMode = CU_LAUNCH_PORTABLE_CLUSTER_MODE_DEFAULT;
        launch_with(
            "cuLaunchKernelEx(PORTABLE_CLUSTER_SIZE_MODE)",
            f[4],
            stream,
            out,
            attr,
        );
        attr = unsafe { zeroed() };
        attr.id = CU_LAUNCH_ATTRIBUTE_SHARED_MEMORY_MODE;
        attr.value.sharedMemoryMode = CU_SHARED_MEMORY_MODE_DEFAULT;
        launch_with(
            "cuLaunchKernelEx(SHARED_MEMORY_MODE)",
            f[4],
            stream,
            out,
            attr,
        );
    }

    // cuLaunchKernel with its arguments packed in one buffer (CU_LAUNCH_PARAM_*).
    #[repr(C)]
    struct Packed {
        out: CUdeviceptr,
        value: c_uint,
        pad: c_uint,
    }
    let mut packed = Packed {
        out,
        value: 7,
        pad: 0,
    };
    let _ = packed.pad;
    let mut packed_size: usize = 12; // the parameters' size: the pointer at 0, the value at 8
    let mut extra: [*mut c_void; 5] = [
        CU_LAUNCH_PARAM_BUFFER_POINTER,
        &raw mut packed as *mut c_void,
        CU_LAUNCH_PARAM_BUFFER_SIZE,
        &raw mut packed_size as *mut c_void,
        CU_LAUNCH_PARAM_END,
    ];
    if show("cuLaunchKernel(extra)", unsafe {
        cuLaunchKernel(
            f[4],
            1,
            1,
            1,
            64,
            1,
            1,
            0,
            stream,
            ptr::null_mut(),
            extra.as_mut_ptr(),
        )
    }) {
        check!(unsafe { cuStreamSynchronize(stream) });
        check!(unsafe { cuMemcpyDtoH(host_ptr, out, 64 * size_of::<c_uint>()) });
        let same = (0..64).filter(|&i| host[i] == 7 + i as c_uint).count();
        expect_all("  its output", same, 64);
    } else {
        expect(false, "cuLaunchKernel with a packed buffer");
    }

    // Host functions.
    let mut calls: c_int = 0;
    show("cuLaunchHostFunc", unsafe {
        cuLaunchHostFunc(stream, Some(count_call), &raw mut calls as *mut c_void)
    });
    check!(unsafe { cuStreamSynchronize(stream) });
    #[cfg(feature = "cuda-13020")]
    {
        let code = entry::cuLaunchHostFunc_v13010.get().map_or(
            CUDA_ERROR_NOT_FOUND,
            |launch_host_func2| unsafe {
                launch_host_func2(stream, Some(count_call), &raw mut calls as *mut c_void, 0)
            },
        );
        show("cuLaunchHostFunc_v2", code);
        check!(unsafe { cuStreamSynchronize(stream) });
    }
    println!("  host function calls: {}", calls);
    expect(calls >= 1, "the host function ran");

    // The CUDA 3 launch API: block shape, shared size and parameters set on the function, then
    // a grid of 1 (cuLaunch), 2 (cuLaunchGrid) and 4 blocks (cuLaunchGridAsync) of 64 threads.
    let factor: f32 = 2.5;
    let n: c_int = 256;
    show("cuFuncSetBlockShape", unsafe {
        cuFuncSetBlockShape(f[5], 64, 1, 1)
    });
    show("cuFuncSetSharedSize", unsafe {
        cuFuncSetSharedSize(f[5], 0)
    });
    show("cuParamSetv", unsafe {
        cuParamSetv(
            f[5],
            0,
            &raw mut out as *mut c_void,
            size_of::<CUdeviceptr>() as c_uint,
        )
    });
    show("cuParamSeti", unsafe { cuParamSeti(f[5], 8, n as c_uint) });
    show("cuParamSetf", unsafe { cuParamSetf(f[5], 12, factor) });
    show("cuParamSetSize", unsafe { cuParamSetSize(f[5], 16) });
    show("cuParamSetTexRef", unsafe {
        cuParamSetTexRef(f[5], CU_PARAM_TR_DEFAULT, ptr::null_mut())
    });
    for way in 0..3 {
        let grid: c_int = 1 << way;
        check!(unsafe { cuMemsetD32(out, 0, 256) });
        let launched = if way == 0 {
            show("cuLaunch", unsafe { cuLaunch(f[5]) })
        } else if way == 1 {
            show("cuLaunchGrid", unsafe { cuLaunchGrid(f[5], grid, 1) })
        } else {
            show("cuLaunchGridAsync", unsafe {
                cuLaunchGridAsync(f[5], grid, 1, stream)
            })
        };
        if !launched {
            continue;
        }
        check!(unsafe { cuCtxSynchronize() });
        let mut values = [0f32; 256];
        check!(unsafe {
            cuMemcpyDtoH(
                values.as_mut_ptr() as *mut c_void,
                out,
                size_of::<[f32; 256]>(),
            )
        });
        let expected = |i: c_int| {
            if i < 64 * grid {
                factor * i as f32
            } else {
                0.0
            }
        };
        let same = (0..256)
            .filter(|&i| values[i as usize] == expected(i))
            .count();
        expect_all("  its output", same, 256);
    }

    check!(unsafe { cuEventDestroy(completion) });
    check!(unsafe { cuEventDestroy(programmatic) });
    check!(unsafe { cuMemFree(counter) });
    check!(unsafe { cuMemFree(data) });
    check!(unsafe { cuMemFree(out) });
    check!(unsafe { cuStreamDestroy(other) });
    check!(unsafe { cuStreamDestroy(stream) });
    check!(unsafe { cuModuleUnload(module) });
    check!(unsafe { cuDevicePrimaryCtxRelease(device) });
    finish()
}
