//! The library and module groups of the Driver API: a library loaded from memory and from a file,
//! its kernels counted and enumerated with their names, parameters, attributes and library; a
//! device global and a managed variable read and written through the library, a kernel launched
//! to check them; the library's module; then the module group: a module loaded from a file, from
//! memory and with JIT options, its functions counted and enumerated, its global, the loading mode,
//! two PTX inputs linked into a cubin (cuLinkCreate, cuLinkAddData, cuLinkAddFile, cuLinkComplete)
//! which is loaded as a module and as a fat binary, its kernel launched from each and its output
//! checked. The attribute set on each kernel is read back; before the doubling kernel, a kernel
//! sets the managed value to 10 after 200 ms (late_fill), so that the host, were it not to
//! synchronize, would certainly read the value before either. cuKernelGetParamCount (CUDA 13.2
//! headers) is looked up with the typed cuGetProcAddress (`entry`): where the driver has none, the
//! program prints what its lookup answered. C twin: library.cpp.
//! Kernels: examples/kernels/library.ptx (from library.cu), ptx_link0.ptx, ptx_link1.ptx and
//! late_write.ptx; argv[1] is the kernels folder.
#![allow(clippy::needless_range_loop)] // C's index loops, as the twin writes them

#[path = "common/mod.rs"]
mod common;

use std::ffi::{c_char, c_int, c_uint, c_void};
use std::mem::size_of;
use std::process::exit;
use std::ptr;

#[cfg(feature = "cuda-13020")]
use common::show_missing;
use common::{c_path, check, expect, expect_all, finish, get_function, kernel_file, load_module};
use common::{primary_context, s, show};
use cuda_driver_sys::*;

/// The inputs of the linked kernel, one thread each.
const LINKED: usize = 256;
/// How long the kernel that sets the managed value waits before it writes: far longer than the
/// host takes to read the value after a call that did not wait for it.
const LATE_NS: u64 = 200_000_000;

/// The whole file at `path`, NUL-terminated (PTX is text); just the NUL where it cannot be read.
fn read_file(path: &std::path::Path) -> Vec<u8> {
    let mut text = std::fs::read(path).unwrap_or_default();
    text.push(0);
    text
}

/// Launches add_values(out, 5) and prints what it computed.
unsafe fn add_values(f: CUfunction, mut out: CUdeviceptr) -> c_int {
    unsafe {
        let mut k: c_int = 5;
        let mut args: [*mut c_void; 2] = [&raw mut out as *mut c_void, &raw mut k as *mut c_void];
        check!(cuLaunchKernel(
            f,
            1,
            1,
            1,
            1,
            1,
            1,
            0,
            ptr::null_mut(),
            args.as_mut_ptr(),
            ptr::null_mut(),
        ));
        let mut value: c_int = 0;
        check!(cuMemcpyDtoH(
            &raw mut value as *mut c_void,
            out,
            size_of::<c_int>()
        ));
        println!("  add_values(5) = {}", value);
        value
    }
}

/// Launches LinkedKernel of `module` on the LINKED floats at `input` (0, 1, 2, ...), its outputs
/// at `output`; how many outputs are 2 x + 1 of their input x (none where the launch fails).
unsafe fn run_linked(module: CUmodule, mut input: CUdeviceptr, mut output: CUdeviceptr) -> usize {
    unsafe {
        let mut f: CUfunction = ptr::null_mut();
        let mut n = LINKED as c_int;
        let mut values = [0f32; LINKED];
        if check!(cuModuleGetFunction(
            &mut f,
            module,
            c"LinkedKernel".as_ptr()
        )) {
            let mut args: [*mut c_void; 3] = [
                (&raw mut input).cast(),
                (&raw mut output).cast(),
                (&raw mut n).cast(),
            ];
            check!(cuLaunchKernel(
                f,
                1,
                1,
                1,
                LINKED as c_uint,
                1,
                1,
                0,
                ptr::null_mut(),
                args.as_mut_ptr(),
                ptr::null_mut(),
            ));
            check!(cuMemcpyDtoH(
                values.as_mut_ptr() as *mut c_void,
                output,
                size_of::<[f32; LINKED]>()
            ));
        }
        (0..LINKED)
            .filter(|&i| values[i] == 2.0 * i as f32 + 1.0)
            .count()
    }
}

