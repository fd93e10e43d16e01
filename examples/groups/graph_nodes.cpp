// C twin of examples/groups/graph_nodes.rs. The graph group of the Driver API, node by node: a
// graph of every node type the H100 runs (memset, kernel, child graph, memcpy, host, event record
// and wait, empty, batch memory operation, memory allocation and free; external semaphore nodes
// with no semaphore, as far as the driver takes them; the memory nodes in a graph of their own,
// since the driver neither clones a graph with memory nodes nor removes its edges or nodes), each
// node built with other parameters than its own, then set to its own and read back, the graph's
// nodes, roots, edges (with their data) and dependencies, an edge removed (counted) and added
// back, a clone and a node found in it; the graph instantiated, uploaded and launched, its result
// checked; then the executable graph changed node by node (each node type's Exec*SetParams, a node
// disabled and enabled, cuGraphExecNodeSetParams) and as a whole (cuGraphExecUpdate), each
// launch checked; a graph built with cuGraphAddNode and cuGraphNodeSetParams and instantiated with
// parameters; kernel node attributes copied; user objects; the graph memory attributes (the
// allocation graph run, the unused memory trimmed, the high watermark reset); the DOT output.
// Each launch's results are read by copies behind it in its stream, which return once done.
// Functions of headers newer than the GPU driver (CUDA 13.1's ids, 13.2's cuGraphNodeGetParams,
// 13.4's cuGraphAddNode and cuGraphNodeSetParams) are looked up with cuGetProcAddress: where the
// driver has none, the program prints what its lookup answered.
// Kernels: examples/kernels/graphs.ptx (add_value); argv[1] is the kernels folder.
#include "common.h"
#include <cudaTypedefs.h>
#include <unistd.h>

#define N 256

// The host node's function: counts its calls.
static void CUDA_CB count_call(void* user_data)
{
    *(int*)user_data += 1;
}

// A user object's destructor (nothing to free: the object owns no memory).
static void CUDA_CB destroy_object(void* user_data)
{
    (void)user_data;
}

// Kernel node parameters: add_value(*data, *value, *n) in one block of N threads.
static CUDA_KERNEL_NODE_PARAMS kernel_params(CUfunction f, void** args)
{
    CUDA_KERNEL_NODE_PARAMS p;
    memset(&p, 0, sizeof(p));
    p.func = f;
    p.gridDimX = 1; p.gridDimY = 1; p.gridDimZ = 1;
    p.blockDimX = N; p.blockDimY = 1; p.blockDimZ = 1;
    p.kernelParams = args;
    return p;
}

// Memcpy node parameters: N ints from `src` to `dst` on the device.
static CUDA_MEMCPY3D copy_of(CUdeviceptr src, CUdeviceptr dst)
{
    CUDA_MEMCPY3D p;
    memset(&p, 0, sizeof(p));
    p.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    p.srcDevice = src;
    p.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    p.dstDevice = dst;
    p.WidthInBytes = N * sizeof(int);
    p.Height = 1;
    p.Depth = 1;
    return p;
}

