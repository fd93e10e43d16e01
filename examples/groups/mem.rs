//! The memory group beyond allocation: every copy form (host, device, arrays; 1D, 2D, 3D;
//! pitched, unaligned, unified-address and asynchronous ones; CUDA 12.8's batches), every memset
//! (8, 16 and 32 bits, 2D, asynchronous), 1D, 2D and 3D arrays with their descriptors, mipmapped
//! arrays (a level, sparse properties, a deferred-mapping one's memory requirements), a
//! multi-planar (NV12) array's two planes, registered host memory and its flags, address ranges, a DMA-BUF handle for a range, the
//! memory's info, and where the driver answers them, async notifications and batched
//! decompression. Each copy and set is read back. C twin: `mem.cpp`.

#[path = "common/mod.rs"]
mod common;

use std::ffi::{c_int, c_uint, c_void};
use std::mem::zeroed;
use std::ptr;

use common::{check, control, delay, expect, expect_all, expect_idle, finish, result_name, show};
use cuda_driver_sys::*;

/// Words of each buffer.
const N: usize = 4096;
const B: usize = N * size_of::<c_uint>();
/// The word `cuMemsetD32` writes before the unified-address copies carry it on: no buffer holds it
/// before.
const SET: c_uint = 0x5eed_0001;

fn fill(p: &mut [c_uint], seed: c_uint) {
    for (i, v) in p.iter_mut().enumerate() {
        *v = seed.wrapping_add((i as c_uint).wrapping_mul(3));
    }
}

fn matches(p: &[c_uint], seed: c_uint) -> usize {
    (p.iter().enumerate())
        .filter(|(i, v)| **v == seed.wrapping_add((*i as c_uint).wrapping_mul(3)))
        .count()
}

/// How many of the `n` values of type `T` at `p` are `value`.
unsafe fn equal<T: PartialEq + Copy>(p: *const c_void, n: usize, value: T) -> usize {
    let values = std::slice::from_raw_parts(p.cast::<T>(), n);
    values.iter().filter(|v| **v == value).count()
}

unsafe fn print_array(what: &str, array: CUarray) {
    unsafe {
        let mut d: CUDA_ARRAY3D_DESCRIPTOR = zeroed();
        check!(cuArray3DGetDescriptor(&mut d, array));
        println!(
            "{what}: {} x {} x {}, format {}, {} channel(s), flags {}",
            d.Width, d.Height, d.Depth, d.Format.0, d.NumChannels, d.Flags
        );
    }
}

