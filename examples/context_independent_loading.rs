// Ports 004_3d21536251275226.txt (CUDA 12.0 context-independent loading): first the
// context-dependent way, the post's "library code" that keeps a CUcontext -> CUmodule map and loads
// the module with cuModuleLoad into every new context (cuCtxGetCurrent, cuModuleLoad,
// cuModuleGetFunction, cuLaunchKernel); then the context-independent way (cuLibraryLoadFromFile
// and cuLibraryGetKernel once, the CUkernel launched in each device's primary context,
// cuLibraryUnload); then a __managed__ variable through cuLibraryGetManaged, one variable for all
// contexts and devices. C twin: context_independent_loading.cpp.
// The post's "application code" retains the primary context of device 0 and of device 1; here that
// is done for every device present (cuDeviceGetCount), and libraryFunc is called twice per device
// so that the map is seen to work. Typos fixed: cuModuleGetFuntion is cuModuleGetFunction; the
// CUkernel is launched as a CUfunction (the post writes (CUkernel)kernel). Completed:
// "myModule.cubin" is examples/kernels/context_independent_loading.ptx (or under argv[1]); the
// post's "…" launch arguments; each launch's output checked on the host (launchAndCheck); the
// primary contexts made current with cuCtxSetCurrent (the post only retains them; libraryFunc works
// on the current context) and released after each part; the modules of the map unloaded in
// libraryDeinitialize (the post only clears the map). API calls use check_driver! (000 §1.2).
// The post's C++ namespaces are modules here, its globals statics (see each).
#![allow(non_snake_case, non_upper_case_globals)] // the post's names: libraryFunc, moduleContextMap, ...
#![allow(clippy::needless_range_loop)] // C's `for (int i = 0; i < N; ++i)` loops, as written

#[path = "common/mod.rs"]
mod common;

use std::ffi::{c_int, c_uint, c_void, CString, OsStr, OsString};
use std::sync::OnceLock;

use common::{c_path, kernel_path, p};
use cuda_check::check_driver;
use cuda_driver_sys::*;

static modulePath: OnceLock<CString> = OnceLock::new(); // the post's "myModule.cubin"
const N: c_int = 256;

// completion: the post's "cuLaunchKernel(function, …)": launch myKernel in the current context
// (data[i] = value + i for N elements, launch_count += 1) and check what it wrote
unsafe fn launchAndCheck(function: CUfunction, mut value: c_int) -> bool {
    unsafe {
        let mut d_data: CUdeviceptr = 0;
        check_driver!(cuMemAlloc(&mut d_data, N as usize * size_of::<c_int>()));
        let mut n: c_int = N;
        let mut args: [*mut c_void; 3] = [
            &raw mut d_data as *mut c_void,
            &raw mut n as *mut c_void,
            &raw mut value as *mut c_void,
        ];
        check_driver!(cuLaunchKernel(
            function,
            1,
            1,
            1,
            N as c_uint,
            1,
            1,
            0,
            std::ptr::null_mut(),
            args.as_mut_ptr(),
            std::ptr::null_mut(),
        ));
        let mut h_data = [0 as c_int; N as usize];
        for i in 0..N as usize {
            h_data[i] = -1; // no value the kernel writes
        }
        check_driver!(cuMemcpyDtoH(
            h_data.as_mut_ptr() as *mut c_void,
            d_data,
            size_of_val(&h_data),
        ));
        check_driver!(cuMemFree(d_data));
        let mut correct: c_int = 0;
        for i in 0..N {
            if h_data[i as usize] == value + i {
                correct += 1;
            }
        }
        println!(
            "    myKernel(value = {}): {} of {} values correct",
            value, correct, N
        );
        correct == N
    }
}

// Context-dependent loading: the library has to track the contexts it has loaded its module into
mod context_dependent {
    use std::cell::RefCell;
    use std::collections::BTreeMap;
    use std::ffi::c_int;
    use std::ptr;

    use super::common::p;
    use super::{launchAndCheck, modulePath};
    use cuda_check::check_driver;
    use cuda_driver_sys::*;

    // The post's global std::map, ordered by context address as std::map is. Thread-local: a
    // CUcontext is current per thread, and a Rust static must be shareable between threads. Each
    // function works on it as `map`.
    thread_local! {
        static moduleContextMap: RefCell<BTreeMap<CUcontext, CUmodule>> = const { RefCell::new(BTreeMap::new()) };
    }

    pub fn libraryInitialize() {
        moduleContextMap.with_borrow_mut(|map| map.clear());
    }

    #[allow(clippy::map_entry)] // the post's lookup, then insertion
    pub unsafe fn libraryFunc(value: c_int) -> bool {
        unsafe {
            let mut ctx: CUcontext = ptr::null_mut();
            let mut module: CUmodule = ptr::null_mut();
            let mut function: CUfunction = ptr::null_mut();
            check_driver!(cuCtxGetCurrent(&mut ctx));
            moduleContextMap.with_borrow_mut(|map| {
                if !map.contains_key(&ctx) {
                    // the post: !moduleContextMap.contains(ctx) (C++20)
                    check_driver!(cuModuleLoad(
                        &mut module,
                        modulePath.get().unwrap().as_ptr()
                    ));
                    map.insert(ctx, module);
                    println!("    libraryFunc: module loaded into context {}", p(ctx));
                } else {
                    module = map[&ctx];
                    println!(
                        "    libraryFunc: module of context {} found in the map",
                        p(ctx)
                    );
                }
            });
            check_driver!(cuModuleGetFunction(
                &mut function,
                module,
                c"myKernel".as_ptr()
            ));
            launchAndCheck(function, value)
        }
    }