// Launches `exec` on `stream` and checks, by copies behind it in `stream` (to pageable memory: they
// return once done), the copy (every element `expected`), the host node's count at `calls` and the
// flag the batch memory operation wrote.
static void launch_and_check(const char* what, CUgraphExec exec, CUstream stream, CUdeviceptr copy, int expected,
                             const int* calls, int expected_calls, CUdeviceptr flag, unsigned int expected_flag)
{
    printf("%s:\n", what);
    if (!check(cuGraphLaunch(exec, stream)))
        return;
    int host[N] = { 0 };
    unsigned int flag_value = 0;
    check(cuMemcpyDtoHAsync(host, copy, sizeof(host), stream));
    check(cuMemcpyDtoHAsync(&flag_value, flag, sizeof(flag_value), stream));
    printf("  copy %d, host calls %d, flag %u\n", host[0], *calls, flag_value);
    bool all = true;
    for (int i = 0; i < N; ++i)
        all = all && host[i] == expected;
    expect(all, "every element of the copy");
    expect(*calls == expected_calls, "the host node's calls");
    expect(flag_value == expected_flag, "the batch memory operation's flag");
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
    if (add_value == NULL)
        return finish();
    CUstream stream;
    check(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
    CUdeviceptr data, copy, other_copy, flag;
    check(cuMemAlloc(&data, N * sizeof(int)));
    check(cuMemAlloc(&copy, N * sizeof(int)));
    check(cuMemAlloc(&other_copy, N * sizeof(int)));
    check(cuMemAlloc(&flag, sizeof(unsigned int)));
    // The flag before any batch memory operation wrote it: 1, read back.
    check(cuMemsetD32(flag, 1, 1));
    unsigned int first_flag = 0;
    check(cuMemcpyDtoH(&first_flag, flag, sizeof(first_flag)));
    expect(first_flag == 1, "the flag set before the first launch");
    CUevent event, other_event;
    check(cuEventCreate(&event, CU_EVENT_DISABLE_TIMING));
    check(cuEventCreate(&other_event, CU_EVENT_DISABLE_TIMING));
    int calls = 0, other_calls = 0;
    int n = N, one = 1, three = 3, ten = 10, twenty = 20;

    // The graph: memset -> kernel (+1) -> child graph (+10) -> memcpy -> host, event record ->
    // event wait -> empty -> batch memory operation; each node but the child graph built with
    // other parameters (memset 3, kernel +3, memcpy into other_copy, host counting other_calls,
    // events other_event, batch operation 16), set to these below. And a graph of its own:
    // allocation -> memset (7) -> kernel (+1) -> memcpy into copy -> free.
    CUgraph graph, child;
    check(cuGraphCreate(&graph, 0));
    check(cuGraphCreate(&child, 0));
    CUgraphNode memset_node, kernel_node, child_node, memcpy_node, host_node, record_node, wait_node, empty_node,
        batch_node, alloc_node, free_node, child_kernel;
    CUDA_MEMSET_NODE_PARAMS memset_params;
    memset(&memset_params, 0, sizeof(memset_params));
    memset_params.dst = data;
    memset_params.elementSize = 4;
    memset_params.width = N;
    memset_params.height = 1;
    memset_params.value = 3;
    check(cuGraphAddMemsetNode(&memset_node, graph, nullptr, 0, &memset_params, ctx));
    void* built_with_args[] = { &data, &three, &n };
    CUDA_KERNEL_NODE_PARAMS built_with = kernel_params(add_value, built_with_args);
    check(cuGraphAddKernelNode(&kernel_node, graph, &memset_node, 1, &built_with));
    void* child_args[] = { &data, &ten, &n };
    CUDA_KERNEL_NODE_PARAMS ckp = kernel_params(add_value, child_args);
    check(cuGraphAddKernelNode(&child_kernel, child, nullptr, 0, &ckp));
    check(cuGraphAddChildGraphNode(&child_node, graph, &kernel_node, 1, child));
    CUDA_MEMCPY3D copy_params = copy_of(data, copy);
    CUDA_MEMCPY3D other_copy_params = copy_of(data, other_copy);
    check(cuGraphAddMemcpyNode(&memcpy_node, graph, &child_node, 1, &other_copy_params, ctx));
    CUDA_HOST_NODE_PARAMS host_params = { count_call, &calls };
    CUDA_HOST_NODE_PARAMS other_host_params = { count_call, &other_calls };
    check(cuGraphAddHostNode(&host_node, graph, &memcpy_node, 1, &other_host_params));
    check(cuGraphAddEventRecordNode(&record_node, graph, &memcpy_node, 1, other_event));
    check(cuGraphAddEventWaitNode(&wait_node, graph, &record_node, 1, other_event));
    CUgraphNode before_empty[] = { host_node, wait_node };
    check(cuGraphAddEmptyNode(&empty_node, graph, before_empty, 2));
    CUstreamBatchMemOpParams op;
    memset(&op, 0, sizeof(op));
    op.writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_32;
    op.writeValue.address = flag;
    op.writeValue.value = 16;
    CUDA_BATCH_MEM_OP_NODE_PARAMS batch_params;
    memset(&batch_params, 0, sizeof(batch_params));
    batch_params.ctx = ctx;
    batch_params.count = 1;
    batch_params.paramArray = &op;
    check(cuGraphAddBatchMemOpNode(&batch_node, graph, &empty_node, 1, &batch_params));
    CUDA_MEM_ALLOC_NODE_PARAMS alloc_params;
    memset(&alloc_params, 0, sizeof(alloc_params));
    alloc_params.poolProps.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    alloc_params.poolProps.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    alloc_params.poolProps.location.id = device;
    alloc_params.bytesize = 1 << 20;
    CUgraph memory_graph;
    check(cuGraphCreate(&memory_graph, 0));
    check(cuGraphAddMemAllocNode(&alloc_node, memory_graph, nullptr, 0, &alloc_params));
    CUdeviceptr allocated = alloc_params.dptr;
    CUgraphNode memory_set, memory_add, memory_copy;
    CUDA_MEMSET_NODE_PARAMS allocated_set;
    memset(&allocated_set, 0, sizeof(allocated_set));
    allocated_set.dst = allocated;
    allocated_set.elementSize = 4;
    allocated_set.width = N;
    allocated_set.height = 1;
    allocated_set.value = 7;
    check(cuGraphAddMemsetNode(&memory_set, memory_graph, &alloc_node, 1, &allocated_set, ctx));
    void* allocated_args[] = { &allocated, &one, &n };
    CUDA_KERNEL_NODE_PARAMS allocated_add = kernel_params(add_value, allocated_args);
    check(cuGraphAddKernelNode(&memory_add, memory_graph, &memory_set, 1, &allocated_add));
    CUDA_MEMCPY3D copy_out = copy_of(allocated, copy);
    check(cuGraphAddMemcpyNode(&memory_copy, memory_graph, &memory_add, 1, &copy_out, ctx));
    check(cuGraphAddMemFreeNode(&free_node, memory_graph, &memory_copy, 1, allocated));
    // External semaphore nodes with no semaphore (no other API here exports one), in a graph of
    // their own that is never run.
    CUgraph sem_graph;
    check(cuGraphCreate(&sem_graph, 0));
    CUDA_EXT_SEM_SIGNAL_NODE_PARAMS signal_params;
    memset(&signal_params, 0, sizeof(signal_params));
    CUDA_EXT_SEM_WAIT_NODE_PARAMS wait_params;
    memset(&wait_params, 0, sizeof(wait_params));
    CUgraphNode signal_node = nullptr, sem_wait_node = nullptr;
    if (show("cuGraphAddExternalSemaphoresSignalNode",
             cuGraphAddExternalSemaphoresSignalNode(&signal_node, sem_graph, nullptr, 0, &signal_params))) {
        show("cuGraphExternalSemaphoresSignalNodeGetParams", cuGraphExternalSemaphoresSignalNodeGetParams(signal_node, &signal_params));
        show("cuGraphExternalSemaphoresSignalNodeSetParams", cuGraphExternalSemaphoresSignalNodeSetParams(signal_node, &signal_params));
    }
    if (show("cuGraphAddExternalSemaphoresWaitNode",
             cuGraphAddExternalSemaphoresWaitNode(&sem_wait_node, sem_graph, nullptr, 0, &wait_params))) {
        show("cuGraphExternalSemaphoresWaitNodeGetParams", cuGraphExternalSemaphoresWaitNodeGetParams(sem_wait_node, &wait_params));
        show("cuGraphExternalSemaphoresWaitNodeSetParams", cuGraphExternalSemaphoresWaitNodeSetParams(sem_wait_node, &wait_params));
    }

    // Each node's parameters set to its own (the graph was built with others), and read back.
    void* kernel_args[] = { &data, &one, &n };
    CUDA_KERNEL_NODE_PARAMS kp = kernel_params(add_value, kernel_args);
    check(cuGraphKernelNodeSetParams(kernel_node, &kp));
    CUDA_KERNEL_NODE_PARAMS read_kernel;
    check(cuGraphKernelNodeGetParams(kernel_node, &read_kernel));
    printf("kernel node: %u threads\n", read_kernel.blockDimX);
    expect(read_kernel.func == add_value, "the kernel node's function");
    memset_params.value = 0;
    check(cuGraphMemsetNodeSetParams(memset_node, &memset_params));
    CUDA_MEMSET_NODE_PARAMS read_memset;
    check(cuGraphMemsetNodeGetParams(memset_node, &read_memset));
    printf("memset node: %zu elements of %u bytes\n", read_memset.width, read_memset.elementSize);
    check(cuGraphMemcpyNodeSetParams(memcpy_node, &copy_params));
    CUDA_MEMCPY3D read_copy;
    check(cuGraphMemcpyNodeGetParams(memcpy_node, &read_copy));
    printf("memcpy node: %zu bytes\n", read_copy.WidthInBytes);
    check(cuGraphHostNodeSetParams(host_node, &host_params));
    CUDA_HOST_NODE_PARAMS read_host;
    check(cuGraphHostNodeGetParams(host_node, &read_host));
    expect(read_host.fn == host_params.fn && read_host.userData == host_params.userData,
           "the host node's function and data");
    CUgraph embedded = nullptr;
    check(cuGraphChildGraphNodeGetGraph(child_node, &embedded));
    size_t count = 0;
    check(cuGraphGetNodes(embedded, nullptr, &count));
    printf("child graph node: a graph of %zu node\n", count);
    CUevent read_event = nullptr;
    check(cuGraphEventRecordNodeSetEvent(record_node, event));
    check(cuGraphEventRecordNodeGetEvent(record_node, &read_event));
    expect(read_event == event, "the event record node's event");
    check(cuGraphEventWaitNodeSetEvent(wait_node, event));
    check(cuGraphEventWaitNodeGetEvent(wait_node, &read_event));
    expect(read_event == event, "the event wait node's event");
    op.writeValue.value = 32;
    check(cuGraphBatchMemOpNodeSetParams(batch_node, &batch_params));
    CUDA_BATCH_MEM_OP_NODE_PARAMS read_batch;
    check(cuGraphBatchMemOpNodeGetParams(batch_node, &read_batch));
    printf("batch memory operation node: %u operation\n", read_batch.count);
    CUDA_MEM_ALLOC_NODE_PARAMS read_alloc;
    check(cuGraphMemAllocNodeGetParams(alloc_node, &read_alloc));
    CUdeviceptr freed = 0;
    check(cuGraphMemFreeNodeGetParams(free_node, &freed));
    printf("allocation node: %zu bytes\n", read_alloc.bytesize);
    expect(freed == read_alloc.dptr, "the free node frees the allocation");

    // The graph's structure.
    size_t nodes = 0, roots = 0, edges = 0;
    check(cuGraphGetNodes(graph, nullptr, &nodes));
    check(cuGraphGetRootNodes(graph, nullptr, &roots));
    printf("the graph: %zu nodes, %zu roots\n", nodes, roots);
    CUgraphNode all[32];
    if (nodes > 32)
        nodes = 32;
    check(cuGraphGetNodes(graph, all, &nodes));
    printf("  types:");
    for (size_t i = 0; i < nodes; ++i) {
        CUgraphNodeType type;
        check(cuGraphNodeGetType(all[i], &type));
        printf(" %d", (int)type);
    }
    printf("\n");
    show("cuGraphNodeGetType", cuGraphNodeGetType(kernel_node, nullptr));
    CUgraphNode from[32], to[32];
    CUgraphEdgeData edge_data[32];
#if CUDA_VERSION >= 13000
    check(cuGraphGetEdges(graph, nullptr, nullptr, nullptr, &edges));
    if (edges > 32)
        edges = 32;
    check(cuGraphGetEdges(graph, from, to, edge_data, &edges));
#else
    check(cuGraphGetEdges(graph, nullptr, nullptr, &edges));
    if (edges > 32)
        edges = 32;
    check(cuGraphGetEdges_v2(graph, from, to, edge_data, &edges));
#endif
    int full = 0;
    for (size_t i = 0; i < edges; ++i)
        if (edge_data[i].from_port == 0 && edge_data[i].to_port == 0 && edge_data[i].type == 0)
            ++full;
    printf("  %zu edges, %d of them plain (full completion, default type)\n", edges, full);
    expect(edges == 9 && full == 9, "the graph's 9 plain edges");
    size_t deps = 0, dependents = 0;
    CUgraphNode dep_nodes[4];
    CUgraphEdgeData dep_data[4];
#if CUDA_VERSION >= 13000
    check(cuGraphNodeGetDependencies(empty_node, nullptr, nullptr, &deps));
    check(cuGraphNodeGetDependentNodes(empty_node, nullptr, nullptr, &dependents));
    size_t four = 4;
    check(cuGraphNodeGetDependencies(empty_node, dep_nodes, dep_data, &four));
#else
    check(cuGraphNodeGetDependencies(empty_node, nullptr, &deps));
    check(cuGraphNodeGetDependentNodes(empty_node, nullptr, &dependents));
    size_t four = 4;
    check(cuGraphNodeGetDependencies_v2(empty_node, dep_nodes, dep_data, &four));
    four = 4;
    check(cuGraphNodeGetDependentNodes_v2(empty_node, dep_nodes, dep_data, &four));
#endif
    printf("  the empty node: %zu dependencies, %zu dependents\n", deps, dependents);
    expect(deps == 2 && dependents == 1, "the empty node's edges");
    // The edge host -> empty removed and added back.
#if CUDA_VERSION >= 13000
    check(cuGraphRemoveDependencies(graph, &host_node, &empty_node, nullptr, 1));
    check(cuGraphGetEdges(graph, nullptr, nullptr, nullptr, &edges));
    printf("  %zu edges without host -> empty\n", edges);
    expect(edges == 8, "the edge host -> empty removed");
    check(cuGraphAddDependencies(graph, &host_node, &empty_node, nullptr, 1));
    check(cuGraphGetEdges(graph, nullptr, nullptr, nullptr, &edges));
#else
    check(cuGraphRemoveDependencies(graph, &host_node, &empty_node, 1));
    check(cuGraphGetEdges(graph, nullptr, nullptr, &edges));
    printf("  %zu edges without host -> empty\n", edges);
    expect(edges == 8, "the edge host -> empty removed");
    check(cuGraphAddDependencies(graph, &host_node, &empty_node, 1));
    check(cuGraphRemoveDependencies_v2(graph, &host_node, &empty_node, nullptr, 1));
    check(cuGraphGetEdges(graph, nullptr, nullptr, &edges));
    expect(edges == 8, "the edge host -> empty removed");
    check(cuGraphAddDependencies_v2(graph, &host_node, &empty_node, nullptr, 1));
    check(cuGraphGetEdges(graph, nullptr, nullptr, &edges));
#endif
    printf("  %zu edges with it again\n", edges);
    expect(edges == 9, "the edge added back");
    CUgraphNode spare;
    check(cuGraphAddEmptyNode(&spare, graph, nullptr, 0));
    check(cuGraphDestroyNode(spare));

    // Kernel node attributes: the greatest priority set on one node, copied to another.
    int least = 0, greatest = 0;
    check(cuCtxGetStreamPriorityRange(&least, &greatest));
    CUkernelNodeAttrValue attr;
    memset(&attr, 0, sizeof(attr));
    attr.priority = greatest;
    check(cuGraphKernelNodeSetAttribute(kernel_node, CU_KERNEL_NODE_ATTRIBUTE_PRIORITY, &attr));
    check(cuGraphKernelNodeCopyAttributes(child_kernel, kernel_node));
    memset(&attr, 0, sizeof(attr));
    check(cuGraphKernelNodeGetAttribute(child_kernel, CU_KERNEL_NODE_ATTRIBUTE_PRIORITY, &attr));
    printf("copied priority: %d\n", attr.priority);
    expect(attr.priority == greatest, "the kernel node's priority, copied to another");

    // A clone.
    CUgraph clone = nullptr;
    CUgraphNode cloned_kernel = nullptr;
    CUgraphNodeType cloned_type = CU_GRAPH_NODE_TYPE_EMPTY;
    check(cuGraphClone(&clone, graph));
    check(cuGraphNodeFindInClone(&cloned_kernel, kernel_node, clone));
    check(cuGraphNodeGetType(cloned_kernel, &cloned_type));
    expect(cloned_type == CU_GRAPH_NODE_TYPE_KERNEL, "the kernel node found in the clone");

    // Ids and parameters of newer headers.
#if CUDA_VERSION >= 13010
    CUgraph owner = nullptr;
    unsigned int local = 0, id = 0;
    unsigned long long tools = 0;
    PFN_cuGraphNodeGetContainingGraph_v13010 containing =
        (PFN_cuGraphNodeGetContainingGraph_v13010)entry("cuGraphNodeGetContainingGraph", 13010);
    if (containing)
        show("cuGraphNodeGetContainingGraph", containing(kernel_node, &owner));
    else
        show_missing("cuGraphNodeGetContainingGraph");
    PFN_cuGraphNodeGetLocalId_v13010 localId = (PFN_cuGraphNodeGetLocalId_v13010)entry("cuGraphNodeGetLocalId", 13010);
    if (localId)
        show("cuGraphNodeGetLocalId", localId(kernel_node, &local));
    else
        show_missing("cuGraphNodeGetLocalId");
    PFN_cuGraphNodeGetToolsId_v13010 toolsId = (PFN_cuGraphNodeGetToolsId_v13010)entry("cuGraphNodeGetToolsId", 13010);
    if (toolsId)
        show("cuGraphNodeGetToolsId", toolsId(kernel_node, &tools));
    else
        show_missing("cuGraphNodeGetToolsId");
    PFN_cuGraphGetId_v13010 graphId = (PFN_cuGraphGetId_v13010)entry("cuGraphGetId", 13010);
    if (graphId)
        show("cuGraphGetId", graphId(graph, &id));
    else
        show_missing("cuGraphGetId");
#endif
#if CUDA_VERSION >= 13020
    PFN_cuGraphNodeGetParams_v13020 getParams = (PFN_cuGraphNodeGetParams_v13020)entry("cuGraphNodeGetParams", 13020);
    CUgraphNodeParams read_params;
    memset(&read_params, 0, sizeof(read_params));
    if (getParams)
        show("cuGraphNodeGetParams", getParams(kernel_node, &read_params));
    else
        show_missing("cuGraphNodeGetParams");
#endif

    // Instantiated, uploaded, launched: (0 + 1 + 10) in every element.
    CUgraphExec exec;
    if (!check(cuGraphInstantiate(&exec, graph, 0)))
        return finish();
    cuuint64_t exec_flags = 1;
    check(cuGraphExecGetFlags(exec, &exec_flags));
    printf("executable graph flags: 0x%llx\n", (unsigned long long)exec_flags);
#if CUDA_VERSION >= 13010
    PFN_cuGraphExecGetId_v13010 execId = (PFN_cuGraphExecGetId_v13010)entry("cuGraphExecGetId", 13010);
    if (execId)
        show("cuGraphExecGetId", execId(exec, &id));
    else
        show_missing("cuGraphExecGetId");
#endif
    check(cuGraphUpload(exec, stream));
    launch_and_check("launched (0 + 1 + 10)", exec, stream, copy, 11, &calls, 1, flag, 32);

    // The executable graph changed node by node: memset 5, kernel +2, the child graph's kernel +20,
    // the copy into other_copy, the host node counting other_calls, the events other_event, the
    // batch operation 64.
    int two = 2, five = 5;
    void* two_args[] = { &data, &two, &n };
    CUDA_KERNEL_NODE_PARAMS kp2 = kernel_params(add_value, two_args);
    check(cuGraphExecKernelNodeSetParams(exec, kernel_node, &kp2));
    CUDA_MEMSET_NODE_PARAMS memset5 = memset_params;
    memset5.value = 5;
    check(cuGraphExecMemsetNodeSetParams(exec, memset_node, &memset5, ctx));
    check(cuGraphExecMemcpyNodeSetParams(exec, memcpy_node, &other_copy_params, ctx));
    check(cuGraphExecHostNodeSetParams(exec, host_node, &other_host_params));
    void* twenty_args[] = { &data, &twenty, &n };
    CUDA_KERNEL_NODE_PARAMS ckp20 = kernel_params(add_value, twenty_args);
    check(cuGraphKernelNodeSetParams(child_kernel, &ckp20));
    check(cuGraphExecChildGraphNodeSetParams(exec, child_node, child));
    check(cuGraphExecEventRecordNodeSetEvent(exec, record_node, other_event));
    check(cuGraphExecEventWaitNodeSetEvent(exec, wait_node, other_event));
    op.writeValue.value = 64;
    check(cuGraphExecBatchMemOpNodeSetParams(exec, batch_node, &batch_params));
    // (Nodes of another graph: the executable graph has none of them, and refuses them.)
    bool set = show("cuGraphExecExternalSemaphoresSignalNodeSetParams",
                    cuGraphExecExternalSemaphoresSignalNodeSetParams(exec, signal_node, &signal_params));
    expect(!set, "the signal node of another graph refused");
    set = show("cuGraphExecExternalSemaphoresWaitNodeSetParams",
               cuGraphExecExternalSemaphoresWaitNodeSetParams(exec, sem_wait_node, &wait_params));
    expect(!set, "the wait node of another graph refused");
    launch_and_check("changed node by node (5 + 2 + 20)", exec, stream, other_copy, 5 + 2 + 20, &other_calls, 1, flag,
                     64);
    unsigned int enabled = 1;
    check(cuGraphNodeSetEnabled(exec, kernel_node, 0));
    check(cuGraphNodeGetEnabled(exec, kernel_node, &enabled));
    expect(enabled == 0, "the kernel node disabled");
    launch_and_check("its kernel node disabled (5 + 20)", exec, stream, other_copy, 5 + 20, &other_calls, 2, flag, 64);
    check(cuGraphNodeSetEnabled(exec, kernel_node, 1));
    CUgraphNodeParams generic;
    memset(&generic, 0, sizeof(generic));
    generic.type = CU_GRAPH_NODE_TYPE_KERNEL;
    void* five_args[] = { &data, &five, &n };
    generic.kernel.func = add_value;
    generic.kernel.gridDimX = 1; generic.kernel.gridDimY = 1; generic.kernel.gridDimZ = 1;
    generic.kernel.blockDimX = N; generic.kernel.blockDimY = 1; generic.kernel.blockDimZ = 1;
    generic.kernel.kernelParams = five_args;
    check(cuGraphExecNodeSetParams(exec, kernel_node, &generic));
    launch_and_check("its kernel node set with cuGraphExecNodeSetParams (5 + 5 + 20)", exec, stream, other_copy,
                     5 + 5 + 20, &other_calls, 3, flag, 64);

    // The whole executable graph updated from the graph (its kernel now adds 2).
    check(cuGraphKernelNodeSetParams(kernel_node, &kp2));
    CUgraphExecUpdateResultInfo info;
    memset(&info, 0, sizeof(info));
    check(cuGraphExecUpdate(exec, graph, &info));
    expect(info.result == CU_GRAPH_EXEC_UPDATE_SUCCESS, "the executable graph updated");
    // The update takes the graph's memset (0), child graph (+10), copy, host node, events and batch
    // operation (32) again.
    launch_and_check("updated from the graph (0 + 2 + 10)", exec, stream, copy, 0 + 2 + 10, &calls, 2, flag, 32);

    // A graph of cuGraphAddNode, changed with cuGraphNodeSetParams, instantiated with parameters.
    CUgraph built;
    check(cuGraphCreate(&built, 0));
    CUgraphNode generic_memset, generic_kernel;
    CUgraphNodeParams memset_generic;
    memset(&memset_generic, 0, sizeof(memset_generic));
    memset_generic.type = CU_GRAPH_NODE_TYPE_MEMSET;
    memset_generic.memset.dst = copy;
    memset_generic.memset.elementSize = 4;
    memset_generic.memset.width = N;
    memset_generic.memset.height = 1;
    memset_generic.memset.value = 100;
    memset_generic.memset.ctx = ctx;
    void* built_args[] = { &copy, &one, &n };
    generic.kernel.kernelParams = built_args;
#if CUDA_VERSION >= 13000
    check(cuGraphAddNode(&generic_memset, built, nullptr, nullptr, 0, &memset_generic));
    check(cuGraphAddNode(&generic_kernel, built, &generic_memset, nullptr, 1, &generic));
#else
    check(cuGraphAddNode(&generic_memset, built, nullptr, 0, &memset_generic));
    check(cuGraphAddNode_v2(&generic_kernel, built, &generic_memset, nullptr, 1, &generic));
#endif
    void* built_args2[] = { &copy, &ten, &n };
    generic.kernel.kernelParams = built_args2;
    check(cuGraphNodeSetParams(generic_kernel, &generic));
#if CUDA_VERSION >= 13040
    CUgraphNode extra_node = nullptr;
    CUgraphNodeParams empty_generic;
    memset(&empty_generic, 0, sizeof(empty_generic));
    empty_generic.type = CU_GRAPH_NODE_TYPE_EMPTY;
    PFN_cuGraphAddNode_v13040 addNode3 = (PFN_cuGraphAddNode_v13040)entry("cuGraphAddNode", 13040);
    if (addNode3)
        show("cuGraphAddNode_v3", addNode3(&extra_node, built, nullptr, nullptr, 0, &empty_generic));
    else
        show_missing("cuGraphAddNode_v3");
    PFN_cuGraphNodeSetParams_v13040 setParams2 = (PFN_cuGraphNodeSetParams_v13040)entry("cuGraphNodeSetParams", 13040);
    if (setParams2)
        show("cuGraphNodeSetParams_v2", setParams2(generic_kernel, &generic));
    else
        show_missing("cuGraphNodeSetParams_v2");
#endif
    CUDA_GRAPH_INSTANTIATE_PARAMS instantiate;
    memset(&instantiate, 0, sizeof(instantiate));
    instantiate.flags = CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD;
    instantiate.hUploadStream = stream;
    CUgraphExec built_exec;
    check(cuGraphInstantiateWithParams(&built_exec, built, &instantiate));
    printf("cuGraphInstantiateWithParams: result %d\n", (int)instantiate.result_out);
    expect(instantiate.result_out == CUDA_GRAPH_INSTANTIATE_SUCCESS, "the graph of cuGraphAddNode instantiated");
    launch_and_check("the graph of cuGraphAddNode (100 + 10)", built_exec, stream, copy, 110, &calls, 2, flag, 32);

    // User objects: one reference moved to the graph, one kept and released.
    CUuserObject object;
    int owned = 0;
    check(cuUserObjectCreate(&object, &owned, destroy_object, 1, CU_USER_OBJECT_NO_DESTRUCTOR_SYNC));
    check(cuUserObjectRetain(object, 1));
    check(cuGraphRetainUserObject(graph, object, 1, CU_GRAPH_USER_OBJECT_MOVE));
    check(cuGraphRetainUserObject(built, object, 1, 0));
    check(cuGraphReleaseUserObject(built, object, 1));
    check(cuUserObjectRelease(object, 1));

    // Graph memory: the allocation graph run once and the memory it reserved; then the memory no
    // graph uses released (cuDeviceGraphMemTrim: until then the freed allocation's memory may still
    // count as in use, and on an H200 a reset right after the run left the high watermark where it
    // was), and the high watermark of the memory in use, read after the trim, reset, which must
    // lower it (the values printed). Then the DOT output.
    CUgraphExec memory_exec;
    if (check(cuGraphInstantiate(&memory_exec, memory_graph, 0))) {
        launch_and_check("the allocation graph (7 + 1)", memory_exec, stream, copy, 7 + 1, &calls, 2, flag, 32);
        check(cuGraphExecDestroy(memory_exec));
    }
    cuuint64_t reserved = 0, used = 0, in_use = 0, used_after = 0, zero = 0;
    check(cuDeviceGetGraphMemAttribute(device, CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH, &reserved));
    expect(reserved > 0, "graph memory reserved at its high watermark");
    check(cuDeviceGraphMemTrim(device));
    check(cuDeviceGetGraphMemAttribute(device, CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT, &in_use));
    check(cuDeviceGetGraphMemAttribute(device, CU_GRAPH_MEM_ATTR_USED_MEM_HIGH, &used));
    check(cuDeviceSetGraphMemAttribute(device, CU_GRAPH_MEM_ATTR_USED_MEM_HIGH, &zero));
    check(cuDeviceGetGraphMemAttribute(device, CU_GRAPH_MEM_ATTR_USED_MEM_HIGH, &used_after));
    printf("graph memory in use after the trim: %llu, its high watermark %llu, %llu after its reset\n",
           (unsigned long long)in_use, (unsigned long long)used, (unsigned long long)used_after);
    expect(used > 0 && used_after < used, "the high watermark of graph memory in use, reset");
    char dot[64];
    snprintf(dot, sizeof(dot), "/tmp/graph_nodes-%d.dot", (int)getpid());
    check(cuGraphDebugDotPrint(graph, dot, CU_GRAPH_DEBUG_DOT_FLAGS_VERBOSE));
    FILE* f = fopen(dot, "r");
    char first_line[64] = "";
    if (f) {
        if (!fgets(first_line, sizeof(first_line), f))
            first_line[0] = 0;
        fclose(f);
        unlink(dot);
    }
    expect(strncmp(first_line, "digraph", 7) == 0, "the DOT output is a digraph");

    check(cuGraphExecDestroy(built_exec));
    check(cuGraphExecDestroy(exec));
    check(cuGraphDestroy(built));
    check(cuGraphDestroy(clone));
    check(cuGraphDestroy(sem_graph));
    check(cuGraphDestroy(memory_graph));
    check(cuGraphDestroy(graph));
    check(cuGraphDestroy(child));
    check(cuEventDestroy(other_event));
    check(cuEventDestroy(event));
    check(cuMemFree(flag));
    check(cuMemFree(other_copy));
    check(cuMemFree(copy));
    check(cuMemFree(data));
    check(cuStreamDestroy(stream));
    check(cuModuleUnload(module));
    check(cuDevicePrimaryCtxRelease(device));
    return finish();
}
