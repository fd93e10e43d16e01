// C twin of examples/groups/streams_events.rs. The stream and event groups of the Driver API:
// streams with flags and priorities and what they report (flags, priority, id, device, context),
// stream attributes set, read and copied, a host callback, managed memory attached to a stream,
// waits on events; stream capture (capture mode exchanged, capture info and dependencies read and
// updated, a capture into an existing graph), the captured graphs run and their results checked;
// events with each creation flag, recorded with flags, queried, synchronized and timed. Functions
// of headers newer than the GPU driver (CUDA 13.2's capture to a CIG, 13.3's recapture) are looked
// up with cuGetProcAddress: where the driver has none, the program prints what its lookup
// answered. Where the effect of a call is an order (a wait, a synchronisation), the program makes
// the wrong order certain without it: the stream waited for is delayed (delay(), or a kernel that
// spins first), and what the later work found is copied out and checked.
// Kernels: examples/kernels/graphs.ptx (add_value) and late_write.ptx (late_fill); argv[1] is the
// kernels folder.
#include "common.h"
#include <cudaTypedefs.h>

// A stream callback: counts its calls.
static void CUDA_CB count_call(CUstream stream, CUresult status, void* user_data)
{
    (void)stream;
    if (status == CUDA_SUCCESS)
        *(int*)user_data += 1;
}

#define N 256
// What every element of the data holds before the three kernels add to it.
static const int START = 100;
// How long the second stream's kernel waits before it writes: well within a delay.
static const unsigned long long SPIN_NS = 50000000ull;

// Enqueues add_value(data, value, N) on `stream`.
static void add(CUfunction add_value, CUstream stream, CUdeviceptr data, int value)
{
    int n = N;
    void* args[] = { &data, &value, &n };
    check(cuLaunchKernel(add_value, 1, 1, 1, N, 1, 1, 0, stream, args, nullptr));
}

// Zeroes `data` and runs `graph` once, on `stream` after a delay, and checks every element equals
// `expected`.
static void run_and_check(const char* what, CUgraph graph, CUstream stream, CUdeviceptr data, int expected)
{
    CUgraphExec exec;
    delay(stream);
    check(cuMemsetD32Async(data, 0, N, stream));
    if (!check(cuGraphInstantiate(&exec, graph, 0)))
        return;
    check(cuGraphLaunch(exec, stream));
    check(cuStreamSynchronize(stream));
    int host[N] = { 0 };
    check(cuMemcpyDtoH(host, data, sizeof(host)));
    printf("%s: element 0 is %d\n", what, host[0]);
    bool all = true;
    for (int i = 0; i < N; ++i)
        all = all && host[i] == expected;
    expect(all, what);
    check(cuGraphExecDestroy(exec));
}

