// Ports 001_690d02e65a5330ea.txt, L.2 (Module), the example that "compiles, links and loads a new
// module from several PTX codes and parses link and compile errors": cuLinkCreate with six JIT
// options (wall time, info and error logs, verbose), cuLinkAddData for two PTX inputs,
// cuLinkComplete, cuModuleLoadData of the linked cubin, cuLinkDestroy. C twin: ptx_link.cpp.
// The post's lines are kept as written, with one typo fixed: cuModuleLoadData(cuModule, cubin)
// takes &cuModule. Completed: a context (cuInit, cuCtxCreate); "some PTX code" and "some other PTX
// code" read from examples/kernels/ptx_link0.ptx and ptx_link1.ptx (or under argv[1]): a kernel
// and the device function it calls, which only link together; the linked kernel is run and its
// output checked. Added lines use check_driver! (000 §1.2).
// Fixed in the post: the wall time is read from values[0], where the driver writes it.
// Output: the post's line "Link completed in <walltime>ms. Linker Output:" carries a run-dependent
// number (printf %f); the linker's verbose info log follows on the next lines, with run-dependent
// "Compile time = <t> ms" lines, and only when the PTX is compiled: with the JIT cache on
// (~/.nv/ComputeCache), a second run finds the compiled code there and its log has no ptxas lines,
// so compare runs with CUDA_CACHE_DISABLE=1.
// CUDA 13.0 headers (marked below): cuCtxCreate becomes cuCtxCreate_v4, which takes a
// CUctxCreateParams* (NULL: none) before the flags.
#![allow(non_snake_case)] // the post's names: PTXCode0, linkState, cubinSize, N, ...

#[path = "common/mod.rs"]
mod common;

use std::ffi::{c_char, c_int, c_uint, c_void, CStr, OsStr, OsString};
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

