// The memory group beyond allocation: every copy form (host, device, arrays; 1D, 2D, 3D; pitched,
// unaligned, unified-address and asynchronous ones; CUDA 12.8's batches), every memset (8, 16
// and 32 bits, 2D, asynchronous), 1D, 2D and 3D arrays with their descriptors, mipmapped arrays
// (a level, sparse properties, a deferred-mapping one's memory requirements), a multi-planar
// (NV12) array's two planes, registered host memory and its flags, address ranges, a DMA-BUF handle for a
// range, the memory's info, and where the driver answers them, async notifications and batched
// decompression. Each copy and set is read back. Rust program: mem.rs.
#include "common.h"
#include <cudaTypedefs.h>
#include <unistd.h>

static const size_t N = 4096;  // words of each buffer
static const size_t B = N * sizeof(unsigned int);
// The word cuMemsetD32 writes before the unified-address copies carry it on: no buffer holds it
// before.
static const unsigned int SET = 0x5eed0001;

static void fill(unsigned int* p, size_t n, unsigned int seed) {
    for (size_t i = 0; i < n; i++) p[i] = seed + (unsigned int)i * 3;
}

static size_t matches(const unsigned int* p, size_t n, unsigned int seed) {
    size_t same = 0;
    for (size_t i = 0; i < n; i++) same += p[i] == seed + (unsigned int)i * 3;
    return same;
}

static size_t bytes_equal(const void* p, size_t n, unsigned char value) {
    size_t same = 0;
    for (size_t i = 0; i < n; i++) same += ((const unsigned char*)p)[i] == value;
    return same;
}

static size_t halves_equal(const void* p, size_t n, unsigned short value) {
    size_t same = 0;
    for (size_t i = 0; i < n; i++) same += ((const unsigned short*)p)[i] == value;
    return same;
}

static size_t words_equal(const void* p, size_t n, unsigned int value) {
    size_t same = 0;
    for (size_t i = 0; i < n; i++) same += ((const unsigned int*)p)[i] == value;
    return same;
}

static void print_array(const char* what, CUarray array) {
    CUDA_ARRAY3D_DESCRIPTOR d;
    memset(&d, 0, sizeof d);
    check(cuArray3DGetDescriptor(&d, array));
    printf("%s: %zu x %zu x %zu, format %d, %u channel(s), flags %u\n", what, d.Width, d.Height, d.Depth,
           (int)d.Format, d.NumChannels, d.Flags);
}

static void async_notification(CUasyncNotificationInfo* info, void* user, CUasyncCallbackHandle handle) {
    (void)info;
    (void)user;
    (void)handle;
}

