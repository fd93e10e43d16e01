// C twin of examples/runtime_interop.rs. Ports 001_690d02e65a5330ea.txt, L.4 (Interoperability
// between Runtime and Driver APIs): a context created with the driver API and made current is
// picked up by the runtime; once the runtime is initialised, cuCtxGetCurrent gives the context it
// created, the primary context; device memory allocated with either API is used and freed through
// the other, CUdeviceptr cast to float* and back; and L.5.3.2 (Driver Function Retrieval, using
// the runtime API): cudaGetDriverEntryPoint("cuMemAllocAsync") into a PFN_cuMemAllocAsync, called,
// with the cudaEnableLegacyStream / cudaEnablePerThreadDefaultStream flags of L.5.3.3.
// The post's lines are kept as written; completed where the post leaves out what a program needs:
// initialisation and device 0, a runtime call in the driver's context and its checks (which
// context cuCtxGetCurrent gives, which context owns the runtime's allocation, which device the
// runtime reports), the runtime's initialisation (cudaFree(0)) and the primary context compared
// with cuDevicePrimaryCtxRetain's, N and the input values, the vector_add kernel
// (examples/kernels/vector_add.ptx, or <argv[1]>/vector_add.ptx) launched on the memory of both
// APIs and every element checked, the entry point compared with cuGetProcAddress at the runtime's
// version, the freeing, the printing, and the checks of what the appendix says (Result line).
// The runtime calls use checkRuntime, the runtime's form of checkDriver (000 §1.2).
// Changes from the post are marked "post:". The runtime is the CUDA 12.0 libcudart.so.12 (its
// cuda_runtime_api.h), whatever the cuda.h: from CUDA 12.0 on cudaGetDriverEntryPoint takes a
// fourth argument, cudaDriverEntryPointQueryResult *driverStatus (C++: default NULL), passed
// below and printed.
// CUDA 13.0 headers (marked below): cuCtxCreate becomes cuCtxCreate_v4, which takes a
// CUctxCreateParams* (NULL: none) before the flags, and cudaTypedefs.h no longer defines the
// unversioned PFN_cuMemAllocAsync (PFN_cuMemAllocAsync_v11020 is the same type).
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>
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

// completion: checkDriver for the runtime API, its error through cudaGetErrorName/cudaGetErrorString
#define checkRuntime(op)  __check_cuda_runtime((op), #op, __FILE__, __LINE__)

bool __check_cuda_runtime(cudaError_t code, const char* op, const char* file, int line){
    if(code != cudaSuccess){
        const char* err_name = cudaGetErrorName(code);
        const char* err_message = cudaGetErrorString(code);
        printf("%s:%d  %s failed. \n  code = %s, message = %s\n", file, line, op, err_name, err_message);
        return false;
    }
    return true;
}

// completion: prints what one cudaGetDriverEntryPoint call gave
static void printEntryPoint(const char* what, cudaError_t code, cudaDriverEntryPointQueryResult driverStatus, void* pfn){
    const char* status = "?";
    switch (driverStatus) {
        case cudaDriverEntryPointSuccess: status = "cudaDriverEntryPointSuccess"; break;
        case cudaDriverEntryPointSymbolNotFound: status = "cudaDriverEntryPointSymbolNotFound"; break;
        case cudaDriverEntryPointVersionNotSufficent: status = "cudaDriverEntryPointVersionNotSufficent"; break;
        default: break;
    }
    printf("%s: %s, %s, pfn = %p\n", what, cudaGetErrorName(code), status, pfn);
}

