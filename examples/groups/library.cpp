// C twin of examples/groups/library.rs. The library and module groups of the Driver API: a
// library loaded from memory and from a file, its kernels counted and enumerated with their
// names, parameters, attributes and library; a device global and a managed variable read and
// written through the library, a kernel launched to check them; the library's module; then the
// module group: a module loaded from a file, from memory and with JIT options, its functions
// counted and enumerated, its global, the loading mode, two PTX inputs linked into a cubin
// (cuLinkCreate, cuLinkAddData, cuLinkAddFile, cuLinkComplete) which is loaded as a module and as
// a fat binary, its kernel launched from each and its output checked. The attribute set on each
// kernel is read back; before the doubling kernel, a kernel sets the managed value to 10 after
// 200 ms (late_fill), so that the host, were it not to synchronize, would certainly read the value
// before either. cuKernelGetParamCount (CUDA 13.2 headers) is looked up with
// cuGetProcAddress: where the driver has none, the program prints what its lookup answered.
// Kernels: examples/kernels/library.ptx (from library.cu), ptx_link0.ptx, ptx_link1.ptx and
// late_write.ptx; argv[1] is the kernels folder.
#include "common.h"
#include <cudaTypedefs.h>
#include <string>

// The inputs of the linked kernel, one thread each.
#define LINKED 256
// How long the kernel that sets the managed value waits before it writes: far longer than the
// host takes to read the value after a call that did not wait for it.
#define LATE_NS 200000000ULL

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
    int value = 0;
    check(cuMemcpyDtoH(&value, out, sizeof(value)));
    printf("  add_values(5) = %d\n", value);
    return value;
}

// Launches LinkedKernel of `module` on the LINKED floats at `input` (0, 1, 2, ...), its outputs at
// `output`; how many outputs are 2 x + 1 of their input x (none where the launch fails).
static size_t run_linked(CUmodule module, CUdeviceptr input, CUdeviceptr output)
{
    CUfunction f = nullptr;
    int n = LINKED;
    float values[LINKED] = { 0 };
    if (check(cuModuleGetFunction(&f, module, "LinkedKernel"))) {
        void* args[] = { &input, &output, &n };
        check(cuLaunchKernel(f, 1, 1, 1, LINKED, 1, 1, 0, nullptr, args, nullptr));
        check(cuMemcpyDtoH(values, output, sizeof(values)));
    }
    size_t same = 0;
    for (int i = 0; i < LINKED; ++i)
        same += values[i] == 2.0f * (float)i + 1.0f;
    return same;
}

