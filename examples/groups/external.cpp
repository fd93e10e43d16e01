// External resources end to end with what CUDA itself exports, on a machine without Vulkan or
// another exporting API: the EXTRES_INTEROP group. Device memory created with a POSIX file
// descriptor as its shareable handle (the VMM calls of vmm.cpp) is imported as external memory of
// the opaque file descriptor type, and a second such allocation, zeroed, as an external semaphore
// of the same type. Every word written through the memory's own mapping is read through the
// buffer mapped from the import (cuExternalMemoryGetMappedBuffer), and the other way round; a
// mipmapped array mapped from it (cuExternalMemoryGetMappedMipmappedArray) has each texel written
// through the array found once among the memory's words, and each texel rewritten through the
// memory's mapping read back through the array. The semaphore orders a read after a write on
// another stream: the writer's stream, held by a host function until well after the reader's
// copy would have run unordered, writes through the external buffer and signals; the reader's
// stream waits, then copies through the memory's own mapping, and must read every word written,
// and must still be waiting while the writer is held. The mappings' access is read back, and the
// words of the memory the array does not use must stay as the program zeroed them. A refused
// import or call fails the program, as does any word that differs.
// Controls: no_wait (the reader does not wait, and reads the words from before the write) and
// other_memory (another allocation is imported: what one mapping writes, the other does not read).
// Rust program: external.rs.
#include "common.h"
#include <atomic>
#include <unistd.h>

// An allocation whose shareable handle is a POSIX file descriptor, mapped read-write at `address`.
struct Exported {
    CUmemGenericAllocationHandle handle;
    CUdeviceptr address;
    int fd;
};

