// C twin of examples/groups/contexts.rs. The context groups of the Driver API: the primary
// context's flags and state, set, retained, released and reset; a context created, made current,
// pushed and popped, and what it reports (device, flags, id, API version, stream priorities,
// execution affinity); every limit read, the stack size set; the cache and shared memory
// configuration; L2 persisting lines reset; an event recorded on a context and waited for; a
// context limited to part of the SMs (execution affinity); the deprecated attach and detach. Then,
// in the manner of NVIDIA's threadMigration sample, one context used by four threads in turn,
// each pushing it, launching a kernel, checking what the kernel left and popping it.
// Kernels: examples/kernels/graphs.ptx (add_value); argv[1] is the kernels folder.
#include "common.h"
#include <thread>

#define N 256

// One thread's turn with the shared context: push it, add `value` to every element, count in
// `*same` the elements that then hold `expected`, pop it. `*turn` whether the context was current
// from the push to the pop.
static void worker(CUcontext ctx, CUfunction add_value, CUdeviceptr data, int value, int expected, size_t* same,
                   bool* turn)
{
    CUcontext current = nullptr, popped = nullptr;
    int n = N;
    void* args[] = { &data, &value, &n };
    int host[N];
    *same = 0;
    *turn = check(cuCtxPushCurrent(ctx)) && check(cuCtxGetCurrent(&current)) && current == ctx &&
            check(cuLaunchKernel(add_value, 1, 1, 1, N, 1, 1, 0, nullptr, args, nullptr)) &&
            check(cuCtxSynchronize()) && check(cuMemcpyDtoH(host, data, sizeof(host))) &&
            check(cuCtxPopCurrent(&popped)) && popped == ctx;
    for (int i = 0; i < N; ++i)
        *same += host[i] == expected;
}

int main(int argc, char** argv)
{
    if (!check(cuInit(0)))
        return 1;
    CUdevice device;
    if (!check(cuDeviceGet(&device, 0)))
        return finish();

    // The primary context.
    unsigned int flags = 0;
    int active = 0;
    check(cuDevicePrimaryCtxGetState(device, &flags, &active));
    printf("primary context: flags 0x%x, active %d\n", flags, active);
    check(cuDevicePrimaryCtxSetFlags(device, CU_CTX_SCHED_BLOCKING_SYNC));
    CUcontext primary;
    check(cuDevicePrimaryCtxRetain(&primary, device));
    check(cuDevicePrimaryCtxGetState(device, &flags, &active));
    printf("primary context retained: flags 0x%x, active %d\n", flags, active);
    check(cuCtxSetCurrent(primary));
    CUexecAffinityParam affinity;
    memset(&affinity, 0, sizeof(affinity));
    show("cuCtxGetExecAffinity(SM_COUNT)", cuCtxGetExecAffinity(&affinity, CU_EXEC_AFFINITY_TYPE_SM_COUNT));
    int sms = 0;
    check(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device));
    printf("  every SM: %s\n", yes((int)affinity.param.smCount.val == sms));

    // A context of its own.
    CUcontext ctx, current = nullptr;
#if CUDA_VERSION >= 13000
    check(cuCtxCreate(&ctx, nullptr, CU_CTX_SCHED_AUTO, device));
#else
    check(cuCtxCreate(&ctx, CU_CTX_SCHED_AUTO, device));
#endif
    check(cuCtxGetCurrent(&current));
    expect(current == ctx, "the new context is current");
    CUdevice ctx_device = -1;
    check(cuCtxGetDevice(&ctx_device));
    expect(ctx_device == device, "the context's device");
#if CUDA_VERSION >= 13000
    ctx_device = -1;
    check(cuCtxGetDevice_v2(&ctx_device, ctx));
    expect(ctx_device == device, "the context's device (v2)");
    check(cuCtxSynchronize_v2(ctx));
