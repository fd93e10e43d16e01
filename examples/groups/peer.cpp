// Peer access between two GPUs: the PEER_ACCESS group and the peer copies of the MEM group. Whether
// each device can access the other, the P2P attributes and atomic capabilities of each direction;
// peer access enabled from each primary context to the other; device memory copied to the other GPU
// (cuMemcpyPeer), back (cuMemcpyPeerAsync), and as a 3D box there (cuMemcpy3DPeer) and its upper
// half back onto the lower half (cuMemcpy3DPeerAsync); a kernel on the first GPU reading the second
// GPU's memory; peer access disabled (disabling it again is refused as not enabled). Every copy and
// the kernel's result are checked word by word; the asynchronous work waits behind a delay in its
// stream, so that its results, or the stream's query after the synchronisation, show that the host
// waited. With fewer than two GPUs, or two that cannot access each other's memory
// (cuDeviceCanAccessPeer), there is nothing to test: Result = WAIVED, exit code 100. Rust program:
// peer.rs.
#include "common.h"

#define P2P(name) { name, #name }
static const struct {
    CUdevice_P2PAttribute value;
    const char* name;
} p2p[] = {
    P2P(CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK),
    P2P(CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED),
    P2P(CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED),
    P2P(CU_DEVICE_P2P_ATTRIBUTE_CUDA_ARRAY_ACCESS_SUPPORTED),
    P2P(CU_DEVICE_P2P_ATTRIBUTE_ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED),
};

// Whether `n` words of `out` are `base + i` each.
static size_t count_equal(const int* out, size_t n, int base) {
    size_t same = 0;
    for (size_t i = 0; i < n; i++) same += out[i] == base + (int)i;
    return same;
}

