// C twin of examples/ptx_link.rs. Ports 001_690d02e65a5330ea.txt, L.2 (Module), the example that
// "compiles, links and loads a new module from several PTX codes and parses link and compile
// errors": cuLinkCreate with six JIT options (wall time, info and error logs, verbose),
// cuLinkAddData for two PTX inputs, cuLinkComplete, cuModuleLoadData of the linked cubin,
// cuLinkDestroy.
// The post's lines are kept as written, with one typo fixed: cuModuleLoadData(cuModule, cubin)
// takes &cuModule. Completed: a context (cuInit, cuCtxCreate); "some PTX code" and "some other PTX
// code" read from examples/kernels/ptx_link0.ptx and ptx_link1.ptx (or under argv[1]): a kernel
// and the device function it calls, which only link together; the linked kernel is run and its
// output checked. Added lines use checkDriver (000 §1.2).
// Fixed in the post: the wall time is read from values[0], where the driver writes it.
// Output: the post's line "Link completed in <walltime>ms. Linker Output:" carries a run-dependent
// number (printf %f); the linker's verbose info log follows on the next lines, with run-dependent
// "Compile time = <t> ms" lines, and only when the PTX is compiled: with the JIT cache on
// (~/.nv/ComputeCache), a second run finds the compiled code there and its log has no ptxas lines,
// so compare runs with CUDA_CACHE_DISABLE=1.
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

int main(int argc, char** argv){
    // completion: the PTX files (argv[1] is the folder of the kernels)
    const char* kernels_dir = argc > 1 ? argv[1] : "examples/kernels";
    std::string ptx0_path = std::string(kernels_dir) + "/ptx_link0.ptx";   // the whole paths, as long as they are
    std::string ptx1_path = std::string(kernels_dir) + "/ptx_link1.ptx";
    char* ptx0_code = readFile(ptx0_path.c_str());
    char* ptx1_code = readFile(ptx1_path.c_str());
    if(ptx0_code == nullptr || ptx1_code == nullptr){
        printf("cannot read %s or %s\n", ptx0_path.c_str(), ptx1_path.c_str());
        return 1;
    }

    // completion: a context to link for and load into
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
    CUmodule cuModule = nullptr;              // guard: initialised; the post's is left as it is when the load fails
    CUjit_option options[6];
    void* values[6];
    float walltime = 0;                       // guard: initialised; printed even when the link never ran (no GPU)
    char error_log[BUFFER_SIZE] = "", info_log[BUFFER_SIZE] = "";  // guard: as walltime
    char* PTXCode0 = ptx0_code;               // the post: "some PTX code"
    char* PTXCode1 = ptx1_code;               // the post: "some other PTX code"
    CUlinkState linkState = nullptr;          // guard: initialised; cuLinkCreate leaves it as it is when it fails
    int err;
    void* cubin = nullptr;                    // guard: as linkState, for cuLinkComplete
    size_t cubinSize = 0;                     // guard: as cubin
    options[0] = CU_JIT_WALL_TIME;
    values[0] = (void*)&walltime;
    options[1] = CU_JIT_INFO_LOG_BUFFER;
    values[1] = (void*)info_log;
    options[2] = CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES;
    values[2] = (void*)(uintptr_t)BUFFER_SIZE;   // the post: (void*)BUFFER_SIZE; via uintptr_t for the int-to-pointer cast
    options[3] = CU_JIT_ERROR_LOG_BUFFER;
    values[3] = (void*)error_log;
    options[4] = CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES;
    values[4] = (void*)(uintptr_t)BUFFER_SIZE;   // as values[2]
    options[5] = CU_JIT_LOG_VERBOSE;
    values[5] = (void*)1;
    cuLinkCreate(6, options, values, &linkState);
    err = cuLinkAddData(linkState, CU_JIT_INPUT_PTX,
                        (void*)PTXCode0, strlen(PTXCode0) + 1, 0, 0, 0, 0);
    if (err != CUDA_SUCCESS)
        printf("Link error:\n%s\n", error_log);
    err = cuLinkAddData(linkState, CU_JIT_INPUT_PTX,
                        (void*)PTXCode1, strlen(PTXCode1) + 1, 0, 0, 0, 0);
    if (err != CUDA_SUCCESS)
        printf("Link error:\n%s\n", error_log);
    cuLinkComplete(linkState, &cubin, &cubinSize);
    if (cubin != nullptr)  // fix: CU_JIT_WALL_TIME "overwrites the option value": the driver writes the float into values[0] itself, not through the pointer the post puts there (walltime would stay unwritten)
        memcpy(&walltime, &values[0], sizeof(walltime));
    printf("Link completed in %fms. Linker Output:\n%s\n", walltime, info_log);
    cuModuleLoadData(&cuModule, cubin);       // the post: cuModuleLoadData(cuModule, cubin)
    cuLinkDestroy(linkState);

    // completion: run the linked kernel (LinkedKernel calls scale_and_offset: out = 2 * in + 1)
    const int N = 1024, threadsPerBlock = 256;
    float* h_in = (float*)malloc(N * sizeof(float));
    float* h_out = (float*)malloc(N * sizeof(float));
    for (int i = 0; i < N; ++i) {
        h_in[i] = (float)i;
        h_out[i] = -1.0f;   // no value the kernel writes
    }
    CUfunction linkedKernel = nullptr;
    checkDriver(cuModuleGetFunction(&linkedKernel, cuModule, "LinkedKernel"));
    CUdeviceptr d_in = 0, d_out = 0;
    checkDriver(cuMemAlloc(&d_in, N * sizeof(float)));
    checkDriver(cuMemAlloc(&d_out, N * sizeof(float)));
    checkDriver(cuMemcpyHtoD(d_in, h_in, N * sizeof(float)));
    int n = N;
    void* args[] = { &d_in, &d_out, &n };
    checkDriver(cuLaunchKernel(linkedKernel, N / threadsPerBlock, 1, 1, threadsPerBlock, 1, 1,
                               0, nullptr, args, nullptr));
    checkDriver(cuMemcpyDtoH(h_out, d_out, N * sizeof(float)));
    int correct = 0;
    for (int i = 0; i < N; ++i)
        if (h_out[i] == 2.0f * h_in[i] + 1.0f)
            ++correct;
    printf("LinkedKernel: %d of %d values correct\n", correct, N);
    printf("Result = %s\n", correct == N ? "PASS" : "FAIL");

    checkDriver(cuMemFree(d_in));
    checkDriver(cuMemFree(d_out));
    checkDriver(cuModuleUnload(cuModule));
    checkDriver(cuCtxDestroy(context));
    free(h_in);
    free(h_out);
    free(ptx0_code);
    free(ptx1_code);
    return correct == N ? 0 : 1;
}
