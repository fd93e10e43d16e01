// C twin of examples/groups/graph_conditional.rs. Conditional graph nodes written with driver
// calls, in the manner of NVIDIA's graphConditionalNodes sample: an IF node whose condition a
// kernel upstream sets, an IF node with an ELSE graph and a SWITCH node (CUDA 12.8 headers), a
// WHILE loop whose body counts down and sets the condition, and a WHILE loop whose body is captured
// from a stream into the node's graph (cuStreamBeginCaptureToGraph). Every node is added with
// cuGraphAddNode and CUgraphNodeParams; each graph runs for several values, and what the bodies
// wrote is checked on the host. Each graph ends with a kernel that counts its runs, so that a
// launch that did not happen shows where no body writes; each run's inputs, its launch and the copy
// of its results are queued in one stream after a delay, so that the results are certainly not
// there before the synchronisation.
// Kernels: examples/kernels/graphs.ptx, from graphs.cu; argv[1] is the kernels folder.
#include "common.h"

// Adds a one-thread kernel node running `f` with `args` after `deps`.
static CUgraphNode add_kernel(CUgraph graph, CUgraphNode* deps, size_t count, CUfunction f, void** args)
{
    CUgraphNodeParams params;
    memset(&params, 0, sizeof(params));
    params.type = CU_GRAPH_NODE_TYPE_KERNEL;
    params.kernel.func = f;
    params.kernel.gridDimX = 1; params.kernel.gridDimY = 1; params.kernel.gridDimZ = 1;
    params.kernel.blockDimX = 1; params.kernel.blockDimY = 1; params.kernel.blockDimZ = 1;
    params.kernel.kernelParams = args;
    CUgraphNode node = nullptr;
#if CUDA_VERSION >= 13000
    check(cuGraphAddNode(&node, graph, deps, nullptr, count, &params));
#else
    check(cuGraphAddNode(&node, graph, deps, count, &params));
#endif
    return node;
}

// Adds a conditional node of `type` with `size` body graphs after `deps`; the bodies in `bodies`.
static CUgraphNode add_conditional(CUgraph graph, CUgraphNode* deps, size_t count, CUcontext ctx,
                                   CUgraphConditionalHandle handle, CUgraphConditionalNodeType type,
                                   unsigned int size, CUgraph* bodies)
{
    CUgraphNodeParams params;
    memset(&params, 0, sizeof(params));
    params.type = CU_GRAPH_NODE_TYPE_CONDITIONAL;
    params.conditional.handle = handle;
    params.conditional.type = type;
    params.conditional.size = size;
    params.conditional.ctx = ctx;
    CUgraphNode node = nullptr;
#if CUDA_VERSION >= 13000
    check(cuGraphAddNode(&node, graph, deps, nullptr, count, &params));
#else
    check(cuGraphAddNode(&node, graph, deps, count, &params));
#endif
    for (unsigned int i = 0; i < size; ++i)
        bodies[i] = params.conditional.phGraph_out ? params.conditional.phGraph_out[i] : nullptr;
    return node;
}

// Adds the last node of each graph after `node`: add_value(ran, 1, 1), which counts its runs.
static void count_runs(CUgraph graph, CUgraphNode node, CUfunction add_value, CUdeviceptr ran)
{
    int one = 1;
    void* args[] = { &ran, &one, &one };
    add_kernel(graph, &node, 1, add_value, args);
}

// A graph of a kernel `setter(handle, value)` setting a new conditional handle, then a conditional
// node of `type` reading it, with `size` body graphs (returned in `bodies`), then the count of its
// runs at `ran`.
static CUgraph set_then_branch(CUcontext ctx, CUfunction setter, CUdeviceptr value, CUgraphConditionalNodeType type,
                               unsigned int size, CUgraph* bodies, CUfunction add_value, CUdeviceptr ran)
{
    CUgraph graph;
    CUgraphConditionalHandle handle;
    check(cuGraphCreate(&graph, 0));
    check(cuGraphConditionalHandleCreate(&handle, graph, ctx, 0, 0));
    void* set_args[] = { &handle, &value };
    CUgraphNode node = add_kernel(graph, nullptr, 0, setter, set_args);
    CUgraphNode branch = add_conditional(graph, &node, 1, ctx, handle, type, size, bodies);
    count_runs(graph, branch, add_value, ran);
    return graph;
}

