// C twin of examples/groups/tensor_map.rs. The tensor memory group of the Driver API on a Hopper
// GPU: a 64 x 64 matrix of floats described by tiled tensor maps (cuTensorMapEncodeTiled), a
// kernel moving each 16 x 16 tile with the tensor memory accelerator (cp.async.bulk.tensor) from
// one matrix into another, the output checked against the host's copy; the input map pointed at
// a second matrix (cuTensorMapReplaceAddress) and the copy done again; an im2col map of an NHWC
// tensor (cuTensorMapEncodeIm2col, and cuTensorMapEncodeIm2colWide from CUDA 12.8 headers); an
// encoding refused for a misaligned address; cuTensorMapSetAllocationClass (CUDA 13.5 headers)
// looked up with cuGetProcAddress, CUDA_ERROR_NOT_FOUND where the driver has none.
// Kernel: examples/kernels/tensor_map.ptx (compute_90), from tensor_map.cu; argv[1] is the
// kernels folder.
#include "common.h"
#include <cudaTypedefs.h>

#define N 64
#define TILE 16

// Encodes the tiled map of an N x N float matrix at `address`, in TILE x TILE boxes.
static CUresult encode_tiled(CUtensorMap* map, void* address)
{
    cuuint64_t dims[2] = { N, N };
    cuuint64_t strides[1] = { N * sizeof(float) };
    cuuint32_t box[2] = { TILE, TILE };
    cuuint32_t element_strides[2] = { 1, 1 };
    return cuTensorMapEncodeTiled(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, address, dims, strides, box,
                                  element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                                  CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
}

// Copies every tile of `in` into `out` (grid N/TILE x N/TILE) and checks `d_out` against
// `expected`.
static void copy_and_check(CUfunction copy_tile, CUtensorMap* in, CUtensorMap* out, CUdeviceptr d_out,
                           const float* expected)
{
    check(cuMemsetD32(d_out, 0, N * N));
    void* args[] = { in, out };
    if (!check(cuLaunchKernel(copy_tile, N / TILE, N / TILE, 1, 32, 1, 1, 0, nullptr, args, nullptr)))
        return;
    check(cuCtxSynchronize());
    static float host[N * N];
    check(cuMemcpyDtoH(host, d_out, sizeof(host)));
    size_t same = 0;
    for (int i = 0; i < N * N; ++i)
        same += host[i] == expected[i];
    expect_all("  elements equal to the input's", same, N * N);
}

int main(int argc, char** argv)
{
    if (!check(cuInit(0)))
        return 1;
    CUdevice device;
    CUcontext ctx;
    if (!primary_context(&device, &ctx))
        return finish();
    int major = 0;
    check(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device));
    if (major < 9) {
        expect(false, "the tensor memory accelerator needs compute capability 9.0");
        return finish();
    }
    CUmodule module = load_module(argc, argv, "tensor_map.ptx");
    CUfunction copy_tile = get_function(module, "copy_tile");
    if (copy_tile == NULL)
        return finish();

    static float first[N * N], second[N * N];
    for (int i = 0; i < N * N; ++i) {
        first[i] = (float)i;
        second[i] = (float)(3 * i + 1);
    }
    CUdeviceptr d_first, d_second, d_out;
    check(cuMemAlloc(&d_first, sizeof(first)));
    check(cuMemAlloc(&d_second, sizeof(second)));
    check(cuMemAlloc(&d_out, sizeof(first)));
    check(cuMemcpyHtoD(d_first, first, sizeof(first)));
    check(cuMemcpyHtoD(d_second, second, sizeof(second)));

    CUtensorMap in, out;
    printf("sizeof(CUtensorMap) = %zu, alignment %zu\n", sizeof(CUtensorMap), alignof(CUtensorMap));
    check(encode_tiled(&in, (void*)d_first));
    check(encode_tiled(&out, (void*)d_out));
    printf("tiles of the first matrix:\n");
    copy_and_check(copy_tile, &in, &out, d_out, first);
    check(cuTensorMapReplaceAddress(&in, (void*)d_second));
    printf("tiles of the second matrix, its address replaced in the input's map:\n");
    copy_and_check(copy_tile, &in, &out, d_out, second);

    // A global address must be 16-byte aligned.
    CUtensorMap refused;
    CUresult misaligned = encode_tiled(&refused, (void*)(d_first + 4));
    expect(!show("cuTensorMapEncodeTiled(misaligned)", misaligned), "a misaligned address refused");

    // An im2col map of an NHWC tensor: N = 1, H = W = 8, C = 16 floats; 64 pixels of 16 channels.
    cuuint64_t dims[4] = { 16, 8, 8, 1 };
    cuuint64_t strides[3] = { 16 * sizeof(float), 8 * 16 * sizeof(float), 8 * 8 * 16 * sizeof(float) };
    int lower[2] = { 0, 0 };
    int upper[2] = { 0, 0 };
    cuuint32_t element_strides[4] = { 1, 1, 1, 1 };
    CUtensorMap im2col;
    show("cuTensorMapEncodeIm2col",
         cuTensorMapEncodeIm2col(&im2col, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, (void*)d_first, dims, strides, lower,
                                 upper, 16, 64, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                 CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE,
                                 CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
#if CUDA_VERSION >= 12080
    CUtensorMap wide;
    show("cuTensorMapEncodeIm2colWide",
         cuTensorMapEncodeIm2colWide(&wide, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, (void*)d_first, dims, strides, 0, 0,
                                     16, 64, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                     CU_TENSOR_MAP_IM2COL_WIDE_MODE_W, CU_TENSOR_MAP_SWIZZLE_128B,
                                     CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
#endif
#if CUDA_VERSION >= 13050
    PFN_cuTensorMapSetAllocationClass_v13050 setAllocationClass =
        (PFN_cuTensorMapSetAllocationClass_v13050)entry("cuTensorMapSetAllocationClass", 13050);
    CUtensorMapAllocClass effective = CU_TENSOR_MAP_ALLOC_CLASS_AUTO;
    if (show("cuTensorMapSetAllocationClass",
             setAllocationClass ? setAllocationClass(&in, CU_TENSOR_MAP_ALLOC_CLASS_SMALL, &effective) : CUDA_ERROR_NOT_FOUND))
        printf("  effective class %d\n", (int)effective);
#endif

    check(cuMemFree(d_out));
    check(cuMemFree(d_second));
    check(cuMemFree(d_first));
    check(cuModuleUnload(module));
    check(cuDevicePrimaryCtxRelease(device));
    return finish();
}
