//! Between processes, in the manner of NVIDIA's `memMapIPCDrv`: a parent and a child it spawns
//! (the same program, started anew, never forked after CUDA is initialised) share device memory
//! three ways over a Unix socket: a legacy IPC memory handle (`cuIpcGetMemHandle`,
//! `cuIpcOpenMemHandle`, `cuIpcCloseMemHandle`), an IPC event handle (`cuIpcGetEventHandle`,
//! `cuIpcOpenEventHandle`), and a memory pool exported as a POSIX file descriptor passed with
//! `SCM_RIGHTS`, with a pointer of it (`cuMemPoolExportToShareableHandle`, `ExportPointer`;
//! `ImportFromShareableHandle`, `ImportPointer`, `SetAccess`, `GetAccess`). Checked: the child
//! finds the parent's words through the opened handle and the imported pool; the parent finds the
//! child's words in the pool's memory; and the event orders work across the two processes: the
//! child queues a kernel that writes the legacy IPC memory 300 ms after it starts, records the
//! opened event right after it and tells the parent at once; the parent's stream waits for the
//! event (`cuStreamWaitEvent`), then copies the memory out, which must hold the child's words.
//! Control `no_wait`: the parent does not wait, so its copy reads the memory before the child's
//! kernel wrote it, and that check fails. The other work in a stream waits behind a delay, so that
//! the stream's query after the synchronisation shows that the host waited. The parent prints what
//! it found after the child has exited, so that the child's output comes first. Kernel:
//! examples/kernels/late_write.ptx; argv[1] is the kernels folder. C twin: `ipc.cpp`.

#[path = "common/mod.rs"]
mod common;

use std::ffi::{c_int, c_uint, c_void, OsString};
use std::mem::zeroed;
use std::ptr;

use common::{check, control, delay, expect, expect_all, expect_delays_ran, expect_idle};
use common::{failed, finish, finished, get_function, load_module, location, yes};
use cuda_driver_sys::*;

/// Words of each buffer.
const N: usize = 1 << 16;
const BYTES: usize = N * size_of::<c_uint>();
/// How long the child's kernel waits before it writes: far longer than the parent takes to read.
const LATE_NS: u64 = 300_000_000;

/// What the parent sends besides the pool's file descriptor.
#[repr(C)]
struct Message {
    memory: CUipcMemHandle,
    event: CUipcEventHandle,
    pointer: CUmemPoolPtrExportData,
}

/// How many of `words` hold `value`.
fn count_words(words: &[c_uint], value: c_uint) -> usize {
    words.iter().filter(|v| **v == value).count()
}

/// How many words of device memory at `ptr` hold `value`.
unsafe fn count_value(ptr: CUdeviceptr, value: c_uint) -> usize {
    unsafe {
        let mut back: Vec<c_uint> = vec![0; N];
        check!(cuMemcpyDtoH(back.as_mut_ptr().cast(), ptr, BYTES));
        count_words(&back, value)
    }
}

/// A message header for one `Message` and room for one file descriptor in `ancillary`.
unsafe fn header(
    message: &mut Message,
    part: &mut libc::iovec,
    ancillary: &mut [u8],
) -> libc::msghdr {
    *part = libc::iovec {
        iov_base: (message as *mut Message).cast(),
        iov_len: size_of::<Message>(),
    };
    let mut header: libc::msghdr = zeroed();
    header.msg_iov = part;
    header.msg_iovlen = 1;
    header.msg_control = ancillary.as_mut_ptr().cast();
    header.msg_controllen = ancillary.len() as _;
    header
}

