//! Conditional graph nodes written with driver calls, in the manner of NVIDIA's
//! graphConditionalNodes sample: an IF node whose condition a kernel upstream sets, an IF node with
//! an ELSE graph and a SWITCH node (CUDA 12.8 headers), a WHILE loop whose body counts down and
//! sets the condition, and a WHILE loop whose body is captured from a stream into the node's graph
//! (cuStreamBeginCaptureToGraph). Every node is added with cuGraphAddNode and CUgraphNodeParams;
//! each graph runs for several values, and what the bodies wrote is checked on the host. Each
//! graph ends with a kernel that counts its runs, so that a launch that did not happen shows where
//! no body writes; each run's inputs, its launch and the copy of its results are queued in one
//! stream after a delay, so that the results are certainly not there before the synchronisation.
//! C twin: graph_conditional.cpp.
//! Kernels: examples/kernels/graphs.ptx, from graphs.cu; argv[1] is the kernels folder.
#![allow(clippy::needless_range_loop)] // C's index loops, as the twin writes them

#[path = "common/mod.rs"]
mod common;

use std::ffi::{c_int, c_uint, c_void};
use std::mem::{size_of, zeroed};
use std::process::exit;
use std::ptr;

use common::{check, delay, expect, finish, get_function, load_module, primary_context};
use cuda_driver_sys::*;

/// cuGraphAddNode: the CUDA 13 form takes the edges' data (NULL: none) after the dependencies.
unsafe fn add_node(
    node: &mut CUgraphNode,
    graph: CUgraph,
    deps: *const CUgraphNode,
    count: usize,
    params: &mut CUgraphNodeParams,
) -> CUresult {
    unsafe {
        #[cfg(feature = "cuda-13000")]
        let code = cuGraphAddNode(node, graph, deps, ptr::null(), count, params);
        #[cfg(not(feature = "cuda-13000"))]
        let code = cuGraphAddNode(node, graph, deps, count, params);
        code
    }
}

/// Adds a one-thread kernel node running `f` with `args` after `deps`.
unsafe fn add_kernel(
    graph: CUgraph,
    deps: *const CUgraphNode,
    count: usize,
    f: CUfunction,
    args: &mut [*mut c_void],
) -> CUgraphNode {
    unsafe {
        let mut params: CUgraphNodeParams = zeroed();
        params.type_ = CU_GRAPH_NODE_TYPE_KERNEL;
        let kernel = &mut params.__bindgen_anon_1.kernel;
        kernel.func = f;
        kernel.gridDimX = 1;
        kernel.gridDimY = 1;
        kernel.gridDimZ = 1;
        kernel.blockDimX = 1;
        kernel.blockDimY = 1;
        kernel.blockDimZ = 1;
        kernel.kernelParams = args.as_mut_ptr();
        let mut node: CUgraphNode = ptr::null_mut();
        check!(add_node(&mut node, graph, deps, count, &mut params));
        node
    }
}

/// Adds a conditional node of `ty` with `size` body graphs after `deps`; the bodies in `bodies`.
#[allow(clippy::too_many_arguments)] // the twin's parameters
unsafe fn add_conditional(
    graph: CUgraph,
    deps: *const CUgraphNode,
    count: usize,
    ctx: CUcontext,
    handle: CUgraphConditionalHandle,
    ty: CUgraphConditionalNodeType,
    size: c_uint,
    bodies: &mut [CUgraph],
) -> CUgraphNode {
    unsafe {
        let mut params: CUgraphNodeParams = zeroed();
        params.type_ = CU_GRAPH_NODE_TYPE_CONDITIONAL;
        let conditional = &mut params.__bindgen_anon_1.conditional;
        conditional.handle = handle;
        conditional.type_ = ty;
        conditional.size = size;
        conditional.ctx = ctx;
        let mut node: CUgraphNode = ptr::null_mut();
        check!(add_node(&mut node, graph, deps, count, &mut params));
        let out = params.__bindgen_anon_1.conditional.phGraph_out;
        for i in 0..size as usize {
            bodies[i] = if out.is_null() {
                ptr::null_mut()
            } else {
                *out.add(i)
            };
        }
        node
    }
}

/// Adds the last node of each graph after `node`: `add_value(ran, 1, 1)`, which counts its runs.
unsafe fn count_runs(
    graph: CUgraph,
    node: CUgraphNode,
    add_value: CUfunction,
    mut ran: CUdeviceptr,
) {
    unsafe {
        let mut one: c_int = 1;
        let mut args: [*mut c_void; 3] = [
            (&raw mut ran).cast(),
            (&raw mut one).cast(),
            (&raw mut one).cast(),
        ];
        add_kernel(graph, &node, 1, add_value, &mut args);
    }
}

