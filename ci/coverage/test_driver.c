/* The driver the recorder's test loads in place of libcuda.so.1 (its SONAME): the functions the
 * recorder asks from within its callback, answering for the test's made-up handles. */
#include <cuda.h>

/* The parameter sizes of the test's function 0xf000 and of its kernel 0xcafe. */
static const size_t function_sizes[] = {8, 4, 16};
static const size_t kernel_sizes[] = {4};

static CUresult answer(const size_t *sizes, size_t count, size_t index, size_t *offset,
                       size_t *size) {
    if (index >= count) return CUDA_ERROR_INVALID_VALUE;
    *offset = 0;
    for (size_t i = 0; i < index; i++) *offset += sizes[i];
    *size = sizes[index];
    return CUDA_SUCCESS;
}

CUresult cuFuncGetParamInfo(CUfunction function, size_t index, size_t *offset, size_t *size) {
    if (function != (CUfunction)0xf000) return CUDA_ERROR_INVALID_HANDLE;
    return answer(function_sizes, 3, index, offset, size);
}

CUresult cuKernelGetParamInfo(CUkernel kernel, size_t index, size_t *offset, size_t *size) {
    if (kernel != (CUkernel)0xcafe) return CUDA_ERROR_INVALID_HANDLE;
    return answer(kernel_sizes, 1, index, offset, size);
}

/* An IPC mapping of the test's: 1 MiB from 0x7c0000000000. */
CUresult cuMemGetAddressRange_v2(CUdeviceptr *base, size_t *size, CUdeviceptr address) {
    if (address - 0x7c0000000000ull >= 1 << 20) return CUDA_ERROR_NOT_FOUND;
    *base = 0x7c0000000000ull;
    *size = 1 << 20;
    return CUDA_SUCCESS;
}
