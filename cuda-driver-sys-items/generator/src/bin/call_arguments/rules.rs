//! What the types alone do not say, written once: which typedefs are handles or addresses, how
//! the unions are told apart, which parameter counts which array, which calls create, release or
//! return memory. Functions are named by their base name (the entry without `_v<N>`, `_ptsz`,
//! `_ptds`), so that every variant of a function follows the same rule.

/// The typedef of device addresses.
pub const ADDRESS: &str = "CUdeviceptr";

/// The handles that are 64-bit integers rather than pointers to an opaque struct (those are
/// recognised by their type).
pub const HANDLES_64: &[&str] = &[
    "CUtexObject",
    "CUsurfObject",
    "CUmemGenericAllocationHandle",
    "CUgraphConditionalHandle",
];

/// Whether a member of a structure or union only pads it or is reserved (`pad`, `reserved1`,
/// `_internal_padding`, `_oversize`): what a program leaves there, or the driver keeps there for
/// itself, is no argument, and is never printed.
pub fn is_padding(member: &str) -> bool {
    member
        .trim_start_matches('_')
        .split('_')
        .any(|word| word.starts_with("pad") || word.starts_with("reserved") || word == "oversize")
}

/// Whether a parameter is a process id (`cuCheckpointProcess*`'s `pid`): an identity, numbered
/// by first appearance, since the processes' ids differ from run to run.
pub fn is_process_id(param: &str) -> bool {
    param == "pid"
}

/// Structures whose bytes are the driver's encoding of something else, which differs between
/// processes (IPC handles, export data, tensor maps): shown as `?opaque`.
pub const OPAQUE_RECORDS: &[&str] = &[
    "CUipcMemHandle_st",
    "CUipcEventHandle_st",
    "CUmemFabricHandle_st",
    "CUmemPoolPtrExportData_st",
    "CUtensorMap_st",
];

/// A union told apart by a discriminant.
pub struct UnionRule {
    /// The union's names in the bindings (bindgen names an anonymous one after its parent).
    pub unions: &'static [&'static str],
    /// The discriminant's name: a member of the struct holding the union, a member of the union
    /// itself, or a parameter of the function it is passed to (the first that exists).
    pub discriminants: &'static [&'static str],
    /// Each value of the discriminant (its enumerator) to the member it selects; `None`: no
    /// member (the union holds nothing for that value).
    pub members: &'static [(&'static str, Option<&'static str>)],
}

