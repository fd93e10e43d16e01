// C twin of examples/groups/contexts.rs. The context groups of the Driver API: the primary
// context's flags and state, set, retained, released and reset; a context created, made current,
// pushed and popped, and what it reports (device, flags, id, API version, stream priorities,
// execution affinity); every limit read, the stack size set; the cache and shared memory
// configuration; L2 persisting lines reset; an event recorded on a context and waited for; a
// context limited to part of the SMs (execution affinity); the deprecated attach and detach. Then,
// in the manner of NVIDIA's threadMigration sample, one context used by four threads in turn,
// each pushing it, launching a kernel and popping it, the result checked.
// Kernels: examples/kernels/graphs.ptx (add_value); argv[1] is the kernels folder.
#include "common.h"
#include <string>
#include <thread>

#define N 256

// One thread's turn with the shared context: push it, add `value` to every element, pop it.
static void worker(CUcontext ctx, CUfunction add_value, CUdeviceptr data, int value, bool* ok)
{
    CUcontext current = nullptr, popped = nullptr;
    int n = N;
    void* args[] = { &data, &value, &n };
    *ok = check(cuCtxPushCurrent(ctx)) && check(cuCtxGetCurrent(&current)) && current == ctx &&
          check(cuLaunchKernel(add_value, 1, 1, 1, N, 1, 1, 0, nullptr, args, nullptr)) &&
          check(cuCtxSynchronize()) && check(cuCtxPopCurrent(&popped)) && popped == ctx;
}

int main(int argc, char** argv)
{
    const char* kernels_dir = argc > 1 ? argv[1] : "examples/kernels";
    std::string ptx_path = std::string(kernels_dir) + "/graphs.ptx";

    if (!check(cuInit(0)))
        return 1;
    CUdevice device;
    if (!check(cuDeviceGet(&device, 0)))
        return 1;
    bool all_ok = true;

    // The primary context.
    unsigned int flags = 0;
    int active = 0;
    show("cuDevicePrimaryCtxGetState", cuDevicePrimaryCtxGetState(device, &flags, &active));
    printf("  flags 0x%x, active %d\n", flags, active);
    show("cuDevicePrimaryCtxSetFlags(SCHED_BLOCKING_SYNC)", cuDevicePrimaryCtxSetFlags(device, CU_CTX_SCHED_BLOCKING_SYNC));
    CUcontext primary;
    show("cuDevicePrimaryCtxRetain", cuDevicePrimaryCtxRetain(&primary, device));
    show("cuDevicePrimaryCtxGetState", cuDevicePrimaryCtxGetState(device, &flags, &active));
    printf("  flags 0x%x, active %d\n", flags, active);
    check(cuCtxSetCurrent(primary));
    CUexecAffinityParam affinity;
    memset(&affinity, 0, sizeof(affinity));
    show("cuCtxGetExecAffinity(SM_COUNT)", cuCtxGetExecAffinity(&affinity, CU_EXEC_AFFINITY_TYPE_SM_COUNT));
    int sms = 0;
    check(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device));
    printf("  every SM: %s\n", (int)affinity.param.smCount.val == sms ? "yes" : "no");

    // A context of its own.
    CUcontext ctx, current = nullptr;
#if CUDA_VERSION >= 13000
    show("cuCtxCreate", cuCtxCreate(&ctx, nullptr, CU_CTX_SCHED_AUTO, device));
#else
    show("cuCtxCreate", cuCtxCreate(&ctx, CU_CTX_SCHED_AUTO, device));
#endif
    show("cuCtxGetCurrent", cuCtxGetCurrent(&current));
    printf("  the new context is current: %s\n", current == ctx ? "yes" : "no");
    CUdevice ctx_device = -1;
    show("cuCtxGetDevice", cuCtxGetDevice(&ctx_device));
    printf("  device 0: %s\n", ctx_device == device ? "yes" : "no");
#if CUDA_VERSION >= 13000
    ctx_device = -1;
    show("cuCtxGetDevice_v2", cuCtxGetDevice_v2(&ctx_device, ctx));
    printf("  device 0: %s\n", ctx_device == device ? "yes" : "no");
    show("cuCtxSynchronize_v2", cuCtxSynchronize_v2(ctx));
