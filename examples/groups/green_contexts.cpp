// C twin of examples/groups/green_contexts.rs. The green contexts group of the Driver API: the
// device's SM resource split by count into two groups, a resource descriptor and a green context
// for each, their SM resources read back (from the green context and from the context it converts
// to), a stream in each. Checked: each stream's green context; a kernel launched in each partition,
// recording the SM each of its blocks ran on in host-mapped words, ran on no more SMs than the
// partition was given, and the two sets of SMs are disjoint; each partition's stream, whose last
// kernel marks a host-mapped word 100 ms (the first) or 300 ms (the second) after it starts, has
// marked it when synchronized; the green contexts' ids differ (CUDA 13.0 headers); and an
// event orders the second partition's work after the first's, once through the streams and once
// through the green contexts: the first partition's kernel writes its words 300 ms after it starts,
// the event captures it (cuEventRecord on the first partition's stream; cuGreenCtxRecordEvent), the
// second partition waits for it (cuStreamWaitEvent on its stream; cuGreenCtxWaitEvent), and its
// kernel copies the words, which must be the first kernel's. Controls no_wait and no_green_wait:
// the second partition does not wait (on its stream, or as a green context), so its kernel runs
// beside the first and copies the words before they are written, and that check fails. Functions of
// newer headers than the GPU driver (cuDevSmResourceSplit, cuStreamGetDevResource: CUDA 13.1) are
// looked up with cuGetProcAddress (entry): their answer is printed, or where the driver has no such
// function, the driver's answer to the lookup (show_missing).
// Kernels: examples/kernels/green_contexts.ptx and late_write.ptx, loaded as libraries
// (context-independent); argv[1] is the kernels folder.
#include "common.h"
#include <cudaTypedefs.h>


#define BLOCKS 1024
#define MAX_SM 1024
// The words the first partition writes late and the second copies.
#define WORDS (1 << 16)
// How long the first partition's kernel waits before it writes: far longer than the copy takes.
#define LATE_NS 300000000ULL
// How long each partition's last kernel waits before it marks its stream finished: the second's
// far longer than the first's, so that the host, checking the second after synchronizing with the
// first, would find it unfinished without synchronizing with it too.
static const unsigned long long FINISH_NS[2] = { 100000000ULL, 300000000ULL };
// The mark of a partition's finished stream.
#define FINISHED 0xf1du

