// C twin of examples/groups/streams_events.rs. The stream and event groups of the Driver API:
// streams with flags and priorities and what they report (flags, priority, id, device, context),
// stream attributes set, read and copied, a host callback, managed memory attached to a stream,
// waits on events; stream capture (capture mode exchanged, capture info and dependencies read and
// updated, a capture into an existing graph), the captured graphs run and their results checked;
// events with each creation flag, recorded with flags, queried, synchronized and timed. Functions
// of headers newer than the GPU driver (CUDA 13.2's capture to a CIG, 13.3's recapture) are looked
// up with cuGetProcAddress: CUDA_ERROR_NOT_FOUND where the driver has none.
// Kernels: examples/kernels/graphs.ptx (add_value); argv[1] is the kernels folder.
#include "common.h"
#include <cudaTypedefs.h>
#include <string>

static bool all_ok = true;

// A stream callback: counts its calls.
static void CUDA_CB count_call(CUstream stream, CUresult status, void* user_data)
{
    (void)stream;
    if (status == CUDA_SUCCESS)
        *(int*)user_data += 1;
}

#define N 256

// Enqueues add_value(data, value, N) on `stream`.
static void add(CUfunction add_value, CUstream stream, CUdeviceptr data, int value)
{
    int n = N;
    void* args[] = { &data, &value, &n };
    check(cuLaunchKernel(add_value, 1, 1, 1, N, 1, 1, 0, stream, args, nullptr));
}

