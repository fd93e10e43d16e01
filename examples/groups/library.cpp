// C twin of examples/groups/library.rs. The library and module groups of the Driver API: a
// library loaded from memory and from a file, its kernels counted and enumerated with their
// names, parameters, attributes and library; a device global and a managed variable read and
// written through the library, a kernel launched to check them; the library's module; then the
// module group: a module loaded from a file, from memory and with JIT options, its functions
// counted and enumerated, its global, the loading mode, two PTX inputs linked into a cubin
// (cuLinkCreate, cuLinkAddData, cuLinkAddFile, cuLinkComplete) which is loaded as a module and as
// a fat binary. cuKernelGetParamCount (CUDA 13.2 headers) is looked up with cuGetProcAddress:
// CUDA_ERROR_NOT_FOUND where the driver has none.
// Kernels: examples/kernels/library.ptx (from library.cu), ptx_link0.ptx and ptx_link1.ptx;
// argv[1] is the kernels folder.
#include "common.h"
#include <cudaTypedefs.h>
#include <string>

// The whole file at `path`, NUL-terminated (PTX is text), or an empty string.
static std::string read_file(const std::string& path)
{
    std::string text;
    FILE* f = fopen(path.c_str(), "rb");
    if (!f)
        return text;
    char buffer[4096];
    size_t n;
    while ((n = fread(buffer, 1, sizeof(buffer), f)) > 0)
        text.append(buffer, n);
    fclose(f);
    return text;
}

// Launches add_values(out, 5) and prints what it computed.
static int add_values(CUfunction f, CUdeviceptr out)
{
    int k = 5;
    void* args[] = { &out, &k };
    check(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, nullptr, args, nullptr));
    check(cuCtxSynchronize());
    int value = 0;
    check(cuMemcpyDtoH(&value, out, sizeof(value)));
    printf("  add_values(5) = %d\n", value);
    return value;
}

