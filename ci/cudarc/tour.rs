//! cudarc 0.19.10's driver calls that its own tests leave uncalled on one GPU: memory pools,
//! occupancy, unified-memory advice and prefetch, cooperative launch, peer copy, graph upload,
//! context flags, external memory. `cargo xtask cudarc-check --bundle` builds it against cudarc on
//! its own `sys` and on cuda-driver-sys (12.9 and 13.0 headers, linked); gpu-run runs both and
//! requires the same output. Each step prints `NAME: ok` (with what it read, where that is the
//! same on every run) or `NAME: ERROR_NAME`, so that the two builds are compared call by call.

use cudarc::driver::{result, sys, CudaContext, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;
use std::ffi::c_void;
use std::fmt::Debug;

type Error = Box<dyn std::error::Error>;

/// Prints one step's outcome and passes its value on.
fn step<T>(name: &str, outcome: Result<T, DriverError>) -> Option<T> {
    match outcome {
        Ok(value) => {
            println!("{name}: ok");
            Some(value)
        }
        Err(e) => {
            let code = e.error_name().map(|n| n.to_string_lossy().into_owned());
            println!(
                "{name}: {}",
                code.unwrap_or_else(|_| "an unnamed error".into())
            );
            None
        }
    }
}

/// A step whose value is the same on every run: printed too.
fn shown<T: Debug>(name: &str, outcome: Result<T, DriverError>) {
    if let Some(value) = step(name, outcome) {
        println!("  {value:?}");
    }
}

/// Block 0's thread 0 sets `*out` to 42: a kernel for the occupancy queries and a cooperative launch.
const KERNEL: &str = "extern \"C\" __global__ void mark(int *out) {
    if (blockIdx.x == 0 && threadIdx.x == 0) { *out = 42; }
}";

