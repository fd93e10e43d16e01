// C twin of examples/groups/launch.rs. The launch and occupancy groups of the Driver API on a
// Hopper GPU, each claim checked by what the GPU wrote (kernels: examples/kernels/launch.ptx,
// compute_90, from launch.cu; argv[1] is the kernels folder):
//
// - the function queries: each kernel's name, module and parameter count as its source gives
//   them, cluster_ranks loaded (cuFuncLoad); the attributes printed, and those set read back; the
//   occupancy queries printed;
// - thread block clusters (CLUSTER_DIMENSION, with CLUSTER_SCHEDULING_POLICY_PREFERENCE; then
//   PREFERRED_CLUSTER_DIMENSION, and PORTABLE_CLUSTER_SIZE_MODE): each block reports its rank,
//   its cluster's size and what its neighbour in the cluster stored in its shared memory;
// - cooperative launches (cuLaunchKernelEx(COOPERATIVE), cuLaunchCooperativeKernel, the
//   deprecated multi-device form) of a grid as large as the occupancy calculator says can be
//   resident (its blocks per SM times the SMs): every block finds the grid workspace that only a
//   cooperative launch gives, passes the grid barrier on it and then reads what every block wrote
//   before it; one block more is refused (CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE);
// - programmatic dependent launch through stream serialization: the dependent begins before the
//   primary ends (the primary, after its trigger, sees the flag the dependent raises before its
//   griddepcontrol.wait), and after its wait reads the data the primary writes only then; through
//   the programmatic event, waited for by another stream: the dependent reads that data (the
//   event's waiters need not see its trigger before the primary ends, the driver API says, and on
//   an H200 they did not);
// - the launch completion event: a kernel waiting for it runs while the first kernel still runs,
//   and not before the first began (held back behind a slow kernel in its stream);
// - the synchronization policy, an attribute of streams: set on a stream and read back;
// - a device-updatable kernel node: the attribute on a launch captured into a graph, read back
//   from the node, and the graph's output;
// - the other launch attributes (priority, access policy window, memory synchronisation domains,
//   shared memory carveout, NVLink-centric scheduling, shared memory mode), which change nothing
//   a kernel can see: each launch succeeds and gives its output;
// - cuLaunchKernel with a packed parameter buffer, host functions (each runs once) and the CUDA 3
//   launch API (cuFuncSetBlockShape, cuFuncSetSharedSize, cuParamSet*, cuLaunchGrid): their
//   outputs, and the dynamic shared memory the kernel was given.
//
// Each output is read by a copy in the launch's stream, which returns once the kernel is done;
// where an earlier launch left in the output what the next must write, the words are cleared
// first and the clear read back, so that a launch that wrote nothing fails.
//
// Every launch must succeed, but one with an attribute of a CUDA newer than the driver, which is
// printed as refused with the driver's answer and not claimed. Functions of headers newer than
// the GPU's driver (cuFuncGetParamCount, cuLaunchHostFunc_v2) are looked up with cuGetProcAddress
// at their header version (entry); where the driver has none, the program prints its answer
// (show_missing). Every wait on the GPU ends within a second: a launch that does not do what it
// claims fails a check, never hangs. Controls (CUDA_GROUP_CONTROL), each failing one check:
// plain_launch launches grid_exchange with plain cuLaunchKernel (no grid workspace), no_trigger
// leaves out the primary's trigger (the dependent begins only after the primary), plain_event
// records an ordinary event after the kernel in place of its completion event.
#include "common.h"
#include <cudaTypedefs.h>

// The kernels of launch.ptx, in the order of main's f, and their parameter counts.
static const struct { const char* name; size_t parameters; } kernels[8] = {
    { "cluster_ranks", 1 }, { "grid_exchange", 2 }, { "pdl_primary", 4 }, { "pdl_secondary", 3 },
    { "raise_flag", 1 },    { "fill", 2 },          { "scale", 3 },       { "slow_fill", 2 },
};

// grid_exchange's block size.
static const unsigned int EXCHANGE_THREADS = 128;

// What the program clears output words and flags to (launch.cu: a flag is raised at 1).
static const unsigned int CLEARED = 0xffffffff;

// What read_words leaves in a word its copy did not write: no kernel writes it.
static const unsigned int UNREAD = 0xabababab;

// The dynamic shared memory the CUDA 3 launches give scale (cuFuncSetSharedSize).
static const unsigned int SCALE_SHARED_BYTES = 1024;

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

// Prints the driver's answer to the launch `what`; whether the kernel runs. A launch with an
// attribute of CUDA `since` (a CUDA_VERSION), newer than the driver, may be refused: printed with
// the driver's answer and the reason, and not claimed. Any other refusal fails.
static bool launched(const char* what, CUresult code, int since)
{
    int driver = 0;
    if (code != CUDA_SUCCESS && cuDriverGetVersion(&driver) == CUDA_SUCCESS && driver < since) {
        printf("%s: %s (refused: an attribute of CUDA %d, above the driver's %d)\n", what,
               result_name(code), since, driver);
        return false;
    }
    bool ok = show(what, code);
    expect(ok, what);
    return ok;
}

