// Ports 001_690d02e65a5330ea.txt, appendix L introduction: the host program "written with the
// driver API" (the vectorAddDrv sample): cuInit, cuDeviceGetCount, cuDeviceGet, cuCtxCreate,
// cuModuleLoad of a PTX file, cuMemAlloc, cuMemcpyHtoD, cuModuleGetFunction, cuLaunchKernel with an
// argument array. C twin: vector_add.cpp.
// The post's lines are kept as written (their results unchecked, as in the post). Completed where
// the post shows "...": N, the input values, the PTX path (examples/kernels/vector_add.ptx, or
// <argv[1]>/vector_add.ptx; the post loads "VecAdd.ptx"), and at the end copying C back, checking
// every element on the host, and freeing; those added lines use check_driver! (000 §1.2).
// CUDA 13.0 headers (marked below): cuCtxCreate becomes cuCtxCreate_v4, which takes a
// CUctxCreateParams* (NULL: none) before the flags.
#![allow(non_snake_case)] // the post's names: N, h_A, cuDevice, ...
#![allow(clippy::needless_range_loop)] // C's `for (int i = 0; i < N; ++i)` loops, as written

#[path = "common/mod.rs"]
mod common;

use std::ffi::{c_int, c_uint, c_void, OsStr, OsString};
use std::process::exit;
use std::ptr;

use common::{c_path, kernel_path};
use cuda_check::check_driver;
use cuda_driver_sys::*;

fn main() {
    unsafe {
        // completion: where the PTX is (argv[1] is the folder of the kernels)
        let argv: Vec<OsString> = std::env::args_os().collect();
        let kernels_dir = if argv.len() > 1 {
            argv[1].as_os_str()
        } else {
            OsStr::new("examples/kernels")
        };
        let ptx_path = c_path(kernel_path(kernels_dir, "vector_add.ptx"));

        let mut N: c_int = 50000;
        let size: usize = N as usize * size_of::<f32>();

        // Allocate input vectors h_A and h_B in host memory
        let mut h_A: Vec<f32> = vec![0.0; N as usize]; // malloc(size)
        let mut h_B: Vec<f32> = vec![0.0; N as usize]; // malloc(size)

        // Initialize input vectors
        for i in 0..N as usize {
            h_A[i] = i as f32;
            h_B[i] = (2 * i) as f32;
        }

        // Initialize
        let _ = cuInit(0);

        // Get number of devices supporting CUDA
        let mut deviceCount: c_int = 0;
        let _ = cuDeviceGetCount(&mut deviceCount);
        if deviceCount == 0 {
            println!("There is no device supporting CUDA.");
            exit(0);
        }

        // Get handle for device 0
        let mut cuDevice: CUdevice = 0;
        let _ = cuDeviceGet(&mut cuDevice, 0);

        // Create context
        let mut cuContext: CUcontext = ptr::null_mut();
        #[cfg(not(feature = "cuda-13000"))]
        let _ = cuCtxCreate(&mut cuContext, 0, cuDevice);
        #[cfg(feature = "cuda-13000")]
        // CUDA 13: cuCtxCreate_v4, with a CUctxCreateParams* (NULL: none)
        let _ = cuCtxCreate(&mut cuContext, ptr::null_mut(), 0, cuDevice);

        // Create module from binary file
        let mut cuModule: CUmodule = ptr::null_mut();
        let _ = cuModuleLoad(&mut cuModule, ptx_path.as_ptr());

        // Allocate vectors in device memory
        let mut d_A: CUdeviceptr = 0;
        let _ = cuMemAlloc(&mut d_A, size);
        let mut d_B: CUdeviceptr = 0;
        let _ = cuMemAlloc(&mut d_B, size);
        let mut d_C: CUdeviceptr = 0;
        let _ = cuMemAlloc(&mut d_C, size);

        // Copy vectors from host memory to device memory
        let _ = cuMemcpyHtoD(d_A, h_A.as_ptr() as *const c_void, size);
        let _ = cuMemcpyHtoD(d_B, h_B.as_ptr() as *const c_void, size);

        // Get function handle from module
        let mut vecAdd: CUfunction = ptr::null_mut();
        let _ = cuModuleGetFunction(&mut vecAdd, cuModule, c"VecAdd".as_ptr());

        // Invoke kernel
        let threadsPerBlock: c_int = 256;
        let blocksPerGrid: c_int = (N + threadsPerBlock - 1) / threadsPerBlock;
        let mut args: [*mut c_void; 4] = [
            &raw mut d_A as *mut c_void,
            &raw mut d_B as *mut c_void,
            &raw mut d_C as *mut c_void,
            &raw mut N as *mut c_void,
        ];
        let _ = cuLaunchKernel(
            vecAdd,
            blocksPerGrid as c_uint,
            1,
            1,
            threadsPerBlock as c_uint,
            1,
            1,
            0,
            ptr::null_mut(),
            args.as_mut_ptr(),
            ptr::null_mut(),
        );

        // completion of the post's "...": copy the result back and check every element
        let mut h_C: Vec<f32> = vec![0.0; N as usize]; // malloc(size)
        for i in 0..N as usize {
            h_C[i] = -1.0; // no value the kernel writes
        }
        check_driver!(cuMemcpyDtoH(h_C.as_mut_ptr() as *mut c_void, d_C, size));
        let mut correct: c_int = 0;
        for i in 0..N as usize {
            if h_C[i] == h_A[i] + h_B[i] {
                correct += 1;
            } else if correct as usize == i {
                // the first wrong element only
                println!(
                    "h_C[{}] = {:.6}, expected {:.6}",
                    i,
                    h_C[i],
                    h_A[i] + h_B[i]
                );
            }
        }
        println!("VecAdd: {} of {} elements correct", correct, N);
        println!("Result = {}", if correct == N { "PASS" } else { "FAIL" });

        check_driver!(cuMemFree(d_A));
        check_driver!(cuMemFree(d_B));
        check_driver!(cuMemFree(d_C));
        check_driver!(cuModuleUnload(cuModule));
        check_driver!(cuCtxDestroy(cuContext));
        drop(h_A);
        drop(h_B);
        drop(h_C);
        exit(if correct == N { 0 } else { 1 });
    }
}
