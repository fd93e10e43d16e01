// The tensor memory group of the Driver API on a Hopper GPU: a 64 x 64 matrix of floats
// described by tiled tensor maps (cuTensorMapEncodeTiled), a kernel moving each 16 x 16 tile with
// the tensor memory accelerator (cp.async.bulk.tensor) from one matrix into another, the output
// checked against the host's copy; the input map pointed at a second matrix
// (cuTensorMapReplaceAddress) and the copy done again; an im2col map of an NHWC tensor
// (cuTensorMapEncodeIm2col, and cuTensorMapEncodeIm2colWide from CUDA 12.8 headers); an encoding
// refused for a misaligned address; cuTensorMapSetAllocationClass (CUDA 13.5 headers) looked up
// with the typed cuGetProcAddress (`entry`), CUDA_ERROR_NOT_FOUND where the driver has none.
// C twin: tensor_map.cpp.
// Kernel: examples/kernels/tensor_map.ptx (compute_90), from tensor_map.cu; argv[1] is the
// kernels folder.

#[path = "../common/mod.rs"]
mod common;

use std::ffi::{c_char, c_int, c_void, OsStr, OsString};
use std::mem::{align_of, size_of, zeroed};
use std::process::exit;
use std::ptr;

use common::{c_path, kernel_path, s};
use cuda_check::check_driver;
use cuda_driver_sys::*;

/// Prints `what = <result name>`; whether it is CUDA_SUCCESS.
fn show(what: &str, code: CUresult) -> bool {
    let mut name: *const c_char = ptr::null();
    let _ = unsafe { cuGetErrorName(code, &mut name) };
    let name = if name.is_null() {
        "(unknown)".into()
    } else {
        unsafe { s(name) }
    };
    println!("{} = {}", what, name);
    code == CUDA_SUCCESS
}

const N: usize = 64;
const TILE: usize = 16;

/// Encodes the tiled map of an N x N float matrix at `address`, in TILE x TILE boxes.
fn encode_tiled(map: &mut CUtensorMap, address: *mut c_void) -> CUresult {
    let dims: [cuuint64_t; 2] = [N as cuuint64_t, N as cuuint64_t];
    let strides: [cuuint64_t; 1] = [(N * size_of::<f32>()) as cuuint64_t];
    let boxes: [cuuint32_t; 2] = [TILE as cuuint32_t, TILE as cuuint32_t];
    let element_strides: [cuuint32_t; 2] = [1, 1];
    unsafe {
        cuTensorMapEncodeTiled(
            map,
            CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
            2,
            address,
            dims.as_ptr(),
            strides.as_ptr(),
            boxes.as_ptr(),
            element_strides.as_ptr(),
            CU_TENSOR_MAP_INTERLEAVE_NONE,
            CU_TENSOR_MAP_SWIZZLE_NONE,
            CU_TENSOR_MAP_L2_PROMOTION_NONE,
            CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
        )
    }
}

/// Copies every tile of `input` into `output` (grid N/TILE x N/TILE) and compares `d_out` with
/// `expected`.
fn copy_and_check(
    copy_tile: CUfunction,
    input: &mut CUtensorMap,
    output: &mut CUtensorMap,
    d_out: CUdeviceptr,
    expected: &[f32],
) -> bool {
    check_driver!(unsafe { cuMemsetD32(d_out, 0, N * N) });
    let mut args: [*mut c_void; 2] = [
        input as *mut CUtensorMap as *mut c_void,
        output as *mut CUtensorMap as *mut c_void,
    ];
    if !show("cuLaunchKernel(copy_tile)", unsafe {
        cuLaunchKernel(
            copy_tile,
            (N / TILE) as _,
            (N / TILE) as _,
            1,
            32,
            1,
            1,
            0,
            ptr::null_mut(),
            args.as_mut_ptr(),
            ptr::null_mut(),
        )
    }) {
        return false;
    }
    check_driver!(unsafe { cuCtxSynchronize() });
    let mut host = vec![0f32; N * N];
    check_driver!(unsafe {
        cuMemcpyDtoH(
            host.as_mut_ptr() as *mut c_void,
            d_out,
            N * N * size_of::<f32>(),
        )
    });
    let mut same = 0;
    for i in 0..N * N {
        if host[i] == expected[i] {
            same += 1;
        }
    }
    println!("  {} of {} elements equal to the input's", same, N * N);
    same == N * N
}

