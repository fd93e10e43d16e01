// C twin of examples/groups/tensor_map.rs. The tensor memory group of the Driver API on a Hopper
// GPU, its tiled and im2col maps each used by a kernel of the tensor memory accelerator
// (cp.async.bulk.tensor) whose output is checked element by element against the host's: a 64 x 64
// matrix of floats described by tiled tensor maps (cuTensorMapEncodeTiled), a kernel moving each
// 16 x 16 tile from one matrix into another, the output equal to the input; the input map pointed
// at a second matrix (cuTensorMapReplaceAddress) and the copy done again, the output equal to the
// second matrix; an encoding refused for a misaligned address (any answer but CUDA_SUCCESS); an
// im2col map of an 8 x 8 NHWC image of 16 channels (cuTensorMapEncodeIm2col, its pixel box corners
// -1 in W and H) from which a kernel loads (im2col mode, one load per filter tap, its im2col
// offsets the tap's position) the im2col columns of a 3 x 3 convolution with padding 1, equal to
// the columns the host computes from the image. Printed, not checked: the driver's answer to
// cuTensorMapEncodeIm2colWide (CUDA 12.8 headers; a map for compute capability 10.0) and to
// cuTensorMapSetAllocationClass (CUDA 13.5 headers, looked up with cuGetProcAddress, entry()), or
// the lookup's answer where the driver has none.
// Control wrong_offsets (CUDA_GROUP_CONTROL): the kernel is given im2col offsets one pixel further
// along W than the host's columns use, which fails "the im2col map's columns are the host's
// im2col".
// Kernels: examples/kernels/tensor_map.ptx (compute_90), from tensor_map.cu; argv[1] is the kernels
// folder.
#include "common.h"
#include <cudaTypedefs.h>

#define N 64
#define TILE 16
// The NHWC image of the im2col map: one image of SIDE x SIDE pixels of CHANNELS floats.
#define SIDE 8
#define CHANNELS 16
// The convolution the im2col columns are for: TAPS x TAPS filter taps, padding PAD.
#define TAPS 3
#define PAD 1

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
    static float host[N * N];
    memset(host, 0, sizeof(host));
    check(cuMemcpyDtoH(host, d_out, sizeof(host)));
    size_t same = 0;
    for (int i = 0; i < N * N; ++i)
        same += host[i] == expected[i];
    expect_all("  elements equal to the input's", same, N * N);
}

// Loads the im2col columns of `image` (on the device, described by `map`) with the kernel
// im2col_columns, one column of SIDE * SIDE pixels a filter tap, and checks them against the
// columns computed here: tap (r, s), output pixel (y, x), channel c holds the image's pixel
// (y + r - PAD, x + s - PAD), or 0 outside the image.
static void im2col_and_check(CUmodule module, CUtensorMap* map, const float* image)
{
    CUfunction kernel = get_function(module, "im2col_columns");
    if (kernel == NULL)
        return;
    const size_t column = SIDE * SIDE * CHANNELS;
    const size_t count = TAPS * TAPS * column;
    static float expected[TAPS * TAPS * SIDE * SIDE * CHANNELS];
    for (size_t i = 0; i < count; ++i) {
        size_t tap = i / column, pixel = i % column / CHANNELS, c = i % CHANNELS;
        size_t r = tap / TAPS, s = tap % TAPS;
        long y = (long)(pixel / SIDE + r) - PAD, x = (long)(pixel % SIDE + s) - PAD;
        bool inside = y >= 0 && y < SIDE && x >= 0 && x < SIDE;
        expected[i] = inside ? image[(y * SIDE + x) * CHANNELS + c] : 0.0f;
    }
    CUdeviceptr d_columns = 0;
    check(cuMemAlloc(&d_columns, count * sizeof(float)));
    // NaN everywhere, so that a column the kernel did not write matches nothing.
    check(cuMemsetD32(d_columns, 0xFFFFFFFFu, count));
    // The im2col offsets of tap (0, 0): the control's are one pixel further along W.
    int offset_w = control("wrong_offsets") ? 1 : 0, offset_h = 0;
    void* args[] = { map, &d_columns, &offset_w, &offset_h };
    bool launched = check(cuLaunchKernel(kernel, TAPS, TAPS, 1, 128, 1, 1, 0, nullptr, args, nullptr));
    static float columns[TAPS * TAPS * SIDE * SIDE * CHANNELS];
    if (launched) {
        check(cuMemcpyDtoH(columns, d_columns, count * sizeof(float)));
        size_t same = 0;
        for (size_t i = 0; i < count; ++i)
            same += columns[i] == expected[i];
        printf("  elements equal to the host's im2col: %zu of %zu\n", same, count);
        expect(same == count, "the im2col map's columns are the host's im2col");
    }
    check(cuMemFree(d_columns));
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

    // An im2col map of the image: 64 pixels (all 8 x 8 output pixels) of 16 channels a column.
    printf("im2col columns of an 8 x 8 image of 16 channels, 3 x 3 taps, padding 1:\n");
    static float image[SIDE * SIDE * CHANNELS];
    for (int i = 0; i < SIDE * SIDE * CHANNELS; ++i)
        image[i] = (float)(i + 1);
    CUdeviceptr d_image = 0;
    check(cuMemAlloc(&d_image, sizeof(image)));
    check(cuMemcpyHtoD(d_image, image, sizeof(image)));
    cuuint64_t dims[4] = { CHANNELS, SIDE, SIDE, 1 };
    cuuint64_t strides[3] = { CHANNELS * sizeof(float), SIDE * CHANNELS * sizeof(float),
                              SIDE * SIDE * CHANNELS * sizeof(float) };
    int lower[2] = { -PAD, -PAD };
    int upper[2] = { -PAD, -PAD };
    cuuint32_t element_strides[4] = { 1, 1, 1, 1 };
    CUtensorMap im2col;
    if (check(cuTensorMapEncodeIm2col(&im2col, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, (void*)d_image, dims, strides,
                                      lower, upper, CHANNELS, SIDE * SIDE, element_strides,
                                      CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                                      CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE)))
        im2col_and_check(module, &im2col, image);
#if CUDA_VERSION >= 12080
    CUtensorMap wide;
    show("cuTensorMapEncodeIm2colWide",
         cuTensorMapEncodeIm2colWide(&wide, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, (void*)d_image, dims, strides, 0, 0,
                                     16, 64, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                     CU_TENSOR_MAP_IM2COL_WIDE_MODE_W, CU_TENSOR_MAP_SWIZZLE_128B,
                                     CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
#endif
#if CUDA_VERSION >= 13050
    PFN_cuTensorMapSetAllocationClass_v13050 setAllocationClass =
        (PFN_cuTensorMapSetAllocationClass_v13050)entry("cuTensorMapSetAllocationClass", 13050);
    if (setAllocationClass) {
        CUtensorMapAllocClass effective = CU_TENSOR_MAP_ALLOC_CLASS_AUTO;
        if (show("cuTensorMapSetAllocationClass",
                 setAllocationClass(&in, CU_TENSOR_MAP_ALLOC_CLASS_SMALL, &effective)))
            printf("  effective class %d\n", (int)effective);
    } else {
        show_missing("cuTensorMapSetAllocationClass");
    }
#endif

    check(cuMemFree(d_image));
    check(cuMemFree(d_out));
    check(cuMemFree(d_second));
    check(cuMemFree(d_first));
    check(cuModuleUnload(module));
    check(cuDevicePrimaryCtxRelease(device));
    return finish();
}