/// The child: checks the parent's data, writes the pool's memory, then queues the late write of
/// the legacy IPC memory and records the parent's event after it.
unsafe fn child(socket: c_int) -> ! {
    unsafe {
        if !check!(cuInit(0)) {
            std::process::exit(1);
        }
        let mut device: CUdevice = 0;
        let mut context: CUcontext = ptr::null_mut();
        check!(cuDeviceGet(&mut device, 0));
        check!(cuDevicePrimaryCtxRetain(&mut context, device));
        check!(cuCtxSetCurrent(context));
        let module = load_module("late_write.ptx");
        let late_fill = get_function(module, c"late_fill");
        let mut message: Message = zeroed();
        let mut pool_fd: c_int = -1;
        let mut ancillary = vec![0u8; libc::CMSG_SPACE(size_of::<c_int>() as u32) as usize];
        let mut part: libc::iovec = zeroed();
        let mut received = header(&mut message, &mut part, &mut ancillary);
        let got = libc::recvmsg(socket, &mut received, libc::MSG_WAITALL);
        let rights = libc::CMSG_FIRSTHDR(&received);
        if !rights.is_null() && (*rights).cmsg_type == libc::SCM_RIGHTS {
            ptr::copy_nonoverlapping(
                libc::CMSG_DATA(rights),
                (&mut pool_fd as *mut c_int).cast(),
                size_of::<c_int>(),
            );
        }
        println!(
            "child: received the handles and {} file descriptor",
            if pool_fd >= 0 { "a" } else { "no" }
        );
        expect(
            got == size_of::<Message>() as isize && pool_fd >= 0,
            "the child received the message and the descriptor",
        );
        let mut stream: CUstream = ptr::null_mut();
        check!(cuStreamCreate(&mut stream, CU_STREAM_NON_BLOCKING.0));

        let mut legacy: CUdeviceptr = 0;
        let lazy = CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS.0;
        let opened = check!(cuIpcOpenMemHandle(&mut legacy, message.memory, lazy));
        if opened {
            expect_all(
                "child: the parent's words through cuIpcOpenMemHandle",
                count_value(legacy, 0xa11ce),
                N,
            );
        }
        let mut pool: CUmemoryPool = ptr::null_mut();
        let posix_fd = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
        let shared = pool_fd as usize as *mut c_void;
        if check!(cuMemPoolImportFromShareableHandle(
            &mut pool, shared, posix_fd, 0
        )) {
            let mut access: CUmemAccessDesc = zeroed();
            access.location = location(CU_MEM_LOCATION_TYPE_DEVICE, device);
            access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
            check!(cuMemPoolSetAccess(pool, &access, 1));
            let mut flags = CU_MEM_ACCESS_FLAGS_PROT_NONE;
            let mut place = access.location;
            check!(cuMemPoolGetAccess(&mut flags, pool, &mut place));
            println!(
                "child: the imported pool's access from device {device}: {}",
                flags.0
            );
            expect(
                flags == CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
                "child: the device reads and writes the imported pool",
            );
            let mut imported: CUdeviceptr = 0;
            if check!(cuMemPoolImportPointer(
                &mut imported,
                pool,
                &mut message.pointer
            )) {
                expect_all(
                    "child: the parent's words through the imported pool",
                    count_value(imported, 0xb0b),
                    N,
                );
                // Written and freed in stream order, as it was allocated, and finished before the
                // parent frees it.
                delay(stream);
                check!(cuMemsetD32Async(imported, 0xd00d, N, stream));
                check!(cuMemFreeAsync(imported, stream));
                check!(cuStreamSynchronize(stream));
                expect_idle(
                    stream,
                    "the child's set and free done after cuStreamSynchronize",
                );
            }
            check!(cuMemPoolDestroy(pool));
        }
        libc::close(pool_fd);

        // The late write, the parent's event recorded right after it, and the parent told at once.
        let mut event: CUevent = ptr::null_mut();
        let mut recorded: u8 = 0;
        if opened && !late_fill.is_null() && check!(cuIpcOpenEventHandle(&mut event, message.event))
        {
            let (mut n, mut value, mut ns) = (N as c_uint, 0xc0ffee as c_uint, LATE_NS);
            let mut args: [*mut c_void; 4] = [
                (&raw mut legacy).cast(),
                (&raw mut n).cast(),
                (&raw mut value).cast(),
                (&raw mut ns).cast(),
            ];
            let launched = check!(cuLaunchKernel(
                late_fill,
                1,
                1,
                1,
                256,
                1,
                1,
                0,
                stream,
                args.as_mut_ptr(),
                ptr::null_mut()
            ));
            recorded = (launched && check!(cuEventRecord(event, stream))) as u8;
        }
        if recorded == 1 {
            println!(
                "child: queued a late write of the IPC memory, then recorded the parent's event"
            );
        }
        let said = libc::write(socket, (&recorded as *const u8).cast(), 1);
        expect(said == 1, "the child told the parent");
        check!(cuStreamSynchronize(stream));
        expect_idle(
            stream,
            "the child's late write done after cuStreamSynchronize",
        );
        if !event.is_null() {
            check!(cuEventDestroy(event));
        }
        if opened {
            check!(cuIpcCloseMemHandle(legacy));
        }
        if !module.is_null() {
            check!(cuModuleUnload(module));
        }
        check!(cuStreamDestroy(stream));
        check!(cuDevicePrimaryCtxRelease(device));
        expect_delays_ran();
        std::process::exit(if failed() { 1 } else { 0 })
    }
}