int main(int argc, char** argv) {
    if (!check(cuInit(0))) return 1;
    int count = 0;
    check(cuDeviceGetCount(&count));
    if (count < 2) {
        char why[64];
        snprintf(why, sizeof why, "peer access needs two devices; this machine has %d", count);
        return waive(why);
    }
    CUdevice dev[2] = {0, 0};
    CUcontext ctx[2] = {NULL, NULL};
    for (int d = 0; d < 2; d++) {
        if (!check(cuDeviceGet(&dev[d], d))) return finish();
        if (!check(cuDevicePrimaryCtxRetain(&ctx[d], dev[d]))) return finish();
    }
    int can[2] = {0, 0};
    for (int d = 0; d < 2; d++) {
        CUdevice from = dev[d], to = dev[1 - d];
        check(cuDeviceCanAccessPeer(&can[d], from, to));
        printf("device %d can access device %d: %d\n", d, 1 - d, can[d]);
        for (size_t i = 0; i < sizeof p2p / sizeof p2p[0]; i++) {
            int value = -1;
            CUresult code = cuDeviceGetP2PAttribute(&value, p2p[i].value, from, to);
            if (code == CUDA_SUCCESS)
                printf("  %s = %d\n", p2p[i].name, value);
            else
                printf("  %s: %s\n", p2p[i].name, result_name(code));
        }
        CUatomicOperation ops[3] = {CU_ATOMIC_OPERATION_INTEGER_ADD, CU_ATOMIC_OPERATION_CAS,
                                    CU_ATOMIC_OPERATION_FLOAT_ADD};
        unsigned int caps[3] = {0, 0, 0};
        CUresult code = cuDeviceGetP2PAtomicCapabilities(caps, ops, 3, from, to);
        printf("  atomic capabilities (add, CAS, float add): %s, %u %u %u\n", result_name(code), caps[0],
               caps[1], caps[2]);
    }
    if (!can[0] || !can[1]) {
        for (int d = 0; d < 2; d++) check(cuDevicePrimaryCtxRelease(dev[d]));
        return waive("devices 0 and 1 cannot access each other's memory");
    }

    // Peer access, each primary context to the other's device.
    bool enabled = true;
    for (int d = 0; d < 2; d++) {
        check(cuCtxSetCurrent(ctx[d]));
        CUresult code = cuCtxEnablePeerAccess(ctx[1 - d], 0);
        printf("context %d: cuCtxEnablePeerAccess: %s\n", d, result_name(code));
        enabled = enabled && code == CUDA_SUCCESS;
    }
    expect(enabled, "peer access is enabled both ways");

    // Copies between the devices: there, back, and as 3D boxes.
    const int n = 1 << 16;
    const size_t bytes = n * sizeof(int);
    int* host = (int*)malloc(bytes);
    int* back = (int*)malloc(bytes);
    for (int i = 0; i < n; i++) host[i] = 1000 + i;
    CUdeviceptr a[2] = {0, 0}, b[2] = {0, 0};
    for (int d = 0; d < 2; d++) {
        check(cuCtxSetCurrent(ctx[d]));
        check(cuMemAlloc(&a[d], bytes));
        check(cuMemAlloc(&b[d], bytes));
    }
    check(cuCtxSetCurrent(ctx[0]));
    check(cuMemcpyHtoD(a[0], host, bytes));
    check(cuMemcpyPeer(a[1], ctx[1], a[0], ctx[0], bytes));
    check(cuCtxSetCurrent(ctx[1]));
    memset(back, 0, bytes);
    check(cuMemcpyDtoH(back, a[1], bytes));
    printf("cuMemcpyPeer to device 1: %zu of %d words\n", count_equal(back, n, 1000), n);
    expect(count_equal(back, n, 1000) == (size_t)n, "cuMemcpyPeer copied to device 1");
    CUstream stream = NULL;
    check(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
    delay(stream);
    check(cuMemcpyPeerAsync(b[0], ctx[0], a[1], ctx[1], bytes, stream));
    check(cuStreamSynchronize(stream));
    check(cuCtxSetCurrent(ctx[0]));
    memset(back, 0, bytes);
    check(cuMemcpyDtoH(back, b[0], bytes));
    printf("cuMemcpyPeerAsync back to device 0: %zu of %d words\n", count_equal(back, n, 1000), n);
    expect(count_equal(back, n, 1000) == (size_t)n, "cuMemcpyPeerAsync copied back to device 0");
    // A box of 64 x 16 x 64 ints (the whole buffer), device 0 to 1, then its upper 32 layers back
    // to device 0's lower 32, asynchronously: word i of the lower half becomes word i + n / 2, the
    // upper half stays as it was.
    CUDA_MEMCPY3D_PEER box;
    memset(&box, 0, sizeof box);
    box.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    box.srcDevice = b[0];
    box.srcContext = ctx[0];
    box.srcPitch = 64 * sizeof(int);
    box.srcHeight = 16;
    box.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    box.dstDevice = b[1];
    box.dstContext = ctx[1];
    box.dstPitch = 64 * sizeof(int);
    box.dstHeight = 16;
    box.WidthInBytes = 64 * sizeof(int);
    box.Height = 16;
    box.Depth = 64;
    check(cuMemcpy3DPeer(&box));
    CUDA_MEMCPY3D_PEER box_back = box;
    box_back.srcDevice = b[1];
    box_back.srcContext = ctx[1];
    box_back.srcZ = 32;
    box_back.dstDevice = b[0];
    box_back.dstContext = ctx[0];
    box_back.Depth = 32;
    delay(stream);
    check(cuMemcpy3DPeerAsync(&box_back, stream));
    check(cuStreamSynchronize(stream));
    memset(back, 0, bytes);
    check(cuMemcpyDtoH(back, b[0], bytes));
    const int half = n / 2;
    size_t same = count_equal(back, half, 1000 + half) + count_equal(back + half, half, 1000 + half);
    printf("cuMemcpy3DPeer there and cuMemcpy3DPeerAsync of its upper half back onto the lower: %zu of %d words\n",
           same, n);
    expect(same == (size_t)n, "the 3D peer copies carried the box there and its upper half back");

    // A kernel on device 0 reading device 1's memory, into device 0's first buffer (which the
    // asynchronous copies above do not write).
    if (enabled) {
        CUmodule module = load_module(argc, argv, "peer.ptx");
        CUfunction add_one = NULL;
        if (check(cuModuleGetFunction(&add_one, module, "add_one"))) {
            int elements = n;
            void* args[] = {&a[1], &a[0], &elements};
            delay(NULL);
            check(cuLaunchKernel(add_one, n / 256, 1, 1, 256, 1, 1, 0, NULL, args, NULL));
            check(cuCtxSynchronize());
            expect_idle(NULL, "the kernel done after cuCtxSynchronize");
            memset(back, 0, bytes);
            check(cuMemcpyDtoH(back, a[0], bytes));
            printf("a kernel on device 0 read device 1's memory: %zu of %d words\n", count_equal(back, n, 1001), n);
            expect(count_equal(back, n, 1001) == (size_t)n, "the kernel read the peer's memory");
        }
        check(cuModuleUnload(module));
        for (int d = 0; d < 2; d++) {
            check(cuCtxSetCurrent(ctx[d]));
            check(cuCtxDisablePeerAccess(ctx[1 - d]));
        }
        bool disabled = true;
        for (int d = 0; d < 2; d++) {
            check(cuCtxSetCurrent(ctx[d]));
            disabled = disabled && cuCtxDisablePeerAccess(ctx[1 - d]) == CUDA_ERROR_PEER_ACCESS_NOT_ENABLED;
        }
        printf("peer access disabled both ways: %s\n", yes(disabled));
        expect(disabled, "peer access disabled both ways");
    }

    check(cuCtxSetCurrent(ctx[1]));
    check(cuStreamDestroy(stream));
    for (int d = 0; d < 2; d++) {
        check(cuCtxSetCurrent(ctx[d]));
        check(cuMemFree(a[d]));
        check(cuMemFree(b[d]));
    }
    check(cuCtxSetCurrent(NULL));
    for (int d = 0; d < 2; d++) check(cuDevicePrimaryCtxRelease(dev[d]));
    free(host);
    free(back);
    return finish();
}