#endif
    show("cuCtxSynchronize", cuCtxSynchronize());
    unsigned long long id_ctx = 0, id_primary = 0;
    show("cuCtxGetId", cuCtxGetId(ctx, &id_ctx));
    show("cuCtxGetId", cuCtxGetId(primary, &id_primary));
    printf("  ids differ: %s\n", id_ctx != id_primary ? "yes" : "no");
    unsigned int version = 0;
    show("cuCtxGetApiVersion", cuCtxGetApiVersion(ctx, &version));
    printf("  %u\n", version);
    show("cuCtxGetFlags", cuCtxGetFlags(&flags));
    printf("  0x%x\n", flags);
    show("cuCtxSetFlags(SCHED_SPIN)", cuCtxSetFlags(CU_CTX_SCHED_SPIN));
    show("cuCtxGetFlags", cuCtxGetFlags(&flags));
    printf("  0x%x\n", flags);
    int least = 0, greatest = 0;
    show("cuCtxGetStreamPriorityRange", cuCtxGetStreamPriorityRange(&least, &greatest));
    printf("  %d to %d\n", least, greatest);
    for (int limit = 0; limit < (int)CU_LIMIT_MAX; ++limit) {
        size_t value = 0;
        CUresult code = cuCtxGetLimit(&value, (CUlimit)limit);
        const char* name = nullptr;
        cuGetErrorName(code, &name);
        printf("  cuCtxGetLimit(%d) = %s, %zu\n", limit, name, value);
    }
    show("cuCtxSetLimit(STACK_SIZE)", cuCtxSetLimit(CU_LIMIT_STACK_SIZE, 4096));
    size_t stack = 0;
    show("cuCtxGetLimit(STACK_SIZE)", cuCtxGetLimit(&stack, CU_LIMIT_STACK_SIZE));
    printf("  %zu\n", stack);
    CUfunc_cache cache;
    show("cuCtxSetCacheConfig(PREFER_SHARED)", cuCtxSetCacheConfig(CU_FUNC_CACHE_PREFER_SHARED));
    show("cuCtxGetCacheConfig", cuCtxGetCacheConfig(&cache));
    printf("  prefer shared: %s\n", cache == CU_FUNC_CACHE_PREFER_SHARED ? "yes" : "no");
    CUsharedconfig shared;
    show("cuCtxSetSharedMemConfig(FOUR_BYTE)", cuCtxSetSharedMemConfig(CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE));
    show("cuCtxGetSharedMemConfig", cuCtxGetSharedMemConfig(&shared));
    show("cuCtxResetPersistingL2Cache", cuCtxResetPersistingL2Cache());
    CUevent event;
    check(cuEventCreate(&event, CU_EVENT_DISABLE_TIMING));
    show("cuCtxRecordEvent", cuCtxRecordEvent(ctx, event));
    show("cuCtxWaitEvent", cuCtxWaitEvent(primary, event));
    check(cuEventDestroy(event));

    // Push and pop.
    CUcontext popped = nullptr;
    show("cuCtxPushCurrent(primary)", cuCtxPushCurrent(primary));
    check(cuCtxGetCurrent(&current));
    printf("  the primary context is current: %s\n", current == primary ? "yes" : "no");
    show("cuCtxPopCurrent", cuCtxPopCurrent(&popped));
    check(cuCtxGetCurrent(&current));
    printf("  popped the primary context: %s; the new one is current again: %s\n", popped == primary ? "yes" : "no",
           current == ctx ? "yes" : "no");

    // The deprecated attach and detach.
    CUcontext attached = nullptr;
    if (show("cuCtxAttach", cuCtxAttach(&attached, 0)))
        show("cuCtxDetach", cuCtxDetach(attached));

    // Thread migration: the context used by four threads in turn.
    CUmodule module;
    CUfunction add_value;
    CUdeviceptr data;
    if (!check(cuModuleLoad(&module, ptx_path.c_str())) ||
        !check(cuModuleGetFunction(&add_value, module, "add_value")))
        return 1;
    check(cuMemAlloc(&data, N * sizeof(int)));
    check(cuMemsetD32(data, 0, N));
    show("cuCtxPopCurrent", cuCtxPopCurrent(&popped));
    check(cuCtxGetCurrent(&current));
    printf("  the main thread is back on the primary context: %s\n", current == primary ? "yes" : "no");
    for (int t = 0; t < 4; ++t) {
        bool ok = false;
        std::thread thread(worker, ctx, add_value, data, t + 1, &ok);
        thread.join();
        printf("thread %d: pushed, launched, popped: %s\n", t, ok ? "ok" : "WRONG");
        all_ok = all_ok && ok;
    }
    check(cuCtxPushCurrent(ctx));
    int host[N];
    check(cuMemcpyDtoH(host, data, sizeof(host)));
    bool sum = true;
    for (int i = 0; i < N; ++i)
        sum = sum && host[i] == 1 + 2 + 3 + 4;
    printf("every element 10 after the four threads: %s\n", sum ? "ok" : "WRONG");
    all_ok = all_ok && sum;
    check(cuMemFree(data));
    check(cuModuleUnload(module));
    show("cuCtxDestroy", cuCtxDestroy(ctx));

    // A context limited to part of the SMs.
    int supported = 0;
    show("cuDeviceGetExecAffinitySupport(SM_COUNT)", cuDeviceGetExecAffinitySupport(&supported, CU_EXEC_AFFINITY_TYPE_SM_COUNT, device));
    printf("  %d\n", supported);
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
    show("cuDevicePrimaryCtxRelease", cuDevicePrimaryCtxRelease(device));
    show("cuDevicePrimaryCtxReset", cuDevicePrimaryCtxReset(device));
    show("cuDevicePrimaryCtxGetState", cuDevicePrimaryCtxGetState(device, &flags, &active));
    printf("  active %d\n", active);
    printf("Result = %s\n", all_ok ? "PASS" : "FAIL");
    return all_ok ? 0 : 1;
}
