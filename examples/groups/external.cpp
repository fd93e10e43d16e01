// External resources, as far as a machine without Vulkan or another exporting API allows: the
// EXTRES_INTEROP group fed with what CUDA itself exports. Device memory created with a POSIX file
// descriptor as its shareable handle (the VMM calls of vmm.cpp) is imported as external memory
// of the opaque file descriptor type; where the driver takes it, a buffer and a mipmapped array
// are mapped from it and the buffer shows the exported data; the same descriptor offered as an
// external semaphore; whatever the driver answers is printed. Rust program: external.rs.
#include "common.h"
#include <unistd.h>

int main() {
    if (!check(cuInit(0))) return 1;
    CUdevice device = 0;
    CUcontext context = NULL;
    if (!check(cuDeviceGet(&device, 0))) return finish();
    if (!check(cuDevicePrimaryCtxRetain(&context, device))) return finish();
    check(cuCtxSetCurrent(context));

    // Memory exported as a file descriptor, holding a pattern.
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = device;
    size_t size = 0;
    check(cuMemGetAllocationGranularity(&size, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    const size_t count = size / sizeof(unsigned int);
    CUmemGenericAllocationHandle handle = 0;
    if (!check(cuMemCreate(&handle, size, &prop, 0))) return finish();
    CUdeviceptr address = 0;
    check(cuMemAddressReserve(&address, size, 0, 0, 0));
    check(cuMemMap(address, size, 0, handle, 0));
    CUmemAccessDesc access;
    memset(&access, 0, sizeof access);
    access.location = prop.location;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    check(cuMemSetAccess(address, size, &access, 1));
    check(cuMemsetD32(address, 0xe7e7, count));
    int fd = -1;
    check(cuMemExportToShareableHandle(&fd, handle, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));

    // The descriptor as external memory (the driver owns the duplicate it is given).
    CUDA_EXTERNAL_MEMORY_HANDLE_DESC memory_desc;
    memset(&memory_desc, 0, sizeof memory_desc);
    memory_desc.type = CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD;
    memory_desc.handle.fd = dup(fd);
    memory_desc.size = size;
    CUexternalMemory external = NULL;
    CUresult code = cuImportExternalMemory(&external, &memory_desc);
    printf("cuImportExternalMemory of CUDA's own file descriptor: %s\n", result_name(code));
    if (code == CUDA_SUCCESS) {
        CUDA_EXTERNAL_MEMORY_BUFFER_DESC buffer_desc;
        memset(&buffer_desc, 0, sizeof buffer_desc);
        buffer_desc.size = size;
        CUdeviceptr buffer = 0;
        if (check(cuExternalMemoryGetMappedBuffer(&buffer, external, &buffer_desc))) {
            unsigned int* back = (unsigned int*)calloc(count, sizeof(unsigned int));
            check(cuMemcpyDtoH(back, buffer, size));
            size_t same = 0;
            for (size_t i = 0; i < count; i++) same += back[i] == 0xe7e7;
            free(back);
            expect_all("the external buffer holds the exported memory's words", same, count);
            check(cuMemFree(buffer));
        }
        CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC array_desc;
        memset(&array_desc, 0, sizeof array_desc);
        array_desc.arrayDesc.Width = 64;
        array_desc.arrayDesc.Height = 64;
        array_desc.arrayDesc.Format = CU_AD_FORMAT_FLOAT;
        array_desc.arrayDesc.NumChannels = 1;
        array_desc.numLevels = 1;
        CUmipmappedArray mipmapped = NULL;
        code = cuExternalMemoryGetMappedMipmappedArray(&mipmapped, external, &array_desc);
        printf("cuExternalMemoryGetMappedMipmappedArray: %s\n", result_name(code));
        if (code == CUDA_SUCCESS) check(cuMipmappedArrayDestroy(mipmapped));
        check(cuDestroyExternalMemory(external));
    } else {
        close(memory_desc.handle.fd);
    }

    // The same descriptor offered as a semaphore.
    CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC semaphore_desc;
    memset(&semaphore_desc, 0, sizeof semaphore_desc);
    semaphore_desc.type = CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD;
    semaphore_desc.handle.fd = dup(fd);
    CUexternalSemaphore semaphore = NULL;
    code = cuImportExternalSemaphore(&semaphore, &semaphore_desc);
    printf("cuImportExternalSemaphore of the same descriptor: %s\n", result_name(code));
    if (code == CUDA_SUCCESS) {
        CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS signal;
        memset(&signal, 0, sizeof signal);
        CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS wait;
        memset(&wait, 0, sizeof wait);
        printf("cuSignalExternalSemaphoresAsync: %s\n",
               result_name(cuSignalExternalSemaphoresAsync(&semaphore, &signal, 1, NULL)));
        printf("cuWaitExternalSemaphoresAsync: %s\n",
               result_name(cuWaitExternalSemaphoresAsync(&semaphore, &wait, 1, NULL)));
        check(cuStreamSynchronize(NULL));
        check(cuDestroyExternalSemaphore(semaphore));
    } else {
        close(semaphore_desc.handle.fd);
    }

    close(fd);
    check(cuMemUnmap(address, size));
    check(cuMemAddressFree(address, size));
    check(cuMemRelease(handle));
    check(cuDevicePrimaryCtxRelease(device));
    return finish();
}
