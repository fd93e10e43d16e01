// Unified addressing: the UNIFIED group. Every pointer attribute of device memory, page-locked
// host memory and managed memory (cuPointerGetAttribute), four at once (cuPointerGetAttributes),
// one set (cuPointerSetAttribute); managed memory advised (read mostly, preferred location,
// accessed by), prefetched to the device and its data read there and on the host, every range
// attribute alone and all at once; the CUDA 13 batch prefetch, discard, and discard and
// prefetch; and where the header has it, cuMemGetLocationInfo through cuGetProcAddress (it is
// newer than CUDA 13.0). Each prefetch waits behind a delay in its stream, so that the stream's
// query after the synchronisation shows that it waited. Rust program: unified.rs.
#include "common.h"
#include <cudaTypedefs.h>

// How a pointer attribute's value prints: a pointer (%p), a number, an identifier (whether it is
// nonzero: its value differs from process to process), or only the call's result.
enum Kind { POINTER, NUMBER, SIZE, IDENTIFIER, RESULT_ONLY };

#define ATTRIBUTE(name, kind) { name, #name, kind }
static const struct {
    CUpointer_attribute value;
    const char* name;
    Kind kind;
} attributes[] = {
    ATTRIBUTE(CU_POINTER_ATTRIBUTE_CONTEXT, POINTER),
    ATTRIBUTE(CU_POINTER_ATTRIBUTE_MEMORY_TYPE, NUMBER),
    ATTRIBUTE(CU_POINTER_ATTRIBUTE_DEVICE_POINTER, POINTER),
    ATTRIBUTE(CU_POINTER_ATTRIBUTE_HOST_POINTER, POINTER),
    ATTRIBUTE(CU_POINTER_ATTRIBUTE_P2P_TOKENS, RESULT_ONLY),
    ATTRIBUTE(CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, NUMBER),
    ATTRIBUTE(CU_POINTER_ATTRIBUTE_BUFFER_ID, IDENTIFIER),
    ATTRIBUTE(CU_POINTER_ATTRIBUTE_IS_MANAGED, NUMBER),
    ATTRIBUTE(CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, NUMBER),
    ATTRIBUTE(CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE, NUMBER),
    ATTRIBUTE(CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, POINTER),
    ATTRIBUTE(CU_POINTER_ATTRIBUTE_RANGE_SIZE, SIZE),
    ATTRIBUTE(CU_POINTER_ATTRIBUTE_MAPPED, NUMBER),
    ATTRIBUTE(CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES, SIZE),
    ATTRIBUTE(CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE, NUMBER),
    ATTRIBUTE(CU_POINTER_ATTRIBUTE_ACCESS_FLAGS, NUMBER),
    ATTRIBUTE(CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, POINTER),
    ATTRIBUTE(CU_POINTER_ATTRIBUTE_MAPPING_SIZE, SIZE),
    ATTRIBUTE(CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR, POINTER),
    ATTRIBUTE(CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID, IDENTIFIER),
    ATTRIBUTE(CU_POINTER_ATTRIBUTE_IS_HW_DECOMPRESS_CAPABLE, NUMBER),
#if CUDA_VERSION >= 13050
    ATTRIBUTE(CU_POINTER_ATTRIBUTE_LOCALITY_DOMAIN_ORDINAL, NUMBER),
#endif
};

#define RANGE(name) { name, #name }
static const struct {
    CUmem_range_attribute value;
    const char* name;
} ranges[] = {
    RANGE(CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY),
    RANGE(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION),
    RANGE(CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY),
    RANGE(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION),
    RANGE(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE),
    RANGE(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID),
    RANGE(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE),
    RANGE(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID),
};
#define RANGES (sizeof ranges / sizeof ranges[0])

// Every pointer attribute of `ptr`, one line each.
static void pointer_attributes(const char* what, CUdeviceptr ptr) {
    printf("%s:\n", what);
    for (size_t i = 0; i < sizeof attributes / sizeof attributes[0]; i++) {
        unsigned long long value[8] = {0};
        CUresult code = cuPointerGetAttribute(value, attributes[i].value, ptr);
        if (code != CUDA_SUCCESS || attributes[i].kind == RESULT_ONLY) {
            printf("  %s: %s\n", attributes[i].name, result_name(code));
        } else if (attributes[i].kind == POINTER) {
            printf("  %s = %p\n", attributes[i].name, (void*)value[0]);
        } else if (attributes[i].kind == NUMBER) {
            printf("  %s = %u\n", attributes[i].name, (unsigned int)value[0]);
        } else if (attributes[i].kind == SIZE) {
            printf("  %s = %llu\n", attributes[i].name, value[0]);
        } else {
            printf("  %s: %s\n", attributes[i].name, value[0] != 0 ? "nonzero" : "zero");
        }
    }
}

