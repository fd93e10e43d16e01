// C twin of examples/profiler.rs. The profiler API of 001_690d02e65a5330ea.txt L.5.2
// (cudaProfiler.h, one of the driver API's headers the post lists): the host program of
// examples/vector_add.cpp (appendix L introduction, the vectorAddDrv sample) with its kernel launch
// between cuProfilerStart and cuProfilerStop, the capture range of Nsight Systems
// (`nsys profile --capture-range=cudaProfilerApi`) and Nsight Compute (`ncu --profile-from-start off`).
// Added to vector_add (marked "profiler:" below): the deprecated cuProfilerInitialize, its answer
// printed by name (the 12.x and 13.x headers document CUDA_ERROR_NOT_SUPPORTED); cuProfilerStart
// before the launch and cuProfilerStop after it, checked with checkDriver (000 §1.2), and a line
// saying they succeeded. Everything else is vector_add's, with its completions: N, the input values, the PTX
// path (examples/kernels/vector_add.ptx, or <argv[1]>/vector_add.ptx), copying C back, checking
// every element, freeing.
// CUDA 13.0 headers (marked below): cuCtxCreate becomes cuCtxCreate_v4, which takes a
// CUctxCreateParams* (NULL: none) before the flags.
#include <cuda.h>
#include <cudaProfiler.h>
#include <stdio.h>
#include <string>
#include <stdlib.h>

#define checkDriver(op)  __check_cuda_driver((op), #op, __FILE__, __LINE__)

bool __check_cuda_driver(CUresult code, const char* op, const char* file, int line){
    if(code != CUresult::CUDA_SUCCESS){
        const char* err_name = nullptr;
        const char* err_message = nullptr;
        cuGetErrorName(code, &err_name);
        cuGetErrorString(code, &err_message);
        printf("%s:%d  %s failed. \n  code = %s, message = %s\n", file, line, op, err_name, err_message);
        return false;
    }
    return true;
}

int main(int argc, char** argv)
{
    // completion: where the PTX is (argv[1] is the folder of the kernels)
    const char* kernels_dir = argc > 1 ? argv[1] : "examples/kernels";
    std::string ptx_path = std::string(kernels_dir) + "/vector_add.ptx";   // the whole path, as long as it is

    int N = 50000;
    size_t size = N * sizeof(float);

    // Allocate input vectors h_A and h_B in host memory
    float* h_A = (float*)malloc(size);
    float* h_B = (float*)malloc(size);

    // Initialize input vectors
    for (int i = 0; i < N; ++i) {
        h_A[i] = (float)i;
        h_B[i] = (float)(2 * i);
    }

    // Initialize
    cuInit(0);

    // Get number of devices supporting CUDA
    int deviceCount = 0;
    cuDeviceGetCount(&deviceCount);
    if (deviceCount == 0) {
        printf("There is no device supporting CUDA.\n");
        exit (0);
    }

    // Get handle for device 0
    CUdevice cuDevice;
    cuDeviceGet(&cuDevice, 0);

    // Create context
    CUcontext cuContext;
#if CUDA_VERSION >= 13000
    // CUDA 13: cuCtxCreate_v4, with a CUctxCreateParams* (NULL: none)
    cuCtxCreate(&cuContext, NULL, 0, cuDevice);
#else
    cuCtxCreate(&cuContext, 0, cuDevice);
#endif

    // Create module from binary file
    CUmodule cuModule;
    cuModuleLoad(&cuModule, ptx_path.c_str());

    // Allocate vectors in device memory
    CUdeviceptr d_A;
    cuMemAlloc(&d_A, size);
    CUdeviceptr d_B;
    cuMemAlloc(&d_B, size);
    CUdeviceptr d_C;
    cuMemAlloc(&d_C, size);

    // Copy vectors from host memory to device memory
    cuMemcpyHtoD(d_A, h_A, size);
    cuMemcpyHtoD(d_B, h_B, size);

    // Get function handle from module
    CUfunction vecAdd;
    cuModuleGetFunction(&vecAdd, cuModule, "VecAdd");

    // profiler: the deprecated initialization, with no configuration and no output
    CUresult code = cuProfilerInitialize("/dev/null", "/dev/null", CU_OUT_CSV);
    const char* name = nullptr;
    cuGetErrorName(code, &name);
    printf("cuProfilerInitialize: %s\n", name);

    // profiler: the capture range begins
    checkDriver(cuProfilerStart());

    // Invoke kernel
    int threadsPerBlock = 256;
    int blocksPerGrid =
            (N + threadsPerBlock - 1) / threadsPerBlock;
    void* args[] = { &d_A, &d_B, &d_C, &N };
    cuLaunchKernel(vecAdd,
                   blocksPerGrid, 1, 1, threadsPerBlock, 1, 1,
                   0, 0, args, 0);

    // profiler: the capture range ends once the kernel is done
    checkDriver(cuCtxSynchronize());
    checkDriver(cuProfilerStop());
    printf("cuProfilerStart and cuProfilerStop succeeded around the launch\n");

    // completion of the post's "...": copy the result back and check every element
    float* h_C = (float*)malloc(size);
    for (int i = 0; i < N; ++i)
        h_C[i] = -1.0f;   // no value the kernel writes
    checkDriver(cuMemcpyDtoH(h_C, d_C, size));
    int correct = 0;
    for (int i = 0; i < N; ++i) {
        if (h_C[i] == h_A[i] + h_B[i])
            ++correct;
        else if (correct == i)  // the first wrong element only
            printf("h_C[%d] = %f, expected %f\n", i, h_C[i], h_A[i] + h_B[i]);
    }
    printf("VecAdd: %d of %d elements correct\n", correct, N);
    printf("Result = %s\n", correct == N ? "PASS" : "FAIL");

    checkDriver(cuMemFree(d_A));
    checkDriver(cuMemFree(d_B));
    checkDriver(cuMemFree(d_C));
    checkDriver(cuModuleUnload(cuModule));
    checkDriver(cuCtxDestroy(cuContext));
    free(h_A);
    free(h_B);
    free(h_C);
    return correct == N ? 0 : 1;
}