/// A graph of a kernel `setter(handle, value)` setting a new conditional handle, then a conditional
/// node of `ty` reading it, with `bodies.len()` body graphs (returned in `bodies`), then the
/// count of its runs at `ran`.
unsafe fn set_then_branch(
    ctx: CUcontext,
    setter: CUfunction,
    mut value: CUdeviceptr,
    ty: CUgraphConditionalNodeType,
    bodies: &mut [CUgraph],
    add_value: CUfunction,
    ran: CUdeviceptr,
) -> CUgraph {
    unsafe {
        let mut graph: CUgraph = ptr::null_mut();
        let mut handle: CUgraphConditionalHandle = 0;
        check!(cuGraphCreate(&mut graph, 0));
        check!(cuGraphConditionalHandleCreate(
            &mut handle,
            graph,
            ctx,
            0,
            0
        ));
        let mut set_args: [*mut c_void; 2] = [(&raw mut handle).cast(), (&raw mut value).cast()];
        let node = add_kernel(graph, ptr::null(), 0, setter, &mut set_args);
        let size = bodies.len() as c_uint;
        let branch = add_conditional(graph, &node, 1, ctx, handle, ty, size, bodies);
        count_runs(graph, branch, add_value, ran);
        graph
    }
}

/// Instantiates `graph`, runs it once for each of `values` and checks `out` against `expected`
/// and that the graph ran once; destroys both. Each run, in `stream`: the words at `io` (the value,
/// `out` and the count of runs) copied from the page-locked `host[..3]` (the value, 0, 0), a delay,
/// the launch, and the words copied back to `host[3..]`.
unsafe fn run(
    what: &str,
    graph: CUgraph,
    stream: CUstream,
    io: CUdeviceptr,
    host: *mut c_int,
    values: &[c_int],
    expected: &[c_int],
) {
    unsafe {
        let mut exec: CUgraphExec = ptr::null_mut();
        if !check!(cuGraphInstantiate(&mut exec, graph, 0)) {
            check!(cuGraphDestroy(graph));
            return;
        }
        let (input, output) = (host, host.add(3));
        let bytes = 3 * size_of::<c_int>();
        for r in 0..values.len() {
            *input = values[r];
            *input.add(1) = 0;
            *input.add(2) = 0;
            for i in 0..3 {
                *output.add(i) = -1;
            }
            check!(cuMemcpyHtoDAsync(io, input.cast(), bytes, stream));
            delay(stream);
            check!(cuGraphLaunch(exec, stream));
            check!(cuMemcpyDtoHAsync(output.cast(), io, bytes, stream));
            check!(cuStreamSynchronize(stream));
            let (got, ran) = (
                ptr::read_volatile(output.add(1)),
                ptr::read_volatile(output.add(2)),
            );
            println!("{what}, value {}: {got}", values[r]);
            expect(got == expected[r] && ran == 1, what);
        }
        check!(cuGraphExecDestroy(exec));
        check!(cuGraphDestroy(graph));
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
        let set_if = get_function(module, c"set_if");
        let set_switch = get_function(module, c"set_switch");
        let loop_step = get_function(module, c"loop_step");
        let write_value = get_function(module, c"write_value");
        let add_value = get_function(module, c"add_value");
        if [set_if, set_switch, loop_step, write_value, add_value]
            .iter()
            .any(|f| f.is_null())
        {
            finish();
        }
        let mut stream: CUstream = ptr::null_mut();
        check!(cuStreamCreate(&mut stream, CU_STREAM_NON_BLOCKING.0));
        // The value, what the bodies write and the count of runs: three words on the device, and
        // page-locked host words the runs copy them from and to.
        let mut io: CUdeviceptr = 0;
        check!(cuMemAlloc(&mut io, 3 * size_of::<c_int>()));
        let (mut value, mut out, ran) = (io, io + 4, io + 8);
        let mut host: *mut c_void = ptr::null_mut();
        if !check!(cuMemAllocHost(&mut host, 6 * size_of::<c_int>())) {
            finish();
        }
        let host = host.cast::<c_int>();
        let mut one: c_int = 1;
        #[cfg(feature = "cuda-12080")]
        let mut two: c_int = 2;
        let arg = |p: *mut c_void| p;

        // IF: the body writes 1 when the value is nonzero.
        {
            let mut body: [CUgraph; 1] = [ptr::null_mut(); 1];
            let graph = set_then_branch(
                ctx,
                set_if,
                value,
                CU_GRAPH_COND_TYPE_IF,
                &mut body,
                add_value,
                ran,
            );
            let mut then_args = [arg(&raw mut out as _), arg(&raw mut one as _)];
            add_kernel(body[0], ptr::null(), 0, write_value, &mut then_args);
            run("if", graph, stream, io, host, &[1, 0, 7], &[1, 0, 1]);
        }
        #[cfg(feature = "cuda-12080")]
        {
            // IF with ELSE: 1 when the value is nonzero, else 2.
            {
                let mut body: [CUgraph; 2] = [ptr::null_mut(); 2];
                let graph = set_then_branch(
                    ctx,
                    set_if,
                    value,
                    CU_GRAPH_COND_TYPE_IF,
                    &mut body,
                    add_value,
                    ran,
                );
                let mut then_args = [arg(&raw mut out as _), arg(&raw mut one as _)];
                add_kernel(body[0], ptr::null(), 0, write_value, &mut then_args);
                let mut else_args = [arg(&raw mut out as _), arg(&raw mut two as _)];
                add_kernel(body[1], ptr::null(), 0, write_value, &mut else_args);
                run("if/else", graph, stream, io, host, &[1, 0], &[1, 2]);
            }
            // SWITCH: body n writes 10 * (n + 1); no body for a value of 3 or more.
            {
                let mut body: [CUgraph; 3] = [ptr::null_mut(); 3];
                let graph = set_then_branch(
                    ctx,
                    set_switch,
                    value,
                    CU_GRAPH_COND_TYPE_SWITCH,
                    &mut body,
                    add_value,
                    ran,
                );
                let mut written: [c_int; 3] = [10, 20, 30];
                for i in 0..3 {
                    let mut case_args = [arg(&raw mut out as _), arg(&raw mut written[i] as _)];
                    add_kernel(body[i], ptr::null(), 0, write_value, &mut case_args);
                }
                run(
                    "switch",
                    graph,
                    stream,
                    io,
                    host,
                    &[2, 0, 1, 5],
                    &[30, 10, 20, 0],
                );
            }
        }
        // WHILE: the condition starts at 1 on each launch (CU_GRAPH_COND_ASSIGN_DEFAULT); the body
        // counts `value` down and runs as many times. The second loop's body is captured.
        for captured in 0..2 {
            let mut graph: CUgraph = ptr::null_mut();
            let mut body: [CUgraph; 1] = [ptr::null_mut(); 1];
            let mut handle: CUgraphConditionalHandle = 0;
            check!(cuGraphCreate(&mut graph, 0));
            check!(cuGraphConditionalHandleCreate(
                &mut handle,
                graph,
                ctx,
                1,
                CU_GRAPH_COND_ASSIGN_DEFAULT as c_uint,
            ));
            let looped = add_conditional(
                graph,
                ptr::null(),
                0,
                ctx,
                handle,
                CU_GRAPH_COND_TYPE_WHILE,
                1,
                &mut body,
            );
            count_runs(graph, looped, add_value, ran);
            let mut step_args = [
                arg(&raw mut handle as _),
                arg(&raw mut value as _),
                arg(&raw mut out as _),
            ];
            if captured == 0 {
                add_kernel(body[0], ptr::null(), 0, loop_step, &mut step_args);
            } else {
                let mut capture: CUstream = ptr::null_mut();
                let mut result: CUgraph = ptr::null_mut();
                check!(cuStreamCreate(&mut capture, CU_STREAM_NON_BLOCKING.0));
                check!(cuStreamBeginCaptureToGraph(
                    capture,
                    body[0],
                    ptr::null(),
                    ptr::null(),
                    0,
                    CU_STREAM_CAPTURE_MODE_GLOBAL,
                ));
                check!(cuLaunchKernel(
                    loop_step,
                    1,
                    1,
                    1,
                    1,
                    1,
                    1,
                    0,
                    capture,
                    step_args.as_mut_ptr(),
                    ptr::null_mut(),
                ));
                check!(cuStreamEndCapture(capture, &mut result));
                let mut nodes: usize = 0;
                check!(cuGraphGetNodes(body[0], ptr::null_mut(), &mut nodes));
                expect(
                    result == body[0] && nodes == 1,
                    "captured into the body graph",
                );
                check!(cuStreamDestroy(capture));
                if nodes != 1 {
                    // An empty body would loop for ever.
                    check!(cuGraphDestroy(graph));
                    continue;
                }
            }
            run(
                if captured == 1 {
                    "while (captured body), iterations"
                } else {
                    "while, iterations"
                },
                graph,
                stream,
                io,
                host,
                &[5, 1, 3],
                &[5, 1, 3],
            );
        }

        check!(cuMemFreeHost(host.cast()));
        check!(cuMemFree(io));
        check!(cuStreamDestroy(stream));
        check!(cuModuleUnload(module));
        check!(cuDevicePrimaryCtxRelease(device));
        finish()
    }
}