int main() {
    if (!check(cuInit(0))) return 1;
    CUdevice device = 0;
    CUcontext context = NULL;
    if (!check(cuDeviceGet(&device, 0))) return finish();
    if (!check(cuDevicePrimaryCtxRetain(&context, device))) return finish();
    check(cuCtxSetCurrent(context));
    size_t free_bytes = 0, total = 0;
    check(cuMemGetInfo(&free_bytes, &total));
    printf("memory: %zu bytes, free no more than that: %s\n", total, free_bytes <= total ? "yes" : "no");
    expect(free_bytes <= total, "cuMemGetInfo's free memory is at most the total");

    CUstream stream = NULL;
    check(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
    unsigned int* host = (unsigned int*)malloc(B);
    unsigned int* back = (unsigned int*)malloc(B);
    unsigned int *pinned = NULL, *pinned_back = NULL;
    if (!check(cuMemAllocHost((void**)&pinned, B))) return finish();
    if (!check(cuMemAllocHost((void**)&pinned_back, B))) return finish();
    unsigned int flags = 0;
    check(cuMemHostGetFlags(&flags, pinned));
    printf("cuMemAllocHost's flags: %u\n", flags);
    CUdeviceptr d1 = 0, d2 = 0;
    if (!check(cuMemAlloc(&d1, B)) || !check(cuMemAlloc(&d2, B))) return finish();

    // Linear memory: synchronous, unified-address and asynchronous copies, each into memory that
    // does not hold what it copies. Each group of asynchronous work waits behind a delay in its
    // stream, so that its results are certainly not there before the synchronisation.
    fill(host, N, 1);
    check(cuMemcpyHtoD(d1, host, B));
    check(cuMemcpyDtoD(d2, d1, B));
    memset(back, 0, B);
    check(cuMemcpyDtoH(back, d2, B));
    // The control `no_copy_check` leaves this check out: the page's control, with the drop of the
    // cuMemcpyDtoH above, which only this check sees.
    if (!control("no_copy_check"))
        expect_all("cuMemcpyHtoD, cuMemcpyDtoD, cuMemcpyDtoH", matches(back, N, 1), N);
    check(cuMemsetD32(d1, SET, N));
    check(cuMemcpy(d2, d1, B));
    memset(back, 0, B);
    check(cuMemcpy((CUdeviceptr)back, d2, B));
    expect_all("cuMemsetD32, cuMemcpy (unified addresses)", words_equal(back, N, SET), N);
    fill(pinned, N, 2);
    memset(pinned_back, 0, B);
    delay(stream);
    check(cuMemcpyHtoDAsync(d1, pinned, B, stream));
    check(cuMemcpyDtoDAsync(d2, d1, B, stream));
    check(cuMemcpyAsync((CUdeviceptr)pinned_back, d2, B, stream));
    check(cuStreamSynchronize(stream));
    expect_all("cuMemcpyHtoDAsync, cuMemcpyDtoDAsync, cuMemcpyAsync (unified addresses)",
               matches(pinned_back, N, 2), N);
    CUdeviceptr base = 0;
    size_t range = 0;
    check(cuMemGetAddressRange(&base, &range, d1 + 100));
    printf("cuMemGetAddressRange inside the first buffer: its start %s, %zu bytes\n", base == d1 ? "yes" : "no",
           range);
    expect(base == d1 && range >= B, "the address range is the allocation's");

    // Memsets, synchronous and asynchronous.
    check(cuMemsetD8(d1, 0xab, B));
    check(cuMemcpyDtoH(back, d1, B));
    expect_all("cuMemsetD8", bytes_equal(back, B, 0xab), B);
    check(cuMemsetD16(d1, 0xbeef, B / 2));
    check(cuMemcpyDtoH(back, d1, B));
    expect_all("cuMemsetD16", halves_equal(back, B / 2, 0xbeef), B / 2);
    delay(stream);
    check(cuMemsetD8Async(d1, 0xcd, B, stream));
    check(cuMemcpyDtoHAsync(pinned_back, d1, B, stream));
    check(cuStreamSynchronize(stream));
    expect_all("cuMemsetD8Async", bytes_equal(pinned_back, B, 0xcd), B);
    delay(stream);
    check(cuMemsetD16Async(d1, 0x1234, B / 2, stream));
    check(cuMemcpyDtoHAsync(pinned_back, d1, B, stream));
    check(cuStreamSynchronize(stream));
    expect_all("cuMemsetD16Async", halves_equal(pinned_back, B / 2, 0x1234), B / 2);
    delay(stream);
    check(cuMemsetD32Async(d1, 0x89abcdef, N, stream));
    check(cuMemcpyDtoHAsync(pinned_back, d1, B, stream));
    check(cuStreamSynchronize(stream));
    expect_all("cuMemsetD32Async", words_equal(pinned_back, N, 0x89abcdef), N);

    // Pitched memory: 2D sets, 2D copies through it and a 2D array.
    const size_t width = 64 * sizeof(unsigned int), height = 32;  // N / 2 words
    CUdeviceptr pitched = 0;
    size_t pitch = 0;
    if (!check(cuMemAllocPitch(&pitched, &pitch, width, height, sizeof(unsigned int)))) return finish();
    printf("cuMemAllocPitch: %zu bytes a row for %zu\n", pitch, width);
    CUDA_MEMCPY2D to_host;
    memset(&to_host, 0, sizeof to_host);
    to_host.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    to_host.srcDevice = pitched;
    to_host.srcPitch = pitch;
    to_host.dstMemoryType = CU_MEMORYTYPE_HOST;
    to_host.dstHost = back;
    to_host.dstPitch = width;
    to_host.WidthInBytes = width;
    to_host.Height = height;
    check(cuMemsetD2D8(pitched, pitch, 0x11, width, height));
    check(cuMemcpy2D(&to_host));
    expect_all("cuMemsetD2D8", bytes_equal(back, width * height, 0x11), width * height);
    check(cuMemsetD2D16(pitched, pitch, 0x2222, width / 2, height));
    check(cuMemcpy2D(&to_host));
    expect_all("cuMemsetD2D16", halves_equal(back, width * height / 2, 0x2222), width * height / 2);
    check(cuMemsetD2D32(pitched, pitch, 0x33333333, width / 4, height));
    check(cuMemcpy2D(&to_host));
    expect_all("cuMemsetD2D32", words_equal(back, N / 2, 0x33333333), N / 2);
    CUDA_MEMCPY2D to_pinned = to_host;
    to_pinned.dstHost = pinned_back;
    delay(stream);
    check(cuMemsetD2D8Async(pitched, pitch, 0x44, width, height, stream));
    check(cuMemcpy2DAsync(&to_pinned, stream));
    check(cuStreamSynchronize(stream));
    expect_all("cuMemsetD2D8Async", bytes_equal(pinned_back, width * height, 0x44), width * height);
    delay(stream);
    check(cuMemsetD2D16Async(pitched, pitch, 0x5555, width / 2, height, stream));
    check(cuMemcpy2DAsync(&to_pinned, stream));
    check(cuStreamSynchronize(stream));
    expect_all("cuMemsetD2D16Async", halves_equal(pinned_back, width * height / 2, 0x5555), width * height / 2);
    delay(stream);
    check(cuMemsetD2D32Async(pitched, pitch, 0x66666666, width / 4, height, stream));
    check(cuMemcpy2DAsync(&to_pinned, stream));
    check(cuStreamSynchronize(stream));
    expect_all("cuMemsetD2D32Async and cuMemcpy2DAsync", words_equal(pinned_back, N / 2, 0x66666666), N / 2);
    CUDA_ARRAY_DESCRIPTOR flat;
    memset(&flat, 0, sizeof flat);
    flat.Width = 64;
    flat.Height = 32;
    flat.Format = CU_AD_FORMAT_UNSIGNED_INT32;
    flat.NumChannels = 1;
    CUarray array2d = NULL;
    if (!check(cuArrayCreate(&array2d, &flat))) return finish();
    CUDA_ARRAY_DESCRIPTOR described;
    memset(&described, 0, sizeof described);
    check(cuArrayGetDescriptor(&described, array2d));
    printf("2D array: %zu x %zu, format %d, %u channel(s)\n", described.Width, described.Height,
           (int)described.Format, described.NumChannels);
    fill(host, N / 2, 3);
    CUDA_MEMCPY2D copy;
    memset(&copy, 0, sizeof copy);
    copy.srcMemoryType = CU_MEMORYTYPE_HOST;
    copy.srcHost = host;
    copy.srcPitch = width;
    copy.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    copy.dstDevice = pitched;
    copy.dstPitch = pitch;
    copy.WidthInBytes = width;
    copy.Height = height;
    check(cuMemcpy2D(&copy));
    memset(&copy, 0, sizeof copy);
    copy.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    copy.srcDevice = pitched;
    copy.srcPitch = pitch;
    copy.dstMemoryType = CU_MEMORYTYPE_ARRAY;
    copy.dstArray = array2d;
    copy.WidthInBytes = width;
    copy.Height = height;
    delay(stream);
    check(cuMemcpy2DAsync(&copy, stream));
    check(cuStreamSynchronize(stream));
    memset(&copy, 0, sizeof copy);
    copy.srcMemoryType = CU_MEMORYTYPE_ARRAY;
    copy.srcArray = array2d;
    copy.dstMemoryType = CU_MEMORYTYPE_HOST;
    copy.dstHost = back;
    copy.dstPitch = width;
    copy.WidthInBytes = width;
    copy.Height = height;
    memset(back, 0, B);
    check(cuMemcpy2DUnaligned(&copy));
    expect_all("cuMemcpy2D host to pitched, cuMemcpy2DAsync to a 2D array, cuMemcpy2DUnaligned back",
               matches(back, N / 2, 3), N / 2);

    // 1D arrays: to and from the host, the device and another array.
    flat.Width = N;
    flat.Height = 0;
    CUarray array1d = NULL, other1d = NULL;
    if (!check(cuArrayCreate(&array1d, &flat)) || !check(cuArrayCreate(&other1d, &flat))) return finish();
    fill(host, N, 4);
    check(cuMemcpyHtoA(array1d, 0, host, B));
    check(cuMemcpyAtoA(other1d, 0, array1d, 0, B));
    check(cuMemcpyAtoD(d1, other1d, 0, B));
    memset(back, 0, B);
    check(cuMemcpyDtoH(back, d1, B));
    expect_all("cuMemcpyHtoA, cuMemcpyAtoA, cuMemcpyAtoD", matches(back, N, 4), N);
    fill(host, N, 5);
    check(cuMemcpyHtoD(d2, host, B));
    check(cuMemcpyDtoA(array1d, 0, d2, B));
    memset(back, 0, B);
    check(cuMemcpyAtoH(back, array1d, 0, B));
    expect_all("cuMemcpyDtoA, cuMemcpyAtoH", matches(back, N, 5), N);
    fill(pinned, N, 6);
    delay(stream);
    check(cuMemcpyHtoAAsync(array1d, 0, pinned, B, stream));
    check(cuMemcpyAtoHAsync(pinned_back, array1d, 0, B, stream));
    check(cuStreamSynchronize(stream));
    expect_all("cuMemcpyHtoAAsync, cuMemcpyAtoHAsync", matches(pinned_back, N, 6), N);

    // A 3D array: 16 x 16 x 4 words, the host's data there and back.
    CUDA_ARRAY3D_DESCRIPTOR cube;
    memset(&cube, 0, sizeof cube);
    cube.Width = 16;
    cube.Height = 16;
    cube.Depth = 4;
    cube.Format = CU_AD_FORMAT_UNSIGNED_INT32;
    cube.NumChannels = 1;
    CUarray array3d = NULL;
    if (!check(cuArray3DCreate(&array3d, &cube))) return finish();
    print_array("3D array", array3d);
    const size_t cube_words = 16 * 16 * 4;
    fill(host, cube_words, 7);
    CUDA_MEMCPY3D copy3d;
    memset(&copy3d, 0, sizeof copy3d);
    copy3d.srcMemoryType = CU_MEMORYTYPE_HOST;
    copy3d.srcHost = host;
    copy3d.srcPitch = 16 * sizeof(unsigned int);
    copy3d.srcHeight = 16;
    copy3d.dstMemoryType = CU_MEMORYTYPE_ARRAY;
    copy3d.dstArray = array3d;
    copy3d.WidthInBytes = 16 * sizeof(unsigned int);
    copy3d.Height = 16;
    copy3d.Depth = 4;
    check(cuMemcpy3D(&copy3d));
    CUDA_MEMCPY3D from3d;
    memset(&from3d, 0, sizeof from3d);
    from3d.srcMemoryType = CU_MEMORYTYPE_ARRAY;
    from3d.srcArray = array3d;
    from3d.dstMemoryType = CU_MEMORYTYPE_HOST;
    from3d.dstHost = pinned_back;
    from3d.dstPitch = 16 * sizeof(unsigned int);
    from3d.dstHeight = 16;
    from3d.WidthInBytes = 16 * sizeof(unsigned int);
    from3d.Height = 16;
    from3d.Depth = 4;
    memset(pinned_back, 0, B);
    delay(stream);
    check(cuMemcpy3DAsync(&from3d, stream));
    check(cuStreamSynchronize(stream));
    expect_all("cuMemcpy3D to a 3D array, cuMemcpy3DAsync back", matches(pinned_back, cube_words, 7), cube_words);

    // CUDA 12.8's batches: two copies from the host, and a 3D copy into the array.
    fill(pinned, N, 8);
    CUdeviceptr dsts[2] = {d1, d2};
    CUdeviceptr srcs[2] = {(CUdeviceptr)pinned, (CUdeviceptr)pinned};
    size_t sizes[2] = {B, B};
    CUmemcpyAttributes attrs;
    memset(&attrs, 0, sizeof attrs);
    attrs.srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_STREAM;
    size_t attrs_idxs[1] = {0};
    delay(stream);
#if CUDA_VERSION >= 13000
    check(cuMemcpyBatchAsync(dsts, srcs, sizes, 2, &attrs, attrs_idxs, 1, stream));
#else
    size_t fail_index = 0;
    check(cuMemcpyBatchAsync(dsts, srcs, sizes, 2, &attrs, attrs_idxs, 1, &fail_index, stream));
#endif
    check(cuStreamSynchronize(stream));
    size_t batch = 0;
    for (int k = 0; k < 2; k++) {
        memset(back, 0, B);
        check(cuMemcpyDtoH(back, dsts[k], B));
        batch += matches(back, N, 8);
    }
    expect_all("cuMemcpyBatchAsync, two copies", batch, 2 * N);
    fill(pinned, cube_words, 9);
    CUDA_MEMCPY3D_BATCH_OP op;
    memset(&op, 0, sizeof op);
    op.src.type = CU_MEMCPY_OPERAND_TYPE_POINTER;
    op.src.op.ptr.ptr = (CUdeviceptr)pinned;
    op.src.op.ptr.rowLength = 16;
    op.src.op.ptr.layerHeight = 16;
    op.dst.type = CU_MEMCPY_OPERAND_TYPE_ARRAY;
    op.dst.op.array.array = array3d;
    op.extent.width = 16;
    op.extent.height = 16;
    op.extent.depth = 4;
    op.srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_STREAM;
    delay(stream);
#if CUDA_VERSION >= 13000
    check(cuMemcpy3DBatchAsync(1, &op, 0, stream));
#else
    check(cuMemcpy3DBatchAsync(1, &op, &fail_index, 0, stream));
#endif
    memset(pinned_back, 0, B);
    check(cuMemcpy3DAsync(&from3d, stream));
    check(cuStreamSynchronize(stream));
    expect_all("cuMemcpy3DBatchAsync into the 3D array", matches(pinned_back, cube_words, 9), cube_words);

#if CUDA_VERSION >= 13020
    // Newer than CUDA 13.0: looked up by version, called where the driver has them.
    void* pfn = NULL;
    CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    CUresult found = cuGetProcAddress("cuMemcpyWithAttributesAsync", &pfn, 13020, CU_GET_PROC_ADDRESS_DEFAULT, &status);
    printf("cuGetProcAddress(cuMemcpyWithAttributesAsync, 13020): %s, %s\n", result_name(found),
           pfn != NULL ? "found" : "none");
    if (pfn != NULL) {
        fill(pinned, N, 10);
        delay(stream);
        check(((PFN_cuMemcpyWithAttributesAsync_v13020)pfn)(d1, (CUdeviceptr)pinned, B, &attrs, stream));
        check(cuMemcpyDtoHAsync(pinned_back, d1, B, stream));
        check(cuStreamSynchronize(stream));
        expect_all("cuMemcpyWithAttributesAsync", matches(pinned_back, N, 10), N);
    }
    pfn = NULL;
    found = cuGetProcAddress("cuMemcpy3DWithAttributesAsync", &pfn, 13020, CU_GET_PROC_ADDRESS_DEFAULT, &status);
    printf("cuGetProcAddress(cuMemcpy3DWithAttributesAsync, 13020): %s, %s\n", result_name(found),
           pfn != NULL ? "found" : "none");
    if (pfn != NULL) {
        fill(pinned, cube_words, 11);
        memset(pinned_back, 0, B);
        delay(stream);
        check(((PFN_cuMemcpy3DWithAttributesAsync_v13020)pfn)(&op, 0, stream));
        check(cuMemcpy3DAsync(&from3d, stream));
        check(cuStreamSynchronize(stream));
        expect_all("cuMemcpy3DWithAttributesAsync", matches(pinned_back, cube_words, 11), cube_words);
    }
#endif

    // Mipmapped arrays: a level's descriptor; a sparse one's properties and memory requirements.
    CUDA_ARRAY3D_DESCRIPTOR mip_desc;
    memset(&mip_desc, 0, sizeof mip_desc);
    mip_desc.Width = 64;
    mip_desc.Height = 64;
    mip_desc.Format = CU_AD_FORMAT_FLOAT;
    mip_desc.NumChannels = 1;
    CUmipmappedArray mipmapped = NULL;
    if (check(cuMipmappedArrayCreate(&mipmapped, &mip_desc, 4))) {
        CUarray level = NULL;
        check(cuMipmappedArrayGetLevel(&level, mipmapped, 2));
        print_array("mipmapped array, level 2", level);
        check(cuMipmappedArrayDestroy(mipmapped));
    }
    mip_desc.Width = 1024;
    mip_desc.Height = 1024;
    mip_desc.Flags = CUDA_ARRAY3D_SPARSE;
    CUmipmappedArray sparse = NULL;
    if (check(cuMipmappedArrayCreate(&sparse, &mip_desc, 4))) {
        CUDA_ARRAY_SPARSE_PROPERTIES props;
        memset(&props, 0, sizeof props);
        check(cuMipmappedArrayGetSparseProperties(&props, sparse));
        printf("sparse mipmapped array: tile %u x %u x %u, mip tail from level %u, %llu bytes\n",
               props.tileExtent.width, props.tileExtent.height, props.tileExtent.depth, props.miptailFirstLevel,
               props.miptailSize);
        check(cuMipmappedArrayDestroy(sparse));
    }
    mip_desc.Flags = CUDA_ARRAY3D_DEFERRED_MAPPING;
    CUmipmappedArray deferred = NULL;
    if (check(cuMipmappedArrayCreate(&deferred, &mip_desc, 4))) {
        CUDA_ARRAY_MEMORY_REQUIREMENTS needs;
        memset(&needs, 0, sizeof needs);
        check(cuMipmappedArrayGetMemoryRequirements(&needs, deferred, device));
        printf("deferred-mapping mipmapped array memory: %zu bytes, alignment %zu\n", needs.size, needs.alignment);
        check(cuMipmappedArrayDestroy(deferred));
    }

    // A multi-planar (NV12) array: the driver takes the format with three channels and
    // CUDA_ARRAY3D_VIDEO_ENCODE_DECODE (without either it answers CUDA_ERROR_INVALID_VALUE). Its
    // planes, the luma (64 x 64 bytes) and the interleaved chroma (32 x 32 pairs), are arrays of
    // their own: known bytes go into each and come back out; a two-plane format has no plane 2.
    CUDA_ARRAY3D_DESCRIPTOR nv12;
    memset(&nv12, 0, sizeof nv12);
    nv12.Width = 64;
    nv12.Height = 64;
    nv12.Format = CU_AD_FORMAT_NV12;
    nv12.NumChannels = 3;
    nv12.Flags = CUDA_ARRAY3D_VIDEO_ENCODE_DECODE;
    CUarray planar = NULL;
    if (check(cuArray3DCreate(&planar, &nv12))) {
        print_array("NV12 array", planar);
        // The control `nv12_planes_mixed` reads plane 1's bytes back from plane 0.
        CUarray luma = NULL;
        for (unsigned int index = 0; index < 2; index++) {
            CUarray plane = NULL;
            if (!check(cuArrayGetPlane(&plane, planar, index))) continue;
            if (index == 0) luma = plane;
            char what[32];
            snprintf(what, sizeof what, "its plane %u", index);
            print_array(what, plane);
            // Both planes are 64 bytes wide: 64 luma bytes, or 32 chroma pairs, per row.
            size_t rows = index == 0 ? 64 : 32;
            unsigned char in[64 * 64], out[64 * 64];
            for (size_t i = 0; i < 64 * rows; i++) in[i] = (unsigned char)(i * 7 + index);
            memset(out, 0, sizeof out);
            CUDA_MEMCPY2D copy;
            memset(&copy, 0, sizeof copy);
            copy.srcMemoryType = CU_MEMORYTYPE_HOST;
            copy.srcHost = in;
            copy.srcPitch = 64;
            copy.dstMemoryType = CU_MEMORYTYPE_ARRAY;
            copy.dstArray = plane;
            copy.WidthInBytes = 64;
            copy.Height = rows;
            check(cuMemcpy2D(&copy));
            memset(&copy, 0, sizeof copy);
            copy.srcMemoryType = CU_MEMORYTYPE_ARRAY;
            copy.srcArray = control("nv12_planes_mixed") && luma != NULL ? luma : plane;
            copy.dstMemoryType = CU_MEMORYTYPE_HOST;
            copy.dstHost = out;
            copy.dstPitch = 64;
            copy.WidthInBytes = 64;
            copy.Height = rows;
            check(cuMemcpy2D(&copy));
            size_t same = 0;
            for (size_t i = 0; i < 64 * rows; i++) same += in[i] == out[i];
            snprintf(what, sizeof what, "NV12 plane %u bytes back", index);
            expect_all(what, same, 64 * rows);
        }
        CUarray none = NULL;
        expect(!show("cuArrayGetPlane of plane 2", cuArrayGetPlane(&none, planar, 2)),
               "a two-plane array has no plane 2");
        check(cuArrayDestroy(planar));
    }

    // Registered host memory, written by the device through its mapping (an asynchronous set: a
    // synchronous one into host memory would not return before it is done).
    void* registered = NULL;
    if (posix_memalign(&registered, 4096, 65536) == 0) {
        memset(registered, 0, 65536);
        if (check(cuMemHostRegister(registered, 65536, CU_MEMHOSTREGISTER_DEVICEMAP))) {
            check(cuMemHostGetFlags(&flags, registered));
            printf("registered host memory's flags: %u\n", flags);
            CUdeviceptr mapped = 0;
            check(cuMemHostGetDevicePointer(&mapped, registered, 0));
            delay(stream);
            check(cuMemsetD32Async(mapped, 0x5a5a5a5a, 65536 / 4, stream));
            check(cuCtxSynchronize());
            expect_all("cuMemHostRegister, written by the device", words_equal(registered, 65536 / 4, 0x5a5a5a5a),
                       65536 / 4);
            expect_idle(stream, "the set done after cuCtxSynchronize");
            check(cuMemHostUnregister(registered));
        }
        free(registered);
    }

    // A DMA-BUF file descriptor for a range of device memory, where the system has them.
    int dma_buf = 0;
    check(cuDeviceGetAttribute(&dma_buf, CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED, device));
    CUdeviceptr big = 0;
    check(cuMemAlloc(&big, 2 << 20));
    int fd = -1;
    CUresult code = cuMemGetHandleForAddressRange(&fd, big, 2 << 20, CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, 0);
    printf("DMA-BUF supported %d; cuMemGetHandleForAddressRange: %s\n", dma_buf, result_name(code));
    if (code == CUDA_SUCCESS) close(fd);
    check(cuMemFree(big));

    // What this driver answers for async notifications and batched decompression.
    CUasyncCallbackHandle notification = NULL;
    code = cuDeviceRegisterAsyncNotification(device, async_notification, NULL, &notification);
    printf("cuDeviceRegisterAsyncNotification: %s\n", result_name(code));
    if (code == CUDA_SUCCESS) check(cuDeviceUnregisterAsyncNotification(device, notification));
    size_t error_index = 0;
    code = cuMemBatchDecompressAsync(NULL, 0, 0, &error_index, stream);
    printf("cuMemBatchDecompressAsync of nothing: %s\n", result_name(code));

    check(cuArrayDestroy(array3d));
    check(cuArrayDestroy(other1d));
    check(cuArrayDestroy(array1d));
    check(cuArrayDestroy(array2d));
    check(cuMemFree(pitched));
    check(cuMemFree(d2));
    check(cuMemFree(d1));
    check(cuMemFreeHost(pinned_back));
    check(cuMemFreeHost(pinned));
    free(back);
    free(host);
    check(cuStreamDestroy(stream));
    check(cuDevicePrimaryCtxRelease(device));
    return finish();
}