int main(int argc, char** argv)
{
    if (!check(cuInit(0)))
        return 1;
    CUdevice device;
    CUcontext ctx;
    if (!primary_context(&device, &ctx))
        return finish();
    CUmodule module = load_module(argc, argv, "graphs.ptx");
    CUfunction add_value = get_function(module, "add_value");
    CUmodule late = load_module(argc, argv, "late_write.ptx");
    CUfunction late_fill = get_function(late, "late_fill");
    if (add_value == NULL || late_fill == NULL)
        return finish();
    // The data, and what the second and third kernels found there (N words each) and the word the
    // spinning kernel marks.
    CUdeviceptr data, seen;
    check(cuMemAlloc(&data, N * sizeof(int)));
    check(cuMemAlloc(&seen, (2 * N + 1) * sizeof(int)));

    // Streams and what they report.
    int least = 0, greatest = 0;
    check(cuCtxGetStreamPriorityRange(&least, &greatest));
    CUstream plain, urgent, copy;
    check(cuStreamCreate(&plain, CU_STREAM_NON_BLOCKING));
    check(cuStreamCreateWithPriority(&urgent, CU_STREAM_NON_BLOCKING, greatest));
    check(cuStreamCreate(&copy, CU_STREAM_DEFAULT));
    unsigned int flags = 0;
    int priority = 0;
    check(cuStreamGetFlags(plain, &flags));
    printf("stream flags: %u\n", flags);
    check(cuStreamGetPriority(urgent, &priority));
    expect(priority == greatest, "the stream's priority");
    unsigned long long id_plain = 0, id_urgent = 0;
    check(cuStreamGetId(plain, &id_plain));
    check(cuStreamGetId(urgent, &id_urgent));
    expect(id_plain != id_urgent, "two streams' ids differ");
    CUdevice stream_device = -1;
    check(cuStreamGetDevice(plain, &stream_device));
    expect(stream_device == device, "the stream's device");
    CUcontext stream_ctx = nullptr;
    CUgreenCtx stream_green = nullptr;
    check(cuStreamGetCtx(plain, &stream_ctx));
    expect(stream_ctx == ctx, "the stream's context");
    stream_ctx = nullptr;
    check(cuStreamGetCtx_v2(plain, &stream_ctx, &stream_green));
    expect(stream_ctx == ctx && stream_green == nullptr, "the stream's context, and no green context");

    // Attributes.
    CUstreamAttrValue value;
    memset(&value, 0, sizeof(value));
    value.syncPolicy = CU_SYNC_POLICY_YIELD;
    check(cuStreamSetAttribute(plain, CU_STREAM_ATTRIBUTE_SYNCHRONIZATION_POLICY, &value));
    memset(&value, 0, sizeof(value));
    value.accessPolicyWindow.base_ptr = (void*)data;
    value.accessPolicyWindow.num_bytes = N * sizeof(int);
    value.accessPolicyWindow.hitRatio = 1.0f;
    value.accessPolicyWindow.hitProp = CU_ACCESS_PROPERTY_PERSISTING;
    value.accessPolicyWindow.missProp = CU_ACCESS_PROPERTY_STREAMING;
    check(cuStreamSetAttribute(plain, CU_STREAM_ATTRIBUTE_ACCESS_POLICY_WINDOW, &value));
    memset(&value, 0, sizeof(value));
    value.memSyncDomain = CU_LAUNCH_MEM_SYNC_DOMAIN_REMOTE;
    check(cuStreamSetAttribute(plain, CU_STREAM_ATTRIBUTE_MEM_SYNC_DOMAIN, &value));
    check(cuStreamCopyAttributes(copy, plain));
    memset(&value, 0, sizeof(value));
    check(cuStreamGetAttribute(copy, CU_STREAM_ATTRIBUTE_SYNCHRONIZATION_POLICY, &value));
    expect(value.syncPolicy == CU_SYNC_POLICY_YIELD, "the synchronization policy copied");
    memset(&value, 0, sizeof(value));
    check(cuStreamGetAttribute(copy, CU_STREAM_ATTRIBUTE_ACCESS_POLICY_WINDOW, &value));
    expect(value.accessPolicyWindow.num_bytes == N * sizeof(int), "the access policy window copied");
    memset(&value, 0, sizeof(value));
    check(cuStreamGetAttribute(urgent, CU_STREAM_ATTRIBUTE_PRIORITY, &value));
    expect(value.priority == greatest, "the priority attribute");
    memset(&value, 0, sizeof(value));
    check(cuStreamGetAttribute(plain, CU_STREAM_ATTRIBUTE_MEM_SYNC_DOMAIN, &value));
    expect(value.memSyncDomain == CU_LAUNCH_MEM_SYNC_DOMAIN_REMOTE, "the memory synchronization domain set");

    // Work, callbacks, events and waits: the data set to START, then a kernel on plain adds 1, one
    // on urgent after it adds 2, one on plain after that adds 4. Before its kernel, each of the
    // later two copies what the data holds; plain is delayed before its first kernel, and urgent
    // spins before its own (marking the last word of seen): where a wait does not happen, the copy
    // certainly comes before the kernel waited for. The interprocess event, recorded behind one
    // more delay, is still pending right after; timing_end's and the stream's synchronisations are
    // seen in the queries after them.
    CUevent timing_start, timing_end, blocking, no_timing, interprocess;
    check(cuEventCreate(&timing_start, CU_EVENT_DEFAULT));
    check(cuEventCreate(&timing_end, CU_EVENT_DEFAULT));
    check(cuEventCreate(&blocking, CU_EVENT_BLOCKING_SYNC));
    check(cuEventCreate(&no_timing, CU_EVENT_DISABLE_TIMING));
    check(cuEventCreate(&interprocess, CU_EVENT_INTERPROCESS | CU_EVENT_DISABLE_TIMING));
    int calls = 0;
    check(cuEventRecord(timing_start, plain));
    delay(plain);
    check(cuMemsetD32Async(data, START, N, plain));
    add(add_value, plain, data, 1);
    check(cuEventRecordWithFlags(no_timing, plain, CU_EVENT_RECORD_DEFAULT));
    const size_t bytes = N * sizeof(int);
    check(cuStreamWaitEvent(urgent, no_timing, CU_EVENT_WAIT_DEFAULT));
    check(cuMemcpyDtoDAsync(seen, data, bytes, urgent));
    CUdeviceptr mark = seen + 2 * bytes;
    unsigned int one = 1;
    unsigned long long ns = SPIN_NS;
    void* spin_args[] = { &mark, &one, &one, &ns };
    check(cuLaunchKernel(late_fill, 1, 1, 1, 1, 1, 1, 0, urgent, spin_args, nullptr));
    add(add_value, urgent, data, 2);
    check(cuEventRecord(blocking, urgent));
    check(cuStreamWaitEvent(plain, blocking, 0));
    check(cuMemcpyDtoDAsync(seen + bytes, data, bytes, plain));
    add(add_value, plain, data, 4);
    check(cuStreamAddCallback(plain, count_call, &calls, 0));
    check(cuEventRecord(timing_end, plain));
    delay(plain);
    check(cuEventRecord(interprocess, plain));
    expect(cuEventQuery(interprocess) == CUDA_ERROR_NOT_READY, "the interprocess event pending while its stream runs");
    check(cuEventSynchronize(timing_end));
    check(cuEventQuery(timing_end));
    check(cuStreamSynchronize(plain));
    check(cuStreamQuery(plain));
    printf("callback calls: %d\n", calls);
    float ms = -1.0f;
    check(cuEventElapsedTime(&ms, timing_start, timing_end));
    expect(ms >= 0.0f, "an elapsed time measured");
#if CUDA_VERSION < 13000
    ms = -1.0f;
    check(cuEventElapsedTime_v2(&ms, timing_start, timing_end));
    expect(ms >= 0.0f, "an elapsed time measured (v2)");
#endif
    show("cuEventElapsedTime(DISABLE_TIMING)", cuEventElapsedTime(&ms, timing_start, no_timing));
    int host[N] = { 0 };
    check(cuMemcpyDtoH(host, data, sizeof(host)));
    int found[2 * N + 1] = {0};
    check(cuMemcpyDtoH(found, seen, sizeof(found)));
    printf("three kernels on two streams, ordered by events: %d\n", host[0]);
    bool ordered = found[2 * N] == 1;
    for (int i = 0; i < N; ++i)
        ordered = ordered && host[i] == START + 7 && found[i] == START + 1 && found[N + i] == START + 3;
    expect(ordered, "three kernels ordered by events");
    expect(calls == 1, "the callback ran once");

    // Managed memory attached to one stream.
    CUdeviceptr managed;
    check(cuMemAllocManaged(&managed, 4096, CU_MEM_ATTACH_GLOBAL));
    delay(plain);
    check(cuStreamAttachMemAsync(plain, managed, 0, CU_MEM_ATTACH_SINGLE));
    check(cuStreamSynchronize(plain));
    expect_idle(plain, "the attachment done after cuStreamSynchronize");
    *(volatile int*)managed = 5;
    delay(plain);
    add(add_value, plain, managed, 1);
    check(cuStreamSynchronize(plain));
    printf("managed memory attached to the stream: %d\n", *(volatile int*)managed);
    expect(*(volatile int*)managed == 6, "managed memory attached to the stream");
    check(cuMemFree(managed));

    // Stream capture.
    CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_RELAXED;
    check(cuThreadExchangeStreamCaptureMode(&mode));
    expect(mode == CU_STREAM_CAPTURE_MODE_GLOBAL, "the thread's capture mode was global");
    check(cuThreadExchangeStreamCaptureMode(&mode));
    CUstreamCaptureStatus status;
    check(cuStreamIsCapturing(plain, &status));
    expect(status == CU_STREAM_CAPTURE_STATUS_NONE, "not capturing yet");
    check(cuStreamBeginCapture(plain, CU_STREAM_CAPTURE_MODE_GLOBAL));
    add(add_value, plain, data, 1);
    check(cuStreamIsCapturing(plain, &status));
    expect(status == CU_STREAM_CAPTURE_STATUS_ACTIVE, "capturing");
    cuuint64_t capture_id = 0;
    CUgraph capturing = nullptr;
    const CUgraphNode* deps = nullptr;
    const CUgraphEdgeData* edge_data = nullptr;
    size_t count = 0;
#if CUDA_VERSION >= 13000
    check(cuStreamGetCaptureInfo(plain, &status, &capture_id, &capturing, &deps, &edge_data, &count));
#else
    check(cuStreamGetCaptureInfo(plain, &status, &capture_id, &capturing, &deps, &count));
    check(cuStreamGetCaptureInfo_v3(plain, &status, &capture_id, &capturing, &deps, &edge_data, &count));
#endif
    printf("capture info: %zu dependency\n", count);
    expect(count == 1 && capture_id != 0 && capturing != nullptr, "the capture's dependency, id and graph");
    // After the second kernel (which depends on the first), the dependencies set back to the first
    // kernel's node, then the second's added: the last kernel depends on both, three edges in all
    // (without either update, two).
    CUgraphNode first = count == 1 ? deps[0] : nullptr;
    add(add_value, plain, data, 10);
#if CUDA_VERSION >= 13000
    check(cuStreamGetCaptureInfo(plain, &status, nullptr, nullptr, &deps, nullptr, &count));
#else
    check(cuStreamGetCaptureInfo(plain, &status, nullptr, nullptr, &deps, &count));
#endif
    CUgraphNode second = count == 1 ? deps[0] : nullptr;
#if CUDA_VERSION >= 13000
    check(cuStreamUpdateCaptureDependencies(plain, &first, nullptr, 1, CU_STREAM_SET_CAPTURE_DEPENDENCIES));
    check(cuStreamUpdateCaptureDependencies(plain, &second, nullptr, 1, CU_STREAM_ADD_CAPTURE_DEPENDENCIES));
#else
    check(cuStreamUpdateCaptureDependencies(plain, &first, 1, CU_STREAM_SET_CAPTURE_DEPENDENCIES));
    check(cuStreamUpdateCaptureDependencies_v2(plain, &second, nullptr, 1, CU_STREAM_ADD_CAPTURE_DEPENDENCIES));
#endif
    add(add_value, plain, data, 100);
    CUgraph captured = nullptr;
    check(cuStreamEndCapture(plain, &captured));
    size_t nodes = 0, roots = 0, edges = 0;
    check(cuGraphGetNodes(captured, nullptr, &nodes));
    check(cuGraphGetRootNodes(captured, nullptr, &roots));
#if CUDA_VERSION >= 13000
    check(cuGraphGetEdges(captured, nullptr, nullptr, nullptr, &edges));
#else
    check(cuGraphGetEdges(captured, nullptr, nullptr, &edges));
#endif
    printf("captured %zu nodes, %zu of them roots, %zu edges\n", nodes, roots, edges);
    expect(edges == 3, "the last captured kernel after both others, as the dependencies were updated");
    run_and_check("the captured graph", captured, plain, data, 111);

    // A capture into an existing graph, after its node.
    CUgraph existing;
    CUgraphNode empty;
    check(cuGraphCreate(&existing, 0));
    check(cuGraphAddEmptyNode(&empty, existing, nullptr, 0));
    check(cuStreamBeginCaptureToGraph(plain, existing, &empty, nullptr, 1, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL));
    add(add_value, plain, data, 3);
    CUgraph same = nullptr;
    check(cuStreamEndCapture(plain, &same));
    expect(same == existing, "the capture ends in the existing graph");
    run_and_check("the graph captured into", existing, plain, data, 3);
#if CUDA_VERSION >= 13020
    CUstreamCigCaptureParams cig;
    memset(&cig, 0, sizeof(cig));
    PFN_cuStreamBeginCaptureToCig_v13010 beginToCig =
        (PFN_cuStreamBeginCaptureToCig_v13010)entry("cuStreamBeginCaptureToCig", 13010);
    if (beginToCig)
        show("cuStreamBeginCaptureToCig", beginToCig(plain, &cig));
    else
        show_missing("cuStreamBeginCaptureToCig");
    PFN_cuStreamEndCaptureToCig_v13010 endToCig = (PFN_cuStreamEndCaptureToCig_v13010)entry("cuStreamEndCaptureToCig", 13010);
    if (endToCig)
        show("cuStreamEndCaptureToCig", endToCig(plain));
    else
        show_missing("cuStreamEndCaptureToCig");
#endif
#if CUDA_VERSION >= 13030
    PFN_cuStreamBeginRecaptureToGraph_v13030 recapture =
        (PFN_cuStreamBeginRecaptureToGraph_v13030)entry("cuStreamBeginRecaptureToGraph", 13030);
    if (recapture)
        show("cuStreamBeginRecaptureToGraph", recapture(plain, CU_STREAM_CAPTURE_MODE_GLOBAL, existing, nullptr, nullptr));
    else
        show_missing("cuStreamBeginRecaptureToGraph");
#endif

    check(cuGraphDestroy(existing));
    check(cuGraphDestroy(captured));
    check(cuMemFree(seen));
    CUevent events[] = { timing_start, timing_end, blocking, no_timing, interprocess };
    for (int i = 0; i < 5; ++i)
        check(cuEventDestroy(events[i]));
    check(cuStreamDestroy(copy));
    check(cuStreamDestroy(urgent));
    check(cuStreamDestroy(plain));
    check(cuMemFree(data));
    check(cuModuleUnload(late));
    check(cuModuleUnload(module));
    check(cuDevicePrimaryCtxRelease(device));
    return finish();
}
