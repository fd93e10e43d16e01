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
#include <cuda.h>
#include <cudaTypedefs.h>
#include <stdio.h>
#include <string.h>
#include <string>

#define checkDriver(op)  __check_cuda_driver((op), #op, __FILE__, __LINE__)

bool __check_cuda_driver(CUresult code, const char* op, const char* file, int line){
    if(code != CUresult::CUDA_SUCCESS){
        const char* err_name = nullptr;
        const char* err_message = nullptr;
        cuGetErrorName(code, &err_name);
        cuGetErrorString(code, &err_message);
        printf("%s:%d  %s failed. \n  code = %s, message = %s\n", file, line, op, err_name, err_message);
        return false;
    }
    return true;
}

// Prints `what = <result name>`; whether it is CUDA_SUCCESS.
static bool show(const char* what, CUresult code)
{
    const char* name = nullptr;
    cuGetErrorName(code, &name);
    printf("%s = %s\n", what, name ? name : "(unknown)");
    return code == CUDA_SUCCESS;
}

// The driver's function `symbol` with the ABI of CUDA `version`, or NULL where it has none.
[[maybe_unused]] static void* entry(const char* symbol, int version)
{
    void* pfn = nullptr;
    CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    CUresult code = cuGetProcAddress(symbol, &pfn, version, CU_GET_PROC_ADDRESS_DEFAULT, &status);
    return code == CUDA_SUCCESS && status == CU_GET_PROC_ADDRESS_SUCCESS ? pfn : nullptr;
}

static bool all_ok = true;

// Records a failed check of a kernel's output.
static void check(const char* what, bool ok)
{
    printf("%s: %s\n", what, ok ? "ok" : "WRONG");
    if (!ok)
        all_ok = false;
}

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
    checkDriver(cuMemsetD32(out, 0, 64));
    if (!show(what, cuLaunchKernelEx(&config, fill, args, nullptr)))
        return;
    checkDriver(cuStreamSynchronize(stream));
    unsigned int host[64];
    checkDriver(cuMemcpyDtoH(host, out, sizeof(host)));
    bool ok = true;
    for (unsigned int i = 0; i < 64; ++i)
        ok = ok && host[i] == value + i;
    check("  its output", ok);
}

