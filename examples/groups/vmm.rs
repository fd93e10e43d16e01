//! Virtual memory management, in the manner of NVIDIA's `vectorAddMMAP`: the whole VA group. The
//! allocation granularity; physical memory created with a POSIX file descriptor as its shareable
//! handle, its properties read back (checked: those it was created with); an address range
//! reserved, mapped, given read-write access (checked: the access read back); the handle retained
//! from the address; the memory exported as a file descriptor, imported again and mapped at a
//! second address, read-write too (checked: the access read back, and every word written through
//! the first reads back there); where the device supports sparse CUDA arrays (elsewhere a line
//! says they are not tested), a sparse array's sparse properties, and its first tile
//! mapped (`cuMemMapArrayAsync`) onto a tile pool at offset 0, data copied in through it
//! (`cuMemcpy2D`), unmapped, mapped at the pool's next tile, other data copied in, unmapped, then
//! mapped onto each place again and read back (checked: every word read at each offset is the
//! one copied in there, so the data went through the mapping into the pool's memory); the memory
//! requirements of an array with deferred mapping.
//! Control `other_offset` (`CUDA_GROUP_CONTROL`): each set of words is read back through the tile
//! mapped onto the other place, which fails "the tile reads back at each pool offset the data
//! copied in there". Neither reads nor writes a tile that is not mapped: the driver's
//! documentation does not say what that does.
//! C twin: `vmm.cpp`.

#[path = "common/mod.rs"]
mod common;

use std::ffi::{c_int, c_uint, c_ulonglong, c_void};
use std::mem::zeroed;
use std::ptr;

use common::{check, control, expect, finish, location, location_id, p};
use cuda_driver_sys::*;

/// The tile at the origin of a sparse 2D CUDA array of 4-byte elements, and the tile pool it is
/// mapped onto.
struct Tile {
    array: CUarray,
    width: c_uint,
    height: c_uint,
    pool: CUmemGenericAllocationHandle,
    device: CUdevice,
}

impl Tile {
    /// The tile's size in bytes: the distance between the two places of the pool it is mapped
    /// onto.
    fn bytes(&self) -> usize {
        self.width as usize * self.height as usize * size_of::<c_uint>()
    }

    /// Maps the tile onto the pool at `offset` (`CU_MEM_OPERATION_TYPE_MAP`) or, with `None`,
    /// unmaps it, on the null stream, which orders what needs the mapping after it; whether it
    /// succeeded.
    unsafe fn map(&self, offset: Option<usize>) -> bool {
        // SAFETY: zero is a valid `CUarrayMapInfo` (integers, handles and unions of them); the
        // driver reads the one map info, filled in, on the null stream.
        unsafe {
            let mut info: CUarrayMapInfo = zeroed();
            info.resourceType = CU_RESOURCE_TYPE_ARRAY;
            info.resource.array = self.array;
            info.subresourceType = CU_ARRAY_SPARSE_SUBRESOURCE_TYPE_SPARSE_LEVEL;
            info.subresource.sparseLevel.extentWidth = self.width;
            info.subresource.sparseLevel.extentHeight = self.height;
            info.subresource.sparseLevel.extentDepth = 1;
            info.memHandleType = CU_MEM_HANDLE_TYPE_GENERIC;
            info.deviceBitMask = 1 << self.device as c_uint;
            match offset {
                Some(offset) => {
                    info.memOperationType = CU_MEM_OPERATION_TYPE_MAP;
                    info.memHandle.memHandle = self.pool;
                    info.offset = offset as c_ulonglong;
                }
                None => info.memOperationType = CU_MEM_OPERATION_TYPE_UNMAP,
            }
            check!(cuMemMapArrayAsync(&mut info, 1, ptr::null_mut()))
        }
    }

    /// Copies `words` into the tile (cuMemcpy2D), mapped onto the pool at `offset` for the copy;
    /// nothing is copied where the mapping fails.
    unsafe fn copy_in(&self, offset: usize, words: &[c_uint]) {
        // SAFETY: zero is a valid `CUDA_MEMCPY2D` (integers, pointers and handles); `words` holds
        // the tile's bytes (asserted first).
        unsafe {
            assert_eq!(size_of_val(words), self.bytes());
            if self.map(Some(offset)) {
                let mut copy: CUDA_MEMCPY2D = zeroed();
                copy.srcMemoryType = CU_MEMORYTYPE_HOST;
                copy.srcHost = words.as_ptr().cast();
                copy.srcPitch = self.bytes() / self.height as usize;
                copy.dstMemoryType = CU_MEMORYTYPE_ARRAY;
                copy.dstArray = self.array;
                copy.WidthInBytes = copy.srcPitch;
                copy.Height = self.height as usize;
                check!(cuMemcpy2D(&copy));
                self.map(None);
            }
        }
    }

