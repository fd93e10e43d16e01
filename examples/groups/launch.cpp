// C twin of examples/groups/launch.rs. The launch and occupancy groups of the Driver API on a
// Hopper GPU: cuLaunchKernelEx with each launch attribute (a thread block cluster whose blocks
// read each other's shared memory, a cooperative grid-wide barrier, programmatic dependent launch
// through stream serialization and through its event, priority, memory synchronisation domains,
// ...), cuLaunchCooperativeKernel (and the deprecated multi-device form), host functions, the
// function queries (name, parameters, module, loading state, attributes), every occupancy query
// with clusters, and the CUDA 3 launch API (cuFuncSetBlockShape, cuParamSet*, cuLaunchGrid).
// Kernels: examples/kernels/launch.ptx (compute_90), from launch.cu; argv[1] is the kernels
// folder. Each call's result is printed by name; the kernels' outputs are checked on the host.
// Functions of headers newer than the GPU driver (cuFuncGetParamCount, cuLaunchHostFunc_v2:
// CUDA 13.2) are looked up with cuGetProcAddress at their header version; where the driver has
// none, the program prints CUDA_ERROR_NOT_FOUND, as the Rust program's typed lookup gives.
#include "common.h"
#include <cudaTypedefs.h>

// cuOccupancyMaxPotentialBlockSize's callback: 4 bytes of dynamic shared memory per thread.
static size_t smem_per_block(int block_size)
{
    return (size_t)block_size * 4;
}

// A host function enqueued on a stream: counts its calls.
static void CUDA_CB count_call(void* user_data)
{
    *(int*)user_data += 1;
}

// Launches `fill` (64 threads, out[i] = value + i) with one attribute, and checks the output
// where the launch succeeded.
static void launch_with(const char* what, CUfunction fill, CUstream stream, CUdeviceptr out,
                        CUlaunchAttribute attr)
{
    unsigned int value = 1000 * (unsigned int)attr.id;
    void* args[] = { &out, &value };
    CUlaunchConfig config;
    memset(&config, 0, sizeof(config));
    config.gridDimX = 1; config.gridDimY = 1; config.gridDimZ = 1;
    config.blockDimX = 64; config.blockDimY = 1; config.blockDimZ = 1;
    config.hStream = stream;
    config.attrs = &attr;
    config.numAttrs = 1;
    check(cuMemsetD32(out, 0, 64));
    if (!show(what, cuLaunchKernelEx(&config, fill, args, nullptr)))
        return;
    check(cuStreamSynchronize(stream));
    unsigned int host[64];
    check(cuMemcpyDtoH(host, out, sizeof(host)));
    size_t same = 0;
    for (unsigned int i = 0; i < 64; ++i)
        same += host[i] == value + i;
    expect_all("  its output", same, 64);
}

