//! Unified addressing: the UNIFIED group. Every pointer attribute of device memory, page-locked
//! host memory and managed memory (`cuPointerGetAttribute`), four at once
//! (`cuPointerGetAttributes`), one set (`cuPointerSetAttribute`); managed memory advised (read
//! mostly, preferred location, accessed by), prefetched to the device and its data read there and
//! on the host, every range attribute alone and all at once; the CUDA 13 batch prefetch, discard,
//! and discard and prefetch; and where the header has it, `cuMemGetLocationInfo` through
//! `cuGetProcAddress` (it is newer than CUDA 13.0). Each prefetch waits behind a delay in its
//! stream, so that the stream's query after the synchronisation shows that it waited. The
//! argument control `wrong_offset` reads the attribute set back at another offset into the same
//! allocation, which the output does not show. C twin: `unified.cpp`.

#[path = "common/mod.rs"]
mod common;

use std::ffi::{c_int, c_uint, c_ulonglong, c_void};
use std::ptr;

use common::{check, control, delay, expect, expect_idle, finish, location, p, result_name};
use cuda_driver_sys::*;

/// How a pointer attribute's value prints: a pointer (`%p`), a number, an identifier (whether
/// it is nonzero: its value differs from process to process), or only the call's result.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Pointer,
    Number,
    Size,
    Identifier,
    ResultOnly,
}
use Kind::*;

