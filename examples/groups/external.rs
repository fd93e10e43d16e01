//! External resources, as far as a machine without Vulkan or another exporting API allows: the
//! EXTRES_INTEROP group fed with what CUDA itself exports. Device memory created with a POSIX
//! file descriptor as its shareable handle (the VMM calls of `vmm.rs`) is imported as external
//! memory of the opaque file descriptor type; where the driver takes it, a buffer and a mipmapped
//! array are mapped from it and the buffer shows the exported data; the same descriptor offered
//! as an external semaphore; whatever the driver answers is printed. C twin: `external.cpp`.

#[path = "common/mod.rs"]
mod common;

use std::ffi::{c_int, c_uint};
use std::mem::zeroed;
use std::ptr;

use common::{check, expect_all, finish, location, result_name};
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

        // Memory exported as a file descriptor, holding a pattern.
        let mut prop: CUmemAllocationProp = zeroed();
        prop.type_ = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
        prop.location = location(CU_MEM_LOCATION_TYPE_DEVICE, device);
        let mut size: usize = 0;
        let minimum = CU_MEM_ALLOC_GRANULARITY_MINIMUM;
        check!(cuMemGetAllocationGranularity(&mut size, &prop, minimum));
        let count = size / size_of::<c_uint>();
        let mut handle: CUmemGenericAllocationHandle = 0;
        if !check!(cuMemCreate(&mut handle, size, &prop, 0)) {
            finish();
        }
        let mut address: CUdeviceptr = 0;
        check!(cuMemAddressReserve(&mut address, size, 0, 0, 0));
        check!(cuMemMap(address, size, 0, handle, 0));
        let mut access: CUmemAccessDesc = zeroed();
        access.location = prop.location;
        access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        check!(cuMemSetAccess(address, size, &access, 1));
        check!(cuMemsetD32(address, 0xe7e7, count));
        let mut fd: c_int = -1;
        let posix_fd = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
        let shareable = (&mut fd as *mut c_int).cast();
        check!(cuMemExportToShareableHandle(shareable, handle, posix_fd, 0));

        // The descriptor as external memory (the driver owns the duplicate it is given).
        let mut memory_desc: CUDA_EXTERNAL_MEMORY_HANDLE_DESC = zeroed();
        memory_desc.type_ = CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD;
        memory_desc.handle.fd = libc::dup(fd);
        memory_desc.size = size as u64;
        let mut external: CUexternalMemory = ptr::null_mut();
        let code = cuImportExternalMemory(&mut external, &memory_desc);
        println!(
            "cuImportExternalMemory of CUDA's own file descriptor: {}",
            result_name(code)
        );
        if code == CUresult::CUDA_SUCCESS {
            let mut buffer_desc: CUDA_EXTERNAL_MEMORY_BUFFER_DESC = zeroed();
            buffer_desc.size = size as u64;
            let mut buffer: CUdeviceptr = 0;
            if check!(cuExternalMemoryGetMappedBuffer(
                &mut buffer,
                external,
                &buffer_desc
            )) {
                let mut back: Vec<c_uint> = vec![0; count];
                check!(cuMemcpyDtoH(back.as_mut_ptr().cast(), buffer, size));
                let same = back.iter().filter(|v| **v == 0xe7e7).count();
                expect_all(
                    "the external buffer holds the exported memory's words",
                    same,
                    count,
                );
                check!(cuMemFree(buffer));
            }
            let mut array_desc: CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC = zeroed();
            array_desc.arrayDesc.Width = 64;
            array_desc.arrayDesc.Height = 64;
            array_desc.arrayDesc.Format = CU_AD_FORMAT_FLOAT;
            array_desc.arrayDesc.NumChannels = 1;
            array_desc.numLevels = 1;
            let mut mipmapped: CUmipmappedArray = ptr::null_mut();
            let code =
                cuExternalMemoryGetMappedMipmappedArray(&mut mipmapped, external, &array_desc);
            println!(
                "cuExternalMemoryGetMappedMipmappedArray: {}",
                result_name(code)
            );
            if code == CUresult::CUDA_SUCCESS {
                check!(cuMipmappedArrayDestroy(mipmapped));
            }
            check!(cuDestroyExternalMemory(external));
        } else {
            libc::close(memory_desc.handle.fd);
        }

        // The same descriptor offered as a semaphore.
        let mut semaphore_desc: CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC = zeroed();
        semaphore_desc.type_ = CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD;
        semaphore_desc.handle.fd = libc::dup(fd);
        let mut semaphore: CUexternalSemaphore = ptr::null_mut();
        let code = cuImportExternalSemaphore(&mut semaphore, &semaphore_desc);
        println!(
            "cuImportExternalSemaphore of the same descriptor: {}",
            result_name(code)
        );
        if code == CUresult::CUDA_SUCCESS {
            let signal: CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS = zeroed();
            let wait: CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS = zeroed();
            let code = cuSignalExternalSemaphoresAsync(&semaphore, &signal, 1, ptr::null_mut());
            println!("cuSignalExternalSemaphoresAsync: {}", result_name(code));
            let code = cuWaitExternalSemaphoresAsync(&semaphore, &wait, 1, ptr::null_mut());
            println!("cuWaitExternalSemaphoresAsync: {}", result_name(code));
            check!(cuStreamSynchronize(ptr::null_mut()));
            check!(cuDestroyExternalSemaphore(semaphore));
        } else {
            libc::close(semaphore_desc.handle.fd);
        }

        libc::close(fd);
        check!(cuMemUnmap(address, size));
        check!(cuMemAddressFree(address, size));
        check!(cuMemRelease(handle));
        check!(cuDevicePrimaryCtxRelease(device));
    }
    finish()
}