fn main() {
    unsafe {
        let ptx_file = kernel_file("library.ptx");
        let ptx_path = c_path(ptx_file.clone());
        let link0_file = kernel_file("ptx_link0.ptx");
        let link1_path = c_path(kernel_file("ptx_link1.ptx"));

        if !check!(cuInit(0)) {
            exit(1);
        }
        let Some((device, _)) = primary_context() else {
            finish();
        };
        let ptx = read_file(&ptx_file);
        expect(ptx.len() > 1, "library.ptx read");
        if ptx.len() <= 1 {
            finish();
        }
        let ptx_ptr = ptx.as_ptr() as *const c_void;

        // The library group.
        let mut library: CUlibrary = ptr::null_mut();
        let mut from_file: CUlibrary = ptr::null_mut();
        if !check!(cuLibraryLoadData(
            &mut library,
            ptx_ptr,
            ptr::null_mut(),
            ptr::null_mut(),
            0,
            ptr::null_mut(),
            ptr::null_mut(),
            0,
        )) {
            finish();
        }
        let mut jit_options: [CUjit_option; 1] = [CU_JIT_OPTIMIZATION_LEVEL];
        let mut jit_values: [*mut c_void; 1] = [3usize as *mut c_void];
        check!(cuLibraryLoadFromFile(
            &mut from_file,
            ptx_path.as_ptr(),
            jit_options.as_mut_ptr(),
            jit_values.as_mut_ptr(),
            1,
            ptr::null_mut(),
            ptr::null_mut(),
            0,
        ));
        let mut count: c_uint = 0;
        check!(cuLibraryGetKernelCount(&mut count, library));
        println!("library: {} kernels", count);
        let mut kernels: [CUkernel; 8] = [ptr::null_mut(); 8];
        if count > 8 {
            count = 8;
        }
        check!(cuLibraryEnumerateKernels(
            kernels.as_mut_ptr(),
            count,
            library
        ));
        for k in 0..count as usize {
            let mut name: *const c_char = ptr::null();
            check!(cuKernelGetName(&mut name, kernels[k]));
            println!("  kernel {}", s(name));
            let mut i: usize = 0;
            loop {
                let (mut offset, mut size): (usize, usize) = (0, 0);
                if cuKernelGetParamInfo(kernels[k], i, &mut offset, &mut size) != CUDA_SUCCESS {
                    println!("  cuKernelGetParamInfo: {} parameters", i);
                    break;
                }
                println!("  parameter {}: offset {}, size {}", i, offset, size);
                i += 1;
            }
            #[cfg(feature = "cuda-13020")]
            {
                let mut params: usize = 0;
                match entry::cuKernelGetParamCount_v13020.get() {
                    Ok(get_param_count) => {
                        let code = get_param_count(kernels[k], &mut params);
                        if show("cuKernelGetParamCount", code) {
                            println!("  count = {}", params);
                        }
                    }
                    Err(e) => show_missing("cuKernelGetParamCount", e),
                }
            }
            let mut owner: CUlibrary = ptr::null_mut();
            check!(cuKernelGetLibrary(&mut owner, kernels[k]));
            expect(owner == library, "the kernel's library");
            let mut threads: c_int = 0;
            check!(cuKernelGetAttribute(
                &mut threads,
                CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
                kernels[k],
                device,
            ));
            println!("  {} threads per block at most", threads);
            check!(cuKernelSetAttribute(
                CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                1024,
                kernels[k],
                device,
            ));
            let mut shared: c_int = 0;
            check!(cuKernelGetAttribute(
                &mut shared,
                CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                kernels[k],
                device,
            ));
            expect(shared == 1024, "the kernel's dynamic shared memory set");
            check!(cuKernelSetCacheConfig(
                kernels[k],
                CU_FUNC_CACHE_PREFER_L1,
                device
            ));
        }
        let mut add_kernel: CUkernel = ptr::null_mut();
        let mut double_kernel: CUkernel = ptr::null_mut();
        check!(cuLibraryGetKernel(
            &mut add_kernel,
            library,
            c"add_values".as_ptr()
        ));
        check!(cuLibraryGetKernel(
            &mut double_kernel,
            library,
            c"double_managed".as_ptr()
        ));
        let missing = cuLibraryGetKernel(&mut double_kernel, library, c"missing".as_ptr());
        expect(
            !show("cuLibraryGetKernel(missing)", missing),
            "no kernel of a name the library lacks",
        );
        check!(cuLibraryGetKernel(
            &mut double_kernel,
            library,
            c"double_managed".as_ptr()
        ));

        let (mut global, mut managed): (CUdeviceptr, CUdeviceptr) = (0, 0);
        let mut bytes: usize = 0;
        check!(cuLibraryGetGlobal(
            &mut global,
            &mut bytes,
            library,
            c"device_value".as_ptr()
        ));
        println!("  device_value: {} bytes", bytes);
        let mut value: c_int = 0;
        let value_ptr = &raw mut value as *mut c_void;
        check!(cuMemcpyDtoH(value_ptr, global, size_of::<c_int>()));
        println!("  device_value = {}", value);
        expect(value == 42, "device_value's initial value");
        value = 100;
        check!(cuMemcpyHtoD(global, value_ptr, size_of::<c_int>()));
        check!(cuLibraryGetManaged(
            &mut managed,
            &mut bytes,
            library,
            c"managed_value".as_ptr()
        ));
        let managed_ptr = managed as *const c_int;
        println!(
            "  managed_value: {} bytes, = {} on the host",
            bytes,
            managed_ptr.read_volatile()
        );
        expect(
            managed_ptr.read_volatile() == 7,
            "managed_value's initial value",
        );
        let mut unified: *mut c_void = ptr::null_mut();
        show(
            "cuLibraryGetUnifiedFunction",
            cuLibraryGetUnifiedFunction(&mut unified, library, c"add_values".as_ptr()),
        );
        let mut out: CUdeviceptr = 0;
        check!(cuMemAlloc(&mut out, size_of::<c_int>()));
        let mut add_function: CUfunction = ptr::null_mut();
        let mut double_function: CUfunction = ptr::null_mut();
        check!(cuKernelGetFunction(&mut add_function, add_kernel));
        expect(
            add_values(add_function, out) == 100 + 7 + 5,
            "add_values through the library's kernel",
        );
        check!(cuKernelGetFunction(&mut double_function, double_kernel));
        // Loaded now: loaded at its launch, the doubling could wait on the host for the kernel
        // before it, as the synchronization is to.
        check!(cuFuncLoad(double_function));
        // The managed value set to 10 late, then doubled: without the synchronization the host
        // would read it long before either.
        let late = load_module("late_write.ptx");
        let late_fill = get_function(late, c"late_fill");
        let (mut target, mut one, mut ten, mut ns): (CUdeviceptr, c_uint, c_uint, u64) =
            (managed, 1, 10, LATE_NS);
        let mut late_args: [*mut c_void; 4] = [
            (&raw mut target).cast(),
            (&raw mut one).cast(),
            (&raw mut ten).cast(),
            (&raw mut ns).cast(),
        ];
        check!(cuLaunchKernel(
            late_fill,
            1,
            1,
            1,
            1,
            1,
            1,
            0,
            ptr::null_mut(),
            late_args.as_mut_ptr(),
            ptr::null_mut(),
        ));
        check!(cuLaunchKernel(
            double_function,
            1,
            1,
            1,
            1,
            1,
            1,
            0,
            ptr::null_mut(),
            ptr::null_mut(),
            ptr::null_mut(),
        ));
        check!(cuCtxSynchronize());
        println!(
            "  managed_value = {} on the host after double_managed",
            managed_ptr.read_volatile()
        );
        expect(
            managed_ptr.read_volatile() == 20,
            "managed_value set late, then doubled",
        );
        let mut library_module: CUmodule = ptr::null_mut();
        check!(cuLibraryGetModule(&mut library_module, library));
        let mut through_module: CUfunction = ptr::null_mut();
        check!(cuModuleGetFunction(
            &mut through_module,
            library_module,
            c"add_values".as_ptr()
        ));
        expect(
            add_values(through_module, out) == 100 + 20 + 5,
            "add_values through the library's module",
        );

        // The module group.
        let mut loaded: CUmodule = ptr::null_mut();
        let mut from_data: CUmodule = ptr::null_mut();
        let mut with_options: CUmodule = ptr::null_mut();
        check!(cuModuleLoad(&mut loaded, ptx_path.as_ptr()));
        check!(cuModuleLoadData(&mut from_data, ptx_ptr));
        let mut log = [0 as c_char; 4096];
        let mut options: [CUjit_option; 3] = [
            CU_JIT_INFO_LOG_BUFFER,
            CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
            CU_JIT_OPTIMIZATION_LEVEL,
        ];
        let mut values: [*mut c_void; 3] = [
            log.as_mut_ptr() as *mut c_void,
            size_of::<[c_char; 4096]>() as *mut c_void,
            2usize as *mut c_void,
        ];
        check!(cuModuleLoadDataEx(
            &mut with_options,
            ptx_ptr,
            3,
            options.as_mut_ptr(),
            values.as_mut_ptr(),
        ));
        let mut functions: c_uint = 0;
        check!(cuModuleGetFunctionCount(&mut functions, loaded));
        println!("module: {} functions", functions);
        let mut listed: [CUfunction; 8] = [ptr::null_mut(); 8];
        if functions > 8 {
            functions = 8;
        }
        check!(cuModuleEnumerateFunctions(
            listed.as_mut_ptr(),
            functions,
            loaded
        ));
        for i in 0..functions as usize {
            let mut name: *const c_char = ptr::null();
            check!(cuFuncGetName(&mut name, listed[i]));
            println!("  function {}", s(name));
        }
        let mut module_global: CUdeviceptr = 0;
        check!(cuModuleGetGlobal(
            &mut module_global,
            &mut bytes,
            loaded,
            c"device_value".as_ptr(),
        ));
        check!(cuMemcpyDtoH(value_ptr, module_global, size_of::<c_int>()));
        println!(
            "  device_value: {} bytes, = {} in this module",
            bytes, value
        );
        expect(value == 42, "device_value in another module");
        let mut mode = CU_MODULE_EAGER_LOADING;
        check!(cuModuleGetLoadingMode(&mut mode));
        println!(
            "loading mode: {}",
            if mode == CU_MODULE_LAZY_LOADING {
                "lazy"
            } else {
                "eager"
            }
        );

        // Two relocatable PTX inputs linked into one cubin, loaded as a module and as a fat binary,
        // its kernel launched from each.
        let inputs: Vec<f32> = (0..LINKED).map(|i| i as f32).collect();
        let (mut linked_in, mut linked_out): (CUdeviceptr, CUdeviceptr) = (0, 0);
        check!(cuMemAlloc(&mut linked_in, LINKED * size_of::<f32>()));
        check!(cuMemAlloc(&mut linked_out, 2 * LINKED * size_of::<f32>()));
        check!(cuMemcpyHtoD(
            linked_in,
            inputs.as_ptr() as *const c_void,
            LINKED * size_of::<f32>()
        ));
        let linked_out_fat = linked_out + (LINKED * size_of::<f32>()) as CUdeviceptr;
        let mut link0 = read_file(&link0_file);
        let mut link: CUlinkState = ptr::null_mut();
        let mut cubin: *mut c_void = ptr::null_mut();
        let mut cubin_size: usize = 0;
        check!(cuLinkCreate(0, ptr::null_mut(), ptr::null_mut(), &mut link));
        check!(cuLinkAddData(
            link,
            CU_JIT_INPUT_PTX,
            link0.as_mut_ptr() as *mut c_void,
            link0.len(),
            c"ptx_link0.ptx".as_ptr(),
            0,
            ptr::null_mut(),
            ptr::null_mut(),
        ));
        check!(cuLinkAddFile(
            link,
            CU_JIT_INPUT_PTX,
            link1_path.as_ptr(),
            0,
            ptr::null_mut(),
            ptr::null_mut(),
        ));
        if check!(cuLinkComplete(link, &mut cubin, &mut cubin_size)) {
            let elf =
                cubin_size > 4 && std::slice::from_raw_parts(cubin as *const u8, 4) == b"\x7fELF";
            expect(elf, "the linker's output is a cubin");
            let mut linked: CUmodule = ptr::null_mut();
            let mut fat: CUmodule = ptr::null_mut();
            if check!(cuModuleLoadData(&mut linked, cubin)) {
                expect_all(
                    "the linked cubin's kernel, loaded as a module: outputs 2 x + 1",
                    run_linked(linked, linked_in, linked_out),
                    LINKED,
                );
                check!(cuModuleUnload(linked));
            }
            let fat_loaded = show(
                "cuModuleLoadFatBinary(cubin)",
                cuModuleLoadFatBinary(&mut fat, cubin),
            );
            expect(fat_loaded, "the cubin loaded as a fat binary");
            if fat_loaded {
                expect_all(
                    "the linked cubin's kernel, loaded as a fat binary: outputs 2 x + 1",
                    run_linked(fat, linked_in, linked_out_fat),
                    LINKED,
                );
                check!(cuModuleUnload(fat));
            }
        }
        check!(cuLinkDestroy(link));
        let mut fat_ptx: CUmodule = ptr::null_mut();
        if show(
            "cuModuleLoadFatBinary(PTX)",
            cuModuleLoadFatBinary(&mut fat_ptx, ptx_ptr),
        ) {
            check!(cuModuleUnload(fat_ptx));
        }

        check!(cuMemFree(linked_out));
        check!(cuMemFree(linked_in));
        check!(cuMemFree(out));
        check!(cuModuleUnload(late));
        check!(cuModuleUnload(with_options));
        check!(cuModuleUnload(from_data));
        check!(cuModuleUnload(loaded));
        check!(cuLibraryUnload(from_file));
        check!(cuLibraryUnload(library));
        check!(cuDevicePrimaryCtxRelease(device));
        finish()
    }
}