fn main() {
    unsafe {
        // completion: the PTX files (argv[1] is the folder of the kernels)
        let argv: Vec<OsString> = std::env::args_os().collect();
        let kernels_dir = if argv.len() > 1 {
            argv[1].as_os_str()
        } else {
            OsStr::new("examples/kernels")
        };
        let ptx0_path = kernel_path(kernels_dir, "ptx_link0.ptx");
        let ptx1_path = kernel_path(kernels_dir, "ptx_link1.ptx");
        let ptx0_code = readFile(&ptx0_path);
        let ptx1_code = readFile(&ptx1_path);
        let (Some(mut ptx0_code), Some(mut ptx1_code)) = (ptx0_code, ptx1_code) else {
            println!(
                "cannot read {} or {}",
                ptx0_path.display(),
                ptx1_path.display()
            );
            exit(1);
        };

        // completion: a context to link for and load into
        check_driver!(cuInit(0));
        let mut context: CUcontext = ptr::null_mut();
        let device: CUdevice = 0;
        #[cfg(not(feature = "cuda-13000"))]
        check_driver!(cuCtxCreate(&mut context, 0, device));
        #[cfg(feature = "cuda-13000")] // CUDA 13: cuCtxCreate_v4, with a CUctxCreateParams* (NULL: none)
        check_driver!(cuCtxCreate(&mut context, ptr::null_mut(), 0, device));

        const BUFFER_SIZE: usize = 8192;
        let mut cuModule: CUmodule = ptr::null_mut(); // guard: initialised; the post's is left as it is when the load fails
        let mut options: [CUjit_option; 6] = [CUjit_option(0); 6];
        let mut values: [*mut c_void; 6] = [ptr::null_mut(); 6];
        let mut walltime: f32 = 0.0; // guard: initialised; printed even when the link never ran (no GPU)
        let (mut error_log, mut info_log) =
            ([0 as c_char; BUFFER_SIZE], [0 as c_char; BUFFER_SIZE]); // guard: as walltime
        let PTXCode0: *mut c_char = ptx0_code.as_mut_ptr() as *mut c_char; // the post: "some PTX code"
        let PTXCode1: *mut c_char = ptx1_code.as_mut_ptr() as *mut c_char; // the post: "some other PTX code"
        let mut linkState: CUlinkState = ptr::null_mut(); // guard: initialised; cuLinkCreate leaves it as it is when it fails
        let mut err: c_int;
        let mut cubin: *mut c_void = ptr::null_mut(); // guard: as linkState, for cuLinkComplete
        let mut cubinSize: usize = 0; // guard: as cubin
        options[0] = CU_JIT_WALL_TIME;
        values[0] = &raw mut walltime as *mut c_void;
        options[1] = CU_JIT_INFO_LOG_BUFFER;
        values[1] = &raw mut info_log as *mut c_void;
        options[2] = CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES;
        values[2] = BUFFER_SIZE as *mut c_void; // the post: (void*)BUFFER_SIZE, the size in the pointer
        options[3] = CU_JIT_ERROR_LOG_BUFFER;
        values[3] = &raw mut error_log as *mut c_void;
        options[4] = CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES;
        values[4] = BUFFER_SIZE as *mut c_void; // as values[2]
        options[5] = CU_JIT_LOG_VERBOSE;
        values[5] = ptr::without_provenance_mut(1); // (void*)1
        let _ = cuLinkCreate(6, options.as_mut_ptr(), values.as_mut_ptr(), &mut linkState);
        err = cuLinkAddData(
            linkState,
            CU_JIT_INPUT_PTX,
            PTXCode0 as *mut c_void,
            CStr::from_ptr(PTXCode0).count_bytes() + 1,
            ptr::null(),
            0,
            ptr::null_mut(),
            ptr::null_mut(),
        )
        .0 as c_int;
        if err != CUDA_SUCCESS.0 as c_int {
            println!("Link error:\n{}", s(error_log.as_ptr()));
        }
        err = cuLinkAddData(
            linkState,
            CU_JIT_INPUT_PTX,
            PTXCode1 as *mut c_void,
            CStr::from_ptr(PTXCode1).count_bytes() + 1,
            ptr::null(),
            0,
            ptr::null_mut(),
            ptr::null_mut(),
        )
        .0 as c_int;
        if err != CUDA_SUCCESS.0 as c_int {
            println!("Link error:\n{}", s(error_log.as_ptr()));
        }
        let _ = cuLinkComplete(linkState, &mut cubin, &mut cubinSize);
        if !cubin.is_null() {
            // fix: CU_JIT_WALL_TIME "overwrites the option value": the driver writes the float into values[0] itself, not through the pointer the post puts there (walltime would stay unwritten)
            libc::memcpy(
                &raw mut walltime as *mut c_void,
                &raw const values[0] as *const c_void,
                size_of_val(&walltime),
            );
        }
        println!(
            "Link completed in {:.6}ms. Linker Output:\n{}",
            walltime,
            s(info_log.as_ptr())
        );
        let _ = cuModuleLoadData(&mut cuModule, cubin); // the post: cuModuleLoadData(cuModule, cubin)
        let _ = cuLinkDestroy(linkState);

        // completion: run the linked kernel (LinkedKernel calls scale_and_offset: out = 2 * in + 1)
        let N: c_int = 1024;
        let threadsPerBlock: c_int = 256;
        let mut h_in: Vec<f32> = vec![0.0; N as usize]; // malloc(N * sizeof(float))
        let mut h_out: Vec<f32> = vec![0.0; N as usize]; // malloc(N * sizeof(float))
        for i in 0..N as usize {
            h_in[i] = i as f32;
            h_out[i] = -1.0; // no value the kernel writes
        }
        let mut linkedKernel: CUfunction = ptr::null_mut();
        check_driver!(cuModuleGetFunction(
            &mut linkedKernel,
            cuModule,
            c"LinkedKernel".as_ptr()
        ));
        let (mut d_in, mut d_out): (CUdeviceptr, CUdeviceptr) = (0, 0);
        check_driver!(cuMemAlloc(&mut d_in, N as usize * size_of::<f32>()));
        check_driver!(cuMemAlloc(&mut d_out, N as usize * size_of::<f32>()));
        check_driver!(cuMemcpyHtoD(
            d_in,
            h_in.as_ptr() as *const c_void,
            N as usize * size_of::<f32>(),
        ));
        let mut n: c_int = N;
        let mut args: [*mut c_void; 3] = [
            &raw mut d_in as *mut c_void,
            &raw mut d_out as *mut c_void,
            &raw mut n as *mut c_void,
        ];
        check_driver!(cuLaunchKernel(
            linkedKernel,
            (N / threadsPerBlock) as c_uint,
            1,
            1,
            threadsPerBlock as c_uint,
            1,
            1,
            0,
            ptr::null_mut(),
            args.as_mut_ptr(),
            ptr::null_mut(),
        ));
        check_driver!(cuMemcpyDtoH(
            h_out.as_mut_ptr() as *mut c_void,
            d_out,
            N as usize * size_of::<f32>(),
        ));
        let mut correct: c_int = 0;
        for i in 0..N as usize {
            if h_out[i] == 2.0 * h_in[i] + 1.0 {
                correct += 1;
            }
        }
        println!("LinkedKernel: {} of {} values correct", correct, N);
        println!("Result = {}", if correct == N { "PASS" } else { "FAIL" });

        check_driver!(cuMemFree(d_in));
        check_driver!(cuMemFree(d_out));
        check_driver!(cuModuleUnload(cuModule));
        check_driver!(cuCtxDestroy(context));
        drop(h_in);
        drop(h_out);
        drop(ptx0_code);
        drop(ptx1_code);
        exit(if correct == N { 0 } else { 1 });
    }
}
