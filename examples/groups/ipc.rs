//! Between processes, in the manner of NVIDIA's `memMapIPCDrv`: a parent and a child it spawns
//! (the same program, started anew, never forked after CUDA is initialised) share device memory
//! three ways over a Unix socket: a legacy IPC memory handle (`cuIpcGetMemHandle`,
//! `cuIpcOpenMemHandle`, `cuIpcCloseMemHandle`), an IPC event handle (`cuIpcGetEventHandle`,
//! `cuIpcOpenEventHandle`), and a memory pool exported as a POSIX file descriptor passed with
//! `SCM_RIGHTS`, with a pointer of it (`cuMemPoolExportToShareableHandle`, `ExportPointer`;
//! `ImportFromShareableHandle`, `ImportPointer`, `SetAccess`, `GetAccess`). Each side checks the
//! data the other wrote. C twin: `ipc.cpp`.

#[path = "common/mod.rs"]
mod common;

use std::ffi::{c_int, c_uint, c_void, OsString};
use std::mem::zeroed;
use std::ptr;

use common::{check, expect, expect_all, failed, finish, location, result_name};
use cuda_driver_sys::*;

/// Words of each buffer.
const N: usize = 1 << 16;
const BYTES: usize = N * size_of::<c_uint>();

/// What the parent sends besides the pool's file descriptor.
#[repr(C)]
struct Message {
    memory: CUipcMemHandle,
    event: CUipcEventHandle,
    pointer: CUmemPoolPtrExportData,
}

/// How many words of device memory at `ptr` hold `value`.
unsafe fn count_value(ptr: CUdeviceptr, value: c_uint) -> usize {
    let mut back: Vec<c_uint> = vec![0; N];
    check!(cuMemcpyDtoH(back.as_mut_ptr().cast(), ptr, BYTES));
    back.iter().filter(|v| **v == value).count()
}

/// A message header for one `Message` and room for one file descriptor in `control`.
unsafe fn header(
    message: &mut Message,
    part: &mut libc::iovec,
    control: &mut [u8],
) -> libc::msghdr {
    *part = libc::iovec {
        iov_base: (message as *mut Message).cast(),
        iov_len: size_of::<Message>(),
    };
    let mut header: libc::msghdr = zeroed();
    header.msg_iov = part;
    header.msg_iovlen = 1;
    header.msg_control = control.as_mut_ptr().cast();
    header.msg_controllen = control.len() as _;
    header
}

/// The child: checks the parent's data, writes its own, records the parent's event.
unsafe fn child(socket: c_int) -> ! {
    if !check!(cuInit(0)) {
        std::process::exit(1);
    }
    let mut device: CUdevice = 0;
    let mut context: CUcontext = ptr::null_mut();
    check!(cuDeviceGet(&mut device, 0));
    check!(cuDevicePrimaryCtxRetain(&mut context, device));
    check!(cuCtxSetCurrent(context));
    let mut message: Message = zeroed();
    let mut pool_fd: c_int = -1;
    let mut control = vec![0u8; libc::CMSG_SPACE(size_of::<c_int>() as u32) as usize];
    let mut part: libc::iovec = zeroed();
    let mut received = header(&mut message, &mut part, &mut control);
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
    if check!(cuIpcOpenMemHandle(&mut legacy, message.memory, lazy)) {
        expect_all(
            "child: the parent's words through cuIpcOpenMemHandle",
            count_value(legacy, 0xa11ce),
            N,
        );
        check!(cuMemsetD32(legacy, 0xc0ffee, N));
        check!(cuCtxSynchronize());
        check!(cuIpcCloseMemHandle(legacy));
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
            check!(cuMemsetD32(imported, 0xd00d, N));
            check!(cuCtxSynchronize());
            // Freed in stream order, as it was allocated, and finished before the parent frees it.
            check!(cuMemFreeAsync(imported, stream));
            check!(cuStreamSynchronize(stream));
        }
        check!(cuMemPoolDestroy(pool));
    }
    libc::close(pool_fd);
    let mut event: CUevent = ptr::null_mut();
    if check!(cuIpcOpenEventHandle(&mut event, message.event)) {
        check!(cuEventRecord(event, stream));
        check!(cuStreamSynchronize(stream));
        check!(cuEventDestroy(event));
        println!("child: recorded the parent's event");
    }
    check!(cuStreamDestroy(stream));
    check!(cuDevicePrimaryCtxRelease(device));
    let done: u8 = 1;
    let said = libc::write(socket, (&done as *const u8).cast(), 1);
    expect(said == 1, "the child said it is done");
    std::process::exit(if failed() { 1 } else { 0 })
}

fn main() {
    let args: Vec<OsString> = std::env::args_os().collect();
    unsafe {
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
        check!(cuMemsetD32Async(pooled, 0xb0b, N, stream));
        check!(cuStreamSynchronize(stream));
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
        let mut control = vec![0u8; libc::CMSG_SPACE(size_of::<c_int>() as u32) as usize];
        let mut part: libc::iovec = zeroed();
        let sent = header(&mut message, &mut part, &mut control);
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
        let mut done: u8 = 0;
        let said = libc::read(ends[0], (&mut done as *mut u8).cast(), 1);
        let status = spawned.wait().ok().and_then(|s| s.code());
        println!(
            "parent: the child said done: {}; it exited with {}",
            if said == 1 { "yes" } else { "no" },
            status.unwrap_or(-1)
        );
        expect(
            said == 1 && status == Some(0),
            "the child checked the parent's data",
        );
        libc::close(ends[0]);

        // The child's writes, and its record of the event.
        expect_all(
            "parent: the child's words in the legacy IPC memory",
            count_value(legacy, 0xc0ffee),
            N,
        );
        expect_all(
            "parent: the child's words in the pool's memory",
            count_value(pooled, 0xd00d),
            N,
        );
        println!(
            "parent: the event after the child recorded it: {}",
            result_name(cuEventQuery(event))
        );
        check!(cuMemFreeAsync(pooled, stream));
        check!(cuStreamSynchronize(stream));
        check!(cuMemPoolDestroy(pool));
        libc::close(pool_fd);
        check!(cuEventDestroy(event));
        check!(cuMemFree(legacy));
        check!(cuStreamDestroy(stream));
        check!(cuDevicePrimaryCtxRelease(device));
    }
    finish()
}
