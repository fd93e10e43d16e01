// C twin of examples/proc_address.rs. Ports 001_690d02e65a5330ea.txt, L.5 (Driver Entry Point
// Access): L.5.2 the versioned PFN_* typedefs of cudaTypedefs.h (PFN_cuMemAlloc_v3020/_v2000) and
// the unversioned latest one; L.5.3.1 cuGetProcAddress with a CUDA version
// (cuStreamBeginCapture 10000 and 10010, CUDA_VERSION for the latest, a version below 10000 for
// which there is none); L.5.3.3 the per-thread default-stream variant of cuLaunchKernel
// (CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM / _LEGACY_STREAM); L.5.3.4 a function looked up
// with the running driver's version (cuDriverGetVersion) through a prototype declared by hand,
// with the post's message when the symbol is missing.
// L.5.3.2 (cudaGetDriverEntryPoint) needs the CUDA runtime library: it is ported in
// runtime_interop.rs, with the runtime's flags compared as the driver's are here.
// The post's calls use the CUDA 11.3 cuGetProcAddress with four arguments; from CUDA 12.0 on,
// cuda.h maps cuGetProcAddress to cuGetProcAddress_v2, which adds the CUdriverProcAddressQueryResult
// *symbolStatus argument and returns CUDA_SUCCESS for a missing symbol or an insufficient version,
// telling which in symbolStatus. The calls below pass it, and each result is printed.
// Completed: cuInit and a context (cuMemAlloc is called through the pointer it got), the printing
// of every lookup, and the checks of what the appendix says should happen (Result line).
// CUDA 13.0 headers, each marked below: cuCtxCreate becomes cuCtxCreate_v4 (4 arguments), and
// cudaTypedefs.h no longer defines the unversioned PFN_cuMemAlloc, PFN_cuStreamBeginCapture,
// PFN_cuLaunchKernel, so they are defined here as the versioned typedefs the 12.x macros named.
#include <cuda.h>
#include <cudaTypedefs.h>
#include <stdio.h>

// The post's older typedefs PFN_cuMemAlloc_v2000 and PFN_cuStreamBeginCapture_v10000 are only
// declared inside #if defined(__CUDA_API_VERSION_INTERNAL) in the CUDA 12 cudaTypedefs.h; declared
// here as that header writes them (CUdeviceptr_v1, internal too, is unsigned int).
typedef CUresult (CUDAAPI *PFN_cuMemAlloc_v2000)(unsigned int *dptr, unsigned int bytesize);
typedef CUresult (CUDAAPI *PFN_cuStreamBeginCapture_v10000)(CUstream hStream);

#if CUDA_VERSION >= 13000
// CUDA 13: cudaTypedefs.h has no unversioned PFN_cuX; the versioned typedefs the 12.x macros named.
#define PFN_cuMemAlloc PFN_cuMemAlloc_v3020
#ifdef CUDA_API_PER_THREAD_DEFAULT_STREAM
#define PFN_cuStreamBeginCapture PFN_cuStreamBeginCapture_v10010_ptsz
#define PFN_cuLaunchKernel PFN_cuLaunchKernel_v7000_ptsz
#else
#define PFN_cuStreamBeginCapture PFN_cuStreamBeginCapture_v10010
#define PFN_cuLaunchKernel PFN_cuLaunchKernel_v4000
#endif
#endif

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

// completion: prints what one cuGetProcAddress call gave
static void printLookup(const char* what, CUresult code, CUdriverProcAddressQueryResult symbolStatus, void* pfn){
    const char* err_name = nullptr;
    cuGetErrorName(code, &err_name);
    const char* status = "?";
    switch (symbolStatus) {
        case CU_GET_PROC_ADDRESS_SUCCESS: status = "CU_GET_PROC_ADDRESS_SUCCESS"; break;
        case CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND: status = "CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND"; break;
        case CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT: status = "CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT"; break;
        default: break;
    }
    printf("%s: %s, %s, pfn = %p\n", what, err_name, status, pfn);
}