int main(int argc, char** argv)
{
    char ptx_path[4096], link0_path[4096], link1_path[4096];
    kernel_file(ptx_path, sizeof ptx_path, argc, argv, "library.ptx");
    kernel_file(link0_path, sizeof link0_path, argc, argv, "ptx_link0.ptx");
    kernel_file(link1_path, sizeof link1_path, argc, argv, "ptx_link1.ptx");

    if (!check(cuInit(0)))
        return 1;
    CUdevice device;
    CUcontext ctx;
    if (!primary_context(&device, &ctx))
        return finish();
    std::string ptx = read_file(ptx_path);
    expect(!ptx.empty(), "library.ptx read");
    if (ptx.empty())
        return finish();

    // The library group.
    CUlibrary library, from_file;
    if (!check(cuLibraryLoadData(&library, ptx.c_str(), nullptr, nullptr, 0, nullptr, nullptr, 0)))
        return finish();
    CUjit_option jit_options[] = { CU_JIT_OPTIMIZATION_LEVEL };
    void* jit_values[] = { (void*)(size_t)3 };
    check(cuLibraryLoadFromFile(&from_file, ptx_path, jit_options, jit_values, 1, nullptr, nullptr, 0));
    unsigned int count = 0;
    check(cuLibraryGetKernelCount(&count, library));
    printf("library: %u kernels\n", count);
    CUkernel kernels[8];
    if (count > 8)
        count = 8;
    check(cuLibraryEnumerateKernels(kernels, count, library));
    for (unsigned int k = 0; k < count; ++k) {
        const char* name = nullptr;
        check(cuKernelGetName(&name, kernels[k]));
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
        if (!getParamCount)
            show_missing("cuKernelGetParamCount");
        else if (show("cuKernelGetParamCount", getParamCount(kernels[k], &params)))
            printf("  count = %zu\n", params);
#endif
        CUlibrary owner = nullptr;
        check(cuKernelGetLibrary(&owner, kernels[k]));
        expect(owner == library, "the kernel's library");
        int threads = 0;
        check(cuKernelGetAttribute(&threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, kernels[k], device));
        printf("  %d threads per block at most\n", threads);
        check(cuKernelSetAttribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 1024, kernels[k], device));
        int shared = 0;
        check(cuKernelGetAttribute(&shared, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, kernels[k], device));
        expect(shared == 1024, "the kernel's dynamic shared memory set");
        check(cuKernelSetCacheConfig(kernels[k], CU_FUNC_CACHE_PREFER_L1, device));
    }
    CUkernel add_kernel, double_kernel;
    check(cuLibraryGetKernel(&add_kernel, library, "add_values"));
    check(cuLibraryGetKernel(&double_kernel, library, "double_managed"));
    CUresult missing = cuLibraryGetKernel(&double_kernel, library, "missing");
    expect(!show("cuLibraryGetKernel(missing)", missing), "no kernel of a name the library lacks");
    check(cuLibraryGetKernel(&double_kernel, library, "double_managed"));

    CUdeviceptr global = 0, managed = 0;
    size_t bytes = 0;
    check(cuLibraryGetGlobal(&global, &bytes, library, "device_value"));
    printf("  device_value: %zu bytes\n", bytes);
    int value = 0;
    check(cuMemcpyDtoH(&value, global, sizeof(value)));
    printf("  device_value = %d\n", value);
    expect(value == 42, "device_value's initial value");
    value = 100;
    check(cuMemcpyHtoD(global, &value, sizeof(value)));
    check(cuLibraryGetManaged(&managed, &bytes, library, "managed_value"));
    printf("  managed_value: %zu bytes, = %d on the host\n", bytes, *(int*)managed);
    expect(*(int*)managed == 7, "managed_value's initial value");
    void* unified = nullptr;
    show("cuLibraryGetUnifiedFunction", cuLibraryGetUnifiedFunction(&unified, library, "add_values"));
    CUdeviceptr out;
    check(cuMemAlloc(&out, sizeof(int)));
    CUfunction add_function, double_function;
    check(cuKernelGetFunction(&add_function, add_kernel));
    expect(add_values(add_function, out) == 100 + 7 + 5, "add_values through the library's kernel");
    check(cuKernelGetFunction(&double_function, double_kernel));
    // Loaded now: loaded at its launch, the doubling could wait on the host for the kernel before
    // it, as the synchronization is to.
    check(cuFuncLoad(double_function));
    // The managed value set to 10 late, then doubled: without the synchronization the host would
    // read it long before either.
    CUmodule late = load_module(argc, argv, "late_write.ptx");
    CUfunction late_fill = get_function(late, "late_fill");
    CUdeviceptr target = managed;
    unsigned int one = 1, ten = 10;
    unsigned long long ns = LATE_NS;
    void* late_args[] = { &target, &one, &ten, &ns };
    check(cuLaunchKernel(late_fill, 1, 1, 1, 1, 1, 1, 0, nullptr, late_args, nullptr));
    check(cuLaunchKernel(double_function, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr));
    check(cuCtxSynchronize());
    printf("  managed_value = %d on the host after double_managed\n", *(int*)managed);
    expect(*(int*)managed == 20, "managed_value set late, then doubled");
    CUmodule library_module;
    check(cuLibraryGetModule(&library_module, library));
    CUfunction through_module;
    check(cuModuleGetFunction(&through_module, library_module, "add_values"));
    expect(add_values(through_module, out) == 100 + 20 + 5, "add_values through the library's module");

    // The module group.
    CUmodule loaded, from_data, with_options;
    check(cuModuleLoad(&loaded, ptx_path));
    check(cuModuleLoadData(&from_data, ptx.c_str()));
    char log[4096];
    log[0] = 0;
    CUjit_option options[] = { CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, CU_JIT_OPTIMIZATION_LEVEL };
    void* values[] = { log, (void*)(size_t)sizeof(log), (void*)(size_t)2 };
    check(cuModuleLoadDataEx(&with_options, ptx.c_str(), 3, options, values));
    unsigned int functions = 0;
    check(cuModuleGetFunctionCount(&functions, loaded));
    printf("module: %u functions\n", functions);
    CUfunction listed[8];
    if (functions > 8)
        functions = 8;
    check(cuModuleEnumerateFunctions(listed, functions, loaded));
    for (unsigned int i = 0; i < functions; ++i) {
        const char* name = nullptr;
        check(cuFuncGetName(&name, listed[i]));
        printf("  function %s\n", name);
    }
    CUdeviceptr module_global;
    check(cuModuleGetGlobal(&module_global, &bytes, loaded, "device_value"));
    check(cuMemcpyDtoH(&value, module_global, sizeof(value)));
    printf("  device_value: %zu bytes, = %d in this module\n", bytes, value);
    expect(value == 42, "device_value in another module");
    CUmoduleLoadingMode mode;
    check(cuModuleGetLoadingMode(&mode));
    printf("loading mode: %s\n", mode == CU_MODULE_LAZY_LOADING ? "lazy" : "eager");

    // Two relocatable PTX inputs linked into one cubin, loaded as a module and as a fat binary, its
    // kernel launched from each.
    static float inputs[LINKED];
    for (int i = 0; i < LINKED; ++i)
        inputs[i] = (float)i;
    CUdeviceptr linked_in = 0, linked_out = 0;
    check(cuMemAlloc(&linked_in, sizeof(inputs)));
    check(cuMemAlloc(&linked_out, 2 * sizeof(inputs)));
    check(cuMemcpyHtoD(linked_in, inputs, sizeof(inputs)));
    CUdeviceptr linked_out_fat = linked_out + sizeof(inputs);
    std::string link0 = read_file(link0_path);
    CUlinkState link;
    void* cubin = nullptr;
    size_t cubin_size = 0;
    check(cuLinkCreate(0, nullptr, nullptr, &link));
    check(cuLinkAddData(link, CU_JIT_INPUT_PTX, (void*)link0.c_str(), link0.size() + 1, "ptx_link0.ptx", 0,
                                        nullptr, nullptr));
    check(cuLinkAddFile(link, CU_JIT_INPUT_PTX, link1_path, 0, nullptr, nullptr));
    if (check(cuLinkComplete(link, &cubin, &cubin_size))) {
        expect(cubin_size > 4 && memcmp(cubin, "\x7f" "ELF", 4) == 0, "the linker's output is a cubin");
        CUmodule linked, fat;
        if (check(cuModuleLoadData(&linked, cubin))) {
            expect_all("the linked cubin's kernel, loaded as a module: outputs 2 x + 1",
                       run_linked(linked, linked_in, linked_out), LINKED);
            check(cuModuleUnload(linked));
        }
        bool fat_loaded = show("cuModuleLoadFatBinary(cubin)", cuModuleLoadFatBinary(&fat, cubin));
        expect(fat_loaded, "the cubin loaded as a fat binary");
        if (fat_loaded) {
            expect_all("the linked cubin's kernel, loaded as a fat binary: outputs 2 x + 1",
                       run_linked(fat, linked_in, linked_out_fat), LINKED);
            check(cuModuleUnload(fat));
        }
    }
    check(cuLinkDestroy(link));
    CUmodule fat_ptx;
    if (show("cuModuleLoadFatBinary(PTX)", cuModuleLoadFatBinary(&fat_ptx, ptx.c_str())))
        check(cuModuleUnload(fat_ptx));

    check(cuMemFree(linked_out));
    check(cuMemFree(linked_in));
    check(cuMemFree(out));
    check(cuModuleUnload(late));
    check(cuModuleUnload(with_options));
    check(cuModuleUnload(from_data));
    check(cuModuleUnload(loaded));
    check(cuLibraryUnload(from_file));
    check(cuLibraryUnload(library));
    check(cuDevicePrimaryCtxRelease(device));
    return finish();
}
