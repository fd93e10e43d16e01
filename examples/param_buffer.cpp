// C twin of examples/param_buffer.rs. Ports 001_690d02e65a5330ea.txt, L.3 (Kernel Execution): the
// kernel parameters int, float4, char, float, CUdeviceptr, float2 packed by hand into one buffer
// with the post's ALIGN_UP and ADD_TO_PARAM_BUFFER macros and passed to cuLaunchKernel through
// CU_LAUNCH_PARAM_BUFFER_POINTER / CU_LAUNCH_PARAM_BUFFER_SIZE.
// The post's lines are kept as written. Completed: a context and the kernel ParamKernel from
// examples/kernels/param_buffer.ptx (or <argv[1]>/param_buffer.ptx) as cuFunction; values for the
// six parameters; devPtr is device memory into which the kernel writes back what it received; a
// 1x1x1 launch (the post passes the block sizes where cuLaunchKernel takes the grid sizes and the
// other way round; with all of them 1 that makes no difference); the host checks every value.
// Added lines use checkDriver (000 §1.2).
// CUDA 13.0 headers (marked below): cuCtxCreate becomes cuCtxCreate_v4, which takes a
// CUctxCreateParams* (NULL: none) before the flags.
#include <cuda.h>
#include <stdio.h>
#include <string>
#include <string.h>

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

// float4 and float2 as CUDA's vector_types.h defines them for host code (that header is not part
// of the driver API headers): 16- and 8-byte aligned, the alignment the post gives them.
struct alignas(16) float4 { float x, y, z, w; };
struct alignas(8) float2 { float x, y; };

// completion: what ParamKernel writes back to devPtr (the same struct as in param_buffer.cu)
struct Received {
    int i;                // offset 0
    float f4[4];          // offset 4
    int c;                // offset 20 (the char, widened)
    float f;              // offset 24
    CUdeviceptr devPtr;   // offset 32
    float f2[2];          // offset 40
};

#define ALIGN_UP(offset, alignment) \
      (offset) = ((offset) + (alignment) - 1) & ~((alignment) - 1)

char paramBuffer[1024];
size_t paramBufferSize = 0;

#define ADD_TO_PARAM_BUFFER(value, alignment)                   \
    do {                                                        \
        paramBufferSize = ALIGN_UP(paramBufferSize, alignment); \
        memcpy(paramBuffer + paramBufferSize,                   \
               &(value), sizeof(value));                        \
        paramBufferSize += sizeof(value);                       \
    } while (0)

int main(int argc, char** argv){
    // completion: the PTX (argv[1] is the folder of the kernels), a context, the kernel
    const char* kernels_dir = argc > 1 ? argv[1] : "examples/kernels";
    std::string ptx_path = std::string(kernels_dir) + "/param_buffer.ptx";   // the whole path, as long as it is
    checkDriver(cuInit(0));
    CUcontext context = nullptr;
    CUdevice device = 0;
#if CUDA_VERSION >= 13000
    // CUDA 13: cuCtxCreate_v4, with a CUctxCreateParams* (NULL: none)
    checkDriver(cuCtxCreate(&context, NULL, 0, device));
#else
    checkDriver(cuCtxCreate(&context, 0, device));
#endif
    CUmodule module = nullptr;
    checkDriver(cuModuleLoad(&module, ptx_path.c_str()));
    CUfunction cuFunction = nullptr;
    checkDriver(cuModuleGetFunction(&cuFunction, module, "ParamKernel"));

    int i = 42;
    ADD_TO_PARAM_BUFFER(i, __alignof(i));
    float4 f4 = { 1.5f, 2.5f, 3.5f, 4.5f };
    ADD_TO_PARAM_BUFFER(f4, 16); // float4's alignment is 16
    char c = 'A';
    ADD_TO_PARAM_BUFFER(c, __alignof(c));
    float f = 6.25f;
    ADD_TO_PARAM_BUFFER(f, __alignof(f));
    CUdeviceptr devPtr = 0;
    checkDriver(cuMemAlloc(&devPtr, sizeof(Received)));  // completion: where the kernel writes back
    ADD_TO_PARAM_BUFFER(devPtr, __alignof(devPtr));
    float2 f2 = { 7.75f, -8.5f };
    ADD_TO_PARAM_BUFFER(f2, 8); // float2's alignment is 8

    void* extra[] = {
        CU_LAUNCH_PARAM_BUFFER_POINTER, paramBuffer,
        CU_LAUNCH_PARAM_BUFFER_SIZE,    &paramBufferSize,
        CU_LAUNCH_PARAM_END
    };
    // completion: one thread
    unsigned int blockWidth = 1, blockHeight = 1, blockDepth = 1;
    unsigned int gridWidth = 1, gridHeight = 1, gridDepth = 1;
    cuLaunchKernel(cuFunction,
                   blockWidth, blockHeight, blockDepth,
                   gridWidth, gridHeight, gridDepth,
                   0, 0, 0, extra);

    // completion: what the kernel received, checked value by value
    printf("paramBufferSize = %zu\n", paramBufferSize);
    Received received;
    memset(&received, 0, sizeof(received));
    checkDriver(cuMemcpyDtoH(&received, devPtr, sizeof(received)));
    int correct = 0;
    bool ok = received.i == i;
    correct += ok;
    printf("i: sent %d, received %d: %s\n", i, received.i, ok ? "ok" : "MISMATCH");
    ok = received.f4[0] == f4.x && received.f4[1] == f4.y && received.f4[2] == f4.z && received.f4[3] == f4.w;
    correct += ok;
    printf("f4: sent (%f, %f, %f, %f), received (%f, %f, %f, %f): %s\n", f4.x, f4.y, f4.z, f4.w,
           received.f4[0], received.f4[1], received.f4[2], received.f4[3], ok ? "ok" : "MISMATCH");
    ok = received.c == c;
    correct += ok;
    printf("c: sent %d, received %d: %s\n", c, received.c, ok ? "ok" : "MISMATCH");
    ok = received.f == f;
    correct += ok;
    printf("f: sent %f, received %f: %s\n", f, received.f, ok ? "ok" : "MISMATCH");
    ok = received.devPtr == devPtr && devPtr != 0;
    correct += ok;
    printf("devPtr: sent %p, received %p: %s\n", (void*)devPtr, (void*)received.devPtr, ok ? "ok" : "MISMATCH");
    ok = received.f2[0] == f2.x && received.f2[1] == f2.y;
    correct += ok;
    printf("f2: sent (%f, %f), received (%f, %f): %s\n", f2.x, f2.y, received.f2[0], received.f2[1],
           ok ? "ok" : "MISMATCH");
    printf("ParamKernel: %d of 6 parameters received correctly\n", correct);
    printf("Result = %s\n", correct == 6 ? "PASS" : "FAIL");

    checkDriver(cuMemFree(devPtr));
    checkDriver(cuModuleUnload(module));
    checkDriver(cuCtxDestroy(context));
    return correct == 6 ? 0 : 1;
}