int main(){
    // completion: initialisation and a context, for the calls through the pointers
    checkDriver(cuInit(0));
    CUcontext context = nullptr;
    CUdevice device = 0;
#if CUDA_VERSION >= 13000
    // CUDA 13: cuCtxCreate_v4, with a CUctxCreateParams* (NULL: none)
    checkDriver(cuCtxCreate(&context, NULL, 0, device));
#else
    checkDriver(cuCtxCreate(&context, 0, device));
#endif
    CUresult code;
    CUdriverProcAddressQueryResult symbolStatus;
    bool pass = true;

    // L.5.2 Driver Function Typedefs
    PFN_cuMemAlloc_v3020 pfn_cuMemAlloc_v2 = nullptr;
    PFN_cuMemAlloc_v2000 pfn_cuMemAlloc_v1 = nullptr;
    PFN_cuMemAlloc pfn_cuMemAlloc = nullptr;   // the latest version this toolkit knows (_v3020)
    symbolStatus = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    code = cuGetProcAddress("cuMemAlloc", (void**)&pfn_cuMemAlloc_v2, 3020, CU_GET_PROC_ADDRESS_DEFAULT, &symbolStatus);
    printLookup("cuMemAlloc, 3020", code, symbolStatus, (void*)pfn_cuMemAlloc_v2);
    symbolStatus = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    code = cuGetProcAddress("cuMemAlloc", (void**)&pfn_cuMemAlloc_v1, 2000, CU_GET_PROC_ADDRESS_DEFAULT, &symbolStatus);
    printLookup("cuMemAlloc, 2000", code, symbolStatus, (void*)pfn_cuMemAlloc_v1);
    symbolStatus = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    code = cuGetProcAddress("cuMemAlloc", (void**)&pfn_cuMemAlloc, CUDA_VERSION, CU_GET_PROC_ADDRESS_DEFAULT, &symbolStatus);
    printLookup("cuMemAlloc, CUDA_VERSION", code, symbolStatus, (void*)pfn_cuMemAlloc);
    printf("pfn_cuMemAlloc_v1 %s pfn_cuMemAlloc_v2\n", (void*)pfn_cuMemAlloc_v1 == (void*)pfn_cuMemAlloc_v2 ? "==" : "!=");
    printf("pfn_cuMemAlloc %s pfn_cuMemAlloc_v2\n", (void*)pfn_cuMemAlloc == (void*)pfn_cuMemAlloc_v2 ? "==" : "!=");
    pass = pass && pfn_cuMemAlloc_v2 != nullptr && (void*)pfn_cuMemAlloc == (void*)pfn_cuMemAlloc_v2;
    // completion: call the latest cuMemAlloc through its pointer
    CUdeviceptr dptr = 0;
    if (pfn_cuMemAlloc != nullptr)
        checkDriver(pfn_cuMemAlloc(&dptr, 100));
    printf("dptr = %p\n", (void*)dptr);
    pass = pass && dptr != 0;
    checkDriver(cuMemFree(dptr));

    // L.5.3.1 Using the driver API
    // Declare the entry points for cuStreamBeginCapture
    PFN_cuStreamBeginCapture_v10000 pfn_cuStreamBeginCapture_v1 = nullptr;
    PFN_cuStreamBeginCapture_v10010 pfn_cuStreamBeginCapture_v2 = nullptr;

    // Get the function pointer to the cuStreamBeginCapture driver symbol
    symbolStatus = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    code = cuGetProcAddress("cuStreamBeginCapture", (void**)&pfn_cuStreamBeginCapture_v1, 10000, CU_GET_PROC_ADDRESS_DEFAULT, &symbolStatus);
    printLookup("cuStreamBeginCapture, 10000", code, symbolStatus, (void*)pfn_cuStreamBeginCapture_v1);
    // Get the function pointer to the cuStreamBeginCapture_v2 driver symbol
    symbolStatus = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    code = cuGetProcAddress("cuStreamBeginCapture", (void**)&pfn_cuStreamBeginCapture_v2, 10010, CU_GET_PROC_ADDRESS_DEFAULT, &symbolStatus);
    printLookup("cuStreamBeginCapture, 10010", code, symbolStatus, (void*)pfn_cuStreamBeginCapture_v2);

    // Declare the entry point
    PFN_cuStreamBeginCapture pfn_cuStreamBeginCapture_latest = nullptr;
    // Initialize the entry point. Specifying CUDA_VERSION gives the latest version this toolkit knows
    symbolStatus = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    code = cuGetProcAddress("cuStreamBeginCapture", (void**)&pfn_cuStreamBeginCapture_latest, CUDA_VERSION, CU_GET_PROC_ADDRESS_DEFAULT, &symbolStatus);
    printLookup("cuStreamBeginCapture, CUDA_VERSION", code, symbolStatus, (void*)pfn_cuStreamBeginCapture_latest);
    printf("pfn_cuStreamBeginCapture_v1 %s pfn_cuStreamBeginCapture_v2\n",
           (void*)pfn_cuStreamBeginCapture_v1 == (void*)pfn_cuStreamBeginCapture_v2 ? "==" : "!=");
    printf("pfn_cuStreamBeginCapture_latest %s pfn_cuStreamBeginCapture_v2\n",
           (void*)pfn_cuStreamBeginCapture_latest == (void*)pfn_cuStreamBeginCapture_v2 ? "==" : "!=");
    pass = pass && pfn_cuStreamBeginCapture_v1 != nullptr && pfn_cuStreamBeginCapture_v2 != nullptr
                && (void*)pfn_cuStreamBeginCapture_v1 != (void*)pfn_cuStreamBeginCapture_v2
                && (void*)pfn_cuStreamBeginCapture_latest == (void*)pfn_cuStreamBeginCapture_v2;
    // a version older than 10000 (CUDA 10.0) has no cuStreamBeginCapture
    PFN_cuStreamBeginCapture_v10000 pfn_cuStreamBeginCapture_invalid = nullptr;
    symbolStatus = CU_GET_PROC_ADDRESS_SUCCESS;
    code = cuGetProcAddress("cuStreamBeginCapture", (void**)&pfn_cuStreamBeginCapture_invalid, 9020, CU_GET_PROC_ADDRESS_DEFAULT, &symbolStatus);
    printLookup("cuStreamBeginCapture, 9020", code, symbolStatus, (void*)pfn_cuStreamBeginCapture_invalid);
    pass = pass && pfn_cuStreamBeginCapture_invalid == nullptr && symbolStatus == CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT;

    // L.5.3.3 Retrieve per-thread default stream versions
    PFN_cuLaunchKernel_v4000 pfn_cuLaunchKernel_legacy = nullptr;
    PFN_cuLaunchKernel_v7000_ptsz pfn_cuLaunchKernel_ptsz = nullptr;
    PFN_cuLaunchKernel pfn_cuLaunchKernel_default = nullptr;
    symbolStatus = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    code = cuGetProcAddress("cuLaunchKernel", (void**)&pfn_cuLaunchKernel_legacy, CUDA_VERSION, CU_GET_PROC_ADDRESS_LEGACY_STREAM, &symbolStatus);
    printLookup("cuLaunchKernel, CU_GET_PROC_ADDRESS_LEGACY_STREAM", code, symbolStatus, (void*)pfn_cuLaunchKernel_legacy);
    symbolStatus = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    code = cuGetProcAddress("cuLaunchKernel", (void**)&pfn_cuLaunchKernel_ptsz, CUDA_VERSION, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &symbolStatus);
    printLookup("cuLaunchKernel, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM", code, symbolStatus, (void*)pfn_cuLaunchKernel_ptsz);
    symbolStatus = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    code = cuGetProcAddress("cuLaunchKernel", (void**)&pfn_cuLaunchKernel_default, CUDA_VERSION, CU_GET_PROC_ADDRESS_DEFAULT, &symbolStatus);
    printLookup("cuLaunchKernel, CU_GET_PROC_ADDRESS_DEFAULT", code, symbolStatus, (void*)pfn_cuLaunchKernel_default);
    printf("per-thread default stream version %s legacy stream version\n",
           (void*)pfn_cuLaunchKernel_ptsz == (void*)pfn_cuLaunchKernel_legacy ? "==" : "!=");
    // the default is the legacy stream version, or the per-thread one when built with
    // CUDA_API_PER_THREAD_DEFAULT_STREAM (then cuda.h adds the flag to every cuGetProcAddress call)
    printf("default version %s legacy stream version\n",
           (void*)pfn_cuLaunchKernel_default == (void*)pfn_cuLaunchKernel_legacy ? "==" : "!=");
    printf("default version %s per-thread default stream version\n",
           (void*)pfn_cuLaunchKernel_default == (void*)pfn_cuLaunchKernel_ptsz ? "==" : "!=");
    pass = pass && pfn_cuLaunchKernel_legacy != nullptr && pfn_cuLaunchKernel_ptsz != nullptr
                && (void*)pfn_cuLaunchKernel_ptsz != (void*)pfn_cuLaunchKernel_legacy
                && ((void*)pfn_cuLaunchKernel_default == (void*)pfn_cuLaunchKernel_legacy
                    || (void*)pfn_cuLaunchKernel_default == (void*)pfn_cuLaunchKernel_ptsz);

    // L.5.3.4 Access new CUDA features
    {
        // Manually define the prototype as cudaTypedefs.h in CUDA 11.3 does not have the cuFoo typedef
        typedef CUresult (CUDAAPI *PFN_cuFoo)(...);
        PFN_cuFoo pfn_cuFoo = NULL;

        // Get the address for cuFoo API using cuGetProcAddress with the running driver's version
        int driverVersion;
        cuDriverGetVersion(&driverVersion);
        symbolStatus = CU_GET_PROC_ADDRESS_SUCCESS;
        code = cuGetProcAddress("cuFoo", (void**)&pfn_cuFoo, driverVersion, CU_GET_PROC_ADDRESS_DEFAULT, &symbolStatus);
        printLookup("cuFoo, driverVersion", code, symbolStatus, (void*)pfn_cuFoo);

        if (pfn_cuFoo) {
            pfn_cuFoo();
        }
        else {
            printf("Cannot retrieve the address to cuFoo. Check if the latest driver for CUDA 12.0 is installed.\n");
            // guard: the post's assert(0) here would abort; cuFoo is the post's made-up name and no driver has it
        }
        pass = pass && pfn_cuFoo == NULL && symbolStatus == CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;

        // completion: the same with a function that exists, from CUDA 12.0 on: cuCtxGetId
        typedef CUresult (CUDAAPI *PFN_cuCtxGetId_byHand)(CUcontext ctx, unsigned long long* ctxId);
        PFN_cuCtxGetId_byHand pfn_cuCtxGetId = NULL;
        symbolStatus = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
        code = cuGetProcAddress("cuCtxGetId", (void**)&pfn_cuCtxGetId, driverVersion, CU_GET_PROC_ADDRESS_DEFAULT, &symbolStatus);
        printLookup("cuCtxGetId, driverVersion", code, symbolStatus, (void*)pfn_cuCtxGetId);
        if (pfn_cuCtxGetId) {
            unsigned long long ctxId = 0;
            checkDriver(pfn_cuCtxGetId(context, &ctxId));
            printf("cuCtxGetId: the context's id is %s\n", ctxId != 0 ? "non-zero" : "0");
        }
        else {
            printf("Cannot retrieve the address to cuCtxGetId. Check if the latest driver for CUDA 12.0 is installed.\n");
        }
        pass = pass && pfn_cuCtxGetId != NULL;
    }

    printf("Result = %s\n", pass ? "PASS" : "FAIL");
    checkDriver(cuCtxDestroy(context));
    return pass ? 0 : 1;
}
