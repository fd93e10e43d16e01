// Ports 000_c1fa1a8379f4e9c9.txt, section 1.2 (初始化和检查), second program: the checkDriver macro /
// __check_cuda_driver function (cuGetErrorName, cuGetErrorString), then cuInit, cuDriverGetVersion
// and cuDeviceGetName through it. C twin: check_driver.cpp.
//
// The post's macro and function are `cuda_check::check_driver!`: it evaluates the CUresult
// expression once, and when it is not CUDA_SUCCESS prints
//   "%s:%d  %s failed. \n  code = %s, message = %s\n"
// with the file, the line, the expression's text, cuGetErrorName and cuGetErrorString, and returns
// false; else true.

#[path = "common/mod.rs"]
mod common;

use std::ffi::{c_char, c_int};
use std::process::exit;

use common::s;
use cuda_check::check_driver;
// CUDA driver API (cuda.h)
use cuda_driver_sys::*;

fn main() {
    unsafe {
        // check the driver's initialisation (check_driver! calls cuGetErrorName / cuGetErrorString)
        check_driver!(cuInit(0));

        // the CUDA driver version
        let mut driver_version: c_int = 0;
        if !check_driver!(cuDriverGetVersion(&mut driver_version)) {
            exit(-1);
        }
        println!("Driver version is {}", driver_version);

        // the current device's name
        let mut device_name = [0 as c_char; 100]; // guard: the post leaves it uninitialised; when cuDeviceGetName fails (no GPU) it is printed as it is
        let device: CUdevice = 0;
        check_driver!(cuDeviceGetName(
            device_name.as_mut_ptr(),
            size_of_val(&device_name) as c_int,
            device,
        ));
        println!("Device {} name is {}", device, s(device_name.as_ptr()));
    }
}
