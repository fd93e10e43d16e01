// C twin of examples/groups/contexts.rs. The context groups of the Driver API: the primary
// context's flags and state, set, retained, released and reset; a context created, made current,
// pushed and popped, and what it reports (device, flags, id, API version, stream priorities,
// execution affinity); every limit read, the stack size set; the cache and shared memory
// configuration; L2 persisting lines reset; the context synchronized after a kernel that writes
// host-mapped words late (the words must be there); an event recorded on the context after such a
// kernel and waited for by the primary context, whose kernel then copies the words (the copy must
// hold them); a context limited to part of the SMs (execution affinity: its SM count checked where
// the driver makes one, which it does only under MPS); the deprecated attach and detach. Then, in
// the manner of NVIDIA's threadMigration sample, one context used by four threads in turn, each
// pushing it, launching a kernel, checking what the kernel left and popping it.
// Kernels: examples/kernels/graphs.ptx (add_value) and late_write.ptx (late_fill, copy_words);
// argv[1] is the kernels folder.
#include "common.h"
#include <thread>

#define N 256
// What the shared context's data starts as, before the threads add to it.
#define BASE 100
// The host-mapped words the late kernel writes, and the primary context's copy of them.
#define WORDS 256
// How long the late kernel waits before it writes: far longer than the host takes to read the
// words after a call that did not wait for it.
#define LATE_NS 200000000ULL

// One thread's turn with the shared context: push it, add `value` to every element, count in
// `*same` the elements that then hold `expected`, pop it. `*turn` whether the context was current
// from the push to the pop.
static void worker(CUcontext ctx, CUfunction add_value, CUdeviceptr data, int value, int expected, size_t* same,
                   bool* turn)
{
    CUcontext current = nullptr, popped = nullptr;
    int n = N;
    void* args[] = { &data, &value, &n };
    int host[N] = { 0 };
    *same = 0;
    *turn = check(cuCtxPushCurrent(ctx)) && check(cuCtxGetCurrent(&current)) && current == ctx &&
            check(cuLaunchKernel(add_value, 1, 1, 1, N, 1, 1, 0, nullptr, args, nullptr)) &&
            check(cuMemcpyDtoH(host, data, sizeof(host))) &&
            check(cuCtxPopCurrent(&popped)) && popped == ctx;
    for (int i = 0; i < N; ++i)
        *same += host[i] == expected;
}

// Launches late_fill on the current context's null stream: `value` into the WORDS words at `words`,
// LATE_NS after the kernel starts.
static void fill_late(CUfunction late_fill, CUdeviceptr words, unsigned int value)
{
    unsigned int n = WORDS;
    unsigned long long ns = LATE_NS;
    void* args[] = { &words, &n, &value, &ns };
    check(cuLaunchKernel(late_fill, 1, 1, 1, 256, 1, 1, 0, nullptr, args, nullptr));
}

