// C twin of examples/groups/green_contexts.rs. The green contexts group of the Driver API: the
// device's SM resource split by count into two groups, a resource descriptor and a green context
// for each, their SM resources read back (from the green context and from the context it converts
// to), a stream in each, a kernel launched in each partition recording the SM each of its blocks
// ran on, and the check that each partition ran on no more SMs than it was given and that the two
// sets of SMs are disjoint; an event recorded in one green context and waited for by the other.
// Functions of newer headers than the GPU driver (cuDevSmResourceSplit, cuStreamGetDevResource:
// CUDA 13.1) are looked up with cuGetProcAddress: CUDA_ERROR_NOT_FOUND where the driver has none.
// Kernel: examples/kernels/green_contexts.ptx, loaded as a library (context-independent); argv[1]
// is the kernels folder.
#include "common.h"
#include <cudaTypedefs.h>


#define BLOCKS 1024
#define MAX_SM 1024

int main(int argc, char** argv)
{
    char ptx_path[4096];
    kernel_file(ptx_path, sizeof ptx_path, argc, argv, "green_contexts.ptx");


    if (!check(cuInit(0)))
        return 1;
    // The primary context first, as cuGreenCtxCreate's documentation advises.
    CUdevice device;
    CUcontext primary;
    if (!primary_context(&device, &primary))
        return finish();
    CUlibrary library;
    CUkernel record_sm;
    if (!check(cuLibraryLoadFromFile(&library, ptx_path, nullptr, nullptr, 0, nullptr, nullptr, 0)) ||
        !check(cuLibraryGetKernel(&record_sm, library, "record_sm")))
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
    CUgreenCtx green[2];
    CUcontext ctx[2];
    CUstream stream[2];
    CUdeviceptr sm_of_block[2];
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
        if (show("  cuStreamGetDevResource",
                 streamGetDevResource ? streamGetDevResource(stream[i], &r, CU_DEV_RESOURCE_TYPE_SM) : CUDA_ERROR_NOT_FOUND))
            printf("  the stream: %u SMs\n", r.sm.smCount);
#endif

        // The kernel, in the context the green context converts to, on its stream.
        check(cuCtxSetCurrent(ctx[i]));
        CUfunction f;
        check(cuKernelGetFunction(&f, record_sm));
        check(cuMemAlloc(&sm_of_block[i], BLOCKS * sizeof(unsigned int)));
        void* args[] = { &sm_of_block[i] };
        check(cuLaunchKernel(f, BLOCKS, 1, 1, 128, 1, 1, 0, stream[i], args, nullptr));
    }
#if CUDA_VERSION >= 13000
    unsigned long long id0 = 0, id1 = 0;
    check(cuGreenCtxGetId(green[0], &id0));
    check(cuGreenCtxGetId(green[1], &id1));
    expect(id0 != id1, "two green contexts' ids differ");
#endif

    // The second partition waits for the first one's work.
    CUevent done;
    check(cuEventCreate(&done, CU_EVENT_DISABLE_TIMING));
    check(cuGreenCtxRecordEvent(green[0], done));
    check(cuGreenCtxWaitEvent(green[1], done));

    static unsigned int host[2][BLOCKS];
    static bool used[2][MAX_SM];
    for (int i = 0; i < 2; ++i) {
        check(cuCtxSetCurrent(ctx[i]));
        check(cuStreamSynchronize(stream[i]));
        check(cuMemcpyDtoH(host[i], sm_of_block[i], sizeof(host[i])));
        unsigned int distinct = 0;
        for (int b = 0; b < BLOCKS; ++b) {
            unsigned int s = host[i][b] < MAX_SM ? host[i][b] : MAX_SM - 1;
            if (!used[i][s]) {
                used[i][s] = true;
                ++distinct;
            }
        }
        expect(distinct > 0 && distinct <= split[i].sm.smCount, "a partition ran on its SMs only");
    }
    bool disjoint = true;
    for (int s = 0; s < MAX_SM; ++s)
        if (used[0][s] && used[1][s])
            disjoint = false;
    expect(disjoint, "the partitions' SMs are disjoint");

#if CUDA_VERSION >= 13010
    PFN_cuDevSmResourceSplit_v13010 smResourceSplit = (PFN_cuDevSmResourceSplit_v13010)entry("cuDevSmResourceSplit", 13010);
    CUdevResource groups_of[2];
    memset(groups_of, 0, sizeof(groups_of));
    CU_DEV_SM_RESOURCE_GROUP_PARAMS params[2];
    memset(params, 0, sizeof(params));
    params[0].smCount = 16;
    params[1].smCount = 16;
    show("cuDevSmResourceSplit",
         smResourceSplit ? smResourceSplit(groups_of, 2, &sm, nullptr, 0, params) : CUDA_ERROR_NOT_FOUND);
#endif

    check(cuEventDestroy(done));
    for (int i = 0; i < 2; ++i) {
        check(cuCtxSetCurrent(ctx[i]));
        check(cuMemFree(sm_of_block[i]));
        check(cuStreamDestroy(stream[i]));
        check(cuCtxSetCurrent(primary));
        check(cuGreenCtxDestroy(green[i]));
    }
    check(cuLibraryUnload(library));
    check(cuDevicePrimaryCtxRelease(device));
    return finish();
}
