//! The launch and occupancy groups of the Driver API on a Hopper GPU, each claim checked by what
//! the GPU wrote (C twin: launch.cpp; kernels: examples/kernels/launch.ptx, compute_90, from
//! launch.cu; argv[1] is the kernels folder):
//!
//! - the function queries: each kernel's name, module and parameter count as its source gives
//!   them, cluster_ranks loaded (cuFuncLoad); the attributes printed, and those set read back; the
//!   occupancy queries printed;
//! - thread block clusters (CLUSTER_DIMENSION, with CLUSTER_SCHEDULING_POLICY_PREFERENCE; then
//!   PREFERRED_CLUSTER_DIMENSION, and PORTABLE_CLUSTER_SIZE_MODE): each block reports its rank,
//!   its cluster's size and what its neighbour in the cluster stored in its shared memory;
//! - cooperative launches (cuLaunchKernelEx(COOPERATIVE), cuLaunchCooperativeKernel, the
//!   deprecated multi-device form) of a grid as large as the occupancy calculator says can be
//!   resident (its blocks per SM times the SMs): every block finds the grid workspace that only a
//!   cooperative launch gives, passes the grid barrier on it and then reads what every block wrote
//!   before it; one block more is refused (CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE);
//! - programmatic dependent launch through stream serialization: the dependent begins before the
//!   primary ends (the primary, after its trigger, sees the flag the dependent raises before its
//!   griddepcontrol.wait), and after its wait reads the data the primary writes only then; through
//!   the programmatic event, waited for by another stream: the dependent reads that data (the
//!   event's waiters need not see its trigger before the primary ends, the driver API says, and on
//!   an H200 they did not);
//! - the launch completion event: a kernel waiting for it runs while the first kernel still runs,
//!   and not before the first began (held back behind a slow kernel in its stream);
//! - the synchronization policy, an attribute of streams: set on a stream and read back;
//! - a device-updatable kernel node: the attribute on a launch captured into a graph, read back
//!   from the node, and the graph's output;
//! - the other launch attributes (priority, access policy window, memory synchronisation domains,
//!   shared memory carveout, NVLink-centric scheduling, shared memory mode), which change nothing
//!   a kernel can see: each launch succeeds and gives its output;
//! - cuLaunchKernel with a packed parameter buffer, host functions (each runs once) and the CUDA 3
//!   launch API (cuFuncSetBlockShape, cuFuncSetSharedSize, cuParamSet*, cuLaunchGrid): their
//!   outputs, and the dynamic shared memory the kernel was given.
//!
//! Each output is read by a copy in the launch's stream, which returns once the kernel is done;
//! where an earlier launch left in the output what the next must write, the words are cleared
//! first and the clear read back, so that a launch that wrote nothing fails.
//!
//! Every launch must succeed, but one with an attribute of a CUDA newer than the driver, which is
//! printed as refused with the driver's answer and not claimed. Functions of headers newer than
//! the GPU's driver (cuFuncGetParamCount, cuLaunchHostFunc_v2) are looked up with the typed
//! cuGetProcAddress (`entry`); where the driver has none, the program prints its answer
//! (`show_missing`). Every wait on the GPU ends within a second: a launch that does not do what it
//! claims fails a check, never hangs. Controls (`CUDA_GROUP_CONTROL`), each failing one check:
//! `plain_launch` launches grid_exchange with plain cuLaunchKernel (no grid workspace),
//! `no_trigger` leaves out the primary's trigger (the dependent begins only after the primary),
//! `plain_event` records an ordinary event after the kernel in place of its completion event.
//! Argument control (this side only, its output the twin's): `wrong_shared_bytes` asks, in each
//! launch of fill with one attribute, for 4 KiB of dynamic shared memory, which fill does not use.
#![allow(clippy::needless_range_loop)] // C's index loops, as the twin writes them

#[path = "common/mod.rs"]
mod common;

use std::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::mem::{size_of, zeroed};
use std::process::exit;
use std::ptr;

use common::{
    check, control, expect, expect_all, finish, load_module, primary_context, result_name, s, show,
    yes,
};
use cuda_driver_sys::*;

/// The kernels of launch.ptx, in the order of `main`'s `f`, and their parameter counts.
const KERNELS: [(&CStr, usize); 8] = [
    (c"cluster_ranks", 1),
    (c"grid_exchange", 2),
    (c"pdl_primary", 4),
    (c"pdl_secondary", 3),
    (c"raise_flag", 1),
    (c"fill", 2),
    (c"scale", 3),
    (c"slow_fill", 2),
];

/// grid_exchange's block size.
const EXCHANGE_THREADS: c_uint = 128;

/// What the program clears output words and flags to (launch.cu: a flag is raised at 1).
const CLEARED: c_uint = 0xffff_ffff;

/// What [`read_words`] leaves in a word its copy did not write: no kernel writes it.
const UNREAD: c_uint = 0xabab_abab;

/// The dynamic shared memory the CUDA 3 launches give scale (cuFuncSetSharedSize).
const SCALE_SHARED_BYTES: c_uint = 1024;

/// cuOccupancyMaxPotentialBlockSize's callback: 4 bytes of dynamic shared memory per thread.
unsafe extern "C" fn smem_per_block(block_size: c_int) -> usize {
    block_size as usize * 4
}

/// A host function enqueued on a stream: counts its calls.
unsafe extern "C" fn count_call(user_data: *mut c_void) {
    unsafe { *(user_data as *mut c_int) += 1 };
}

