// Virtual memory management, in the manner of NVIDIA's vectorAddMMAP: the whole VA group. The
// allocation granularity; physical memory created with a POSIX file descriptor as its shareable
// handle, its properties read back (checked: those it was created with); an address range
// reserved, mapped, given read-write access (checked: the access read back); the handle retained
// from the address; the memory exported as a file descriptor, imported again and mapped at a
// second address, read-write too (checked: the access read back, and every word written through
// the first reads back there); where the device supports sparse CUDA arrays (elsewhere a line
// says they are not tested), a sparse array's sparse properties, and its first tile
// mapped (cuMemMapArrayAsync) onto a tile pool at offset 0, data copied in through it
// (cuMemcpy2D), unmapped, mapped at the pool's next tile, other data copied in, unmapped, then
// mapped onto each place again and read back (checked: every word read at each offset is the one
// copied in there, so the data went through the mapping into the pool's memory); the memory
// requirements of an array with deferred mapping.
// Control other_offset (CUDA_GROUP_CONTROL): each set of words is read back through the tile
// mapped onto the other place, which fails "the tile reads back at each pool offset the data
// copied in there". Neither reads nor writes a tile that is not mapped: the driver's documentation
// does not say what that does.
// Rust program: vmm.rs.
#include "common.h"
#include <unistd.h>

// The tile at the origin of a sparse 2D CUDA array of 4-byte elements, and the tile pool it is
// mapped onto.
struct Tile {
    CUarray array;
    unsigned int width, height;
    CUmemGenericAllocationHandle pool;
    CUdevice device;

    // The tile's size in bytes: the distance between the two places of the pool it is mapped onto.
    size_t bytes() const { return (size_t)width * height * sizeof(unsigned int); }

    // Maps the tile onto the pool at `offset` (CU_MEM_OPERATION_TYPE_MAP) or, with `unmap`, unmaps
    // it, on the null stream, which orders what needs the mapping after it; whether it succeeded.
    bool map(size_t offset, bool unmap = false) const {
        CUarrayMapInfo info;
        memset(&info, 0, sizeof info);
        info.resourceType = CU_RESOURCE_TYPE_ARRAY;
        info.resource.array = array;
        info.subresourceType = CU_ARRAY_SPARSE_SUBRESOURCE_TYPE_SPARSE_LEVEL;
        info.subresource.sparseLevel.extentWidth = width;
        info.subresource.sparseLevel.extentHeight = height;
        info.subresource.sparseLevel.extentDepth = 1;
        info.memHandleType = CU_MEM_HANDLE_TYPE_GENERIC;
        info.deviceBitMask = 1u << device;
        if (unmap) {
            info.memOperationType = CU_MEM_OPERATION_TYPE_UNMAP;
        } else {
            info.memOperationType = CU_MEM_OPERATION_TYPE_MAP;
            info.memHandle.memHandle = pool;
            info.offset = offset;
        }
        return check(cuMemMapArrayAsync(&info, 1, NULL));
    }

    // Copies `words` (the tile's bytes) into the tile (cuMemcpy2D), mapped onto the pool at
    // `offset` for the copy; nothing is copied where the mapping fails.
    void copy_in(size_t offset, const unsigned int* words) const {
        if (map(offset)) {
            CUDA_MEMCPY2D copy;
            memset(&copy, 0, sizeof copy);
            copy.srcMemoryType = CU_MEMORYTYPE_HOST;
            copy.srcHost = words;
            copy.srcPitch = bytes() / height;
            copy.dstMemoryType = CU_MEMORYTYPE_ARRAY;
            copy.dstArray = array;
            copy.WidthInBytes = copy.srcPitch;
            copy.Height = height;
            check(cuMemcpy2D(&copy));
            map(0, true);
        }
    }

    // Reads the tile's words into `words` (the tile's bytes; cuMemcpy2D), mapped onto the pool at
    // `offset` for the copy; all zero where the mapping fails (nothing is read then).
    void read(size_t offset, unsigned int* words) const {
        memset(words, 0, bytes());
        if (map(offset)) {
            CUDA_MEMCPY2D copy;
            memset(&copy, 0, sizeof copy);
            copy.srcMemoryType = CU_MEMORYTYPE_ARRAY;
            copy.srcArray = array;
            copy.dstMemoryType = CU_MEMORYTYPE_HOST;
            copy.dstHost = words;
            copy.dstPitch = bytes() / height;
            copy.WidthInBytes = copy.dstPitch;
            copy.Height = height;
            check(cuMemcpy2D(&copy));
            map(0, true);
        }
    }
};

