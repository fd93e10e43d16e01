// Ports 000_c1fa1a8379f4e9c9.txt, section 1.2 (初始化和检查), first program: cuInit with its error
// reported through cuGetErrorString, cuDriverGetVersion, cuDeviceGetName. As in the post; only
// comments shortened. C twin: driver_init.cpp.
#![allow(unused_assignments)] // as in C, `code` receives results that are not all read

#[path = "common/mod.rs"]
mod common;

use std::ffi::{c_char, c_int};
use std::process::exit;
use std::ptr;

use common::s;
// CUDA driver API (cuda.h)
use cuda_driver_sys::*;

fn main() {
    unsafe {
        /*
        cuInit(int flags): flags must be 0 for now.
            Every other driver API call returns CUDA_ERROR_NOT_INITIALIZED until cuInit succeeded. */
        let mut code: CUresult = cuInit(0); // CUresult: receives the error code
        if code != CUresult::CUDA_SUCCESS {
            let mut err_message: *const c_char = ptr::null();
            // the error code's description
            let _ = cuGetErrorString(code, &mut err_message);
            // let _ = cuGetErrorName(code, &mut err_message); // or its name
            println!(
                "Initialize failed. code = {}, message = {}",
                code.0,
                s(err_message)
            );
            exit(-1);
        }
        // the CUDA driver version, e.g. 11020 for 11.2
        let mut driver_version: c_int = 0;
        code = cuDriverGetVersion(&mut driver_version);
        println!("CUDA Driver version is {}", driver_version);

        // the current device's name
        let mut device_name = [0 as c_char; 100]; // char array
        let device: CUdevice = 0;
        code = cuDeviceGetName(
            device_name.as_mut_ptr(),
            size_of_val(&device_name) as c_int,
            device,
        ); // e.g. Tesla V100-SXM2-32GB
        println!("Device {} name is {}", device, s(device_name.as_ptr()));
    }
}