// Zeroes `data`, runs `graph` once on `stream`, and checks every element equals `expected`.
static void run_and_check(const char* what, CUgraph graph, CUstream stream, CUdeviceptr data, int expected)
{
    CUgraphExec exec;
    check(cuMemsetD32(data, 0, N));
    check(cuCtxSynchronize());
    if (!check(cuGraphInstantiate(&exec, graph, 0))) {
        all_ok = false;
        return;
    }
    check(cuGraphLaunch(exec, stream));
    check(cuStreamSynchronize(stream));
    int host[N];
    check(cuMemcpyDtoH(host, data, sizeof(host)));
    bool ok = true;
    for (int i = 0; i < N; ++i)
        ok = ok && host[i] == expected;
    printf("%s: every element %d: %s\n", what, expected, ok ? "ok" : "WRONG");
    all_ok = all_ok && ok;
    check(cuGraphExecDestroy(exec));
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
    CUcontext ctx;
    if (!check(cuDevicePrimaryCtxRetain(&ctx, device)) || !check(cuCtxSetCurrent(ctx)))
        return 1;
    CUmodule module;
    CUfunction add_value;
    if (!check(cuModuleLoad(&module, ptx_path.c_str())) ||
        !check(cuModuleGetFunction(&add_value, module, "add_value")))
        return 1;
    CUdeviceptr data;
    check(cuMemAlloc(&data, N * sizeof(int)));

    // Streams and what they report.
    int least = 0, greatest = 0;
    check(cuCtxGetStreamPriorityRange(&least, &greatest));
    CUstream plain, urgent, copy;
    show("cuStreamCreate", cuStreamCreate(&plain, CU_STREAM_NON_BLOCKING));
    show("cuStreamCreateWithPriority", cuStreamCreateWithPriority(&urgent, CU_STREAM_NON_BLOCKING, greatest));
    show("cuStreamCreate", cuStreamCreate(&copy, CU_STREAM_DEFAULT));
    unsigned int flags = 0;
    int priority = 0;
    show("cuStreamGetFlags", cuStreamGetFlags(plain, &flags));
    printf("  flags %u\n", flags);
    show("cuStreamGetPriority", cuStreamGetPriority(urgent, &priority));
    printf("  the greatest priority: %s\n", priority == greatest ? "yes" : "no");
    unsigned long long id_plain = 0, id_urgent = 0;
    show("cuStreamGetId", cuStreamGetId(plain, &id_plain));
    show("cuStreamGetId", cuStreamGetId(urgent, &id_urgent));
    printf("  ids differ: %s\n", id_plain != id_urgent ? "yes" : "no");
    CUdevice stream_device = -1;
    show("cuStreamGetDevice", cuStreamGetDevice(plain, &stream_device));
    printf("  device 0: %s\n", stream_device == device ? "yes" : "no");
    CUcontext stream_ctx = nullptr;
    CUgreenCtx stream_green = nullptr;
    show("cuStreamGetCtx", cuStreamGetCtx(plain, &stream_ctx));
    printf("  the primary context: %s\n", stream_ctx == ctx ? "yes" : "no");
    stream_ctx = nullptr;
    show("cuStreamGetCtx_v2", cuStreamGetCtx_v2(plain, &stream_ctx, &stream_green));
    printf("  the primary context: %s, no green context: %s\n", stream_ctx == ctx ? "yes" : "no",
           stream_green == nullptr ? "yes" : "no");

    // Attributes.
    CUstreamAttrValue value;
    memset(&value, 0, sizeof(value));
    value.syncPolicy = CU_SYNC_POLICY_YIELD;
    show("cuStreamSetAttribute(SYNCHRONIZATION_POLICY)",
         cuStreamSetAttribute(plain, CU_STREAM_ATTRIBUTE_SYNCHRONIZATION_POLICY, &value));
    memset(&value, 0, sizeof(value));
    value.accessPolicyWindow.base_ptr = (void*)data;
    value.accessPolicyWindow.num_bytes = N * sizeof(int);
    value.accessPolicyWindow.hitRatio = 1.0f;
    value.accessPolicyWindow.hitProp = CU_ACCESS_PROPERTY_PERSISTING;
    value.accessPolicyWindow.missProp = CU_ACCESS_PROPERTY_STREAMING;
    show("cuStreamSetAttribute(ACCESS_POLICY_WINDOW)",
         cuStreamSetAttribute(plain, CU_STREAM_ATTRIBUTE_ACCESS_POLICY_WINDOW, &value));
    memset(&value, 0, sizeof(value));
    value.memSyncDomain = CU_LAUNCH_MEM_SYNC_DOMAIN_REMOTE;
    show("cuStreamSetAttribute(MEM_SYNC_DOMAIN)", cuStreamSetAttribute(plain, CU_STREAM_ATTRIBUTE_MEM_SYNC_DOMAIN, &value));
    show("cuStreamCopyAttributes", cuStreamCopyAttributes(copy, plain));
    memset(&value, 0, sizeof(value));
    show("cuStreamGetAttribute(SYNCHRONIZATION_POLICY)",
         cuStreamGetAttribute(copy, CU_STREAM_ATTRIBUTE_SYNCHRONIZATION_POLICY, &value));
    printf("  copied: %s\n", value.syncPolicy == CU_SYNC_POLICY_YIELD ? "yes" : "no");
    memset(&value, 0, sizeof(value));
    show("cuStreamGetAttribute(ACCESS_POLICY_WINDOW)",
         cuStreamGetAttribute(copy, CU_STREAM_ATTRIBUTE_ACCESS_POLICY_WINDOW, &value));
    printf("  copied: %s\n", value.accessPolicyWindow.num_bytes == N * sizeof(int) ? "yes" : "no");
    memset(&value, 0, sizeof(value));
    show("cuStreamGetAttribute(PRIORITY)", cuStreamGetAttribute(urgent, CU_STREAM_ATTRIBUTE_PRIORITY, &value));
    printf("  the greatest priority: %s\n", value.priority == greatest ? "yes" : "no");

    // Work, callbacks, events and waits.
    CUevent timing_start, timing_end, blocking, no_timing, interprocess;
    show("cuEventCreate(DEFAULT)", cuEventCreate(&timing_start, CU_EVENT_DEFAULT));
    show("cuEventCreate(DEFAULT)", cuEventCreate(&timing_end, CU_EVENT_DEFAULT));
    show("cuEventCreate(BLOCKING_SYNC)", cuEventCreate(&blocking, CU_EVENT_BLOCKING_SYNC));
    show("cuEventCreate(DISABLE_TIMING)", cuEventCreate(&no_timing, CU_EVENT_DISABLE_TIMING));
    show("cuEventCreate(INTERPROCESS)", cuEventCreate(&interprocess, CU_EVENT_INTERPROCESS | CU_EVENT_DISABLE_TIMING));
    check(cuMemsetD32(data, 0, N));
    check(cuCtxSynchronize());
    int calls = 0;
    show("cuEventRecord", cuEventRecord(timing_start, plain));
    add(add_value, plain, data, 1);
    show("cuEventRecordWithFlags(DEFAULT)", cuEventRecordWithFlags(no_timing, plain, CU_EVENT_RECORD_DEFAULT));
    show("cuStreamWaitEvent", cuStreamWaitEvent(urgent, no_timing, CU_EVENT_WAIT_DEFAULT));
    add(add_value, urgent, data, 2);
    show("cuEventRecord", cuEventRecord(blocking, urgent));
    show("cuStreamWaitEvent", cuStreamWaitEvent(plain, blocking, 0));
    add(add_value, plain, data, 4);
    show("cuStreamAddCallback", cuStreamAddCallback(plain, count_call, &calls, 0));
    show("cuEventRecord", cuEventRecord(timing_end, plain));
    show("cuEventRecord", cuEventRecord(interprocess, plain));
    show("cuEventSynchronize", cuEventSynchronize(timing_end));
    show("cuEventQuery", cuEventQuery(timing_end));
    show("cuStreamQuery", cuStreamQuery(plain));
    show("cuStreamSynchronize", cuStreamSynchronize(plain));
    printf("  callback calls: %d\n", calls);
    float ms = -1.0f;
    show("cuEventElapsedTime", cuEventElapsedTime(&ms, timing_start, timing_end));
    printf("  elapsed time measured: %s\n", ms >= 0.0f ? "yes" : "no");
#if CUDA_VERSION < 13000
    ms = -1.0f;
    show("cuEventElapsedTime_v2", cuEventElapsedTime_v2(&ms, timing_start, timing_end));
    printf("  elapsed time measured: %s\n", ms >= 0.0f ? "yes" : "no");
#endif
    show("cuEventElapsedTime(DISABLE_TIMING)", cuEventElapsedTime(&ms, timing_start, no_timing));
    int host[N];
    check(cuMemcpyDtoH(host, data, sizeof(host)));
    bool ordered = true;
    for (int i = 0; i < N; ++i)
        ordered = ordered && host[i] == 7;
    printf("three kernels on two streams, ordered by events: %s\n", ordered ? "ok" : "WRONG");
    all_ok = all_ok && ordered && calls == 1;

    // Managed memory attached to one stream.
    CUdeviceptr managed;
    check(cuMemAllocManaged(&managed, 4096, CU_MEM_ATTACH_GLOBAL));
    show("cuStreamAttachMemAsync", cuStreamAttachMemAsync(plain, managed, 0, CU_MEM_ATTACH_SINGLE));
    check(cuStreamSynchronize(plain));
    *(int*)managed = 5;
    add(add_value, plain, managed, 1);
    check(cuStreamSynchronize(plain));
    printf("managed memory attached to the stream: %d\n", *(int*)managed);
    all_ok = all_ok && *(int*)managed == 6;
    check(cuMemFree(managed));

    // Stream capture.
    CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_RELAXED;
    show("cuThreadExchangeStreamCaptureMode", cuThreadExchangeStreamCaptureMode(&mode));
    printf("  the thread's mode was %s\n", mode == CU_STREAM_CAPTURE_MODE_GLOBAL ? "global" : "not global");
    show("cuThreadExchangeStreamCaptureMode", cuThreadExchangeStreamCaptureMode(&mode));
    CUstreamCaptureStatus status;
    show("cuStreamIsCapturing", cuStreamIsCapturing(plain, &status));
    printf("  %s\n", status == CU_STREAM_CAPTURE_STATUS_ACTIVE ? "capturing" : "not capturing");
    show("cuStreamBeginCapture", cuStreamBeginCapture(plain, CU_STREAM_CAPTURE_MODE_GLOBAL));
    add(add_value, plain, data, 1);
    show("cuStreamIsCapturing", cuStreamIsCapturing(plain, &status));
    printf("  %s\n", status == CU_STREAM_CAPTURE_STATUS_ACTIVE ? "capturing" : "not capturing");
    cuuint64_t capture_id = 0;
    CUgraph capturing = nullptr;
    const CUgraphNode* deps = nullptr;
    const CUgraphEdgeData* edges = nullptr;
    size_t count = 0;
#if CUDA_VERSION >= 13000
    show("cuStreamGetCaptureInfo", cuStreamGetCaptureInfo(plain, &status, &capture_id, &capturing, &deps, &edges, &count));
#else
    show("cuStreamGetCaptureInfo", cuStreamGetCaptureInfo(plain, &status, &capture_id, &capturing, &deps, &count));
    show("cuStreamGetCaptureInfo_v3", cuStreamGetCaptureInfo_v3(plain, &status, &capture_id, &capturing, &deps, &edges, &count));
#endif
    printf("  %zu dependency, a capture id: %s, the graph: %s\n", count, capture_id != 0 ? "yes" : "no",
           capturing ? "yes" : "no");
    // The dependencies set to the first kernel's node (as they are), the second kernel, then the
    // first node added again: the last kernel depends on both.
    CUgraphNode first = count == 1 ? deps[0] : nullptr;
#if CUDA_VERSION >= 13000
    show("cuStreamUpdateCaptureDependencies(SET)", cuStreamUpdateCaptureDependencies(plain, &first, nullptr, 1, CU_STREAM_SET_CAPTURE_DEPENDENCIES));
#else
    show("cuStreamUpdateCaptureDependencies(SET)", cuStreamUpdateCaptureDependencies(plain, &first, 1, CU_STREAM_SET_CAPTURE_DEPENDENCIES));
#endif
    add(add_value, plain, data, 10);
#if CUDA_VERSION >= 13000
    show("cuStreamUpdateCaptureDependencies(ADD)", cuStreamUpdateCaptureDependencies(plain, &first, nullptr, 1, CU_STREAM_ADD_CAPTURE_DEPENDENCIES));
#else
    show("cuStreamUpdateCaptureDependencies_v2(ADD)", cuStreamUpdateCaptureDependencies_v2(plain, &first, nullptr, 1, CU_STREAM_ADD_CAPTURE_DEPENDENCIES));
#endif
    add(add_value, plain, data, 100);
    CUgraph captured = nullptr;
    show("cuStreamEndCapture", cuStreamEndCapture(plain, &captured));
    size_t nodes = 0, roots = 0;
    check(cuGraphGetNodes(captured, nullptr, &nodes));
    check(cuGraphGetRootNodes(captured, nullptr, &roots));
    printf("  captured %zu nodes, %zu of them roots\n", nodes, roots);
    run_and_check("the captured graph", captured, plain, data, 111);

    // A capture into an existing graph, after its node.
    CUgraph existing;
    CUgraphNode empty;
    check(cuGraphCreate(&existing, 0));
    check(cuGraphAddEmptyNode(&empty, existing, nullptr, 0));
    show("cuStreamBeginCaptureToGraph",
         cuStreamBeginCaptureToGraph(plain, existing, &empty, nullptr, 1, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL));
    add(add_value, plain, data, 3);
    CUgraph same = nullptr;
    show("cuStreamEndCapture", cuStreamEndCapture(plain, &same));
    printf("  the same graph: %s\n", same == existing ? "yes" : "no");
    run_and_check("the graph captured into", existing, plain, data, 3);
#if CUDA_VERSION >= 13020
    PFN_cuStreamBeginCaptureToCig_v13010 beginToCig =
        (PFN_cuStreamBeginCaptureToCig_v13010)entry("cuStreamBeginCaptureToCig", 13010);
    PFN_cuStreamEndCaptureToCig_v13010 endToCig = (PFN_cuStreamEndCaptureToCig_v13010)entry("cuStreamEndCaptureToCig", 13010);
    CUstreamCigCaptureParams cig;
    memset(&cig, 0, sizeof(cig));
    show("cuStreamBeginCaptureToCig", beginToCig ? beginToCig(plain, &cig) : CUDA_ERROR_NOT_FOUND);
    show("cuStreamEndCaptureToCig", endToCig ? endToCig(plain) : CUDA_ERROR_NOT_FOUND);
#endif
#if CUDA_VERSION >= 13030
    PFN_cuStreamBeginRecaptureToGraph_v13030 recapture =
        (PFN_cuStreamBeginRecaptureToGraph_v13030)entry("cuStreamBeginRecaptureToGraph", 13030);
    show("cuStreamBeginRecaptureToGraph",
         recapture ? recapture(plain, CU_STREAM_CAPTURE_MODE_GLOBAL, existing, nullptr, nullptr) : CUDA_ERROR_NOT_FOUND);
#endif

    check(cuGraphDestroy(existing));
    check(cuGraphDestroy(captured));
    CUevent events[] = { timing_start, timing_end, blocking, no_timing, interprocess };
    for (int i = 0; i < 5; ++i)
        show("cuEventDestroy", cuEventDestroy(events[i]));
    show("cuStreamDestroy", cuStreamDestroy(copy));
    show("cuStreamDestroy", cuStreamDestroy(urgent));
    show("cuStreamDestroy", cuStreamDestroy(plain));
    check(cuMemFree(data));
    check(cuModuleUnload(module));
    check(cuDevicePrimaryCtxRelease(device));
    printf("Result = %s\n", all_ok ? "PASS" : "FAIL");
    return all_ok ? 0 : 1;
}