// Copies two sets of words into the tile, mapped onto the pool at offset 0 for the first and at
// the next tile's place for the second, then reads the tile back mapped onto each place again:
// what was copied in at each place is what reads back there, the data held by the pool's memory
// and reached only through a mapping. The control other_offset reads each place's data back from
// the other place.
static void check_tile_data(const Tile& tile) {
    size_t count = tile.bytes() / sizeof(unsigned int);
    unsigned int* first = (unsigned int*)malloc(tile.bytes());
    unsigned int* second = (unsigned int*)malloc(tile.bytes());
    unsigned int* back = (unsigned int*)malloc(tile.bytes());
    for (size_t i = 0; i < count; i++) {
        first[i] = (unsigned int)i * 2654435761u;
        second[i] = ~first[i];
    }
    size_t places[2] = {0, tile.bytes()};
    tile.copy_in(places[0], first);
    tile.copy_in(places[1], second);
    printf("sparse array: the tile mapped at pool offsets %zu and %zu in turn, data copied in at each\n", places[0],
           places[1]);
    // Where each set is read back: where it was copied in, but for the control.
    bool swapped = control("other_offset");
    size_t read_at[2] = {places[swapped ? 1 : 0], places[swapped ? 0 : 1]};
    const unsigned int* data[2] = {first, second};
    const char* names[2] = {"first", "second"};
    size_t equal = 0;
    for (int set = 0; set < 2; set++) {
        tile.read(read_at[set], back);
        size_t same = 0;
        for (size_t i = 0; i < count; i++) same += back[i] == data[set][i];
        printf("sparse array: read back at pool offset %zu: %zu of %zu words of the %s data\n", read_at[set], same,
               count, names[set]);
        equal += same;
    }
    expect(equal == 2 * count, "the tile reads back at each pool offset the data copied in there");
    free(back);
    free(second);
    free(first);
}

