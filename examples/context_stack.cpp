// C twin of examples/context_stack.rs. Ports 000_c1fa1a8379f4e9c9.txt, section 1.3 (CUcontext),
// the same program as 003_0fb4f74d196ab567.txt section 4: two contexts on the per-thread context
// stack (cuCtxCreate, cuCtxGetCurrent, cuCtxPushCurrent, cuCtxPopCurrent, cuCtxDestroy), then the
// primary context (cuDevicePrimaryCtxRetain / cuDevicePrimaryCtxRelease).
// CUDA 13.0 headers (marked below): cuCtxCreate becomes cuCtxCreate_v4, which takes a
// CUctxCreateParams* (NULL: none) before the flags.
// CUDA driver header cuda.h
#include <cuda.h>
#include <stdio.h>
#include <string.h>
#define checkDriver(op)  __check_cuda_driver((op), #op, __FILE__, __LINE__)

bool __check_cuda_driver(CUresult code, const char* op, const char* file, int line){
    if(code != CUresult::CUDA_SUCCESS){    // anything but CUDA_SUCCESS: report and return false
        const char* err_name = nullptr;
        const char* err_message = nullptr;
        cuGetErrorName(code, &err_name);
        cuGetErrorString(code, &err_message);
        printf("%s:%d  %s failed. \n  code = %s, message = %s\n", file, line, op, err_name, err_message);
        return false;
    }
    return true;
}

int main(){
    // check the driver's initialisation
    checkDriver(cuInit(0));
    // create contexts for the device
    CUcontext ctxA = nullptr;                                   // CUcontext is struct CUctx_st*
    CUcontext ctxB = nullptr;
    CUdevice device = 0;
#if CUDA_VERSION >= 13000
    // CUDA 13: cuCtxCreate_v4, with a CUctxCreateParams* (NULL: none)
    checkDriver(cuCtxCreate(&ctxA, NULL, CU_CTX_SCHED_AUTO, device));
#else
    checkDriver(cuCtxCreate(&ctxA, CU_CTX_SCHED_AUTO, device)); // creates ctxA on the device and pushes it
#endif
#if CUDA_VERSION >= 13000
    // CUDA 13: cuCtxCreate_v4, with a CUctxCreateParams* (NULL: none)
    checkDriver(cuCtxCreate(&ctxB, NULL, CU_CTX_SCHED_AUTO, device));
#else
    checkDriver(cuCtxCreate(&ctxB, CU_CTX_SCHED_AUTO, device));
#endif
    printf("ctxA = %p\n", ctxA);
    printf("ctxB = %p\n", ctxB);
    /*  context stack:
        ctxB -- top <--- current_context
        ctxA
        ...
     */
    // the current context
    CUcontext current_context = nullptr;
    checkDriver(cuCtxGetCurrent(&current_context));             // ctxB, the last one created
    printf("current_context = %p\n", current_context);
    // push a context
    checkDriver(cuCtxPushCurrent(ctxA));
    checkDriver(cuCtxGetCurrent(&current_context));             // the top of the stack
    printf("after pushing, current_context = %p\n", current_context);
    /*  context stack:
        ctxA -- top <--- current_context
        ctxB
        ...
    */
    // pop the current context
    CUcontext popped_ctx = nullptr;
    checkDriver(cuCtxPopCurrent(&popped_ctx));                   // pops ctxA into popped_ctx
    checkDriver(cuCtxGetCurrent(&current_context));              // the top of the stack
    printf("after poping, popped_ctx = %p\n", popped_ctx);       // ctxA
    printf("after poping, current_context = %p\n", current_context); // ctxB

    checkDriver(cuCtxDestroy(ctxA));
    checkDriver(cuCtxDestroy(ctxB));

    // better: the device's primary context, one per device, what the runtime API uses
    checkDriver(cuDevicePrimaryCtxRetain(&ctxA, device));
    printf("ctxA = %p\n", ctxA);
    checkDriver(cuDevicePrimaryCtxRelease(device));
    return 0;
}