int main(int argc, char** argv)
{
    char ptx_path[4096], late_path[4096];
    kernel_file(ptx_path, sizeof ptx_path, argc, argv, "green_contexts.ptx");
    kernel_file(late_path, sizeof late_path, argc, argv, "late_write.ptx");

    if (!check(cuInit(0)))
        return 1;
    // The primary context first, as cuGreenCtxCreate's documentation advises.
    CUdevice device;
    CUcontext primary;
    if (!primary_context(&device, &primary))
        return finish();
    CUlibrary library, late_library;
    CUkernel record_sm, late_fill, copy_words;
    if (!check(cuLibraryLoadFromFile(&library, ptx_path, nullptr, nullptr, 0, nullptr, nullptr, 0)) ||
        !check(cuLibraryGetKernel(&record_sm, library, "record_sm")) ||
        !check(cuLibraryLoadFromFile(&late_library, late_path, nullptr, nullptr, 0, nullptr, nullptr, 0)) ||
        !check(cuLibraryGetKernel(&late_fill, late_library, "late_fill")) ||
        !check(cuLibraryGetKernel(&copy_words, late_library, "copy_words")))
        return finish();

    CUdevResource sm;
    memset(&sm, 0, sizeof(sm));
    if (!check(cuDeviceGetDevResource(device, &sm, CU_DEV_RESOURCE_TYPE_SM)))
        return finish();
    printf("  device: %u SMs\n", sm.sm.smCount);
#if CUDA_VERSION >= 13000
    printf("  minimum partition %u, co-scheduled alignment %u\n", sm.sm.minSmPartitionSize,
           sm.sm.smCoscheduledAlignment);
#endif

    // How many groups of at least 16 SMs there could be, then two of them.
    unsigned int groups = 0;
    check(cuDevSmResourceSplitByCount(nullptr, &groups, &sm, nullptr, 0, 16));
    printf("  groups of 16 SMs or more: %u\n", groups);
    CUdevResource split[2], remaining;
    memset(split, 0, sizeof(split));
    memset(&remaining, 0, sizeof(remaining));
    groups = 2;
    if (!check(cuDevSmResourceSplitByCount(split, &groups, &sm, &remaining, 0, 16)))
        return finish();
    printf("  %u groups of %u and %u SMs, %u remaining\n", groups, split[0].sm.smCount, split[1].sm.smCount,
           remaining.sm.smCount);

    expect(groups == 2, "two groups of SMs");
    // Each partition's blocks' SMs, and its finish mark: host memory every context maps, the SMs not
    // yet recorded (no SM has that number), the marks not yet made.
    void* host_words = nullptr;
    if (!check(cuMemHostAlloc(&host_words, (2 * BLOCKS + 2) * sizeof(unsigned int),
                              CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP)))
        return finish();
    volatile unsigned int* host = (volatile unsigned int*)host_words;
    for (int w = 0; w < 2 * BLOCKS + 2; ++w)
        host[w] = w < 2 * BLOCKS ? 0xffffffffu : 0;
    CUdeviceptr host_device = 0;
    check(cuMemHostGetDevicePointer(&host_device, host_words, 0));
    CUgreenCtx green[2];
    CUcontext ctx[2];
    CUstream stream[2];
    for (int i = 0; i < 2; ++i) {
        printf("partition %d:\n", i);
        CUdevResourceDesc desc;
        if (!check(cuDevResourceGenerateDesc(&desc, &split[i], 1)) ||
            !check(cuGreenCtxCreate(&green[i], desc, device, CU_GREEN_CTX_DEFAULT_STREAM)))
            return finish();
        CUdevResource r;
        memset(&r, 0, sizeof(r));
        check(cuGreenCtxGetDevResource(green[i], &r, CU_DEV_RESOURCE_TYPE_SM));
        printf("  the green context: %u SMs\n", r.sm.smCount);
        check(cuCtxFromGreenCtx(&ctx[i], green[i]));
        memset(&r, 0, sizeof(r));
        check(cuCtxGetDevResource(ctx[i], &r, CU_DEV_RESOURCE_TYPE_SM));
        printf("  its context: %u SMs\n", r.sm.smCount);
        check(cuGreenCtxStreamCreate(&stream[i], green[i], CU_STREAM_NON_BLOCKING, 0));
        CUgreenCtx owner = nullptr;
        check(cuStreamGetGreenCtx(stream[i], &owner));
        expect(owner == green[i], "the stream's green context");
#if CUDA_VERSION >= 13010
        PFN_cuStreamGetDevResource_v13010 streamGetDevResource =
            (PFN_cuStreamGetDevResource_v13010)entry("cuStreamGetDevResource", 13010);
        memset(&r, 0, sizeof(r));
        if (!streamGetDevResource)
            show_missing("  cuStreamGetDevResource");
        else if (show("  cuStreamGetDevResource", streamGetDevResource(stream[i], &r, CU_DEV_RESOURCE_TYPE_SM)))
            printf("  the stream: %u SMs\n", r.sm.smCount);
#endif
    }
    // Every kernel loaded into each partition's context before any runs: loaded at its first launch,
    // a kernel could wait for the other partition's work (on an H200 the copy of the rounds below
    // did), which would order that work without the event, or end a partition's work before the
    // host synchronizes with it.
    for (int i = 0; i < 2; ++i) {
        check(cuCtxSetCurrent(ctx[i]));
        const CUkernel kernels[] = { record_sm, late_fill, copy_words };
        for (CUkernel kernel : kernels) {
            CUfunction function;
            check(cuKernelGetFunction(&function, kernel));
            check(cuFuncLoad(function));
        }
    }
    for (int i = 0; i < 2; ++i) {
        // The kernels, in the context the green context converts to, on its stream: the SMs
        // recorded, then the stream's finish marked late.
        check(cuCtxSetCurrent(ctx[i]));
        CUfunction f;
        check(cuKernelGetFunction(&f, record_sm));
        CUdeviceptr sm_of_block = host_device + i * BLOCKS * sizeof(unsigned int);
        void* args[] = { &sm_of_block };
        check(cuLaunchKernel(f, BLOCKS, 1, 1, 128, 1, 1, 0, stream[i], args, nullptr));
        CUfunction mark;
        check(cuKernelGetFunction(&mark, late_fill));
        CUdeviceptr mark_at = host_device + (2 * BLOCKS + i) * sizeof(unsigned int);
        unsigned int one = 1, finished = FINISHED;
        unsigned long long ns = FINISH_NS[i];
        void* mark_args[] = { &mark_at, &one, &finished, &ns };
        check(cuLaunchKernel(mark, 1, 1, 1, 32, 1, 1, 0, stream[i], mark_args, nullptr));
    }
#if CUDA_VERSION >= 13000
    unsigned long long id0 = 0, id1 = 0;
    check(cuGreenCtxGetId(green[0], &id0));
    check(cuGreenCtxGetId(green[1], &id1));
    expect(id0 != id1, "two green contexts' ids differ");
#endif

    static bool used[2][MAX_SM];
    for (int i = 0; i < 2; ++i) {
        check(cuCtxSetCurrent(ctx[i]));
        check(cuStreamSynchronize(stream[i]));
        expect(host[2 * BLOCKS + i] == FINISHED, "a partition's stream finished when synchronized");
        unsigned int distinct = 0;
        size_t recorded = 0;
        for (int b = 0; b < BLOCKS; ++b) {
            unsigned int sm = host[i * BLOCKS + b];
            if (sm < MAX_SM)
                ++recorded;
            unsigned int s = sm < MAX_SM ? sm : MAX_SM - 1;
            if (!used[i][s]) {
                used[i][s] = true;
                ++distinct;
            }
        }
        char what[64];
        snprintf(what, sizeof what, "partition %d: blocks that recorded their SM", i);
        expect_all(what, recorded, BLOCKS);
        expect(distinct > 0 && distinct <= split[i].sm.smCount, "a partition ran on its SMs only");
    }
    bool disjoint = true;
    for (int s = 0; s < MAX_SM; ++s)
        if (used[0][s] && used[1][s])
            disjoint = false;
    expect(disjoint, "the partitions' SMs are disjoint");

    // The event orders the second partition's work after the first's: through the streams, then
    // through the green contexts.
    CUevent done;
    CUdeviceptr written, seen;
    check(cuCtxSetCurrent(ctx[0]));  // the event of the first partition's context, as cuEventRecord wants
    check(cuEventCreate(&done, CU_EVENT_DISABLE_TIMING));
    check(cuCtxSetCurrent(primary));
    check(cuMemAlloc(&written, WORDS * sizeof(unsigned int)));
    check(cuMemAlloc(&seen, WORDS * sizeof(unsigned int)));
    check(cuMemsetD32(written, 0, WORDS));
    check(cuCtxSynchronize());
    static unsigned int copied[WORDS];
    for (int round = 0; round < 2; ++round) {
        bool through_green = round == 1;
        unsigned int n = WORDS, value = 0x1a7e0 + round;
        unsigned long long ns = LATE_NS;
        check(cuCtxSetCurrent(ctx[0]));
        CUfunction fill;
        check(cuKernelGetFunction(&fill, late_fill));
        void* fill_args[] = { &written, &n, &value, &ns };
        check(cuLaunchKernel(fill, 1, 1, 1, 256, 1, 1, 0, stream[0], fill_args, nullptr));
        if (through_green)
            check(cuGreenCtxRecordEvent(green[0], done));
        else
            check(cuEventRecord(done, stream[0]));
        check(cuCtxSetCurrent(ctx[1]));
        if (through_green && !control("no_green_wait"))
            check(cuGreenCtxWaitEvent(green[1], done));
        if (!through_green && !control("no_wait"))
            check(cuStreamWaitEvent(stream[1], done, 0));
        CUfunction copy;
        check(cuKernelGetFunction(&copy, copy_words));
        void* copy_args[] = { &written, &seen, &n };
        check(cuLaunchKernel(copy, 1, 1, 1, 256, 1, 1, 0, stream[1], copy_args, nullptr));
        check(cuStreamSynchronize(stream[1]));
        check(cuMemcpyDtoH(copied, seen, sizeof(copied)));
        size_t same = 0;
        for (int w = 0; w < WORDS; ++w)
            if (copied[w] == value)
                ++same;
        // Whether every word came through, not how many: without a wait, how many is a race.
        const char* what = through_green ? "partition 1 copied partition 0's late words after cuGreenCtxWaitEvent"
                                         : "partition 1 copied partition 0's late words after cuStreamWaitEvent";
        printf("%s: %s\n", what, same == WORDS ? "all" : "not all");
        expect(same == WORDS, what);
        check(cuCtxSetCurrent(ctx[0]));
        check(cuStreamSynchronize(stream[0]));
    }

#if CUDA_VERSION >= 13010
    PFN_cuDevSmResourceSplit_v13010 smResourceSplit = (PFN_cuDevSmResourceSplit_v13010)entry("cuDevSmResourceSplit", 13010);
    CUdevResource groups_of[2];
    memset(groups_of, 0, sizeof(groups_of));
    CU_DEV_SM_RESOURCE_GROUP_PARAMS params[2];
    memset(params, 0, sizeof(params));
    params[0].smCount = 16;
    params[1].smCount = 16;
    if (smResourceSplit)
        show("cuDevSmResourceSplit", smResourceSplit(groups_of, 2, &sm, nullptr, 0, params));
    else
        show_missing("cuDevSmResourceSplit");
#endif

    check(cuEventDestroy(done));
    check(cuCtxSetCurrent(primary));
    check(cuMemFree(written));
    check(cuMemFree(seen));
    check(cuMemFreeHost(host_words));
    for (int i = 0; i < 2; ++i) {
        check(cuCtxSetCurrent(ctx[i]));
        check(cuStreamDestroy(stream[i]));
        check(cuCtxSetCurrent(primary));
        check(cuGreenCtxDestroy(green[i]));
    }
    check(cuLibraryUnload(library));
    check(cuLibraryUnload(late_library));
    check(cuDevicePrimaryCtxRelease(device));
    return finish();
}
