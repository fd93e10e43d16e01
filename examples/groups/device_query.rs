//! Device query, in the manner of NVIDIA's `deviceQueryDrv`: every device, every
//! `CUdevice_attribute` by name, and the rest of the device group (`cuDeviceGet*`,
//! `cuDeviceTotalMem`, UUID, LUID and NvSci attributes with what the driver answers on this system,
//! exec affinity support, default and current memory pools (where the device has them: another
//! pool made current, then the default one again, each read back), texture 1D linear width, host
//! atomic capabilities, GPUDirect RDMA flush), the deprecated device queries, and the PCI bus id
//! both ways. C twin: `device_query.cpp`. An attribute of a header newer than the driver prints the
//! driver's answer (`CUDA_ERROR_INVALID_VALUE`): the same on both sides.

#[path = "common/mod.rs"]
mod common;

use std::ffi::{c_char, c_int, c_uint, CStr};
use std::ptr;

use common::{check, expect, finish, location, result_name};
use cuda_driver_sys::*;

/// `(value, "NAME")` for each enumerator named, each under its `cfg`.
macro_rules! named {
    ($($(#[$cfg:meta])* $name:ident),* $(,)?) => {
        [$($(#[$cfg])* ($name, stringify!($name))),*]
    };
}

/// Every `CUdevice_attribute` of the header, in its order (`CU_DEVICE_ATTRIBUTE_MAX` left out).
/// Under `compat-0-3` two of these names warn that 0.3 gave them other values; the header's values
/// are the ones meant here.
#[allow(deprecated)]
const ATTRIBUTES: &[(CUdevice_attribute, &str)] = &named![
    CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
    CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X,
    CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y,
    CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z,
    CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X,
    CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y,
    CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z,
    CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK,
    CU_DEVICE_ATTRIBUTE_SHARED_MEMORY_PER_BLOCK,
    CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY,
    CU_DEVICE_ATTRIBUTE_WARP_SIZE,
    CU_DEVICE_ATTRIBUTE_MAX_PITCH,
    CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK,
    CU_DEVICE_ATTRIBUTE_REGISTERS_PER_BLOCK,
    CU_DEVICE_ATTRIBUTE_CLOCK_RATE,
    CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT,
    CU_DEVICE_ATTRIBUTE_GPU_OVERLAP,
    CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
    CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT,
    CU_DEVICE_ATTRIBUTE_INTEGRATED,
    CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY,
    CU_DEVICE_ATTRIBUTE_COMPUTE_MODE,
    CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_WIDTH,
    CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_WIDTH,
    CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_HEIGHT,
    CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH,
    CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT,
    CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH,
    CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_WIDTH,
    CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_HEIGHT,
    CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_LAYERS,
    CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_ARRAY_WIDTH,
    CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_ARRAY_HEIGHT,
    CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_ARRAY_NUMSLICES,
    CU_DEVICE_ATTRIBUTE_SURFACE_ALIGNMENT,
    CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS,
    CU_DEVICE_ATTRIBUTE_ECC_ENABLED,
    CU_DEVICE_ATTRIBUTE_PCI_BUS_ID,
    CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID,
    CU_DEVICE_ATTRIBUTE_TCC_DRIVER,
    CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE,
    CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH,
    CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE,
    CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR,
    CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT,
    CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING,
    CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_WIDTH,
    CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_LAYERS,
    CU_DEVICE_ATTRIBUTE_CAN_TEX2D_GATHER,
    CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_GATHER_WIDTH,
    CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_GATHER_HEIGHT,
    CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH_ALTERNATE,
    CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT_ALTERNATE,
    CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH_ALTERNATE,
    CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID,
    CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT,
    CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_WIDTH,
    CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_WIDTH,
    CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_LAYERS,
    CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_WIDTH,
    CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_WIDTH,
    CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_HEIGHT,
    CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_WIDTH,
    CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_HEIGHT,
    CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_DEPTH,
    CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_LAYERED_WIDTH,
    CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_LAYERED_LAYERS,
    CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_WIDTH,
    CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_HEIGHT,
    CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_LAYERS,
    CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_WIDTH,
    CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_LAYERED_WIDTH,
    CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_LAYERED_LAYERS,
    CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LINEAR_WIDTH,
    CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_WIDTH,
    CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_HEIGHT,
    CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_PITCH,
    CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_MIPMAPPED_WIDTH,
    CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_MIPMAPPED_HEIGHT,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
    CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_MIPMAPPED_WIDTH,
    CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED,
    CU_DEVICE_ATTRIBUTE_GLOBAL_L1_CACHE_SUPPORTED,
    CU_DEVICE_ATTRIBUTE_LOCAL_L1_CACHE_SUPPORTED,
    CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR,
    CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR,
    CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY,
    CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD,
    CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD_GROUP_ID,
    CU_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED,
    CU_DEVICE_ATTRIBUTE_SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO,
    CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS,
    CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS,
    CU_DEVICE_ATTRIBUTE_COMPUTE_PREEMPTION_SUPPORTED,
    CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM,
    CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_MEM_OPS_V1,
    CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS_V1,
    CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR_V1,
    CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH,
    CU_DEVICE_ATTRIBUTE_COOPERATIVE_MULTI_DEVICE_LAUNCH,
    CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
    CU_DEVICE_ATTRIBUTE_CAN_FLUSH_REMOTE_WRITES,
    CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED,
    CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES,
    CU_DEVICE_ATTRIBUTE_DIRECT_MANAGED_MEM_ACCESS_FROM_HOST,
    CU_DEVICE_ATTRIBUTE_VIRTUAL_ADDRESS_MANAGEMENT_SUPPORTED,
    CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED,
    CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED,
    CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_WIN32_HANDLE_SUPPORTED,
    CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_WIN32_KMT_HANDLE_SUPPORTED,
    CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR,
    CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED,
    CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE,
    CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE,
    CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED,
    CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK,
    CU_DEVICE_ATTRIBUTE_SPARSE_CUDA_ARRAY_SUPPORTED,
    CU_DEVICE_ATTRIBUTE_READ_ONLY_HOST_REGISTER_SUPPORTED,
    CU_DEVICE_ATTRIBUTE_TIMELINE_SEMAPHORE_INTEROP_SUPPORTED,
    CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED,
    CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED,
    CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS,
    CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WRITES_ORDERING,
    CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES,
    CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH,
    CU_DEVICE_ATTRIBUTE_DEFERRED_MAPPING_CUDA_ARRAY_SUPPORTED,
    CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS,
    CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR,
    CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED,
    CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED,
    CU_DEVICE_ATTRIBUTE_MEM_SYNC_DOMAIN_COUNT,
    CU_DEVICE_ATTRIBUTE_TENSOR_MAP_ACCESS_SUPPORTED,
    CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED,
    CU_DEVICE_ATTRIBUTE_UNIFIED_FUNCTION_POINTERS,
    CU_DEVICE_ATTRIBUTE_NUMA_CONFIG,
    CU_DEVICE_ATTRIBUTE_NUMA_ID,
    CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED,
    CU_DEVICE_ATTRIBUTE_MPS_ENABLED,
    CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID,
    CU_DEVICE_ATTRIBUTE_D3D12_CIG_SUPPORTED,
    CU_DEVICE_ATTRIBUTE_MEM_DECOMPRESS_ALGORITHM_MASK,
    CU_DEVICE_ATTRIBUTE_MEM_DECOMPRESS_MAXIMUM_LENGTH,
    CU_DEVICE_ATTRIBUTE_VULKAN_CIG_SUPPORTED,
    CU_DEVICE_ATTRIBUTE_GPU_PCI_DEVICE_ID,
    CU_DEVICE_ATTRIBUTE_GPU_PCI_SUBSYSTEM_ID,
    CU_DEVICE_ATTRIBUTE_HOST_NUMA_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED,
    CU_DEVICE_ATTRIBUTE_HOST_NUMA_MEMORY_POOLS_SUPPORTED,
    CU_DEVICE_ATTRIBUTE_HOST_NUMA_MULTINODE_IPC_SUPPORTED,
    CU_DEVICE_ATTRIBUTE_HOST_MEMORY_POOLS_SUPPORTED,
    CU_DEVICE_ATTRIBUTE_HOST_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED,
    CU_DEVICE_ATTRIBUTE_HOST_ALLOC_DMA_BUF_SUPPORTED,
    CU_DEVICE_ATTRIBUTE_ONLY_PARTIAL_HOST_NATIVE_ATOMIC_SUPPORTED,
    #[cfg(feature = "cuda-13010")]
    CU_DEVICE_ATTRIBUTE_ATOMIC_REDUCTION_SUPPORTED,
    #[cfg(feature = "cuda-13030")]
    CU_DEVICE_ATTRIBUTE_D3D12_CIG_STREAMS_SUPPORTED,
    #[cfg(feature = "cuda-13030")]
    CU_DEVICE_ATTRIBUTE_DMA_BUF_MMAP_SUPPORTED,
    #[cfg(feature = "cuda-13030")]
    CU_DEVICE_ATTRIBUTE_LOGICAL_ENDPOINT_UNICAST_SUPPORTED,
    #[cfg(feature = "cuda-13030")]
    CU_DEVICE_ATTRIBUTE_LOGICAL_ENDPOINT_MULTICAST_SUPPORTED,
    #[cfg(feature = "cuda-13030")]
    CU_DEVICE_ATTRIBUTE_LOGICAL_ENDPOINT_COUNTED_OPS_SUPPORTED,
    #[cfg(feature = "cuda-13030")]
    CU_DEVICE_ATTRIBUTE_LOGICAL_ENDPOINT_UNICAST_ACCESS_ON_OWNER_DEVICE_SUPPORTED,
    #[cfg(feature = "cuda-13040")]
    CU_DEVICE_ATTRIBUTE_LOCALITY_DOMAIN_COUNT,
    #[cfg(feature = "cuda-13040")]
    CU_DEVICE_ATTRIBUTE_MAX_OVERSIZED_SHARED_MEMORY_PER_BLOCK,
    #[cfg(feature = "cuda-13040")]
    CU_DEVICE_ATTRIBUTE_LOCALITY_DOMAIN_MULTIPROCESSOR_COUNT,
    #[cfg(feature = "cuda-13040")]
    CU_DEVICE_ATTRIBUTE_LOGICAL_ENDPOINT_SUPPORTED_HANDLE_TYPES,
    #[cfg(feature = "cuda-13040")]
    CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WITH_LOCALIZED_MEMORY_SUPPORTED,
    #[cfg(feature = "cuda-13050")]
    CU_DEVICE_ATTRIBUTE_VULKAN_CIG_STREAMS_SUPPORTED,
    #[cfg(feature = "cuda-13050")]
    CU_DEVICE_ATTRIBUTE_TENSOR_MAP_LARGE_TENSOR_MIN_SIZE,
];

/// The host atomic operations, by name.
const OPERATIONS: [(CUatomicOperation, &str); 13] = named![
    CU_ATOMIC_OPERATION_INTEGER_ADD,
    CU_ATOMIC_OPERATION_INTEGER_MIN,
    CU_ATOMIC_OPERATION_INTEGER_MAX,
    CU_ATOMIC_OPERATION_INTEGER_INCREMENT,
    CU_ATOMIC_OPERATION_INTEGER_DECREMENT,
    CU_ATOMIC_OPERATION_AND,
    CU_ATOMIC_OPERATION_OR,
    CU_ATOMIC_OPERATION_XOR,
    CU_ATOMIC_OPERATION_EXCHANGE,
    CU_ATOMIC_OPERATION_CAS,
    CU_ATOMIC_OPERATION_FLOAT_ADD,
    CU_ATOMIC_OPERATION_FLOAT_MIN,
    CU_ATOMIC_OPERATION_FLOAT_MAX,
];

unsafe fn query(ordinal: c_int) {
    unsafe {
        let mut device: CUdevice = 0;
        if !check!(cuDeviceGet(&mut device, ordinal)) {
            return;
        }
        let mut name = [0 as c_char; 256];
        check!(cuDeviceGetName(
            name.as_mut_ptr(),
            name.len() as c_int,
            device
        ));
        let name = CStr::from_ptr(name.as_ptr()).to_string_lossy();
        println!("Device {ordinal}: \"{name}\"");
        let mut bytes: usize = 0;
        check!(cuDeviceTotalMem(&mut bytes, device));
        println!("  total memory: {bytes} bytes");
        let mut uuid: CUuuid = std::mem::zeroed();
        check!(cuDeviceGetUuid(&mut uuid, device));
        let hex: String = uuid
            .bytes
            .iter()
            .map(|b| format!("{:02x}", *b as u8))
            .collect();
        println!("  UUID: {hex}");
        let mut luid = [0 as c_char; 8];
        let mut node_mask: c_uint = 0;
        let code = cuDeviceGetLuid(luid.as_mut_ptr(), &mut node_mask, device);
        let mut message: *const c_char = ptr::null();
        let _ = cuGetErrorString(code, &mut message);
        let message = if message.is_null() {
            "no message".into()
        } else {
            CStr::from_ptr(message).to_string_lossy()
        };
        println!("  cuDeviceGetLuid: {} ({message})", result_name(code));
        // No attribute list is passed: on a system without NvSci the driver says so before reading it.
        let signal = CUDA_NVSCISYNC_ATTR_SIGNAL as c_int;
        let code = cuDeviceGetNvSciSyncAttributes(ptr::null_mut(), device, signal);
        println!("  cuDeviceGetNvSciSyncAttributes: {}", result_name(code));

        // The deprecated queries, against the attributes that replace them.
        let (mut major, mut minor): (c_int, c_int) = (0, 0);
        check!(cuDeviceComputeCapability(&mut major, &mut minor, device));
        println!("  compute capability (cuDeviceComputeCapability): {major}.{minor}");
        let mut prop: CUdevprop = std::mem::zeroed();
        check!(cuDeviceGetProperties(&mut prop, device));
        println!(
        "  cuDeviceGetProperties: maxThreadsPerBlock {}, maxThreadsDim {} {} {}, maxGridSize {} {} {}, \
         sharedMemPerBlock {}, totalConstantMemory {}, SIMDWidth {}, memPitch {}, regsPerBlock {}, \
         clockRate {}, textureAlign {}",
        prop.maxThreadsPerBlock,
        prop.maxThreadsDim[0],
        prop.maxThreadsDim[1],
        prop.maxThreadsDim[2],
        prop.maxGridSize[0],
        prop.maxGridSize[1],
        prop.maxGridSize[2],
        prop.sharedMemPerBlock,
        prop.totalConstantMemory,
        prop.SIMDWidth,
        prop.memPitch,
        prop.regsPerBlock,
        prop.clockRate,
        prop.textureAlign
    );
        let mut value: c_int = 0;
        check!(cuDeviceGetAttribute(
            &mut value,
            CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
            device
        ));
        expect(
            value == major,
            "cuDeviceComputeCapability's major is the attribute's",
        );
        check!(cuDeviceGetAttribute(
            &mut value,
            CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
            device
        ));
        expect(
            value == prop.maxThreadsPerBlock,
            "cuDeviceGetProperties' maxThreadsPerBlock is the attribute's",
        );

        println!("  {} attributes:", ATTRIBUTES.len());
        for &(attribute, name) in ATTRIBUTES {
            let code = cuDeviceGetAttribute(&mut value, attribute, device);
            if code == CUresult::CUDA_SUCCESS {
                println!("    {name} = {value}");
            } else {
                println!("    {name}: {}", result_name(code));
            }
        }

        let mut supported: c_int = -1;
        check!(cuDeviceGetExecAffinitySupport(
            &mut supported,
            CU_EXEC_AFFINITY_TYPE_SM_COUNT,
            device
        ));
        println!("  exec affinity (SM count) supported: {supported}");
        let mut width: usize = 0;
        check!(cuDeviceGetTexture1DLinearMaxWidth(
            &mut width,
            CU_AD_FORMAT_FLOAT,
            4,
            device
        ));
        println!("  1D linear texture, 4 floats: at most {width} elements");

        let ops = OPERATIONS.map(|(op, _)| op);
        let mut capabilities = [0 as c_uint; OPERATIONS.len()];
        let n = ops.len() as c_uint;
        if check!(cuDeviceGetHostAtomicCapabilities(
            capabilities.as_mut_ptr(),
            ops.as_ptr(),
            n,
            device
        )) {
            for ((_, name), caps) in OPERATIONS.iter().zip(capabilities) {
                println!("  host atomic {name}: capabilities {caps}");
            }
        }

        let mut bus_id = [0 as c_char; 32];
        check!(cuDeviceGetPCIBusId(
            bus_id.as_mut_ptr(),
            bus_id.len() as c_int,
            device
        ));
        let mut by_bus_id: CUdevice = -1;
        check!(cuDeviceGetByPCIBusId(&mut by_bus_id, bus_id.as_ptr()));
        expect(
            by_bus_id == device,
            "cuDeviceGetByPCIBusId gives the device back",
        );

        // The memory pools: the default one is current until another is set.
        let mut pools: c_int = 0;
        check!(cuDeviceGetAttribute(
            &mut pools,
            CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED,
            device
        ));
        if pools != 0 {
            let (mut default_pool, mut current, mut own): (
                CUmemoryPool,
                CUmemoryPool,
                CUmemoryPool,
            ) = (ptr::null_mut(), ptr::null_mut(), ptr::null_mut());
            check!(cuDeviceGetDefaultMemPool(&mut default_pool, device));
            check!(cuDeviceGetMemPool(&mut current, device));
            expect(
                current == default_pool,
                "the default memory pool is the current one",
            );
            let mut props: CUmemPoolProps = std::mem::zeroed();
            props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
            props.handleTypes = CU_MEM_HANDLE_TYPE_NONE;
            props.location = location(CU_MEM_LOCATION_TYPE_DEVICE, device);
            if check!(cuMemPoolCreate(&mut own, &props)) {
                check!(cuDeviceSetMemPool(device, own));
                check!(cuDeviceGetMemPool(&mut current, device));
                expect(
                    current == own,
                    "cuDeviceSetMemPool makes the new pool current",
                );
                check!(cuDeviceSetMemPool(device, default_pool));
                check!(cuDeviceGetMemPool(&mut current, device));
                expect(
                    current == default_pool,
                    "cuDeviceSetMemPool makes the default pool current again",
                );
                check!(cuMemPoolDestroy(own));
            }
            println!("  memory pools: the default one current, another set and reset");
        } else {
            println!("  memory pools: not tested (the device has none)");
        }

        // GPUDirect RDMA: a flush of the current context's remote writes, where supported.
        let mut flush: c_int = 0;
        let options = CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS;
        check!(cuDeviceGetAttribute(&mut flush, options, device));
        let mut context: CUcontext = ptr::null_mut();
        if check!(cuDevicePrimaryCtxRetain(&mut context, device)) {
            check!(cuCtxSetCurrent(context));
            let code = cuFlushGPUDirectRDMAWrites(
                CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TARGET_CURRENT_CTX,
                CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TO_OWNER,
            );
            println!(
                "  cuFlushGPUDirectRDMAWrites (flush options {}): {}",
                flush,
                result_name(code)
            );
            check!(cuCtxSetCurrent(ptr::null_mut()));
            check!(cuDevicePrimaryCtxRelease(device));
        }
    }
}

fn main() {
    unsafe {
        if !check!(cuInit(0)) {
            std::process::exit(1);
        }
        let mut version: c_int = 0;
        check!(cuDriverGetVersion(&mut version));
        println!(
            "CUDA driver version {}.{}",
            version / 1000,
            version % 1000 / 10
        );
        let mut count: c_int = 0;
        check!(cuDeviceGetCount(&mut count));
        println!("{count} CUDA device(s)");
        for i in 0..count {
            query(i);
        }
        finish()
    }
}
