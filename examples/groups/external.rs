//! External resources end to end with what CUDA itself exports, on a machine without Vulkan or
//! another exporting API: the EXTRES_INTEROP group. Device memory created with a POSIX file
//! descriptor as its shareable handle (the VMM calls of `vmm.rs`) is imported as external memory
//! of the opaque file descriptor type, and a second such allocation, zeroed, as an external
//! semaphore of the same type. Every word written through the memory's own mapping is read through
//! the buffer mapped from the import (`cuExternalMemoryGetMappedBuffer`), and the other way round;
//! a mipmapped array mapped from it (`cuExternalMemoryGetMappedMipmappedArray`) has each texel
//! written through the array found once among the memory's words, and each texel rewritten
//! through the memory's mapping read back through the array. The semaphore orders a read after a
//! write on another stream: the writer's stream, held by a host function until well after the
//! reader's copy would have run unordered, writes through the external buffer and signals; the
//! reader's stream waits, then copies through the memory's own mapping, and must read every word
//! written, and must still be waiting while the writer is held. The mappings' access is read back,
//! and the words of the memory the array does not use must stay as the program zeroed them. A
//! refused import or call fails the program, as does any word that differs.
//! Controls: `no_wait` (the reader does not wait, and reads the words from before the write) and
//! `other_memory` (another allocation is imported: what one mapping writes, the other does not
//! read). C twin: `external.cpp`.

#[path = "common/mod.rs"]
mod common;

use std::ffi::{c_int, c_uint, c_ulonglong, c_void};
use std::mem::zeroed;
use std::ptr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use common::{check, control, expect, expect_all, finish, finished, primary_context};
use cuda_driver_sys::*;

/// An allocation whose shareable handle is a POSIX file descriptor, mapped read-write at
/// `address`.
struct Exported {
    handle: CUmemGenericAllocationHandle,
    address: CUdeviceptr,
    fd: c_int,
}

/// Creates `size` bytes as `prop` says, maps them read-write (checked: the access read back) and
/// exports their descriptor; `None` where a call failed (reported and counted).
unsafe fn export_memory(prop: &CUmemAllocationProp, size: usize) -> Option<Exported> {
    // SAFETY: zero is a valid `CUmemAccessDesc` (integers); the calls write `out`'s fields
    // through out-pointers and read `prop` and `access`, initialised.
    unsafe {
        let mut out = Exported {
            handle: 0,
            address: 0,
            fd: -1,
        };
        let mut access: CUmemAccessDesc = zeroed();
        access.location = prop.location;
        access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        let posix_fd = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
        let shareable = (&raw mut out.fd).cast::<c_void>();
        let ok = check!(cuMemCreate(&mut out.handle, size, prop, 0))
            && check!(cuMemAddressReserve(&mut out.address, size, 0, 0, 0))
            && check!(cuMemMap(out.address, size, 0, out.handle, 0))
            && check!(cuMemSetAccess(out.address, size, &access, 1))
            && check!(cuMemExportToShareableHandle(
                shareable, out.handle, posix_fd, 0
            ));
        let mut flags: c_ulonglong = 0;
        let readable = ok && check!(cuMemGetAccess(&mut flags, &prop.location, out.address));
        expect(
            readable && flags == CU_MEM_ACCESS_FLAGS_PROT_READWRITE.0 as c_ulonglong,
            "the device reads and writes the mapping",
        );
        ok.then_some(out)
    }
}

/// Closes the descriptor, unmaps and releases the allocation.
unsafe fn release(e: &Exported, size: usize) {
    // SAFETY: the descriptor, mapping and handle of `export_memory`, used no more.
    unsafe {
        libc::close(e.fd);
        check!(cuMemUnmap(e.address, size));
        check!(cuMemAddressFree(e.address, size));
        check!(cuMemRelease(e.handle));
    }
}