// The launch attribute of clusters of `blocks` x 1 x 1 blocks.
static CUlaunchAttribute cluster_dimension(unsigned int blocks)
{
    CUlaunchAttribute attr;
    memset(&attr, 0, sizeof(attr));
    attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attr.value.clusterDim.x = blocks;
    attr.value.clusterDim.y = 1;
    attr.value.clusterDim.z = 1;
    return attr;
}

// A launch configuration of `grid` x 1 x 1 blocks of `block` x 1 x 1 threads on `stream`, with no
// attributes.
static CUlaunchConfig launch_config(unsigned int grid, unsigned int block, CUstream stream)
{
    CUlaunchConfig config;
    memset(&config, 0, sizeof(config));
    config.gridDimX = grid; config.gridDimY = 1; config.gridDimZ = 1;
    config.blockDimX = block; config.blockDimY = 1; config.blockDimZ = 1;
    config.hStream = stream;
    return config;
}

// Copies `count` words from `from` on the device to `host`, behind the work queued in `stream` (a
// copy to pageable memory returns once done).
static void read_words(unsigned int* host, CUdeviceptr from, size_t count, CUstream stream)
{
    for (size_t i = 0; i < count; ++i)
        host[i] = UNREAD;
    check(cuMemcpyDtoHAsync(host, from, count * sizeof(unsigned int), stream));
}

// Sets the `count` words at `to` to `value` in `stream`, the stream of the launch that then writes
// them, and checks that they read back so: a launch that wrote nothing then fails.
static void clear(CUdeviceptr to, unsigned int value, size_t count, CUstream stream)
{
    check(cuMemsetD32Async(to, value, count, stream));
    unsigned int* host = (unsigned int*)malloc(count * sizeof(unsigned int));
    read_words(host, to, count, stream);
    size_t same = 0;
    for (size_t i = 0; i < count; ++i)
        same += host[i] == value;
    free(host);
    expect(same == count, "the words cleared before a launch");
}

// Checks the output of `fill` at `out` (64 words: value + i), read behind the work of `stream`.
static void check_fill(CUdeviceptr out, unsigned int value, CUstream stream)
{
    unsigned int host[64];
    read_words(host, out, 64, stream);
    size_t same = 0;
    for (unsigned int i = 0; i < 64; ++i)
        same += host[i] == value + i;
    expect_all("  its output", same, 64);
}

// Sets the attribute `attribute` of `f` to `value`, printing the driver's answer as `what`, and
// checks that cuFuncGetAttribute reads it back.
static void set_attribute(const char* what, CUfunction f, CUfunction_attribute attribute, int value)
{
    show(what, cuFuncSetAttribute(f, attribute, value));
    int read = -1;
    check(cuFuncGetAttribute(&read, attribute, f));
    printf("  read back: %d\n", read);
    char failed[128];
    snprintf(failed, sizeof(failed), "%s read back", what);
    expect(read == value, failed);
}

// Launches `fill` (64 threads, out[i] = value + i) with the attribute `attr` of CUDA `since` (see
// launched), and checks its output. No clear first: the value is the attribute's own, so the
// output of any other launch differs.
static void launch_with(const char* what, CUfunction fill, CUstream stream, CUdeviceptr out,
                        CUlaunchAttribute attr, int since)
{
    unsigned int value = 1000 * (unsigned int)attr.id;
    void* args[] = { &out, &value };
    CUlaunchConfig config = launch_config(1, 64, stream);
    config.attrs = &attr;
    config.numAttrs = 1;
    CUresult code = cuLaunchKernelEx(&config, fill, args, nullptr);
    if (launched(what, code, since))
        check_fill(out, value, stream);
}

