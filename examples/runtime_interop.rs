// Ports 001_690d02e65a5330ea.txt, L.4 (Interoperability between Runtime and Driver APIs): a
// context created with the driver API and made current is picked up by the runtime; once the
// runtime is initialised, cuCtxGetCurrent gives the context it created, the primary context;
// device memory allocated with either API is used and freed through the other, CUdeviceptr cast
// to float* and back; and L.5.3.2 (Driver Function Retrieval, using the runtime API):
// cudaGetDriverEntryPoint("cuMemAllocAsync") into a PFN_cuMemAllocAsync, called, with the
// cudaEnableLegacyStream / cudaEnablePerThreadDefaultStream flags of L.5.3.3. C twin:
// runtime_interop.cpp.
// The post's lines are kept as written; completed where the post leaves out what a program needs:
// initialisation and device 0, a runtime call in the driver's context and its checks (which
// context cuCtxGetCurrent gives, which context owns the runtime's allocation, which device the
// runtime reports), the runtime's initialisation (cudaFree(0)) and the primary context compared
// with cuDevicePrimaryCtxRetain's, N and the input values, the vector_add kernel
// (examples/kernels/vector_add.ptx, or <argv[1]>/vector_add.ptx) launched on the memory of both
// APIs and every element checked, the entry point compared with cuGetProcAddress at the runtime's
// version, the freeing, the printing, and the checks of what the appendix says (Result line).
// The runtime calls use check_runtime! (common/cudart.rs), the runtime's form of check_driver!.
// Changes from the post are marked "post:". The runtime is the CUDA 12.0 libcudart.so.12, whatever
// the cuda.h: from CUDA 12.0 on cudaGetDriverEntryPoint takes a fourth argument,
// cudaDriverEntryPointQueryResult *driverStatus, passed below and printed. The runtime functions
// are declared in common/cudart.rs (not in cuda-driver-sys, which is the driver API).
// CUDA 13.0 headers (marked below): cuCtxCreate becomes cuCtxCreate_v4, which takes a
// CUctxCreateParams* (NULL: none) before the flags, and cudaTypedefs.h no longer defines the
// unversioned PFN_cuMemAllocAsync (PFN_cuMemAllocAsync_v11020 is the same type).
#![allow(non_snake_case)] // the post's names: devPtr, d_data, pfn_cuMemAllocAsync, ...
#![allow(non_upper_case_globals)] // matched as in C: cudaDriverEntryPointSuccess, ...
#![allow(clippy::needless_range_loop)] // C's `for (int i = 0; i < N; ++i)` loops, as written

#[path = "common/mod.rs"]
mod common;
#[path = "common/cudart.rs"]
mod cudart;

use std::ffi::{c_int, c_uint, c_ulonglong, c_void, OsStr, OsString};
use std::process::exit;
use std::ptr;

use common::{c_path, kernel_path, p, pfn_ptr};
use cuda_check::check_driver;
use cuda_driver_sys::*;
use cudart::*;

