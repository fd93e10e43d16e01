//! Stream memory operations: the MEMOP group. A stream waits on a 32-bit word of page-locked host
//! memory that the host sets later (`cuStreamWaitValue32`), writes a 64-bit value to device
//! memory (`cuStreamWriteValue64`) that a kernel then copies, and writes a 32-bit word the host
//! polls (`cuStreamWriteValue32`); a 64-bit wait the host releases (`cuStreamWaitValue64`); a
//! batch of a wait and two writes (`cuStreamBatchMemOp`). The host sees each write, the kernel
//! the stream's. Each wait is seen holding: the host looks long after a stream that did not wait
//! would have written. The argument control `wrong_flag` creates the stream with another flag,
//! which the output does not show. C twin: `stream_memops.cpp`.

#[path = "common/mod.rs"]
mod common;

use std::ffi::{c_uint, c_ulonglong, c_void};
use std::mem::zeroed;
use std::ptr;

use common::{check, control, delay, expect, expect_idle, finish, load_module, sleep_ms};
use common::{wait_for, DELAY_MS};
use cuda_driver_sys::*;

fn main() {
    unsafe {
        if !check!(cuInit(0)) {
            std::process::exit(1);
        }
        let mut device: CUdevice = 0;
        let mut context: CUcontext = ptr::null_mut();
        if !check!(cuDeviceGet(&mut device, 0)) {
            finish();
        }
        if !check!(cuDevicePrimaryCtxRetain(&mut context, device)) {
            finish();
        }
        check!(cuCtxSetCurrent(context));
        let module = load_module("stream_memops.ptx");
        let mut observe: CUfunction = ptr::null_mut();
        if !check!(cuModuleGetFunction(
            &mut observe,
            module,
            c"observe".as_ptr()
        )) {
            finish();
        }

        // Host words the GPU reads and writes: flag (0), done (1), and a 64-bit word at byte 8.
        let mut host: *mut c_void = ptr::null_mut();
        if !check!(cuMemHostAlloc(&mut host, 4096, CU_MEMHOSTALLOC_DEVICEMAP)) {
            finish();
        }
        ptr::write_bytes(host.cast::<u8>(), 0, 4096);
        let words = host.cast::<c_uint>();
        let word64 = host.cast::<u8>().add(8).cast::<c_ulonglong>();
        let mut on_device: CUdeviceptr = 0;
        check!(cuMemHostGetDevicePointer(&mut on_device, host, 0));
        let (flag, done, host64) = (on_device, on_device + 4, on_device + 8);
        let (mut written, mut seen): (CUdeviceptr, CUdeviceptr) = (0, 0);
        check!(cuMemAlloc(&mut written, 8));
        check!(cuMemAlloc(&mut seen, 8));
        let mut stream: CUstream = ptr::null_mut();
        let flags = if control("wrong_flag") {
            CU_STREAM_DEFAULT
        } else {
            CU_STREAM_NON_BLOCKING
        };
        check!(cuStreamCreate(&mut stream, flags.0));

        // Wait for the host's flag, then (after a delay, so that the results are certainly not
        // there before the host synchronises) write the value, let the kernel copy it, and say
        // done. The host looks at done twice the delay after queuing: a stream that did not wait
        // would have written it by then.
        let value: c_ulonglong = 0x1122334455667788;
        let geq = CU_STREAM_WAIT_VALUE_GEQ.0;
        check!(cuStreamWaitValue32(stream, flag, 1, geq));
        delay(stream);
        check!(cuStreamWriteValue64(stream, written, value, 0));
        let mut args: [*mut c_void; 2] = [
            (&mut written as *mut CUdeviceptr).cast(),
            (&mut seen as *mut CUdeviceptr).cast(),
        ];
        check!(cuLaunchKernel(
            observe,
            1,
            1,
            1,
            1,
            1,
            1,
            0,
            stream,
            args.as_mut_ptr(),
            ptr::null_mut()
        ));
        check!(cuStreamWriteValue32(stream, done, 1, 0));
        let done_now = || ptr::read_volatile(words.add(1));
        sleep_ms(2 * DELAY_MS);
        println!("before the flag: done = {}", done_now());
        expect(done_now() == 0, "the stream waits for the flag");
        ptr::write_volatile(words, 1);
        check!(cuStreamSynchronize(stream));
        expect_idle(stream, "the stream's work done after cuStreamSynchronize");
        println!("after the flag: done = {}", done_now());
        expect(
            done_now() == 1,
            "the stream wrote done after the host set the flag",
        );
        let mut copied: c_ulonglong = 0;
        check!(cuMemcpyDtoH(
            (&mut copied as *mut c_ulonglong).cast(),
            seen,
            8
        ));
        println!("the kernel saw {copied:#x}");
        expect(copied == value, "the kernel saw the stream's 64-bit write");

        // A 64-bit wait the host releases.
        let eq = CU_STREAM_WAIT_VALUE_EQ.0;
        check!(cuStreamWaitValue64(stream, host64, 42, eq));
        check!(cuStreamWriteValue32(stream, done, 2, 0));
        sleep_ms(DELAY_MS);
        println!("before the 64-bit word: done = {}", done_now());
        expect(done_now() == 1, "the stream waits for the 64-bit word");
        ptr::write_volatile(word64, 42);
        let arrived = wait_for(words.add(1), 2);
        println!("after the 64-bit word: done = {}", done_now());
        expect(
            arrived,
            "the stream wrote done after the host's 64-bit word",
        );

        // A batch: a wait that holds already, a 32-bit write the host sees, a 64-bit one on the
        // device.
        let mut ops: [CUstreamBatchMemOpParams; 3] = zeroed();
        ops[0].waitValue.operation = CU_STREAM_MEM_OP_WAIT_VALUE_32;
        ops[0].waitValue.address = flag;
        ops[0].waitValue.__bindgen_anon_1.value = 1;
        ops[0].waitValue.flags = geq;
        ops[1].writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_32;
        ops[1].writeValue.address = done;
        ops[1].writeValue.__bindgen_anon_1.value = 3;
        ops[2].writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_64;
        ops[2].writeValue.address = written;
        ops[2].writeValue.__bindgen_anon_1.value64 = 7;
        delay(stream);
        check!(cuStreamBatchMemOp(stream, 3, ops.as_mut_ptr(), 0));
        check!(cuStreamSynchronize(stream));
        expect_idle(stream, "the batch done after cuStreamSynchronize");
        check!(cuMemcpyDtoH(
            (&mut copied as *mut c_ulonglong).cast(),
            written,
            8
        ));
        println!(
            "after the batch: done = {}, device word = {copied}",
            done_now()
        );
        expect(done_now() == 3 && copied == 7, "the batch's writes arrived");

        check!(cuStreamDestroy(stream));
        check!(cuMemFree(seen));
        check!(cuMemFree(written));
        check!(cuMemFreeHost(host));
        check!(cuModuleUnload(module));
        check!(cuDevicePrimaryCtxRelease(device));
        finish()
    }
}