// Instantiates `graph`, runs it once for each of `values` and checks `out` against `expected` and
// that the graph ran once; destroys both. Each run, in `stream`: the words at `io` (the value,
// `out` and the count of runs) copied from the page-locked `host[0..2]` (the value, 0, 0), a delay,
// the launch, and the words copied back to `host[3..5]`.
static void run(const char* what, CUgraph graph, CUstream stream, CUdeviceptr io, volatile int* host,
                const int* values, const int* expected, int runs)
{
    CUgraphExec exec;
    if (!check(cuGraphInstantiate(&exec, graph, 0))) {
        check(cuGraphDestroy(graph));
        return;
    }
    volatile int *input = host, *output = host + 3;
    for (int r = 0; r < runs; ++r) {
        input[0] = values[r];
        input[1] = 0;
        input[2] = 0;
        for (int i = 0; i < 3; ++i)
            output[i] = -1;
        check(cuMemcpyHtoDAsync(io, (const void*)input, 3 * sizeof(int), stream));
        delay(stream);
        check(cuGraphLaunch(exec, stream));
        check(cuMemcpyDtoHAsync((void*)output, io, 3 * sizeof(int), stream));
        check(cuStreamSynchronize(stream));
        int got = output[1], ran = output[2];
        printf("%s, value %d: %d\n", what, values[r], got);
        expect(got == expected[r] && ran == 1, what);
    }
    check(cuGraphExecDestroy(exec));
    check(cuGraphDestroy(graph));
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
    CUfunction set_if = get_function(module, "set_if");
    CUfunction set_switch = get_function(module, "set_switch");
    CUfunction loop_step = get_function(module, "loop_step");
    CUfunction write_value = get_function(module, "write_value");
    CUfunction add_value = get_function(module, "add_value");
    if (!set_if || !set_switch || !loop_step || !write_value || !add_value)
        return finish();
    CUstream stream;
    check(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
    // The value, what the bodies write and the count of runs: three words on the device, and
    // page-locked host words the runs copy them from and to.
    CUdeviceptr io = 0;
    check(cuMemAlloc(&io, 3 * sizeof(int)));
    CUdeviceptr value = io, out = io + 4, ran = io + 8;
    int* host = NULL;
    if (!check(cuMemAllocHost((void**)&host, 6 * sizeof(int))))
        return finish();
    int one = 1;

    // IF: the body writes 1 when the value is nonzero.
    {
        CUgraph body[1];
        CUgraph graph = set_then_branch(ctx, set_if, value, CU_GRAPH_COND_TYPE_IF, 1, body, add_value, ran);
        void* then_args[] = { &out, &one };
        add_kernel(body[0], nullptr, 0, write_value, then_args);
        int values[] = { 1, 0, 7 };
        int expected[] = { 1, 0, 1 };
        run("if", graph, stream, io, host, values, expected, 3);
    }
#if CUDA_VERSION >= 12080
    // IF with ELSE: 1 when the value is nonzero, else 2.
    int two = 2;
    {
        CUgraph body[2];
        CUgraph graph = set_then_branch(ctx, set_if, value, CU_GRAPH_COND_TYPE_IF, 2, body, add_value, ran);
        void* then_args[] = { &out, &one };
        add_kernel(body[0], nullptr, 0, write_value, then_args);
        void* else_args[] = { &out, &two };
        add_kernel(body[1], nullptr, 0, write_value, else_args);
        int values[] = { 1, 0 };
        int expected[] = { 1, 2 };
        run("if/else", graph, stream, io, host, values, expected, 2);
    }
    // SWITCH: body n writes 10 * (n + 1); no body for a value of 3 or more.
    {
        CUgraph body[3];
        CUgraph graph = set_then_branch(ctx, set_switch, value, CU_GRAPH_COND_TYPE_SWITCH, 3, body, add_value, ran);
        int written[3] = { 10, 20, 30 };
        for (int i = 0; i < 3; ++i) {
            void* case_args[] = { &out, &written[i] };
            add_kernel(body[i], nullptr, 0, write_value, case_args);
        }
        int values[] = { 2, 0, 1, 5 };
        int expected[] = { 30, 10, 20, 0 };
        run("switch", graph, stream, io, host, values, expected, 4);
    }
#endif
    // WHILE: the condition starts at 1 on each launch (CU_GRAPH_COND_ASSIGN_DEFAULT); the body
    // counts `value` down and runs as many times. The second loop's body is captured.
    for (int captured = 0; captured < 2; ++captured) {
        CUgraph graph, body[1];
        CUgraphConditionalHandle handle;
        check(cuGraphCreate(&graph, 0));
        check(cuGraphConditionalHandleCreate(&handle, graph, ctx, 1, CU_GRAPH_COND_ASSIGN_DEFAULT));
        CUgraphNode looped = add_conditional(graph, nullptr, 0, ctx, handle, CU_GRAPH_COND_TYPE_WHILE, 1, body);
        count_runs(graph, looped, add_value, ran);
        void* step_args[] = { &handle, &value, &out };
        if (!captured) {
            add_kernel(body[0], nullptr, 0, loop_step, step_args);
        } else {
            CUstream capture;
            CUgraph result = nullptr;
            check(cuStreamCreate(&capture, CU_STREAM_NON_BLOCKING));
            check(cuStreamBeginCaptureToGraph(capture, body[0], nullptr, nullptr, 0, CU_STREAM_CAPTURE_MODE_GLOBAL));
            check(cuLaunchKernel(loop_step, 1, 1, 1, 1, 1, 1, 0, capture, step_args, nullptr));
            check(cuStreamEndCapture(capture, &result));
            size_t nodes = 0;
            check(cuGraphGetNodes(body[0], nullptr, &nodes));
            expect(result == body[0] && nodes == 1, "captured into the body graph");
            check(cuStreamDestroy(capture));
            if (nodes != 1) {
                // An empty body would loop for ever.
                check(cuGraphDestroy(graph));
                continue;
            }
        }
        int values[] = { 5, 1, 3 };
        int expected[] = { 5, 1, 3 };
        run(captured ? "while (captured body), iterations" : "while, iterations", graph, stream, io, host, values,
            expected, 3);
    }

    check(cuMemFreeHost(host));
    check(cuMemFree(io));
    check(cuStreamDestroy(stream));
    check(cuModuleUnload(module));
    check(cuDevicePrimaryCtxRelease(device));
    return finish();
}
