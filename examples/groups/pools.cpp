// The stream-ordered memory allocator: the MALLOC_ASYNC group in one process (its sharing between
// processes is in ipc.cpp). Every attribute of the device's default pool, three set; memory
// allocated and freed in stream order from it (cuMemAllocAsync, cuMemFreeAsync), then trimmed
// back (cuMemPoolTrimTo); a pool of its own, allocated from, with its access set and read back;
// CUDA 13's pools by location (cuMemGetDefaultMemPool, cuMemSetMemPool, cuMemGetMemPool). The
// data of each allocation is written and read back. Each piece of work in the stream waits behind a
// delay, so that its results, or the stream's query after the synchronisation, show that the host
// waited for it. Rust program: pools.rs.
#include "common.h"

#define ATTRIBUTE(name) { name, #name }
static const struct {
    CUmemPool_attribute value;
    const char* name;
} attributes[] = {
    ATTRIBUTE(CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES),
    ATTRIBUTE(CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC),
    ATTRIBUTE(CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES),
    ATTRIBUTE(CU_MEMPOOL_ATTR_RELEASE_THRESHOLD),
    ATTRIBUTE(CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT),
    ATTRIBUTE(CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH),
    ATTRIBUTE(CU_MEMPOOL_ATTR_USED_MEM_CURRENT),
    ATTRIBUTE(CU_MEMPOOL_ATTR_USED_MEM_HIGH),
#if CUDA_VERSION >= 13020
    ATTRIBUTE(CU_MEMPOOL_ATTR_ALLOCATION_TYPE),
    ATTRIBUTE(CU_MEMPOOL_ATTR_EXPORT_HANDLE_TYPES),
    ATTRIBUTE(CU_MEMPOOL_ATTR_LOCATION_ID),
    ATTRIBUTE(CU_MEMPOOL_ATTR_LOCATION_TYPE),
    ATTRIBUTE(CU_MEMPOOL_ATTR_MAX_POOL_SIZE),
    ATTRIBUTE(CU_MEMPOOL_ATTR_HW_DECOMPRESS_ENABLED),
#endif
#if CUDA_VERSION >= 13040
    ATTRIBUTE(CU_MEMPOOL_ATTR_LOCALITY_DOMAIN_ID),
#endif
};

// Every attribute of `pool`: the 32-bit ones read into the low half of a zeroed 64-bit word.
static void print_attributes(const char* what, CUmemoryPool pool) {
    printf("%s:\n", what);
    for (size_t i = 0; i < sizeof attributes / sizeof attributes[0]; i++) {
        unsigned long long value = 0;
        CUresult code = cuMemPoolGetAttribute(pool, attributes[i].value, &value);
        if (code == CUDA_SUCCESS)
            printf("  %s = %llu\n", attributes[i].name, value);
        else
            printf("  %s: %s\n", attributes[i].name, result_name(code));
    }
}

// Fills `bytes` at `ptr` with `value` in stream order, after a delay, and reads them back into the
// page-locked `back` (zeroed first): how many words hold it.
static size_t set_and_count(CUdeviceptr ptr, size_t bytes, unsigned int value, CUstream stream, unsigned int* back) {
    size_t n = bytes / sizeof(unsigned int);
    memset(back, 0, bytes);
    delay(stream);
    check(cuMemsetD32Async(ptr, value, n, stream));
    check(cuMemcpyDtoHAsync(back, ptr, bytes, stream));
    check(cuStreamSynchronize(stream));
    size_t same = 0;
    for (size_t i = 0; i < n; i++) same += back[i] == value;
    return same;
}