// Launches `cluster_ranks` over 8 blocks of 32 threads with `attrs` (a cluster dimension of `size`
// blocks among them; the newest of CUDA `since`, see launched), and checks what each block
// reports: its rank in its cluster, the cluster's size, and the index its neighbour in the cluster
// stored in its shared memory. Where `preferred` is not 0, a block's cluster may be of `preferred`
// blocks (a preferred cluster dimension, which the device uses as it can).
static void launch_clusters(const char* what, CUfunction cluster_ranks, CUstream stream, CUdeviceptr out,
                            CUlaunchAttribute* attrs, unsigned int count, unsigned int size,
                            unsigned int preferred, int since)
{
    CUlaunchConfig config = launch_config(8, 32, stream);
    config.attrs = attrs;
    config.numAttrs = count;
    void* args[] = { &out };
    clear(out, CLEARED, 24, stream);
    CUresult code = cuLaunchKernelEx(&config, cluster_ranks, args, nullptr);
    if (!launched(what, code, since))
        return;
    unsigned int host[24];
    read_words(host, out, 24, stream);
    size_t same = 0;
    for (unsigned int b = 0; b < 8; ++b) {
        unsigned int cluster = host[3 * b + 1];
        if (cluster != size && (preferred == 0 || cluster != preferred))
            continue;
        unsigned int rank = b % cluster;
        unsigned int next = b - rank + (rank + 1) % cluster;
        if (host[3 * b] == rank && host[3 * b + 2] == next)
            same++;
    }
    if (preferred == 0)
        printf("  block 1: rank %u of %u, read %u from its neighbour\n", host[3], host[4], host[5]);
    expect_all("  blocks with their rank and their neighbour's", same, 8);
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
    CUfunction f[8];
    for (int k = 0; k < 8; ++k) {
        if (!check(cuModuleGetFunction(&f[k], module, kernels[k].name)))
            return finish();
        const char* name = nullptr;
        bool named = show("cuFuncGetName", cuFuncGetName(&name, f[k]));
        if (named)
            printf("  name = %s\n", name);
        expect(named && name != nullptr && strcmp(name, kernels[k].name) == 0, "the kernel's name");
        CUmodule owner = nullptr;
        show("cuFuncGetModule", cuFuncGetModule(&owner, f[k]));
        printf("  the module loaded: %s\n", yes(owner == module));
        expect(owner == module, "the kernel's module");
        size_t i = 0;
        for (;; ++i) {
            size_t offset = 0, size = 0;
            if (cuFuncGetParamInfo(f[k], i, &offset, &size) != CUDA_SUCCESS) {
                printf("  cuFuncGetParamInfo: %zu parameters\n", i);
                break;
            }
            printf("  parameter %zu: offset %zu, size %zu\n", i, offset, size);
        }
        expect(i == kernels[k].parameters, "the kernel's parameters (cuFuncGetParamInfo)");
#if CUDA_VERSION >= 13020
        PFN_cuFuncGetParamCount_v13020 getParamCount =
            (PFN_cuFuncGetParamCount_v13020)entry("cuFuncGetParamCount", 13020);
        if (getParamCount) {
            size_t count = 0;
            bool counted = show("cuFuncGetParamCount", getParamCount(f[k], &count));
            if (counted)
                printf("  count = %zu\n", count);
            expect(counted && count == kernels[k].parameters, "the kernel's parameters (cuFuncGetParamCount)");
        } else {
            show_missing("cuFuncGetParamCount");
        }
#endif
    }
    CUfunction cluster_ranks = f[0], grid_exchange = f[1], pdl_primary = f[2], pdl_secondary = f[3],
               raise_flag = f[4], fill = f[5], scale = f[6], slow_fill = f[7];
    CUfunctionLoadingState state = CU_FUNCTION_LOADING_STATE_UNLOADED;
    show("cuFuncLoad", cuFuncLoad(cluster_ranks));
    show("cuFuncIsLoaded", cuFuncIsLoaded(&state, cluster_ranks));
    bool loaded = state == CU_FUNCTION_LOADING_STATE_LOADED;
    printf("  cluster_ranks loaded: %s\n", yes(loaded));
    expect(loaded, "cluster_ranks loaded");
    for (int a = 0; a < (int)CU_FUNC_ATTRIBUTE_MAX; ++a) {
        int value = -1;
        CUresult code = cuFuncGetAttribute(&value, (CUfunction_attribute)a, cluster_ranks);
        printf("  cuFuncGetAttribute(%d): %s, %d\n", a, result_name(code), value);
    }
    set_attribute("cuFuncSetAttribute(NON_PORTABLE_CLUSTER_SIZE_ALLOWED)", cluster_ranks,
                  CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1);
    set_attribute("cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)", fill,
                  CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 64 * 1024);
    set_attribute("cuFuncSetAttribute(PREFERRED_SHARED_MEMORY_CARVEOUT)", fill,
                  CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, 50);
    show("cuFuncSetCacheConfig", cuFuncSetCacheConfig(fill, CU_FUNC_CACHE_PREFER_SHARED));
    show("cuFuncSetSharedMemConfig", cuFuncSetSharedMemConfig(fill, CU_SHARED_MEM_CONFIG_DEFAULT_BANK_SIZE));

    // Occupancy.
    int blocks = 0, min_grid = 0, block = 0, clusters = 0, cluster_size = 0;
    size_t smem = 0;
    show("cuOccupancyMaxActiveBlocksPerMultiprocessor",
         cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, fill, 256, 0));
    printf("  fill, 256 threads: %d blocks per SM\n", blocks);
    show("cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags",
         cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&blocks, fill, 256, 8192, CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE));
    printf("  fill, 256 threads, 8 KiB: %d blocks per SM\n", blocks);
    show("cuOccupancyMaxPotentialBlockSize",
         cuOccupancyMaxPotentialBlockSize(&min_grid, &block, fill, nullptr, 0, 0));
    printf("  fill: block size %d, minimum grid %d\n", block, min_grid);
    show("cuOccupancyMaxPotentialBlockSizeWithFlags",
         cuOccupancyMaxPotentialBlockSizeWithFlags(&min_grid, &block, fill, smem_per_block, 0, 512, CU_OCCUPANCY_DEFAULT));
    printf("  fill, 4 bytes per thread, at most 512: block size %d, minimum grid %d\n", block, min_grid);
    show("cuOccupancyAvailableDynamicSMemPerBlock",
         cuOccupancyAvailableDynamicSMemPerBlock(&smem, fill, 2, 256));
    printf("  fill, 2 blocks of 256 per SM: %zu bytes\n", smem);
    CUlaunchAttribute cluster_attr = cluster_dimension(2);
    CUlaunchConfig config = launch_config(8, 32, nullptr);
    show("cuOccupancyMaxPotentialClusterSize", cuOccupancyMaxPotentialClusterSize(&cluster_size, cluster_ranks, &config));
    printf("  cluster_ranks, 32 threads: at most %d blocks per cluster\n", cluster_size);
    config.attrs = &cluster_attr;
    config.numAttrs = 1;
    show("cuOccupancyMaxActiveClusters", cuOccupancyMaxActiveClusters(&clusters, cluster_ranks, &config));
    printf("  cluster_ranks, clusters of 2: %d active clusters\n", clusters);

    CUstream stream, other;
    check(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
    check(cuStreamCreate(&other, CU_STREAM_NON_BLOCKING));
    CUdeviceptr out = 0, data = 0, signals = 0;
    check(cuMemAlloc(&out, 1024 * sizeof(unsigned int)));
    check(cuMemAlloc(&data, 64 * sizeof(unsigned int)));
    check(cuMemAlloc(&signals, 6 * sizeof(unsigned int)));
    // Two sets of three words, the programmatic launches' and the completion event's (apart, so that
    // a late kernel of the first never writes into the second): the flag a kernel raises for another
    // to see, and the words where that one says whether it saw it, and whether it was raised before
    // it began.
    CUdeviceptr word = sizeof(unsigned int);
    CUdeviceptr flag = signals;
    CUdeviceptr saw = signals + word;
    CUdeviceptr completion_signals = signals + 3 * word;

    // Clusters of 2 and of 4 blocks, with the cluster scheduling policy preference; then clusters
    // of 2 with a preferred cluster of 4 (the device groups blocks by either), and clusters of 2
    // required to be of a portable size.
    for (unsigned int size = 2; size <= 4; size += 2) {
        CUlaunchAttribute attrs[2];
        memset(attrs, 0, sizeof(attrs));
        attrs[0] = cluster_dimension(size);
        attrs[1].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE;
        attrs[1].value.clusterSchedulingPolicyPreference = CU_CLUSTER_SCHEDULING_POLICY_SPREAD;
        printf("clusters of %u blocks:\n", size);
        launch_clusters("cuLaunchKernelEx(CLUSTER_DIMENSION, CLUSTER_SCHEDULING_POLICY_PREFERENCE)",
                        cluster_ranks, stream, out, attrs, 2, size, 0, 0);
    }
#if CUDA_VERSION >= 12080
    {
        CUlaunchAttribute attrs[2];
        memset(attrs, 0, sizeof(attrs));
        attrs[0] = cluster_dimension(2);
        attrs[1].id = CU_LAUNCH_ATTRIBUTE_PREFERRED_CLUSTER_DIMENSION;
        attrs[1].value.preferredClusterDim.x = 4;
        attrs[1].value.preferredClusterDim.y = 1;
        attrs[1].value.preferredClusterDim.z = 1;
        printf("clusters of 2 blocks, preferred 4:\n");
        launch_clusters("cuLaunchKernelEx(CLUSTER_DIMENSION, PREFERRED_CLUSTER_DIMENSION)",
                        cluster_ranks, stream, out, attrs, 2, 2, 4, 12080);
    }
#endif
#if CUDA_VERSION >= 13020
    {
        CUlaunchAttribute attrs[2];
        memset(attrs, 0, sizeof(attrs));
        attrs[0] = cluster_dimension(2);
        attrs[1].id = CU_LAUNCH_ATTRIBUTE_PORTABLE_CLUSTER_SIZE_MODE;
        attrs[1].value.portableClusterSizeMode = CU_LAUNCH_PORTABLE_CLUSTER_MODE_REQUIRE_PORTABLE;
        printf("clusters of 2 blocks, a portable size required:\n");
        launch_clusters("cuLaunchKernelEx(CLUSTER_DIMENSION, PORTABLE_CLUSTER_SIZE_MODE)",
                        cluster_ranks, stream, out, attrs, 2, 2, 0, 13020);
    }
#endif

    // Cooperative launches of a grid as large as can be resident at once: the occupancy
    // calculator's blocks per SM for grid_exchange times the SMs. Each block writes its slot,
    // passes the grid barrier (valid only where a cooperative launch gave the grid its workspace)
    // and counts the slots of the grid written before it.
    int per_sm = 0, sms = 0;
    check(cuOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, grid_exchange, (int)EXCHANGE_THREADS, 0));
    check(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device));
    unsigned int resident = per_sm * sms > 1 ? (unsigned int)(per_sm * sms) : 1;
    printf("grid_exchange, %u threads: %d blocks per SM, %d SMs: a grid of %u blocks\n", EXCHANGE_THREADS,
           per_sm, sms, resident);
    CUdeviceptr slots = 0, report = 0;
    check(cuMemAlloc(&slots, resident * sizeof(unsigned int)));
    check(cuMemAlloc(&report, 2 * resident * sizeof(unsigned int)));
    void* exchange_args[] = { &slots, &report };
    CUlaunchAttribute coop;
    memset(&coop, 0, sizeof(coop));
    coop.id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
    coop.value.cooperative = 1;
    config = launch_config(resident, EXCHANGE_THREADS, stream);
    config.attrs = &coop;
    config.numAttrs = 1;
    unsigned int* host_report = (unsigned int*)malloc(2 * resident * sizeof(unsigned int));
    for (int way = 0; way < 3; ++way) {
        clear(slots, CLEARED, resident, stream);
        clear(report, CLEARED, 2 * resident, stream);
        bool ok;
        if (way == 0 && control("plain_launch")) {
            CUresult code = cuLaunchKernel(grid_exchange, resident, 1, 1, EXCHANGE_THREADS, 1, 1, 0, stream,
                                           exchange_args, nullptr);
            ok = launched("cuLaunchKernel, not cooperative (the control)", code, 0);
        } else if (way == 0) {
            CUresult code = cuLaunchKernelEx(&config, grid_exchange, exchange_args, nullptr);
            ok = launched("cuLaunchKernelEx(COOPERATIVE)", code, 0);
        } else if (way == 1) {
            CUresult code = cuLaunchCooperativeKernel(grid_exchange, resident, 1, 1, EXCHANGE_THREADS, 1, 1, 0,
                                                      stream, exchange_args);
            ok = launched("cuLaunchCooperativeKernel", code, 0);
        } else {
            CUDA_LAUNCH_PARAMS params;
            memset(&params, 0, sizeof(params));
            params.function = grid_exchange;
            params.gridDimX = resident; params.gridDimY = 1; params.gridDimZ = 1;
            params.blockDimX = EXCHANGE_THREADS; params.blockDimY = 1; params.blockDimZ = 1;
            params.hStream = stream;
            params.kernelParams = exchange_args;
            CUresult code = cuLaunchCooperativeKernelMultiDevice(&params, 1, 0);
            ok = launched("cuLaunchCooperativeKernelMultiDevice", code, 0);
        }
        if (ok) {
            read_words(host_report, report, 2 * resident, stream);
            size_t given = 0, seen = 0;
            for (unsigned int b = 0; b < resident; ++b) {
                given += host_report[2 * b] == 1;
                seen += host_report[2 * b + 1] == resident;
            }
            expect_all("blocks that found the grid workspace of a cooperative launch", given, resident);
            expect_all("blocks that read every block's slot after the grid barrier", seen, resident);
        }
    }
    free(host_report);
    CUresult too_large = cuLaunchCooperativeKernel(grid_exchange, resident + 1, 1, 1, EXCHANGE_THREADS, 1, 1, 0,
                                                   stream, exchange_args);
    show("cuLaunchCooperativeKernel, one block more", too_large);
    expect(too_large == CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE,
           "a cooperative grid of one block more than can be resident refused");

    // Programmatic dependent launch: the dependent begins while the primary still runs, then
    // waits (griddepcontrol.wait) for the data the primary writes once it has seen the dependent
    // begin (and long after: a dependent that did not wait reads the cleared words); first
    // serialized in one stream, then through the event the primary triggers, waited for by another
    // stream.
    CUevent programmatic;
    check(cuEventCreate(&programmatic, CU_EVENT_DISABLE_TIMING));
    unsigned int trigger = control("no_trigger") ? 0 : 1;
    for (int way = 0; way < 2; ++way) {
        clear(data, CLEARED, 64, stream);
        clear(out, CLEARED, 64, stream);
        clear(signals, CLEARED, 3, stream);
        CUlaunchAttribute attr;
        memset(&attr, 0, sizeof(attr));
        config = launch_config(1, 64, stream);
        void* primary[] = { &data, &flag, &saw, &trigger };
        void* secondary[] = { &data, &out, &flag };
        bool first, second;
        if (way == 0) {
            CUresult code = cuLaunchKernelEx(&config, pdl_primary, primary, nullptr);
            first = launched("cuLaunchKernelEx(pdl_primary)", code, 0);
            attr.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
            attr.value.programmaticStreamSerializationAllowed = 1;
            config.attrs = &attr;
            config.numAttrs = 1;
            code = cuLaunchKernelEx(&config, pdl_secondary, secondary, nullptr);
            second = launched("cuLaunchKernelEx(PROGRAMMATIC_STREAM_SERIALIZATION)", code, 0);
        } else {
            attr.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT;
            attr.value.programmaticEvent.event = programmatic;
            attr.value.programmaticEvent.flags = 0;
            attr.value.programmaticEvent.triggerAtBlockStart = 0;
            config.attrs = &attr;
            config.numAttrs = 1;
            CUresult code = cuLaunchKernelEx(&config, pdl_primary, primary, nullptr);
            first = launched("cuLaunchKernelEx(PROGRAMMATIC_EVENT)", code, 0);
            check(cuStreamWaitEvent(other, programmatic, 0));
            config.hStream = other;
            config.numAttrs = 0;
            code = cuLaunchKernelEx(&config, pdl_secondary, secondary, nullptr);
            second = launched("cuLaunchKernelEx(pdl_secondary)", code, 0);
        }
        // The dependent's stream.
        CUstream dependent = way == 0 ? stream : other;
        if (first && second) {
            if (way == 0) {
                unsigned int word = 0;
                read_words(&word, saw, 1, stream);
                bool seen = word == 1;
                printf("the primary saw the dependent begin before it ended: %s\n", yes(seen));
                expect(seen, "the dependent began before the primary ended");
            }
            unsigned int host[64];
            read_words(host, out, 64, dependent);
            size_t same = 0;
            for (unsigned int i = 0; i < 64; ++i)
                same += host[i] == 2 * (i + 1);
            expect_all("elements the dependent read from the primary", same, 64);
        }
    }

    // The launch completion event, recorded once every block of a kernel has begun: pdl_primary
    // (no trigger), held back behind slow_fill in its stream, waits for the flag raise_flag raises,
    // launched in another stream that waits for the event: raise_flag runs while the first kernel
    // runs, and not before it began (the flag was not raised when it began).
    CUevent completion;
    check(cuEventCreate(&completion, CU_EVENT_DISABLE_TIMING));
    clear(completion_signals, CLEARED, 3, stream);
    {
        CUdeviceptr flag = completion_signals;
        CUdeviceptr saw = completion_signals + word;
        unsigned int value = 1000 * (unsigned int)CU_LAUNCH_ATTRIBUTE_LAUNCH_COMPLETION_EVENT;
        void* slow_args[] = { &out, &value };
        CUresult code = cuLaunchKernel(slow_fill, 1, 1, 1, 64, 1, 1, 0, stream, slow_args, nullptr);
        bool held = launched("cuLaunchKernel(slow_fill)", code, 0);
        unsigned int no_trigger = 0;
        void* first_args[] = { &data, &flag, &saw, &no_trigger };
        void* flag_args[] = { &flag };
        CUlaunchAttribute attr;
        memset(&attr, 0, sizeof(attr));
        attr.id = CU_LAUNCH_ATTRIBUTE_LAUNCH_COMPLETION_EVENT;
        attr.value.launchCompletionEvent.event = completion;
        attr.value.launchCompletionEvent.flags = 0;
        config = launch_config(1, 64, stream);
        bool first;
        if (control("plain_event")) {
            code = cuLaunchKernelEx(&config, pdl_primary, first_args, nullptr);
            first = launched("cuLaunchKernelEx(pdl_primary), then cuEventRecord (the control)", code, 0);
            check(cuEventRecord(completion, stream));
        } else {
            config.attrs = &attr;
            config.numAttrs = 1;
            code = cuLaunchKernelEx(&config, pdl_primary, first_args, nullptr);
            first = launched("cuLaunchKernelEx(LAUNCH_COMPLETION_EVENT)", code, 0);
        }
        check(cuStreamWaitEvent(other, completion, 0));
        code = cuLaunchKernel(raise_flag, 1, 1, 1, 1, 1, 1, 0, other, flag_args, nullptr);
        bool second = launched("cuLaunchKernel(raise_flag)", code, 0);
        if (first && second) {
            unsigned int words[2];
            read_words(words, saw, 2, stream);
            bool seen = words[0] == 1;
            printf("the first kernel saw the flag of the kernel after its completion event: %s\n", yes(seen));
            expect(seen, "the kernel after the launch completion event ran while the first ran");
            bool waited = words[1] == 0;
            printf("the flag was not raised when the first kernel began: %s\n", yes(waited));
            expect(waited, "the kernel after the launch completion event waited for the first to begin");
        }
        if (held)
            check_fill(out, value, stream);
    }

    // The synchronization policy, an attribute of streams: set on `stream` and read back.
    CUstreamAttrValue policy;
    memset(&policy, 0, sizeof(policy));
    policy.syncPolicy = CU_SYNC_POLICY_SPIN;
    bool set = show("cuStreamSetAttribute(SYNCHRONIZATION_POLICY)",
                    cuStreamSetAttribute(stream, CU_STREAM_ATTRIBUTE_SYNCHRONIZATION_POLICY, &policy));
    expect(set, "cuStreamSetAttribute(SYNCHRONIZATION_POLICY)");
    memset(&policy, 0, sizeof(policy));
    if (show("cuStreamGetAttribute(SYNCHRONIZATION_POLICY)",
             cuStreamGetAttribute(stream, CU_STREAM_ATTRIBUTE_SYNCHRONIZATION_POLICY, &policy))) {
        bool spin = policy.syncPolicy == CU_SYNC_POLICY_SPIN;
        printf("  read back CU_SYNC_POLICY_SPIN: %s\n", yes(spin));
        expect(spin, "the stream's synchronization policy");
    } else {
        expect(false, "cuStreamGetAttribute(SYNCHRONIZATION_POLICY)");
    }

    // A device-updatable kernel node, an attribute of graphs: on a launch of fill captured into a
    // graph, read back from the graph's kernel node; then the graph's output.
    {
        unsigned int value = 1000 * (unsigned int)CU_LAUNCH_ATTRIBUTE_DEVICE_UPDATABLE_KERNEL_NODE;
        void* args[] = { &out, &value };
        CUlaunchAttribute attr;
        memset(&attr, 0, sizeof(attr));
        attr.id = CU_LAUNCH_ATTRIBUTE_DEVICE_UPDATABLE_KERNEL_NODE;
        attr.value.deviceUpdatableKernelNode.deviceUpdatable = 1;
        config = launch_config(1, 64, stream);
        config.attrs = &attr;
        config.numAttrs = 1;
        CUgraph graph = nullptr;
        check(cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL));
        CUresult code = cuLaunchKernelEx(&config, fill, args, nullptr);
        bool captured = launched("cuLaunchKernelEx(DEVICE_UPDATABLE_KERNEL_NODE), captured", code, 0);
        check(cuStreamEndCapture(stream, &graph));
        if (captured && graph != nullptr) {
            size_t count = 0;
            check(cuGraphGetNodes(graph, nullptr, &count));
            CUgraphNode node = nullptr;
            size_t one = 1;
            if (count == 1)
                check(cuGraphGetNodes(graph, &node, &one));
            expect(count == 1 && node != nullptr, "the captured graph's kernel node");
            CUkernelNodeAttrValue updatable;
            memset(&updatable, 0, sizeof(updatable));
            if (node != nullptr &&
                show("cuGraphKernelNodeGetAttribute(DEVICE_UPDATABLE_KERNEL_NODE)",
                     cuGraphKernelNodeGetAttribute(node, CU_KERNEL_NODE_ATTRIBUTE_DEVICE_UPDATABLE_KERNEL_NODE,
                                                   &updatable))) {
                bool on = updatable.deviceUpdatableKernelNode.deviceUpdatable == 1;
                printf("  the node is device-updatable: %s\n", yes(on));
                expect(on, "the node is device-updatable");
            } else {
                expect(false, "cuGraphKernelNodeGetAttribute(DEVICE_UPDATABLE_KERNEL_NODE)");
            }
            CUgraphExec exec = nullptr;
            if (check(cuGraphInstantiate(&exec, graph, 0))) {
                check(cuGraphUpload(exec, stream));
                bool ran = show("cuGraphLaunch", cuGraphLaunch(exec, stream));
                expect(ran, "cuGraphLaunch");
                if (ran)
                    check_fill(out, value, stream);
                check(cuGraphExecDestroy(exec));
            }
        }
        if (graph != nullptr)
            check(cuGraphDestroy(graph));
    }

    // One attribute per launch, each of an effect no kernel can see.
    int least = 0, greatest = 0;
    check(cuCtxGetStreamPriorityRange(&least, &greatest));
    CUlaunchAttribute attr;
    memset(&attr, 0, sizeof(attr));
    attr.id = CU_LAUNCH_ATTRIBUTE_IGNORE;
    launch_with("cuLaunchKernelEx(IGNORE)", fill, stream, out, attr, 0);
    memset(&attr, 0, sizeof(attr));
    attr.id = CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW;
    attr.value.accessPolicyWindow.base_ptr = (void*)out;
    attr.value.accessPolicyWindow.num_bytes = 4096;
    attr.value.accessPolicyWindow.hitRatio = 0.5f;
    attr.value.accessPolicyWindow.hitProp = CU_ACCESS_PROPERTY_PERSISTING;
    attr.value.accessPolicyWindow.missProp = CU_ACCESS_PROPERTY_STREAMING;
    launch_with("cuLaunchKernelEx(ACCESS_POLICY_WINDOW)", fill, stream, out, attr, 0);
    memset(&attr, 0, sizeof(attr));
    attr.id = CU_LAUNCH_ATTRIBUTE_PRIORITY;
    attr.value.priority = greatest;
    launch_with("cuLaunchKernelEx(PRIORITY)", fill, stream, out, attr, 0);
    memset(&attr, 0, sizeof(attr));
    attr.id = CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP;
    attr.value.memSyncDomainMap.default_ = 0;
    attr.value.memSyncDomainMap.remote = 1;
    launch_with("cuLaunchKernelEx(MEM_SYNC_DOMAIN_MAP)", fill, stream, out, attr, 0);
    memset(&attr, 0, sizeof(attr));
    attr.id = CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN;
    attr.value.memSyncDomain = CU_LAUNCH_MEM_SYNC_DOMAIN_REMOTE;
    launch_with("cuLaunchKernelEx(MEM_SYNC_DOMAIN)", fill, stream, out, attr, 0);