int main(int argc, char** argv)
{
    const char* kernels_dir = argc > 1 ? argv[1] : "examples/kernels";
    std::string ptx_path = std::string(kernels_dir) + "/library.ptx";
    std::string link0_path = std::string(kernels_dir) + "/ptx_link0.ptx";
    std::string link1_path = std::string(kernels_dir) + "/ptx_link1.ptx";

    if (!check(cuInit(0)))
        return 1;
    CUdevice device;
    if (!check(cuDeviceGet(&device, 0)))
        return 1;
    CUcontext ctx;
    if (!check(cuDevicePrimaryCtxRetain(&ctx, device)) || !check(cuCtxSetCurrent(ctx)))
        return 1;
    std::string ptx = read_file(ptx_path);
    bool ok = !ptx.empty();
    printf("library.ptx: %s\n", ok ? "read" : "missing");
    if (!ok)
        return 1;

    // The library group.
    CUlibrary library, from_file;
    if (!show("cuLibraryLoadData", cuLibraryLoadData(&library, ptx.c_str(), nullptr, nullptr, 0, nullptr, nullptr, 0)))
        return 1;
    CUjit_option jit_options[] = { CU_JIT_OPTIMIZATION_LEVEL };
    void* jit_values[] = { (void*)(size_t)3 };
    show("cuLibraryLoadFromFile",
         cuLibraryLoadFromFile(&from_file, ptx_path.c_str(), jit_options, jit_values, 1, nullptr, nullptr, 0));
    unsigned int count = 0;
    show("cuLibraryGetKernelCount", cuLibraryGetKernelCount(&count, library));
    printf("  %u kernels\n", count);
    CUkernel kernels[8];
    if (count > 8)
        count = 8;
    show("cuLibraryEnumerateKernels", cuLibraryEnumerateKernels(kernels, count, library));
    for (unsigned int k = 0; k < count; ++k) {
        const char* name = nullptr;
        show("cuKernelGetName", cuKernelGetName(&name, kernels[k]));
        printf("  kernel %s\n", name);
        for (size_t i = 0;; ++i) {
            size_t offset = 0, size = 0;
            if (cuKernelGetParamInfo(kernels[k], i, &offset, &size) != CUDA_SUCCESS) {
                printf("  cuKernelGetParamInfo: %zu parameters\n", i);
                break;
            }
            printf("  parameter %zu: offset %zu, size %zu\n", i, offset, size);
        }
#if CUDA_VERSION >= 13020
        PFN_cuKernelGetParamCount_v13020 getParamCount =
            (PFN_cuKernelGetParamCount_v13020)entry("cuKernelGetParamCount", 13020);
        size_t params = 0;
        if (show("cuKernelGetParamCount", getParamCount ? getParamCount(kernels[k], &params) : CUDA_ERROR_NOT_FOUND))
            printf("  count = %zu\n", params);
#endif
        CUlibrary owner = nullptr;
        show("cuKernelGetLibrary", cuKernelGetLibrary(&owner, kernels[k]));
        printf("  its library: %s\n", owner == library ? "the one loaded" : "another");
        int threads = 0;
        show("cuKernelGetAttribute(MAX_THREADS_PER_BLOCK)",
             cuKernelGetAttribute(&threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, kernels[k], device));
        printf("  %d threads per block at most\n", threads);
        show("cuKernelSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)",
             cuKernelSetAttribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 1024, kernels[k], device));
        show("cuKernelSetCacheConfig", cuKernelSetCacheConfig(kernels[k], CU_FUNC_CACHE_PREFER_L1, device));
    }
    CUkernel add_kernel, double_kernel;
    show("cuLibraryGetKernel(add_values)", cuLibraryGetKernel(&add_kernel, library, "add_values"));
    show("cuLibraryGetKernel(double_managed)", cuLibraryGetKernel(&double_kernel, library, "double_managed"));
    show("cuLibraryGetKernel(missing)", cuLibraryGetKernel(&double_kernel, library, "missing"));
    show("cuLibraryGetKernel(double_managed)", cuLibraryGetKernel(&double_kernel, library, "double_managed"));

    CUdeviceptr global = 0, managed = 0;
    size_t bytes = 0;
    show("cuLibraryGetGlobal", cuLibraryGetGlobal(&global, &bytes, library, "device_value"));
    printf("  device_value: %zu bytes\n", bytes);
    int value = 0;
    check(cuMemcpyDtoH(&value, global, sizeof(value)));
    printf("  device_value = %d\n", value);
    ok = ok && value == 42;
    value = 100;
    check(cuMemcpyHtoD(global, &value, sizeof(value)));
    show("cuLibraryGetManaged", cuLibraryGetManaged(&managed, &bytes, library, "managed_value"));
    printf("  managed_value: %zu bytes, = %d on the host\n", bytes, *(int*)managed);
    ok = ok && *(int*)managed == 7;
    void* unified = nullptr;
    show("cuLibraryGetUnifiedFunction", cuLibraryGetUnifiedFunction(&unified, library, "add_values"));
    CUdeviceptr out;
    check(cuMemAlloc(&out, sizeof(int)));
    CUfunction add_function, double_function;
    show("cuKernelGetFunction", cuKernelGetFunction(&add_function, add_kernel));
    ok = add_values(add_function, out) == 100 + 7 + 5 && ok;
    show("cuKernelGetFunction", cuKernelGetFunction(&double_function, double_kernel));
    check(cuLaunchKernel(double_function, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr));
    check(cuCtxSynchronize());
    printf("  managed_value = %d on the host after double_managed\n", *(int*)managed);
    ok = ok && *(int*)managed == 14;
    CUmodule library_module;
    show("cuLibraryGetModule", cuLibraryGetModule(&library_module, library));
    CUfunction through_module;
    show("cuModuleGetFunction", cuModuleGetFunction(&through_module, library_module, "add_values"));
    ok = add_values(through_module, out) == 100 + 14 + 5 && ok;

    // The module group.
    CUmodule loaded, from_data, with_options;
    show("cuModuleLoad", cuModuleLoad(&loaded, ptx_path.c_str()));
    show("cuModuleLoadData", cuModuleLoadData(&from_data, ptx.c_str()));
    char log[4096];
    log[0] = 0;
    CUjit_option options[] = { CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, CU_JIT_OPTIMIZATION_LEVEL };
    void* values[] = { log, (void*)(size_t)sizeof(log), (void*)(size_t)2 };
    show("cuModuleLoadDataEx", cuModuleLoadDataEx(&with_options, ptx.c_str(), 3, options, values));
    unsigned int functions = 0;
    show("cuModuleGetFunctionCount", cuModuleGetFunctionCount(&functions, loaded));
    printf("  %u functions\n", functions);
    CUfunction listed[8];
    if (functions > 8)
        functions = 8;
    show("cuModuleEnumerateFunctions", cuModuleEnumerateFunctions(listed, functions, loaded));
    for (unsigned int i = 0; i < functions; ++i) {
        const char* name = nullptr;
        check(cuFuncGetName(&name, listed[i]));
        printf("  function %s\n", name);
    }
    CUdeviceptr module_global;
    show("cuModuleGetGlobal", cuModuleGetGlobal(&module_global, &bytes, loaded, "device_value"));
    check(cuMemcpyDtoH(&value, module_global, sizeof(value)));
    printf("  device_value: %zu bytes, = %d in this module\n", bytes, value);
    ok = ok && value == 42;
    CUmoduleLoadingMode mode;
    show("cuModuleGetLoadingMode", cuModuleGetLoadingMode(&mode));
    printf("  %s\n", mode == CU_MODULE_LAZY_LOADING ? "lazy" : "eager");

    // Two relocatable PTX inputs linked into one cubin, loaded as a module and as a fat binary.
    std::string link0 = read_file(link0_path);
    CUlinkState link;
    void* cubin = nullptr;
    size_t cubin_size = 0;
    show("cuLinkCreate", cuLinkCreate(0, nullptr, nullptr, &link));
    show("cuLinkAddData", cuLinkAddData(link, CU_JIT_INPUT_PTX, (void*)link0.c_str(), link0.size() + 1, "ptx_link0.ptx", 0,
                                        nullptr, nullptr));
    show("cuLinkAddFile", cuLinkAddFile(link, CU_JIT_INPUT_PTX, link1_path.c_str(), 0, nullptr, nullptr));
    if (show("cuLinkComplete", cuLinkComplete(link, &cubin, &cubin_size))) {
        printf("  a cubin: %s\n", cubin_size > 4 && memcmp(cubin, "\x7f" "ELF", 4) == 0 ? "yes" : "no");
        CUmodule linked, fat;
        if (show("cuModuleLoadData(cubin)", cuModuleLoadData(&linked, cubin)))
            check(cuModuleUnload(linked));
        if (show("cuModuleLoadFatBinary(cubin)", cuModuleLoadFatBinary(&fat, cubin)))
            check(cuModuleUnload(fat));
    } else {
        ok = false;
    }
    show("cuLinkDestroy", cuLinkDestroy(link));
    CUmodule fat_ptx;
    if (show("cuModuleLoadFatBinary(PTX)", cuModuleLoadFatBinary(&fat_ptx, ptx.c_str())))
        check(cuModuleUnload(fat_ptx));

    check(cuMemFree(out));
    show("cuModuleUnload", cuModuleUnload(with_options));
    show("cuModuleUnload", cuModuleUnload(from_data));
    show("cuModuleUnload", cuModuleUnload(loaded));
    show("cuLibraryUnload", cuLibraryUnload(from_file));
    show("cuLibraryUnload", cuLibraryUnload(library));
    check(cuDevicePrimaryCtxRelease(device));
    printf("Result = %s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
