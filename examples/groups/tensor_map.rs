//! The tensor memory group of the Driver API on a Hopper GPU: a 64 x 64 matrix of floats
//! described by tiled tensor maps (cuTensorMapEncodeTiled), a kernel moving each 16 x 16 tile with
//! the tensor memory accelerator (cp.async.bulk.tensor) from one matrix into another, the output
//! checked against the host's copy; the input map pointed at a second matrix
//! (cuTensorMapReplaceAddress) and the copy done again; an im2col map of an NHWC tensor
//! (cuTensorMapEncodeIm2col, and cuTensorMapEncodeIm2colWide from CUDA 12.8 headers); an encoding
//! refused for a misaligned address; cuTensorMapSetAllocationClass (CUDA 13.5 headers) looked up
//! with the typed cuGetProcAddress (`entry`), CUDA_ERROR_NOT_FOUND where the driver has none.
//! C twin: tensor_map.cpp.
//! Kernel: examples/kernels/tensor_map.ptx (compute_90), from tensor_map.cu; argv[1] is the
//! kernels folder.

#[path = "common/mod.rs"]
mod common;

use std::ffi::{c_int, c_void};
use std::mem::{align_of, size_of, zeroed};
use std::process::exit;
use std::ptr;

use common::{check, expect, expect_all, finish, get_function, load_module, primary_context, show};
use cuda_driver_sys::*;

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

/// Copies every tile of `input` into `output` (grid N/TILE x N/TILE) and checks `d_out` against
/// `expected`.
fn copy_and_check(
    copy_tile: CUfunction,
    input: &mut CUtensorMap,
    output: &mut CUtensorMap,
    d_out: CUdeviceptr,
    expected: &[f32],
) {
    check!(unsafe { cuMemsetD32(d_out, 0, N * N) });
    let mut args: [*mut c_void; 2] = [
        input as *mut CUtensorMap as *mut c_void,
        output as *mut CUtensorMap as *mut c_void,
    ];
    if !check!(unsafe {
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
        return;
    }
    check!(unsafe { cuCtxSynchronize() });
    let mut host = vec![0f32; N * N];
    check!(unsafe {
        cuMemcpyDtoH(
            host.as_mut_ptr() as *mut c_void,
            d_out,
            N * N * size_of::<f32>(),
        )
    });
    let same = (0..N * N).filter(|&i| host[i] == expected[i]).count();
    expect_all("  elements equal to the input's", same, N * N);
}

fn main() {
    if !check!(unsafe { cuInit(0) }) {
        exit(1);
    }
    let Some((device, _)) = primary_context() else {
        finish();
    };
    let mut major: c_int = 0;
    check!(unsafe {
        cuDeviceGetAttribute(
            &mut major,
            CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
            device,
        )
    });
    if major < 9 {
        expect(
            false,
            "the tensor memory accelerator needs compute capability 9.0",
        );
        finish();
    }
    let module = load_module("tensor_map.ptx");
    let copy_tile = get_function(module, c"copy_tile");
    if copy_tile.is_null() {
        finish();
    }

    let mut first = vec![0f32; N * N];
    let mut second = vec![0f32; N * N];
    for i in 0..N * N {
        first[i] = i as f32;
        second[i] = (3 * i + 1) as f32;
    }
    let bytes = N * N * size_of::<f32>();
    let (mut d_first, mut d_second, mut d_out): (CUdeviceptr, CUdeviceptr, CUdeviceptr) = (0, 0, 0);
    check!(unsafe { cuMemAlloc(&mut d_first, bytes) });
    check!(unsafe { cuMemAlloc(&mut d_second, bytes) });
    check!(unsafe { cuMemAlloc(&mut d_out, bytes) });
    check!(unsafe { cuMemcpyHtoD(d_first, first.as_ptr() as *const c_void, bytes) });
    check!(unsafe { cuMemcpyHtoD(d_second, second.as_ptr() as *const c_void, bytes) });

    let mut input: CUtensorMap = unsafe { zeroed() };
    let mut output: CUtensorMap = unsafe { zeroed() };
    println!(
        "sizeof(CUtensorMap) = {}, alignment {}",
        size_of::<CUtensorMap>(),
        align_of::<CUtensorMap>()
    );
    check!(encode_tiled(&mut input, d_first as *mut c_void));
    check!(encode_tiled(&mut output, d_out as *mut c_void));
    println!("tiles of the first matrix:");
    copy_and_check(copy_tile, &mut input, &mut output, d_out, &first);
    check!(unsafe { cuTensorMapReplaceAddress(&mut input, d_second as *mut c_void) });
    println!("tiles of the second matrix, its address replaced in the input's map:");
    copy_and_check(copy_tile, &mut input, &mut output, d_out, &second);

    // A global address must be 16-byte aligned.
    let mut refused: CUtensorMap = unsafe { zeroed() };
    let misaligned = encode_tiled(&mut refused, (d_first + 4) as *mut c_void);
    expect(
        !show("cuTensorMapEncodeTiled(misaligned)", misaligned),
        "a misaligned address refused",
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

    check!(unsafe { cuMemFree(d_out) });
    check!(unsafe { cuMemFree(d_second) });
    check!(unsafe { cuMemFree(d_first) });
    check!(unsafe { cuModuleUnload(module) });
    check!(unsafe { cuDevicePrimaryCtxRelease(device) });
    finish()
}
