// C twin of examples/memory_alloc.rs. Ports 000_c1fa1a8379f4e9c9.txt, section 1.4 (使用驱动API进行
// 内存分配): cuMemAlloc of linear device memory, cuMemAllocHost of page-locked host memory,
// cuMemsetD32 on the page-locked pointer, cuMemFreeHost.
// Changes from the post, each marked in the code: the host memory is only touched when
// cuMemAllocHost gave a pointer (guard: as written it writes through a null pointer and dies with
// SIGSEGV without a GPU); the CUdeviceptr is cast to void* for %p; the device memory and the
// context, which the post leaks, are freed at the end (added).
// CUDA 13.0 headers (marked below): cuCtxCreate becomes cuCtxCreate_v4, which takes a
// CUctxCreateParams* (NULL: none) before the flags.
// CUDA driver header cuda.h
#include <cuda.h>
#include <typeinfo>
#include <stdio.h>
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

int main(){
    // check the driver's initialisation
    checkDriver(cuInit(0));
    // create a context
    CUcontext context = nullptr;
    CUdevice device = 0;
#if CUDA_VERSION >= 13000
    // CUDA 13: cuCtxCreate_v4, with a CUctxCreateParams* (NULL: none)
    checkDriver(cuCtxCreate(&context, NULL, CU_CTX_SCHED_AUTO, device));
#else
    checkDriver(cuCtxCreate(&context, CU_CTX_SCHED_AUTO, device));
#endif
    printf("context = %p\n", context);
    // 100 bytes of linear device memory
    CUdeviceptr device_memory_pointer = 0;  // CUdeviceptr is an unsigned integer (unsigned long long)
    checkDriver(cuMemAlloc(&device_memory_pointer, 100)); // a pointer to device memory
    printf("device_memory_pointer = %p\n", (void*)device_memory_pointer); // cast for %p (the post passes the integer)
    // 100 bytes of page-locked host memory, through a pointer to the pointer
    float* host_page_locked_memory = nullptr;
    checkDriver(cuMemAllocHost((void**)&host_page_locked_memory, 100));
    printf("host_page_locked_memory = %p\n", host_page_locked_memory);
    // put data into the page-locked memory (still on the CPU)
    if (host_page_locked_memory != nullptr) { // guard: cuMemAllocHost failed (no GPU) and left it null
    host_page_locked_memory[0] = 123;
    printf("host_page_locked_memory[0] = %f\n", host_page_locked_memory[0]);
    } // guard
    /*  cuMemsetD32(CUdeviceptr dstDevice, unsigned int ui, size_t N) sets N 32-bit values; the
        page-locked host pointer can be used as a device pointer. The value must be given as the
        float's bits: *(int*)&new_value (g++ -Wall warns about strict aliasing there; it does
        pass 555.0f's bits, 0x440ac000). */
    float new_value = 555;
    checkDriver(cuMemsetD32((CUdeviceptr)host_page_locked_memory, *(int*)&new_value, 1));
    if (host_page_locked_memory != nullptr) // guard: as above
    printf("host_page_locked_memory[0] = %f\n", host_page_locked_memory[0]);
    // free the memory
    checkDriver(cuMemFreeHost(host_page_locked_memory));
    checkDriver(cuMemFree(device_memory_pointer)); // added: the post leaks the device memory
    checkDriver(cuCtxDestroy(context));            // added: the post leaks the context
    return 0;
}