/// The unions described; any other union of more than one member is `?union`.
pub const UNIONS: &[UnionRule] = &[
    UnionRule {
        unions: &[
            "CUlaunchAttributeValue_union",
            "CUkernelNodeAttrValue_union",
            "CUstreamAttrValue_union",
        ],
        discriminants: &["id", "attr"],
        members: &[
            ("CU_LAUNCH_ATTRIBUTE_IGNORE", None),
            (
                "CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW",
                Some("accessPolicyWindow"),
            ),
            ("CU_LAUNCH_ATTRIBUTE_COOPERATIVE", Some("cooperative")),
            (
                "CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY",
                Some("syncPolicy"),
            ),
            ("CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION", Some("clusterDim")),
            (
                "CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE",
                Some("clusterSchedulingPolicyPreference"),
            ),
            (
                "CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION",
                Some("programmaticStreamSerializationAllowed"),
            ),
            (
                "CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT",
                Some("programmaticEvent"),
            ),
            ("CU_LAUNCH_ATTRIBUTE_PRIORITY", Some("priority")),
            (
                "CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP",
                Some("memSyncDomainMap"),
            ),
            ("CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN", Some("memSyncDomain")),
            (
                "CU_LAUNCH_ATTRIBUTE_PREFERRED_CLUSTER_DIMENSION",
                Some("preferredClusterDim"),
            ),
            (
                "CU_LAUNCH_ATTRIBUTE_LAUNCH_COMPLETION_EVENT",
                Some("launchCompletionEvent"),
            ),
            (
                "CU_LAUNCH_ATTRIBUTE_DEVICE_UPDATABLE_KERNEL_NODE",
                Some("deviceUpdatableKernelNode"),
            ),
            (
                "CU_LAUNCH_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT",
                Some("sharedMemCarveout"),
            ),
            (
                "CU_LAUNCH_ATTRIBUTE_NVLINK_UTIL_CENTRIC_SCHEDULING",
                Some("nvlinkUtilCentricScheduling"),
            ),
            (
                "CU_LAUNCH_ATTRIBUTE_PORTABLE_CLUSTER_SIZE_MODE",
                Some("portableClusterSizeMode"),
            ),
            (
                "CU_LAUNCH_ATTRIBUTE_SHARED_MEMORY_MODE",
                Some("sharedMemoryMode"),
            ),
        ],
    },
    UnionRule {
        unions: &["CUDA_RESOURCE_DESC_st__bindgen_ty_1"],
        discriminants: &["resType"],
        members: &[
            ("CU_RESOURCE_TYPE_ARRAY", Some("array")),
            ("CU_RESOURCE_TYPE_MIPMAPPED_ARRAY", Some("mipmap")),
            ("CU_RESOURCE_TYPE_LINEAR", Some("linear")),
            ("CU_RESOURCE_TYPE_PITCH2D", Some("pitch2D")),
        ],
    },
    UnionRule {
        unions: &["CUgraphNodeParams_st__bindgen_ty_1"],
        discriminants: &["type"],
        members: &[
            ("CU_GRAPH_NODE_TYPE_KERNEL", Some("kernel")),
            ("CU_GRAPH_NODE_TYPE_MEMCPY", Some("memcpy")),
            ("CU_GRAPH_NODE_TYPE_MEMSET", Some("memset")),
            ("CU_GRAPH_NODE_TYPE_HOST", Some("host")),
            ("CU_GRAPH_NODE_TYPE_GRAPH", Some("graph")),
            ("CU_GRAPH_NODE_TYPE_EMPTY", None),
            ("CU_GRAPH_NODE_TYPE_WAIT_EVENT", Some("eventWait")),
            ("CU_GRAPH_NODE_TYPE_EVENT_RECORD", Some("eventRecord")),
            ("CU_GRAPH_NODE_TYPE_EXT_SEMAS_SIGNAL", Some("extSemSignal")),
            ("CU_GRAPH_NODE_TYPE_EXT_SEMAS_WAIT", Some("extSemWait")),
            ("CU_GRAPH_NODE_TYPE_MEM_ALLOC", Some("alloc")),
            ("CU_GRAPH_NODE_TYPE_MEM_FREE", Some("free")),
            ("CU_GRAPH_NODE_TYPE_BATCH_MEM_OP", Some("memOp")),
            ("CU_GRAPH_NODE_TYPE_CONDITIONAL", Some("conditional")),
        ],
    },
    UnionRule {
        unions: &["CUstreamBatchMemOpParams_union"],
        discriminants: &["operation"],
        members: &[
            ("CU_STREAM_MEM_OP_WAIT_VALUE_32", Some("waitValue")),
            ("CU_STREAM_MEM_OP_WAIT_VALUE_64", Some("waitValue")),
            ("CU_STREAM_MEM_OP_WRITE_VALUE_32", Some("writeValue")),
            ("CU_STREAM_MEM_OP_WRITE_VALUE_64", Some("writeValue")),
            (
                "CU_STREAM_MEM_OP_FLUSH_REMOTE_WRITES",
                Some("flushRemoteWrites"),
            ),
            ("CU_STREAM_MEM_OP_BARRIER", Some("memoryBarrier")),
            ("CU_STREAM_MEM_OP_ATOMIC_REDUCTION", Some("atomicReduction")),
        ],
    },
    UnionRule {
        unions: &[
            "CUstreamBatchMemOpParams_union_CUstreamMemOpWaitValueParams_st__bindgen_ty_1",
            "CUstreamBatchMemOpParams_union_CUstreamMemOpWriteValueParams_st__bindgen_ty_1",
        ],
        discriminants: &["operation"],
        members: &[
            ("CU_STREAM_MEM_OP_WAIT_VALUE_32", Some("value")),
            ("CU_STREAM_MEM_OP_WAIT_VALUE_64", Some("value64")),
            ("CU_STREAM_MEM_OP_WRITE_VALUE_32", Some("value")),
            ("CU_STREAM_MEM_OP_WRITE_VALUE_64", Some("value64")),
        ],
    },
    UnionRule {
        unions: &["CUDA_EXTERNAL_MEMORY_HANDLE_DESC_st__bindgen_ty_1"],
        discriminants: &["type"],
        members: &[
            ("CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD", Some("fd")),
            ("CU_EXTERNAL_MEMORY_HANDLE_TYPE_DMABUF_FD", Some("fd")),
            ("CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_WIN32", Some("win32")),
            (
                "CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_WIN32_KMT",
                Some("win32"),
            ),
            ("CU_EXTERNAL_MEMORY_HANDLE_TYPE_D3D12_HEAP", Some("win32")),
            (
                "CU_EXTERNAL_MEMORY_HANDLE_TYPE_D3D12_RESOURCE",
                Some("win32"),
            ),
            (
                "CU_EXTERNAL_MEMORY_HANDLE_TYPE_D3D11_RESOURCE",
                Some("win32"),
            ),
            (
                "CU_EXTERNAL_MEMORY_HANDLE_TYPE_D3D11_RESOURCE_KMT",
                Some("win32"),
            ),
            (
                "CU_EXTERNAL_MEMORY_HANDLE_TYPE_NVSCIBUF",
                Some("nvSciBufObject"),
            ),
        ],
    },
    UnionRule {
        unions: &["CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC_st__bindgen_ty_1"],
        discriminants: &["type"],
        members: &[
            ("CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD", Some("fd")),
            (
                "CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_FD",
                Some("fd"),
            ),
            (
                "CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_WIN32",
                Some("win32"),
            ),
            (
                "CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_WIN32_KMT",
                Some("win32"),
            ),
            (
                "CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_D3D12_FENCE",
                Some("win32"),
            ),
            (
                "CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_D3D11_FENCE",
                Some("win32"),
            ),
            (
                "CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_D3D11_KEYED_MUTEX",
                Some("win32"),
            ),
            (
                "CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_D3D11_KEYED_MUTEX_KMT",
                Some("win32"),
            ),
            (
                "CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_WIN32",
                Some("win32"),
            ),
            (
                "CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_NVSCISYNC",
                Some("nvSciSyncObj"),
            ),
        ],
    },
    UnionRule {
        unions: &["CUmemcpy3DOperand_st__bindgen_ty_1"],
        discriminants: &["type"],
        members: &[
            ("CU_MEMCPY_OPERAND_TYPE_POINTER", Some("ptr")),
            ("CU_MEMCPY_OPERAND_TYPE_ARRAY", Some("array")),
        ],
    },
    UnionRule {
        unions: &["CUarrayMapInfo_st__bindgen_ty_1"],
        discriminants: &["resourceType"],
        members: &[
            ("CU_RESOURCE_TYPE_MIPMAPPED_ARRAY", Some("mipmap")),
            ("CU_RESOURCE_TYPE_ARRAY", Some("array")),
        ],
    },
    UnionRule {
        unions: &["CUarrayMapInfo_st__bindgen_ty_2"],
        discriminants: &["subresourceType"],
        members: &[
            (
                "CU_ARRAY_SPARSE_SUBRESOURCE_TYPE_SPARSE_LEVEL",
                Some("sparseLevel"),
            ),
            ("CU_ARRAY_SPARSE_SUBRESOURCE_TYPE_MIPTAIL", Some("miptail")),
        ],
    },
];