    /// The tile's words (cuMemcpy2D), mapped onto the pool at `offset` for the copy; all zero
    /// where the mapping fails (nothing is read then).
    unsafe fn read(&self, offset: usize) -> Vec<c_uint> {
        // SAFETY: zero is a valid `CUDA_MEMCPY2D` (integers, pointers and handles); `words` holds
        // the tile's bytes.
        unsafe {
            let mut words = vec![0; self.bytes() / size_of::<c_uint>()];
            if self.map(Some(offset)) {
                let mut copy: CUDA_MEMCPY2D = zeroed();
                copy.srcMemoryType = CU_MEMORYTYPE_ARRAY;
                copy.srcArray = self.array;
                copy.dstMemoryType = CU_MEMORYTYPE_HOST;
                copy.dstHost = words.as_mut_ptr().cast();
                copy.dstPitch = self.bytes() / self.height as usize;
                copy.WidthInBytes = copy.dstPitch;
                copy.Height = self.height as usize;
                check!(cuMemcpy2D(&copy));
                self.map(None);
            }
            words
        }
    }
}

/// Copies two sets of words into the tile, mapped onto the pool at offset 0 for the first and at
/// the next tile's place for the second, then reads the tile back mapped onto each place again:
/// what was copied in at each place is what reads back there, the data held by the pool's memory
/// and reached only through a mapping. The control `other_offset` reads each place's data back
/// from the other place.
unsafe fn check_tile_data(tile: &Tile) {
    unsafe {
        let first: Vec<c_uint> = (0..tile.bytes() / size_of::<c_uint>())
            .map(|i| (i as c_uint).wrapping_mul(2654435761))
            .collect();
        let second: Vec<c_uint> = first.iter().map(|w| !w).collect();
        let places = [0, tile.bytes()];
        tile.copy_in(places[0], &first);
        tile.copy_in(places[1], &second);
        println!(
        "sparse array: the tile mapped at pool offsets {} and {} in turn, data copied in at each",
        places[0], places[1]
    );
        // Where each set is read back: where it was copied in, but for the control.
        let read_at = if control("other_offset") {
            [places[1], places[0]]
        } else {
            places
        };
        let mut equal = 0;
        for (offset, (data, name)) in read_at
            .into_iter()
            .zip([(&first, "first"), (&second, "second")])
        {
            let back = tile.read(offset);
            let same = back.iter().zip(data).filter(|(b, d)| b == d).count();
            println!(
            "sparse array: read back at pool offset {offset}: {same} of {} words of the {name} data",
            data.len()
        );
            equal += same;
        }
        expect(
            equal == 2 * first.len(),
            "the tile reads back at each pool offset the data copied in there",
        );
    }
}

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
        flags = 0;
        check!(cuMemGetAccess(&mut flags, &place, second));
        expect(
            flags == CU_MEM_ACCESS_FLAGS_PROT_READWRITE.0 as c_ulonglong,
            "the device reads and writes the second mapping",
        );
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

        // A sparse array's first tile mapped in turn onto two places of a tile pool, data copied
        // in through each mapping, then read back through the tile mapped onto each place again.
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
                // Tiles are mapped from memory made for them (a tile pool).
                let mut pool_prop: CUmemAllocationProp = zeroed();
                pool_prop.type_ = CU_MEM_ALLOCATION_TYPE_PINNED;
                pool_prop.location = prop.location;
                pool_prop.allocFlags.usage = CU_MEM_CREATE_USAGE_TILE_POOL as u16;
                let mut pool: CUmemGenericAllocationHandle = 0;
                if check!(cuMemCreate(&mut pool, minimum, &pool_prop, 0)) {
                    let tile = Tile {
                        array,
                        width: props.tileExtent.width,
                        height: props.tileExtent.height,
                        pool,
                        device,
                    };
                    check_tile_data(&tile);
                    check!(cuMemRelease(pool));
                }
                check!(cuArrayDestroy(array));
            }
        } else {
            println!("sparse array: not tested (the device has no sparse CUDA arrays)");
        }
        // An array whose memory is bound later (deferred mapping): what it needs.
        let mut deferred_desc: CUDA_ARRAY3D_DESCRIPTOR = zeroed();
        deferred_desc.Width = 1024;
        deferred_desc.Height = 1024;
        deferred_desc.Format = CU_AD_FORMAT_FLOAT;
        deferred_desc.NumChannels = 1;
        deferred_desc.Flags = CUDA_ARRAY3D_DEFERRED_MAPPING;
        let mut deferred: CUarray = ptr::null_mut();
        if check!(cuArray3DCreate(&mut deferred, &deferred_desc)) {
            let mut needs: CUDA_ARRAY_MEMORY_REQUIREMENTS = zeroed();
            check!(cuArrayGetMemoryRequirements(&mut needs, deferred, device));
            println!(
                "deferred-mapping array memory: {} bytes, alignment {}",
                needs.size, needs.alignment
            );
            check!(cuArrayDestroy(deferred));
        }
        check!(cuMemRelease(handle));
        check!(cuDevicePrimaryCtxRelease(device));
        finish()
    }
}