// completion: prints what one cudaGetDriverEntryPoint call gave
unsafe fn printEntryPoint(
    what: &str,
    code: cudaError_t,
    driverStatus: cudaDriverEntryPointQueryResult,
    pfn: *mut c_void,
) {
    unsafe {
        let mut status = "?";
        match driverStatus {
            cudaDriverEntryPointSuccess => status = "cudaDriverEntryPointSuccess",
            cudaDriverEntryPointSymbolNotFound => status = "cudaDriverEntryPointSymbolNotFound",
            cudaDriverEntryPointVersionNotSufficent => {
                status = "cudaDriverEntryPointVersionNotSufficent"
            }
            _ => {}
        }
        println!(
            "{}: {}, {}, pfn = {}",
            what,
            common::s(cudaGetErrorName(code)),
            status,
            p(pfn)
        );
    }
}

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
        let mut pass = true;
        // completion: the CUDA runtime library, loaded here: the C twin is linked against it, and the
        // loader loads it before main (common/cudart.rs says where it is looked for)
        if let Err(message) = cudart::load() {
            eprintln!("{message}");
            exit(1);
        }

        // completion: the driver API initialised, device 0
        check_driver!(cuInit(0));
        let mut device: CUdevice = 0;
        check_driver!(cuDeviceGet(&mut device, 0));

        // L.4 "If a context is created and made current via the driver API, subsequent runtime calls
        // will pick up this context instead of creating a new one."
        let mut ctx: CUcontext = ptr::null_mut();
        #[cfg(not(feature = "cuda-13000"))]
        check_driver!(cuCtxCreate(&mut ctx, 0, device)); // created and made current
        #[cfg(feature = "cuda-13000")] // CUDA 13: cuCtxCreate is cuCtxCreate_v4, a CUctxCreateParams* (NULL: none) before the flags
        check_driver!(cuCtxCreate(&mut ctx, ptr::null_mut(), 0, device)); // created and made current
        println!("ctx = {}", p(ctx));
        // completion: a runtime call, then which context is current, which owns its memory, which device
        let mut d_probe: *mut f32 = ptr::null_mut();
        check_runtime!(cudaMalloc(
            &mut d_probe as *mut *mut f32 as *mut *mut c_void,
            256
        ));
        let mut runtimeDevice: c_int = -1;
        check_runtime!(cudaGetDevice(&mut runtimeDevice));
        let mut current: CUcontext = ptr::null_mut();
        check_driver!(cuCtxGetCurrent(&mut current));
        let mut owner: CUcontext = ptr::null_mut();
        check_driver!(cuPointerGetAttribute(
            &mut owner as *mut CUcontext as *mut c_void,
            CU_POINTER_ATTRIBUTE_CONTEXT,
            d_probe as CUdeviceptr,
        ));
        println!(
        "after cudaMalloc: current context {} ctx, the allocation's context {} ctx, cudaGetDevice = {}",
        if current == ctx { "==" } else { "!=" },
        if owner == ctx { "==" } else { "!=" },
        runtimeDevice
    );
        pass = pass && !ctx.is_null() && current == ctx && owner == ctx && runtimeDevice == device;
        check_runtime!(cudaFree(d_probe as *mut c_void));
        check_driver!(cuCtxDestroy(ctx));
        check_driver!(cuCtxGetCurrent(&mut current));
        println!("after cuCtxDestroy: current context = {}", p(current));

        // L.4 "If the runtime is initialized, cuCtxGetCurrent() can be used to retrieve the context
        // created during initialization. This context can be used by subsequent driver API calls.
        // Implicitly created contexts from the runtime are called primary contexts."
        check_runtime!(cudaFree(ptr::null_mut())); // completion: the runtime initialised, as usual, by a call that does nothing
        check_driver!(cuCtxGetCurrent(&mut current));
        // completion: the primary context, through the driver API's primary context management
        let mut primary: CUcontext = ptr::null_mut();
        check_driver!(cuDevicePrimaryCtxRetain(&mut primary, device));
        let mut primaryFlags: c_uint = 0;
        let mut primaryActive: c_int = 0;
        check_driver!(cuDevicePrimaryCtxGetState(
            device,
            &mut primaryFlags,
            &mut primaryActive
        ));
        println!(
        "after cudaFree(0): current context {} the primary context (cuDevicePrimaryCtxRetain), active = {}",
        if current == primary { "==" } else { "!=" },
        primaryActive
    );
        pass = pass && !primary.is_null() && current == primary && primaryActive == 1;

        // L.4 "Device memory can be allocated and freed using either API. CUdeviceptr can be cast to
        // regular pointers and vice-versa:"
        // completion: N and the input values, as in vector_add
        let mut N: c_int = 50000;
        let size: usize = N as usize * size_of::<f32>();
        let mut h_A: Vec<f32> = vec![0.0; N as usize]; // malloc(size)
        let mut h_B: Vec<f32> = vec![0.0; N as usize]; // malloc(size)
        let mut h_C: Vec<f32> = vec![0.0; N as usize]; // malloc(size)
        for i in 0..N as usize {
            h_A[i] = i as f32;
            h_B[i] = (2 * i) as f32;
            h_C[i] = -1.0; // no value the kernel writes
        }

        let mut devPtr: CUdeviceptr = 0; // post: uninitialised; 0 so that a failed allocation leaves null
        let mut d_data: *mut f32;

        // Allocation using driver API
        check_driver!(cuMemAlloc(&mut devPtr, size)); // post: unchecked
        d_data = devPtr as *mut f32;
        let d_A: *mut f32 = d_data; // completion: kept, the post reuses devPtr and d_data below

        // Allocation using runtime API
        // post: cudaMalloc(&d_data, size), the template of cuda_runtime.h for float**; here cast to void**
        check_runtime!(cudaMalloc(
            &mut d_data as *mut *mut f32 as *mut *mut c_void,
            size
        )); // post: unchecked
        devPtr = d_data as CUdeviceptr;
        let mut d_B: CUdeviceptr = devPtr; // completion: kept, as d_A

        // completion: one more of the runtime's, for the result
        let mut d_result: *mut f32 = ptr::null_mut();
        check_runtime!(cudaMalloc(
            &mut d_result as *mut *mut f32 as *mut *mut c_void,
            size
        ));
        let mut d_C: CUdeviceptr = d_result as CUdeviceptr;
        println!(
            "d_A = {} (cuMemAlloc), d_B = {} (cudaMalloc), d_C = {} (cudaMalloc)",
            p(d_A),
            p(d_B as *const c_void),
            p(d_C as *const c_void)
        );

        // completion: the runtime writes the driver's memory, the driver writes the runtime's
        check_runtime!(cudaMemcpy(
            d_A as *mut c_void,
            h_A.as_ptr() as *const c_void,
            size,
            cudaMemcpyHostToDevice,
        ));
        check_driver!(cuMemcpyHtoD(d_B, h_B.as_ptr() as *const c_void, size));

        // completion: the vector_add kernel, launched by the driver on the memory of both APIs
        let mut cuModule: CUmodule = ptr::null_mut();
        check_driver!(cuModuleLoad(&mut cuModule, ptx_path.as_ptr()));
        let mut vecAdd: CUfunction = ptr::null_mut();
        check_driver!(cuModuleGetFunction(
            &mut vecAdd,
            cuModule,
            c"VecAdd".as_ptr()
        ));
        let mut d_A_ptr: CUdeviceptr = d_A as CUdeviceptr;
        let threadsPerBlock: c_int = 256;
        let blocksPerGrid: c_int = (N + threadsPerBlock - 1) / threadsPerBlock;
        let mut args: [*mut c_void; 4] = [
            &raw mut d_A_ptr as *mut c_void,
            &raw mut d_B as *mut c_void,
            &raw mut d_C as *mut c_void,
            &raw mut N as *mut c_void,
        ];
        check_driver!(cuLaunchKernel(
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
        ));

        // completion: the driver reads the runtime's memory back; every element checked
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
        pass = pass && correct == N;

        // completion: "freed using either API": each allocation freed by the other API
        check_runtime!(cudaFree(d_A as *mut c_void)); // cuMemAlloc's, freed by the runtime
        check_driver!(cuMemFree(d_B)); // cudaMalloc's, freed by the driver
        check_runtime!(cudaFree(d_result as *mut c_void));
        check_driver!(cuModuleUnload(cuModule));

        // L.5.3.2 Using the runtime API
        {
            // Declare the entry point
            #[cfg(not(feature = "cuda-13000"))]
            let mut pfn_cuMemAllocAsync: PFN_cuMemAllocAsync = None; // post: uninitialised
            #[cfg(feature = "cuda-13000")]
            // CUDA 13: no unversioned PFN_cuMemAllocAsync; the versioned typedef is the same type
            let mut pfn_cuMemAllocAsync: PFN_cuMemAllocAsync_v11020 = None;
            let mut driverStatus: cudaDriverEntryPointQueryResult =
                cudaDriverEntryPointSymbolNotFound;

            // Initialize the entry point. Assuming CUDA runtime version >= 11.2
            // post: cudaGetDriverEntryPoint("cuMemAllocAsync", &pfn_cuMemAllocAsync, cudaEnableDefault);
            // (the CUDA 11 form: here the void** cast, and the driverStatus of CUDA 12)
            let mut code: cudaError_t = cudaGetDriverEntryPoint(
                c"cuMemAllocAsync".as_ptr(),
                &mut pfn_cuMemAllocAsync as *mut _ as *mut *mut c_void,
                cudaEnableDefault.0 as c_ulonglong,
                &mut driverStatus,
            );
            printEntryPoint(
                "cuMemAllocAsync, cudaEnableDefault",
                code,
                driverStatus,
                pfn_ptr(pfn_cuMemAllocAsync),
            );
            pass = pass
                && code == cudaSuccess
                && driverStatus == cudaDriverEntryPointSuccess
                && pfn_cuMemAllocAsync.is_some();

            // Call the entry point
            // post: pfn_cuMemAllocAsync(...); completed: 4 bytes on the default stream, then freed
            let mut dptr: CUdeviceptr = 0;
            if let Some(pfn_cuMemAllocAsync) = pfn_cuMemAllocAsync {
                check_driver!(pfn_cuMemAllocAsync(&mut dptr, 4, ptr::null_mut()));
            }
            println!("dptr = {}", p(dptr as *const c_void));
            pass = pass && dptr != 0;
            check_driver!(cuMemFreeAsync(dptr, ptr::null_mut()));
            check_driver!(cuStreamSynchronize(ptr::null_mut()));

            // completion: the runtime asks the driver for the version of its own CUDA version
            let mut runtimeVersion: c_int = 0;
            check_runtime!(cudaRuntimeGetVersion(&mut runtimeVersion));
            println!("cudaRuntimeGetVersion = {}", runtimeVersion);
            #[cfg(not(feature = "cuda-13000"))]
            let mut pfn_cuMemAllocAsync_driver: PFN_cuMemAllocAsync = None;
            #[cfg(feature = "cuda-13000")]
            let mut pfn_cuMemAllocAsync_driver: PFN_cuMemAllocAsync_v11020 = None;
            let mut symbolStatus: CUdriverProcAddressQueryResult =
                CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
            check_driver!(cuGetProcAddress(
                c"cuMemAllocAsync".as_ptr(),
                &mut pfn_cuMemAllocAsync_driver as *mut _ as *mut *mut c_void,
                runtimeVersion,
                CU_GET_PROC_ADDRESS_DEFAULT.0 as cuuint64_t,
                &mut symbolStatus,
            ));
            println!(
            "cuGetProcAddress(\"cuMemAllocAsync\", runtimeVersion) {} cudaGetDriverEntryPoint's",
            if pfn_ptr(pfn_cuMemAllocAsync_driver) == pfn_ptr(pfn_cuMemAllocAsync) {
                "=="
            } else {
                "!="
            }
        );
            pass = pass && pfn_ptr(pfn_cuMemAllocAsync_driver) == pfn_ptr(pfn_cuMemAllocAsync);

            // L.5.3.3 the flags cudaEnableLegacyStream / cudaEnablePerThreadDefaultStream
            let mut pfn_cuMemAllocAsync_legacy: PFN_cuMemAllocAsync_v11020 = None;
            let mut pfn_cuMemAllocAsync_ptsz: PFN_cuMemAllocAsync_v11020_ptsz = None;
            driverStatus = cudaDriverEntryPointSymbolNotFound;
            code = cudaGetDriverEntryPoint(
                c"cuMemAllocAsync".as_ptr(),
                &mut pfn_cuMemAllocAsync_legacy as *mut _ as *mut *mut c_void,
                cudaEnableLegacyStream.0 as c_ulonglong,
                &mut driverStatus,
            );
            printEntryPoint(
                "cuMemAllocAsync, cudaEnableLegacyStream",
                code,
                driverStatus,
                pfn_ptr(pfn_cuMemAllocAsync_legacy),
            );
            driverStatus = cudaDriverEntryPointSymbolNotFound;
            code = cudaGetDriverEntryPoint(
                c"cuMemAllocAsync".as_ptr(),
                &mut pfn_cuMemAllocAsync_ptsz as *mut _ as *mut *mut c_void,
                cudaEnablePerThreadDefaultStream.0 as c_ulonglong,
                &mut driverStatus,
            );
            printEntryPoint(
                "cuMemAllocAsync, cudaEnablePerThreadDefaultStream",
                code,
                driverStatus,
                pfn_ptr(pfn_cuMemAllocAsync_ptsz),
            );
            println!(
                "per-thread default stream version {} legacy stream version",
                if pfn_ptr(pfn_cuMemAllocAsync_ptsz) == pfn_ptr(pfn_cuMemAllocAsync_legacy) {
                    "=="
                } else {
                    "!="
                }
            );
            println!(
                "cudaEnableDefault version {} legacy stream version",
                if pfn_ptr(pfn_cuMemAllocAsync) == pfn_ptr(pfn_cuMemAllocAsync_legacy) {
                    "=="
                } else {
                    "!="
                }
            );
            println!(
                "cudaEnableDefault version {} per-thread default stream version",
                if pfn_ptr(pfn_cuMemAllocAsync) == pfn_ptr(pfn_cuMemAllocAsync_ptsz) {
                    "=="
                } else {
                    "!="
                }
            );
            // cudaEnableDefault is the legacy stream version, or the per-thread one when built with the
            // feature per-thread-default-stream (C's CUDA_API_PER_THREAD_DEFAULT_STREAM: then
            // cuda_runtime_api.h calls cudaGetDriverEntryPoint_ptsz, as common/cudart.rs does)
            #[cfg(feature = "per-thread-default-stream")]
            let expectedDefault = pfn_ptr(pfn_cuMemAllocAsync_ptsz);
            #[cfg(not(feature = "per-thread-default-stream"))]
            let expectedDefault = pfn_ptr(pfn_cuMemAllocAsync_legacy);
            pass = pass
                && pfn_cuMemAllocAsync_legacy.is_some()
                && pfn_cuMemAllocAsync_ptsz.is_some()
                && pfn_ptr(pfn_cuMemAllocAsync_ptsz) != pfn_ptr(pfn_cuMemAllocAsync_legacy)
                && pfn_ptr(pfn_cuMemAllocAsync) == expectedDefault;
        }

        println!("Result = {}", if pass { "PASS" } else { "FAIL" });
        check_driver!(cuDevicePrimaryCtxRelease(device));
        drop(h_A);
        drop(h_B);
        drop(h_C);
        exit(if pass { 0 } else { 1 });
    }
}