/// Which way a pointer parameter's values go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// Read before the call.
    In,
    /// Written by the call, read after it.
    Out,
}

/// The pointer parameters whose direction neither `const` nor the function's name gives:
/// (function, parameter, direction). A parameter the call both reads and writes is an input
/// where what it reads is the argument (a mode to set, a size given).
const DIRECTIONS: &[(&str, &str, Direction)] = &[
    ("cuMemGetDefaultMemPool", "location", Direction::In),
    ("cuMemGetMemPool", "location", Direction::In),
    ("cuMemPoolGetAccess", "location", Direction::In),
    ("cuPointerGetAttributes", "attributes", Direction::In),
    ("cuMemRangeGetAttributes", "attributes", Direction::In),
    ("cuMemRangeGetAttributes", "dataSizes", Direction::In),
    ("cuTexRefSetBorderColor", "pBorderColor", Direction::In),
    ("cuThreadExchangeStreamCaptureMode", "mode", Direction::In),
    ("cuMemPoolImportPointer", "shareData", Direction::In),
    ("cuCoredumpSetAttribute", "size", Direction::In),
    ("cuCoredumpSetAttributeGlobal", "size", Direction::In),
    ("cuDevSmResourceSplitByCount", "remaining", Direction::Out),
    ("cuGraphExecUpdate", "resultInfo", Direction::Out),
    ("cuTensorMapEncodeTiled", "tensorMap", Direction::Out),
    ("cuTensorMapEncodeIm2col", "tensorMap", Direction::Out),
    ("cuTensorMapEncodeIm2colWide", "tensorMap", Direction::Out),
    ("cuLogsDumpToFile", "iterator", Direction::In),
    ("cuLogsDumpToMemory", "iterator", Direction::In),
];