/// Prints the driver's answer to the launch `what`; whether the kernel runs. A launch with an
/// attribute of CUDA `since` (a `CUDA_VERSION`), newer than the driver, may be refused: printed
/// with the driver's answer and the reason, and not claimed. Any other refusal fails.
unsafe fn launched(what: &str, code: CUresult, since: c_int) -> bool {
    unsafe {
        let mut driver: c_int = 0;
        if code != CUDA_SUCCESS && cuDriverGetVersion(&mut driver) == CUDA_SUCCESS && driver < since
        {
            println!(
                "{what}: {} (refused: an attribute of CUDA {since}, above the driver's {driver})",
                result_name(code)
            );
            return false;
        }
        let ok = show(what, code);
        expect(ok, what);
        ok
    }
}

/// The launch attribute of clusters of `blocks` x 1 x 1 blocks.
fn cluster_dimension(blocks: c_uint) -> CUlaunchAttribute {
    let mut attr: CUlaunchAttribute = unsafe { zeroed() };
    attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attr.value.clusterDim.x = blocks;
    attr.value.clusterDim.y = 1;
    attr.value.clusterDim.z = 1;
    attr
}

/// A launch configuration of `grid` x 1 x 1 blocks of `block` x 1 x 1 threads on `stream`, with
/// no attributes.
fn launch_config(grid: c_uint, block: c_uint, stream: CUstream) -> CUlaunchConfig {
    let mut config: CUlaunchConfig = unsafe { zeroed() };
    config.gridDimX = grid;
    config.gridDimY = 1;
    config.gridDimZ = 1;
    config.blockDimX = block;
    config.blockDimY = 1;
    config.blockDimZ = 1;
    config.hStream = stream;
    config
}

/// Copies `count` words from `from` on the device, behind the work queued in `stream` (a copy to
/// pageable memory returns once done).
unsafe fn read_words(from: CUdeviceptr, count: usize, stream: CUstream) -> Vec<c_uint> {
    unsafe {
        let mut host = vec![UNREAD; count];
        check!(cuMemcpyDtoHAsync(
            host.as_mut_ptr() as *mut c_void,
            from,
            count * size_of::<c_uint>(),
            stream,
        ));
        host
    }
}

/// Sets the `count` words at `to` to `value` in `stream`, the stream of the launch that then writes
/// them, and checks that they read back so: a launch that wrote nothing then fails.
unsafe fn clear(to: CUdeviceptr, value: c_uint, count: usize, stream: CUstream) {
    unsafe {
        check!(cuMemsetD32Async(to, value, count, stream));
        let host = read_words(to, count, stream);
        let same = host.iter().filter(|&&word| word == value).count();
        expect(same == count, "the words cleared before a launch");
    }
}

/// Checks the output of `fill` at `out` (64 words: value + i), read behind the work of `stream`.
unsafe fn check_fill(out: CUdeviceptr, value: c_uint, stream: CUstream) {
    unsafe {
        let host = read_words(out, 64, stream);
        let same = (0..64).filter(|&i| host[i] == value + i as c_uint).count();
        expect_all("  its output", same, 64);
    }
}

/// Sets the attribute `attribute` of `f` to `value`, printing the driver's answer as `what`, and
/// checks that cuFuncGetAttribute reads it back.
unsafe fn set_attribute(what: &str, f: CUfunction, attribute: CUfunction_attribute, value: c_int) {
    unsafe {
        show(what, cuFuncSetAttribute(f, attribute, value));
        let mut read: c_int = -1;
        check!(cuFuncGetAttribute(&mut read, attribute, f));
        println!("  read back: {read}");
        expect(read == value, &format!("{what} read back"));
    }
}

/// Launches `fill` (64 threads, out[i] = value + i) with the attribute `attr` of CUDA `since`
/// (see [`launched`]), and checks its output. No clear first: the value is the attribute's own,
/// so the output of any other launch differs.
unsafe fn launch_with(
    what: &str,
    fill: CUfunction,
    stream: CUstream,
    mut out: CUdeviceptr,
    mut attr: CUlaunchAttribute,
    since: c_int,
) {
    unsafe {
        let mut value: c_uint = 1000 * attr.id.0;
        let mut args: [*mut c_void; 2] =
            [&raw mut out as *mut c_void, &raw mut value as *mut c_void];
        let mut config = launch_config(1, 64, stream);
        config.attrs = &mut attr;
        config.numAttrs = 1;
        if control("wrong_shared_bytes") {
            config.sharedMemBytes = 4096;
        }
        let code = cuLaunchKernelEx(&config, fill, args.as_mut_ptr(), ptr::null_mut());
        if launched(what, code, since) {
            check_fill(out, value, stream);
        }
    }
}

/// Launches `cluster_ranks` over 8 blocks of 32 threads with `attrs` (a cluster dimension of
/// `size` blocks among them; the newest of CUDA `since`, see [`launched`]), and checks what each
/// block reports: its rank in its cluster, the cluster's size, and the index its neighbour in the
/// cluster stored in its shared memory. Where `preferred` is not 0, a block's cluster may be of
/// `preferred` blocks (a preferred cluster dimension, which the device uses as it can).
#[allow(clippy::too_many_arguments)] // the launch's parts, as the twin takes them
unsafe fn launch_clusters(
    what: &str,
    cluster_ranks: CUfunction,
    stream: CUstream,
    mut out: CUdeviceptr,
    attrs: &mut [CUlaunchAttribute],
    size: c_uint,
    preferred: c_uint,
    since: c_int,
) {
    unsafe {
        let mut config = launch_config(8, 32, stream);
        config.attrs = attrs.as_mut_ptr();
        config.numAttrs = attrs.len() as c_uint;
        let mut args: [*mut c_void; 1] = [&raw mut out as *mut c_void];
        clear(out, CLEARED, 24, stream);
        let code = cuLaunchKernelEx(&config, cluster_ranks, args.as_mut_ptr(), ptr::null_mut());
        if !launched(what, code, since) {
            return;
        }
        let host = read_words(out, 24, stream);
        let mut same = 0;
        for b in 0..8 as c_uint {
            let i = 3 * b as usize;
            let cluster = host[i + 1];
            if cluster != size && (preferred == 0 || cluster != preferred) {
                continue;
            }
            let rank = b % cluster;
            let next = b - rank + (rank + 1) % cluster;
            if host[i] == rank && host[i + 2] == next {
                same += 1;
            }
        }
        if preferred == 0 {
            println!(
                "  block 1: rank {} of {}, read {} from its neighbour",
                host[3], host[4], host[5]
            );
        }
        expect_all("  blocks with their rank and their neighbour's", same, 8);
    }
}

