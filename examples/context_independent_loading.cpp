// C twin of examples/context_independent_loading.rs. Ports 004_3d21536251275226.txt (CUDA 12.0
// context-independent loading): first the context-dependent way, the post's "library code" that
// keeps a CUcontext -> CUmodule map and loads the module with cuModuleLoad into every new context
// (cuCtxGetCurrent, cuModuleLoad, cuModuleGetFunction, cuLaunchKernel); then the context-
// independent way (cuLibraryLoadFromFile and cuLibraryGetKernel once, the CUkernel launched in each
// device's primary context, cuLibraryUnload); then a __managed__ variable through
// cuLibraryGetManaged, one variable for all contexts and devices.
// The post's "application code" retains the primary context of device 0 and of device 1; here that
// is done for every device present (cuDeviceGetCount), and libraryFunc is called twice per device
// so that the map is seen to work. Typos fixed: cuModuleGetFuntion is cuModuleGetFunction; the
// CUkernel is launched as (CUfunction)kernel (the post writes (CUkernel)kernel). Completed:
// "myModule.cubin" is examples/kernels/context_independent_loading.ptx (or under argv[1]); the post's
// "…" launch arguments; each launch's output checked on the host (launchAndCheck); the primary
// contexts made current with cuCtxSetCurrent (the post only retains them; libraryFunc works on the
// current context) and released after each part; the modules of the map unloaded in
// libraryDeinitialize (the post only clears the map). API calls use checkDriver (000 §1.2).
#include <cuda.h>
#include <stdio.h>
#include <string>
#include <map>

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

static std::string modulePath;   // the post's "myModule.cubin"
static const int N = 256;

// completion: the post's "cuLaunchKernel(function, …)": launch myKernel in the current context
// (data[i] = value + i for N elements, launch_count += 1) and check what it wrote
static bool launchAndCheck(CUfunction function, int value){
    CUdeviceptr d_data = 0;
    checkDriver(cuMemAlloc(&d_data, N * sizeof(int)));
    int n = N;
    void* args[] = { &d_data, &n, &value };
    checkDriver(cuLaunchKernel(function, 1, 1, 1, N, 1, 1, 0, nullptr, args, nullptr));
    int h_data[N];
    for (int i = 0; i < N; ++i)
        h_data[i] = -1;   // no value the kernel writes
    checkDriver(cuMemcpyDtoH(h_data, d_data, sizeof(h_data)));
    checkDriver(cuMemFree(d_data));
    int correct = 0;
    for (int i = 0; i < N; ++i)
        if (h_data[i] == value + i)
            ++correct;
    printf("    myKernel(value = %d): %d of %d values correct\n", value, correct, N);
    return correct == N;
}

// Context-dependent loading: the library has to track the contexts it has loaded its module into
namespace context_dependent {
std::map<CUcontext, CUmodule> moduleContextMap;

void libraryInitialize(){
    moduleContextMap.clear();
}

bool libraryFunc(int value){
    CUcontext ctx = nullptr;
    CUmodule module = nullptr;
    CUfunction function = nullptr;
    checkDriver(cuCtxGetCurrent(&ctx));
    if (moduleContextMap.count(ctx) == 0){   // the post: !moduleContextMap.contains(ctx) (C++20)
        checkDriver(cuModuleLoad(&module, modulePath.c_str()));
        moduleContextMap[ctx] = module;
        printf("    libraryFunc: module loaded into context %p\n", ctx);
    }
    else {
        module = moduleContextMap[ctx];
        printf("    libraryFunc: module of context %p found in the map\n", ctx);
    }
    checkDriver(cuModuleGetFunction(&function, module, "myKernel"));
    return launchAndCheck(function, value);
}

void libraryDeinitialize(){
    // added: unload every module in its own context (the post only clears the map)
    for (std::map<CUcontext, CUmodule>::iterator it = moduleContextMap.begin(); it != moduleContextMap.end(); ++it){
        checkDriver(cuCtxPushCurrent(it->first));
        checkDriver(cuModuleUnload(it->second));
        checkDriver(cuCtxPopCurrent(nullptr));
    }
    moduleContextMap.clear();
}
}