/// The direction the rules give the pointer parameter `param` of `function`, if they give one.
pub fn direction(function: &str, param: &str) -> Option<Direction> {
    DIRECTIONS
        .iter()
        .find(|(f, p, _)| *f == function && *p == param)
        .map(|(_, _, d)| *d)
}

/// The array parameters whose count parameter their names do not give (`num<Name>`, ...):
/// (function, array, count, how much less than the count the array holds).
const COUNTS: &[(&str, &str, &str, u8)] = &[
    ("cuMemcpyBatchAsync", "dsts", "count", 0),
    ("cuMemcpyBatchAsync", "srcs", "count", 0),
    ("cuMemcpyBatchAsync", "sizes", "count", 0),
    ("cuMemcpyBatchAsync", "attrsIdxs", "numAttrs", 0),
    ("cuMemcpy3DBatchAsync", "opList", "numOps", 0),
    ("cuMemPrefetchBatchAsync", "dptrs", "count", 0),
    ("cuMemPrefetchBatchAsync", "sizes", "count", 0),
    (
        "cuMemPrefetchBatchAsync",
        "prefetchLocs",
        "numPrefetchLocs",
        0,
    ),
    (
        "cuMemPrefetchBatchAsync",
        "prefetchLocIdxs",
        "numPrefetchLocs",
        0,
    ),
    ("cuMemDiscardBatchAsync", "dptrs", "count", 0),
    ("cuMemDiscardBatchAsync", "sizes", "count", 0),
    ("cuMemDiscardAndPrefetchBatchAsync", "dptrs", "count", 0),
    ("cuMemDiscardAndPrefetchBatchAsync", "sizes", "count", 0),
    (
        "cuMemDiscardAndPrefetchBatchAsync",
        "prefetchLocs",
        "numPrefetchLocs",
        0,
    ),
    (
        "cuMemDiscardAndPrefetchBatchAsync",
        "prefetchLocIdxs",
        "numPrefetchLocs",
        0,
    ),
    ("cuMemBatchDecompressAsync", "paramsArray", "count", 0),
    ("cuMemSetAccess", "desc", "count", 0),
    ("cuMemPoolSetAccess", "map", "count", 0),
    ("cuMemMapArrayAsync", "mapInfoList", "count", 0),
    ("cuStreamBatchMemOp", "paramArray", "count", 0),
    ("cuGraphicsMapResources", "resources", "count", 0),
    ("cuGraphicsUnmapResources", "resources", "count", 0),
    (
        "cuDeviceGetHostAtomicCapabilities",
        "operations",
        "count",
        0,
    ),
    (
        "cuDeviceGetHostAtomicCapabilities",
        "capabilities",
        "count",
        0,
    ),
    ("cuDeviceGetP2PAtomicCapabilities", "operations", "count", 0),
    (
        "cuDeviceGetP2PAtomicCapabilities",
        "capabilities",
        "count",
        0,
    ),
    (
        "cuSignalExternalSemaphoresAsync",
        "extSemArray",
        "numExtSems",
        0,
    ),
    (
        "cuSignalExternalSemaphoresAsync",
        "paramsArray",
        "numExtSems",
        0,
    ),
    (
        "cuWaitExternalSemaphoresAsync",
        "extSemArray",
        "numExtSems",
        0,
    ),
    (
        "cuWaitExternalSemaphoresAsync",
        "paramsArray",
        "numExtSems",
        0,
    ),
    (
        "cuStreamBeginCaptureToGraph",
        "dependencyData",
        "numDependencies",
        0,
    ),
    (
        "cuStreamUpdateCaptureDependencies",
        "dependencyData",
        "numDependencies",
        0,
    ),
    ("cuGraphAddNode", "dependencyData", "numDependencies", 0),
    ("cuGraphAddDependencies", "from", "numDependencies", 0),
    ("cuGraphAddDependencies", "to", "numDependencies", 0),
    ("cuGraphAddDependencies", "edgeData", "numDependencies", 0),
    ("cuGraphRemoveDependencies", "from", "numDependencies", 0),
    ("cuGraphRemoveDependencies", "to", "numDependencies", 0),
    (
        "cuGraphRemoveDependencies",
        "edgeData",
        "numDependencies",
        0,
    ),
    ("cuGraphGetEdges", "from", "numEdges", 0),
    ("cuGraphGetEdges", "to", "numEdges", 0),
    ("cuGraphGetEdges", "edgeData", "numEdges", 0),
    (
        "cuGraphNodeGetDependencies",
        "edgeData",
        "numDependencies",
        0,
    ),
    (
        "cuGraphNodeGetDependentNodes",
        "edgeData",
        "numDependentNodes",
        0,
    ),
    ("cuCtxCreate", "paramsArray", "numParams", 0),
    ("cuDevSmResourceSplitByCount", "result", "nbGroups", 0),
    (
        "cuLaunchCooperativeKernelMultiDevice",
        "launchParamsList",
        "numDevices",
        0,
    ),
    ("cuMemRangeGetAttributes", "data", "numAttributes", 0),
    ("cuMemRangeGetAttributes", "dataSizes", "numAttributes", 0),
    ("cuPointerGetAttributes", "data", "numAttributes", 0),
    ("cuTensorMapEncodeTiled", "globalDim", "tensorRank", 0),
    ("cuTensorMapEncodeTiled", "globalStrides", "tensorRank", 1),
    ("cuTensorMapEncodeTiled", "boxDim", "tensorRank", 0),
    ("cuTensorMapEncodeTiled", "elementStrides", "tensorRank", 0),
    ("cuTensorMapEncodeIm2col", "globalDim", "tensorRank", 0),
    ("cuTensorMapEncodeIm2col", "globalStrides", "tensorRank", 1),
    (
        "cuTensorMapEncodeIm2col",
        "pixelBoxLowerCorner",
        "tensorRank",
        2,
    ),
    (
        "cuTensorMapEncodeIm2col",
        "pixelBoxUpperCorner",
        "tensorRank",
        2,
    ),
    ("cuTensorMapEncodeIm2col", "elementStrides", "tensorRank", 0),
    ("cuTensorMapEncodeIm2colWide", "globalDim", "tensorRank", 0),
    (
        "cuTensorMapEncodeIm2colWide",
        "globalStrides",
        "tensorRank",
        1,
    ),
    (
        "cuTensorMapEncodeIm2colWide",
        "elementStrides",
        "tensorRank",
        0,
    ),
];