// A device's memory location.
static CUmemLocation on_device(CUdevice device) {
    CUmemLocation location;
    memset(&location, 0, sizeof location);
    location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    location.id = device;
    return location;
}

int main() {
    if (!check(cuInit(0))) return 1;
    CUdevice device = 0;
    CUcontext context = NULL;
    if (!check(cuDeviceGet(&device, 0))) return finish();
    if (!check(cuDevicePrimaryCtxRetain(&context, device))) return finish();
    check(cuCtxSetCurrent(context));
    int managed_ok = 0, concurrent = 0;
    check(cuDeviceGetAttribute(&managed_ok, CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY, device));
    check(cuDeviceGetAttribute(&concurrent, CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS, device));
    printf("managed memory %d, concurrent managed access %d\n", managed_ok, concurrent);
    expect(managed_ok && concurrent, "the device has managed memory with concurrent access");
    if (!managed_ok || !concurrent) return finish();

    const size_t size = 2 << 20;
    const size_t count = size / sizeof(unsigned int);
    CUdeviceptr device_memory = 0, managed = 0;
    void* pinned = NULL;
    if (!check(cuMemAlloc(&device_memory, size))) return finish();
    if (!check(cuMemAllocHost(&pinned, size))) return finish();
    if (!check(cuMemAllocManaged(&managed, size, CU_MEM_ATTACH_GLOBAL))) return finish();

    // SYNC_MEMOPS unset, then set, each read back: the driver may already have it set.
    int zero = 0, one = 1, memops = -1;
    check(cuPointerSetAttribute(&zero, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, device_memory));
    check(cuPointerGetAttribute(&memops, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, device_memory));
    expect(memops == 0, "SYNC_MEMOPS unset on the device memory");
    check(cuPointerSetAttribute(&one, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, device_memory));
    pointer_attributes("device memory", device_memory);
    check(cuPointerGetAttribute(&memops, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, device_memory));
    expect(memops == 1, "SYNC_MEMOPS set on the device memory");
    pointer_attributes("page-locked host memory", (CUdeviceptr)pinned);
    pointer_attributes("managed memory", managed);

    CUpointer_attribute four[4] = {CU_POINTER_ATTRIBUTE_CONTEXT, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                   CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, CU_POINTER_ATTRIBUTE_IS_MANAGED};
    CUcontext owner = NULL;
    unsigned int memory_type = 0, is_managed = 0;
    int ordinal = -1;
    void* data[4] = {&owner, &memory_type, &ordinal, &is_managed};
    check(cuPointerGetAttributes(4, four, data, managed));
    printf("cuPointerGetAttributes of managed memory: type %u, ordinal %d, managed %u, context %s\n",
           memory_type, ordinal, is_managed, owner == context ? "the primary one" : "another");
    expect(is_managed == 1 && owner == context, "managed memory reads as managed, in this context");

    // Advice, a prefetch to the device, and the data seen there and on the host.
    CUstream stream = NULL;
    check(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
    unsigned int* words = (unsigned int*)managed;
    for (size_t i = 0; i < count; i++) words[i] = (unsigned int)(i * 7 + 1);
    check(cuMemAdvise(managed, size, CU_MEM_ADVISE_SET_READ_MOSTLY, on_device(device)));
    check(cuMemAdvise(managed, size, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, on_device(device)));
    check(cuMemAdvise(managed, size, CU_MEM_ADVISE_SET_ACCESSED_BY, on_device(device)));
    delay(stream);
    check(cuMemPrefetchAsync(managed, size, on_device(device), 0, stream));
    check(cuStreamSynchronize(stream));
    expect_idle(stream, "the prefetch to the device done after cuStreamSynchronize");
    for (size_t i = 0; i < RANGES; i++) {
        int value = -1;
        CUresult code = cuMemRangeGetAttribute(&value, sizeof value, ranges[i].value, managed, size);
        if (code == CUDA_SUCCESS)
            printf("  %s = %d\n", ranges[i].name, value);
        else
            printf("  %s: %s\n", ranges[i].name, result_name(code));
    }
    int values[RANGES];
    void* range_data[RANGES];
    size_t sizes[RANGES];
    CUmem_range_attribute which[RANGES];
    for (size_t i = 0; i < RANGES; i++) {
        values[i] = -1;
        range_data[i] = &values[i];
        sizes[i] = sizeof values[i];
        which[i] = ranges[i].value;
    }
    check(cuMemRangeGetAttributes(range_data, sizes, which, RANGES, managed, size));
    printf("cuMemRangeGetAttributes:");
    for (size_t i = 0; i < RANGES; i++) printf(" %d", values[i]);
    printf("\n");
    expect(values[0] == 1 && values[1] == device && values[2] == device && values[3] == device,
           "read mostly, preferred on the device, accessed by it and prefetched there");
    unsigned int* copy = (unsigned int*)calloc(count, sizeof(unsigned int));
    check(cuMemcpyDtoH(copy, managed, size));
    size_t same = 0;
    for (size_t i = 0; i < count; i++) same += copy[i] == (unsigned int)(i * 7 + 1) && words[i] == copy[i];
    printf("managed data, copied from the device and read on the host: %zu of %zu words\n", same, count);
    expect(same == count, "the managed data reads the same on the device and the host");
    free(copy);

    // CUDA 13's batches: the two halves prefetched to the host, discarded, then discarded and
    // prefetched to the device.
    CUdeviceptr halves[2] = {managed, managed + size / 2};
    size_t half_sizes[2] = {size / 2, size / 2};
    CUmemLocation host_location;
    memset(&host_location, 0, sizeof host_location);
    host_location.type = CU_MEM_LOCATION_TYPE_HOST;
    CUmemLocation locations[1] = {host_location};
    size_t first[1] = {0};
    delay(stream);
    check(cuMemPrefetchBatchAsync(halves, half_sizes, 2, locations, first, 1, 0, stream));
    check(cuStreamSynchronize(stream));
    expect_idle(stream, "the batch prefetch to the host done after cuStreamSynchronize");
    int last = -2;
    check(cuMemRangeGetAttribute(&last, sizeof last, CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE,
                                 managed, size));
    printf("after the batch prefetch to the host: last prefetch location type %d\n", last);
    expect(last == CU_MEM_LOCATION_TYPE_HOST, "the batch prefetched to the host");
    delay(stream);
    check(cuMemDiscardBatchAsync(halves, half_sizes, 2, 0, stream));
    locations[0] = on_device(device);
    check(cuMemDiscardAndPrefetchBatchAsync(halves, half_sizes, 2, locations, first, 1, 0, stream));
    check(cuStreamSynchronize(stream));
    expect_idle(stream, "the discards and prefetch done after cuStreamSynchronize");
    check(cuMemRangeGetAttribute(&last, sizeof last, CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE,
                                 managed, size));
    printf("after discard and prefetch to the device: last prefetch location type %d\n", last);
    expect(last == CU_MEM_LOCATION_TYPE_DEVICE, "the batch prefetched to the device");

#if CUDA_VERSION >= 13040
    // Newer than CUDA 13.0: looked up by version, as a program that must start on older drivers.
    void* pfn = NULL;
    CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    CUresult found = cuGetProcAddress("cuMemGetLocationInfo", &pfn, 13040, CU_GET_PROC_ADDRESS_DEFAULT, &status);
    printf("cuGetProcAddress(cuMemGetLocationInfo, 13040): %s, %s\n", result_name(found),
           pfn != NULL ? "found" : "none");
    if (pfn != NULL) {
        CUmemLocation where;
        memset(&where, 0, sizeof where);
        CUresult code = ((PFN_cuMemGetLocationInfo_v13040)pfn)(managed, size, size, 0, &where);
        printf("cuMemGetLocationInfo: %s, location type %d\n", result_name(code), (int)where.type);
    }
#endif

    check(cuStreamDestroy(stream));
    check(cuMemFree(managed));
    check(cuMemFreeHost(pinned));
    check(cuMemFree(device_memory));
    check(cuDevicePrimaryCtxRelease(device));
    return finish();
}
