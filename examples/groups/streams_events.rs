//! The stream and event groups of the Driver API: streams with flags and priorities and what they
//! report (flags, priority, id, device, context), stream attributes set, read and copied, a host
//! callback, managed memory attached to a stream, waits on events; stream capture (capture mode
//! exchanged, capture info and dependencies read and updated, a capture into an existing graph),
//! the captured graphs run and their results checked; events with each creation flag, recorded
//! with flags, queried, synchronized and timed. Functions of headers newer than the GPU driver
//! (CUDA 13.2's capture to a CIG, 13.3's recapture) are looked up with the typed cuGetProcAddress
//! (`entry`): where the driver has none, the program prints what its lookup answered. Where the
//! effect of a call is an order (a wait, a synchronisation), the program makes the wrong order
//! certain without it: the stream waited for is delayed ([`common::delay`], or a kernel that spins
//! first), and what the later work found is copied out and checked. The argument control
//! `wrong_stream` records the timing start event on another stream, which the output does not
//! show. C twin: streams_events.cpp.
//! Kernels: examples/kernels/graphs.ptx (add_value) and late_write.ptx (late_fill); argv[1] is
//! the kernels folder.

#[path = "common/mod.rs"]
mod common;

use std::ffi::{c_int, c_uint, c_ulonglong, c_void};
use std::mem::{size_of, zeroed};
use std::process::exit;
use std::ptr;

#[cfg(feature = "cuda-13020")]
use common::show_missing;
use common::{check, control, delay, expect, expect_idle, finish, get_function};
use common::{load_module, primary_context, show};
use cuda_driver_sys::*;

/// A stream callback: counts its calls.
unsafe extern "C" fn count_call(_stream: CUstream, status: CUresult, user_data: *mut c_void) {
    if status == CUDA_SUCCESS {
        unsafe { *(user_data as *mut c_int) += 1 };
    }
}

const N: usize = 256;
/// What every element of the data holds before the three kernels add to it.
const START: c_int = 100;
/// How long the second stream's kernel waits before it writes: well within a delay.
const SPIN_NS: u64 = 50_000_000;

/// Enqueues add_value(data, value, N) on `stream`.
unsafe fn add(add_value: CUfunction, stream: CUstream, mut data: CUdeviceptr, mut value: c_int) {
    unsafe {
        let mut n = N as c_int;
        let mut args: [*mut c_void; 3] = [
            &raw mut data as *mut c_void,
            &raw mut value as *mut c_void,
            &raw mut n as *mut c_void,
        ];
        check!(cuLaunchKernel(
            add_value,
            1,
            1,
            1,
            N as c_uint,
            1,
            1,
            0,
            stream,
            args.as_mut_ptr(),
            ptr::null_mut(),
        ));
    }
}