/// The count parameter of the array parameter `array` of `function` the rules give, and how
/// much less than it the array holds.
pub fn count(function: &str, array: &str) -> Option<(&'static str, u8)> {
    COUNTS
        .iter()
        .find(|(f, a, _, _)| *f == function && *a == array)
        .map(|(_, _, c, m)| (*c, *m))
}

/// The pointer parameters to a fixed number of values: (function, parameter, length).
const LENGTHS: &[(&str, &str, usize)] = &[("cuTexRefSetBorderColor", "pBorderColor", 4)];

/// The fixed number of values the pointer parameter `param` of `function` points to, if the
/// rules give one.
pub fn length(function: &str, param: &str) -> Option<usize> {
    LENGTHS
        .iter()
        .find(|(f, p, _)| *f == function && *p == param)
        .map(|(_, _, n)| *n)
}

/// The count member of an array member that its name does not give.
pub fn field_count(array: &str) -> Option<&'static str> {
    match array {
        "accessDescs" => Some("accessDescCount"),
        "phGraph_out" => Some("size"),
        "paramArray" => Some("count"),
        "extSemArray" | "paramsArray" => Some("numExtSems"),
        _ => None,
    }
}

/// A place of an allocation rule: a parameter's value, the value behind a pointer parameter
/// (after the call), or a member of the struct a pointer parameter points to (after the call).
#[derive(Clone, Copy, Debug)]
pub enum Where {
    Value(&'static str),
    Pointee(&'static str),
    Field(&'static str, &'static str),
}

/// What an allocation's size is.
#[derive(Clone, Copy, Debug)]
pub enum Size {
    /// A value.
    Of(Where),
    /// The product of two.
    Times(Where, Where),
    /// What the driver says (`cuMemGetAddressRange`), the call not saying.
    Asked,
    /// The allocation's number and size are those of the allocation the host pointer here is in
    /// (a device alias of host memory).
    AliasOf(Where),
}

/// A call that returns memory.
pub struct Allocation {
    /// The functions (base names).
    pub functions: &'static [&'static str],
    /// Where the memory's address is.
    pub address: Where,
    /// Its size.
    pub size: Size,
}

/// The calls that return memory, each an interval from then on (until a release frees it).
pub const ALLOCATIONS: &[Allocation] = &[
    Allocation {
        functions: &[
            "cuMemAlloc",
            "cuMemAllocManaged",
            "cuMemAllocAsync",
            "cuMemAllocFromPoolAsync",
        ],
        address: Where::Pointee("dptr"),
        size: Size::Of(Where::Value("bytesize")),
    },
    Allocation {
        functions: &["cuMemAllocPitch"],
        address: Where::Pointee("dptr"),
        size: Size::Times(Where::Pointee("pPitch"), Where::Value("Height")),
    },
    Allocation {
        functions: &["cuMemAddressReserve"],
        address: Where::Pointee("ptr"),
        size: Size::Of(Where::Value("size")),
    },
    Allocation {
        functions: &["cuMemAllocHost", "cuMemHostAlloc"],
        address: Where::Pointee("pp"),
        size: Size::Of(Where::Value("bytesize")),
    },
    Allocation {
        functions: &["cuMemHostRegister"],
        address: Where::Value("p"),
        size: Size::Of(Where::Value("bytesize")),
    },
    Allocation {
        functions: &["cuMemHostGetDevicePointer"],
        address: Where::Pointee("pdptr"),
        size: Size::AliasOf(Where::Value("p")),
    },
    Allocation {
        functions: &[
            "cuModuleGetGlobal",
            "cuLibraryGetGlobal",
            "cuLibraryGetManaged",
        ],
        address: Where::Pointee("dptr"),
        size: Size::Of(Where::Pointee("bytes")),
    },
    Allocation {
        functions: &["cuIpcOpenMemHandle"],
        address: Where::Pointee("pdptr"),
        size: Size::Asked,
    },
    Allocation {
        functions: &["cuMemPoolImportPointer"],
        address: Where::Pointee("ptr_out"),
        size: Size::Asked,
    },
    Allocation {
        functions: &["cuExternalMemoryGetMappedBuffer"],
        address: Where::Pointee("devPtr"),
        size: Size::Of(Where::Field("bufferDesc", "size")),
    },
    Allocation {
        functions: &["cuGraphicsResourceGetMappedPointer"],
        address: Where::Pointee("pDevPtr"),
        size: Size::Of(Where::Pointee("pSize")),
    },
    Allocation {
        functions: &["cuGraphAddMemAllocNode"],
        address: Where::Field("nodeParams", "dptr"),
        size: Size::Of(Where::Field("nodeParams", "bytesize")),
    },
];

/// The allocation rule of `function`, if it returns memory.
pub fn allocation(function: &str) -> Option<&'static Allocation> {
    ALLOCATIONS.iter().find(|a| a.functions.contains(&function))
}