unsafe extern "C" fn async_notification(
    _info: *mut CUasyncNotificationInfo,
    _user: *mut c_void,
    _handle: CUasyncCallbackHandle,
) {
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
        let (mut free_bytes, mut total): (usize, usize) = (0, 0);
        check!(cuMemGetInfo(&mut free_bytes, &mut total));
        println!(
            "memory: {total} bytes, free no more than that: {}",
            if free_bytes <= total { "yes" } else { "no" }
        );
        expect(
            free_bytes <= total,
            "cuMemGetInfo's free memory is at most the total",
        );

        let mut stream: CUstream = ptr::null_mut();
        check!(cuStreamCreate(&mut stream, CU_STREAM_NON_BLOCKING.0));
        let mut host: Vec<c_uint> = vec![0; N];
        let mut back: Vec<c_uint> = vec![0; N];
        let (mut pinned_raw, mut pinned_back_raw): (*mut c_void, *mut c_void) =
            (ptr::null_mut(), ptr::null_mut());
        if !check!(cuMemAllocHost(&mut pinned_raw, B)) {
            finish();
        }
        if !check!(cuMemAllocHost(&mut pinned_back_raw, B)) {
            finish();
        }
        let pinned = std::slice::from_raw_parts_mut(pinned_raw.cast::<c_uint>(), N);
        let pinned_back = std::slice::from_raw_parts_mut(pinned_back_raw.cast::<c_uint>(), N);
        let mut flags: c_uint = 0;
        check!(cuMemHostGetFlags(&mut flags, pinned_raw));
        println!("cuMemAllocHost's flags: {flags}");
        let (mut d1, mut d2): (CUdeviceptr, CUdeviceptr) = (0, 0);
        if !check!(cuMemAlloc(&mut d1, B)) || !check!(cuMemAlloc(&mut d2, B)) {
            finish();
        }
        let back_raw: *mut c_void = back.as_mut_ptr().cast();

        // Linear memory: synchronous, unified-address and asynchronous copies, each into memory
        // that does not hold what it copies. Each group of asynchronous work waits behind a delay
        // in its stream, so that its results are certainly not there before the synchronisation.
        fill(&mut host, 1);
        check!(cuMemcpyHtoD(d1, host.as_ptr().cast(), B));
        check!(cuMemcpyDtoD(d2, d1, B));
        back.fill(0);
        check!(cuMemcpyDtoH(back_raw, d2, B));
        // The control `no_copy_check` leaves this check out: the page's control, with the drop of
        // the cuMemcpyDtoH above, which only this check sees.
        if !control("no_copy_check") {
            expect_all(
                "cuMemcpyHtoD, cuMemcpyDtoD, cuMemcpyDtoH",
                matches(&back, 1),
                N,
            );
        }
        check!(cuMemsetD32(d1, SET, N));
        check!(cuMemcpy(d2, d1, B));
        back.fill(0);
        check!(cuMemcpy(back_raw as CUdeviceptr, d2, B));
        expect_all(
            "cuMemsetD32, cuMemcpy (unified addresses)",
            equal::<u32>(back_raw, N, SET),
            N,
        );
        fill(pinned, 2);
        pinned_back.fill(0);
        delay(stream);
        check!(cuMemcpyHtoDAsync(d1, pinned_raw, B, stream));
        check!(cuMemcpyDtoDAsync(d2, d1, B, stream));
        check!(cuMemcpyAsync(pinned_back_raw as CUdeviceptr, d2, B, stream));
        check!(cuStreamSynchronize(stream));
        expect_all(
            "cuMemcpyHtoDAsync, cuMemcpyDtoDAsync, cuMemcpyAsync (unified addresses)",
            matches(pinned_back, 2),
            N,
        );
        let mut base: CUdeviceptr = 0;
        let mut range: usize = 0;
        check!(cuMemGetAddressRange(&mut base, &mut range, d1 + 100));
        println!(
            "cuMemGetAddressRange inside the first buffer: its start {}, {range} bytes",
            if base == d1 { "yes" } else { "no" }
        );
        expect(
            base == d1 && range >= B,
            "the address range is the allocation's",
        );

        // Memsets, synchronous and asynchronous.
        check!(cuMemsetD8(d1, 0xab, B));
        check!(cuMemcpyDtoH(back_raw, d1, B));
        expect_all("cuMemsetD8", equal::<u8>(back_raw, B, 0xab), B);
        check!(cuMemsetD16(d1, 0xbeef, B / 2));
        check!(cuMemcpyDtoH(back_raw, d1, B));
        expect_all("cuMemsetD16", equal::<u16>(back_raw, B / 2, 0xbeef), B / 2);
        delay(stream);
        check!(cuMemsetD8Async(d1, 0xcd, B, stream));
        check!(cuMemcpyDtoHAsync(pinned_back_raw, d1, B, stream));
        check!(cuStreamSynchronize(stream));
        expect_all("cuMemsetD8Async", equal::<u8>(pinned_back_raw, B, 0xcd), B);
        delay(stream);
        check!(cuMemsetD16Async(d1, 0x1234, B / 2, stream));
        check!(cuMemcpyDtoHAsync(pinned_back_raw, d1, B, stream));
        check!(cuStreamSynchronize(stream));
        expect_all(
            "cuMemsetD16Async",
            equal::<u16>(pinned_back_raw, B / 2, 0x1234),
            B / 2,
        );
        delay(stream);
        check!(cuMemsetD32Async(d1, 0x89abcdef, N, stream));
        check!(cuMemcpyDtoHAsync(pinned_back_raw, d1, B, stream));
        check!(cuStreamSynchronize(stream));
        expect_all(
            "cuMemsetD32Async",
            equal::<u32>(pinned_back_raw, N, 0x89abcdef),
            N,
        );

        // Pitched memory: 2D sets, 2D copies through it and a 2D array.
        let (width, height): (usize, usize) = (64 * size_of::<c_uint>(), 32); // N / 2 words
        let mut pitched: CUdeviceptr = 0;
        let mut pitch: usize = 0;
        let element = size_of::<c_uint>() as c_uint;
        if !check!(cuMemAllocPitch(
            &mut pitched,
            &mut pitch,
            width,
            height,
            element
        )) {
            finish();
        }
        println!("cuMemAllocPitch: {pitch} bytes a row for {width}");
        let mut to_host: CUDA_MEMCPY2D = zeroed();
        to_host.srcMemoryType = CU_MEMORYTYPE_DEVICE;
        to_host.srcDevice = pitched;
        to_host.srcPitch = pitch;
        to_host.dstMemoryType = CU_MEMORYTYPE_HOST;
        to_host.dstHost = back_raw;
        to_host.dstPitch = width;
        to_host.WidthInBytes = width;
        to_host.Height = height;
        let area = width * height;
        check!(cuMemsetD2D8(pitched, pitch, 0x11, width, height));
        check!(cuMemcpy2D(&to_host));
        expect_all("cuMemsetD2D8", equal::<u8>(back_raw, area, 0x11), area);
        check!(cuMemsetD2D16(pitched, pitch, 0x2222, width / 2, height));
        check!(cuMemcpy2D(&to_host));
        expect_all(
            "cuMemsetD2D16",
            equal::<u16>(back_raw, area / 2, 0x2222),
            area / 2,
        );
        check!(cuMemsetD2D32(pitched, pitch, 0x33333333, width / 4, height));
        check!(cuMemcpy2D(&to_host));
        expect_all(
            "cuMemsetD2D32",
            equal::<u32>(back_raw, N / 2, 0x33333333),
            N / 2,
        );
        let mut to_pinned = to_host;
        to_pinned.dstHost = pinned_back_raw;
        delay(stream);
        check!(cuMemsetD2D8Async(
            pitched, pitch, 0x44, width, height, stream
        ));
        check!(cuMemcpy2DAsync(&to_pinned, stream));
        check!(cuStreamSynchronize(stream));
        expect_all(
            "cuMemsetD2D8Async",
            equal::<u8>(pinned_back_raw, area, 0x44),
            area,
        );
        delay(stream);
        check!(cuMemsetD2D16Async(
            pitched,
            pitch,
            0x5555,
            width / 2,
            height,
            stream
        ));
        check!(cuMemcpy2DAsync(&to_pinned, stream));
        check!(cuStreamSynchronize(stream));
        expect_all(
            "cuMemsetD2D16Async",
            equal::<u16>(pinned_back_raw, area / 2, 0x5555),
            area / 2,
        );
        delay(stream);
        check!(cuMemsetD2D32Async(
            pitched,
            pitch,
            0x66666666,
            width / 4,
            height,
            stream
        ));
        check!(cuMemcpy2DAsync(&to_pinned, stream));
        check!(cuStreamSynchronize(stream));
        expect_all(
            "cuMemsetD2D32Async and cuMemcpy2DAsync",
            equal::<u32>(pinned_back_raw, N / 2, 0x66666666),
            N / 2,
        );
        let mut flat: CUDA_ARRAY_DESCRIPTOR = zeroed();
        flat.Width = 64;
        flat.Height = 32;
        flat.Format = CU_AD_FORMAT_UNSIGNED_INT32;
        flat.NumChannels = 1;
        let mut array2d: CUarray = ptr::null_mut();
        if !check!(cuArrayCreate(&mut array2d, &flat)) {
            finish();
        }
        let mut described: CUDA_ARRAY_DESCRIPTOR = zeroed();
        check!(cuArrayGetDescriptor(&mut described, array2d));
        println!(
            "2D array: {} x {}, format {}, {} channel(s)",
            described.Width, described.Height, described.Format.0, described.NumChannels
        );
        fill(&mut host[..N / 2], 3);
        let mut copy: CUDA_MEMCPY2D = zeroed();
        copy.srcMemoryType = CU_MEMORYTYPE_HOST;
        copy.srcHost = host.as_ptr().cast();
        copy.srcPitch = width;
        copy.dstMemoryType = CU_MEMORYTYPE_DEVICE;
        copy.dstDevice = pitched;
        copy.dstPitch = pitch;
        copy.WidthInBytes = width;
        copy.Height = height;
        check!(cuMemcpy2D(&copy));
        let mut copy: CUDA_MEMCPY2D = zeroed();
        copy.srcMemoryType = CU_MEMORYTYPE_DEVICE;
        copy.srcDevice = pitched;
        copy.srcPitch = pitch;
        copy.dstMemoryType = CU_MEMORYTYPE_ARRAY;
        copy.dstArray = array2d;
        copy.WidthInBytes = width;
        copy.Height = height;
        delay(stream);
        check!(cuMemcpy2DAsync(&copy, stream));
        check!(cuStreamSynchronize(stream));
        let mut copy: CUDA_MEMCPY2D = zeroed();
        copy.srcMemoryType = CU_MEMORYTYPE_ARRAY;
        copy.srcArray = array2d;
        copy.dstMemoryType = CU_MEMORYTYPE_HOST;
        copy.dstHost = back_raw;
        copy.dstPitch = width;
        copy.WidthInBytes = width;
        copy.Height = height;
        back.fill(0);
        check!(cuMemcpy2DUnaligned(&copy));
        expect_all(
            "cuMemcpy2D host to pitched, cuMemcpy2DAsync to a 2D array, cuMemcpy2DUnaligned back",
            matches(&back[..N / 2], 3),
            N / 2,
        );

        // 1D arrays: to and from the host, the device and another array.
        flat.Width = N;
        flat.Height = 0;
        let (mut array1d, mut other1d): (CUarray, CUarray) = (ptr::null_mut(), ptr::null_mut());
        if !check!(cuArrayCreate(&mut array1d, &flat))
            || !check!(cuArrayCreate(&mut other1d, &flat))
        {
            finish();
        }
        fill(&mut host, 4);
        check!(cuMemcpyHtoA(array1d, 0, host.as_ptr().cast(), B));
        check!(cuMemcpyAtoA(other1d, 0, array1d, 0, B));
        check!(cuMemcpyAtoD(d1, other1d, 0, B));
        back.fill(0);
        check!(cuMemcpyDtoH(back_raw, d1, B));
        expect_all(
            "cuMemcpyHtoA, cuMemcpyAtoA, cuMemcpyAtoD",
            matches(&back, 4),
            N,
        );
        fill(&mut host, 5);
        check!(cuMemcpyHtoD(d2, host.as_ptr().cast(), B));
        check!(cuMemcpyDtoA(array1d, 0, d2, B));
        back.fill(0);
        check!(cuMemcpyAtoH(back_raw, array1d, 0, B));
        expect_all("cuMemcpyDtoA, cuMemcpyAtoH", matches(&back, 5), N);
        fill(pinned, 6);
        delay(stream);
        check!(cuMemcpyHtoAAsync(array1d, 0, pinned_raw, B, stream));
        check!(cuMemcpyAtoHAsync(pinned_back_raw, array1d, 0, B, stream));
        check!(cuStreamSynchronize(stream));
        expect_all(
            "cuMemcpyHtoAAsync, cuMemcpyAtoHAsync",
            matches(pinned_back, 6),
            N,
        );

        // A 3D array: 16 x 16 x 4 words, the host's data there and back.
        let mut cube: CUDA_ARRAY3D_DESCRIPTOR = zeroed();
        cube.Width = 16;
        cube.Height = 16;
        cube.Depth = 4;
        cube.Format = CU_AD_FORMAT_UNSIGNED_INT32;
        cube.NumChannels = 1;
        let mut array3d: CUarray = ptr::null_mut();
        if !check!(cuArray3DCreate(&mut array3d, &cube)) {
            finish();
        }
        print_array("3D array", array3d);
        let cube_words = 16 * 16 * 4;
        fill(&mut host[..cube_words], 7);
        let mut copy3d: CUDA_MEMCPY3D = zeroed();
        copy3d.srcMemoryType = CU_MEMORYTYPE_HOST;
        copy3d.srcHost = host.as_ptr().cast();
        copy3d.srcPitch = 16 * size_of::<c_uint>();
        copy3d.srcHeight = 16;
        copy3d.dstMemoryType = CU_MEMORYTYPE_ARRAY;
        copy3d.dstArray = array3d;
        copy3d.WidthInBytes = 16 * size_of::<c_uint>();
        copy3d.Height = 16;
        copy3d.Depth = 4;
        check!(cuMemcpy3D(&copy3d));
        let mut from3d: CUDA_MEMCPY3D = zeroed();
        from3d.srcMemoryType = CU_MEMORYTYPE_ARRAY;
        from3d.srcArray = array3d;
        from3d.dstMemoryType = CU_MEMORYTYPE_HOST;
        from3d.dstHost = pinned_back_raw;
        from3d.dstPitch = 16 * size_of::<c_uint>();
        from3d.dstHeight = 16;
        from3d.WidthInBytes = 16 * size_of::<c_uint>();
        from3d.Height = 16;
        from3d.Depth = 4;
        pinned_back.fill(0);
        delay(stream);
        check!(cuMemcpy3DAsync(&from3d, stream));
        check!(cuStreamSynchronize(stream));
        expect_all(
            "cuMemcpy3D to a 3D array, cuMemcpy3DAsync back",
            matches(&pinned_back[..cube_words], 7),
            cube_words,
        );

        // CUDA 12.8's batches: two copies from the host, and a 3D copy into the array.
        fill(pinned, 8);
        let mut dsts: [CUdeviceptr; 2] = [d1, d2];
        let mut srcs: [CUdeviceptr; 2] = [pinned_raw as CUdeviceptr; 2];
        let mut sizes: [usize; 2] = [B, B];
        let mut attrs: CUmemcpyAttributes = zeroed();
        attrs.srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_STREAM;
        let mut attrs_idxs: [usize; 1] = [0];
        delay(stream);
        #[cfg(feature = "cuda-13000")]
        check!(cuMemcpyBatchAsync(
            dsts.as_mut_ptr(),
            srcs.as_mut_ptr(),
            sizes.as_mut_ptr(),
            2,
            &mut attrs,
            attrs_idxs.as_mut_ptr(),
            1,
            stream
        ));
        #[cfg(not(feature = "cuda-13000"))]
        let mut fail_index: usize = 0;
        #[cfg(not(feature = "cuda-13000"))]
        check!(cuMemcpyBatchAsync(
            dsts.as_mut_ptr(),
            srcs.as_mut_ptr(),
            sizes.as_mut_ptr(),
            2,
            &mut attrs,
            attrs_idxs.as_mut_ptr(),
            1,
            &mut fail_index,
            stream
        ));
        check!(cuStreamSynchronize(stream));
        let mut batch = 0;
        for dst in dsts {
            back.fill(0);
            check!(cuMemcpyDtoH(back_raw, dst, B));
            batch += matches(&back, 8);
        }
        expect_all("cuMemcpyBatchAsync, two copies", batch, 2 * N);
        fill(&mut pinned[..cube_words], 9);
        let mut op: CUDA_MEMCPY3D_BATCH_OP = zeroed();
        op.src.type_ = CU_MEMCPY_OPERAND_TYPE_POINTER;
        op.src.op.ptr.ptr = pinned_raw as CUdeviceptr;
        op.src.op.ptr.rowLength = 16;
        op.src.op.ptr.layerHeight = 16;
        op.dst.type_ = CU_MEMCPY_OPERAND_TYPE_ARRAY;
        op.dst.op.array.array = array3d;
        op.extent.width = 16;
        op.extent.height = 16;
        op.extent.depth = 4;
        op.srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_STREAM;
        delay(stream);
        #[cfg(feature = "cuda-13000")]
        check!(cuMemcpy3DBatchAsync(1, &mut op, 0, stream));
        #[cfg(not(feature = "cuda-13000"))]
        check!(cuMemcpy3DBatchAsync(1, &mut op, &mut fail_index, 0, stream));
        pinned_back.fill(0);
        check!(cuMemcpy3DAsync(&from3d, stream));
        check!(cuStreamSynchronize(stream));
        expect_all(
            "cuMemcpy3DBatchAsync into the 3D array",
            matches(&pinned_back[..cube_words], 9),
            cube_words,
        );

        // Newer than CUDA 13.0: looked up by version, called where the driver has them.
        #[cfg(feature = "cuda-13020")]
        {
            let mut pfn: *mut c_void = ptr::null_mut();
            let mut status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
            let default = CU_GET_PROC_ADDRESS_DEFAULT.0 as _;
            let name = c"cuMemcpyWithAttributesAsync";
            let found = cuGetProcAddress(name.as_ptr(), &mut pfn, 13020, default, &mut status);
            println!(
                "cuGetProcAddress(cuMemcpyWithAttributesAsync, 13020): {}, {}",
                result_name(found),
                if pfn.is_null() { "none" } else { "found" }
            );
            if !pfn.is_null() {
                fill(pinned, 10);
                let function: PFN_cuMemcpyWithAttributesAsync_v13020 = std::mem::transmute(pfn);
                let src = pinned_raw as CUdeviceptr;
                delay(stream);
                check!(function.unwrap()(d1, src, B, &mut attrs, stream));
                check!(cuMemcpyDtoHAsync(pinned_back_raw, d1, B, stream));
                check!(cuStreamSynchronize(stream));
                expect_all("cuMemcpyWithAttributesAsync", matches(pinned_back, 10), N);
            }
            pfn = ptr::null_mut();
            let name = c"cuMemcpy3DWithAttributesAsync";
            let found = cuGetProcAddress(name.as_ptr(), &mut pfn, 13020, default, &mut status);
            println!(
                "cuGetProcAddress(cuMemcpy3DWithAttributesAsync, 13020): {}, {}",
                result_name(found),
                if pfn.is_null() { "none" } else { "found" }
            );
            if !pfn.is_null() {
                fill(&mut pinned[..cube_words], 11);
                let function: PFN_cuMemcpy3DWithAttributesAsync_v13020 = std::mem::transmute(pfn);
                pinned_back.fill(0);
                delay(stream);
                check!(function.unwrap()(&mut op, 0, stream));
                check!(cuMemcpy3DAsync(&from3d, stream));
                check!(cuStreamSynchronize(stream));
                expect_all(
                    "cuMemcpy3DWithAttributesAsync",
                    matches(&pinned_back[..cube_words], 11),
                    cube_words,
                );
            }
        }

        // Mipmapped arrays: a level's descriptor; a sparse one's properties and memory
        // requirements.
        let mut mip_desc: CUDA_ARRAY3D_DESCRIPTOR = zeroed();
        mip_desc.Width = 64;
        mip_desc.Height = 64;
        mip_desc.Format = CU_AD_FORMAT_FLOAT;
        mip_desc.NumChannels = 1;
        let mut mipmapped: CUmipmappedArray = ptr::null_mut();
        if check!(cuMipmappedArrayCreate(&mut mipmapped, &mip_desc, 4)) {
            let mut level: CUarray = ptr::null_mut();
            check!(cuMipmappedArrayGetLevel(&mut level, mipmapped, 2));
            print_array("mipmapped array, level 2", level);
            check!(cuMipmappedArrayDestroy(mipmapped));
        }
        mip_desc.Width = 1024;
        mip_desc.Height = 1024;
        mip_desc.Flags = CUDA_ARRAY3D_SPARSE;
        let mut sparse: CUmipmappedArray = ptr::null_mut();
        if check!(cuMipmappedArrayCreate(&mut sparse, &mip_desc, 4)) {
            let mut props: CUDA_ARRAY_SPARSE_PROPERTIES = zeroed();
            check!(cuMipmappedArrayGetSparseProperties(&mut props, sparse));
            println!(
                "sparse mipmapped array: tile {} x {} x {}, mip tail from level {}, {} bytes",
                props.tileExtent.width,
                props.tileExtent.height,
                props.tileExtent.depth,
                props.miptailFirstLevel,
                props.miptailSize
            );
            check!(cuMipmappedArrayDestroy(sparse));
        }
        mip_desc.Flags = CUDA_ARRAY3D_DEFERRED_MAPPING;
        let mut deferred: CUmipmappedArray = ptr::null_mut();
        if check!(cuMipmappedArrayCreate(&mut deferred, &mip_desc, 4)) {
            let mut needs: CUDA_ARRAY_MEMORY_REQUIREMENTS = zeroed();
            check!(cuMipmappedArrayGetMemoryRequirements(
                &mut needs, deferred, device
            ));
            println!(
                "deferred-mapping mipmapped array memory: {} bytes, alignment {}",
                needs.size, needs.alignment
            );
            check!(cuMipmappedArrayDestroy(deferred));
        }

        // A multi-planar (NV12) array: the driver takes the format with three channels and
        // CUDA_ARRAY3D_VIDEO_ENCODE_DECODE (without either it answers CUDA_ERROR_INVALID_VALUE).
        // Its planes, the luma (64 x 64 bytes) and the interleaved chroma (32 x 32 pairs), are
        // arrays of their own: known bytes go into each and come back out; a two-plane format
        // has no plane 2.
        let mut nv12: CUDA_ARRAY3D_DESCRIPTOR = zeroed();
        nv12.Width = 64;
        nv12.Height = 64;
        nv12.Format = CU_AD_FORMAT_NV12;
        nv12.NumChannels = 3;
        nv12.Flags = CUDA_ARRAY3D_VIDEO_ENCODE_DECODE;
        let mut planar: CUarray = ptr::null_mut();
        if check!(cuArray3DCreate(&mut planar, &nv12)) {
            print_array("NV12 array", planar);
            // The control `nv12_planes_mixed` reads plane 1's bytes back from plane 0.
            let mut luma: CUarray = ptr::null_mut();
            for index in 0..2u32 {
                let mut plane: CUarray = ptr::null_mut();
                if !check!(cuArrayGetPlane(&mut plane, planar, index)) {
                    continue;
                }
                if index == 0 {
                    luma = plane;
                }
                print_array(&format!("its plane {index}"), plane);
                // Both planes are 64 bytes wide: 64 luma bytes, or 32 chroma pairs, per row.
                let rows: usize = if index == 0 { 64 } else { 32 };
                let input: Vec<u8> = (0..64 * rows)
                    .map(|i| (i * 7 + index as usize) as u8)
                    .collect();
                let mut output = vec![0u8; 64 * rows];
                let mut copy: CUDA_MEMCPY2D = zeroed();
                copy.srcMemoryType = CU_MEMORYTYPE_HOST;
                copy.srcHost = input.as_ptr().cast();
                copy.srcPitch = 64;
                copy.dstMemoryType = CU_MEMORYTYPE_ARRAY;
                copy.dstArray = plane;
                copy.WidthInBytes = 64;
                copy.Height = rows;
                check!(cuMemcpy2D(&copy));
                let mut copy: CUDA_MEMCPY2D = zeroed();
                copy.srcMemoryType = CU_MEMORYTYPE_ARRAY;
                copy.srcArray = if control("nv12_planes_mixed") && !luma.is_null() {
                    luma
                } else {
                    plane
                };
                copy.dstMemoryType = CU_MEMORYTYPE_HOST;
                copy.dstHost = output.as_mut_ptr().cast();
                copy.dstPitch = 64;
                copy.WidthInBytes = 64;
                copy.Height = rows;
                check!(cuMemcpy2D(&copy));
                let same = input.iter().zip(&output).filter(|(a, b)| a == b).count();
                expect_all(&format!("NV12 plane {index} bytes back"), same, 64 * rows);
            }
            let mut none: CUarray = ptr::null_mut();
            expect(
                !show(
                    "cuArrayGetPlane of plane 2",
                    cuArrayGetPlane(&mut none, planar, 2),
                ),
                "a two-plane array has no plane 2",
            );
            check!(cuArrayDestroy(planar));
        }

        // Registered host memory, written by the device through its mapping (an asynchronous set:
        // a synchronous one into host memory would not return before it is done).
        let mut registered: *mut c_void = ptr::null_mut();
        if libc::posix_memalign(&mut registered, 4096, 65536) == 0 {
            ptr::write_bytes(registered.cast::<u8>(), 0, 65536);
            if check!(cuMemHostRegister(
                registered,
                65536,
                CU_MEMHOSTREGISTER_DEVICEMAP
            )) {
                check!(cuMemHostGetFlags(&mut flags, registered));
                println!("registered host memory's flags: {flags}");
                let mut mapped: CUdeviceptr = 0;
                check!(cuMemHostGetDevicePointer(&mut mapped, registered, 0));
                delay(stream);
                check!(cuMemsetD32Async(mapped, 0x5a5a5a5a, 65536 / 4, stream));
                check!(cuCtxSynchronize());
                expect_all(
                    "cuMemHostRegister, written by the device",
                    equal::<u32>(registered, 65536 / 4, 0x5a5a5a5a),
                    65536 / 4,
                );
                expect_idle(stream, "the set done after cuCtxSynchronize");
                check!(cuMemHostUnregister(registered));
            }
            libc::free(registered);
        }

        // A DMA-BUF file descriptor for a range of device memory, where the system has them.
        let mut dma_buf: c_int = 0;
        let attribute = CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED;
        check!(cuDeviceGetAttribute(&mut dma_buf, attribute, device));
        let mut big: CUdeviceptr = 0;
        check!(cuMemAlloc(&mut big, 2 << 20));
        let mut fd: c_int = -1;
        let code = cuMemGetHandleForAddressRange(
            (&mut fd as *mut c_int).cast(),
            big,
            2 << 20,
            CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD,
            0,
        );
        println!(
            "DMA-BUF supported {dma_buf}; cuMemGetHandleForAddressRange: {}",
            result_name(code)
        );
        if code == CUresult::CUDA_SUCCESS {
            libc::close(fd);
        }
        check!(cuMemFree(big));

        // What this driver answers for async notifications and batched decompression.
        let mut notification: CUasyncCallbackHandle = ptr::null_mut();
        let code = cuDeviceRegisterAsyncNotification(
            device,
            Some(async_notification),
            ptr::null_mut(),
            &mut notification,
        );
        println!("cuDeviceRegisterAsyncNotification: {}", result_name(code));
        if code == CUresult::CUDA_SUCCESS {
            check!(cuDeviceUnregisterAsyncNotification(device, notification));
        }
        let mut error_index: usize = 0;
        let code = cuMemBatchDecompressAsync(ptr::null_mut(), 0, 0, &mut error_index, stream);
        println!(
            "cuMemBatchDecompressAsync of nothing: {}",
            result_name(code)
        );

        check!(cuArrayDestroy(array3d));
        check!(cuArrayDestroy(other1d));
        check!(cuArrayDestroy(array1d));
        check!(cuArrayDestroy(array2d));
        check!(cuMemFree(pitched));
        check!(cuMemFree(d2));
        check!(cuMemFree(d1));
        check!(cuMemFreeHost(pinned_back_raw));
        check!(cuMemFreeHost(pinned_raw));
        check!(cuStreamDestroy(stream));
        check!(cuDevicePrimaryCtxRelease(device));
        finish()
    }
}
