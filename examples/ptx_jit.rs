// Ports 001_690d02e65a5330ea.txt, L.2 (Module), the example that "compiles and loads a new module
// from PTX code and parses compilation errors": cuModuleLoadDataEx with the JIT options
// CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES and CU_JIT_TARGET_FROM_CUCONTEXT.
// C twin: ptx_jit.cpp.
// The post's lines are kept as written. Completed: a context for the JIT (cuInit, cuCtxCreate),
// "some PTX code" read from examples/kernels/ptx_jit.ptx (or <argv[1]>/ptx_jit.ptx), the result
// printed, the kernel run and its output checked as in the ptxjit sample the post refers to; then
// the same load with a deliberately broken PTX (ptx_jit_broken.ptx), whose JIT error log is
// printed. Added lines use check_driver! (000 §1.2).
// CUDA 13.0 headers (marked below): cuCtxCreate becomes cuCtxCreate_v4, which takes a
// CUctxCreateParams* (NULL: none) before the flags.
#![allow(non_snake_case)] // the post's names: PTXCode, cuModule, N, ...
#![allow(clippy::needless_range_loop)] // C's `for (int i = 0; i < N; ++i)` loops, as written

#[path = "common/mod.rs"]
mod common;

use std::ffi::{c_char, c_int, c_uint, c_void, OsStr, OsString};
use std::path::Path;
use std::process::exit;
use std::ptr;

use common::{kernel_path, s};
use cuda_check::check_driver;
use cuda_driver_sys::*;

// completion: a whole file as a NUL-terminated string, or None
fn readFile(path: &Path) -> Option<Vec<u8>> {
    let mut text = std::fs::read(path).ok()?;
    text.push(b'\0');
    Some(text)
}

// completion: the name of a CUresult held in an int
unsafe fn errorName(err: c_int) -> *const c_char {
    unsafe {
        let mut err_name: *const c_char = ptr::null();
        let _ = cuGetErrorName(CUresult(err as c_uint), &mut err_name);
        err_name
    }
}