/// How many words are `base + i` each.
fn count_pattern(words: &[c_uint], base: c_uint) -> usize {
    (words.iter().enumerate())
        .filter(|(i, w)| **w == base.wrapping_add(*i as c_uint))
        .count()
}

/// Writes `base + i` into each word.
fn fill_pattern(words: &mut [c_uint], base: c_uint) {
    for (i, w) in words.iter_mut().enumerate() {
        *w = base.wrapping_add(i as c_uint);
    }
}

/// The host function that holds the writer's stream: it returns once the flag it is given is
/// set, or after 10 s.
unsafe extern "C" fn hold(released: *mut c_void) {
    // SAFETY: the caller passes a pointer to a static `AtomicBool`.
    let flag = unsafe { &*released.cast::<AtomicBool>() };
    for _ in 0..10_000 {
        if flag.load(Ordering::SeqCst) {
            return;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// Ends the program at once, failed, where a stream is stuck: without the driver's teardown at
/// exit, which could wait for it.
fn abandon() -> ! {
    println!("Result = FAIL");
    // SAFETY: ends the process; stdout is flushed at each line.
    unsafe { libc::_exit(1) }
}

/// The side of the 64 x 64 array, and its texels, one 32-bit float-sized word each.
const SIDE: usize = 64;
const TEXELS: usize = SIDE * SIDE;
/// The tags of the texels' words: written through the array, then rewritten through the memory.
const WRITTEN: c_uint = 0xa500_0000;
const REWRITTEN: c_uint = 0xb600_0000;

/// A copy of the whole array between level 0 of `array` and host words.
fn array_copy(array: CUarray, host: *mut c_uint, to_array: bool) -> CUDA_MEMCPY2D {
    // SAFETY: a C struct of integers and pointers, for which zero is a valid value.
    let mut copy: CUDA_MEMCPY2D = unsafe { zeroed() };
    if to_array {
        copy.srcMemoryType = CU_MEMORYTYPE_HOST;
        copy.srcHost = host.cast();
        copy.srcPitch = SIDE * size_of::<c_uint>();
        copy.dstMemoryType = CU_MEMORYTYPE_ARRAY;
        copy.dstArray = array;
    } else {
        copy.srcMemoryType = CU_MEMORYTYPE_ARRAY;
        copy.srcArray = array;
        copy.dstMemoryType = CU_MEMORYTYPE_HOST;
        copy.dstHost = host.cast();
        copy.dstPitch = SIDE * size_of::<c_uint>();
    }
    copy.WidthInBytes = SIDE * size_of::<c_uint>();
    copy.Height = SIDE;
    copy
}

fn main() {
    unsafe {
        if !check!(cuInit(0)) {
            std::process::exit(1);
        }
        let Some((device, _context)) = primary_context() else {
            finish();
        };

        // Two allocations exported as file descriptors: the memory and the semaphore's.
        let mut prop: CUmemAllocationProp = zeroed();
        prop.type_ = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
        prop.location = common::location(CU_MEM_LOCATION_TYPE_DEVICE, device);
        let mut size: usize = 0;
        let minimum = CU_MEM_ALLOC_GRANULARITY_MINIMUM;
        if !check!(cuMemGetAllocationGranularity(&mut size, &prop, minimum)) {
            finish();
        }
        let count = size / size_of::<c_uint>();
        let Some(memory) = export_memory(&prop, size) else {
            finish();
        };
        let Some(sync) = export_memory(&prop, size) else {
            finish();
        };
        let other = if control("other_memory") {
            let Some(other) = export_memory(&prop, size) else {
                finish();
            };
            Some(other)
        } else {
            None
        };
        let (mut source_ptr, mut seen_ptr): (*mut c_void, *mut c_void) =
            (ptr::null_mut(), ptr::null_mut());
        if !check!(cuMemAllocHost(&mut source_ptr, size))
            || !check!(cuMemAllocHost(&mut seen_ptr, size))
        {
            finish();
        }
        // SAFETY: page-locked host memory of `size` bytes each, freed at the end.
        let source = std::slice::from_raw_parts_mut(source_ptr.cast::<c_uint>(), count);
        let seen = std::slice::from_raw_parts_mut(seen_ptr.cast::<c_uint>(), count);

        // The memory's descriptor imported, and a buffer mapped over all of it (the driver owns
        // the duplicate it is given).
        let mut memory_desc: CUDA_EXTERNAL_MEMORY_HANDLE_DESC = zeroed();
        memory_desc.type_ = CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD;
        memory_desc.handle.fd = libc::dup(other.as_ref().unwrap_or(&memory).fd);
        memory_desc.size = size as u64;
        let mut external: CUexternalMemory = ptr::null_mut();
        if !check!(cuImportExternalMemory(&mut external, &memory_desc)) {
            libc::close(memory_desc.handle.fd);
            finish();
        }
        let mut buffer_desc: CUDA_EXTERNAL_MEMORY_BUFFER_DESC = zeroed();
        buffer_desc.size = size as u64;
        let mut buffer: CUdeviceptr = 0;
        if !check!(cuExternalMemoryGetMappedBuffer(
            &mut buffer,
            external,
            &buffer_desc
        )) {
            finish();
        }

        // Words through one mapping, read through the other, each way.
        fill_pattern(source, 0x1000_0000);
        check!(cuMemcpyHtoD(memory.address, source.as_ptr().cast(), size));
        seen.fill(0);
        check!(cuMemcpyDtoH(seen.as_mut_ptr().cast(), buffer, size));
        expect_all(
            "words written through the memory's own mapping, read through the external buffer",
            count_pattern(seen, 0x1000_0000),
            count,
        );
        fill_pattern(source, 0x2000_0000);
        check!(cuMemcpyHtoD(buffer, source.as_ptr().cast(), size));
        seen.fill(0);
        check!(cuMemcpyDtoH(seen.as_mut_ptr().cast(), memory.address, size));
        expect_all(
            "words written through the external buffer, read through the memory's own mapping",
            count_pattern(seen, 0x2000_0000),
            count,
        );

        // A 64 x 64 array of 32-bit floats mapped from the memory, whose layout is the driver's:
        // each texel's word, written through the array, must be among the memory's words exactly
        // once.
        let mut array_desc: CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC = zeroed();
        array_desc.arrayDesc.Width = SIDE;
        array_desc.arrayDesc.Height = SIDE;
        array_desc.arrayDesc.Format = CU_AD_FORMAT_FLOAT;
        array_desc.arrayDesc.NumChannels = 1;
        array_desc.numLevels = 1;
        let mut mipmapped: CUmipmappedArray = ptr::null_mut();
        let mut level: CUarray = ptr::null_mut();
        if check!(cuExternalMemoryGetMappedMipmappedArray(
            &mut mipmapped,
            external,
            &array_desc
        )) && check!(cuMipmappedArrayGetLevel(&mut level, mipmapped, 0))
        {
            check!(cuMemsetD32(memory.address, 0, count));
            fill_pattern(&mut source[..TEXELS], WRITTEN);
            let to_array = array_copy(level, source.as_mut_ptr(), true);
            check!(cuMemcpy2D(&to_array));
            check!(cuMemcpyDtoH(seen.as_mut_ptr().cast(), memory.address, size));
            let mut found = vec![0u32; TEXELS];
            for w in seen.iter() {
                if w & 0xff00_0000 == WRITTEN && ((w & 0xff_ffff) as usize) < TEXELS {
                    found[(w & 0xff_ffff) as usize] += 1;
                }
            }
            let once = found.iter().filter(|f| **f == 1).count();
            expect_all(
                "texels written through the mapped array, found once in the memory",
                once,
                TEXELS,
            );
            let zero = seen.iter().filter(|w| **w == 0).count();
            expect_all(
                "words of the memory the array did not write, zero as set",
                zero,
                count - TEXELS,
            );
            // Each texel's word retagged where it lies, through the memory's mapping, then read
            // through the array: every texel must hold its own retagged word.
            for w in seen.iter_mut() {
                if *w & 0xff00_0000 == WRITTEN {
                    *w = REWRITTEN | (*w & 0xff_ffff);
                }
            }
            check!(cuMemcpyHtoD(memory.address, seen.as_ptr().cast(), size));
            source[..TEXELS].fill(0);
            let from_array = array_copy(level, source.as_mut_ptr(), false);
            check!(cuMemcpy2D(&from_array));
            expect_all(
                "texels rewritten through the memory's own mapping, read through the array",
                count_pattern(&source[..TEXELS], REWRITTEN),
                TEXELS,
            );
            check!(cuMipmappedArrayDestroy(mipmapped));
        }

        // The semaphore's allocation, zeroed, imported as a semaphore.
        check!(cuMemsetD32(sync.address, 0, count));
        check!(cuCtxSynchronize());
        let mut semaphore_desc: CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC = zeroed();
        semaphore_desc.type_ = CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD;
        semaphore_desc.handle.fd = libc::dup(sync.fd);
        let mut semaphore: CUexternalSemaphore = ptr::null_mut();
        if check!(cuImportExternalSemaphore(&mut semaphore, &semaphore_desc)) {
            // The writer, held by the host, writes through the external buffer and signals; the
            // reader waits for the signal, then reads through the memory's own mapping. The
            // reader's copy, were it not ordered, would run during the 200 ms the writer is held.
            let mut writer: CUstream = ptr::null_mut();
            let mut reader: CUstream = ptr::null_mut();
            check!(cuStreamCreate(&mut writer, CU_STREAM_NON_BLOCKING.0));
            check!(cuStreamCreate(&mut reader, CU_STREAM_NON_BLOCKING.0));
            fill_pattern(source, 0x3000_0000);
            seen.fill(0);
            static RELEASED: AtomicBool = AtomicBool::new(false);
            let released = (&raw const RELEASED).cast_mut().cast::<c_void>();
            check!(cuLaunchHostFunc(writer, Some(hold), released));
            check!(cuMemcpyHtoDAsync(
                buffer,
                source.as_ptr().cast(),
                size,
                writer
            ));
            let signal: CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS = zeroed();
            check!(cuSignalExternalSemaphoresAsync(
                &semaphore, &signal, 1, writer
            ));
            if !control("no_wait") {
                let wait: CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS = zeroed();
                check!(cuWaitExternalSemaphoresAsync(&semaphore, &wait, 1, reader));
            }
            check!(cuMemcpyDtoHAsync(
                seen.as_mut_ptr().cast(),
                memory.address,
                size,
                reader
            ));
            std::thread::sleep(Duration::from_millis(200));
            expect(
                cuStreamQuery(reader) == CUresult::CUDA_ERROR_NOT_READY,
                "the reader still waiting while the writer is held",
            );
            RELEASED.store(true, Ordering::SeqCst);
            let done = finished(writer) && finished(reader);
            expect(
                done,
                "the writer's and the reader's streams finished within 10 s",
            );
            if !done {
                abandon();
            }
            expect_all(
                "words the reader read after waiting on the semaphore, as the writer wrote them",
                count_pattern(seen, 0x3000_0000),
                count,
            );
            check!(cuStreamDestroy(writer));
            check!(cuStreamDestroy(reader));
            check!(cuDestroyExternalSemaphore(semaphore));
        } else {
            libc::close(semaphore_desc.handle.fd);
        }

        check!(cuMemFree(buffer));
        check!(cuDestroyExternalMemory(external));
        check!(cuMemFreeHost(source_ptr));
        check!(cuMemFreeHost(seen_ptr));
        release(&memory, size);
        release(&sync, size);
        if let Some(other) = &other {
            release(other, size);
        }
        check!(cuDevicePrimaryCtxRelease(device));
        finish()
    }
}
