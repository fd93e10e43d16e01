// Ports 001_690d02e65a5330ea.txt, L.3 (Kernel Execution): the kernel parameters int, float4, char,
// float, CUdeviceptr, float2 packed by hand into one buffer with the post's ALIGN_UP and
// ADD_TO_PARAM_BUFFER macros and passed to cuLaunchKernel through CU_LAUNCH_PARAM_BUFFER_POINTER /
// CU_LAUNCH_PARAM_BUFFER_SIZE. C twin: param_buffer.cpp.
// The post's lines are kept as written. Completed: a context and the kernel ParamKernel from
// examples/kernels/param_buffer.ptx (or <argv[1]>/param_buffer.ptx) as cuFunction; values for the
// six parameters; devPtr is device memory into which the kernel writes back what it received; a
// 1x1x1 launch (the post passes the block sizes where cuLaunchKernel takes the grid sizes and the
// other way round; with all of them 1 that makes no difference); the host checks every value.
// Added lines use check_driver! (000 §1.2).
// CUDA 13.0 headers (marked below): cuCtxCreate becomes cuCtxCreate_v4, which takes a
// CUctxCreateParams* (NULL: none) before the flags.
#![allow(non_snake_case, non_camel_case_types)] // the post's names: devPtr, paramBuffer, float4, ...

#[path = "common/mod.rs"]
mod common;

use std::ffi::{c_char, c_int, c_uint, c_void, OsStr, OsString};
use std::process::exit;
use std::ptr;

use common::{c_path, kernel_path, p};
use cuda_check::check_driver;
use cuda_driver_sys::*;

// float4 and float2 as CUDA's vector_types.h defines them for host code (that header is not part
// of the driver API headers): 16- and 8-byte aligned, the alignment the post gives them.
#[repr(C, align(16))]
struct float4 {
    x: f32,
    y: f32,
    z: f32,
    w: f32,
}
#[repr(C, align(8))]
struct float2 {
    x: f32,
    y: f32,
}

// completion: what ParamKernel writes back to devPtr (the same struct as in param_buffer.cu)
#[repr(C)]
struct Received {
    i: c_int,            // offset 0
    f4: [f32; 4],        // offset 4
    c: c_int,            // offset 20 (the char, widened)
    f: f32,              // offset 24
    devPtr: CUdeviceptr, // offset 32
    f2: [f32; 2],        // offset 40
}

// C's macro assigns the aligned offset and is itself that value; a Rust assignment has no value,
// so ALIGN_UP! only computes it (ADD_TO_PARAM_BUFFER! assigns it, as in the post).
macro_rules! ALIGN_UP {
    ($offset:expr, $alignment:expr) => {
        ($offset + $alignment - 1) & !($alignment - 1)
    };
}