#if CUDA_VERSION >= 12050
    memset(&attr, 0, sizeof(attr));
    attr.id = CU_LAUNCH_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT;
    attr.value.sharedMemCarveout = 25;
    launch_with("cuLaunchKernelEx(PREFERRED_SHARED_MEMORY_CARVEOUT)", fill, stream, out, attr, 12050);
#endif
#if CUDA_VERSION >= 13000
    memset(&attr, 0, sizeof(attr));
    attr.id = CU_LAUNCH_ATTRIBUTE_NVLINK_UTIL_CENTRIC_SCHEDULING;
    attr.value.nvlinkUtilCentricScheduling = 1;
    launch_with("cuLaunchKernelEx(NVLINK_UTIL_CENTRIC_SCHEDULING)", fill, stream, out, attr, 13000);
#endif
#if CUDA_VERSION >= 13020
    memset(&attr, 0, sizeof(attr));
    attr.id = CU_LAUNCH_ATTRIBUTE_SHARED_MEMORY_MODE;
    attr.value.sharedMemoryMode = CU_SHARED_MEMORY_MODE_DEFAULT;
    launch_with("cuLaunchKernelEx(SHARED_MEMORY_MODE)", fill, stream, out, attr, 13020);
#endif

    // cuLaunchKernel of slow_fill with its arguments packed in one buffer (CU_LAUNCH_PARAM_*), then
    // host functions behind it in its stream: each runs once, late, and before the copy of the
    // output behind them.
    struct { CUdeviceptr out; unsigned int value; unsigned int pad; } packed = { out, 7, 0 };
    size_t packed_size = 12;  // the parameters' size: the pointer at 0, the value at 8
    void* extra[] = { CU_LAUNCH_PARAM_BUFFER_POINTER, &packed, CU_LAUNCH_PARAM_BUFFER_SIZE, &packed_size, CU_LAUNCH_PARAM_END };
    CUresult code = cuLaunchKernel(slow_fill, 1, 1, 1, 64, 1, 1, 0, stream, nullptr, extra);
    launched("cuLaunchKernel(extra)", code, 0);
    int calls = 0, enqueued = 0;
    if (launched("cuLaunchHostFunc", cuLaunchHostFunc(stream, count_call, &calls), 0))
        enqueued++;