fn main() -> Result<(), Error> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.new_stream()?;
    let dev = ctx.cu_device();
    let cu_stream = stream.cu_stream();

    step(
        "cuCtxSetFlags",
        ctx.set_flags(sys::CUctx_flags::CU_CTX_SCHED_BLOCKING_SYNC),
    );
    if let Some((free, total)) = step("cuMemGetInfo", ctx.mem_get_info()) {
        println!("  free <= total: {}", free <= total);
    }

    // Stream-ordered memory: the device's pools, and one of our own.
    unsafe {
        let default = step(
            "cuDeviceGetDefaultMemPool",
            result::device::get_default_mem_pool(dev),
        );
        step("cuDeviceGetMemPool", result::device::get_mem_pool(dev));
        if let Some(pool) = default {
            step(
                "cuDeviceSetMemPool",
                result::device::set_mem_pool(dev, pool),
            );
        }
        let mut props: sys::CUmemPoolProps = std::mem::zeroed();
        props.allocType = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
        props.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
        props.location.id = dev;
        if let Some(pool) = step("cuMemPoolCreate", result::mem_pool::create(&props)) {
            let threshold = sys::CUmemPool_attribute::CU_MEMPOOL_ATTR_RELEASE_THRESHOLD;
            let mut set: u64 = 1 << 20;
            let mut read: u64 = 0;
            step(
                "cuMemPoolSetAttribute",
                result::mem_pool::set_attribute(
                    pool,
                    threshold,
                    &mut set as *mut u64 as *mut c_void,
                ),
            );
            step(
                "cuMemPoolGetAttribute",
                result::mem_pool::get_attribute(
                    pool,
                    threshold,
                    &mut read as *mut u64 as *mut c_void,
                ),
            );
            println!("  release threshold read back: {read}");
            if let Some(ptr) = step(
                "cuMemAllocFromPoolAsync",
                result::mem_pool::alloc_async(pool, 1 << 16, cu_stream),
            ) {
                step("cuMemFreeAsync", result::free_async(ptr, cu_stream));
            }
            step(
                "cuStreamSynchronize",
                result::stream::synchronize(cu_stream),
            );
            step("cuMemPoolTrimTo", result::mem_pool::trim_to(pool, 0));
            step("cuMemPoolDestroy", result::mem_pool::destroy(pool));
        }

        // Unified memory: advice, and prefetch to the device and back to the host.
        let bytes = 1 << 16;
        let attach = sys::CUmemAttach_flags::CU_MEM_ATTACH_GLOBAL;
        if let Some(managed) = step("cuMemAllocManaged", result::malloc_managed(bytes, attach)) {
            let device = sys::CUmemLocation {
                type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE,
                id: dev,
            };
            let host = sys::CUmemLocation {
                type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_HOST,
                id: 0,
            };
            let advice = sys::CUmem_advise::CU_MEM_ADVISE_SET_PREFERRED_LOCATION;
            step(
                "cuMemAdvise (device)",
                result::mem_advise(managed, bytes, advice, device),
            );
            step(
                "cuMemPrefetchAsync (device)",
                result::mem_prefetch_async(managed, bytes, device, cu_stream),
            );
            step(
                "cuMemPrefetchAsync (host)",
                result::mem_prefetch_async(managed, bytes, host, cu_stream),
            );
            step(
                "cuStreamSynchronize",
                result::stream::synchronize(cu_stream),
            );
            step("cuMemFree", result::memory_free(managed));
        }

        // Peer copy within the one device: its context to itself.
        let a = stream.clone_htod(&[7i32; 4])?;
        let mut b = stream.alloc_zeros::<i32>(4)?;
        {
            use cudarc::driver::{DevicePtr, DevicePtrMut};
            let (src, _read) = a.device_ptr(&stream);
            let (dst, _write) = b.device_ptr_mut(&stream);
            let cu_ctx = ctx.cu_ctx();
            step(
                "cuMemcpyPeerAsync",
                result::memcpy_peer_async(cu_ctx, dst, cu_ctx, src, 16, cu_stream),
            );
        }
        println!("  copied: {:?}", stream.clone_dtoh(&b)?);
        shown(
            "cuStreamIsCapturing",
            result::stream::is_capturing(cu_stream)
                .map(|s| s == sys::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE),
        );
    }

    // A kernel: its attributes, its occupancy, a cooperative launch.
    let module = ctx.load_module(compile_ptx(KERNEL)?)?;
    let mark = module.load_function("mark")?;
    let smem = sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES;
    step("cuFuncSetAttribute", mark.set_attribute(smem, 1024));
    shown(
        "cuOccupancyAvailableDynamicSMemPerBlock",
        mark.occupancy_available_dynamic_smem_per_block(1, 128),
    );
    // The safe layer calls the `WithFlags` forms; the result layer has both.
    let function = mark.cu_function();
    // SAFETY: a function of the loaded module, no callback.
    unsafe {
        shown(
            "cuOccupancyMaxActiveBlocksPerMultiprocessor",
            result::occupancy::max_active_block_per_multiprocessor(function, 128, 0),
        );
        shown(
            "cuOccupancyMaxPotentialBlockSize",
            result::occupancy::max_potential_block_size(function, None, 0, 0),
        );
    }
    shown(
        "cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags",
        mark.occupancy_max_active_blocks_per_multiprocessor(
            128,
            0,
            Some(sys::CUoccupancy_flags::CU_OCCUPANCY_DEFAULT),
        ),
    );
    shown(
        "cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags (caching override off)",
        mark.occupancy_max_active_blocks_per_multiprocessor(
            128,
            0,
            Some(sys::CUoccupancy_flags::CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE),
        ),
    );
    extern "C" fn no_smem(_block_size: std::ffi::c_int) -> usize {
        0
    }
    shown(
        "cuOccupancyMaxPotentialBlockSizeWithFlags",
        mark.occupancy_max_potential_block_size(no_smem, 0, 0, None),
    );
    let cfg = LaunchConfig::for_num_elems(256);
    shown(
        "cuOccupancyMaxActiveClusters",
        mark.occupancy_max_active_clusters(cfg, &stream),
    );
    shown(
        "cuOccupancyMaxPotentialClusterSize",
        mark.occupancy_max_potential_cluster_size(cfg, &stream),
    );
    let mut out = stream.alloc_zeros::<i32>(1)?;
    // SAFETY: the kernel writes one int of `out`.
    step(
        "cuLaunchCooperativeKernel",
        unsafe {
            stream
                .launch_builder(&mark)
                .arg(&mut out)
                .launch_cooperative(LaunchConfig::for_num_elems(1))
        }
        .map(|_| ()),
    );
    println!("  written: {:?}", stream.clone_dtoh(&out)?);

    // A graph, uploaded before its launch: captured on a fresh buffer of the idle stream, with
    // cudarc's event tracking off (as its own graph test does: a capture that waits on an event
    // recorded before it is invalidated).
    // SAFETY: from here on, one stream uses the buffers.
    unsafe { ctx.disable_event_tracking() };
    let mut data = stream.clone_htod(&[1i32; 4])?;
    stream.synchronize()?;
    stream.begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)?;
    step("cuMemsetD8Async (captured)", stream.memset_zeros(&mut data));
    let flags = sys::CUgraphInstantiate_flags::CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH;
    if let Some(Some(graph)) = step("cuStreamEndCapture", stream.end_capture(flags)) {
        step("cuGraphUpload", graph.upload());
        step("cuGraphLaunch", graph.launch());
        println!("  after the graph: {:?}", stream.clone_dtoh(&data)?);
    }

    // External memory: an fd that is no exported allocation, so the driver's error is the outcome.
    let file = std::fs::File::open("/proc/self/exe")?;
    use std::os::fd::AsRawFd;
    // SAFETY: the driver reads the descriptor; it owns it only on success, which it refuses here.
    step(
        "cuImportExternalMemory",
        unsafe {
            result::external_memory::import_external_memory_opaque_fd(file.as_raw_fd(), 4096)
        }
        .map(|_| ()),
    );
    Ok(())
}