/// Zeroes `data` and runs `graph` once, on `stream` after a delay, and checks every element equals
/// `expected`.
unsafe fn run_and_check(
    what: &str,
    graph: CUgraph,
    stream: CUstream,
    data: CUdeviceptr,
    expected: c_int,
) {
    unsafe {
        let mut exec: CUgraphExec = ptr::null_mut();
        delay(stream);
        check!(cuMemsetD32Async(data, 0, N, stream));
        if !check!(cuGraphInstantiate(&mut exec, graph, 0)) {
            return;
        }
        check!(cuGraphLaunch(exec, stream));
        check!(cuStreamSynchronize(stream));
        let mut host = [0 as c_int; N];
        check!(cuMemcpyDtoH(
            host.as_mut_ptr() as *mut c_void,
            data,
            size_of::<[c_int; N]>(),
        ));
        println!("{what}: element 0 is {}", host[0]);
        expect(host.iter().all(|&h| h == expected), what);
        check!(cuGraphExecDestroy(exec));
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
        let late = load_module("late_write.ptx");
        let late_fill = get_function(late, c"late_fill");
        if add_value.is_null() || late_fill.is_null() {
            finish();
        }
        // The data, and what the second and third kernels found there (N words each) and the
        // word the spinning kernel marks.
        let (mut data, mut seen): (CUdeviceptr, CUdeviceptr) = (0, 0);
        check!(cuMemAlloc(&mut data, N * size_of::<c_int>()));
        check!(cuMemAlloc(&mut seen, (2 * N + 1) * size_of::<c_int>()));

        // Streams and what they report.
        let (mut least, mut greatest): (c_int, c_int) = (0, 0);
        check!(cuCtxGetStreamPriorityRange(&mut least, &mut greatest));
        let mut plain: CUstream = ptr::null_mut();
        let mut urgent: CUstream = ptr::null_mut();
        let mut copy: CUstream = ptr::null_mut();
        check!(cuStreamCreate(&mut plain, CU_STREAM_NON_BLOCKING.0));
        check!(cuStreamCreateWithPriority(
            &mut urgent,
            CU_STREAM_NON_BLOCKING.0,
            greatest
        ));
        check!(cuStreamCreate(&mut copy, CU_STREAM_DEFAULT.0));
        let mut flags: c_uint = 0;
        let mut priority: c_int = 0;
        check!(cuStreamGetFlags(plain, &mut flags));
        println!("stream flags: {}", flags);
        check!(cuStreamGetPriority(urgent, &mut priority));
        expect(priority == greatest, "the stream's priority");
        let (mut id_plain, mut id_urgent): (c_ulonglong, c_ulonglong) = (0, 0);
        check!(cuStreamGetId(plain, &mut id_plain));
        check!(cuStreamGetId(urgent, &mut id_urgent));
        expect(id_plain != id_urgent, "two streams' ids differ");
        let mut stream_device: CUdevice = -1;
        check!(cuStreamGetDevice(plain, &mut stream_device));
        expect(stream_device == device, "the stream's device");
        let mut stream_ctx: CUcontext = ptr::null_mut();
        let mut stream_green: CUgreenCtx = ptr::null_mut();
        check!(cuStreamGetCtx(plain, &mut stream_ctx));
        expect(stream_ctx == ctx, "the stream's context");
        stream_ctx = ptr::null_mut();
        check!(cuStreamGetCtx_v2(plain, &mut stream_ctx, &mut stream_green));
        expect(
            stream_ctx == ctx && stream_green.is_null(),
            "the stream's context, and no green context",
        );

        // Attributes.
        let mut value: CUstreamAttrValue = zeroed();
        value.syncPolicy = CU_SYNC_POLICY_YIELD;
        check!(cuStreamSetAttribute(
            plain,
            CU_STREAM_ATTRIBUTE_SYNCHRONIZATION_POLICY,
            &value
        ));
        value = zeroed();
        value.accessPolicyWindow.base_ptr = data as *mut c_void;
        value.accessPolicyWindow.num_bytes = N * size_of::<c_int>();
        value.accessPolicyWindow.hitRatio = 1.0;
        value.accessPolicyWindow.hitProp = CU_ACCESS_PROPERTY_PERSISTING;
        value.accessPolicyWindow.missProp = CU_ACCESS_PROPERTY_STREAMING;
        check!(cuStreamSetAttribute(
            plain,
            CU_STREAM_ATTRIBUTE_ACCESS_POLICY_WINDOW,
            &value
        ));
        value = zeroed();
        value.memSyncDomain = CU_LAUNCH_MEM_SYNC_DOMAIN_REMOTE;
        check!(cuStreamSetAttribute(
            plain,
            CU_STREAM_ATTRIBUTE_MEM_SYNC_DOMAIN,
            &value
        ));
        check!(cuStreamCopyAttributes(copy, plain));
        value = zeroed();
        check!(cuStreamGetAttribute(
            copy,
            CU_STREAM_ATTRIBUTE_SYNCHRONIZATION_POLICY,
            &mut value
        ));
        expect(
            value.syncPolicy == CU_SYNC_POLICY_YIELD,
            "the synchronization policy copied",
        );
        value = zeroed();
        check!(cuStreamGetAttribute(
            copy,
            CU_STREAM_ATTRIBUTE_ACCESS_POLICY_WINDOW,
            &mut value
        ));
        expect(
            value.accessPolicyWindow.num_bytes == N * size_of::<c_int>(),
            "the access policy window copied",
        );
        value = zeroed();
        check!(cuStreamGetAttribute(
            urgent,
            CU_STREAM_ATTRIBUTE_PRIORITY,
            &mut value
        ));
        expect(value.priority == greatest, "the priority attribute");
        value = zeroed();
        check!(cuStreamGetAttribute(
            plain,
            CU_STREAM_ATTRIBUTE_MEM_SYNC_DOMAIN,
            &mut value
        ));
        expect(
            value.memSyncDomain == CU_LAUNCH_MEM_SYNC_DOMAIN_REMOTE,
            "the memory synchronization domain set",
        );

        // Work, callbacks, events and waits: the data set to START, then a kernel on plain adds 1,
        // one on urgent after it adds 2, one on plain after that adds 4. Before its kernel, each
        // of the later two copies what the data holds; plain is delayed before its first kernel,
        // and urgent spins before its own (marking the last word of seen): where a wait does not
        // happen, the copy certainly comes before the kernel waited for. The interprocess event,
        // recorded behind one more delay, is still pending right after; timing_end's and the
        // stream's synchronisations are seen in the queries after them.
        let mut timing_start: CUevent = ptr::null_mut();
        let mut timing_end: CUevent = ptr::null_mut();
        let mut blocking: CUevent = ptr::null_mut();
        let mut no_timing: CUevent = ptr::null_mut();
        let mut interprocess: CUevent = ptr::null_mut();
        check!(cuEventCreate(&mut timing_start, CU_EVENT_DEFAULT.0));
        check!(cuEventCreate(&mut timing_end, CU_EVENT_DEFAULT.0));
        check!(cuEventCreate(&mut blocking, CU_EVENT_BLOCKING_SYNC.0));
        check!(cuEventCreate(&mut no_timing, CU_EVENT_DISABLE_TIMING.0));
        check!(cuEventCreate(
            &mut interprocess,
            CU_EVENT_INTERPROCESS.0 | CU_EVENT_DISABLE_TIMING.0,
        ));
        let mut calls: c_int = 0;
        let timed = if control("wrong_stream") { copy } else { plain };
        check!(cuEventRecord(timing_start, timed));
        delay(plain);
        check!(cuMemsetD32Async(data, START as c_uint, N, plain));
        add(add_value, plain, data, 1);
        check!(cuEventRecordWithFlags(
            no_timing,
            plain,
            CU_EVENT_RECORD_DEFAULT.0
        ));
        let bytes = N * size_of::<c_int>();
        check!(cuStreamWaitEvent(
            urgent,
            no_timing,
            CU_EVENT_WAIT_DEFAULT.0
        ));
        check!(cuMemcpyDtoDAsync(seen, data, bytes, urgent));
        let mut mark = seen + 2 * bytes as CUdeviceptr;
        let (mut one, mut ns) = (1 as c_uint, SPIN_NS);
        let mut spin_args: [*mut c_void; 4] = [
            (&raw mut mark).cast(),
            (&raw mut one).cast(),
            (&raw mut one).cast(),
            (&raw mut ns).cast(),
        ];
        check!(cuLaunchKernel(
            late_fill,
            1,
            1,
            1,
            1,
            1,
            1,
            0,
            urgent,
            spin_args.as_mut_ptr(),
            ptr::null_mut()
        ));
        add(add_value, urgent, data, 2);
        check!(cuEventRecord(blocking, urgent));
        check!(cuStreamWaitEvent(plain, blocking, 0));
        check!(cuMemcpyDtoDAsync(
            seen + bytes as CUdeviceptr,
            data,
            bytes,
            plain
        ));
        add(add_value, plain, data, 4);
        check!(cuStreamAddCallback(
            plain,
            Some(count_call),
            &raw mut calls as *mut c_void,
            0
        ));
        check!(cuEventRecord(timing_end, plain));
        delay(plain);
        check!(cuEventRecord(interprocess, plain));
        expect(
            cuEventQuery(interprocess) == CUDA_ERROR_NOT_READY,
            "the interprocess event pending while its stream runs",
        );
        check!(cuEventSynchronize(timing_end));
        check!(cuEventQuery(timing_end));
        check!(cuStreamSynchronize(plain));
        check!(cuStreamQuery(plain));
        println!("callback calls: {}", calls);
        let mut ms: f32 = -1.0;
        check!(cuEventElapsedTime(&mut ms, timing_start, timing_end));
        expect(ms >= 0.0, "an elapsed time measured");
        #[cfg(not(feature = "cuda-13000"))]
        {
            ms = -1.0;
            check!(cuEventElapsedTime_v2(&mut ms, timing_start, timing_end));
            expect(ms >= 0.0, "an elapsed time measured (v2)");
        }
        show(
            "cuEventElapsedTime(DISABLE_TIMING)",
            cuEventElapsedTime(&mut ms, timing_start, no_timing),
        );
        let mut host = [0 as c_int; N];
        check!(cuMemcpyDtoH(
            host.as_mut_ptr() as *mut c_void,
            data,
            size_of::<[c_int; N]>(),
        ));
        let mut found = [0 as c_int; 2 * N + 1];
        check!(cuMemcpyDtoH(
            found.as_mut_ptr() as *mut c_void,
            seen,
            size_of::<[c_int; 2 * N + 1]>(),
        ));
        println!(
            "three kernels on two streams, ordered by events: {}",
            host[0]
        );
        let (second, third) = found[..2 * N].split_at(N);
        expect(
            host.iter().all(|&h| h == START + 7)
                && second.iter().all(|&h| h == START + 1)
                && third.iter().all(|&h| h == START + 3)
                && found[2 * N] == 1,
            "three kernels ordered by events",
        );
        expect(calls == 1, "the callback ran once");

        // Managed memory attached to one stream.
        let mut managed: CUdeviceptr = 0;
        check!(cuMemAllocManaged(
            &mut managed,
            4096,
            CU_MEM_ATTACH_GLOBAL.0
        ));
        delay(plain);
        check!(cuStreamAttachMemAsync(
            plain,
            managed,
            0,
            CU_MEM_ATTACH_SINGLE.0
        ));
        check!(cuStreamSynchronize(plain));
        expect_idle(plain, "the attachment done after cuStreamSynchronize");
        let managed_ptr = managed as *mut c_int;
        managed_ptr.write_volatile(5);
        delay(plain);
        add(add_value, plain, managed, 1);
        check!(cuStreamSynchronize(plain));
        let attached = managed_ptr.read_volatile();
        println!("managed memory attached to the stream: {}", attached);
        expect(attached == 6, "managed memory attached to the stream");
        check!(cuMemFree(managed));

        // Stream capture.
        let mut mode = CU_STREAM_CAPTURE_MODE_RELAXED;
        check!(cuThreadExchangeStreamCaptureMode(&mut mode));
        expect(
            mode == CU_STREAM_CAPTURE_MODE_GLOBAL,
            "the thread's capture mode was global",
        );
        check!(cuThreadExchangeStreamCaptureMode(&mut mode));
        let mut status = CU_STREAM_CAPTURE_STATUS_NONE;
        check!(cuStreamIsCapturing(plain, &mut status));
        expect(status == CU_STREAM_CAPTURE_STATUS_NONE, "not capturing yet");
        check!(cuStreamBeginCapture(plain, CU_STREAM_CAPTURE_MODE_GLOBAL));
        add(add_value, plain, data, 1);
        check!(cuStreamIsCapturing(plain, &mut status));
        expect(status == CU_STREAM_CAPTURE_STATUS_ACTIVE, "capturing");
        let mut capture_id: cuuint64_t = 0;
        let mut capturing: CUgraph = ptr::null_mut();
        let mut deps: *const CUgraphNode = ptr::null();
        let mut edge_data: *const CUgraphEdgeData = ptr::null();
        let mut count: usize = 0;
        #[cfg(feature = "cuda-13000")]
        check!(cuStreamGetCaptureInfo(
            plain,
            &mut status,
            &mut capture_id,
            &mut capturing,
            &mut deps,
            &mut edge_data,
            &mut count,
        ));
        #[cfg(not(feature = "cuda-13000"))]
        {
            check!(cuStreamGetCaptureInfo(
                plain,
                &mut status,
                &mut capture_id,
                &mut capturing,
                &mut deps,
                &mut count,
            ));
            check!(cuStreamGetCaptureInfo_v3(
                plain,
                &mut status,
                &mut capture_id,
                &mut capturing,
                &mut deps,
                &mut edge_data,
                &mut count,
            ));
        }
        let _ = edge_data;
        println!("capture info: {} dependency", count);
        expect(
            count == 1 && capture_id != 0 && !capturing.is_null(),
            "the capture's dependency, id and graph",
        );
        // After the second kernel (which depends on the first), the dependencies set back to the
        // first kernel's node, then the second's added: the last kernel depends on both, three
        // edges in all (without either update, two).
        let mut first: CUgraphNode = if count == 1 { *deps } else { ptr::null_mut() };
        add(add_value, plain, data, 10);
        #[cfg(feature = "cuda-13000")]
        check!(cuStreamGetCaptureInfo(
            plain,
            &mut status,
            ptr::null_mut(),
            ptr::null_mut(),
            &mut deps,
            ptr::null_mut(),
            &mut count,
        ));
        #[cfg(not(feature = "cuda-13000"))]
        check!(cuStreamGetCaptureInfo(
            plain,
            &mut status,
            ptr::null_mut(),
            ptr::null_mut(),
            &mut deps,
            &mut count,
        ));
        let mut second: CUgraphNode = if count == 1 { *deps } else { ptr::null_mut() };
        #[cfg(feature = "cuda-13000")]
        check!(cuStreamUpdateCaptureDependencies(
            plain,
            &mut first,
            ptr::null(),
            1,
            CU_STREAM_SET_CAPTURE_DEPENDENCIES.0,
        ));
        #[cfg(not(feature = "cuda-13000"))]
        check!(cuStreamUpdateCaptureDependencies(
            plain,
            &mut first,
            1,
            CU_STREAM_SET_CAPTURE_DEPENDENCIES.0,
        ));
        #[cfg(feature = "cuda-13000")]
        check!(cuStreamUpdateCaptureDependencies(
            plain,
            &mut second,
            ptr::null(),
            1,
            CU_STREAM_ADD_CAPTURE_DEPENDENCIES.0,
        ));
        #[cfg(not(feature = "cuda-13000"))]
        check!(cuStreamUpdateCaptureDependencies_v2(
            plain,
            &mut second,
            ptr::null(),
            1,
            CU_STREAM_ADD_CAPTURE_DEPENDENCIES.0,
        ));
        add(add_value, plain, data, 100);
        let mut captured: CUgraph = ptr::null_mut();
        check!(cuStreamEndCapture(plain, &mut captured));
        let (mut nodes, mut roots, mut edges): (usize, usize, usize) = (0, 0, 0);
        check!(cuGraphGetNodes(captured, ptr::null_mut(), &mut nodes));
        check!(cuGraphGetRootNodes(captured, ptr::null_mut(), &mut roots));
        #[cfg(feature = "cuda-13000")]
        check!(cuGraphGetEdges(
            captured,
            ptr::null_mut(),
            ptr::null_mut(),
            ptr::null_mut(),
            &mut edges
        ));
        #[cfg(not(feature = "cuda-13000"))]
        check!(cuGraphGetEdges(
            captured,
            ptr::null_mut(),
            ptr::null_mut(),
            &mut edges
        ));
        println!("captured {nodes} nodes, {roots} of them roots, {edges} edges");
        expect(
            edges == 3,
            "the last captured kernel after both others, as the dependencies were updated",
        );
        run_and_check("the captured graph", captured, plain, data, 111);

        // A capture into an existing graph, after its node.
        let mut existing: CUgraph = ptr::null_mut();
        let mut empty: CUgraphNode = ptr::null_mut();
        check!(cuGraphCreate(&mut existing, 0));
        check!(cuGraphAddEmptyNode(&mut empty, existing, ptr::null(), 0));
        check!(cuStreamBeginCaptureToGraph(
            plain,
            existing,
            &empty,
            ptr::null(),
            1,
            CU_STREAM_CAPTURE_MODE_THREAD_LOCAL,
        ));
        add(add_value, plain, data, 3);
        let mut same: CUgraph = ptr::null_mut();
        check!(cuStreamEndCapture(plain, &mut same));
        expect(same == existing, "the capture ends in the existing graph");
        run_and_check("the graph captured into", existing, plain, data, 3);
        #[cfg(feature = "cuda-13020")]
        {
            let mut cig: CUstreamCigCaptureParams = zeroed();
            match entry::cuStreamBeginCaptureToCig_v13010.get() {
                Ok(begin_to_cig) => {
                    show("cuStreamBeginCaptureToCig", begin_to_cig(plain, &mut cig));
                }
                Err(e) => show_missing("cuStreamBeginCaptureToCig", e),
            }
            match entry::cuStreamEndCaptureToCig_v13010.get() {
                Ok(end_to_cig) => {
                    show("cuStreamEndCaptureToCig", end_to_cig(plain));
                }
                Err(e) => show_missing("cuStreamEndCaptureToCig", e),
            }
        }
        #[cfg(feature = "cuda-13030")]
        match entry::cuStreamBeginRecaptureToGraph_v13030.get() {
            Ok(recapture) => {
                show(
                    "cuStreamBeginRecaptureToGraph",
                    recapture(
                        plain,
                        CU_STREAM_CAPTURE_MODE_GLOBAL,
                        existing,
                        None,
                        ptr::null_mut(),
                    ),
                );
            }
            Err(e) => show_missing("cuStreamBeginRecaptureToGraph", e),
        }

        check!(cuGraphDestroy(existing));
        check!(cuGraphDestroy(captured));
        check!(cuMemFree(seen));
        let events = [timing_start, timing_end, blocking, no_timing, interprocess];
        for event in events {
            check!(cuEventDestroy(event));
        }
        check!(cuStreamDestroy(copy));
        check!(cuStreamDestroy(urgent));
        check!(cuStreamDestroy(plain));
        check!(cuMemFree(data));
        check!(cuModuleUnload(late));
        check!(cuModuleUnload(module));
        check!(cuDevicePrimaryCtxRelease(device));
        finish()
    }
}