int main(int argc, char** argv)
{
    if (!check(cuInit(0)))
        return 1;
    CUdevice device;
    CUcontext ctx;
    if (!primary_context(&device, &ctx))
        return finish();
    int major = 0, minor = 0;
    check(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device));
    check(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device));
    printf("compute capability %d.%d\n", major, minor);
    if (major < 9) {
        expect(false, "clusters and programmatic launches need compute capability 9.0");
        return finish();
    }
    CUmodule module = load_module(argc, argv, "launch.ptx");
    if (module == NULL)
        return finish();

    // The function queries.
    const char* names[] = { "cluster_ranks", "grid_barrier", "pdl_primary", "pdl_secondary", "fill", "scale" };
    CUfunction f[6];
    for (int k = 0; k < 6; ++k) {
        if (!check(cuModuleGetFunction(&f[k], module, names[k])))
            return finish();
        const char* name = nullptr;
        show("cuFuncGetName", cuFuncGetName(&name, f[k]));
        printf("  name = %s\n", name);
        CUmodule owner = nullptr;
        show("cuFuncGetModule", cuFuncGetModule(&owner, f[k]));
        printf("  the module loaded: %s\n", owner == module ? "yes" : "no");
        for (size_t i = 0;; ++i) {
            size_t offset = 0, size = 0;
            if (cuFuncGetParamInfo(f[k], i, &offset, &size) != CUDA_SUCCESS) {
                printf("  cuFuncGetParamInfo: %zu parameters\n", i);
                break;
            }
            printf("  parameter %zu: offset %zu, size %zu\n", i, offset, size);
        }
#if CUDA_VERSION >= 13020
        PFN_cuFuncGetParamCount_v13020 getParamCount =
            (PFN_cuFuncGetParamCount_v13020)entry("cuFuncGetParamCount", 13020);
        size_t count = 0;
        if (show("cuFuncGetParamCount", getParamCount ? getParamCount(f[k], &count) : CUDA_ERROR_NOT_FOUND))
            printf("  count = %zu\n", count);
#endif
    }
    CUfunctionLoadingState state;
    show("cuFuncLoad", cuFuncLoad(f[0]));
    show("cuFuncIsLoaded", cuFuncIsLoaded(&state, f[0]));
    printf("  cluster_ranks loaded: %s\n", state == CU_FUNCTION_LOADING_STATE_LOADED ? "yes" : "no");
    for (int a = 0; a < (int)CU_FUNC_ATTRIBUTE_MAX; ++a) {
        int value = -1;
        CUresult code = cuFuncGetAttribute(&value, (CUfunction_attribute)a, f[0]);
        printf("  cuFuncGetAttribute(%d): %s, %d\n", a, result_name(code), value);
    }
    show("cuFuncSetAttribute(NON_PORTABLE_CLUSTER_SIZE_ALLOWED)",
         cuFuncSetAttribute(f[0], CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1));
    show("cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)",
         cuFuncSetAttribute(f[4], CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 64 * 1024));
    show("cuFuncSetAttribute(PREFERRED_SHARED_MEMORY_CARVEOUT)",
         cuFuncSetAttribute(f[4], CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, 50));
    show("cuFuncSetCacheConfig", cuFuncSetCacheConfig(f[4], CU_FUNC_CACHE_PREFER_SHARED));
    show("cuFuncSetSharedMemConfig", cuFuncSetSharedMemConfig(f[4], CU_SHARED_MEM_CONFIG_DEFAULT_BANK_SIZE));

    // Occupancy.
    int blocks = 0, min_grid = 0, block = 0, clusters = 0, cluster_size = 0;
    size_t smem = 0;
    show("cuOccupancyMaxActiveBlocksPerMultiprocessor",
         cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, f[4], 256, 0));
    printf("  fill, 256 threads: %d blocks per SM\n", blocks);
    show("cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags",
         cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&blocks, f[4], 256, 8192, CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE));
    printf("  fill, 256 threads, 8 KiB: %d blocks per SM\n", blocks);
    show("cuOccupancyMaxPotentialBlockSize",
         cuOccupancyMaxPotentialBlockSize(&min_grid, &block, f[4], nullptr, 0, 0));
    printf("  fill: block size %d, minimum grid %d\n", block, min_grid);
    show("cuOccupancyMaxPotentialBlockSizeWithFlags",
         cuOccupancyMaxPotentialBlockSizeWithFlags(&min_grid, &block, f[4], smem_per_block, 0, 512, CU_OCCUPANCY_DEFAULT));
    printf("  fill, 4 bytes per thread, at most 512: block size %d, minimum grid %d\n", block, min_grid);
    show("cuOccupancyAvailableDynamicSMemPerBlock",
         cuOccupancyAvailableDynamicSMemPerBlock(&smem, f[4], 2, 256));
    printf("  fill, 2 blocks of 256 per SM: %zu bytes\n", smem);
    CUlaunchAttribute cluster_attr;
    memset(&cluster_attr, 0, sizeof(cluster_attr));
    cluster_attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    cluster_attr.value.clusterDim.x = 2;
    cluster_attr.value.clusterDim.y = 1;
    cluster_attr.value.clusterDim.z = 1;
    CUlaunchConfig config;
    memset(&config, 0, sizeof(config));
    config.gridDimX = 8; config.gridDimY = 1; config.gridDimZ = 1;
    config.blockDimX = 32; config.blockDimY = 1; config.blockDimZ = 1;
    show("cuOccupancyMaxPotentialClusterSize", cuOccupancyMaxPotentialClusterSize(&cluster_size, f[0], &config));
    printf("  cluster_ranks, 32 threads: at most %d blocks per cluster\n", cluster_size);
    config.attrs = &cluster_attr;
    config.numAttrs = 1;
    show("cuOccupancyMaxActiveClusters", cuOccupancyMaxActiveClusters(&clusters, f[0], &config));
    printf("  cluster_ranks, clusters of 2: %d active clusters\n", clusters);

    CUstream stream, other;
    check(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
    check(cuStreamCreate(&other, CU_STREAM_NON_BLOCKING));
    CUdeviceptr out, data, counter;
    check(cuMemAlloc(&out, 1024 * sizeof(unsigned int)));
    check(cuMemAlloc(&data, 64 * sizeof(unsigned int)));
    check(cuMemAlloc(&counter, sizeof(unsigned int)));
    unsigned int host[1024];

    // A cluster of 2 and one of 4 blocks, with the cluster scheduling policy preference: each
    // block read its neighbour's shared memory.
    for (unsigned int size = 2; size <= 4; size += 2) {
        CUlaunchAttribute attrs[2];
        memset(attrs, 0, sizeof(attrs));
        attrs[0].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
        attrs[0].value.clusterDim.x = size;
        attrs[0].value.clusterDim.y = 1;
        attrs[0].value.clusterDim.z = 1;
        attrs[1].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE;
        attrs[1].value.clusterSchedulingPolicyPreference = CU_CLUSTER_SCHEDULING_POLICY_SPREAD;
        config.hStream = stream;
        config.attrs = attrs;
        config.numAttrs = 2;
        void* args[] = { &out };
        check(cuMemsetD32(out, 0xffffffff, 24));
        printf("clusters of %u blocks:\n", size);
        if (show("  cuLaunchKernelEx(CLUSTER_DIMENSION, CLUSTER_SCHEDULING_POLICY_PREFERENCE)",
                 cuLaunchKernelEx(&config, f[0], args, nullptr))) {
            check(cuStreamSynchronize(stream));
            check(cuMemcpyDtoH(host, out, 24 * sizeof(unsigned int)));
            size_t same = 0;
            for (unsigned int b = 0; b < 8; ++b) {
                unsigned int rank = b % size;
                unsigned int next = b - rank + (rank + 1) % size;
                if (host[3 * b] == rank && host[3 * b + 1] == size && host[3 * b + 2] == next)
                    same++;
            }
            printf("  block 1: rank %u of %u, read %u from its neighbour\n", host[3], host[4], host[5]);
            expect_all("  blocks with their rank and their neighbour's", same, 8);
        } else {
            expect(false, "a cluster launch");
        }
    }

    // Cooperative launches: every block of the grid resident at once, so the barrier ends.
    void* coop_args[] = { &counter, &out };
    CUlaunchAttribute coop;
    memset(&coop, 0, sizeof(coop));
    coop.id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
    coop.value.cooperative = 1;
    config.gridDimX = 8;
    config.blockDimX = 32;
    config.attrs = &coop;
    config.numAttrs = 1;
    for (int way = 0; way < 3; ++way) {
        check(cuMemsetD32(counter, 0, 1));
        check(cuMemsetD32(out, 0, 8));
        bool launched;
        if (way == 0) {
            launched = show("cuLaunchKernelEx(COOPERATIVE)", cuLaunchKernelEx(&config, f[1], coop_args, nullptr));
        } else if (way == 1) {
            launched = show("cuLaunchCooperativeKernel",
                        cuLaunchCooperativeKernel(f[1], 8, 1, 1, 32, 1, 1, 0, stream, coop_args));
        } else {
            CUDA_LAUNCH_PARAMS params;
            memset(&params, 0, sizeof(params));
            params.function = f[1];
            params.gridDimX = 8; params.gridDimY = 1; params.gridDimZ = 1;
            params.blockDimX = 32; params.blockDimY = 1; params.blockDimZ = 1;
            params.hStream = stream;
            params.kernelParams = coop_args;
            launched = show("cuLaunchCooperativeKernelMultiDevice", cuLaunchCooperativeKernelMultiDevice(&params, 1, 0));
        }
        if (launched) {
            check(cuStreamSynchronize(stream));
            check(cuMemcpyDtoH(host, out, 8 * sizeof(unsigned int)));
            size_t same = 0;
            for (int b = 0; b < 8; ++b)
                same += host[b] == 8;
            expect_all("  blocks that saw all 8 at the barrier", same, 8);
        } else {
            expect(way == 2, "a cooperative launch");
        }
    }

    // Programmatic dependent launch: the secondary starts before the primary ends and waits for
    // its memory (griddepcontrol.wait); first serialized in one stream, then through the event
    // the primary triggers, waited for by another stream.
    CUevent programmatic;
    check(cuEventCreate(&programmatic, CU_EVENT_DISABLE_TIMING));
    for (int way = 0; way < 2; ++way) {
        check(cuMemsetD32(data, 0, 64));
        check(cuMemsetD32(out, 0, 64));
        CUlaunchAttribute attr;
        memset(&attr, 0, sizeof(attr));
        config.gridDimX = 1;
        config.blockDimX = 64;
        config.hStream = stream;
        void* primary_args[] = { &data };
        void* secondary_args[] = { &data, &out };
        bool first, second;
        if (way == 0) {
            config.numAttrs = 0;
            first = show("cuLaunchKernelEx(pdl_primary)", cuLaunchKernelEx(&config, f[2], primary_args, nullptr));
            attr.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
            attr.value.programmaticStreamSerializationAllowed = 1;
            config.attrs = &attr;
            config.numAttrs = 1;
            second = show("cuLaunchKernelEx(PROGRAMMATIC_STREAM_SERIALIZATION)",
                          cuLaunchKernelEx(&config, f[3], secondary_args, nullptr));
        } else {
            attr.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT;
            attr.value.programmaticEvent.event = programmatic;
            attr.value.programmaticEvent.flags = 0;
            attr.value.programmaticEvent.triggerAtBlockStart = 0;
            config.attrs = &attr;
            config.numAttrs = 1;
            first = show("cuLaunchKernelEx(PROGRAMMATIC_EVENT)", cuLaunchKernelEx(&config, f[2], primary_args, nullptr));
            check(cuStreamWaitEvent(other, programmatic, 0));
            config.hStream = other;
            config.numAttrs = 0;
            second = show("cuLaunchKernelEx(pdl_secondary)", cuLaunchKernelEx(&config, f[3], secondary_args, nullptr));
        }
        check(cuStreamSynchronize(stream));
        check(cuStreamSynchronize(other));
        if (first && second) {
            check(cuMemcpyDtoH(host, out, 64 * sizeof(unsigned int)));
            size_t same = 0;
            for (unsigned int i = 0; i < 64; ++i)
                same += host[i] == 2 * (i + 1);
            expect_all("  elements the secondary read from the primary", same, 64);
        } else {
            expect(false, "a programmatic dependent launch");
        }
    }

    // One attribute per launch.
    int least = 0, greatest = 0;
    check(cuCtxGetStreamPriorityRange(&least, &greatest));
    CUlaunchAttribute attr;
    memset(&attr, 0, sizeof(attr));
    attr.id = CU_LAUNCH_ATTRIBUTE_IGNORE;
    launch_with("cuLaunchKernelEx(IGNORE)", f[4], stream, out, attr);
    memset(&attr, 0, sizeof(attr));
    attr.id = CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW;
    attr.value.accessPolicyWindow.base_ptr = (void*)out;
    attr.value.accessPolicyWindow.num_bytes = 4096;
    attr.value.accessPolicyWindow.hitRatio = 0.5f;
    attr.value.accessPolicyWindow.hitProp = CU_ACCESS_PROPERTY_PERSISTING;
    attr.value.accessPolicyWindow.missProp = CU_ACCESS_PROPERTY_STREAMING;
    launch_with("cuLaunchKernelEx(ACCESS_POLICY_WINDOW)", f[4], stream, out, attr);
    memset(&attr, 0, sizeof(attr));
    attr.id = CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY;
    attr.value.syncPolicy = CU_SYNC_POLICY_SPIN;
    launch_with("cuLaunchKernelEx(SYNCHRONIZATION_POLICY)", f[4], stream, out, attr);
    memset(&attr, 0, sizeof(attr));
    attr.id = CU_LAUNCH_ATTRIBUTE_PRIORITY;
    attr.value.priority = greatest;
    launch_with("cuLaunchKernelEx(PRIORITY)", f[4], stream, out, attr);
    memset(&attr, 0, sizeof(attr));
    attr.id = CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP;
    attr.value.memSyncDomainMap.default_ = 0;
    attr.value.memSyncDomainMap.remote = 1;
    launch_with("cuLaunchKernelEx(MEM_SYNC_DOMAIN_MAP)", f[4], stream, out, attr);
    memset(&attr, 0, sizeof(attr));
    attr.id = CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN;
    attr.value.memSyncDomain = CU_LAUNCH_MEM_SYNC_DOMAIN_REMOTE;
    launch_with("cuLaunchKernelEx(MEM_SYNC_DOMAIN)", f[4], stream, out, attr);
    CUevent completion;
    check(cuEventCreate(&completion, CU_EVENT_DISABLE_TIMING));
    memset(&attr, 0, sizeof(attr));
    attr.id = CU_LAUNCH_ATTRIBUTE_LAUNCH_COMPLETION_EVENT;
    attr.value.launchCompletionEvent.event = completion;
    attr.value.launchCompletionEvent.flags = 0;
    launch_with("cuLaunchKernelEx(LAUNCH_COMPLETION_EVENT)", f[4], stream, out, attr);
    memset(&attr, 0, sizeof(attr));
    attr.id = CU_LAUNCH_ATTRIBUTE_DEVICE_UPDATABLE_KERNEL_NODE;
    attr.value.deviceUpdatableKernelNode.deviceUpdatable = 1;
    launch_with("cuLaunchKernelEx(DEVICE_UPDATABLE_KERNEL_NODE)", f[4], stream, out, attr);
#if CUDA_VERSION >= 12050
    memset(&attr, 0, sizeof(attr));
    attr.id = CU_LAUNCH_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT;
    attr.value.sharedMemCarveout = 25;
    launch_with("cuLaunchKernelEx(PREFERRED_SHARED_MEMORY_CARVEOUT)", f[4], stream, out, attr);
#endif
#if CUDA_VERSION >= 12080
    memset(&attr, 0, sizeof(attr));
    attr.id = CU_LAUNCH_ATTRIBUTE_PREFERRED_CLUSTER_DIMENSION;
    attr.value.preferredClusterDim.x = 1;
    attr.value.preferredClusterDim.y = 1;
    attr.value.preferredClusterDim.z = 1;
    launch_with("cuLaunchKernelEx(PREFERRED_CLUSTER_DIMENSION)", f[4], stream, out, attr);
#endif
#if CUDA_VERSION >= 13000
    memset(&attr, 0, sizeof(attr));
    attr.id = CU_LAUNCH_ATTRIBUTE_NVLINK_UTIL_CENTRIC_SCHEDULING;
    attr.value.nvlinkUtilCentricScheduling = 1;
    launch_with("cuLaunchKernelEx(NVLINK_UTIL_CENTRIC_SCHEDULING)", f[4], stream, out, attr);
#endif
#if CUDA_VERSION >= 13020
    memset(&attr, 0, sizeof(attr));
    attr.id = CU_LAUNCH_ATTRIBUTE_PORTABLE_CLUSTER_SIZE_MODE;
    attr.value.portableClusterSizeMode = CU_LAUNCH_PORTABLE_CLUSTER_MODE_DEFAULT;
    launch_with("cuLaunchKernelEx(PORTABLE_CLUSTER_SIZE_MODE)", f[4], stream, out, attr);
    memset(&attr, 0, sizeof(attr));
    attr.id = CU_LAUNCH_ATTRIBUTE_SHARED_MEMORY_MODE;
    attr.value.sharedMemoryMode = CU_SHARED_MEMORY_MODE_DEFAULT;
    launch_with("cuLaunchKernelEx(SHARED_MEMORY_MODE)", f[4], stream, out, attr);
#endif

    // cuLaunchKernel with its arguments packed in one buffer (CU_LAUNCH_PARAM_*).
    struct { CUdeviceptr out; unsigned int value; unsigned int pad; } packed = { out, 7, 0 };
    size_t packed_size = 12;  // the parameters' size: the pointer at 0, the value at 8
    void* extra[] = { CU_LAUNCH_PARAM_BUFFER_POINTER, &packed, CU_LAUNCH_PARAM_BUFFER_SIZE, &packed_size, CU_LAUNCH_PARAM_END };
    if (show("cuLaunchKernel(extra)", cuLaunchKernel(f[4], 1, 1, 1, 64, 1, 1, 0, stream, nullptr, extra))) {
        check(cuStreamSynchronize(stream));
        check(cuMemcpyDtoH(host, out, 64 * sizeof(unsigned int)));
        size_t same = 0;
        for (unsigned int i = 0; i < 64; ++i)
            same += host[i] == 7 + i;
        expect_all("  its output", same, 64);
    } else {
        expect(false, "cuLaunchKernel with a packed buffer");
    }

    // Host functions.
    int calls = 0;
    show("cuLaunchHostFunc", cuLaunchHostFunc(stream, count_call, &calls));
    check(cuStreamSynchronize(stream));
#if CUDA_VERSION >= 13020
    PFN_cuLaunchHostFunc_v13010 launchHostFunc2 = (PFN_cuLaunchHostFunc_v13010)entry("cuLaunchHostFunc", 13010);
    show("cuLaunchHostFunc_v2", launchHostFunc2 ? launchHostFunc2(stream, count_call, &calls, 0) : CUDA_ERROR_NOT_FOUND);
    check(cuStreamSynchronize(stream));
#endif
    printf("  host function calls: %d\n", calls);
    expect(calls >= 1, "the host function ran");

    // The CUDA 3 launch API: block shape, shared size and parameters set on the function, then
    // a grid of 1 (cuLaunch), 2 (cuLaunchGrid) and 4 blocks (cuLaunchGridAsync) of 64 threads.
    float factor = 2.5f;
    int n = 256;
    show("cuFuncSetBlockShape", cuFuncSetBlockShape(f[5], 64, 1, 1));
    show("cuFuncSetSharedSize", cuFuncSetSharedSize(f[5], 0));
    show("cuParamSetv", cuParamSetv(f[5], 0, &out, sizeof(out)));
    show("cuParamSeti", cuParamSeti(f[5], 8, (unsigned int)n));
    show("cuParamSetf", cuParamSetf(f[5], 12, factor));
    show("cuParamSetSize", cuParamSetSize(f[5], 16));
    show("cuParamSetTexRef", cuParamSetTexRef(f[5], CU_PARAM_TR_DEFAULT, nullptr));
    for (int way = 0; way < 3; ++way) {
        int grid = 1 << way;
        check(cuMemsetD32(out, 0, 256));
        bool launched;
        if (way == 0)
            launched = show("cuLaunch", cuLaunch(f[5]));
        else if (way == 1)
            launched = show("cuLaunchGrid", cuLaunchGrid(f[5], grid, 1));
        else
            launched = show("cuLaunchGridAsync", cuLaunchGridAsync(f[5], grid, 1, stream));
        if (!launched)
            continue;
        check(cuCtxSynchronize());
        float values[256];
        check(cuMemcpyDtoH(values, out, sizeof(values)));
        size_t same = 0;
        for (int i = 0; i < 256; ++i)
            same += values[i] == (i < 64 * grid ? factor * (float)i : 0.0f);
        expect_all("  its output", same, 256);
    }

    check(cuEventDestroy(completion));
    check(cuEventDestroy(programmatic));
    check(cuMemFree(counter));
    check(cuMemFree(data));
    check(cuMemFree(out));
    check(cuStreamDestroy(other));
    check(cuStreamDestroy(stream));
    check(cuModuleUnload(module));
    check(cuDevicePrimaryCtxRelease(device));
    return finish();
}