int main(int argc, char** argv)
{
    const char* kernels_dir = argc > 1 ? argv[1] : "examples/kernels";
    std::string ptx_path = std::string(kernels_dir) + "/launch.ptx";

    if (!checkDriver(cuInit(0)))
        return 1;
    CUdevice device;
    if (!checkDriver(cuDeviceGet(&device, 0)))
        return 1;
    int major = 0, minor = 0;
    checkDriver(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device));
    checkDriver(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device));
    printf("compute capability %d.%d\n", major, minor);
    if (major < 9) {
        printf("clusters and programmatic launches need compute capability 9.0 or newer\n");
        return 1;
    }
    CUcontext ctx;
    if (!checkDriver(cuDevicePrimaryCtxRetain(&ctx, device)) || !checkDriver(cuCtxSetCurrent(ctx)))
        return 1;
    CUmodule module;
    if (!checkDriver(cuModuleLoad(&module, ptx_path.c_str())))
        return 1;

    // The function queries.
    const char* names[] = { "cluster_ranks", "grid_barrier", "pdl_primary", "pdl_secondary", "fill", "scale" };
    CUfunction f[6];
    for (int k = 0; k < 6; ++k) {
        if (!checkDriver(cuModuleGetFunction(&f[k], module, names[k])))
            return 1;
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
        const char* name = nullptr;
        cuGetErrorName(code, &name);
        printf("  cuFuncGetAttribute(%d) = %s, %d\n", a, name, value);
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
    checkDriver(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
    checkDriver(cuStreamCreate(&other, CU_STREAM_NON_BLOCKING));
    CUdeviceptr out, data, counter;
    checkDriver(cuMemAlloc(&out, 1024 * sizeof(unsigned int)));
    checkDriver(cuMemAlloc(&data, 64 * sizeof(unsigned int)));
    checkDriver(cuMemAlloc(&counter, sizeof(unsigned int)));
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
        checkDriver(cuMemsetD32(out, 0xffffffff, 24));
        printf("clusters of %u blocks:\n", size);
        if (show("  cuLaunchKernelEx(CLUSTER_DIMENSION, CLUSTER_SCHEDULING_POLICY_PREFERENCE)",
                 cuLaunchKernelEx(&config, f[0], args, nullptr))) {
            checkDriver(cuStreamSynchronize(stream));
            checkDriver(cuMemcpyDtoH(host, out, 24 * sizeof(unsigned int)));
            bool ok = true;
            for (unsigned int b = 0; b < 8; ++b) {
                unsigned int rank = b % size;
                unsigned int next = b - rank + (rank + 1) % size;
                ok = ok && host[3 * b] == rank && host[3 * b + 1] == size && host[3 * b + 2] == next;
            }
            printf("  block 1: rank %u of %u, read %u from its neighbour\n", host[3], host[4], host[5]);
            check("  ranks and distributed shared memory", ok);
        } else {
            all_ok = false;
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
        checkDriver(cuMemsetD32(counter, 0, 1));
        checkDriver(cuMemsetD32(out, 0, 8));
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
            checkDriver(cuStreamSynchronize(stream));
            checkDriver(cuMemcpyDtoH(host, out, 8 * sizeof(unsigned int)));
            bool ok = true;
            for (int b = 0; b < 8; ++b)
                ok = ok && host[b] == 8;
            check("  every block saw all 8 at the barrier", ok);
        } else if (way < 2) {
            all_ok = false;
        }
    }

    // Programmatic dependent launch: the secondary starts before the primary ends and waits for
    // its memory (griddepcontrol.wait); first serialized in one stream, then through the event
    // the primary triggers, waited for by another stream.
    CUevent programmatic;
    checkDriver(cuEventCreate(&programmatic, CU_EVENT_DISABLE_TIMING));
    for (int way = 0; way < 2; ++way) {
        checkDriver(cuMemsetD32(data, 0, 64));
        checkDriver(cuMemsetD32(out, 0, 64));
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
            checkDriver(cuStreamWaitEvent(other, programmatic, 0));
            config.hStream = other;
            config.numAttrs = 0;
            second = show("cuLaunchKernelEx(pdl_secondary)", cuLaunchKernelEx(&config, f[3], secondary_args, nullptr));
        }
        checkDriver(cuStreamSynchronize(stream));
        checkDriver(cuStreamSynchronize(other));
        if (first && second) {
            checkDriver(cuMemcpyDtoH(host, out, 64 * sizeof(unsigned int)));
            bool ok = true;
            for (unsigned int i = 0; i < 64; ++i)
                ok = ok && host[i] == 2 * (i + 1);
            check("  the secondary read the primary's data", ok);
        } else {
            all_ok = false;
        }
    }

    // One attribute per launch.
    int least = 0, greatest = 0;
    checkDriver(cuCtxGetStreamPriorityRange(&least, &greatest));
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
    checkDriver(cuEventCreate(&completion, CU_EVENT_DISABLE_TIMING));
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
        checkDriver(cuStreamSynchronize(stream));
        checkDriver(cuMemcpyDtoH(host, out, 64 * sizeof(unsigned int)));
        bool ok = true;
        for (unsigned int i = 0; i < 64; ++i)
            ok = ok && host[i] == 7 + i;
        check("  its output", ok);
    } else {
        all_ok = false;
    }

    // Host functions.
    int calls = 0;
    show("cuLaunchHostFunc", cuLaunchHostFunc(stream, count_call, &calls));
    checkDriver(cuStreamSynchronize(stream));
#if CUDA_VERSION >= 13020
    PFN_cuLaunchHostFunc_v13010 launchHostFunc2 = (PFN_cuLaunchHostFunc_v13010)entry("cuLaunchHostFunc", 13010);
    show("cuLaunchHostFunc_v2", launchHostFunc2 ? launchHostFunc2(stream, count_call, &calls, 0) : CUDA_ERROR_NOT_FOUND);
    checkDriver(cuStreamSynchronize(stream));
#endif
    printf("  host function calls: %d\n", calls);
    if (calls < 1)
        all_ok = false;

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
        checkDriver(cuMemsetD32(out, 0, 256));
        bool launched;
        if (way == 0)
            launched = show("cuLaunch", cuLaunch(f[5]));
        else if (way == 1)
            launched = show("cuLaunchGrid", cuLaunchGrid(f[5], grid, 1));
        else
            launched = show("cuLaunchGridAsync", cuLaunchGridAsync(f[5], grid, 1, stream));
        if (!launched)
            continue;
        checkDriver(cuCtxSynchronize());
        float values[256];
        checkDriver(cuMemcpyDtoH(values, out, sizeof(values)));
        bool ok = true;
        for (int i = 0; i < 256; ++i)
            ok = ok && values[i] == (i < 64 * grid ? factor * (float)i : 0.0f);
        check("  its output", ok);
    }

    checkDriver(cuEventDestroy(completion));
    checkDriver(cuEventDestroy(programmatic));
    checkDriver(cuMemFree(counter));
    checkDriver(cuMemFree(data));
    checkDriver(cuMemFree(out));
    checkDriver(cuStreamDestroy(other));
    checkDriver(cuStreamDestroy(stream));
    checkDriver(cuModuleUnload(module));
    checkDriver(cuDevicePrimaryCtxRelease(device));
    printf("Result = %s\n", all_ok ? "PASS" : "FAIL");
    return all_ok ? 0 : 1;
}