// Context-independent loading (CUDA 12.0): the driver loads the library into every context
namespace context_independent {
CUlibrary library = nullptr;
CUkernel kernel = nullptr;

void libraryInitialize(){
    checkDriver(cuLibraryLoadFromFile(&library, modulePath.c_str(), nullptr, nullptr, 0, nullptr, nullptr, 0));
    checkDriver(cuLibraryGetKernel(&kernel, library, "myKernel"));
}

bool libraryFunc(int value){
    return launchAndCheck((CUfunction)kernel, value);   // the post: cuLaunchKernel((CUkernel)kernel, …)
}

void libraryDeinitialize(){
    checkDriver(cuLibraryUnload(library));
}
}

int main(int argc, char** argv){
    // completion: the module file (argv[1] is the folder of the kernels), the devices
    const char* kernels_dir = argc > 1 ? argv[1] : "examples/kernels";
    modulePath = std::string(kernels_dir) + "/context_independent_loading.ptx";   // the whole path, as long as it is
    checkDriver(cuInit(0));
    int deviceCount = 0;
    checkDriver(cuDeviceGetCount(&deviceCount));
    printf("%d device(s)\n", deviceCount);
    bool pass = deviceCount > 0;

    printf("Context-dependent loading (cuModuleLoad into each context):\n");
    // Application code
    context_dependent::libraryInitialize();
    for (int i = 0; i < deviceCount; ++i){
        CUdevice device = 0;
        CUcontext ctx = nullptr;
        checkDriver(cuDeviceGet(&device, i));
        checkDriver(cuDevicePrimaryCtxRetain(&ctx, device));
        checkDriver(cuCtxSetCurrent(ctx));
        printf("  device %d, primary context %p:\n", i, ctx);
        pass = context_dependent::libraryFunc(1000 * i) && pass;
        pass = context_dependent::libraryFunc(1000 * i + 1) && pass;
    }
    context_dependent::libraryDeinitialize();
    for (int i = 0; i < deviceCount; ++i){
        CUdevice device = 0;
        checkDriver(cuDeviceGet(&device, i));
        checkDriver(cuDevicePrimaryCtxRelease(device));
    }

    printf("Context-independent loading (cuLibraryLoadFromFile, CUkernel):\n");
    // Application code
    context_independent::libraryInitialize();
    for (int i = 0; i < deviceCount; ++i){
        CUdevice device = 0;
        CUcontext ctx = nullptr;
        checkDriver(cuDeviceGet(&device, i));
        checkDriver(cuDevicePrimaryCtxRetain(&ctx, device));
        checkDriver(cuCtxSetCurrent(ctx));
        printf("  device %d, primary context %p:\n", i, ctx);
        pass = context_independent::libraryFunc(1000 * i) && pass;
        pass = context_independent::libraryFunc(1000 * i + 1) && pass;
    }

    // Accessing __managed__ variables: one launch_count for the library, in every context and device
    CUdeviceptr managed = 0;
    size_t bytes = 0;
    checkDriver(cuLibraryGetManaged(&managed, &bytes, context_independent::library, "launch_count"));
    printf("cuLibraryGetManaged(\"launch_count\"): %zu bytes at %p\n", bytes, (void*)managed);
    int launch_count = 0;
    if (managed != 0)   // guard: null when the library was not loaded (no GPU)
        launch_count = *(int*)managed;
    printf("launch_count = %d (expected %d: two launches on each of %d device(s))\n", launch_count, 2 * deviceCount, deviceCount);
    pass = pass && launch_count == 2 * deviceCount;

    context_independent::libraryDeinitialize();
    for (int i = 0; i < deviceCount; ++i){
        CUdevice device = 0;
        checkDriver(cuDeviceGet(&device, i));
        checkDriver(cuDevicePrimaryCtxRelease(device));
    }
    printf("Result = %s\n", pass ? "PASS" : "FAIL");
    return pass ? 0 : 1;
}