fn main() {
    let argv: Vec<OsString> = std::env::args_os().collect();
    let kernels_dir = if argv.len() > 1 {
        argv[1].as_os_str()
    } else {
        OsStr::new("examples/kernels")
    };
    let ptx_path = c_path(kernel_path(kernels_dir, "tensor_map.ptx"));

    if !check_driver!(unsafe { cuInit(0) }) {
        exit(1);
    }
    let mut device: CUdevice = 0;
    if !check_driver!(unsafe { cuDeviceGet(&mut device, 0) }) {
        exit(1);
    }
    let mut major: c_int = 0;
    check_driver!(unsafe {
        cuDeviceGetAttribute(
            &mut major,
            CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
            device,
        )
    });
    if major < 9 {
        println!("the tensor memory accelerator needs compute capability 9.0 or newer");
        exit(1);
    }
    let mut ctx: CUcontext = ptr::null_mut();
    if !check_driver!(unsafe { cuDevicePrimaryCtxRetain(&mut ctx, device) })
        || !check_driver!(unsafe { cuCtxSetCurrent(ctx) })
    {
        exit(1);
    }
    let mut module: CUmodule = ptr::null_mut();
    let mut copy_tile: CUfunction = ptr::null_mut();
    if !check_driver!(unsafe { cuModuleLoad(&mut module, ptx_path.as_ptr()) })
        || !check_driver!(unsafe {
            cuModuleGetFunction(&mut copy_tile, module, c"copy_tile".as_ptr())
        })
    {
        exit(1);
    }

    let mut first = vec![0f32; N * N];
    let mut second = vec![0f32; N * N];
    for i in 0..N * N {
        first[i] = i as f32;
        second[i] = (3 * i + 1) as f32;
    }
    let bytes = N * N * size_of::<f32>();
    let (mut d_first, mut d_second, mut d_out): (CUdeviceptr, CUdeviceptr, CUdeviceptr) = (0, 0, 0);
    check_driver!(unsafe { cuMemAlloc(&mut d_first, bytes) });
    check_driver!(unsafe { cuMemAlloc(&mut d_second, bytes) });
    check_driver!(unsafe { cuMemAlloc(&mut d_out, bytes) });
    check_driver!(unsafe { cuMemcpyHtoD(d_first, first.as_ptr() as *const c_void, bytes) });
    check_driver!(unsafe { cuMemcpyHtoD(d_second, second.as_ptr() as *const c_void, bytes) });

    let mut ok = true;
    let mut input: CUtensorMap = unsafe { zeroed() };
    let mut output: CUtensorMap = unsafe { zeroed() };
    println!(
        "sizeof(CUtensorMap) = {}, alignment {}",
        size_of::<CUtensorMap>(),
        align_of::<CUtensorMap>()
    );
    ok = show(
        "cuTensorMapEncodeTiled(input)",
        encode_tiled(&mut input, d_first as *mut c_void),
    ) && ok;
    ok = show(
        "cuTensorMapEncodeTiled(output)",
        encode_tiled(&mut output, d_out as *mut c_void),
    ) && ok;
    ok = ok && copy_and_check(copy_tile, &mut input, &mut output, d_out, &first);
    ok = show("cuTensorMapReplaceAddress", unsafe {
        cuTensorMapReplaceAddress(&mut input, d_second as *mut c_void)
    }) && ok;
    ok = ok && copy_and_check(copy_tile, &mut input, &mut output, d_out, &second);

    // A global address must be 16-byte aligned.
    let mut refused: CUtensorMap = unsafe { zeroed() };
    show(
        "cuTensorMapEncodeTiled(misaligned)",
        encode_tiled(&mut refused, (d_first + 4) as *mut c_void),
    );

    // An im2col map of an NHWC tensor: N = 1, H = W = 8, C = 16 floats; 64 pixels of 16 channels.
    let f = size_of::<f32>() as cuuint64_t;
    let dims: [cuuint64_t; 4] = [16, 8, 8, 1];
    let strides: [cuuint64_t; 3] = [16 * f, 8 * 16 * f, 8 * 8 * 16 * f];
    let lower: [c_int; 2] = [0, 0];
    let upper: [c_int; 2] = [0, 0];
    let element_strides: [cuuint32_t; 4] = [1, 1, 1, 1];
    let mut im2col: CUtensorMap = unsafe { zeroed() };
    show("cuTensorMapEncodeIm2col", unsafe {
        cuTensorMapEncodeIm2col(
            &mut im2col,
            CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
            4,
            d_first as *mut c_void,
            dims.as_ptr(),
            strides.as_ptr(),
            lower.as_ptr(),
            upper.as_ptr(),
            16,
            64,
            element_strides.as_ptr(),
            CU_TENSOR_MAP_INTERLEAVE_NONE,
            CU_TENSOR_MAP_SWIZZLE_NONE,
            CU_TENSOR_MAP_L2_PROMOTION_NONE,
            CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
        )
    });
    #[cfg(feature = "cuda-12080")]
    {
        let mut wide: CUtensorMap = unsafe { zeroed() };
        show("cuTensorMapEncodeIm2colWide", unsafe {
            cuTensorMapEncodeIm2colWide(
                &mut wide,
                CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
                4,
                d_first as *mut c_void,
                dims.as_ptr(),
                strides.as_ptr(),
                0,
                0,
                16,
                64,
                element_strides.as_ptr(),
                CU_TENSOR_MAP_INTERLEAVE_NONE,
                CU_TENSOR_MAP_IM2COL_WIDE_MODE_W,
                CU_TENSOR_MAP_SWIZZLE_128B,
                CU_TENSOR_MAP_L2_PROMOTION_NONE,
                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
            )
        });
    }
    #[cfg(feature = "cuda-13050")]
    {
        let mut effective = CU_TENSOR_MAP_ALLOC_CLASS_AUTO;
        let code = entry::cuTensorMapSetAllocationClass_v13050.get().map_or(
            CUDA_ERROR_NOT_FOUND,
            |set_allocation_class| unsafe {
                set_allocation_class(&mut input, CU_TENSOR_MAP_ALLOC_CLASS_SMALL, &mut effective)
            },
        );
        if show("cuTensorMapSetAllocationClass", code) {
            println!("  effective class {}", effective.0 as c_int);
        }
    }

    check_driver!(unsafe { cuMemFree(d_out) });
    check_driver!(unsafe { cuMemFree(d_second) });
    check_driver!(unsafe { cuMemFree(d_first) });
    check_driver!(unsafe { cuModuleUnload(module) });
    check_driver!(unsafe { cuDevicePrimaryCtxRelease(device) });
    println!("Result = {}", if ok { "PASS" } else { "FAIL" });
    exit(if ok { 0 } else { 1 });
}