/// Whether `function` asks for what exists (`Get`, `Query`, `Enumerate`, `Find`): the structs
/// it is given to fill are outputs, and the handles it writes are looked up, not new.
pub fn get_like(function: &str) -> bool {
    ["Get", "Query", "Enumerate", "Find"]
        .iter()
        .any(|verb| function.contains(verb))
}

/// The functions that write a handle that already exists, without a lookup verb in their name.
const LOOKUPS: &[&str] = &[
    "cuCtxPopCurrent",
    "cuCtxAttach",
    "cuDevicePrimaryCtxRetain",
    "cuMemRetainAllocationHandle",
    "cuCtxFromGreenCtx",
    "cuGraphExecUpdate",
    "cuGraphNodeSetParams",
    "cuGraphExecNodeSetParams",
];

/// The functions with a lookup verb in their name that create the handle they write (the
/// program destroys it).
const GETS_THAT_CREATE: &[&str] = &["cuExternalMemoryGetMappedMipmappedArray"];

/// Whether the handle `function` writes through its parameter `param` is a new object, numbered
/// afresh even where an ended object's handle had the same value: not where the function looks
/// up, nor for the node an instantiation or update names as the error's.
pub fn creates(function: &str, param: &str) -> bool {
    let lookup = get_like(function) && !GETS_THAT_CREATE.contains(&function);
    !lookup && !LOOKUPS.contains(&function) && !param.contains("Error")
}

