// Ports 000_c1fa1a8379f4e9c9.txt, section 1.4 (使用驱动API进行内存分配): cuMemAlloc of linear device
// memory, cuMemAllocHost of page-locked host memory, cuMemsetD32 on the page-locked pointer,
// cuMemFreeHost. C twin: memory_alloc.cpp.
// Changes from the post, each marked in the code: the host memory is only touched when
// cuMemAllocHost gave a pointer (guard: as written it writes through a null pointer and dies with
// SIGSEGV without a GPU); the CUdeviceptr is cast to a pointer for %p; the device memory and the
// context, which the post leaks, are freed at the end (added).
// CUDA 13.0 headers (marked below): cuCtxCreate becomes cuCtxCreate_v4, which takes a
// CUctxCreateParams* (NULL: none) before the flags.

#[path = "common/mod.rs"]
mod common;

use std::ffi::c_void;
use std::ptr;

use common::p;
use cuda_check::check_driver;
// CUDA driver API (cuda.h)
use cuda_driver_sys::*;

fn main() {
    unsafe {
        // check the driver's initialisation
        check_driver!(cuInit(0));
        // create a context
        let mut context: CUcontext = ptr::null_mut();
        let device: CUdevice = 0;
        #[cfg(not(feature = "cuda-13000"))]
        check_driver!(cuCtxCreate(&mut context, CU_CTX_SCHED_AUTO.0, device));
        #[cfg(feature = "cuda-13000")] // CUDA 13: cuCtxCreate_v4, with a CUctxCreateParams* (NULL: none)
        check_driver!(cuCtxCreate(
            &mut context,
            ptr::null_mut(),
            CU_CTX_SCHED_AUTO.0,
            device
        ));
        println!("context = {}", p(context));
        // 100 bytes of linear device memory
        let mut device_memory_pointer: CUdeviceptr = 0; // CUdeviceptr is an unsigned integer (unsigned long long)
        check_driver!(cuMemAlloc(&mut device_memory_pointer, 100)); // a pointer to device memory
        println!(
            "device_memory_pointer = {}",
            p(device_memory_pointer as *const c_void) // cast for %p (the post passes the integer)
        );
        // 100 bytes of page-locked host memory, through a pointer to the pointer
        let mut host_page_locked_memory: *mut f32 = ptr::null_mut();
        check_driver!(cuMemAllocHost(
            &mut host_page_locked_memory as *mut *mut f32 as *mut *mut c_void,
            100,
        ));
        println!("host_page_locked_memory = {}", p(host_page_locked_memory));
        // put data into the page-locked memory (still on the CPU)
        if !host_page_locked_memory.is_null() {
            // guard: cuMemAllocHost failed (no GPU) and left it null
            *host_page_locked_memory = 123.0;
            println!(
                "host_page_locked_memory[0] = {:.6}",
                *host_page_locked_memory
            );
        } // guard

        // cuMemsetD32(CUdeviceptr dstDevice, unsigned int ui, size_t N) sets N 32-bit values; the
        // page-locked host pointer can be used as a device pointer. The value must be given as the
        // float's bits: C's *(int*)&new_value is new_value.to_bits() (555.0's bits, 0x440ac000).
        let new_value: f32 = 555.0;
        check_driver!(cuMemsetD32(
            host_page_locked_memory as CUdeviceptr,
            new_value.to_bits(),
            1,
        ));
        if !host_page_locked_memory.is_null() {
            // guard: as above
            println!(
                "host_page_locked_memory[0] = {:.6}",
                *host_page_locked_memory
            );
        }
        // free the memory
        check_driver!(cuMemFreeHost(host_page_locked_memory as *mut c_void));
        check_driver!(cuMemFree(device_memory_pointer)); // added: the post leaks the device memory
        check_driver!(cuCtxDestroy(context)); // added: the post leaks the context
    }
}
