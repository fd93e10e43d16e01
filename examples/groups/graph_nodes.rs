//! The graph group of the Driver API, node by node: a graph of every node type the H100 runs
//! (memset, kernel, child graph, memcpy, host, event record and wait, empty, batch memory operation,
//! memory allocation and free; external semaphore nodes with no semaphore, as far as the driver
//! takes them; the memory nodes in a graph of their own, since the driver neither clones a graph with
//! memory nodes nor removes its edges or nodes), each node built with other parameters than its
//! own, then set to its own and read back, the graph's nodes, roots, edges (with their data) and
//! dependencies, an edge removed (counted) and added back, a clone and a node found in it; the
//! graph instantiated, uploaded and launched, its result checked; then the executable graph changed
//! node by node (each node type's Exec*SetParams, a node disabled and enabled,
//! cuGraphExecNodeSetParams) and as a whole (cuGraphExecUpdate), each launch checked; a graph built
//! with cuGraphAddNode and cuGraphNodeSetParams and instantiated with parameters; kernel node
//! attributes copied; user objects; the graph memory attributes (the allocation graph run, its
//! unused memory trimmed, the high watermark reset); the DOT output. Each launch's results are
//! read by copies behind it in its stream, which return once done. Functions of headers
//! newer than the GPU driver (CUDA 13.1's ids, 13.2's cuGraphNodeGetParams, 13.4's cuGraphAddNode
//! and cuGraphNodeSetParams) are looked up with the typed cuGetProcAddress (`entry`): where the
//! driver has none, the program prints what its lookup answered. C twin: graph_nodes.cpp.
//! Kernels: examples/kernels/graphs.ptx (add_value); argv[1] is the kernels folder.

#[path = "common/mod.rs"]
mod common;

use std::ffi::{c_int, c_uint, c_void, CString};
use std::mem::{size_of, zeroed};
use std::process::exit;
use std::ptr;

#[cfg(feature = "cuda-13010")]
use common::show_missing;
use common::{check, expect, finish, get_function, load_module, primary_context, show};
use cuda_driver_sys::*;

const N: usize = 256;

/// The host node's function: counts its calls.
unsafe extern "C" fn count_call(user_data: *mut c_void) {
    unsafe { *(user_data as *mut c_int) += 1 };
}

/// A user object's destructor (nothing to free: the object owns no memory).
unsafe extern "C" fn destroy_object(_user_data: *mut c_void) {}

/// Kernel node parameters: add_value(*data, *value, *n) in one block of N threads.
fn kernel_params(f: CUfunction, args: &mut [*mut c_void]) -> CUDA_KERNEL_NODE_PARAMS {
    let mut p: CUDA_KERNEL_NODE_PARAMS = unsafe { zeroed() };
    p.func = f;
    p.gridDimX = 1;
    p.gridDimY = 1;
    p.gridDimZ = 1;
    p.blockDimX = N as c_uint;
    p.blockDimY = 1;
    p.blockDimZ = 1;
    p.kernelParams = args.as_mut_ptr();
    p
}

/// Memcpy node parameters: N ints from `src` to `dst` on the device.
fn copy_of(src: CUdeviceptr, dst: CUdeviceptr) -> CUDA_MEMCPY3D {
    let mut p: CUDA_MEMCPY3D = unsafe { zeroed() };
    p.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    p.srcDevice = src;
    p.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    p.dstDevice = dst;
    p.WidthInBytes = N * size_of::<c_int>();
    p.Height = 1;
    p.Depth = 1;
    p
}

/// Launches `exec` on `stream` and checks, by copies behind it in `stream` (to pageable memory:
/// they return once done), the copy (every element `expected`), the host node's count at `calls`
/// and the flag the batch memory operation wrote.
#[allow(clippy::too_many_arguments)] // the twin's parameters
unsafe fn launch_and_check(
    what: &str,
    exec: CUgraphExec,
    stream: CUstream,
    copy: CUdeviceptr,
    expected: c_int,
    calls: *const c_int,
    expected_calls: c_int,
    flag: CUdeviceptr,
    expected_flag: c_uint,
) {
    unsafe {
        println!("{what}:");
        if !check!(cuGraphLaunch(exec, stream)) {
            return;
        }
        let mut host = [0 as c_int; N];
        let mut flag_value: c_uint = 0;
        check!(cuMemcpyDtoHAsync(
            host.as_mut_ptr() as *mut c_void,
            copy,
            size_of::<[c_int; N]>(),
            stream,
        ));
        check!(cuMemcpyDtoHAsync(
            &raw mut flag_value as *mut c_void,
            flag,
            size_of::<c_uint>(),
            stream,
        ));
        let calls = calls.read_volatile();
        println!("  copy {}, host calls {calls}, flag {flag_value}", host[0]);
        expect(
            host.iter().all(|&h| h == expected),
            "every element of the copy",
        );
        expect(calls == expected_calls, "the host node's calls");
        expect(
            flag_value == expected_flag,
            "the batch memory operation's flag",
        );
    }
}