fn main() {
    unsafe {
        if !check!(cuInit(0)) {
            exit(1);
        }
        let Some((device, _)) = primary_context() else {
            finish();
        };
        let (mut major, mut minor): (c_int, c_int) = (0, 0);
        check!(cuDeviceGetAttribute(
            &mut major,
            CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
            device,
        ));
        check!(cuDeviceGetAttribute(
            &mut minor,
            CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
            device,
        ));
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
        let mut f: [CUfunction; 8] = [ptr::null_mut(); 8];
        for k in 0..8 {
            let (kernel, parameters) = KERNELS[k];
            if !check!(cuModuleGetFunction(&mut f[k], module, kernel.as_ptr())) {
                finish();
            }
            let mut name: *const c_char = ptr::null();
            let named = show("cuFuncGetName", cuFuncGetName(&mut name, f[k]));
            if named {
                println!("  name = {}", s(name));
            }
            let same = named && !name.is_null() && CStr::from_ptr(name) == kernel;
            expect(same, "the kernel's name");
            let mut owner: CUmodule = ptr::null_mut();
            show("cuFuncGetModule", cuFuncGetModule(&mut owner, f[k]));
            println!("  the module loaded: {}", yes(owner == module));
            expect(owner == module, "the kernel's module");
            let mut i: usize = 0;
            loop {
                let (mut offset, mut size): (usize, usize) = (0, 0);
                if cuFuncGetParamInfo(f[k], i, &mut offset, &mut size) != CUDA_SUCCESS {
                    println!("  cuFuncGetParamInfo: {} parameters", i);
                    break;
                }
                println!("  parameter {}: offset {}, size {}", i, offset, size);
                i += 1;
            }
            expect(
                i == parameters,
                "the kernel's parameters (cuFuncGetParamInfo)",
            );
            #[cfg(feature = "cuda-13020")]
            match entry::cuFuncGetParamCount_v13020.get() {
                Ok(get_param_count) => {
                    let mut count: usize = 0;
                    let counted = show("cuFuncGetParamCount", get_param_count(f[k], &mut count));
                    if counted {
                        println!("  count = {}", count);
                    }
                    expect(
                        counted && count == parameters,
                        "the kernel's parameters (cuFuncGetParamCount)",
                    );
                }
                Err(e) => common::show_missing("cuFuncGetParamCount", e),
            }
        }
        let [cluster_ranks, grid_exchange, pdl_primary, pdl_secondary, raise_flag, fill, scale, slow_fill] =
            f;
        let mut state = CU_FUNCTION_LOADING_STATE_UNLOADED;
        show("cuFuncLoad", cuFuncLoad(cluster_ranks));
        show("cuFuncIsLoaded", cuFuncIsLoaded(&mut state, cluster_ranks));
        let loaded = state == CU_FUNCTION_LOADING_STATE_LOADED;
        println!("  cluster_ranks loaded: {}", yes(loaded));
        expect(loaded, "cluster_ranks loaded");
        #[allow(deprecated)] // this header's CU_FUNC_ATTRIBUTE_MAX, as C's
        let max = CU_FUNC_ATTRIBUTE_MAX.0 as c_int;
        for a in 0..max {
            let mut value: c_int = -1;
            let code = cuFuncGetAttribute(&mut value, CUfunction_attribute(a as _), cluster_ranks);
            println!("  cuFuncGetAttribute({a}): {}, {value}", result_name(code));
        }
        set_attribute(
            "cuFuncSetAttribute(NON_PORTABLE_CLUSTER_SIZE_ALLOWED)",
            cluster_ranks,
            CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED,
            1,
        );
        set_attribute(
            "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)",
            fill,
            CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            64 * 1024,
        );
        set_attribute(
            "cuFuncSetAttribute(PREFERRED_SHARED_MEMORY_CARVEOUT)",
            fill,
            CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT,
            50,
        );
        show(
            "cuFuncSetCacheConfig",
            cuFuncSetCacheConfig(fill, CU_FUNC_CACHE_PREFER_SHARED),
        );
        show(
            "cuFuncSetSharedMemConfig",
            cuFuncSetSharedMemConfig(fill, CU_SHARED_MEM_CONFIG_DEFAULT_BANK_SIZE),
        );

        // Occupancy.
        let (mut blocks, mut min_grid, mut block, mut clusters, mut cluster_size): (
            c_int,
            c_int,
            c_int,
            c_int,
            c_int,
        ) = (0, 0, 0, 0, 0);
        let mut smem: usize = 0;
        show(
            "cuOccupancyMaxActiveBlocksPerMultiprocessor",
            cuOccupancyMaxActiveBlocksPerMultiprocessor(&mut blocks, fill, 256, 0),
        );
        println!("  fill, 256 threads: {} blocks per SM", blocks);
        show(
            "cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags",
            cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
                &mut blocks,
                fill,
                256,
                8192,
                CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE.0,
            ),
        );
        println!("  fill, 256 threads, 8 KiB: {} blocks per SM", blocks);
        show(
            "cuOccupancyMaxPotentialBlockSize",
            cuOccupancyMaxPotentialBlockSize(&mut min_grid, &mut block, fill, None, 0, 0),
        );
        println!("  fill: block size {}, minimum grid {}", block, min_grid);
        show(
            "cuOccupancyMaxPotentialBlockSizeWithFlags",
            cuOccupancyMaxPotentialBlockSizeWithFlags(
                &mut min_grid,
                &mut block,
                fill,
                Some(smem_per_block),
                0,
                512,
                CU_OCCUPANCY_DEFAULT.0,
            ),
        );
        println!(
            "  fill, 4 bytes per thread, at most 512: block size {}, minimum grid {}",
            block, min_grid
        );
        show(
            "cuOccupancyAvailableDynamicSMemPerBlock",
            cuOccupancyAvailableDynamicSMemPerBlock(&mut smem, fill, 2, 256),
        );
        println!("  fill, 2 blocks of 256 per SM: {} bytes", smem);
        let mut cluster_attr = cluster_dimension(2);
        let mut config = launch_config(8, 32, ptr::null_mut());
        show(
            "cuOccupancyMaxPotentialClusterSize",
            cuOccupancyMaxPotentialClusterSize(&mut cluster_size, cluster_ranks, &config),
        );
        println!(
            "  cluster_ranks, 32 threads: at most {} blocks per cluster",
            cluster_size
        );
        config.attrs = &mut cluster_attr;
        config.numAttrs = 1;
        show(
            "cuOccupancyMaxActiveClusters",
            cuOccupancyMaxActiveClusters(&mut clusters, cluster_ranks, &config),
        );
        println!(
            "  cluster_ranks, clusters of 2: {} active clusters",
            clusters
        );

        let mut stream: CUstream = ptr::null_mut();
        let mut other: CUstream = ptr::null_mut();
        check!(cuStreamCreate(&mut stream, CU_STREAM_NON_BLOCKING.0));
        check!(cuStreamCreate(&mut other, CU_STREAM_NON_BLOCKING.0));
        let (mut out, mut data, mut signals): (CUdeviceptr, CUdeviceptr, CUdeviceptr) = (0, 0, 0);
        check!(cuMemAlloc(&mut out, 1024 * size_of::<c_uint>()));
        check!(cuMemAlloc(&mut data, 64 * size_of::<c_uint>()));
        check!(cuMemAlloc(&mut signals, 6 * size_of::<c_uint>()));
        // Two sets of three words, the programmatic launches' and the completion event's (apart, so
        // that a late kernel of the first never writes into the second): the flag a kernel raises
        // for another to see, and the words where that one says whether it saw it, and whether it
        // was raised before it began.
        let word = size_of::<c_uint>() as CUdeviceptr;
        let mut flag: CUdeviceptr = signals;
        let mut saw: CUdeviceptr = signals + word;
        let completion_signals = signals + 3 * word;

        // Clusters of 2 and of 4 blocks, with the cluster scheduling policy preference; then clusters
        // of 2 with a preferred cluster of 4 (the device groups blocks by either), and clusters of 2
        // required to be of a portable size.
        let mut size: c_uint = 2;
        while size <= 4 {
            let mut attrs: [CUlaunchAttribute; 2] = zeroed();
            attrs[0] = cluster_dimension(size);
            attrs[1].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE;
            attrs[1].value.clusterSchedulingPolicyPreference = CU_CLUSTER_SCHEDULING_POLICY_SPREAD;
            println!("clusters of {} blocks:", size);
            launch_clusters(
                "cuLaunchKernelEx(CLUSTER_DIMENSION, CLUSTER_SCHEDULING_POLICY_PREFERENCE)",
                cluster_ranks,
                stream,
                out,
                &mut attrs,
                size,
                0,
                0,
            );
            size += 2;
        }
        #[cfg(feature = "cuda-12080")]
        {
            let mut attrs: [CUlaunchAttribute; 2] = zeroed();
            attrs[0] = cluster_dimension(2);
            attrs[1].id = CU_LAUNCH_ATTRIBUTE_PREFERRED_CLUSTER_DIMENSION;
            attrs[1].value.preferredClusterDim.x = 4;
            attrs[1].value.preferredClusterDim.y = 1;
            attrs[1].value.preferredClusterDim.z = 1;
            println!("clusters of 2 blocks, preferred 4:");
            launch_clusters(
                "cuLaunchKernelEx(CLUSTER_DIMENSION, PREFERRED_CLUSTER_DIMENSION)",
                cluster_ranks,
                stream,
                out,
                &mut attrs,
                2,
                4,
                12080,
            );
        }
        #[cfg(feature = "cuda-13020")]
        {
            let mut attrs: [CUlaunchAttribute; 2] = zeroed();
            attrs[0] = cluster_dimension(2);
            attrs[1].id = CU_LAUNCH_ATTRIBUTE_PORTABLE_CLUSTER_SIZE_MODE;
            attrs[1].value.portableClusterSizeMode =
                CU_LAUNCH_PORTABLE_CLUSTER_MODE_REQUIRE_PORTABLE;
            println!("clusters of 2 blocks, a portable size required:");
            launch_clusters(
                "cuLaunchKernelEx(CLUSTER_DIMENSION, PORTABLE_CLUSTER_SIZE_MODE)",
                cluster_ranks,
                stream,
                out,
                &mut attrs,
                2,
                0,
                13020,
            );
        }

        // Cooperative launches of a grid as large as can be resident at once: the occupancy
        // calculator's blocks per SM for grid_exchange times the SMs. Each block writes its slot,
        // passes the grid barrier (valid only where a cooperative launch gave the grid its workspace)
        // and counts the slots of the grid written before it.
        let (mut per_sm, mut sms): (c_int, c_int) = (0, 0);
        check!(cuOccupancyMaxActiveBlocksPerMultiprocessor(
            &mut per_sm,
            grid_exchange,
            EXCHANGE_THREADS as c_int,
            0,
        ));
        check!(cuDeviceGetAttribute(
            &mut sms,
            CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
            device
        ));
        let resident = (per_sm * sms).max(1) as c_uint;
        println!(
            "grid_exchange, {} threads: {} blocks per SM, {} SMs: a grid of {} blocks",
            EXCHANGE_THREADS, per_sm, sms, resident
        );
        let (mut slots, mut report): (CUdeviceptr, CUdeviceptr) = (0, 0);
        check!(cuMemAlloc(
            &mut slots,
            resident as usize * size_of::<c_uint>()
        ));
        check!(cuMemAlloc(
            &mut report,
            2 * resident as usize * size_of::<c_uint>()
        ));
        let mut exchange_args: [*mut c_void; 2] = [
            &raw mut slots as *mut c_void,
            &raw mut report as *mut c_void,
        ];
        let mut coop: CUlaunchAttribute = zeroed();
        coop.id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
        coop.value.cooperative = 1;
        let mut config = launch_config(resident, EXCHANGE_THREADS, stream);
        config.attrs = &mut coop;
        config.numAttrs = 1;
        let args = exchange_args.as_mut_ptr();
        for way in 0..3 {
            clear(slots, CLEARED, resident as usize, stream);
            clear(report, CLEARED, 2 * resident as usize, stream);
            let ok = if way == 0 && control("plain_launch") {
                let code = cuLaunchKernel(
                    grid_exchange,
                    resident,
                    1,
                    1,
                    EXCHANGE_THREADS,
                    1,
                    1,
                    0,
                    stream,
                    args,
                    ptr::null_mut(),
                );
                launched("cuLaunchKernel, not cooperative (the control)", code, 0)
            } else if way == 0 {
                let code = cuLaunchKernelEx(&config, grid_exchange, args, ptr::null_mut());
                launched("cuLaunchKernelEx(COOPERATIVE)", code, 0)
            } else if way == 1 {
                let code = cuLaunchCooperativeKernel(
                    grid_exchange,
                    resident,
                    1,
                    1,
                    EXCHANGE_THREADS,
                    1,
                    1,
                    0,
                    stream,
                    args,
                );
                launched("cuLaunchCooperativeKernel", code, 0)
            } else {
                let mut params: CUDA_LAUNCH_PARAMS = zeroed();
                params.function = grid_exchange;
                params.gridDimX = resident;
                params.gridDimY = 1;
                params.gridDimZ = 1;
                params.blockDimX = EXCHANGE_THREADS;
                params.blockDimY = 1;
                params.blockDimZ = 1;
                params.hStream = stream;
                params.kernelParams = args;
                let code = cuLaunchCooperativeKernelMultiDevice(&mut params, 1, 0);
                launched("cuLaunchCooperativeKernelMultiDevice", code, 0)
            };
            if ok {
                let host = read_words(report, 2 * resident as usize, stream);
                let given = (0..resident as usize).filter(|&b| host[2 * b] == 1).count();
                let seen = (0..resident as usize)
                    .filter(|&b| host[2 * b + 1] == resident)
                    .count();
                expect_all(
                    "blocks that found the grid workspace of a cooperative launch",
                    given,
                    resident as usize,
                );
                expect_all(
                    "blocks that read every block's slot after the grid barrier",
                    seen,
                    resident as usize,
                );
            }
        }
        let code = cuLaunchCooperativeKernel(
            grid_exchange,
            resident + 1,
            1,
            1,
            EXCHANGE_THREADS,
            1,
            1,
            0,
            stream,
            args,
        );
        show("cuLaunchCooperativeKernel, one block more", code);
        expect(
            code == CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE,
            "a cooperative grid of one block more than can be resident refused",
        );

        // Programmatic dependent launch: the dependent begins while the primary still runs, then
        // waits (griddepcontrol.wait) for the data the primary writes once it has seen the dependent
        // begin (and long after: a dependent that did not wait reads the cleared words); first
        // serialized in one stream, then through the event the primary triggers, waited for by another
        // stream.
        let mut programmatic: CUevent = ptr::null_mut();
        check!(cuEventCreate(&mut programmatic, CU_EVENT_DISABLE_TIMING.0));
        let mut trigger: c_uint = if control("no_trigger") { 0 } else { 1 };
        for way in 0..2 {
            clear(data, CLEARED, 64, stream);
            clear(out, CLEARED, 64, stream);
            clear(signals, CLEARED, 3, stream);
            let mut attr: CUlaunchAttribute = zeroed();
            let mut config = launch_config(1, 64, stream);
            let mut primary_args: [*mut c_void; 4] = [
                &raw mut data as *mut c_void,
                &raw mut flag as *mut c_void,
                &raw mut saw as *mut c_void,
                &raw mut trigger as *mut c_void,
            ];
            let mut secondary_args: [*mut c_void; 3] = [
                &raw mut data as *mut c_void,
                &raw mut out as *mut c_void,
                &raw mut flag as *mut c_void,
            ];
            let primary = primary_args.as_mut_ptr();
            let secondary = secondary_args.as_mut_ptr();
            let (first, second);
            if way == 0 {
                let code = cuLaunchKernelEx(&config, pdl_primary, primary, ptr::null_mut());
                first = launched("cuLaunchKernelEx(pdl_primary)", code, 0);
                attr.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
                attr.value.programmaticStreamSerializationAllowed = 1;
                config.attrs = &mut attr;
                config.numAttrs = 1;
                let code = cuLaunchKernelEx(&config, pdl_secondary, secondary, ptr::null_mut());
                second = launched(
                    "cuLaunchKernelEx(PROGRAMMATIC_STREAM_SERIALIZATION)",
                    code,
                    0,
                );
            } else {
                attr.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT;
                attr.value.programmaticEvent.event = programmatic;
                attr.value.programmaticEvent.flags = 0;
                attr.value.programmaticEvent.triggerAtBlockStart = 0;
                config.attrs = &mut attr;
                config.numAttrs = 1;
                let code = cuLaunchKernelEx(&config, pdl_primary, primary, ptr::null_mut());
                first = launched("cuLaunchKernelEx(PROGRAMMATIC_EVENT)", code, 0);
                check!(cuStreamWaitEvent(other, programmatic, 0));
                config.hStream = other;
                config.numAttrs = 0;
                let code = cuLaunchKernelEx(&config, pdl_secondary, secondary, ptr::null_mut());
                second = launched("cuLaunchKernelEx(pdl_secondary)", code, 0);
            }
            // The dependent's stream.
            let dependent = if way == 0 { stream } else { other };
            if first && second {
                if way == 0 {
                    let seen = read_words(saw, 1, stream)[0] == 1;
                    println!(
                        "the primary saw the dependent begin before it ended: {}",
                        yes(seen)
                    );
                    expect(seen, "the dependent began before the primary ended");
                }
                let host = read_words(out, 64, dependent);
                let same = (0..64)
                    .filter(|&i| host[i] == 2 * (i as c_uint + 1))
                    .count();
                expect_all("elements the dependent read from the primary", same, 64);
            }
        }

        // The launch completion event, recorded once every block of a kernel has begun: pdl_primary
        // (no trigger), held back behind slow_fill in its stream, waits for the flag raise_flag
        // raises, launched in another stream that waits for the event: raise_flag runs while the
        // first kernel runs, and not before it began (the flag was not raised when it began).
        let mut completion: CUevent = ptr::null_mut();
        check!(cuEventCreate(&mut completion, CU_EVENT_DISABLE_TIMING.0));
        clear(completion_signals, CLEARED, 3, stream);
        {
            let mut flag: CUdeviceptr = completion_signals;
            let mut saw: CUdeviceptr = completion_signals + word;
            let mut value: c_uint = 1000 * CU_LAUNCH_ATTRIBUTE_LAUNCH_COMPLETION_EVENT.0;
            let mut slow_args: [*mut c_void; 2] =
                [&raw mut out as *mut c_void, &raw mut value as *mut c_void];
            let code = cuLaunchKernel(
                slow_fill,
                1,
                1,
                1,
                64,
                1,
                1,
                0,
                stream,
                slow_args.as_mut_ptr(),
                ptr::null_mut(),
            );
            let held = launched("cuLaunchKernel(slow_fill)", code, 0);
            let mut no_trigger: c_uint = 0;
            let mut first_args: [*mut c_void; 4] = [
                &raw mut data as *mut c_void,
                &raw mut flag as *mut c_void,
                &raw mut saw as *mut c_void,
                &raw mut no_trigger as *mut c_void,
            ];
            let mut flag_args: [*mut c_void; 1] = [&raw mut flag as *mut c_void];
            let mut attr: CUlaunchAttribute = zeroed();
            attr.id = CU_LAUNCH_ATTRIBUTE_LAUNCH_COMPLETION_EVENT;
            attr.value.launchCompletionEvent.event = completion;
            attr.value.launchCompletionEvent.flags = 0;
            let mut config = launch_config(1, 64, stream);
            let first = if control("plain_event") {
                let code = cuLaunchKernelEx(
                    &config,
                    pdl_primary,
                    first_args.as_mut_ptr(),
                    ptr::null_mut(),
                );
                let ok = launched(
                    "cuLaunchKernelEx(pdl_primary), then cuEventRecord (the control)",
                    code,
                    0,
                );
                check!(cuEventRecord(completion, stream));
                ok
            } else {
                config.attrs = &mut attr;
                config.numAttrs = 1;
                let code = cuLaunchKernelEx(
                    &config,
                    pdl_primary,
                    first_args.as_mut_ptr(),
                    ptr::null_mut(),
                );
                launched("cuLaunchKernelEx(LAUNCH_COMPLETION_EVENT)", code, 0)
            };
            check!(cuStreamWaitEvent(other, completion, 0));
            let code = cuLaunchKernel(
                raise_flag,
                1,
                1,
                1,
                1,
                1,
                1,
                0,
                other,
                flag_args.as_mut_ptr(),
                ptr::null_mut(),
            );
            let second = launched("cuLaunchKernel(raise_flag)", code, 0);
            if first && second {
                let words = read_words(saw, 2, stream);
                let seen = words[0] == 1;
                println!(
                    "the first kernel saw the flag of the kernel after its completion event: {}",
                    yes(seen)
                );
                expect(
                    seen,
                    "the kernel after the launch completion event ran while the first ran",
                );
                let waited = words[1] == 0;
                println!(
                    "the flag was not raised when the first kernel began: {}",
                    yes(waited)
                );
                expect(
                    waited,
                    "the kernel after the launch completion event waited for the first to begin",
                );
            }
            if held {
                check_fill(out, value, stream);
            }
        }

        // The synchronization policy, an attribute of streams: set on `stream` and read back.
        let mut policy: CUstreamAttrValue = zeroed();
        policy.syncPolicy = CU_SYNC_POLICY_SPIN;
        let set = show(
            "cuStreamSetAttribute(SYNCHRONIZATION_POLICY)",
            cuStreamSetAttribute(stream, CU_STREAM_ATTRIBUTE_SYNCHRONIZATION_POLICY, &policy),
        );
        expect(set, "cuStreamSetAttribute(SYNCHRONIZATION_POLICY)");
        policy = zeroed();
        if show(
            "cuStreamGetAttribute(SYNCHRONIZATION_POLICY)",
            cuStreamGetAttribute(
                stream,
                CU_STREAM_ATTRIBUTE_SYNCHRONIZATION_POLICY,
                &mut policy,
            ),
        ) {
            let spin = policy.syncPolicy == CU_SYNC_POLICY_SPIN;
            println!("  read back CU_SYNC_POLICY_SPIN: {}", yes(spin));
            expect(spin, "the stream's synchronization policy");
        } else {
            expect(false, "cuStreamGetAttribute(SYNCHRONIZATION_POLICY)");
        }

        // A device-updatable kernel node, an attribute of graphs: on a launch of fill captured into a
        // graph, read back from the graph's kernel node; then the graph's output.
        {
            let mut value: c_uint = 1000 * CU_LAUNCH_ATTRIBUTE_DEVICE_UPDATABLE_KERNEL_NODE.0;
            let mut args: [*mut c_void; 2] =
                [&raw mut out as *mut c_void, &raw mut value as *mut c_void];
            let mut attr: CUlaunchAttribute = zeroed();
            attr.id = CU_LAUNCH_ATTRIBUTE_DEVICE_UPDATABLE_KERNEL_NODE;
            attr.value.deviceUpdatableKernelNode.deviceUpdatable = 1;
            let mut config = launch_config(1, 64, stream);
            config.attrs = &mut attr;
            config.numAttrs = 1;
            let mut graph: CUgraph = ptr::null_mut();
            check!(cuStreamBeginCapture(
                stream,
                CU_STREAM_CAPTURE_MODE_THREAD_LOCAL
            ));
            let code = cuLaunchKernelEx(&config, fill, args.as_mut_ptr(), ptr::null_mut());
            let captured = launched(
                "cuLaunchKernelEx(DEVICE_UPDATABLE_KERNEL_NODE), captured",
                code,
                0,
            );
            check!(cuStreamEndCapture(stream, &mut graph));
            if captured && !graph.is_null() {
                let mut count: usize = 0;
                check!(cuGraphGetNodes(graph, ptr::null_mut(), &mut count));
                let mut node: CUgraphNode = ptr::null_mut();
                let mut one: usize = 1;
                if count == 1 {
                    check!(cuGraphGetNodes(graph, &mut node, &mut one));
                }
                expect(
                    count == 1 && !node.is_null(),
                    "the captured graph's kernel node",
                );
                let mut updatable: CUkernelNodeAttrValue = zeroed();
                if !node.is_null()
                    && show(
                        "cuGraphKernelNodeGetAttribute(DEVICE_UPDATABLE_KERNEL_NODE)",
                        cuGraphKernelNodeGetAttribute(
                            node,
                            CU_KERNEL_NODE_ATTRIBUTE_DEVICE_UPDATABLE_KERNEL_NODE,
                            &mut updatable,
                        ),
                    )
                {
                    let on = updatable.deviceUpdatableKernelNode.deviceUpdatable == 1;
                    println!("  the node is device-updatable: {}", yes(on));
                    expect(on, "the node is device-updatable");
                } else {
                    expect(
                        false,
                        "cuGraphKernelNodeGetAttribute(DEVICE_UPDATABLE_KERNEL_NODE)",
                    );
                }
                let mut exec: CUgraphExec = ptr::null_mut();
                if check!(cuGraphInstantiate(&mut exec, graph, 0)) {
                    check!(cuGraphUpload(exec, stream));
                    let ran = show("cuGraphLaunch", cuGraphLaunch(exec, stream));
                    expect(ran, "cuGraphLaunch");
                    if ran {
                        check_fill(out, value, stream);
                    }
                    check!(cuGraphExecDestroy(exec));
                }
            }
            if !graph.is_null() {
                check!(cuGraphDestroy(graph));
            }
        }

        // One attribute per launch, each of an effect no kernel can see.
        let (mut least, mut greatest): (c_int, c_int) = (0, 0);
        check!(cuCtxGetStreamPriorityRange(&mut least, &mut greatest));
        let mut attr: CUlaunchAttribute = zeroed();
        attr.id = CU_LAUNCH_ATTRIBUTE_IGNORE;
        launch_with("cuLaunchKernelEx(IGNORE)", fill, stream, out, attr, 0);
        attr = zeroed();
        attr.id = CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW;
        attr.value.accessPolicyWindow.base_ptr = out as *mut c_void;
        attr.value.accessPolicyWindow.num_bytes = 4096;
        attr.value.accessPolicyWindow.hitRatio = 0.5;
        attr.value.accessPolicyWindow.hitProp = CU_ACCESS_PROPERTY_PERSISTING;
        attr.value.accessPolicyWindow.missProp = CU_ACCESS_PROPERTY_STREAMING;
        launch_with(
            "cuLaunchKernelEx(ACCESS_POLICY_WINDOW)",
            fill,
            stream,
            out,
            attr,
            0,
        );
        attr = zeroed();
        attr.id = CU_LAUNCH_ATTRIBUTE_PRIORITY;
        attr.value.priority = greatest;
        launch_with("cuLaunchKernelEx(PRIORITY)", fill, stream, out, attr, 0);
        attr = zeroed();
        attr.id = CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP;
        attr.value.memSyncDomainMap.default_ = 0;
        attr.value.memSyncDomainMap.remote = 1;
        launch_with(
            "cuLaunchKernelEx(MEM_SYNC_DOMAIN_MAP)",
            fill,
            stream,
            out,
            attr,
            0,
        );
        attr = zeroed();
        attr.id = CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN;
        attr.value.memSyncDomain = CU_LAUNCH_MEM_SYNC_DOMAIN_REMOTE;
        launch_with(
            "cuLaunchKernelEx(MEM_SYNC_DOMAIN)",
            fill,
            stream,
            out,
            attr,
            0,
        );
        #[cfg(feature = "cuda-12050")]
        {
            attr = zeroed();
            attr.id = CU_LAUNCH_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT;
            attr.value.sharedMemCarveout = 25;
            launch_with(
                "cuLaunchKernelEx(PREFERRED_SHARED_MEMORY_CARVEOUT)",
                fill,
                stream,
                out,
                attr,
                12050,
            );
        }
        #[cfg(feature = "cuda-13000")]
        {
            attr = zeroed();
            attr.id = CU_LAUNCH_ATTRIBUTE_NVLINK_UTIL_CENTRIC_SCHEDULING;
            attr.value.nvlinkUtilCentricScheduling = 1;
            launch_with(
                "cuLaunchKernelEx(NVLINK_UTIL_CENTRIC_SCHEDULING)",
                fill,
                stream,
                out,
                attr,
                13000,
            );
        }
        #[cfg(feature = "cuda-13020")]
        {
            attr = zeroed();
            attr.id = CU_LAUNCH_ATTRIBUTE_SHARED_MEMORY_MODE;
            attr.value.sharedMemoryMode = CU_SHARED_MEMORY_MODE_DEFAULT;
            launch_with(
                "cuLaunchKernelEx(SHARED_MEMORY_MODE)",
                fill,
                stream,
                out,
                attr,
                13020,
            );
        }

        // cuLaunchKernel of slow_fill with its arguments packed in one buffer (CU_LAUNCH_PARAM_*),
        // then host functions behind it in its stream: each runs once, late, and before the copy of
        // the output behind them.
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
        let code = cuLaunchKernel(
            slow_fill,
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
        );
        launched("cuLaunchKernel(extra)", code, 0);
        let mut calls: c_int = 0;
        let mut enqueued: c_int = 0;
        let code = cuLaunchHostFunc(stream, Some(count_call), &raw mut calls as *mut c_void);
        if launched("cuLaunchHostFunc", code, 0) {
            enqueued += 1;
        }
        #[cfg(feature = "cuda-13020")]
        match entry::cuLaunchHostFunc_v13010.get() {
            Ok(launch_host_func2) => {
                let code =
                    launch_host_func2(stream, Some(count_call), &raw mut calls as *mut c_void, 0);
                if launched("cuLaunchHostFunc_v2", code, 0) {
                    enqueued += 1;
                }
            }
            Err(e) => common::show_missing("cuLaunchHostFunc_v2", e),
        }
        check_fill(out, 7, stream);
        println!("  host function calls: {}", calls);
        expect(calls == enqueued, "each host function ran once");

        // The CUDA 3 launch API: block shape, shared size and parameters set on the function, then
        // a grid of 1 (cuLaunch), 2 (cuLaunchGrid) and 4 blocks (cuLaunchGridAsync) of 64 threads,
        // the first two in the NULL stream. scale writes its shared size after its 256 values.
        let factor: f32 = 2.5;
        let n: c_int = 256;
        show("cuFuncSetBlockShape", cuFuncSetBlockShape(scale, 64, 1, 1));
        show(
            "cuFuncSetSharedSize",
            cuFuncSetSharedSize(scale, SCALE_SHARED_BYTES),
        );
        // The parameter area zeroed first: a parameter whose set is taken away reads 0, the same
        // in every process, not what the driver's buffer held.
        let mut zeros = [0u8; 16];
        show(
            "cuParamSetv",
            cuParamSetv(
                scale,
                0,
                zeros.as_mut_ptr() as *mut c_void,
                zeros.len() as c_uint,
            ),
        );
        show(
            "cuParamSetv",
            cuParamSetv(
                scale,
                0,
                &raw mut out as *mut c_void,
                size_of::<CUdeviceptr>() as c_uint,
            ),
        );
        show("cuParamSeti", cuParamSeti(scale, 8, n as c_uint));
        show("cuParamSetf", cuParamSetf(scale, 12, factor));
        show("cuParamSetSize", cuParamSetSize(scale, 16));
        show(
            "cuParamSetTexRef",
            cuParamSetTexRef(scale, CU_PARAM_TR_DEFAULT, ptr::null_mut()),
        );
        for way in 0..3 {
            let grid: c_int = 1 << way;
            clear(out, 0, 257, ptr::null_mut());
            let (ok, ran_in) = if way == 0 {
                (launched("cuLaunch", cuLaunch(scale), 0), ptr::null_mut())
            } else if way == 1 {
                let code = cuLaunchGrid(scale, grid, 1);
                (launched("cuLaunchGrid", code, 0), ptr::null_mut())
            } else {
                let code = cuLaunchGridAsync(scale, grid, 1, stream);
                (launched("cuLaunchGridAsync", code, 0), stream)
            };
            if !ok {
                continue;
            }
            let mut values = [0f32; 257];
            check!(cuMemcpyDtoHAsync(
                values.as_mut_ptr() as *mut c_void,
                out,
                size_of::<[f32; 257]>(),
                ran_in,
            ));
            let expected = |i: c_int| {
                if i < 64 * grid {
                    factor * i as f32
                } else if i == n {
                    SCALE_SHARED_BYTES as f32
                } else {
                    0.0
                }
            };
            let same = (0..=n)
                .filter(|&i| values[i as usize] == expected(i))
                .count();
            expect_all("  its output", same, 257);
        }

        check!(cuEventDestroy(completion));
        check!(cuEventDestroy(programmatic));
        check!(cuMemFree(report));
        check!(cuMemFree(slots));
        check!(cuMemFree(signals));
        check!(cuMemFree(data));
        check!(cuMemFree(out));
        check!(cuStreamDestroy(other));
        check!(cuStreamDestroy(stream));
        check!(cuModuleUnload(module));
        check!(cuDevicePrimaryCtxRelease(device));
        finish()
    }
}