#endif
    check(cuCtxSynchronize());
    unsigned long long id_ctx = 0, id_primary = 0;
    check(cuCtxGetId(ctx, &id_ctx));
    check(cuCtxGetId(primary, &id_primary));
    expect(id_ctx != id_primary, "two contexts' ids differ");
    unsigned int version = 0;
    check(cuCtxGetApiVersion(ctx, &version));
    printf("API version: %u\n", version);
    check(cuCtxGetFlags(&flags));
    printf("context flags: 0x%x\n", flags);
    check(cuCtxSetFlags(CU_CTX_SCHED_SPIN));
    check(cuCtxGetFlags(&flags));
    printf("context flags: 0x%x\n", flags);
    expect((flags & CU_CTX_SCHED_MASK) == CU_CTX_SCHED_SPIN, "the context's flags set");
    int least = 0, greatest = 0;
    check(cuCtxGetStreamPriorityRange(&least, &greatest));
    printf("stream priorities: %d to %d\n", least, greatest);
    for (int limit = 0; limit < (int)CU_LIMIT_MAX; ++limit) {
        size_t value = 0;
        CUresult code = cuCtxGetLimit(&value, (CUlimit)limit);
        printf("cuCtxGetLimit(%d): %s, %zu\n", limit, result_name(code), value);
    }
    check(cuCtxSetLimit(CU_LIMIT_STACK_SIZE, 4096));
    size_t stack = 0;
    check(cuCtxGetLimit(&stack, CU_LIMIT_STACK_SIZE));
    printf("stack size: %zu\n", stack);
    CUfunc_cache cache;
    check(cuCtxSetCacheConfig(CU_FUNC_CACHE_PREFER_SHARED));
    check(cuCtxGetCacheConfig(&cache));
    expect(cache == CU_FUNC_CACHE_PREFER_SHARED, "the cache configuration set");
    CUsharedconfig shared;
    show("cuCtxSetSharedMemConfig(FOUR_BYTE)", cuCtxSetSharedMemConfig(CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE));
    show("cuCtxGetSharedMemConfig", cuCtxGetSharedMemConfig(&shared));
    check(cuCtxResetPersistingL2Cache());
    CUevent event;
    check(cuEventCreate(&event, CU_EVENT_DISABLE_TIMING));
    check(cuCtxRecordEvent(ctx, event));
    check(cuCtxWaitEvent(primary, event));
    check(cuEventDestroy(event));

    // Push and pop.
    CUcontext popped = nullptr;
    check(cuCtxPushCurrent(primary));
    check(cuCtxGetCurrent(&current));
    expect(current == primary, "the primary context pushed");
    check(cuCtxPopCurrent(&popped));
    check(cuCtxGetCurrent(&current));
    expect(popped == primary && current == ctx, "the primary context popped, the new one current again");

    // The deprecated attach and detach.
    CUcontext attached = nullptr;
    if (show("cuCtxAttach", cuCtxAttach(&attached, 0)))
        show("cuCtxDetach", cuCtxDetach(attached));

    // Thread migration: the context used by four threads in turn.
    CUdeviceptr data;
    CUmodule module = load_module(argc, argv, "graphs.ptx");
    CUfunction add_value = get_function(module, "add_value");
    if (add_value == NULL)
        return finish();
    check(cuMemAlloc(&data, N * sizeof(int)));
    check(cuMemsetD32(data, 0, N));
    check(cuCtxPopCurrent(&popped));
    check(cuCtxGetCurrent(&current));
    expect(current == primary, "the main thread back on the primary context");
    for (int t = 0; t < 4; ++t) {
        size_t same = 0;
        bool turn = false;
        int expected = (t + 1) * (t + 2) / 2;
        std::thread thread(worker, ctx, add_value, data, t + 1, expected, &same, &turn);
        thread.join();
        char what[64];
        snprintf(what, sizeof what, "thread %d: elements %d", t, expected);
        expect_all(what, same, N);
        expect(turn, "the context current from the push to the pop");
    }
    check(cuCtxPushCurrent(ctx));
    check(cuMemFree(data));
    check(cuModuleUnload(module));
    check(cuCtxDestroy(ctx));

    // A context limited to part of the SMs.
    int supported = 0;
    show("cuDeviceGetExecAffinitySupport(SM_COUNT)", cuDeviceGetExecAffinitySupport(&supported, CU_EXEC_AFFINITY_TYPE_SM_COUNT, device));
    printf("  supported: %d\n", supported);
    CUexecAffinityParam limited;
    memset(&limited, 0, sizeof(limited));
    limited.type = CU_EXEC_AFFINITY_TYPE_SM_COUNT;
    limited.param.smCount.val = 8;
    CUctxCreateParams params;
    memset(&params, 0, sizeof(params));
    params.execAffinityParams = &limited;
    params.numExecAffinityParams = 1;
    CUcontext part = nullptr;
#if CUDA_VERSION >= 13000
    bool created = show("cuCtxCreate(exec affinity)", cuCtxCreate(&part, &params, 0, device));
#else
    bool created = show("cuCtxCreate_v4(exec affinity)", cuCtxCreate_v4(&part, &params, 0, device));
    if (created) {
        check(cuCtxDestroy(part));
        part = nullptr;
    }
    created = show("cuCtxCreate_v3(exec affinity)", cuCtxCreate_v3(&part, &limited, 1, 0, device));
#endif
    if (created) {
        memset(&affinity, 0, sizeof(affinity));
        show("cuCtxGetExecAffinity(SM_COUNT)", cuCtxGetExecAffinity(&affinity, CU_EXEC_AFFINITY_TYPE_SM_COUNT));
        printf("  %u SMs\n", affinity.param.smCount.val);
        check(cuCtxDestroy(part));
    }

    check(cuCtxSetCurrent(nullptr));
    check(cuDevicePrimaryCtxRelease(device));
    check(cuDevicePrimaryCtxReset(device));
    check(cuDevicePrimaryCtxGetState(device, &flags, &active));
    expect(active == 0, "the primary context inactive after its reset");
    return finish();
}
