// C twin of examples/ptx_jit.rs. Ports 001_690d02e65a5330ea.txt, L.2 (Module), the example that
// "compiles and loads a new module from PTX code and parses compilation errors":
// cuModuleLoadDataEx with the JIT options CU_JIT_ERROR_LOG_BUFFER,
// CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES and CU_JIT_TARGET_FROM_CUCONTEXT.
// The post's lines are kept as written. Completed: a context for the JIT (cuInit, cuCtxCreate),
// "some PTX code" read from examples/kernels/ptx_jit.ptx (or <argv[1]>/ptx_jit.ptx), the result
// printed, the kernel run and its output checked as in the ptxjit sample the post refers to; then
// the same load with a deliberately broken PTX (ptx_jit_broken.ptx), whose JIT error log is
// printed. Added lines use checkDriver (000 §1.2).
// CUDA 13.0 headers (marked below): cuCtxCreate becomes cuCtxCreate_v4, which takes a
// CUctxCreateParams* (NULL: none) before the flags.
#include <cuda.h>
#include <stdint.h>
#include <stdio.h>
#include <string>
#include <stdlib.h>
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

// completion: a whole file as a NUL-terminated string, or nullptr where it cannot be read (as the
// Rust port's std::fs::read: read to its end, so that a directory, which opens but cannot be read,
// is nullptr and not a crash)
static char* readFile(const char* path){
    FILE* file = fopen(path, "rb");
    if(file == nullptr)
        return nullptr;
    size_t size = 0, capacity = 0;
    char* text = nullptr;
    do {
        capacity = 2 * capacity + 4096;
        char* grown = (char*)realloc(text, capacity);
        if(grown == nullptr)
            break;
        text = grown;
        size += fread(text + size, 1, capacity - 1 - size, file);
    } while(size == capacity - 1);
    bool failed = ferror(file) || !feof(file);   // a read error, or no memory for the rest
    fclose(file);
    if(failed){
        free(text);
        return nullptr;
    }
    text[size] = '\0';
    return text;
}

// completion: the name of a CUresult held in an int
static const char* errorName(int err){
    const char* err_name = nullptr;
    cuGetErrorName((CUresult)err, &err_name);
    return err_name;
}

int main(int argc, char** argv){
    // completion: the PTX files (argv[1] is the folder of the kernels)
    const char* kernels_dir = argc > 1 ? argv[1] : "examples/kernels";
    std::string ptx_path = std::string(kernels_dir) + "/ptx_jit.ptx";   // the whole paths, as long as they are
    std::string broken_ptx_path = std::string(kernels_dir) + "/ptx_jit_broken.ptx";
    char* ptx_code = readFile(ptx_path.c_str());
    char* broken_ptx_code = readFile(broken_ptx_path.c_str());
    if(ptx_code == nullptr || broken_ptx_code == nullptr){
        printf("cannot read %s or %s\n", ptx_path.c_str(), broken_ptx_path.c_str());
        return 1;
    }

    // completion: a context, whose device the JIT compiles for (CU_JIT_TARGET_FROM_CUCONTEXT)
    checkDriver(cuInit(0));
    CUcontext context = nullptr;
    CUdevice device = 0;
#if CUDA_VERSION >= 13000
    // CUDA 13: cuCtxCreate_v4, with a CUctxCreateParams* (NULL: none)
    checkDriver(cuCtxCreate(&context, NULL, 0, device));
#else
    checkDriver(cuCtxCreate(&context, 0, device));
#endif

#define BUFFER_SIZE 8192
    CUmodule cuModule = nullptr;          // guard: initialised; the post's is left as it is when the load fails
    CUjit_option options[3];
    void* values[3];
    char* PTXCode = ptx_code;             // the post: "some PTX code"
    char error_log[BUFFER_SIZE] = "";     // guard: initialised; the driver leaves it as it is when it fails before the JIT (no GPU)
    int err;
    options[0] = CU_JIT_ERROR_LOG_BUFFER;
    values[0]  = (void*)error_log;
    options[1] = CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES;
    values[1]  = (void*)(uintptr_t)BUFFER_SIZE;   // the post: (void*)BUFFER_SIZE; via uintptr_t for the int-to-pointer cast
    options[2] = CU_JIT_TARGET_FROM_CUCONTEXT;
    values[2]  = 0;
    err = cuModuleLoadDataEx(&cuModule, PTXCode, 3, options, values);
    if (err != CUDA_SUCCESS)
        printf("Link error:\n%s\n", error_log);

    // completion: what the load returned, then run the kernel and check what it wrote
    printf("cuModuleLoadDataEx(ptx_jit.ptx) returned %s\n", errorName(err));
    bool loaded = err == CUDA_SUCCESS;
    const int nBlocks = 4, nThreads = 64, N = nBlocks * nThreads;
    CUfunction myKernel = nullptr;
    checkDriver(cuModuleGetFunction(&myKernel, cuModule, "myKernel"));
    CUdeviceptr d_data = 0;
    checkDriver(cuMemAlloc(&d_data, N * sizeof(int)));
    void* args[] = { &d_data };
    checkDriver(cuLaunchKernel(myKernel, nBlocks, 1, 1, nThreads, 1, 1, 0, nullptr, args, nullptr));
    int* h_data = (int*)malloc(N * sizeof(int));
    for (int i = 0; i < N; ++i)
        h_data[i] = -1;   // no value the kernel writes
    checkDriver(cuMemcpyDtoH(h_data, d_data, N * sizeof(int)));
    int correct = 0;
    for (int i = 0; i < N; ++i)
        if (h_data[i] == i)
            ++correct;
    printf("myKernel: %d of %d values correct\n", correct, N);

    // completion: the same load with a deliberately broken PTX, to see the JIT error log
    CUmodule brokenModule = nullptr;
    error_log[0] = '\0';
    values[1]  = (void*)(uintptr_t)BUFFER_SIZE;  // the driver wrote the log's length into values[1]
    err = cuModuleLoadDataEx(&brokenModule, broken_ptx_code, 3, options, values);
    if (err != CUDA_SUCCESS)
        printf("Link error:\n%s\n", error_log);
    printf("cuModuleLoadDataEx(ptx_jit_broken.ptx) returned %s\n", errorName(err));
    bool rejected = err == CUDA_ERROR_INVALID_PTX;

    bool pass = loaded && correct == N && rejected;
    printf("Result = %s\n", pass ? "PASS" : "FAIL");

    checkDriver(cuMemFree(d_data));
    checkDriver(cuModuleUnload(cuModule));
    checkDriver(cuCtxDestroy(context));
    free(h_data);
    free(ptx_code);
    free(broken_ptx_code);
    return pass ? 0 : 1;
}