// How many of the WORDS host-mapped words at `words` hold `value`, as the GPU left them.
static size_t holding(const volatile unsigned int* words, unsigned int value)
{
    size_t same = 0;
    for (int i = 0; i < WORDS; ++i)
        same += words[i] == value;
    return same;
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
    expect((flags & CU_CTX_SCHED_MASK) == CU_CTX_SCHED_BLOCKING_SYNC, "the primary context's flags set");
    check(cuCtxSetCurrent(primary));
    // The primary context's copy of the late words, loaded now: loaded at its first launch, it
    // could wait for the other context's kernel, as the event is to make it.
    CUmodule copier = load_module(argc, argv, "late_write.ptx");
    CUfunction copy_words = get_function(copier, "copy_words");
    if (copy_words == NULL || !check(cuFuncLoad(copy_words)))
        return finish();
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
    CUmodule late = load_module(argc, argv, "late_write.ptx");
    CUfunction late_fill = get_function(late, "late_fill");
    if (late_fill == NULL)
        return finish();
    // The late words and the primary context's copy of them: host memory both contexts map.
    void* host_words = nullptr;
    const size_t host_bytes = 2 * WORDS * sizeof(unsigned int);
    if (!check(cuMemHostAlloc(&host_words, host_bytes, CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP)))
        return finish();
    memset(host_words, 0, host_bytes);
    volatile unsigned int* words = (volatile unsigned int*)host_words;
    volatile unsigned int* copied = words + WORDS;
    CUdeviceptr words_device = 0;
    check(cuMemHostGetDevicePointer(&words_device, host_words, 0));
    CUdeviceptr copied_device = words_device + WORDS * sizeof(unsigned int);
#if CUDA_VERSION >= 13000
    ctx_device = -1;
    check(cuCtxGetDevice_v2(&ctx_device, ctx));
    expect(ctx_device == device, "the context's device (v2)");
    fill_late(late_fill, words_device, 1);
    check(cuCtxSynchronize_v2(ctx));
    expect_all("words of the late kernel, after cuCtxSynchronize_v2", holding(words, 1), WORDS);
#endif
    fill_late(late_fill, words_device, 2);
    check(cuCtxSynchronize());
    expect_all("words of the late kernel, after cuCtxSynchronize", holding(words, 2), WORDS);
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
    expect(stack >= 4096, "the stack size set (4096 or more)");
    CUfunc_cache cache;
    check(cuCtxSetCacheConfig(CU_FUNC_CACHE_PREFER_SHARED));
    check(cuCtxGetCacheConfig(&cache));
    expect(cache == CU_FUNC_CACHE_PREFER_SHARED, "the cache configuration set");
    CUsharedconfig shared;
    show("cuCtxSetSharedMemConfig(FOUR_BYTE)", cuCtxSetSharedMemConfig(CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE));
    show("cuCtxGetSharedMemConfig", cuCtxGetSharedMemConfig(&shared));
    check(cuCtxResetPersistingL2Cache());
    // An event recorded on the context after a late kernel, which the primary context waits for.
    CUevent event;
    check(cuEventCreate(&event, CU_EVENT_DISABLE_TIMING));
    fill_late(late_fill, words_device, 3);
    check(cuCtxRecordEvent(ctx, event));
    check(cuCtxWaitEvent(primary, event));

    // Push and pop: the primary context, pushed, copies the words after the event.
    CUcontext popped = nullptr;
    check(cuCtxPushCurrent(primary));
    check(cuCtxGetCurrent(&current));
    expect(current == primary, "the primary context pushed");
    unsigned int n = WORDS;
    void* copy_args[] = { &words_device, &copied_device, &n };
    check(cuLaunchKernel(copy_words, 1, 1, 1, 256, 1, 1, 0, nullptr, copy_args, nullptr));
    check(cuCtxSynchronize());
    expect_all("words the primary context copied after cuCtxWaitEvent", holding(copied, 3), WORDS);
    check(cuCtxPopCurrent(&popped));
    check(cuCtxGetCurrent(&current));
    expect(popped == primary && current == ctx, "the primary context popped, the new one current again");
    check(cuEventDestroy(event));

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
    check(cuMemsetD32(data, BASE, N));
    check(cuCtxPopCurrent(&popped));
    check(cuCtxGetCurrent(&current));
    expect(current == primary, "the main thread back on the primary context");
    for (int t = 0; t < 4; ++t) {
        size_t same = 0;
        bool turn = false;
        int expected = BASE + (t + 1) * (t + 2) / 2;
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
    check(cuModuleUnload(late));
    check(cuMemFreeHost(host_words));
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
    CUresult code = cuCtxCreate(&part, &params, 0, device);
    show("cuCtxCreate(exec affinity)", code);
#else
    if (show("cuCtxCreate_v4(exec affinity)", cuCtxCreate_v4(&part, &params, 0, device))) {
        check(cuCtxDestroy(part));
        part = nullptr;
    }
    CUresult code = cuCtxCreate_v3(&part, &limited, 1, 0, device);
    show("cuCtxCreate_v3(exec affinity)", code);
#endif
    if (code == CUDA_SUCCESS) {
        memset(&affinity, 0, sizeof(affinity));
        show("cuCtxGetExecAffinity(SM_COUNT)", cuCtxGetExecAffinity(&affinity, CU_EXEC_AFFINITY_TYPE_SM_COUNT));
        unsigned int count = affinity.param.smCount.val;
        printf("  %u SMs\n", count);
        expect(count >= 8 && (int)count < sms, "the limited context has the 8 SMs asked for or more, not all");
        check(cuCtxDestroy(part));
    } else {
        printf("  its SM count: not checked (the driver limits SMs only under MPS)\n");
        expect(code == CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY, "the SM-count affinity refused only as unsupported");
    }

    check(cuModuleUnload(copier));
    check(cuCtxSetCurrent(nullptr));
    check(cuDevicePrimaryCtxRelease(device));
    check(cuDevicePrimaryCtxReset(device));
    check(cuDevicePrimaryCtxGetState(device, &flags, &active));
    expect(active == 0, "the primary context inactive after its reset");
    return finish();
}