int main() {
    if (!check(cuInit(0))) return 1;
    CUdevice device = 0;
    CUcontext context = NULL;
    if (!check(cuDeviceGet(&device, 0))) return finish();
    if (!check(cuDevicePrimaryCtxRetain(&context, device))) return finish();
    check(cuCtxSetCurrent(context));
    int vmm = 0, posix = 0, sparse = 0;
    check(cuDeviceGetAttribute(&vmm, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, device));
    check(cuDeviceGetAttribute(&posix, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED, device));
    check(cuDeviceGetAttribute(&sparse, CU_DEVICE_ATTRIBUTE_SPARSE_CUDA_ARRAY_SUPPORTED, device));
    printf("virtual memory management %d, POSIX file descriptors %d, sparse arrays %d\n", vmm, posix, sparse);
    expect(vmm && posix, "the device supports virtual memory management with POSIX file descriptors");
    if (!vmm || !posix) return finish();

    // Physical memory on the device, exportable as a file descriptor.
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = device;
    size_t minimum = 0, recommended = 0;
    check(cuMemGetAllocationGranularity(&minimum, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    check(cuMemGetAllocationGranularity(&recommended, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
    printf("granularity: minimum %zu, recommended %zu\n", minimum, recommended);
    size_t size = 2 * minimum;
    size_t count = size / sizeof(unsigned int);
    CUmemGenericAllocationHandle handle = 0;
    if (!check(cuMemCreate(&handle, size, &prop, 0))) return finish();
    CUmemAllocationProp read_back;
    memset(&read_back, 0, sizeof read_back);
    check(cuMemGetAllocationPropertiesFromHandle(&read_back, handle));
    printf("properties: type %d, handle types %d, location type %d, id %d\n", (int)read_back.type,
           (int)read_back.requestedHandleTypes, (int)read_back.location.type, read_back.location.id);
    expect(read_back.type == prop.type && read_back.requestedHandleTypes == prop.requestedHandleTypes &&
               read_back.location.id == device,
           "the allocation's properties are those it was created with");

    // An address range, the memory mapped there, read-write for the device.
    CUdeviceptr address = 0;
    if (!check(cuMemAddressReserve(&address, size, minimum, 0, 0))) return finish();
    printf("reserved %zu bytes at %p\n", size, (void*)address);
    check(cuMemMap(address, size, 0, handle, 0));
    CUmemAccessDesc access;
    memset(&access, 0, sizeof access);
    access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    access.location.id = device;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    check(cuMemSetAccess(address, size, &access, 1));
    unsigned long long flags = 0;
    CUmemLocation where;
    memset(&where, 0, sizeof where);
    where.type = CU_MEM_LOCATION_TYPE_DEVICE;
    where.id = device;
    check(cuMemGetAccess(&flags, &where, address));
    printf("access of device %d: %llu\n", device, flags);
    expect(flags == CU_MEM_ACCESS_FLAGS_PROT_READWRITE, "the device reads and writes the mapping");
    CUmemGenericAllocationHandle retained = 0;
    check(cuMemRetainAllocationHandle(&retained, (void*)address));
    check(cuMemRelease(retained));

    // Data written through the first mapping.
    unsigned int* host = (unsigned int*)malloc(size);
    for (size_t i = 0; i < count; i++) host[i] = (unsigned int)(i * 2654435761u);
    check(cuMemcpyHtoD(address, host, size));

    // Exported as a file descriptor, imported again, mapped at a second address: the same memory.
    int fd = -1;
    check(cuMemExportToShareableHandle(&fd, handle, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
    printf("exported as a file descriptor: %s\n", fd >= 0 ? "yes" : "no");
    CUmemGenericAllocationHandle imported = 0;
    check(cuMemImportFromShareableHandle(&imported, (void*)(uintptr_t)fd,
                                         CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
    CUdeviceptr second = 0;
    check(cuMemAddressReserve(&second, size, minimum, 0, 0));
    check(cuMemMap(second, size, 0, imported, 0));
    check(cuMemSetAccess(second, size, &access, 1));
    flags = 0;
    check(cuMemGetAccess(&flags, &where, second));
    expect(flags == CU_MEM_ACCESS_FLAGS_PROT_READWRITE, "the device reads and writes the second mapping");
    unsigned int* back = (unsigned int*)calloc(count, sizeof(unsigned int));
    check(cuMemcpyDtoH(back, second, size));
    size_t same = 0;
    for (size_t i = 0; i < count; i++) same += back[i] == host[i];
    printf("read back through the imported mapping: %zu of %zu words equal\n", same, count);
    expect(same == count, "the imported handle maps the same memory");
    check(cuMemUnmap(second, size));
    check(cuMemAddressFree(second, size));
    check(cuMemRelease(imported));
    close(fd);
    free(back);
    free(host);
    check(cuMemUnmap(address, size));
    check(cuMemAddressFree(address, size));

    // A sparse array's first tile mapped in turn onto two places of a tile pool, data copied in
    // through each mapping, then read back through the tile mapped onto each place again.
    if (sparse) {
        CUDA_ARRAY3D_DESCRIPTOR desc;
        memset(&desc, 0, sizeof desc);
        desc.Width = 1024;
        desc.Height = 1024;
        desc.Format = CU_AD_FORMAT_FLOAT;
        desc.NumChannels = 1;
        desc.Flags = CUDA_ARRAY3D_SPARSE;
        CUarray array = NULL;
        if (check(cuArray3DCreate(&array, &desc))) {
            CUDA_ARRAY_SPARSE_PROPERTIES props;
            memset(&props, 0, sizeof props);
            check(cuArrayGetSparseProperties(&props, array));
            printf("sparse array: tile %u x %u x %u, mip tail from level %u, %llu bytes, flags %u\n",
                   props.tileExtent.width, props.tileExtent.height, props.tileExtent.depth,
                   props.miptailFirstLevel, props.miptailSize, props.flags);
            // Tiles are mapped from memory made for them (a tile pool).
            CUmemAllocationProp pool_prop;
            memset(&pool_prop, 0, sizeof pool_prop);
            pool_prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
            pool_prop.location = prop.location;
            pool_prop.allocFlags.usage = CU_MEM_CREATE_USAGE_TILE_POOL;
            CUmemGenericAllocationHandle pool = 0;
            if (check(cuMemCreate(&pool, minimum, &pool_prop, 0))) {
                Tile tile = {array, props.tileExtent.width, props.tileExtent.height, pool, device};
                check_tile_data(tile);
                check(cuMemRelease(pool));
            }
            check(cuArrayDestroy(array));
        }
    } else {
        printf("sparse array: not tested (the device has no sparse CUDA arrays)\n");
    }
    // An array whose memory is bound later (deferred mapping): what it needs.
    CUDA_ARRAY3D_DESCRIPTOR deferred_desc;
    memset(&deferred_desc, 0, sizeof deferred_desc);
    deferred_desc.Width = 1024;
    deferred_desc.Height = 1024;
    deferred_desc.Format = CU_AD_FORMAT_FLOAT;
    deferred_desc.NumChannels = 1;
    deferred_desc.Flags = CUDA_ARRAY3D_DEFERRED_MAPPING;
    CUarray deferred = NULL;
    if (check(cuArray3DCreate(&deferred, &deferred_desc))) {
        CUDA_ARRAY_MEMORY_REQUIREMENTS needs;
        memset(&needs, 0, sizeof needs);
        check(cuArrayGetMemoryRequirements(&needs, deferred, device));
        printf("deferred-mapping array memory: %zu bytes, alignment %zu\n", needs.size, needs.alignment);
        check(cuArrayDestroy(deferred));
    }
    check(cuMemRelease(handle));
    check(cuDevicePrimaryCtxRelease(device));
    return finish();
}
