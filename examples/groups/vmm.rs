//! Virtual memory management, in the manner of NVIDIA's `vectorAddMMAP`: the whole VA group. The
//! allocation granularity; physical memory created with a POSIX file descriptor as its shareable
//! handle, its properties read back; an address range reserved, mapped, given read-write access
//! (and the access read back); the handle retained from the address; the memory exported as a
//! file descriptor, imported again and mapped at a second address, where the data written through
//! the first reads back; a sparse CUDA array's tile mapped and unmapped onto physical memory
//! (`cuMemMapArrayAsync`), with its sparse properties and memory requirements. C twin: `vmm.cpp`.

#[path = "common/mod.rs"]
mod common;

use std::ffi::{c_int, c_uint, c_ulonglong, c_void};
use std::mem::zeroed;
use std::ptr;

use common::{check, expect, finish, location, location_id, p};
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
        let (mut vmm, mut posix, mut sparse): (c_int, c_int, c_int) = (0, 0, 0);
        let attribute = CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED;
        check!(cuDeviceGetAttribute(&mut vmm, attribute, device));
        let attribute = CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED;
        check!(cuDeviceGetAttribute(&mut posix, attribute, device));
        let attribute = CU_DEVICE_ATTRIBUTE_SPARSE_CUDA_ARRAY_SUPPORTED;
        check!(cuDeviceGetAttribute(&mut sparse, attribute, device));
        println!(
            "virtual memory management {vmm}, POSIX file descriptors {posix}, sparse arrays {sparse}"
        );
        expect(
            vmm != 0 && posix != 0,
            "the device supports virtual memory management with POSIX file descriptors",
        );
        if vmm == 0 || posix == 0 {
            finish();
        }

        // Physical memory on the device, exportable as a file descriptor.
        let mut prop: CUmemAllocationProp = zeroed();
        prop.type_ = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
        prop.location = location(CU_MEM_LOCATION_TYPE_DEVICE, device);
        let (mut minimum, mut recommended): (usize, usize) = (0, 0);
        let option = CU_MEM_ALLOC_GRANULARITY_MINIMUM;
        check!(cuMemGetAllocationGranularity(&mut minimum, &prop, option));
        let option = CU_MEM_ALLOC_GRANULARITY_RECOMMENDED;
        check!(cuMemGetAllocationGranularity(
            &mut recommended,
            &prop,
            option
        ));
        println!("granularity: minimum {minimum}, recommended {recommended}");
        let size = 2 * minimum;
        let count = size / size_of::<c_uint>();
        let mut handle: CUmemGenericAllocationHandle = 0;
        if !check!(cuMemCreate(&mut handle, size, &prop, 0)) {
            finish();
        }
        let mut read_back: CUmemAllocationProp = zeroed();
        check!(cuMemGetAllocationPropertiesFromHandle(
            &mut read_back,
            handle
        ));
        println!(
            "properties: type {}, handle types {}, location type {}, id {}",
            read_back.type_.0,
            read_back.requestedHandleTypes.0,
            read_back.location.type_.0,
            location_id(&read_back.location)
        );
        expect(
            read_back.type_ == prop.type_
                && read_back.requestedHandleTypes == prop.requestedHandleTypes
                && location_id(&read_back.location) == device,
            "the allocation's properties are those it was created with",
        );

        // An address range, the memory mapped there, read-write for the device.
        let mut address: CUdeviceptr = 0;
        if !check!(cuMemAddressReserve(&mut address, size, minimum, 0, 0)) {
            finish();
        }
        println!("reserved {size} bytes at {}", p(address as *const c_void));
        check!(cuMemMap(address, size, 0, handle, 0));
        let mut access: CUmemAccessDesc = zeroed();
        access.location = location(CU_MEM_LOCATION_TYPE_DEVICE, device);
        access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        check!(cuMemSetAccess(address, size, &access, 1));
        let mut flags: c_ulonglong = 0;
        let place = location(CU_MEM_LOCATION_TYPE_DEVICE, device);
        check!(cuMemGetAccess(&mut flags, &place, address));
        println!("access of device {device}: {flags}");
        expect(
            flags == CU_MEM_ACCESS_FLAGS_PROT_READWRITE.0 as c_ulonglong,
            "the device reads and writes the mapping",
        );
        let mut retained: CUmemGenericAllocationHandle = 0;
        check!(cuMemRetainAllocationHandle(
            &mut retained,
            address as *mut c_void
        ));
        check!(cuMemRelease(retained));

        // Data written through the first mapping.
        let host: Vec<c_uint> = (0..count)
            .map(|i| (i as c_uint).wrapping_mul(2654435761))
            .collect();
        check!(cuMemcpyHtoD(address, host.as_ptr().cast(), size));

        // Exported as a file descriptor, imported again, mapped at a second address: the same
        // memory.
        let mut fd: c_int = -1;
        let posix_fd = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
        let shareable = (&mut fd as *mut c_int).cast();
        check!(cuMemExportToShareableHandle(shareable, handle, posix_fd, 0));
        println!(
            "exported as a file descriptor: {}",
            if fd >= 0 { "yes" } else { "no" }
        );
        let mut imported: CUmemGenericAllocationHandle = 0;
        check!(cuMemImportFromShareableHandle(
            &mut imported,
            fd as usize as *mut c_void,
            posix_fd
        ));
        let mut second: CUdeviceptr = 0;
        check!(cuMemAddressReserve(&mut second, size, minimum, 0, 0));
        check!(cuMemMap(second, size, 0, imported, 0));
        check!(cuMemSetAccess(second, size, &access, 1));
        let mut back: Vec<c_uint> = vec![0; count];
        check!(cuMemcpyDtoH(back.as_mut_ptr().cast(), second, size));
        let same = back.iter().zip(&host).filter(|(b, h)| b == h).count();
        println!("read back through the imported mapping: {same} of {count} words equal");
        expect(same == count, "the imported handle maps the same memory");
        check!(cuMemUnmap(second, size));
        check!(cuMemAddressFree(second, size));
        check!(cuMemRelease(imported));
        libc::close(fd);
        check!(cuMemUnmap(address, size));
        check!(cuMemAddressFree(address, size));

        // A sparse array's first tile mapped onto the physical memory, then unmapped.
        if sparse != 0 {
            let mut desc: CUDA_ARRAY3D_DESCRIPTOR = zeroed();
            desc.Width = 1024;
            desc.Height = 1024;
            desc.Format = CU_AD_FORMAT_FLOAT;
            desc.NumChannels = 1;
            desc.Flags = CUDA_ARRAY3D_SPARSE;
            let mut array: CUarray = ptr::null_mut();
            if check!(cuArray3DCreate(&mut array, &desc)) {
                let mut props: CUDA_ARRAY_SPARSE_PROPERTIES = zeroed();
                check!(cuArrayGetSparseProperties(&mut props, array));
                println!(
                    "sparse array: tile {} x {} x {}, mip tail from level {}, {} bytes, flags {}",
                    props.tileExtent.width,
                    props.tileExtent.height,
                    props.tileExtent.depth,
                    props.miptailFirstLevel,
                    props.miptailSize,
                    props.flags
                );
                let mut needs: CUDA_ARRAY_MEMORY_REQUIREMENTS = zeroed();
                check!(cuArrayGetMemoryRequirements(&mut needs, array, device));
                println!(
                    "sparse array memory: {} bytes, alignment {}",
                    needs.size, needs.alignment
                );
                let mut info: CUarrayMapInfo = zeroed();
                info.resourceType = CU_RESOURCE_TYPE_ARRAY;
                info.resource.array = array;
                info.subresourceType = CU_ARRAY_SPARSE_SUBRESOURCE_TYPE_SPARSE_LEVEL;
                info.subresource.sparseLevel.extentWidth = props.tileExtent.width;
                info.subresource.sparseLevel.extentHeight = props.tileExtent.height;
                info.subresource.sparseLevel.extentDepth = 1;
                info.memOperationType = CU_MEM_OPERATION_TYPE_MAP;
                info.memHandleType = CU_MEM_HANDLE_TYPE_GENERIC;
                info.memHandle.memHandle = handle;
                info.offset = 0;
                info.deviceBitMask = 1 << device as c_uint;
                check!(cuMemMapArrayAsync(&mut info, 1, ptr::null_mut()));
                info.memOperationType = CU_MEM_OPERATION_TYPE_UNMAP;
                info.memHandle.memHandle = 0;
                check!(cuMemMapArrayAsync(&mut info, 1, ptr::null_mut()));
                check!(cuStreamSynchronize(ptr::null_mut()));
                println!("sparse array: a tile mapped and unmapped");
                check!(cuArrayDestroy(array));
            }
        }
        check!(cuMemRelease(handle));
        check!(cuDevicePrimaryCtxRelease(device));
    }
    finish()
}