    pub unsafe fn libraryDeinitialize() {
        unsafe {
            moduleContextMap.with_borrow_mut(|map| {
                // added: unload every module in its own context (the post only clears the map)
                for (&ctx, &module) in map.iter() {
                    check_driver!(cuCtxPushCurrent(ctx));
                    check_driver!(cuModuleUnload(module));
                    check_driver!(cuCtxPopCurrent(ptr::null_mut()));
                }
                map.clear();
            });
        }
    }
}

// Context-independent loading (CUDA 12.0): the driver loads the library into every context
mod context_independent {
    use std::ffi::c_int;
    use std::ptr;

    use super::{launchAndCheck, modulePath};
    use cuda_check::check_driver;
    use cuda_driver_sys::*;

    // The post's globals: written and read by value only (through `&raw mut` for the driver to
    // write them), never borrowed.
    pub static mut library: CUlibrary = ptr::null_mut();
    pub static mut kernel: CUkernel = ptr::null_mut();

    pub unsafe fn libraryInitialize() {
        unsafe {
            check_driver!(cuLibraryLoadFromFile(
                &raw mut library,
                modulePath.get().unwrap().as_ptr(),
                ptr::null_mut(),
                ptr::null_mut(),
                0,
                ptr::null_mut(),
                ptr::null_mut(),
                0,
            ));
            check_driver!(cuLibraryGetKernel(
                &raw mut kernel,
                library,
                c"myKernel".as_ptr()
            ));
        }
    }

    pub unsafe fn libraryFunc(value: c_int) -> bool {
        unsafe {
            launchAndCheck(kernel as CUfunction, value) // the post: cuLaunchKernel((CUkernel)kernel, …)
        }
    }

    pub unsafe fn libraryDeinitialize() {
        unsafe {
            check_driver!(cuLibraryUnload(library));
        }
    }
}

fn main() {
    unsafe {
        // completion: the module file (argv[1] is the folder of the kernels), the devices
        let argv: Vec<OsString> = std::env::args_os().collect();
        let kernels_dir = if argv.len() > 1 {
            argv[1].as_os_str()
        } else {
            OsStr::new("examples/kernels")
        };
        modulePath
            .set(c_path(kernel_path(
                kernels_dir,
                "context_independent_loading.ptx",
            )))
            .unwrap();
        check_driver!(cuInit(0));
        let mut deviceCount: c_int = 0;
        check_driver!(cuDeviceGetCount(&mut deviceCount));
        println!("{} device(s)", deviceCount);
        let mut pass = deviceCount > 0;

        println!("Context-dependent loading (cuModuleLoad into each context):");
        // Application code
        context_dependent::libraryInitialize();
        for i in 0..deviceCount {
            let mut device: CUdevice = 0;
            let mut ctx: CUcontext = std::ptr::null_mut();
            check_driver!(cuDeviceGet(&mut device, i));
            check_driver!(cuDevicePrimaryCtxRetain(&mut ctx, device));
            check_driver!(cuCtxSetCurrent(ctx));
            println!("  device {}, primary context {}:", i, p(ctx));
            pass = context_dependent::libraryFunc(1000 * i) && pass;
            pass = context_dependent::libraryFunc(1000 * i + 1) && pass;
        }
        context_dependent::libraryDeinitialize();
        for i in 0..deviceCount {
            let mut device: CUdevice = 0;
            check_driver!(cuDeviceGet(&mut device, i));
            check_driver!(cuDevicePrimaryCtxRelease(device));
        }

        println!("Context-independent loading (cuLibraryLoadFromFile, CUkernel):");
        // Application code
        context_independent::libraryInitialize();
        for i in 0..deviceCount {
            let mut device: CUdevice = 0;
            let mut ctx: CUcontext = std::ptr::null_mut();
            check_driver!(cuDeviceGet(&mut device, i));
            check_driver!(cuDevicePrimaryCtxRetain(&mut ctx, device));
            check_driver!(cuCtxSetCurrent(ctx));
            println!("  device {}, primary context {}:", i, p(ctx));
            pass = context_independent::libraryFunc(1000 * i) && pass;
            pass = context_independent::libraryFunc(1000 * i + 1) && pass;
        }

        // Accessing __managed__ variables: one launch_count for the library, in every context and device
        let mut managed: CUdeviceptr = 0;
        let mut bytes: usize = 0;
        check_driver!(cuLibraryGetManaged(
            &mut managed,
            &mut bytes,
            context_independent::library,
            c"launch_count".as_ptr(),
        ));
        println!(
            "cuLibraryGetManaged(\"launch_count\"): {} bytes at {}",
            bytes,
            p(managed as *const c_void)
        );
        let mut launch_count: c_int = 0;
        if managed != 0 {
            // guard: null when the library was not loaded (no GPU)
            launch_count = *(managed as *const c_int);
        }
        println!(
            "launch_count = {} (expected {}: two launches on each of {} device(s))",
            launch_count,
            2 * deviceCount,
            deviceCount
        );
        pass = pass && launch_count == 2 * deviceCount;

        context_independent::libraryDeinitialize();
        for i in 0..deviceCount {
            let mut device: CUdevice = 0;
            check_driver!(cuDeviceGet(&mut device, i));
            check_driver!(cuDevicePrimaryCtxRelease(device));
        }
        println!("Result = {}", if pass { "PASS" } else { "FAIL" });
        std::process::exit(if pass { 0 } else { 1 });
    }
}