// Creates `size` bytes as `prop` says, maps them read-write (checked: the access read back) and
// exports their descriptor; false where a call failed (reported and counted).
static bool export_memory(Exported* out, const CUmemAllocationProp* prop, size_t size) {
    out->handle = 0;
    out->address = 0;
    out->fd = -1;
    CUmemAccessDesc access;
    memset(&access, 0, sizeof access);
    access.location = prop->location;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    bool ok = check(cuMemCreate(&out->handle, size, prop, 0)) && check(cuMemAddressReserve(&out->address, size, 0, 0, 0)) &&
              check(cuMemMap(out->address, size, 0, out->handle, 0)) && check(cuMemSetAccess(out->address, size, &access, 1)) &&
              check(cuMemExportToShareableHandle(&out->fd, out->handle, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
    unsigned long long flags = 0;
    bool readable = ok && check(cuMemGetAccess(&flags, &prop->location, out->address));
    expect(readable && flags == CU_MEM_ACCESS_FLAGS_PROT_READWRITE, "the device reads and writes the mapping");
    return ok;
}

// Closes the descriptor, unmaps and releases the allocation.
static void release(const Exported* e, size_t size) {
    close(e->fd);
    check(cuMemUnmap(e->address, size));
    check(cuMemAddressFree(e->address, size));
    check(cuMemRelease(e->handle));
}

// How many of `n` words are `base + i` each.
static size_t count_pattern(const unsigned int* words, size_t n, unsigned int base) {
    size_t same = 0;
    for (size_t i = 0; i < n; i++) same += words[i] == base + (unsigned int)i;
    return same;
}

// Writes `base + i` into each of `n` words.
static void fill_pattern(unsigned int* words, size_t n, unsigned int base) {
    for (size_t i = 0; i < n; i++) words[i] = base + (unsigned int)i;
}

// The host function that holds the writer's stream: it returns once the flag it is given is set,
// or after 10 s.
static void CUDA_CB hold(void* released) {
    const std::atomic<bool>* flag = (const std::atomic<bool>*)released;
    for (int ms = 0; ms < 10000 && !flag->load(); ms++) {
        struct timespec pause = {0, 1000000};
        nanosleep(&pause, NULL);
    }
}

// Ends the program at once, failed, where a stream is stuck: without the driver's teardown at
// exit, which could wait for it.
static void abandon() {
    printf("Result = FAIL\n");
    fflush(stdout);
    _exit(1);
}

// The texels of the 64 x 64 array, one 32-bit float-sized word each.
#define SIDE 64
#define TEXELS (SIDE * SIDE)
// The tags of the texels' words: written through the array, then rewritten through the memory.
#define WRITTEN 0xa5000000u
#define REWRITTEN 0xb6000000u

// A copy of the whole array between level 0 of the array and host words.
static CUDA_MEMCPY2D array_copy(CUarray array, unsigned int* host, bool to_array) {
    CUDA_MEMCPY2D copy;
    memset(&copy, 0, sizeof copy);
    if (to_array) {
        copy.srcMemoryType = CU_MEMORYTYPE_HOST;
        copy.srcHost = host;
        copy.srcPitch = SIDE * sizeof(unsigned int);
        copy.dstMemoryType = CU_MEMORYTYPE_ARRAY;
        copy.dstArray = array;
    } else {
        copy.srcMemoryType = CU_MEMORYTYPE_ARRAY;
        copy.srcArray = array;
        copy.dstMemoryType = CU_MEMORYTYPE_HOST;
        copy.dstHost = host;
        copy.dstPitch = SIDE * sizeof(unsigned int);
    }
    copy.WidthInBytes = SIDE * sizeof(unsigned int);
    copy.Height = SIDE;
    return copy;
}

int main() {
    if (!check(cuInit(0))) return 1;
    CUdevice device = 0;
    CUcontext context = NULL;
    if (!primary_context(&device, &context)) return finish();

    // Two allocations exported as file descriptors: the memory and the semaphore's.
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = device;
    size_t size = 0;
    if (!check(cuMemGetAllocationGranularity(&size, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM))) return finish();
    const size_t count = size / sizeof(unsigned int);
    Exported memory, sync, other;
    if (!export_memory(&memory, &prop, size) || !export_memory(&sync, &prop, size)) return finish();
    const bool other_memory = control("other_memory");
    if (other_memory && !export_memory(&other, &prop, size)) return finish();
    unsigned int* source = NULL;
    unsigned int* seen = NULL;
    if (!check(cuMemAllocHost((void**)&source, size)) || !check(cuMemAllocHost((void**)&seen, size))) return finish();

    // The memory's descriptor imported, and a buffer mapped over all of it (the driver owns the
    // duplicate it is given).
    CUDA_EXTERNAL_MEMORY_HANDLE_DESC memory_desc;
    memset(&memory_desc, 0, sizeof memory_desc);
    memory_desc.type = CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD;
    memory_desc.handle.fd = dup(other_memory ? other.fd : memory.fd);
    memory_desc.size = size;
    CUexternalMemory external = NULL;
    if (!check(cuImportExternalMemory(&external, &memory_desc))) {
        close(memory_desc.handle.fd);
        return finish();
    }
    CUDA_EXTERNAL_MEMORY_BUFFER_DESC buffer_desc;
    memset(&buffer_desc, 0, sizeof buffer_desc);
    buffer_desc.size = size;
    CUdeviceptr buffer = 0;
    if (!check(cuExternalMemoryGetMappedBuffer(&buffer, external, &buffer_desc))) return finish();

    // Words through one mapping, read through the other, each way.
    fill_pattern(source, count, 0x10000000u);
    check(cuMemcpyHtoD(memory.address, source, size));
    memset(seen, 0, size);
    check(cuMemcpyDtoH(seen, buffer, size));
    expect_all("words written through the memory's own mapping, read through the external buffer",
               count_pattern(seen, count, 0x10000000u), count);
    fill_pattern(source, count, 0x20000000u);
    check(cuMemcpyHtoD(buffer, source, size));
    memset(seen, 0, size);
    check(cuMemcpyDtoH(seen, memory.address, size));
    expect_all("words written through the external buffer, read through the memory's own mapping",
               count_pattern(seen, count, 0x20000000u), count);

    // A 64 x 64 array of 32-bit floats mapped from the memory, whose layout is the driver's: each
    // texel's word, written through the array, must be among the memory's words exactly once.
    CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC array_desc;
    memset(&array_desc, 0, sizeof array_desc);
    array_desc.arrayDesc.Width = SIDE;
    array_desc.arrayDesc.Height = SIDE;
    array_desc.arrayDesc.Format = CU_AD_FORMAT_FLOAT;
    array_desc.arrayDesc.NumChannels = 1;
    array_desc.numLevels = 1;
    CUmipmappedArray mipmapped = NULL;
    CUarray level = NULL;
    if (check(cuExternalMemoryGetMappedMipmappedArray(&mipmapped, external, &array_desc)) &&
        check(cuMipmappedArrayGetLevel(&level, mipmapped, 0))) {
        check(cuMemsetD32(memory.address, 0, count));
        fill_pattern(source, TEXELS, WRITTEN);
        CUDA_MEMCPY2D to_array = array_copy(level, source, true);
        check(cuMemcpy2D(&to_array));
        check(cuMemcpyDtoH(seen, memory.address, size));
        static unsigned int found[TEXELS];
        for (size_t i = 0; i < count; i++)
            if ((seen[i] & 0xff000000u) == WRITTEN && (seen[i] & 0xffffffu) < TEXELS) found[seen[i] & 0xffffffu]++;
        size_t once = 0;
        for (int t = 0; t < TEXELS; t++) once += found[t] == 1;
        expect_all("texels written through the mapped array, found once in the memory", once, TEXELS);
        size_t zero = 0;
        for (size_t i = 0; i < count; i++) zero += seen[i] == 0;
        expect_all("words of the memory the array did not write, zero as set", zero, count - TEXELS);
        // Each texel's word retagged where it lies, through the memory's mapping, then read through
        // the array: every texel must hold its own retagged word.
        for (size_t i = 0; i < count; i++)
            if ((seen[i] & 0xff000000u) == WRITTEN) seen[i] = REWRITTEN | (seen[i] & 0xffffffu);
        check(cuMemcpyHtoD(memory.address, seen, size));
        memset(source, 0, TEXELS * sizeof(unsigned int));
        CUDA_MEMCPY2D from_array = array_copy(level, source, false);
        check(cuMemcpy2D(&from_array));
        expect_all("texels rewritten through the memory's own mapping, read through the array",
                   count_pattern(source, TEXELS, REWRITTEN), TEXELS);
        check(cuMipmappedArrayDestroy(mipmapped));
    }

    // The semaphore's allocation, zeroed, imported as a semaphore.
    check(cuMemsetD32(sync.address, 0, count));
    check(cuCtxSynchronize());
    CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC semaphore_desc;
    memset(&semaphore_desc, 0, sizeof semaphore_desc);
    semaphore_desc.type = CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD;
    semaphore_desc.handle.fd = dup(sync.fd);
    CUexternalSemaphore semaphore = NULL;
    if (check(cuImportExternalSemaphore(&semaphore, &semaphore_desc))) {
        // The writer, held by the host, writes through the external buffer and signals; the reader
        // waits for the signal, then reads through the memory's own mapping. The reader's copy,
        // were it not ordered, would run during the 200 ms the writer is held.
        CUstream writer = NULL, reader = NULL;
        check(cuStreamCreate(&writer, CU_STREAM_NON_BLOCKING));
        check(cuStreamCreate(&reader, CU_STREAM_NON_BLOCKING));
        fill_pattern(source, count, 0x30000000u);
        memset(seen, 0, size);
        static std::atomic<bool> released(false);
        check(cuLaunchHostFunc(writer, hold, &released));
        check(cuMemcpyHtoDAsync(buffer, source, size, writer));
        CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS signal;
        memset(&signal, 0, sizeof signal);
        check(cuSignalExternalSemaphoresAsync(&semaphore, &signal, 1, writer));
        if (!control("no_wait")) {
            CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS wait;
            memset(&wait, 0, sizeof wait);
            check(cuWaitExternalSemaphoresAsync(&semaphore, &wait, 1, reader));
        }
        check(cuMemcpyDtoHAsync(seen, memory.address, size, reader));
        struct timespec pause = {0, 200000000};
        nanosleep(&pause, NULL);
        expect(cuStreamQuery(reader) == CUDA_ERROR_NOT_READY, "the reader still waiting while the writer is held");
        released.store(true);
        bool done = finished(writer) && finished(reader);
        expect(done, "the writer's and the reader's streams finished within 10 s");
        if (!done) abandon();
        expect_all("words the reader read after waiting on the semaphore, as the writer wrote them",
                   count_pattern(seen, count, 0x30000000u), count);
        check(cuStreamDestroy(writer));
        check(cuStreamDestroy(reader));
        check(cuDestroyExternalSemaphore(semaphore));
    } else {
        close(semaphore_desc.handle.fd);
    }

    check(cuMemFree(buffer));
    check(cuDestroyExternalMemory(external));
    check(cuMemFreeHost(source));
    check(cuMemFreeHost(seen));
    release(&memory, size);
    release(&sync, size);
    if (other_memory) release(&other, size);
    check(cuDevicePrimaryCtxRelease(device));
    return finish();
}