int main(int argc, char** argv){
    // completion: where the PTX is (argv[1] is the folder of the kernels)
    const char* kernels_dir = argc > 1 ? argv[1] : "examples/kernels";
    std::string ptx_path = std::string(kernels_dir) + "/vector_add.ptx";   // the whole path, as long as it is
    bool pass = true;

    // completion: the driver API initialised, device 0
    checkDriver(cuInit(0));
    CUdevice device = 0;
    checkDriver(cuDeviceGet(&device, 0));

    // L.4 "If a context is created and made current via the driver API, subsequent runtime calls
    // will pick up this context instead of creating a new one."
    CUcontext ctx = nullptr;
#if CUDA_VERSION >= 13000
    // CUDA 13: cuCtxCreate is cuCtxCreate_v4, a CUctxCreateParams* (NULL: none) before the flags
    checkDriver(cuCtxCreate(&ctx, NULL, 0, device));   // created and made current
#else
    checkDriver(cuCtxCreate(&ctx, 0, device));         // created and made current
#endif
    printf("ctx = %p\n", ctx);
    // completion: a runtime call, then which context is current, which owns its memory, which device
    float* d_probe = nullptr;
    checkRuntime(cudaMalloc(&d_probe, 256));
    int runtimeDevice = -1;
    checkRuntime(cudaGetDevice(&runtimeDevice));
    CUcontext current = nullptr;
    checkDriver(cuCtxGetCurrent(&current));
    CUcontext owner = nullptr;
    checkDriver(cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_CONTEXT, (CUdeviceptr)d_probe));
    printf("after cudaMalloc: current context %s ctx, the allocation's context %s ctx, cudaGetDevice = %d\n",
           current == ctx ? "==" : "!=", owner == ctx ? "==" : "!=", runtimeDevice);
    pass = pass && ctx != nullptr && current == ctx && owner == ctx && runtimeDevice == (int)device;
    checkRuntime(cudaFree(d_probe));
    checkDriver(cuCtxDestroy(ctx));
    checkDriver(cuCtxGetCurrent(&current));
    printf("after cuCtxDestroy: current context = %p\n", current);

    // L.4 "If the runtime is initialized, cuCtxGetCurrent() can be used to retrieve the context
    // created during initialization. This context can be used by subsequent driver API calls.
    // Implicitly created contexts from the runtime are called primary contexts."
    checkRuntime(cudaFree(0));   // completion: the runtime initialised, as usual, by a call that does nothing
    checkDriver(cuCtxGetCurrent(&current));
    // completion: the primary context, through the driver API's primary context management
    CUcontext primary = nullptr;
    checkDriver(cuDevicePrimaryCtxRetain(&primary, device));
    unsigned int primaryFlags = 0;
    int primaryActive = 0;
    checkDriver(cuDevicePrimaryCtxGetState(device, &primaryFlags, &primaryActive));
    printf("after cudaFree(0): current context %s the primary context (cuDevicePrimaryCtxRetain), active = %d\n",
           current == primary ? "==" : "!=", primaryActive);
    pass = pass && primary != nullptr && current == primary && primaryActive == 1;

    // L.4 "Device memory can be allocated and freed using either API. CUdeviceptr can be cast to
    // regular pointers and vice-versa:"
    // completion: N and the input values, as in vector_add
    int N = 50000;
    size_t size = N * sizeof(float);
    float* h_A = (float*)malloc(size);
    float* h_B = (float*)malloc(size);
    float* h_C = (float*)malloc(size);
    for (int i = 0; i < N; ++i) {
        h_A[i] = (float)i;
        h_B[i] = (float)(2 * i);
        h_C[i] = -1.0f;   // no value the kernel writes
    }

    CUdeviceptr devPtr = 0;     // post: uninitialised; 0 so that a failed allocation leaves null
    float* d_data;

    // Allocation using driver API
    checkDriver(cuMemAlloc(&devPtr, size));   // post: unchecked
    d_data = (float*)devPtr;
    float* d_A = d_data;        // completion: kept, the post reuses devPtr and d_data below

    // Allocation using runtime API
    checkRuntime(cudaMalloc(&d_data, size));  // post: unchecked
    devPtr = (CUdeviceptr)d_data;
    CUdeviceptr d_B = devPtr;   // completion: kept, as d_A

    // completion: one more of the runtime's, for the result
    float* d_result = nullptr;
    checkRuntime(cudaMalloc(&d_result, size));
    CUdeviceptr d_C = (CUdeviceptr)d_result;
    printf("d_A = %p (cuMemAlloc), d_B = %p (cudaMalloc), d_C = %p (cudaMalloc)\n", d_A, (void*)d_B, (void*)d_C);

    // completion: the runtime writes the driver's memory, the driver writes the runtime's
    checkRuntime(cudaMemcpy(d_A, h_A, size, cudaMemcpyHostToDevice));
    checkDriver(cuMemcpyHtoD(d_B, h_B, size));

    // completion: the vector_add kernel, launched by the driver on the memory of both APIs
    CUmodule cuModule = nullptr;
    checkDriver(cuModuleLoad(&cuModule, ptx_path.c_str()));
    CUfunction vecAdd = nullptr;
    checkDriver(cuModuleGetFunction(&vecAdd, cuModule, "VecAdd"));
    CUdeviceptr d_A_ptr = (CUdeviceptr)d_A;
    int threadsPerBlock = 256;
    int blocksPerGrid = (N + threadsPerBlock - 1) / threadsPerBlock;
    void* args[] = { &d_A_ptr, &d_B, &d_C, &N };
    checkDriver(cuLaunchKernel(vecAdd, blocksPerGrid, 1, 1, threadsPerBlock, 1, 1, 0, 0, args, 0));

    // completion: the driver reads the runtime's memory back; every element checked
    checkDriver(cuMemcpyDtoH(h_C, d_C, size));
    int correct = 0;
    for (int i = 0; i < N; ++i) {
        if (h_C[i] == h_A[i] + h_B[i])
            ++correct;
        else if (correct == i)  // the first wrong element only
            printf("h_C[%d] = %f, expected %f\n", i, h_C[i], h_A[i] + h_B[i]);
    }
    printf("VecAdd: %d of %d elements correct\n", correct, N);
    pass = pass && correct == N;

    // completion: "freed using either API": each allocation freed by the other API
    checkRuntime(cudaFree(d_A));        // cuMemAlloc's, freed by the runtime
    checkDriver(cuMemFree(d_B));        // cudaMalloc's, freed by the driver
    checkRuntime(cudaFree(d_result));
    checkDriver(cuModuleUnload(cuModule));

    // L.5.3.2 Using the runtime API
    {
        // Declare the entry point
#if CUDA_VERSION >= 13000
        // CUDA 13: no unversioned PFN_cuMemAllocAsync; the versioned typedef is the same type
        PFN_cuMemAllocAsync_v11020 pfn_cuMemAllocAsync = nullptr;
#else
        PFN_cuMemAllocAsync pfn_cuMemAllocAsync = nullptr;   // post: uninitialised
#endif
        cudaDriverEntryPointQueryResult driverStatus = cudaDriverEntryPointSymbolNotFound;

        // Initialize the entry point. Assuming CUDA runtime version >= 11.2
        // post: cudaGetDriverEntryPoint("cuMemAllocAsync", &pfn_cuMemAllocAsync, cudaEnableDefault);
        // (the CUDA 11 form: here the (void**) C++ needs, and the driverStatus of CUDA 12)
        cudaError_t code = cudaGetDriverEntryPoint("cuMemAllocAsync", (void**)&pfn_cuMemAllocAsync, cudaEnableDefault, &driverStatus);
        printEntryPoint("cuMemAllocAsync, cudaEnableDefault", code, driverStatus, (void*)pfn_cuMemAllocAsync);
        pass = pass && code == cudaSuccess && driverStatus == cudaDriverEntryPointSuccess && pfn_cuMemAllocAsync != nullptr;

        // Call the entry point
        // post: pfn_cuMemAllocAsync(...); completed: 4 bytes on the default stream, then freed
        CUdeviceptr dptr = 0;
        if (pfn_cuMemAllocAsync != nullptr)
            checkDriver(pfn_cuMemAllocAsync(&dptr, 4, 0));
        printf("dptr = %p\n", (void*)dptr);
        pass = pass && dptr != 0;
        checkDriver(cuMemFreeAsync(dptr, 0));
        checkDriver(cuStreamSynchronize(0));

        // completion: the runtime asks the driver for the version of its own CUDA version
        int runtimeVersion = 0;
        checkRuntime(cudaRuntimeGetVersion(&runtimeVersion));
        printf("cudaRuntimeGetVersion = %d\n", runtimeVersion);
#if CUDA_VERSION >= 13000
        PFN_cuMemAllocAsync_v11020 pfn_cuMemAllocAsync_driver = nullptr;
#else
        PFN_cuMemAllocAsync pfn_cuMemAllocAsync_driver = nullptr;
#endif
        CUdriverProcAddressQueryResult symbolStatus = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
        checkDriver(cuGetProcAddress("cuMemAllocAsync", (void**)&pfn_cuMemAllocAsync_driver, runtimeVersion, CU_GET_PROC_ADDRESS_DEFAULT, &symbolStatus));
        printf("cuGetProcAddress(\"cuMemAllocAsync\", runtimeVersion) %s cudaGetDriverEntryPoint's\n",
               (void*)pfn_cuMemAllocAsync_driver == (void*)pfn_cuMemAllocAsync ? "==" : "!=");
        pass = pass && (void*)pfn_cuMemAllocAsync_driver == (void*)pfn_cuMemAllocAsync;

        // L.5.3.3 the flags cudaEnableLegacyStream / cudaEnablePerThreadDefaultStream
        PFN_cuMemAllocAsync_v11020 pfn_cuMemAllocAsync_legacy = nullptr;
        PFN_cuMemAllocAsync_v11020_ptsz pfn_cuMemAllocAsync_ptsz = nullptr;
        driverStatus = cudaDriverEntryPointSymbolNotFound;
        code = cudaGetDriverEntryPoint("cuMemAllocAsync", (void**)&pfn_cuMemAllocAsync_legacy, cudaEnableLegacyStream, &driverStatus);
        printEntryPoint("cuMemAllocAsync, cudaEnableLegacyStream", code, driverStatus, (void*)pfn_cuMemAllocAsync_legacy);
        driverStatus = cudaDriverEntryPointSymbolNotFound;
        code = cudaGetDriverEntryPoint("cuMemAllocAsync", (void**)&pfn_cuMemAllocAsync_ptsz, cudaEnablePerThreadDefaultStream, &driverStatus);
        printEntryPoint("cuMemAllocAsync, cudaEnablePerThreadDefaultStream", code, driverStatus, (void*)pfn_cuMemAllocAsync_ptsz);
        printf("per-thread default stream version %s legacy stream version\n",
               (void*)pfn_cuMemAllocAsync_ptsz == (void*)pfn_cuMemAllocAsync_legacy ? "==" : "!=");
        printf("cudaEnableDefault version %s legacy stream version\n",
               (void*)pfn_cuMemAllocAsync == (void*)pfn_cuMemAllocAsync_legacy ? "==" : "!=");
        printf("cudaEnableDefault version %s per-thread default stream version\n",
               (void*)pfn_cuMemAllocAsync == (void*)pfn_cuMemAllocAsync_ptsz ? "==" : "!=");
        // cudaEnableDefault is the legacy stream version, or the per-thread one when built with
        // CUDA_API_PER_THREAD_DEFAULT_STREAM (then cuda_runtime_api.h calls cudaGetDriverEntryPoint_ptsz)
#if defined(CUDA_API_PER_THREAD_DEFAULT_STREAM)
        void* expectedDefault = (void*)pfn_cuMemAllocAsync_ptsz;
#else
        void* expectedDefault = (void*)pfn_cuMemAllocAsync_legacy;
#endif
        pass = pass && pfn_cuMemAllocAsync_legacy != nullptr && pfn_cuMemAllocAsync_ptsz != nullptr
                    && (void*)pfn_cuMemAllocAsync_ptsz != (void*)pfn_cuMemAllocAsync_legacy
                    && (void*)pfn_cuMemAllocAsync == expectedDefault;
    }

    printf("Result = %s\n", pass ? "PASS" : "FAIL");
    checkDriver(cuDevicePrimaryCtxRelease(device));
    free(h_A);
    free(h_B);
    free(h_C);
    return pass ? 0 : 1;
}