fn main() {
    unsafe {
        // The post's globals `char paramBuffer[1024]; size_t paramBufferSize = 0;`, here main's locals:
        // ADD_TO_PARAM_BUFFER!, defined after them, uses them as the C macro uses the globals.
        let mut paramBuffer = [0 as c_char; 1024];
        let mut paramBufferSize: usize = 0;

        macro_rules! ADD_TO_PARAM_BUFFER {
            ($value:expr, $alignment:expr) => {
                paramBufferSize = ALIGN_UP!(paramBufferSize, $alignment);
                libc::memcpy(
                    (&raw mut paramBuffer as *mut c_char).add(paramBufferSize) as *mut c_void,
                    &raw const $value as *const c_void,
                    size_of_val(&$value),
                );
                paramBufferSize += size_of_val(&$value);
            };
        }

        // completion: the PTX (argv[1] is the folder of the kernels), a context, the kernel
        let argv: Vec<OsString> = std::env::args_os().collect();
        let kernels_dir = if argv.len() > 1 {
            argv[1].as_os_str()
        } else {
            OsStr::new("examples/kernels")
        };
        let ptx_path = c_path(kernel_path(kernels_dir, "param_buffer.ptx"));
        check_driver!(cuInit(0));
        let mut context: CUcontext = ptr::null_mut();
        let device: CUdevice = 0;
        #[cfg(not(feature = "cuda-13000"))]
        check_driver!(cuCtxCreate(&mut context, 0, device));
        #[cfg(feature = "cuda-13000")] // CUDA 13: cuCtxCreate_v4, with a CUctxCreateParams* (NULL: none)
        check_driver!(cuCtxCreate(&mut context, ptr::null_mut(), 0, device));
        let mut module: CUmodule = ptr::null_mut();
        check_driver!(cuModuleLoad(&mut module, ptx_path.as_ptr()));
        let mut cuFunction: CUfunction = ptr::null_mut();
        check_driver!(cuModuleGetFunction(
            &mut cuFunction,
            module,
            c"ParamKernel".as_ptr()
        ));

        let i: c_int = 42;
        ADD_TO_PARAM_BUFFER!(i, align_of_val(&i));
        let f4 = float4 {
            x: 1.5,
            y: 2.5,
            z: 3.5,
            w: 4.5,
        };
        ADD_TO_PARAM_BUFFER!(f4, 16); // float4's alignment is 16
        let c: c_char = b'A' as c_char;
        ADD_TO_PARAM_BUFFER!(c, align_of_val(&c));
        let f: f32 = 6.25;
        ADD_TO_PARAM_BUFFER!(f, align_of_val(&f));
        let mut devPtr: CUdeviceptr = 0;
        check_driver!(cuMemAlloc(&mut devPtr, size_of::<Received>())); // completion: where the kernel writes back
        ADD_TO_PARAM_BUFFER!(devPtr, align_of_val(&devPtr));
        let f2 = float2 { x: 7.75, y: -8.5 };
        ADD_TO_PARAM_BUFFER!(f2, 8); // float2's alignment is 8

        let mut extra: [*mut c_void; 5] = [
            CU_LAUNCH_PARAM_BUFFER_POINTER,
            &raw mut paramBuffer as *mut c_void,
            CU_LAUNCH_PARAM_BUFFER_SIZE,
            &raw mut paramBufferSize as *mut c_void,
            CU_LAUNCH_PARAM_END,
        ];
        // completion: one thread
        let (blockWidth, blockHeight, blockDepth): (c_uint, c_uint, c_uint) = (1, 1, 1);
        let (gridWidth, gridHeight, gridDepth): (c_uint, c_uint, c_uint) = (1, 1, 1);
        let _ = cuLaunchKernel(
            cuFunction,
            blockWidth,
            blockHeight,
            blockDepth,
            gridWidth,
            gridHeight,
            gridDepth,
            0,
            ptr::null_mut(),
            ptr::null_mut(),
            extra.as_mut_ptr(),
        );

        // completion: what the kernel received, checked value by value
        println!("paramBufferSize = {}", paramBufferSize);
        let mut received: Received = std::mem::zeroed(); // Received received; memset(&received, 0, sizeof(received));
        check_driver!(cuMemcpyDtoH(
            &raw mut received as *mut c_void,
            devPtr,
            size_of_val(&received),
        ));
        let mut correct: c_int = 0;
        let mut ok = received.i == i;
        correct += ok as c_int;
        println!(
            "i: sent {}, received {}: {}",
            i,
            received.i,
            if ok { "ok" } else { "MISMATCH" }
        );
        ok = received.f4[0] == f4.x
            && received.f4[1] == f4.y
            && received.f4[2] == f4.z
            && received.f4[3] == f4.w;
        correct += ok as c_int;
        println!(
            "f4: sent ({:.6}, {:.6}, {:.6}, {:.6}), received ({:.6}, {:.6}, {:.6}, {:.6}): {}",
            f4.x,
            f4.y,
            f4.z,
            f4.w,
            received.f4[0],
            received.f4[1],
            received.f4[2],
            received.f4[3],
            if ok { "ok" } else { "MISMATCH" }
        );
        ok = received.c == c as c_int;
        correct += ok as c_int;
        println!(
            "c: sent {}, received {}: {}",
            c,
            received.c,
            if ok { "ok" } else { "MISMATCH" }
        );
        ok = received.f == f;
        correct += ok as c_int;
        println!(
            "f: sent {:.6}, received {:.6}: {}",
            f,
            received.f,
            if ok { "ok" } else { "MISMATCH" }
        );
        ok = received.devPtr == devPtr && devPtr != 0;
        correct += ok as c_int;
        println!(
            "devPtr: sent {}, received {}: {}",
            p(devPtr as *const c_void),
            p(received.devPtr as *const c_void),
            if ok { "ok" } else { "MISMATCH" }
        );
        ok = received.f2[0] == f2.x && received.f2[1] == f2.y;
        correct += ok as c_int;
        println!(
            "f2: sent ({:.6}, {:.6}), received ({:.6}, {:.6}): {}",
            f2.x,
            f2.y,
            received.f2[0],
            received.f2[1],
            if ok { "ok" } else { "MISMATCH" }
        );
        println!(
            "ParamKernel: {} of 6 parameters received correctly",
            correct
        );
        println!("Result = {}", if correct == 6 { "PASS" } else { "FAIL" });

        check_driver!(cuMemFree(devPtr));
        check_driver!(cuModuleUnload(module));
        check_driver!(cuCtxDestroy(context));
        exit(if correct == 6 { 0 } else { 1 });
    }
}