int main() {
    if (!check(cuInit(0))) return 1;
    CUdevice device = 0;
    CUcontext context = NULL;
    if (!check(cuDeviceGet(&device, 0))) return finish();
    if (!check(cuDevicePrimaryCtxRetain(&context, device))) return finish();
    check(cuCtxSetCurrent(context));
    CUstream stream = NULL;
    check(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
    const size_t bytes = 1 << 20;
    const size_t words = bytes / sizeof(unsigned int);
    unsigned int* back = NULL;
    if (!check(cuMemAllocHost((void**)&back, bytes))) return finish();

    // The default pool: attributes, the release threshold set, an allocation in stream order, a
    // trim, then the high watermarks reset (to what is reserved and used now: nothing).
    CUmemoryPool pool = NULL;
    if (!check(cuDeviceGetDefaultMemPool(&pool, device))) return finish();
    unsigned long long threshold = ~0ull, zero = 0;
    check(cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &threshold));
    print_attributes("the default pool", pool);
    CUdeviceptr ptr = 0;
    check(cuMemAllocAsync(&ptr, bytes, stream));
    expect_all("cuMemAllocAsync, written and read back", set_and_count(ptr, bytes, 0x600d, stream, back), words);
    delay(stream);
    check(cuMemFreeAsync(ptr, stream));
    check(cuStreamSynchronize(stream));
    unsigned long long reserved = 0;
    check(cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, &reserved));
    printf("reserved after the free, below the release threshold: %s\n", reserved >= bytes ? "at least the allocation" : "less");
    expect(reserved >= bytes, "the pool keeps freed memory below its release threshold");
    check(cuMemPoolTrimTo(pool, 0));
    check(cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, &reserved));
    printf("reserved after cuMemPoolTrimTo(0): %llu\n", reserved);
    expect(reserved == 0, "cuMemPoolTrimTo(0) releases what no allocation holds");
    unsigned long long reserved_high = ~0ull, used_high = ~0ull;
    check(cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH, &zero));
    check(cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH, &reserved_high));
    check(cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_USED_MEM_HIGH, &zero));
    check(cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_USED_MEM_HIGH, &used_high));
    printf("high watermarks after their reset: reserved %llu, used %llu\n", reserved_high, used_high);
    expect(reserved_high == 0 && used_high == 0, "the high watermarks reset to what is reserved and used now");

    // A pool of its own, with its access.
    CUmemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    props.handleTypes = CU_MEM_HANDLE_TYPE_NONE;
    props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    props.location.id = device;
    CUmemoryPool own = NULL;
    if (!check(cuMemPoolCreate(&own, &props))) return finish();
    print_attributes("a pool of its own", own);
    CUmemAccessDesc access;
    memset(&access, 0, sizeof access);
    access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    access.location.id = device;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    check(cuMemPoolSetAccess(own, &access, 1));
    CUmemAccess_flags flags = CU_MEM_ACCESS_FLAGS_PROT_NONE;
    CUmemLocation where = access.location;
    check(cuMemPoolGetAccess(&flags, own, &where));
    printf("the own pool's access from device %d: %d\n", device, (int)flags);
    expect(flags == CU_MEM_ACCESS_FLAGS_PROT_READWRITE, "the device reads and writes its own pool");
    check(cuMemAllocFromPoolAsync(&ptr, bytes, own, stream));
    expect_all("cuMemAllocFromPoolAsync, written and read back", set_and_count(ptr, bytes, 0xf00d, stream, back), words);
    check(cuMemFreeAsync(ptr, stream));

    // CUDA 13: the pools of a location.
    CUmemLocation location;
    memset(&location, 0, sizeof location);
    location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    location.id = device;
    CUmemoryPool by_location = NULL, current = NULL;
    check(cuMemGetDefaultMemPool(&by_location, &location, CU_MEM_ALLOCATION_TYPE_PINNED));
    printf("cuMemGetDefaultMemPool of the device: the device's default pool %s\n", by_location == pool ? "yes" : "no");
    expect(by_location == pool, "the device's location has the device's default pool");
    check(cuMemSetMemPool(&location, CU_MEM_ALLOCATION_TYPE_PINNED, own));
    check(cuMemGetMemPool(&current, &location, CU_MEM_ALLOCATION_TYPE_PINNED));
    printf("after cuMemSetMemPool: the current pool is the own one %s\n", current == own ? "yes" : "no");
    expect(current == own, "cuMemSetMemPool makes the own pool current");
    check(cuMemAllocAsync(&ptr, bytes, stream));
    expect_all("cuMemAllocAsync from the current pool", set_and_count(ptr, bytes, 0xbeef, stream, back), words);
    unsigned long long used = 0;
    check(cuMemPoolGetAttribute(own, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &used));
    printf("the own pool's used memory holds it: %s\n", used >= bytes ? "yes" : "no");
    expect(used >= bytes, "cuMemAllocAsync allocated from the current pool");
    delay(stream);
    check(cuMemFreeAsync(ptr, stream));
    check(cuMemSetMemPool(&location, CU_MEM_ALLOCATION_TYPE_PINNED, pool));
    check(cuMemGetMemPool(&current, &location, CU_MEM_ALLOCATION_TYPE_PINNED));
    expect(current == pool, "cuMemSetMemPool makes the default pool current again");
    check(cuStreamSynchronize(stream));
    expect_idle(stream, "the free done after cuStreamSynchronize");
    check(cuMemPoolDestroy(own));
    check(cuMemFreeHost(back));
    check(cuStreamDestroy(stream));
    check(cuDevicePrimaryCtxRelease(device));
    return finish();
}