fn main() {
    unsafe {
        let args: Vec<OsString> = std::env::args_os().collect();
        if args.len() > 3 && args[2] == "child" {
            let socket = args[3].to_string_lossy().parse().unwrap_or(-1);
            child(socket);
        }
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
        let mut stream: CUstream = ptr::null_mut();
        check!(cuStreamCreate(&mut stream, CU_STREAM_NON_BLOCKING.0));
        let mut message: Message = zeroed();

        // Legacy IPC: device memory and an interprocess event.
        let mut legacy: CUdeviceptr = 0;
        if !check!(cuMemAlloc(&mut legacy, BYTES)) {
            finish();
        }
        check!(cuMemsetD32(legacy, 0xa11ce, N));
        check!(cuIpcGetMemHandle(&mut message.memory, legacy));
        let mut event: CUevent = ptr::null_mut();
        let flags = CU_EVENT_DISABLE_TIMING.0 | CU_EVENT_INTERPROCESS.0;
        check!(cuEventCreate(&mut event, flags));
        check!(cuIpcGetEventHandle(&mut message.event, event));

        // A pool shareable as a file descriptor, and a pointer of it.
        let mut props: CUmemPoolProps = zeroed();
        props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
        props.handleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
        props.location = location(CU_MEM_LOCATION_TYPE_DEVICE, device);
        let mut pool: CUmemoryPool = ptr::null_mut();
        if !check!(cuMemPoolCreate(&mut pool, &props)) {
            finish();
        }
        let mut pooled: CUdeviceptr = 0;
        check!(cuMemAllocFromPoolAsync(&mut pooled, BYTES, pool, stream));
        delay(stream);
        check!(cuMemsetD32Async(pooled, 0xb0b, N, stream));
        check!(cuStreamSynchronize(stream));
        expect_idle(stream, "the parent's set done after cuStreamSynchronize");
        let mut pool_fd: c_int = -1;
        let posix_fd = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
        let handle = (&mut pool_fd as *mut c_int).cast();
        check!(cuMemPoolExportToShareableHandle(handle, pool, posix_fd, 0));
        check!(cuMemPoolExportPointer(&mut message.pointer, pooled));
        println!("parent: exported a memory handle, an event handle, a pool and a pointer");

        // The child, spawned with its end of a socket, gets the handles and the pool's
        // descriptor.
        let mut ends: [c_int; 2] = [-1, -1];
        if libc::socketpair(libc::AF_UNIX, libc::SOCK_STREAM, 0, ends.as_mut_ptr()) != 0 {
            expect(false, "a socket pair");
            finish();
        }
        libc::fcntl(ends[0], libc::F_SETFD, libc::FD_CLOEXEC);
        let kernels = args
            .get(1)
            .cloned()
            .unwrap_or_else(|| OsString::from("examples/kernels"));
        let exe = std::env::current_exe().unwrap_or_default();
        let spawned = std::process::Command::new(exe)
            .arg(kernels)
            .arg("child")
            .arg(ends[1].to_string())
            .spawn();
        let Ok(mut spawned) = spawned else {
            expect(false, "the child started");
            finish();
        };
        libc::close(ends[1]);
        let mut ancillary = vec![0u8; libc::CMSG_SPACE(size_of::<c_int>() as u32) as usize];
        let mut part: libc::iovec = zeroed();
        let sent = header(&mut message, &mut part, &mut ancillary);
        let rights = libc::CMSG_FIRSTHDR(&sent);
        (*rights).cmsg_level = libc::SOL_SOCKET;
        (*rights).cmsg_type = libc::SCM_RIGHTS;
        (*rights).cmsg_len = libc::CMSG_LEN(size_of::<c_int>() as u32) as _;
        ptr::copy_nonoverlapping(
            (&pool_fd as *const c_int).cast::<u8>(),
            libc::CMSG_DATA(rights),
            size_of::<c_int>(),
        );
        expect(
            libc::sendmsg(ends[0], &sent, 0) == size_of::<Message>() as isize,
            "the parent sent the message",
        );

        // The child's late write, read into zeroed page-locked memory by a copy that the parent's
        // stream queues after waiting for the event the child recorded behind it (not waiting in
        // the control no_wait).
        let mut recorded: u8 = 0;
        let said = libc::read(ends[0], (&mut recorded as *mut u8).cast(), 1);
        let recorded = said == 1 && recorded == 1;
        let mut host: *mut c_void = ptr::null_mut();
        let mut after_event = None;
        if recorded && check!(cuMemAllocHost(&mut host, BYTES)) {
            ptr::write_bytes(host.cast::<u8>(), 0, BYTES);
            if !control("no_wait") {
                check!(cuStreamWaitEvent(stream, event, 0));
            }
            check!(cuMemcpyDtoHAsync(host, legacy, BYTES, stream));
            if !finished(stream) {
                expect(
                    false,
                    "parent: the copy after the child's event finished within 10 s",
                );
                finish();
            }
            let words = std::slice::from_raw_parts(host.cast::<c_uint>(), N);
            after_event = Some(count_words(words, 0xc0ffee));
            check!(cuMemFreeHost(host));
        }
        let status = spawned.wait().ok().and_then(|s| s.code());
        println!("parent: the child recorded the event: {}", yes(recorded));
        expect(
            recorded,
            "the child recorded the event after its late write",
        );
        if let Some(same) = after_event {
            expect_all(
                "parent: the child's words in the legacy IPC memory, after its event",
                same,
                N,
            );
        }
        let code = status.unwrap_or(-1);
        println!("parent: the child exited with {code}");
        expect(code == 0, "the child's checks held");
        libc::close(ends[0]);

        // The child's writes, now that it has exited.
        expect_all(
            "parent: the child's words in the legacy IPC memory, after it exited",
            count_value(legacy, 0xc0ffee),
            N,
        );
        expect_all(
            "parent: the child's words in the pool's memory",
            count_value(pooled, 0xd00d),
            N,
        );
        delay(stream);
        check!(cuMemFreeAsync(pooled, stream));
        check!(cuStreamSynchronize(stream));
        expect_idle(stream, "the parent's free done after cuStreamSynchronize");
        check!(cuMemPoolDestroy(pool));
        libc::close(pool_fd);
        check!(cuEventDestroy(event));
        check!(cuMemFree(legacy));
        check!(cuStreamDestroy(stream));
        check!(cuDevicePrimaryCtxRelease(device));
        finish()
    }
}