/// `(value, "NAME", kind)` of each pointer attribute.
macro_rules! attributes {
    ($($(#[$cfg:meta])* $name:ident $kind:ident),* $(,)?) => {
        [$($(#[$cfg])* ($name, stringify!($name), $kind)),*]
    };
}

const ATTRIBUTES: &[(CUpointer_attribute, &str, Kind)] = &attributes![
    CU_POINTER_ATTRIBUTE_CONTEXT Pointer,
    CU_POINTER_ATTRIBUTE_MEMORY_TYPE Number,
    CU_POINTER_ATTRIBUTE_DEVICE_POINTER Pointer,
    CU_POINTER_ATTRIBUTE_HOST_POINTER Pointer,
    CU_POINTER_ATTRIBUTE_P2P_TOKENS ResultOnly,
    CU_POINTER_ATTRIBUTE_SYNC_MEMOPS Number,
    CU_POINTER_ATTRIBUTE_BUFFER_ID Identifier,
    CU_POINTER_ATTRIBUTE_IS_MANAGED Number,
    CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL Number,
    CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE Number,
    CU_POINTER_ATTRIBUTE_RANGE_START_ADDR Pointer,
    CU_POINTER_ATTRIBUTE_RANGE_SIZE Size,
    CU_POINTER_ATTRIBUTE_MAPPED Number,
    CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES Size,
    CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE Number,
    CU_POINTER_ATTRIBUTE_ACCESS_FLAGS Number,
    CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE Pointer,
    CU_POINTER_ATTRIBUTE_MAPPING_SIZE Size,
    CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR Pointer,
    CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID Identifier,
    CU_POINTER_ATTRIBUTE_IS_HW_DECOMPRESS_CAPABLE Number,
    #[cfg(feature = "cuda-13050")]
    CU_POINTER_ATTRIBUTE_LOCALITY_DOMAIN_ORDINAL Number,
];

/// `(value, "NAME")` of each range attribute.
macro_rules! named {
    ($($name:ident),* $(,)?) => {
        [$(($name, stringify!($name))),*]
    };
}

const RANGES: [(CUmem_range_attribute, &str); 8] = named![
    CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY,
    CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION,
    CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY,
    CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION,
    CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE,
    CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID,
    CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE,
    CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID,
];

/// Every pointer attribute of `ptr`, one line each.
unsafe fn pointer_attributes(what: &str, ptr: CUdeviceptr) {
    unsafe {
        println!("{what}:");
        for &(attribute, name, kind) in ATTRIBUTES {
            let mut value: [c_ulonglong; 8] = [0; 8];
            let code = cuPointerGetAttribute(value.as_mut_ptr().cast(), attribute, ptr);
            if code != CUresult::CUDA_SUCCESS || kind == ResultOnly {
                println!("  {name}: {}", result_name(code));
            } else if kind == Pointer {
                println!("  {name} = {}", p(value[0] as *const c_void));
            } else if kind == Number {
                println!("  {name} = {}", value[0] as c_uint);
            } else if kind == Size {
                println!("  {name} = {}", value[0]);
            } else {
                let nonzero = if value[0] != 0 { "nonzero" } else { "zero" };
                println!("  {name}: {nonzero}");
            }
        }
    }
}

/// A device's memory location.
fn on_device(device: CUdevice) -> CUmemLocation {
    location(CU_MEM_LOCATION_TYPE_DEVICE, device)
}

/// `cuMemRangeGetAttribute` of one `int`.
unsafe fn range_attribute(
    value: &mut c_int,
    attribute: CUmem_range_attribute,
    ptr: CUdeviceptr,
    size: usize,
) -> CUresult {
    unsafe {
        let data = (value as *mut c_int).cast();
        cuMemRangeGetAttribute(data, size_of::<c_int>(), attribute, ptr, size)
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
        let (mut managed_ok, mut concurrent): (c_int, c_int) = (0, 0);
        let attribute = CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY;
        check!(cuDeviceGetAttribute(&mut managed_ok, attribute, device));
        let attribute = CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS;
        check!(cuDeviceGetAttribute(&mut concurrent, attribute, device));
        println!("managed memory {managed_ok}, concurrent managed access {concurrent}");
        expect(
            managed_ok != 0 && concurrent != 0,
            "the device has managed memory with concurrent access",
        );
        if managed_ok == 0 || concurrent == 0 {
            finish();
        }

        let size: usize = 2 << 20;
        let count = size / size_of::<c_uint>();
        let (mut device_memory, mut managed): (CUdeviceptr, CUdeviceptr) = (0, 0);
        let mut pinned: *mut c_void = ptr::null_mut();
        if !check!(cuMemAlloc(&mut device_memory, size)) {
            finish();
        }
        if !check!(cuMemAllocHost(&mut pinned, size)) {
            finish();
        }
        if !check!(cuMemAllocManaged(
            &mut managed,
            size,
            CU_MEM_ATTACH_GLOBAL.0
        )) {
            finish();
        }

        // SYNC_MEMOPS unset, then set, each read back: the driver may already have it set.
        let (mut zero, mut one, mut memops): (c_int, c_int, c_int) = (0, 1, -1);
        let sync = CU_POINTER_ATTRIBUTE_SYNC_MEMOPS;
        check!(cuPointerSetAttribute(
            (&mut zero as *mut c_int).cast(),
            sync,
            device_memory
        ));
        check!(cuPointerGetAttribute(
            (&mut memops as *mut c_int).cast(),
            sync,
            device_memory
        ));
        expect(memops == 0, "SYNC_MEMOPS unset on the device memory");
        check!(cuPointerSetAttribute(
            (&mut one as *mut c_int).cast(),
            sync,
            device_memory
        ));
        pointer_attributes("device memory", device_memory);
        let at = if control("wrong_offset") {
            device_memory + 256
        } else {
            device_memory
        };
        check!(cuPointerGetAttribute(
            (&mut memops as *mut c_int).cast(),
            sync,
            at
        ));
        expect(memops == 1, "SYNC_MEMOPS set on the device memory");
        pointer_attributes("page-locked host memory", pinned as CUdeviceptr);
        pointer_attributes("managed memory", managed);

        let mut four = [
            CU_POINTER_ATTRIBUTE_CONTEXT,
            CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
            CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
            CU_POINTER_ATTRIBUTE_IS_MANAGED,
        ];
        let mut owner: CUcontext = ptr::null_mut();
        let (mut memory_type, mut is_managed): (c_uint, c_uint) = (0, 0);
        let mut ordinal: c_int = -1;
        let mut data: [*mut c_void; 4] = [
            (&mut owner as *mut CUcontext).cast(),
            (&mut memory_type as *mut c_uint).cast(),
            (&mut ordinal as *mut c_int).cast(),
            (&mut is_managed as *mut c_uint).cast(),
        ];
        check!(cuPointerGetAttributes(
            4,
            four.as_mut_ptr(),
            data.as_mut_ptr(),
            managed
        ));
        println!(
            "cuPointerGetAttributes of managed memory: type {memory_type}, ordinal {ordinal}, \
             managed {is_managed}, context {}",
            if owner == context {
                "the primary one"
            } else {
                "another"
            }
        );
        expect(
            is_managed == 1 && owner == context,
            "managed memory reads as managed, in this context",
        );

        // Advice, a prefetch to the device, and the data seen there and on the host.
        let mut stream: CUstream = ptr::null_mut();
        check!(cuStreamCreate(&mut stream, CU_STREAM_NON_BLOCKING.0));
        let words = std::slice::from_raw_parts_mut(managed as *mut c_uint, count);
        for (i, w) in words.iter_mut().enumerate() {
            *w = (i * 7 + 1) as c_uint;
        }
        let here = on_device(device);
        check!(cuMemAdvise(
            managed,
            size,
            CU_MEM_ADVISE_SET_READ_MOSTLY,
            here
        ));
        check!(cuMemAdvise(
            managed,
            size,
            CU_MEM_ADVISE_SET_PREFERRED_LOCATION,
            here
        ));
        check!(cuMemAdvise(
            managed,
            size,
            CU_MEM_ADVISE_SET_ACCESSED_BY,
            here
        ));
        delay(stream);
        check!(cuMemPrefetchAsync(managed, size, here, 0, stream));
        check!(cuStreamSynchronize(stream));
        expect_idle(
            stream,
            "the prefetch to the device done after cuStreamSynchronize",
        );
        for (attribute, name) in RANGES {
            let mut value: c_int = -1;
            let code = range_attribute(&mut value, attribute, managed, size);
            if code == CUresult::CUDA_SUCCESS {
                println!("  {name} = {value}");
            } else {
                println!("  {name}: {}", result_name(code));
            }
        }
        let mut values: [c_int; RANGES.len()] = [-1; RANGES.len()];
        let mut range_data: Vec<*mut c_void> = values
            .iter_mut()
            .map(|v| (v as *mut c_int).cast())
            .collect();
        let mut sizes = [size_of::<c_int>(); RANGES.len()];
        let mut which = RANGES.map(|(attribute, _)| attribute);
        check!(cuMemRangeGetAttributes(
            range_data.as_mut_ptr(),
            sizes.as_mut_ptr(),
            which.as_mut_ptr(),
            RANGES.len(),
            managed,
            size
        ));
        let shown: String = values.iter().map(|v| format!(" {v}")).collect();
        println!("cuMemRangeGetAttributes:{shown}");
        expect(
            values[0] == 1 && values[1] == device && values[2] == device && values[3] == device,
            "read mostly, preferred on the device, accessed by it and prefetched there",
        );
        let mut copy: Vec<c_uint> = vec![0; count];
        check!(cuMemcpyDtoH(copy.as_mut_ptr().cast(), managed, size));
        let same = (0..count)
            .filter(|&i| copy[i] == (i * 7 + 1) as c_uint && words[i] == copy[i])
            .count();
        println!(
            "managed data, copied from the device and read on the host: {same} of {count} words"
        );
        expect(
            same == count,
            "the managed data reads the same on the device and the host",
        );

        // CUDA 13's batches: the two halves prefetched to the host, discarded, then discarded
        // and prefetched to the device.
        let mut halves: [CUdeviceptr; 2] = [managed, managed + size as CUdeviceptr / 2];
        let mut half_sizes: [usize; 2] = [size / 2, size / 2];
        let mut locations = [location(CU_MEM_LOCATION_TYPE_HOST, 0)];
        let mut first: [usize; 1] = [0];
        delay(stream);
        check!(cuMemPrefetchBatchAsync(
            halves.as_mut_ptr(),
            half_sizes.as_mut_ptr(),
            2,
            locations.as_mut_ptr(),
            first.as_mut_ptr(),
            1,
            0,
            stream
        ));
        check!(cuStreamSynchronize(stream));
        expect_idle(
            stream,
            "the batch prefetch to the host done after cuStreamSynchronize",
        );
        let mut last: c_int = -2;
        let attribute = CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE;
        check!(range_attribute(&mut last, attribute, managed, size));
        println!("after the batch prefetch to the host: last prefetch location type {last}");
        expect(
            last == CU_MEM_LOCATION_TYPE_HOST.0 as c_int,
            "the batch prefetched to the host",
        );
        delay(stream);
        check!(cuMemDiscardBatchAsync(
            halves.as_mut_ptr(),
            half_sizes.as_mut_ptr(),
            2,
            0,
            stream
        ));
        locations[0] = on_device(device);
        check!(cuMemDiscardAndPrefetchBatchAsync(
            halves.as_mut_ptr(),
            half_sizes.as_mut_ptr(),
            2,
            locations.as_mut_ptr(),
            first.as_mut_ptr(),
            1,
            0,
            stream
        ));
        check!(cuStreamSynchronize(stream));
        expect_idle(
            stream,
            "the discards and prefetch done after cuStreamSynchronize",
        );
        check!(range_attribute(&mut last, attribute, managed, size));
        println!("after discard and prefetch to the device: last prefetch location type {last}");
        expect(
            last == CU_MEM_LOCATION_TYPE_DEVICE.0 as c_int,
            "the batch prefetched to the device",
        );

        // Newer than CUDA 13.0: looked up by version, as a program that must start on older
        // drivers.
        #[cfg(feature = "cuda-13040")]
        {
            let mut pfn: *mut c_void = ptr::null_mut();
            let mut status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
            let found = cuGetProcAddress(
                c"cuMemGetLocationInfo".as_ptr(),
                &mut pfn,
                13040,
                CU_GET_PROC_ADDRESS_DEFAULT.0 as _,
                &mut status,
            );
            println!(
                "cuGetProcAddress(cuMemGetLocationInfo, 13040): {}, {}",
                result_name(found),
                if pfn.is_null() { "none" } else { "found" }
            );
            if !pfn.is_null() {
                let function: PFN_cuMemGetLocationInfo_v13040 = std::mem::transmute(pfn);
                let mut place: CUmemLocation = std::mem::zeroed();
                let code = function.unwrap()(managed, size, size, 0, &mut place);
                println!(
                    "cuMemGetLocationInfo: {}, location type {}",
                    result_name(code),
                    place.type_.0
                );
            }
        }

        check!(cuStreamDestroy(stream));
        check!(cuMemFree(managed));
        check!(cuMemFreeHost(pinned));
        check!(cuMemFree(device_memory));
        check!(cuDevicePrimaryCtxRelease(device));
        finish()
    }
}