#if CUDA_VERSION >= 13020
    PFN_cuLaunchHostFunc_v13010 launchHostFunc2 = (PFN_cuLaunchHostFunc_v13010)entry("cuLaunchHostFunc", 13010);
    if (launchHostFunc2) {
        if (launched("cuLaunchHostFunc_v2", launchHostFunc2(stream, count_call, &calls, 0), 0))
            enqueued++;
    } else {
        show_missing("cuLaunchHostFunc_v2");
    }
#endif
    check_fill(out, 7, stream);
    printf("  host function calls: %d\n", calls);
    expect(calls == enqueued, "each host function ran once");

    // The CUDA 3 launch API: block shape, shared size and parameters set on the function, then
    // a grid of 1 (cuLaunch), 2 (cuLaunchGrid) and 4 blocks (cuLaunchGridAsync) of 64 threads,
    // the first two in the NULL stream. scale writes its shared size after its 256 values.
    float factor = 2.5f;
    int n = 256;
    show("cuFuncSetBlockShape", cuFuncSetBlockShape(scale, 64, 1, 1));
    show("cuFuncSetSharedSize", cuFuncSetSharedSize(scale, SCALE_SHARED_BYTES));
    // The parameter area zeroed first: a parameter whose set is taken away reads 0, the same in
    // every process, not what the driver's buffer held.
    char zeros[16] = { 0 };
    show("cuParamSetv", cuParamSetv(scale, 0, zeros, sizeof(zeros)));
    show("cuParamSetv", cuParamSetv(scale, 0, &out, sizeof(out)));
    show("cuParamSeti", cuParamSeti(scale, 8, (unsigned int)n));
    show("cuParamSetf", cuParamSetf(scale, 12, factor));
    show("cuParamSetSize", cuParamSetSize(scale, 16));
    show("cuParamSetTexRef", cuParamSetTexRef(scale, CU_PARAM_TR_DEFAULT, nullptr));
    for (int way = 0; way < 3; ++way) {
        int grid = 1 << way;
        clear(out, 0, 257, nullptr);
        bool ok;
        CUstream ran_in = nullptr;
        if (way == 0) {
            ok = launched("cuLaunch", cuLaunch(scale), 0);
        } else if (way == 1) {
            ok = launched("cuLaunchGrid", cuLaunchGrid(scale, grid, 1), 0);
        } else {
            ok = launched("cuLaunchGridAsync", cuLaunchGridAsync(scale, grid, 1, stream), 0);
            ran_in = stream;
        }
        if (!ok)
            continue;
        float values[257] = { 0 };
        check(cuMemcpyDtoHAsync(values, out, sizeof(values), ran_in));
        size_t same = 0;
        for (int i = 0; i <= n; ++i)
            same += values[i] == (i < 64 * grid ? factor * (float)i : i == n ? (float)SCALE_SHARED_BYTES : 0.0f);
        expect_all("  its output", same, 257);
    }

    check(cuEventDestroy(completion));
    check(cuEventDestroy(programmatic));
    check(cuMemFree(report));
    check(cuMemFree(slots));
    check(cuMemFree(signals));
    check(cuMemFree(data));
    check(cuMemFree(out));
    check(cuStreamDestroy(other));
    check(cuStreamDestroy(stream));
    check(cuModuleUnload(module));
    check(cuDevicePrimaryCtxRelease(device));
    return finish();
}