fn main() {
    unsafe {
        if !check!(cuInit(0)) {
            exit(1);
        }
        let Some((device, ctx)) = primary_context() else {
            finish();
        };
        let module = load_module("graphs.ptx");
        let add_value = get_function(module, c"add_value");
        if add_value.is_null() {
            finish();
        }
        let mut stream: CUstream = ptr::null_mut();
        check!(cuStreamCreate(&mut stream, CU_STREAM_NON_BLOCKING.0));
        let (mut data, mut copy, mut other_copy, mut flag): (
            CUdeviceptr,
            CUdeviceptr,
            CUdeviceptr,
            CUdeviceptr,
        ) = (0, 0, 0, 0);
        check!(cuMemAlloc(&mut data, N * size_of::<c_int>()));
        check!(cuMemAlloc(&mut copy, N * size_of::<c_int>()));
        check!(cuMemAlloc(&mut other_copy, N * size_of::<c_int>()));
        check!(cuMemAlloc(&mut flag, size_of::<c_uint>()));
        // The flag before any batch memory operation wrote it: 1, read back.
        check!(cuMemsetD32(flag, 1, 1));
        let mut first_flag: c_uint = 0;
        check!(cuMemcpyDtoH(
            &raw mut first_flag as *mut c_void,
            flag,
            size_of::<c_uint>(),
        ));
        expect(first_flag == 1, "the flag set before the first launch");
        let mut event: CUevent = ptr::null_mut();
        let mut other_event: CUevent = ptr::null_mut();
        check!(cuEventCreate(&mut event, CU_EVENT_DISABLE_TIMING.0));
        check!(cuEventCreate(&mut other_event, CU_EVENT_DISABLE_TIMING.0));
        let (mut calls, mut other_calls): (c_int, c_int) = (0, 0);
        let mut n = N as c_int;
        let (mut one, mut three, mut ten, mut twenty): (c_int, c_int, c_int, c_int) =
            (1, 3, 10, 20);
        let arg = |p: *mut c_void| p;

        // The graph: memset -> kernel (+1) -> child graph (+10) -> memcpy -> host, event record ->
        // event wait -> empty -> batch memory operation; each node but the child graph built with
        // other parameters (memset 3, kernel +3, memcpy into other_copy, host counting other_calls,
        // events other_event, batch operation 16), set to these below. And a graph of its own:
        // allocation -> memset (7) -> kernel (+1) -> memcpy into copy -> free.
        let mut graph: CUgraph = ptr::null_mut();
        let mut child: CUgraph = ptr::null_mut();
        check!(cuGraphCreate(&mut graph, 0));
        check!(cuGraphCreate(&mut child, 0));
        let null = ptr::null_mut::<CUgraphNode_st>;
        let (mut memset_node, mut kernel_node, mut child_node, mut memcpy_node) =
            (null(), null(), null(), null());
        let (mut host_node, mut record_node, mut wait_node, mut empty_node) =
            (null(), null(), null(), null());
        let (mut batch_node, mut alloc_node, mut free_node, mut child_kernel) =
            (null(), null(), null(), null());
        let mut memset_params: CUDA_MEMSET_NODE_PARAMS = zeroed();
        memset_params.dst = data;
        memset_params.elementSize = 4;
        memset_params.width = N;
        memset_params.height = 1;
        memset_params.value = 3;
        check!(cuGraphAddMemsetNode(
            &mut memset_node,
            graph,
            ptr::null(),
            0,
            &memset_params,
            ctx
        ));
        let mut built_with_args = [
            arg(&raw mut data as _),
            arg(&raw mut three as _),
            arg(&raw mut n as _),
        ];
        let built_with = kernel_params(add_value, &mut built_with_args);
        check!(cuGraphAddKernelNode(
            &mut kernel_node,
            graph,
            &memset_node,
            1,
            &built_with
        ));
        let mut child_args = [
            arg(&raw mut data as _),
            arg(&raw mut ten as _),
            arg(&raw mut n as _),
        ];
        let ckp = kernel_params(add_value, &mut child_args);
        check!(cuGraphAddKernelNode(
            &mut child_kernel,
            child,
            ptr::null(),
            0,
            &ckp
        ));
        check!(cuGraphAddChildGraphNode(
            &mut child_node,
            graph,
            &kernel_node,
            1,
            child
        ));
        let copy_params = copy_of(data, copy);
        let other_copy_params = copy_of(data, other_copy);
        check!(cuGraphAddMemcpyNode(
            &mut memcpy_node,
            graph,
            &child_node,
            1,
            &other_copy_params,
            ctx
        ));
        let host_params = CUDA_HOST_NODE_PARAMS {
            fn_: Some(count_call),
            userData: &raw mut calls as *mut c_void,
        };
        let other_host_params = CUDA_HOST_NODE_PARAMS {
            fn_: Some(count_call),
            userData: &raw mut other_calls as *mut c_void,
        };
        check!(cuGraphAddHostNode(
            &mut host_node,
            graph,
            &memcpy_node,
            1,
            &other_host_params
        ));
        check!(cuGraphAddEventRecordNode(
            &mut record_node,
            graph,
            &memcpy_node,
            1,
            other_event
        ));
        check!(cuGraphAddEventWaitNode(
            &mut wait_node,
            graph,
            &record_node,
            1,
            other_event
        ));
        let before_empty = [host_node, wait_node];
        check!(cuGraphAddEmptyNode(
            &mut empty_node,
            graph,
            before_empty.as_ptr(),
            2
        ));
        let mut op: CUstreamBatchMemOpParams = zeroed();
        op.writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_32;
        op.writeValue.address = flag;
        op.writeValue.__bindgen_anon_1.value = 16;
        let mut batch_params: CUDA_BATCH_MEM_OP_NODE_PARAMS = zeroed();
        batch_params.ctx = ctx;
        batch_params.count = 1;
        batch_params.paramArray = &mut op;
        check!(cuGraphAddBatchMemOpNode(
            &mut batch_node,
            graph,
            &empty_node,
            1,
            &batch_params
        ));
        let mut alloc_params: CUDA_MEM_ALLOC_NODE_PARAMS = zeroed();
        alloc_params.poolProps.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
        alloc_params.poolProps.location.type_ = CU_MEM_LOCATION_TYPE_DEVICE;
        #[cfg(not(feature = "cuda-13020"))]
        {
            alloc_params.poolProps.location.id = device;
        }
        // CUDA 13.2 headers: the id is in an anonymous union, as C writes it.
        #[cfg(feature = "cuda-13020")]
        {
            alloc_params.poolProps.location.__bindgen_anon_1.id = device;
        }
        alloc_params.bytesize = 1 << 20;
        let mut memory_graph: CUgraph = ptr::null_mut();
        check!(cuGraphCreate(&mut memory_graph, 0));
        check!(cuGraphAddMemAllocNode(
            &mut alloc_node,
            memory_graph,
            ptr::null(),
            0,
            &mut alloc_params,
        ));
        let mut allocated = alloc_params.dptr;
        let (mut memory_set, mut memory_add, mut memory_copy) = (null(), null(), null());
        let mut allocated_set: CUDA_MEMSET_NODE_PARAMS = zeroed();
        allocated_set.dst = allocated;
        allocated_set.elementSize = 4;
        allocated_set.width = N;
        allocated_set.height = 1;
        allocated_set.value = 7;
        check!(cuGraphAddMemsetNode(
            &mut memory_set,
            memory_graph,
            &alloc_node,
            1,
            &allocated_set,
            ctx
        ));
        let mut allocated_args = [
            arg(&raw mut allocated as _),
            arg(&raw mut one as _),
            arg(&raw mut n as _),
        ];
        let allocated_add = kernel_params(add_value, &mut allocated_args);
        check!(cuGraphAddKernelNode(
            &mut memory_add,
            memory_graph,
            &memory_set,
            1,
            &allocated_add
        ));
        let copy_out = copy_of(allocated, copy);
        check!(cuGraphAddMemcpyNode(
            &mut memory_copy,
            memory_graph,
            &memory_add,
            1,
            &copy_out,
            ctx
        ));
        check!(cuGraphAddMemFreeNode(
            &mut free_node,
            memory_graph,
            &memory_copy,
            1,
            allocated,
        ));
        // External semaphore nodes with no semaphore (no other API here exports one), in a graph of
        // their own that is never run.
        let mut sem_graph: CUgraph = ptr::null_mut();
        check!(cuGraphCreate(&mut sem_graph, 0));
        let mut signal_params: CUDA_EXT_SEM_SIGNAL_NODE_PARAMS = zeroed();
        let mut wait_params: CUDA_EXT_SEM_WAIT_NODE_PARAMS = zeroed();
        let (mut signal_node, mut sem_wait_node) = (null(), null());
        if show(
            "cuGraphAddExternalSemaphoresSignalNode",
            cuGraphAddExternalSemaphoresSignalNode(
                &mut signal_node,
                sem_graph,
                ptr::null(),
                0,
                &signal_params,
            ),
        ) {
            show(
                "cuGraphExternalSemaphoresSignalNodeGetParams",
                cuGraphExternalSemaphoresSignalNodeGetParams(signal_node, &mut signal_params),
            );
            show(
                "cuGraphExternalSemaphoresSignalNodeSetParams",
                cuGraphExternalSemaphoresSignalNodeSetParams(signal_node, &signal_params),
            );
        }
        if show(
            "cuGraphAddExternalSemaphoresWaitNode",
            cuGraphAddExternalSemaphoresWaitNode(
                &mut sem_wait_node,
                sem_graph,
                ptr::null(),
                0,
                &wait_params,
            ),
        ) {
            show(
                "cuGraphExternalSemaphoresWaitNodeGetParams",
                cuGraphExternalSemaphoresWaitNodeGetParams(sem_wait_node, &mut wait_params),
            );
            show(
                "cuGraphExternalSemaphoresWaitNodeSetParams",
                cuGraphExternalSemaphoresWaitNodeSetParams(sem_wait_node, &wait_params),
            );
        }

        // Each node's parameters set to its own (the graph was built with others), and read back.
        let mut kernel_args = [
            arg(&raw mut data as _),
            arg(&raw mut one as _),
            arg(&raw mut n as _),
        ];
        let kp = kernel_params(add_value, &mut kernel_args);
        check!(cuGraphKernelNodeSetParams(kernel_node, &kp));
        let mut read_kernel: CUDA_KERNEL_NODE_PARAMS = zeroed();
        check!(cuGraphKernelNodeGetParams(kernel_node, &mut read_kernel));
        println!("kernel node: {} threads", read_kernel.blockDimX);
        expect(read_kernel.func == add_value, "the kernel node's function");
        memset_params.value = 0;
        check!(cuGraphMemsetNodeSetParams(memset_node, &memset_params));
        let mut read_memset: CUDA_MEMSET_NODE_PARAMS = zeroed();
        check!(cuGraphMemsetNodeGetParams(memset_node, &mut read_memset));
        println!(
            "memset node: {} elements of {} bytes",
            read_memset.width, read_memset.elementSize
        );
        check!(cuGraphMemcpyNodeSetParams(memcpy_node, &copy_params));
        let mut read_copy: CUDA_MEMCPY3D = zeroed();
        check!(cuGraphMemcpyNodeGetParams(memcpy_node, &mut read_copy));
        println!("memcpy node: {} bytes", read_copy.WidthInBytes);
        check!(cuGraphHostNodeSetParams(host_node, &host_params));
        let mut read_host: CUDA_HOST_NODE_PARAMS = zeroed();
        check!(cuGraphHostNodeGetParams(host_node, &mut read_host));
        let host_fn = |p: &CUDA_HOST_NODE_PARAMS| p.fn_.map(|f| f as *const ());
        expect(
            host_fn(&read_host) == host_fn(&host_params)
                && read_host.userData == host_params.userData,
            "the host node's function and data",
        );
        let mut embedded: CUgraph = ptr::null_mut();
        check!(cuGraphChildGraphNodeGetGraph(child_node, &mut embedded));
        let mut count: usize = 0;
        check!(cuGraphGetNodes(embedded, ptr::null_mut(), &mut count));
        println!("child graph node: a graph of {} node", count);
        let mut read_event: CUevent = ptr::null_mut();
        check!(cuGraphEventRecordNodeSetEvent(record_node, event));
        check!(cuGraphEventRecordNodeGetEvent(record_node, &mut read_event));
        expect(read_event == event, "the event record node's event");
        check!(cuGraphEventWaitNodeSetEvent(wait_node, event));
        check!(cuGraphEventWaitNodeGetEvent(wait_node, &mut read_event));
        expect(read_event == event, "the event wait node's event");
        // (Through the node parameters' pointer to it, as the driver reads it.)
        (*batch_params.paramArray).writeValue.__bindgen_anon_1.value = 32;
        check!(cuGraphBatchMemOpNodeSetParams(batch_node, &batch_params));
        let mut read_batch: CUDA_BATCH_MEM_OP_NODE_PARAMS = zeroed();
        check!(cuGraphBatchMemOpNodeGetParams(batch_node, &mut read_batch));
        println!(
            "batch memory operation node: {} operation",
            read_batch.count
        );
        let mut read_alloc: CUDA_MEM_ALLOC_NODE_PARAMS = zeroed();
        check!(cuGraphMemAllocNodeGetParams(alloc_node, &mut read_alloc));
        let mut freed: CUdeviceptr = 0;
        check!(cuGraphMemFreeNodeGetParams(free_node, &mut freed));
        println!("allocation node: {} bytes", read_alloc.bytesize);
        expect(
            freed == read_alloc.dptr,
            "the free node frees the allocation",
        );

        // The graph's structure.
        let (mut nodes, mut roots, mut edges): (usize, usize, usize) = (0, 0, 0);
        check!(cuGraphGetNodes(graph, ptr::null_mut(), &mut nodes));
        check!(cuGraphGetRootNodes(graph, ptr::null_mut(), &mut roots));
        println!("the graph: {} nodes, {} roots", nodes, roots);
        let mut all: [CUgraphNode; 32] = [ptr::null_mut(); 32];
        if nodes > 32 {
            nodes = 32;
        }
        check!(cuGraphGetNodes(graph, all.as_mut_ptr(), &mut nodes));
        print!("  types:");
        for node in &all[..nodes] {
            let mut ty = CU_GRAPH_NODE_TYPE_EMPTY;
            check!(cuGraphNodeGetType(*node, &mut ty));
            print!(" {}", ty.0 as c_int);
        }
        println!();
        show(
            "cuGraphNodeGetType",
            cuGraphNodeGetType(kernel_node, ptr::null_mut()),
        );
        let mut from: [CUgraphNode; 32] = [ptr::null_mut(); 32];
        let mut to: [CUgraphNode; 32] = [ptr::null_mut(); 32];
        let mut edge_data: [CUgraphEdgeData; 32] = zeroed();
        #[cfg(feature = "cuda-13000")]
        {
            check!(cuGraphGetEdges(
                graph,
                ptr::null_mut(),
                ptr::null_mut(),
                ptr::null_mut(),
                &mut edges,
            ));
            if edges > 32 {
                edges = 32;
            }
            check!(cuGraphGetEdges(
                graph,
                from.as_mut_ptr(),
                to.as_mut_ptr(),
                edge_data.as_mut_ptr(),
                &mut edges,
            ));
        }
        #[cfg(not(feature = "cuda-13000"))]
        {
            check!(cuGraphGetEdges(
                graph,
                ptr::null_mut(),
                ptr::null_mut(),
                &mut edges
            ));
            if edges > 32 {
                edges = 32;
            }
            check!(cuGraphGetEdges_v2(
                graph,
                from.as_mut_ptr(),
                to.as_mut_ptr(),
                edge_data.as_mut_ptr(),
                &mut edges,
            ));
        }
        let full = edge_data[..edges]
            .iter()
            .filter(|e| e.from_port == 0 && e.to_port == 0 && e.type_ == 0)
            .count();
        println!(
            "  {} edges, {} of them plain (full completion, default type)",
            edges, full
        );
        expect(edges == 9 && full == 9, "the graph's 9 plain edges");
        let (mut deps, mut dependents): (usize, usize) = (0, 0);
        let mut dep_nodes: [CUgraphNode; 4] = [ptr::null_mut(); 4];
        let mut dep_data: [CUgraphEdgeData; 4] = zeroed();
        let mut four: usize = 4;
        #[cfg(feature = "cuda-13000")]
        {
            check!(cuGraphNodeGetDependencies(
                empty_node,
                ptr::null_mut(),
                ptr::null_mut(),
                &mut deps
            ));
            check!(cuGraphNodeGetDependentNodes(
                empty_node,
                ptr::null_mut(),
                ptr::null_mut(),
                &mut dependents,
            ));
            check!(cuGraphNodeGetDependencies(
                empty_node,
                dep_nodes.as_mut_ptr(),
                dep_data.as_mut_ptr(),
                &mut four,
            ));
        }
        #[cfg(not(feature = "cuda-13000"))]
        {
            check!(cuGraphNodeGetDependencies(
                empty_node,
                ptr::null_mut(),
                &mut deps
            ));
            check!(cuGraphNodeGetDependentNodes(
                empty_node,
                ptr::null_mut(),
                &mut dependents
            ));
            check!(cuGraphNodeGetDependencies_v2(
                empty_node,
                dep_nodes.as_mut_ptr(),
                dep_data.as_mut_ptr(),
                &mut four,
            ));
            four = 4;
            check!(cuGraphNodeGetDependentNodes_v2(
                empty_node,
                dep_nodes.as_mut_ptr(),
                dep_data.as_mut_ptr(),
                &mut four,
            ));
        }
        let _ = four;
        println!(
            "  the empty node: {} dependencies, {} dependents",
            deps, dependents
        );
        expect(deps == 2 && dependents == 1, "the empty node's edges");
        // The edge host -> empty removed and added back.
        #[cfg(feature = "cuda-13000")]
        {
            check!(cuGraphRemoveDependencies(
                graph,
                &host_node,
                &empty_node,
                ptr::null(),
                1
            ));
            check!(cuGraphGetEdges(
                graph,
                ptr::null_mut(),
                ptr::null_mut(),
                ptr::null_mut(),
                &mut edges,
            ));
            println!("  {} edges without host -> empty", edges);
            expect(edges == 8, "the edge host -> empty removed");
            check!(cuGraphAddDependencies(
                graph,
                &host_node,
                &empty_node,
                ptr::null(),
                1
            ));
            check!(cuGraphGetEdges(
                graph,
                ptr::null_mut(),
                ptr::null_mut(),
                ptr::null_mut(),
                &mut edges,
            ));
        }
        #[cfg(not(feature = "cuda-13000"))]
        {
            check!(cuGraphRemoveDependencies(graph, &host_node, &empty_node, 1));
            check!(cuGraphGetEdges(
                graph,
                ptr::null_mut(),
                ptr::null_mut(),
                &mut edges
            ));
            println!("  {} edges without host -> empty", edges);
            expect(edges == 8, "the edge host -> empty removed");
            check!(cuGraphAddDependencies(graph, &host_node, &empty_node, 1));
            check!(cuGraphRemoveDependencies_v2(
                graph,
                &host_node,
                &empty_node,
                ptr::null(),
                1
            ));
            check!(cuGraphGetEdges(
                graph,
                ptr::null_mut(),
                ptr::null_mut(),
                &mut edges
            ));
            expect(edges == 8, "the edge host -> empty removed");
            check!(cuGraphAddDependencies_v2(
                graph,
                &host_node,
                &empty_node,
                ptr::null(),
                1
            ));
            check!(cuGraphGetEdges(
                graph,
                ptr::null_mut(),
                ptr::null_mut(),
                &mut edges
            ));
        }
        println!("  {} edges with it again", edges);
        expect(edges == 9, "the edge added back");
        let mut spare: CUgraphNode = ptr::null_mut();
        check!(cuGraphAddEmptyNode(&mut spare, graph, ptr::null(), 0));
        check!(cuGraphDestroyNode(spare));

        // Kernel node attributes: the greatest priority set on one node, copied to another.
        let (mut least, mut greatest): (c_int, c_int) = (0, 0);
        check!(cuCtxGetStreamPriorityRange(&mut least, &mut greatest));
        let mut attr: CUkernelNodeAttrValue = zeroed();
        attr.priority = greatest;
        check!(cuGraphKernelNodeSetAttribute(
            kernel_node,
            CU_KERNEL_NODE_ATTRIBUTE_PRIORITY,
            &attr
        ));
        check!(cuGraphKernelNodeCopyAttributes(child_kernel, kernel_node));
        attr = zeroed();
        check!(cuGraphKernelNodeGetAttribute(
            child_kernel,
            CU_KERNEL_NODE_ATTRIBUTE_PRIORITY,
            &mut attr
        ));
        println!("copied priority: {}", attr.priority);
        expect(
            attr.priority == greatest,
            "the kernel node's priority, copied to another",
        );

        // A clone.
        let mut clone: CUgraph = ptr::null_mut();
        let mut cloned_kernel: CUgraphNode = ptr::null_mut();
        let mut cloned_type = CU_GRAPH_NODE_TYPE_EMPTY;
        check!(cuGraphClone(&mut clone, graph));
        check!(cuGraphNodeFindInClone(
            &mut cloned_kernel,
            kernel_node,
            clone
        ));
        check!(cuGraphNodeGetType(cloned_kernel, &mut cloned_type));
        expect(
            cloned_type == CU_GRAPH_NODE_TYPE_KERNEL,
            "the kernel node found in the clone",
        );

        // Ids and parameters of newer headers.
        #[cfg(feature = "cuda-13010")]
        let mut id: c_uint = 0;
        #[cfg(feature = "cuda-13010")]
        {
            let mut owner: CUgraph = ptr::null_mut();
            let mut local: c_uint = 0;
            let mut tools: u64 = 0;
            match entry::cuGraphNodeGetContainingGraph_v13010.get() {
                Ok(f) => {
                    show("cuGraphNodeGetContainingGraph", f(kernel_node, &mut owner));
                }
                Err(e) => show_missing("cuGraphNodeGetContainingGraph", e),
            }
            match entry::cuGraphNodeGetLocalId_v13010.get() {
                Ok(f) => {
                    show("cuGraphNodeGetLocalId", f(kernel_node, &mut local));
                }
                Err(e) => show_missing("cuGraphNodeGetLocalId", e),
            }
            match entry::cuGraphNodeGetToolsId_v13010.get() {
                Ok(f) => {
                    show("cuGraphNodeGetToolsId", f(kernel_node, &mut tools));
                }
                Err(e) => show_missing("cuGraphNodeGetToolsId", e),
            }
            match entry::cuGraphGetId_v13010.get() {
                Ok(f) => {
                    show("cuGraphGetId", f(graph, &mut id));
                }
                Err(e) => show_missing("cuGraphGetId", e),
            }
        }
        #[cfg(feature = "cuda-13020")]
        {
            let mut read_params: CUgraphNodeParams = zeroed();
            match entry::cuGraphNodeGetParams_v13020.get() {
                Ok(f) => {
                    show("cuGraphNodeGetParams", f(kernel_node, &mut read_params));
                }
                Err(e) => show_missing("cuGraphNodeGetParams", e),
            }
        }

        // Instantiated, uploaded, launched: (0 + 1 + 10) in every element.
        let mut exec: CUgraphExec = ptr::null_mut();
        if !check!(cuGraphInstantiate(&mut exec, graph, 0)) {
            finish();
        }
        let mut exec_flags: cuuint64_t = 1;
        check!(cuGraphExecGetFlags(exec, &mut exec_flags));
        println!("executable graph flags: {:#x}", exec_flags);
        #[cfg(feature = "cuda-13010")]
        match entry::cuGraphExecGetId_v13010.get() {
            Ok(f) => {
                show("cuGraphExecGetId", f(exec, &mut id));
            }
            Err(e) => show_missing("cuGraphExecGetId", e),
        }
        check!(cuGraphUpload(exec, stream));
        launch_and_check(
            "launched (0 + 1 + 10)",
            exec,
            stream,
            copy,
            11,
            &raw const calls,
            1,
            flag,
            32,
        );

        // The executable graph changed node by node: memset 5, kernel +2, the child graph's kernel
        // +20, the copy into other_copy, the host node counting other_calls, the events
        // other_event, the batch operation 64.
        let mut two: c_int = 2;
        let mut five: c_int = 5;
        let mut two_args = [
            arg(&raw mut data as _),
            arg(&raw mut two as _),
            arg(&raw mut n as _),
        ];
        let kp2 = kernel_params(add_value, &mut two_args);
        check!(cuGraphExecKernelNodeSetParams(exec, kernel_node, &kp2));
        let mut memset5 = memset_params;
        memset5.value = 5;
        check!(cuGraphExecMemsetNodeSetParams(
            exec,
            memset_node,
            &memset5,
            ctx
        ));
        check!(cuGraphExecMemcpyNodeSetParams(
            exec,
            memcpy_node,
            &other_copy_params,
            ctx
        ));
        check!(cuGraphExecHostNodeSetParams(
            exec,
            host_node,
            &other_host_params
        ));
        let mut twenty_args = [
            arg(&raw mut data as _),
            arg(&raw mut twenty as _),
            arg(&raw mut n as _),
        ];
        let ckp20 = kernel_params(add_value, &mut twenty_args);
        check!(cuGraphKernelNodeSetParams(child_kernel, &ckp20));
        check!(cuGraphExecChildGraphNodeSetParams(exec, child_node, child));
        check!(cuGraphExecEventRecordNodeSetEvent(
            exec,
            record_node,
            other_event
        ));
        check!(cuGraphExecEventWaitNodeSetEvent(
            exec,
            wait_node,
            other_event
        ));
        // (Through the node parameters' pointer to it, as the driver reads it.)
        (*batch_params.paramArray).writeValue.__bindgen_anon_1.value = 64;
        check!(cuGraphExecBatchMemOpNodeSetParams(
            exec,
            batch_node,
            &batch_params
        ));
        // (Nodes of another graph: the executable graph has none of them, and refuses them.)
        let set = show(
            "cuGraphExecExternalSemaphoresSignalNodeSetParams",
            cuGraphExecExternalSemaphoresSignalNodeSetParams(exec, signal_node, &signal_params),
        );
        expect(!set, "the signal node of another graph refused");
        let set = show(
            "cuGraphExecExternalSemaphoresWaitNodeSetParams",
            cuGraphExecExternalSemaphoresWaitNodeSetParams(exec, sem_wait_node, &wait_params),
        );
        expect(!set, "the wait node of another graph refused");
        launch_and_check(
            "changed node by node (5 + 2 + 20)",
            exec,
            stream,
            other_copy,
            5 + 2 + 20,
            &raw const other_calls,
            1,
            flag,
            64,
        );
        let mut enabled: c_uint = 1;
        check!(cuGraphNodeSetEnabled(exec, kernel_node, 0));
        check!(cuGraphNodeGetEnabled(exec, kernel_node, &mut enabled));
        expect(enabled == 0, "the kernel node disabled");
        launch_and_check(
            "its kernel node disabled (5 + 20)",
            exec,
            stream,
            other_copy,
            5 + 20,
            &raw const other_calls,
            2,
            flag,
            64,
        );
        check!(cuGraphNodeSetEnabled(exec, kernel_node, 1));
        let mut generic: CUgraphNodeParams = zeroed();
        generic.type_ = CU_GRAPH_NODE_TYPE_KERNEL;
        let mut five_args = [
            arg(&raw mut data as _),
            arg(&raw mut five as _),
            arg(&raw mut n as _),
        ];
        {
            let k = &mut generic.__bindgen_anon_1.kernel;
            k.func = add_value;
            k.gridDimX = 1;
            k.gridDimY = 1;
            k.gridDimZ = 1;
            k.blockDimX = N as c_uint;
            k.blockDimY = 1;
            k.blockDimZ = 1;
            k.kernelParams = five_args.as_mut_ptr();
        }
        check!(cuGraphExecNodeSetParams(exec, kernel_node, &mut generic));
        launch_and_check(
            "its kernel node set with cuGraphExecNodeSetParams (5 + 5 + 20)",
            exec,
            stream,
            other_copy,
            5 + 5 + 20,
            &raw const other_calls,
            3,
            flag,
            64,
        );

        // The whole executable graph updated from the graph (its kernel now adds 2).
        check!(cuGraphKernelNodeSetParams(kernel_node, &kp2));
        let mut info: CUgraphExecUpdateResultInfo = zeroed();
        check!(cuGraphExecUpdate(exec, graph, &mut info));
        expect(
            info.result == CU_GRAPH_EXEC_UPDATE_SUCCESS,
            "the executable graph updated",
        );
        // The update takes the graph's memset (0), child graph (+10), copy, host node, events and
        // batch operation (32) again.
        launch_and_check(
            "updated from the graph (0 + 2 + 10)",
            exec,
            stream,
            copy,
            2 + 10,
            &raw const calls,
            2,
            flag,
            32,
        );

        // A graph of cuGraphAddNode, changed with cuGraphNodeSetParams, instantiated with parameters.
        let mut built: CUgraph = ptr::null_mut();
        check!(cuGraphCreate(&mut built, 0));
        let (mut generic_memset, mut generic_kernel) = (null(), null());
        let mut memset_generic: CUgraphNodeParams = zeroed();
        memset_generic.type_ = CU_GRAPH_NODE_TYPE_MEMSET;
        {
            let m = &mut memset_generic.__bindgen_anon_1.memset;
            m.dst = copy;
            m.elementSize = 4;
            m.width = N;
            m.height = 1;
            m.value = 100;
            m.ctx = ctx;
        }
        let mut built_args = [
            arg(&raw mut copy as _),
            arg(&raw mut one as _),
            arg(&raw mut n as _),
        ];
        generic.__bindgen_anon_1.kernel.kernelParams = built_args.as_mut_ptr();
        #[cfg(feature = "cuda-13000")]
        {
            check!(cuGraphAddNode(
                &mut generic_memset,
                built,
                ptr::null(),
                ptr::null(),
                0,
                &mut memset_generic,
            ));
            check!(cuGraphAddNode(
                &mut generic_kernel,
                built,
                &generic_memset,
                ptr::null(),
                1,
                &mut generic,
            ));
        }
        #[cfg(not(feature = "cuda-13000"))]
        {
            check!(cuGraphAddNode(
                &mut generic_memset,
                built,
                ptr::null(),
                0,
                &mut memset_generic,
            ));
            check!(cuGraphAddNode_v2(
                &mut generic_kernel,
                built,
                &generic_memset,
                ptr::null(),
                1,
                &mut generic,
            ));
        }
        let mut built_args2 = [
            arg(&raw mut copy as _),
            arg(&raw mut ten as _),
            arg(&raw mut n as _),
        ];
        generic.__bindgen_anon_1.kernel.kernelParams = built_args2.as_mut_ptr();
        check!(cuGraphNodeSetParams(generic_kernel, &mut generic));
        #[cfg(feature = "cuda-13040")]
        {
            let mut extra_node: CUgraphNode = ptr::null_mut();
            let mut empty_generic: CUgraphNodeParams = zeroed();
            empty_generic.type_ = CU_GRAPH_NODE_TYPE_EMPTY;
            match entry::cuGraphAddNode_v13040.get() {
                Ok(f) => {
                    show(
                        "cuGraphAddNode_v3",
                        f(
                            &mut extra_node,
                            built,
                            ptr::null(),
                            ptr::null(),
                            0,
                            &mut empty_generic,
                        ),
                    );
                }
                Err(e) => show_missing("cuGraphAddNode_v3", e),
            }
            match entry::cuGraphNodeSetParams_v13040.get() {
                Ok(f) => {
                    show("cuGraphNodeSetParams_v2", f(generic_kernel, &mut generic));
                }
                Err(e) => show_missing("cuGraphNodeSetParams_v2", e),
            }
        }
        let mut instantiate: CUDA_GRAPH_INSTANTIATE_PARAMS = zeroed();
        instantiate.flags = CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD.0 as cuuint64_t;
        instantiate.hUploadStream = stream;
        let mut built_exec: CUgraphExec = ptr::null_mut();
        check!(cuGraphInstantiateWithParams(
            &mut built_exec,
            built,
            &mut instantiate
        ));
        println!(
            "cuGraphInstantiateWithParams: result {}",
            instantiate.result_out.0 as c_int
        );
        expect(
            instantiate.result_out == CUDA_GRAPH_INSTANTIATE_SUCCESS,
            "the graph of cuGraphAddNode instantiated",
        );
        launch_and_check(
            "the graph of cuGraphAddNode (100 + 10)",
            built_exec,
            stream,
            copy,
            110,
            &raw const calls,
            2,
            flag,
            32,
        );

        // User objects: one reference moved to the graph, one kept and released.
        let mut object: CUuserObject = ptr::null_mut();
        let mut owned: c_int = 0;
        check!(cuUserObjectCreate(
            &mut object,
            &raw mut owned as *mut c_void,
            Some(destroy_object),
            1,
            CU_USER_OBJECT_NO_DESTRUCTOR_SYNC.0,
        ));
        check!(cuUserObjectRetain(object, 1));
        check!(cuGraphRetainUserObject(
            graph,
            object,
            1,
            CU_GRAPH_USER_OBJECT_MOVE.0
        ));
        check!(cuGraphRetainUserObject(built, object, 1, 0));
        check!(cuGraphReleaseUserObject(built, object, 1));
        check!(cuUserObjectRelease(object, 1));

        // Graph memory: the allocation graph run once and the memory it reserved; then the memory
        // no graph uses released (cuDeviceGraphMemTrim: until then the freed allocation's memory
        // may still count as in use, and on an H200 a reset right after the run left the high
        // watermark where it was), and the high watermark of the memory in use, read after the
        // trim, reset, which must lower it (the values printed). Then the DOT output.
        let mut memory_exec: CUgraphExec = ptr::null_mut();
        if check!(cuGraphInstantiate(&mut memory_exec, memory_graph, 0)) {
            launch_and_check(
                "the allocation graph (7 + 1)",
                memory_exec,
                stream,
                copy,
                7 + 1,
                &raw const calls,
                2,
                flag,
                32,
            );
            check!(cuGraphExecDestroy(memory_exec));
        }
        let (mut reserved, mut used, mut in_use, mut used_after, mut zero): (
            cuuint64_t,
            cuuint64_t,
            cuuint64_t,
            cuuint64_t,
            cuuint64_t,
        ) = (0, 0, 0, 0, 0);
        check!(cuDeviceGetGraphMemAttribute(
            device,
            CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH,
            &raw mut reserved as *mut c_void,
        ));
        expect(reserved > 0, "graph memory reserved at its high watermark");
        check!(cuDeviceGraphMemTrim(device));
        check!(cuDeviceGetGraphMemAttribute(
            device,
            CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT,
            &raw mut in_use as *mut c_void,
        ));
        check!(cuDeviceGetGraphMemAttribute(
            device,
            CU_GRAPH_MEM_ATTR_USED_MEM_HIGH,
            &raw mut used as *mut c_void,
        ));
        check!(cuDeviceSetGraphMemAttribute(
            device,
            CU_GRAPH_MEM_ATTR_USED_MEM_HIGH,
            &raw mut zero as *mut c_void,
        ));
        check!(cuDeviceGetGraphMemAttribute(
            device,
            CU_GRAPH_MEM_ATTR_USED_MEM_HIGH,
            &raw mut used_after as *mut c_void,
        ));
        println!(
            "graph memory in use after the trim: {in_use}, its high watermark {used}, {used_after} after its reset"
        );
        expect(
            used > 0 && used_after < used,
            "the high watermark of graph memory in use, reset",
        );
        let dot = format!("/tmp/graph_nodes-{}.dot", std::process::id());
        let dot_c = CString::new(dot.clone()).expect("no NUL in the path");
        check!(cuGraphDebugDotPrint(
            graph,
            dot_c.as_ptr(),
            CU_GRAPH_DEBUG_DOT_FLAGS_VERBOSE.0
        ));
        let text = std::fs::read_to_string(&dot).unwrap_or_default();
        let _ = std::fs::remove_file(&dot);
        expect(text.starts_with("digraph"), "the DOT output is a digraph");

        check!(cuGraphExecDestroy(built_exec));
        check!(cuGraphExecDestroy(exec));
        check!(cuGraphDestroy(built));
        check!(cuGraphDestroy(clone));
        check!(cuGraphDestroy(sem_graph));
        check!(cuGraphDestroy(memory_graph));
        check!(cuGraphDestroy(graph));
        check!(cuGraphDestroy(child));
        check!(cuEventDestroy(other_event));
        check!(cuEventDestroy(event));
        check!(cuMemFree(flag));
        check!(cuMemFree(other_copy));
        check!(cuMemFree(copy));
        check!(cuMemFree(data));
        check!(cuStreamDestroy(stream));
        check!(cuModuleUnload(module));
        check!(cuDevicePrimaryCtxRelease(device));
        finish()
    }
}