/// The functions whose outputs are handles that live no longer than one of their handle
/// parameters, by its name: a graph's nodes and a conditional node's body graphs end with the
/// graph, a module's functions with the module, a library's kernels with the library; none of
/// them with a release call of its own. Each function of `cuGraphAdd*Node` has its `hGraph`.
pub const OWNERS: &[(&str, &str)] = &[
    ("cuGraphConditionalHandleCreate", "hGraph"),
    ("cuGraphGetNodes", "hGraph"),
    ("cuGraphGetRootNodes", "hGraph"),
    ("cuGraphGetEdges", "hGraph"),
    ("cuGraphExecUpdate", "hGraph"),
    ("cuGraphNodeFindInClone", "hClonedGraph"),
    ("cuGraphChildGraphNodeGetGraph", "hNode"),
    ("cuGraphNodeSetParams", "hNode"),
    ("cuGraphExecNodeSetParams", "hNode"),
    ("cuModuleGetFunction", "hmod"),
    ("cuModuleGetTexRef", "hmod"),
    ("cuModuleGetSurfRef", "hmod"),
    ("cuModuleEnumerateFunctions", "mod"),
    ("cuLibraryGetKernel", "library"),
    ("cuLibraryGetModule", "library"),
    ("cuLibraryEnumerateKernels", "lib"),
    ("cuKernelGetFunction", "kernel"),
    ("cuMipmappedArrayGetLevel", "hMipmappedArray"),
    ("cuArrayGetPlane", "hArray"),
    ("cuGraphicsSubResourceGetMappedArray", "resource"),
    ("cuGraphicsResourceGetMappedMipmappedArray", "resource"),
    ("cuCtxFromGreenCtx", "hCtx"),
];

/// The parameter naming the handle that the handles `function` writes live no longer than, if
/// the rules give one.
pub fn owner(function: &str) -> Option<&'static str> {
    if function.starts_with("cuGraphAdd") && function.ends_with("Node") {
        return Some("hGraph");
    }
    OWNERS
        .iter()
        .find(|(f, _)| *f == function)
        .map(|(_, owner)| *owner)
}

/// The functions with a release verb in their name that end a reference, not the object.
const NOT_RELEASES: &[&str] = &["cuGraphReleaseUserObject", "cuUserObjectRelease"];

/// Whether `function` ends the object (handle or allocation) of its first handle or address
/// parameter, so that a new object at the same value gets a new number.
pub fn releases(function: &str) -> bool {
    let verb = [
        "Destroy",
        "Unload",
        "Unregister",
        "Deregister",
        "Release",
        "Close",
    ]
    .iter()
    .any(|v| function.contains(v))
        || (function.contains("Free") && !function.contains("Node"));
    verb && !NOT_RELEASES.contains(&function)
}

/// The base name of a driver entry: without the per-thread suffix (`_ptsz`, `_ptds`) and the
/// ABI version (`_v2`).
pub fn base_name(entry: &str) -> String {
    let entry = entry
        .strip_suffix("_ptsz")
        .or_else(|| entry.strip_suffix("_ptds"))
        .unwrap_or(entry);
    unversioned(entry).to_string()
}

/// A name without its `_v<N>` suffix (`CUdeviceptr_v2`, `cuMemAlloc_v2`).
pub fn unversioned(name: &str) -> &str {
    match name.rsplit_once("_v") {
        Some((stem, n)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => stem,
        _ => name,
    }
}