fn main() {
    unsafe {
        // completion: the PTX files (argv[1] is the folder of the kernels)
        let argv: Vec<OsString> = std::env::args_os().collect();
        let kernels_dir = if argv.len() > 1 {
            argv[1].as_os_str()
        } else {
            OsStr::new("examples/kernels")
        };
        let ptx_path = kernel_path(kernels_dir, "ptx_jit.ptx");
        let broken_ptx_path = kernel_path(kernels_dir, "ptx_jit_broken.ptx");
        let ptx_code = readFile(&ptx_path);
        let broken_ptx_code = readFile(&broken_ptx_path);
        let (Some(mut ptx_code), Some(broken_ptx_code)) = (ptx_code, broken_ptx_code) else {
            println!(
                "cannot read {} or {}",
                ptx_path.display(),
                broken_ptx_path.display()
            );
            exit(1);
        };

        // completion: a context, whose device the JIT compiles for (CU_JIT_TARGET_FROM_CUCONTEXT)
        check_driver!(cuInit(0));
        let mut context: CUcontext = ptr::null_mut();
        let device: CUdevice = 0;
        #[cfg(not(feature = "cuda-13000"))]
        check_driver!(cuCtxCreate(&mut context, 0, device));
        #[cfg(feature = "cuda-13000")] // CUDA 13: cuCtxCreate_v4, with a CUctxCreateParams* (NULL: none)
        check_driver!(cuCtxCreate(&mut context, ptr::null_mut(), 0, device));

        const BUFFER_SIZE: usize = 8192;
        let mut cuModule: CUmodule = ptr::null_mut(); // guard: initialised; the post's is left as it is when the load fails
        let mut options: [CUjit_option; 3] = [CUjit_option(0); 3];
        let mut values: [*mut c_void; 3] = [ptr::null_mut(); 3];
        let PTXCode: *mut c_char = ptx_code.as_mut_ptr() as *mut c_char; // the post: "some PTX code"
        let mut error_log = [0 as c_char; BUFFER_SIZE]; // guard: initialised; the driver leaves it as it is when it fails before the JIT (no GPU)
        let mut err: c_int;
        options[0] = CU_JIT_ERROR_LOG_BUFFER;
        values[0] = &raw mut error_log as *mut c_void;
        options[1] = CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES;
        values[1] = BUFFER_SIZE as *mut c_void; // the post: (void*)BUFFER_SIZE, the size in the pointer
        options[2] = CU_JIT_TARGET_FROM_CUCONTEXT;
        values[2] = ptr::null_mut();
        err = cuModuleLoadDataEx(
            &mut cuModule,
            PTXCode as *const c_void,
            3,
            options.as_mut_ptr(),
            values.as_mut_ptr(),
        )
        .0 as c_int;
        if err != CUDA_SUCCESS.0 as c_int {
            println!("Link error:\n{}", s(error_log.as_ptr()));
        }

        // completion: what the load returned, then run the kernel and check what it wrote
        println!(
            "cuModuleLoadDataEx(ptx_jit.ptx) returned {}",
            s(errorName(err))
        );
        let loaded = err == CUDA_SUCCESS.0 as c_int;
        let nBlocks: c_int = 4;
        let nThreads: c_int = 64;
        let N: c_int = nBlocks * nThreads;
        let mut myKernel: CUfunction = ptr::null_mut();
        check_driver!(cuModuleGetFunction(
            &mut myKernel,
            cuModule,
            c"myKernel".as_ptr()
        ));
        let mut d_data: CUdeviceptr = 0;
        check_driver!(cuMemAlloc(&mut d_data, N as usize * size_of::<c_int>()));
        let mut args: [*mut c_void; 1] = [&raw mut d_data as *mut c_void];
        check_driver!(cuLaunchKernel(
            myKernel,
            nBlocks as c_uint,
            1,
            1,
            nThreads as c_uint,
            1,
            1,
            0,
            ptr::null_mut(),
            args.as_mut_ptr(),
            ptr::null_mut(),
        ));
        let mut h_data: Vec<c_int> = vec![0; N as usize]; // malloc(N * sizeof(int))
        for i in 0..N as usize {
            h_data[i] = -1; // no value the kernel writes
        }
        check_driver!(cuMemcpyDtoH(
            h_data.as_mut_ptr() as *mut c_void,
            d_data,
            N as usize * size_of::<c_int>(),
        ));
        let mut correct: c_int = 0;
        for i in 0..N {
            if h_data[i as usize] == i {
                correct += 1;
            }
        }
        println!("myKernel: {} of {} values correct", correct, N);

        // completion: the same load with a deliberately broken PTX, to see the JIT error log
        let mut brokenModule: CUmodule = ptr::null_mut();
        error_log[0] = 0;
        values[1] = BUFFER_SIZE as *mut c_void; // the driver wrote the log's length into values[1]
        err = cuModuleLoadDataEx(
            &mut brokenModule,
            broken_ptx_code.as_ptr() as *const c_void,
            3,
            options.as_mut_ptr(),
            values.as_mut_ptr(),
        )
        .0 as c_int;
        if err != CUDA_SUCCESS.0 as c_int {
            println!("Link error:\n{}", s(error_log.as_ptr()));
        }
        println!(
            "cuModuleLoadDataEx(ptx_jit_broken.ptx) returned {}",
            s(errorName(err))
        );
        let rejected = err == CUDA_ERROR_INVALID_PTX.0 as c_int;

        let pass = loaded && correct == N && rejected;
        println!("Result = {}", if pass { "PASS" } else { "FAIL" });

        check_driver!(cuMemFree(d_data));
        check_driver!(cuModuleUnload(cuModule));
        check_driver!(cuCtxDestroy(context));
        drop(h_data);
        drop(ptx_code);
        drop(broken_ptx_code);
        exit(if pass { 0 } else { 1 });
    }
}
