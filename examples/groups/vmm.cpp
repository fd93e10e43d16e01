// Virtual memory management, in the manner of NVIDIA's vectorAddMMAP: the whole VA group. The
// allocation granularity; physical memory created with a POSIX file descriptor as its shareable
// handle, its properties read back; an address range reserved, mapped, given read-write access
// (and the access read back); the handle retained from the address; the memory exported as a file
// descriptor, imported again and mapped at a second address, where the data written through the
// first reads back; a sparse CUDA array's tile mapped and unmapped onto physical memory
// (cuMemMapArrayAsync), with its sparse properties and memory requirements. Rust program: vmm.rs.
#include "common.h"
#include <unistd.h>

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

    // A sparse array's first tile mapped onto the physical memory, then unmapped.
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
            CUDA_ARRAY_MEMORY_REQUIREMENTS needs;
            memset(&needs, 0, sizeof needs);
            check(cuArrayGetMemoryRequirements(&needs, array, device));
            printf("sparse array memory: %zu bytes, alignment %zu\n", needs.size, needs.alignment);
            CUarrayMapInfo info;
            memset(&info, 0, sizeof info);
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
            info.deviceBitMask = 1u << device;
            check(cuMemMapArrayAsync(&info, 1, NULL));
            info.memOperationType = CU_MEM_OPERATION_TYPE_UNMAP;
            info.memHandle.memHandle = 0;
            check(cuMemMapArrayAsync(&info, 1, NULL));
            check(cuStreamSynchronize(NULL));
            printf("sparse array: a tile mapped and unmapped\n");
            check(cuArrayDestroy(array));
        }
    }
    check(cuMemRelease(handle));
    check(cuDevicePrimaryCtxRelease(device));
    return finish();
}
