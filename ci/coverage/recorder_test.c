/* The recorder's test, without a GPU: it stands in for CUPTI (the subscription, and the
 * callbacks at each call's entry and exit, with made-up parameter structs and results) and for
 * the driver (test_driver.c, loaded as libcuda.so.1), runs a made-up sequence of calls in a
 * child process, and compares the log the child wrote with the lines the trace format
 * (recorder.c) says. Run with CUDA_CALLS_ARGUMENTS=0, every call's arguments must be `-`.
 * Exit code 0 where the log is as expected; else the first difference on stderr, and 1.
 */
#define __CUDA_API_VERSION_INTERNAL
#include <cupti_callbacks.h>
#include <cupti_driver_cbid.h>
#include <generated_cuda_meta.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int InitializeInjection(void);

/* ---- CUPTI, as the recorder calls it ---- */

static CUpti_CallbackFunc subscribed;

CUptiResult cuptiSubscribe(CUpti_SubscriberHandle *subscriber, CUpti_CallbackFunc callback,
                           void *userdata) {
    (void)userdata;
    *subscriber = NULL;
    subscribed = callback;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiEnableDomain(uint32_t enable, CUpti_SubscriberHandle subscriber,
                              CUpti_CallbackDomain domain) {
    (void)enable, (void)subscriber, (void)domain;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiGetResultString(CUptiResult result, const char **text) {
    (void)result;
    *text = "?";
    return CUPTI_SUCCESS;
}

/* A callback of the call of `cbid` (named `name`) with `params`, at `site`, with `result`. */
static void callback(CUpti_CallbackId cbid, const char *name, const void *params,
                     CUpti_ApiCallbackSite site, CUresult result) {
    uint64_t correlation = 0;
    CUpti_CallbackData data = {0};
    data.callbackSite = site;
    data.functionName = name;
    data.functionParams = params;
    data.functionReturnValue = &result;
    data.correlationData = &correlation;
    subscribed(NULL, CUPTI_CB_DOMAIN_DRIVER_API, cbid, &data);
}

#define ENTER(entry, params) \
    callback(CUPTI_DRIVER_TRACE_CBID_##entry, #entry, params, CUPTI_API_ENTER, CUDA_SUCCESS)
#define EXIT(entry, params, result) \
    callback(CUPTI_DRIVER_TRACE_CBID_##entry, #entry, params, CUPTI_API_EXIT, result)
#define CALL(entry, params, result) (ENTER(entry, params), EXIT(entry, params, result))

/* ---- The calls ---- */

/* Made-up device addresses, in [2^32, 2^48) as the driver's are. */
#define DEVICE 0x7f0000000000ull
#define PINNED 0x7e0000000000ull
#define PINNED_ALIAS 0x7d0000000000ull
#define IPC 0x7c0000000000ull

static void calls(void) {
    // The cuInit that loaded the recorder: its exit alone.
    cuInit_params init = {0};
    EXIT(cuInit, &init, CUDA_SUCCESS);

    // An out-parameter that is no handle, then a null one.
    int n = 0;
    cuDeviceGetCount_params count = {&n};
    ENTER(cuDeviceGetCount, &count);
    n = 2;
    EXIT(cuDeviceGetCount, &count, CUDA_SUCCESS);
    count.count = NULL;
    CALL(cuDeviceGetCount, &count, CUDA_ERROR_INVALID_VALUE);

    // A handle created, used twice (one run), used with a null, destroyed, and re-created at
    // the same value: a new object.
    CUstream stream = NULL;
    cuStreamCreate_params create = {&stream, 1};
    ENTER(cuStreamCreate, &create);
    stream = (CUstream)0x5000;
    EXIT(cuStreamCreate, &create, CUDA_SUCCESS);
    cuStreamSynchronize_params sync = {stream};
    CALL(cuStreamSynchronize, &sync, CUDA_SUCCESS);
    CALL(cuStreamSynchronize, &sync, CUDA_SUCCESS);
    sync.hStream = NULL;
    CALL(cuStreamSynchronize, &sync, CUDA_SUCCESS);
    cuStreamDestroy_v2_params destroy = {stream};
    CALL(cuStreamDestroy_v2, &destroy, CUDA_SUCCESS);
    ENTER(cuStreamCreate, &create);
    stream = (CUstream)0x5000;
    EXIT(cuStreamCreate, &create, CUDA_SUCCESS);
    sync.hStream = stream;
    CALL(cuStreamSynchronize, &sync, CUDA_SUCCESS);

    // An allocation, a copy into it at an offset from host memory, a set outside any.
    CUdeviceptr device = 0;
    cuMemAlloc_v2_params alloc = {&device, 4096};
    ENTER(cuMemAlloc_v2, &alloc);
    device = DEVICE;
    EXIT(cuMemAlloc_v2, &alloc, CUDA_SUCCESS);
    char host[64];
    cuMemcpyHtoD_v2_params copy = {device + 256, host, sizeof host};
    CALL(cuMemcpyHtoD_v2, &copy, CUDA_SUCCESS);
    cuMemsetD8_v2_params set = {DEVICE + 8192, 7, 16};
    CALL(cuMemsetD8_v2, &set, CUDA_SUCCESS);
    // A failed allocation: no identity for what it wrote.
    CUdeviceptr failed = 0;
    cuMemAlloc_v2_params no_memory = {&failed, 1ull << 50};
    ENTER(cuMemAlloc_v2, &no_memory);
    failed = DEVICE + 4096;
    EXIT(cuMemAlloc_v2, &no_memory, CUDA_ERROR_OUT_OF_MEMORY);

    // Pinned host memory and its device alias: one allocation.
    void *pinned = NULL;
    cuMemAllocHost_v2_params alloc_host = {&pinned, 1024};
    ENTER(cuMemAllocHost_v2, &alloc_host);
    pinned = (void *)PINNED;
    EXIT(cuMemAllocHost_v2, &alloc_host, CUDA_SUCCESS);
    CUdeviceptr alias = 0;
    cuMemHostGetDevicePointer_v2_params get_alias = {&alias, (char *)pinned + 64, 0};
    ENTER(cuMemHostGetDevicePointer_v2, &get_alias);
    alias = PINNED_ALIAS + 64;
    EXIT(cuMemHostGetDevicePointer_v2, &get_alias, CUDA_SUCCESS);
    cuMemcpyHtoD_v2_params from_pinned = {alias + 16, (char *)pinned + 512, 8};
    CALL(cuMemcpyHtoD_v2, &from_pinned, CUDA_SUCCESS);

    // An IPC mapping, its size asked from the driver.
    CUdeviceptr ipc = 0;
    cuIpcOpenMemHandle_v2_params open = {&ipc, {{0}}, 1};
    ENTER(cuIpcOpenMemHandle_v2, &open);
    ipc = IPC;
    EXIT(cuIpcOpenMemHandle_v2, &open, CUDA_SUCCESS);
    cuMemsetD8_v2_params set_ipc = {IPC + 4000, 0, 8};
    CALL(cuMemsetD8_v2, &set_ipc, CUDA_SUCCESS);

    // A string with a space, and a handle written by a lookup.
    CUmodule module = NULL;
    cuModuleLoad_params load = {&module, "a \"b\".cubin"};
    ENTER(cuModuleLoad, &load);
    module = (CUmodule)0x6000;
    EXIT(cuModuleLoad, &load, CUDA_SUCCESS);
    CUfunction function = NULL;
    cuModuleGetFunction_params get = {&function, module, "my kernel"};
    ENTER(cuModuleGetFunction, &get);
    function = (CUfunction)0xf000;
    EXIT(cuModuleGetFunction, &get, CUDA_SUCCESS);

    // A structure by pointer, with an array of structures holding a union; kernel arguments by
    // the driver's sizes.
    CUlaunchAttribute attribute = {0};
    attribute.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attribute.value.clusterDim.x = 2;
    attribute.value.clusterDim.y = 1;
    attribute.value.clusterDim.z = 1;
    CUlaunchConfig config = {4, 1, 1, 64, 1, 1, 0, stream, &attribute, 1};
    CUdeviceptr argument = device + 128;
    int scalar = 7;
    uint64_t pair[2] = {1, DEVICE + 256};
    void *arguments[] = {&argument, &scalar, pair};
    cuLaunchKernelEx_params launch = {&config, function, arguments, NULL};
    CALL(cuLaunchKernelEx, &launch, CUDA_SUCCESS);

    // A CUkernel launched as a function; the arguments' buffer in `extra`; a function the
    // driver does not know.
    int nine = 9;
    void *kernel_arguments[] = {&nine};
    cuLaunchKernel_params kernel = {(CUfunction)0xcafe, 1, 1, 1, 32, 1, 1, 0, NULL,
                                    kernel_arguments, NULL};
    CALL(cuLaunchKernel, &kernel, CUDA_SUCCESS);
    struct {
        CUdeviceptr address;
        int value;
    } buffer = {device, 5};
    size_t buffer_size = 12;
    void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &buffer, CU_LAUNCH_PARAM_BUFFER_SIZE,
                     &buffer_size, CU_LAUNCH_PARAM_END};
    cuLaunchKernel_params with_extra = {function, 1, 1, 1, 32, 1, 1, 0, NULL, NULL, extra};
    CALL(cuLaunchKernel, &with_extra, CUDA_SUCCESS);
    cuLaunchKernel_params unknown = {(CUfunction)0xbad, 1, 1, 1, 32, 1, 1, 0, NULL,
                                     kernel_arguments, NULL};
    CALL(cuLaunchKernel, &unknown, CUDA_SUCCESS);

    // A lookup naming another owner of the kind hands back another object, though at the value
    // of one it handed back before (a function of a module that ended with its context).
    CUmodule other = NULL;
    cuModuleLoad_params load_other = {&other, "other.cubin"};
    ENTER(cuModuleLoad, &load_other);
    other = (CUmodule)0x6100;
    EXIT(cuModuleLoad, &load_other, CUDA_SUCCESS);
    cuModuleGetFunction_params get_other = {&function, other, "my kernel"};
    ENTER(cuModuleGetFunction, &get_other);
    function = (CUfunction)0xf000;
    EXIT(cuModuleGetFunction, &get_other, CUDA_SUCCESS);

    // A handle created at the value of one that was never released (as after its context's
    // end): a new object all the same.
    ENTER(cuStreamCreate, &create);
    stream = (CUstream)0x5000;
    EXIT(cuStreamCreate, &create, CUDA_SUCCESS);
    // A mipmapped array an external memory maps is a new one, though a lookup verb names it.
    CUmipmappedArray mipmap = NULL;
    cuExternalMemoryGetMappedMipmappedArray_params map_mipmap = {&mipmap, NULL, NULL};
    for (int twice = 0; twice < 2; twice++) {
        ENTER(cuExternalMemoryGetMappedMipmappedArray, &map_mipmap);
        mipmap = (CUmipmappedArray)0xa000;
        EXIT(cuExternalMemoryGetMappedMipmappedArray, &map_mipmap, CUDA_SUCCESS);
    }
    // A module unloaded: a later handle of that value is another.
    cuModuleUnload_params unload = {module};
    CALL(cuModuleUnload, &unload, CUDA_SUCCESS);
    CALL(cuModuleGetFunction, &get, CUDA_ERROR_INVALID_HANDLE);

    // The allocation freed: its address is in none any more.
    cuMemFree_v2_params free_device = {device};
    CALL(cuMemFree_v2, &free_device, CUDA_SUCCESS);
    cuMemsetD8_v2_params set_freed = {device, 0, 1};
    CALL(cuMemsetD8_v2, &set_freed, CUDA_SUCCESS);

    // The process ids a checkpoint names, by first appearance (the process's own too).
    cuCheckpointProcessGetState_params state_of_child = {4242, NULL};
    CALL(cuCheckpointProcessGetState, &state_of_child, CUDA_SUCCESS);
    cuCheckpointProcessLock_params lock_self = {(int)getpid(), NULL};
    CALL(cuCheckpointProcessLock, &lock_self, CUDA_SUCCESS);
    CALL(cuCheckpointProcessGetState, &state_of_child, CUDA_SUCCESS);

    // The process's own pid in a string, where it stands alone as a number.
    char path[128];
    int pid = (int)getpid();
    snprintf(path, sizeof path, "%d/logs-%d.log|1%d|%d2|%d", pid, pid, pid, pid, pid);
    cuLogsDumpToFile_params dump = {NULL, path, 0};
    CALL(cuLogsDumpToFile, &dump, CUDA_SUCCESS);

    // What a structure's padding and reserved members hold is no argument.
    CUdevResource resource;
    memset(&resource, 0xa5, sizeof resource);
    resource.type = CU_DEV_RESOURCE_TYPE_SM;
    resource.sm.smCount = 16;
    resource.sm.minSmPartitionSize = 8;
    resource.sm.smCoscheduledAlignment = 8;
    CUdevResourceDesc resource_desc = NULL;
    cuDevResourceGenerateDesc_params generate = {&resource_desc, &resource, 1};
    ENTER(cuDevResourceGenerateDesc, &generate);
    resource_desc = (CUdevResourceDesc)0x9000;
    EXIT(cuDevResourceGenerateDesc, &generate, CUDA_SUCCESS);

    // A conditional node's body graphs, which the driver writes into the node's parameters: new
    // graphs, read after the call, that end with the graph of the node.
    CUgraph graph = NULL;
    cuGraphCreate_params create_graph = {&graph, 0};
    ENTER(cuGraphCreate, &create_graph);
    graph = (CUgraph)0x7000;
    EXIT(cuGraphCreate, &create_graph, CUDA_SUCCESS);
    CUgraphNode node = NULL;
    CUgraph bodies[2] = {(CUgraph)0x7100, (CUgraph)0x7200};
    CUgraphNodeParams conditional = {0};
    conditional.type = CU_GRAPH_NODE_TYPE_CONDITIONAL;
    conditional.conditional.handle = 1;
    conditional.conditional.type = CU_GRAPH_COND_TYPE_IF;
    conditional.conditional.size = 2;
    cuGraphAddNode_v2_params add_conditional = {&node, graph, NULL, NULL, 0, &conditional};
    ENTER(cuGraphAddNode_v2, &add_conditional);
    node = (CUgraphNode)0x8000;
    conditional.conditional.phGraph_out = bodies;
    EXIT(cuGraphAddNode_v2, &add_conditional, CUDA_SUCCESS);
    CUgraphNodeParams empty = {0};
    empty.type = CU_GRAPH_NODE_TYPE_EMPTY;
    cuGraphAddNode_v2_params add_to_body = {&node, bodies[1], NULL, NULL, 0, &empty};
    ENTER(cuGraphAddNode_v2, &add_to_body);
    node = (CUgraphNode)0x8100;
    EXIT(cuGraphAddNode_v2, &add_to_body, CUDA_SUCCESS);
    cuGraphDestroy_params destroy_graph = {graph};
    CALL(cuGraphDestroy, &destroy_graph, CUDA_SUCCESS);
    // A new graph whose body graph is at the value of the ended one's: another graph.
    ENTER(cuGraphCreate, &create_graph);
    graph = (CUgraph)0x7300;
    EXIT(cuGraphCreate, &create_graph, CUDA_SUCCESS);
    CUgraph body = (CUgraph)0x7200;
    conditional.conditional.type = CU_GRAPH_COND_TYPE_WHILE;
    conditional.conditional.size = 1;
    conditional.conditional.phGraph_out = NULL;
    add_conditional.hGraph = graph;
    ENTER(cuGraphAddNode_v2, &add_conditional);
    node = (CUgraphNode)0x8200;
    conditional.conditional.phGraph_out = &body;
    EXIT(cuGraphAddNode_v2, &add_conditional, CUDA_SUCCESS);
    add_to_body.hGraph = body;
    ENTER(cuGraphAddNode_v2, &add_to_body);
    node = (CUgraphNode)0x8300;
    EXIT(cuGraphAddNode_v2, &add_to_body, CUDA_SUCCESS);
    // Nodes at the values of the ended graph's: other nodes, handed back by a lookup or met as an
    // input.
    CUgraphNode nodes[2] = {NULL, NULL};
    size_t node_count = 2;
    cuGraphGetNodes_params get_nodes = {graph, nodes, &node_count};
    ENTER(cuGraphGetNodes, &get_nodes);
    nodes[0] = (CUgraphNode)0x8200;
    nodes[1] = (CUgraphNode)0x8100;
    EXIT(cuGraphGetNodes, &get_nodes, CUDA_SUCCESS);
    CUgraphNodeType node_type;
    cuGraphNodeGetType_params get_type = {(CUgraphNode)0x8000, &node_type};
    CALL(cuGraphNodeGetType, &get_type, CUDA_SUCCESS);
    // A failed call wrote no graphs (what the member holds is the earlier call's).
    CALL(cuGraphAddNode_v2, &add_conditional, CUDA_ERROR_INVALID_VALUE);

    // An entry without parameters, and one the table does not describe.
    CALL(cuCtxSynchronize, NULL, CUDA_SUCCESS);
    int gl_parameters[4] = {0};
    CALL(cuGraphicsGLRegisterBuffer, gl_parameters, CUDA_SUCCESS);
}

/* What the log of `calls()` must hold after its header, with arguments. */
static const char *const EXPECTED =
    "0 cuInit 0 1 Flags=0\n"
    "0 cuDeviceGetCount 0 1 count==>out\n"
    "0 cuDeviceGetCount 1 1 count=null\n"
    "0 cuStreamCreate 0 1 phStream==>CUstream#1 Flags=1\n"
    "0 cuStreamSynchronize 0 2 hStream=CUstream#1\n"
    "0 cuStreamSynchronize 0 1 hStream=null\n"
    "0 cuStreamDestroy_v2 0 1 hStream=CUstream#1\n"
    "0 cuStreamCreate 0 1 phStream==>CUstream#2 Flags=1\n"
    "0 cuStreamSynchronize 0 1 hStream=CUstream#2\n"
    "0 cuMemAlloc_v2 0 1 dptr==>mem#1+0 bytesize=4096\n"
    "0 cuMemcpyHtoD_v2 0 1 dstDevice=mem#1+256 srcHost=host ByteCount=64\n"
    "0 cuMemsetD8_v2 0 1 dstDevice=addr#1 uc=7 N=16\n"
    "0 cuMemAlloc_v2 2 1 dptr==>out bytesize=1125899906842624\n"
    "0 cuMemAllocHost_v2 0 1 pp==>mem#2+0 bytesize=1024\n"
    "0 cuMemHostGetDevicePointer_v2 0 1 pdptr==>mem#2+64 p=mem#2+64 Flags=0\n"
    "0 cuMemcpyHtoD_v2 0 1 dstDevice=mem#2+80 srcHost=mem#2+512 ByteCount=8\n"
    "0 cuIpcOpenMemHandle_v2 0 1 pdptr==>mem#3+0 handle=?opaque Flags=1\n"
    "0 cuMemsetD8_v2 0 1 dstDevice=mem#3+4000 uc=0 N=8\n"
    "0 cuModuleLoad 0 1 module==>CUmodule#1 fname=\"a\\s\\\"b\\\".cubin\"\n"
    "0 cuModuleGetFunction 0 1 hfunc==>CUfunction#1 hmod=CUmodule#1 name=\"my\\skernel\"\n"
    "0 cuLaunchKernelEx 0 1 config={gridDimX=4,gridDimY=1,gridDimZ=1,blockDimX=64,blockDimY=1,"
    "blockDimZ=1,sharedMemBytes=0,hStream=CUstream#2,attrs=[{id=4,value={clusterDim={x=2,y=1,z=1}"
    "}}],numAttrs=1} f=CUfunction#1 kernelParams=[mem#1+128,7,[1,mem#1+256]] extra=null\n"
    "0 cuLaunchKernel 0 1 f=CUfunction#2 gridDimX=1 gridDimY=1 gridDimZ=1 blockDimX=32 blockDimY=1 "
    "blockDimZ=1 sharedMemBytes=0 hStream=null kernelParams=[9] extra=null\n"
    "0 cuLaunchKernel 0 1 f=CUfunction#1 gridDimX=1 gridDimY=1 gridDimZ=1 blockDimX=32 blockDimY=1 "
    "blockDimZ=1 sharedMemBytes=0 hStream=null kernelParams=null extra=[mem#1+0,5]\n"
    "0 cuLaunchKernel 0 1 f=CUfunction#3 gridDimX=1 gridDimY=1 gridDimZ=1 blockDimX=32 blockDimY=1 "
    "blockDimZ=1 sharedMemBytes=0 hStream=null kernelParams=?params extra=null\n"
    "0 cuModuleLoad 0 1 module==>CUmodule#2 fname=\"other.cubin\"\n"
    "0 cuModuleGetFunction 0 1 hfunc==>CUfunction#4 hmod=CUmodule#2 name=\"my\\skernel\"\n"
    "0 cuStreamCreate 0 1 phStream==>CUstream#3 Flags=1\n"
    "0 cuExternalMemoryGetMappedMipmappedArray 0 1 mipmap==>CUmipmappedArray#1 extMem=null "
    "mipmapDesc=null\n"
    "0 cuExternalMemoryGetMappedMipmappedArray 0 1 mipmap==>CUmipmappedArray#2 extMem=null "
    "mipmapDesc=null\n"
    "0 cuModuleUnload 0 1 hmod=CUmodule#1\n"
    "0 cuModuleGetFunction 400 1 hfunc==>out hmod=CUmodule#3 name=\"my\\skernel\"\n"
    "0 cuMemFree_v2 0 1 dptr=mem#1+0\n"
    "0 cuMemsetD8_v2 0 1 dstDevice=addr#2 uc=0 N=1\n"
    "0 cuCheckpointProcessGetState 0 1 pid=pid#1 state=null\n"
    "0 cuCheckpointProcessLock 0 1 pid=pid#2 args=null\n"
    "0 cuCheckpointProcessGetState 0 1 pid=pid#1 state=null\n"
    "0 cuLogsDumpToFile 0 1 iterator=null pathToFile=\"<pid>/logs-<pid>.log|1{pid}|{pid}2|<pid>\" "
    "flags=0\n"
    "0 cuDevResourceGenerateDesc 0 1 phDesc==>CUdevResourceDesc#1 resources=[{type=1,"
    "sm={smCount=16,minSmPartitionSize=8,smCoscheduledAlignment=8}}] nbResources=1\n"
    "0 cuGraphCreate 0 1 phGraph==>CUgraph#1 flags=0\n"
    "0 cuGraphAddNode_v2 0 1 phGraphNode==>CUgraphNode#1 hGraph=CUgraph#1 dependencies=null "
    "dependencyData=null numDependencies=0 nodeParams={type=13,conditional={"
    "handle=CUgraphConditionalHandle#1,type=0,size=2,phGraph_out==>[CUgraph#2,CUgraph#3],ctx=null}}\n"
    "0 cuGraphAddNode_v2 0 1 phGraphNode==>CUgraphNode#2 hGraph=CUgraph#3 dependencies=null "
    "dependencyData=null numDependencies=0 nodeParams={type=5}\n"
    "0 cuGraphDestroy 0 1 hGraph=CUgraph#1\n"
    "0 cuGraphCreate 0 1 phGraph==>CUgraph#4 flags=0\n"
    "0 cuGraphAddNode_v2 0 1 phGraphNode==>CUgraphNode#3 hGraph=CUgraph#4 dependencies=null "
    "dependencyData=null numDependencies=0 nodeParams={type=13,conditional={"
    "handle=CUgraphConditionalHandle#1,type=1,size=1,phGraph_out==>[CUgraph#5],ctx=null}}\n"
    "0 cuGraphAddNode_v2 0 1 phGraphNode==>CUgraphNode#4 hGraph=CUgraph#5 dependencies=null "
    "dependencyData=null numDependencies=0 nodeParams={type=5}\n"
    "0 cuGraphGetNodes 0 1 hGraph=CUgraph#4 nodes==>[CUgraphNode#3,CUgraphNode#5] "
    "numNodes==>out\n"
    "0 cuGraphNodeGetType 0 1 hNode=CUgraphNode#6 type==>out\n"
    "0 cuGraphAddNode_v2 1 1 phGraphNode==>out hGraph=CUgraph#4 dependencies=null "
    "dependencyData=null numDependencies=0 nodeParams={type=13,conditional={"
    "handle=CUgraphConditionalHandle#1,type=1,size=1,phGraph_out==>out,ctx=null}}\n"
    "0 cuCtxSynchronize 0 1 -\n"
    "0 cuGraphicsGLRegisterBuffer 0 1 ?undescribed\n";

/* The log's lines after its `#` lines. */
static char *calls_of(const char *path) {
    FILE *file = fopen(path, "r");
    if (file == NULL) return NULL;
    static char text[1 << 16];
    size_t length = 0;
    char line[4096];
    while (fgets(line, sizeof line, file))
        if (line[0] != '#' && length + strlen(line) < sizeof text) {
            strcpy(text + length, line);
            length += strlen(line);
        }
    fclose(file);
    return text;
}

/* The expected lines with every call's arguments `-`: the runs of a thread's calls of one
 * entry with one result merged. */
static char *without_arguments(void) {
    static char text[1 << 16];
    size_t length = 0;
    char run[256] = "";
    unsigned long long count = 0;
    for (const char *line = EXPECTED;; line = strchr(line, '\n') + 1) {
        // `<thread> <entry> <result> ` and `<count>`.
        char call[256] = "";
        unsigned long long n = 0;
        if (*line) {
            const char *space = line;
            for (int spaces = 0; spaces < 3; spaces++) space = strchr(space, ' ') + 1;
            snprintf(call, sizeof call, "%.*s", (int)(space - line), line);
            n = strtoull(space, NULL, 10);
        }
        if (count > 0 && strcmp(call, run) == 0) {
            count += n;
            continue;
        }
        if (count > 0) length += (size_t)sprintf(text + length, "%s%llu -\n", run, count);
        if (!*line) return text;
        strcpy(run, call);
        count = n;
    }
}

/* `expected` with each `{pid}` replaced by the decimal digits of `pid` (where they do not stand
 * alone as a number, the trace prints them as they are). */
static char *with_pid(const char *expected, pid_t pid) {
    static char text[1 << 16];
    char digits[24];
    snprintf(digits, sizeof digits, "%ld", (long)pid);
    size_t length = 0;
    for (const char *at = expected; *at && length + sizeof digits < sizeof text;) {
        if (strncmp(at, "{pid}", 5) == 0) {
            length += (size_t)sprintf(text + length, "%s", digits);
            at += 5;
        } else {
            text[length++] = *at++;
        }
    }
    text[length] = '\0';
    return text;
}

/* Runs `calls()` in a child recording into `dir`; compares its log with `expected`. */
static int check(const char *dir, const char *expected, const char *what) {
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
        InitializeInjection();
        calls();
        exit(0);
    }
    int status;
    if (child < 0 || waitpid(child, &status, 0) != child || status != 0) {
        fprintf(stderr, "recorder_test: %s: the child failed (status %d)\n", what, status);
        return 1;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/%ld.calls", dir, (long)child);
    const char *got = calls_of(path);
    if (got == NULL) {
        fprintf(stderr, "recorder_test: %s: no log %s\n", what, path);
        return 1;
    }
    expected = with_pid(expected, child);
    if (strcmp(got, expected) == 0) {
        printf("recorder_test: %s: the log is as expected\n", what);
        return 0;
    }
    size_t at = 0;
    while (got[at] == expected[at]) at++;
    while (at > 0 && expected[at - 1] != '\n') at--;
    fprintf(stderr, "recorder_test: %s: the log differs at\n  got:      %.*s\n  expected: %.*s\n",
            what, (int)strcspn(got + at, "\n"), got + at, (int)strcspn(expected + at, "\n"),
            expected + at);
    return 1;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: recorder_test DIR (an empty folder for the logs)\n");
        return 2;
    }
    setenv("CUDA_CALLS_DIR", argv[1], 1);
    unsetenv("CUDA_CALLS_ARGUMENTS");
    int failed = check(argv[1], EXPECTED, "with arguments");
    setenv("CUDA_CALLS_ARGUMENTS", "0", 1);
    failed |= check(argv[1], without_arguments(), "CUDA_CALLS_ARGUMENTS=0");
    return failed;
}
