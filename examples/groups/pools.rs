//! The stream-ordered memory allocator: the MALLOC_ASYNC group in one process (its sharing
//! between processes is in `ipc.rs`). Every attribute of the device's default pool, three set;
//! memory allocated and freed in stream order from it (`cuMemAllocAsync`, `cuMemFreeAsync`), then
//! trimmed back (`cuMemPoolTrimTo`); a pool of its own, allocated from, with its access set and
//! read back; CUDA 13's pools by location (`cuMemGetDefaultMemPool`, `cuMemSetMemPool`,
//! `cuMemGetMemPool`). The data of each allocation is written and read back. Each piece of work in
//! the stream waits behind a delay, so that its results, or the stream's query after the
//! synchronisation, show that the host waited for it. C twin: `pools.cpp`.

#[path = "common/mod.rs"]
mod common;

use std::ffi::{c_uint, c_ulonglong, c_void};
use std::mem::zeroed;
use std::ptr;

use common::{check, delay, expect, expect_all, expect_idle, finish, location, result_name};
use cuda_driver_sys::*;

/// `(value, "NAME")` of each pool attribute, each under its `cfg`.
macro_rules! named {
    ($($(#[$cfg:meta])* $name:ident),* $(,)?) => {
        [$($(#[$cfg])* ($name, stringify!($name))),*]
    };
}

const ATTRIBUTES: &[(CUmemPool_attribute, &str)] = &named![
    CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES,
    CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC,
    CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES,
    CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
    CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT,
    CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH,
    CU_MEMPOOL_ATTR_USED_MEM_CURRENT,
    CU_MEMPOOL_ATTR_USED_MEM_HIGH,
    #[cfg(feature = "cuda-13020")]
    CU_MEMPOOL_ATTR_ALLOCATION_TYPE,
    #[cfg(feature = "cuda-13020")]
    CU_MEMPOOL_ATTR_EXPORT_HANDLE_TYPES,
    #[cfg(feature = "cuda-13020")]
    CU_MEMPOOL_ATTR_LOCATION_ID,
    #[cfg(feature = "cuda-13020")]
    CU_MEMPOOL_ATTR_LOCATION_TYPE,
    #[cfg(feature = "cuda-13020")]
    CU_MEMPOOL_ATTR_MAX_POOL_SIZE,
    #[cfg(feature = "cuda-13020")]
    CU_MEMPOOL_ATTR_HW_DECOMPRESS_ENABLED,
    #[cfg(feature = "cuda-13040")]
    CU_MEMPOOL_ATTR_LOCALITY_DOMAIN_ID,
];

/// A pointer to `value`, as the attribute calls take it.
fn data<T>(value: &mut T) -> *mut c_void {
    (value as *mut T).cast()
}

/// Every attribute of `pool`: the 32-bit ones read into the low half of a zeroed 64-bit word.
unsafe fn print_attributes(what: &str, pool: CUmemoryPool) {
    unsafe {
        println!("{what}:");
        for &(attribute, name) in ATTRIBUTES {
            let mut value: c_ulonglong = 0;
            let code = cuMemPoolGetAttribute(pool, attribute, data(&mut value));
            if code == CUresult::CUDA_SUCCESS {
                println!("  {name} = {value}");
            } else {
                println!("  {name}: {}", result_name(code));
            }
        }
    }
}

/// Fills `bytes` at `ptr` with `value` in stream order, after a delay, and reads them back into
/// the page-locked `back` (zeroed first): how many words hold it.
unsafe fn set_and_count(
    ptr: CUdeviceptr,
    bytes: usize,
    value: c_uint,
    stream: CUstream,
    back: *mut c_uint,
) -> usize {
    unsafe {
        let n = bytes / size_of::<c_uint>();
        ptr::write_bytes(back, 0, n);
        delay(stream);
        check!(cuMemsetD32Async(ptr, value, n, stream));
        check!(cuMemcpyDtoHAsync(back.cast(), ptr, bytes, stream));
        check!(cuStreamSynchronize(stream));
        let back = std::slice::from_raw_parts(back, n);
        back.iter().filter(|v| **v == value).count()
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
        let mut stream: CUstream = ptr::null_mut();
        check!(cuStreamCreate(&mut stream, CU_STREAM_NON_BLOCKING.0));
        let bytes: usize = 1 << 20;
        let words = bytes / size_of::<c_uint>();
        let mut back: *mut c_void = ptr::null_mut();
        if !check!(cuMemAllocHost(&mut back, bytes)) {
            finish();
        }
        let back = back.cast::<c_uint>();

        // The default pool: attributes, the release threshold set, an allocation in stream order,
        // a trim, then the high watermarks reset (to what is reserved and used now: nothing).
        let mut pool: CUmemoryPool = ptr::null_mut();
        if !check!(cuDeviceGetDefaultMemPool(&mut pool, device)) {
            finish();
        }
        let (mut threshold, mut zero): (c_ulonglong, c_ulonglong) = (!0, 0);
        let attribute = CU_MEMPOOL_ATTR_RELEASE_THRESHOLD;
        check!(cuMemPoolSetAttribute(pool, attribute, data(&mut threshold)));
        print_attributes("the default pool", pool);
        let mut ptr: CUdeviceptr = 0;
        check!(cuMemAllocAsync(&mut ptr, bytes, stream));
        expect_all(
            "cuMemAllocAsync, written and read back",
            set_and_count(ptr, bytes, 0x600d, stream, back),
            words,
        );
        delay(stream);
        check!(cuMemFreeAsync(ptr, stream));
        check!(cuStreamSynchronize(stream));
        let mut reserved: c_ulonglong = 0;
        let attribute = CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT;
        check!(cuMemPoolGetAttribute(pool, attribute, data(&mut reserved)));
        let kept = reserved >= bytes as c_ulonglong;
        println!(
            "reserved after the free, below the release threshold: {}",
            if kept {
                "at least the allocation"
            } else {
                "less"
            }
        );
        expect(
            kept,
            "the pool keeps freed memory below its release threshold",
        );
        check!(cuMemPoolTrimTo(pool, 0));
        check!(cuMemPoolGetAttribute(pool, attribute, data(&mut reserved)));
        println!("reserved after cuMemPoolTrimTo(0): {reserved}");
        expect(
            reserved == 0,
            "cuMemPoolTrimTo(0) releases what no allocation holds",
        );
        let (mut reserved_high, mut used_high): (c_ulonglong, c_ulonglong) = (!0, !0);
        let attribute = CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH;
        check!(cuMemPoolSetAttribute(pool, attribute, data(&mut zero)));
        check!(cuMemPoolGetAttribute(
            pool,
            attribute,
            data(&mut reserved_high)
        ));
        let attribute = CU_MEMPOOL_ATTR_USED_MEM_HIGH;
        check!(cuMemPoolSetAttribute(pool, attribute, data(&mut zero)));
        check!(cuMemPoolGetAttribute(pool, attribute, data(&mut used_high)));
        println!("high watermarks after their reset: reserved {reserved_high}, used {used_high}");
        expect(
            reserved_high == 0 && used_high == 0,
            "the high watermarks reset to what is reserved and used now",
        );

        // A pool of its own, with its access.
        let mut props: CUmemPoolProps = zeroed();
        props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
        props.handleTypes = CU_MEM_HANDLE_TYPE_NONE;
        props.location = location(CU_MEM_LOCATION_TYPE_DEVICE, device);
        let mut own: CUmemoryPool = ptr::null_mut();
        if !check!(cuMemPoolCreate(&mut own, &props)) {
            finish();
        }
        print_attributes("a pool of its own", own);
        let mut access: CUmemAccessDesc = zeroed();
        access.location = location(CU_MEM_LOCATION_TYPE_DEVICE, device);
        access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        check!(cuMemPoolSetAccess(own, &access, 1));
        let mut flags = CU_MEM_ACCESS_FLAGS_PROT_NONE;
        let mut place = access.location;
        check!(cuMemPoolGetAccess(&mut flags, own, &mut place));
        println!("the own pool's access from device {device}: {}", flags.0);
        expect(
            flags == CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
            "the device reads and writes its own pool",
        );
        check!(cuMemAllocFromPoolAsync(&mut ptr, bytes, own, stream));
        expect_all(
            "cuMemAllocFromPoolAsync, written and read back",
            set_and_count(ptr, bytes, 0xf00d, stream, back),
            words,
        );
        check!(cuMemFreeAsync(ptr, stream));

        // CUDA 13: the pools of a location.
        let mut place = location(CU_MEM_LOCATION_TYPE_DEVICE, device);
        let (mut by_location, mut current): (CUmemoryPool, CUmemoryPool) =
            (ptr::null_mut(), ptr::null_mut());
        let pinned = CU_MEM_ALLOCATION_TYPE_PINNED;
        check!(cuMemGetDefaultMemPool(&mut by_location, &mut place, pinned));
        println!(
            "cuMemGetDefaultMemPool of the device: the device's default pool {}",
            if by_location == pool { "yes" } else { "no" }
        );
        expect(
            by_location == pool,
            "the device's location has the device's default pool",
        );
        check!(cuMemSetMemPool(&mut place, pinned, own));
        check!(cuMemGetMemPool(&mut current, &mut place, pinned));
        println!(
            "after cuMemSetMemPool: the current pool is the own one {}",
            if current == own { "yes" } else { "no" }
        );
        expect(current == own, "cuMemSetMemPool makes the own pool current");
        check!(cuMemAllocAsync(&mut ptr, bytes, stream));
        expect_all(
            "cuMemAllocAsync from the current pool",
            set_and_count(ptr, bytes, 0xbeef, stream, back),
            words,
        );
        let mut used: c_ulonglong = 0;
        let attribute = CU_MEMPOOL_ATTR_USED_MEM_CURRENT;
        check!(cuMemPoolGetAttribute(own, attribute, data(&mut used)));
        let holds = used >= bytes as c_ulonglong;
        println!(
            "the own pool's used memory holds it: {}",
            if holds { "yes" } else { "no" }
        );
        expect(holds, "cuMemAllocAsync allocated from the current pool");
        delay(stream);
        check!(cuMemFreeAsync(ptr, stream));
        check!(cuMemSetMemPool(&mut place, pinned, pool));
        check!(cuMemGetMemPool(&mut current, &mut place, pinned));
        expect(
            current == pool,
            "cuMemSetMemPool makes the default pool current again",
        );
        check!(cuStreamSynchronize(stream));
        expect_idle(stream, "the free done after cuStreamSynchronize");
        check!(cuMemPoolDestroy(own));
        check!(cuMemFreeHost(back.cast()));
        check!(cuStreamDestroy(stream));
        check!(cuDevicePrimaryCtxRelease(device));
        finish()
    }
}
