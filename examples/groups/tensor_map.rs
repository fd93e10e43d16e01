//! The tensor memory group of the Driver API on a Hopper GPU, its tiled and im2col maps each used
//! by a kernel of the tensor memory accelerator (cp.async.bulk.tensor) whose output is checked
//! element by element against the host's: a 64 x 64 matrix of floats described by tiled tensor maps
//! (cuTensorMapEncodeTiled), a kernel moving each 16 x 16 tile from one matrix into another, the
//! output equal to the input; the input map pointed at a second matrix (cuTensorMapReplaceAddress)
//! and the copy done again, the output equal to the second matrix; an encoding refused for a
//! misaligned address (any answer but CUDA_SUCCESS); an im2col map of an 8 x 8 NHWC image of 16
//! channels (cuTensorMapEncodeIm2col, its pixel box corners -1 in W and H) from which a kernel
//! loads (im2col mode, one load per filter tap, its im2col offsets the tap's position) the im2col
//! columns of a 3 x 3 convolution with padding 1, equal to the columns the host computes from the
//! image. Printed, not checked: the driver's answer to cuTensorMapEncodeIm2colWide (CUDA 12.8
//! headers; a map for compute capability 10.0) and to cuTensorMapSetAllocationClass (CUDA 13.5
//! headers, looked up with the typed cuGetProcAddress, `entry`), or the lookup's answer where the
//! driver has none.
//! Control `wrong_offsets` (`CUDA_GROUP_CONTROL`): the kernel is given im2col offsets one pixel
//! further along W than the host's columns use, which fails "the im2col map's columns are the
//! host's im2col".
//! C twin: tensor_map.cpp.
//! Kernels: examples/kernels/tensor_map.ptx (compute_90), from tensor_map.cu; argv[1] is the
//! kernels folder.

#[path = "common/mod.rs"]
mod common;

use std::ffi::{c_int, c_void};
use std::mem::{align_of, size_of, zeroed};
use std::process::exit;
use std::ptr;

use common::{check, control, expect, expect_all, finish, get_function, load_module};
use common::{primary_context, show};
use cuda_driver_sys::*;

const N: usize = 64;
const TILE: usize = 16;
/// The NHWC image of the im2col map: one image of SIDE x SIDE pixels of CHANNELS floats.
const SIDE: usize = 8;
const CHANNELS: usize = 16;
/// The convolution the im2col columns are for: TAPS x TAPS filter taps, padding PAD.
const TAPS: usize = 3;
const PAD: usize = 1;

/// Encodes the tiled map of an N x N float matrix at `address`, in TILE x TILE boxes.
unsafe fn encode_tiled(map: &mut CUtensorMap, address: *mut c_void) -> CUresult {
    unsafe {
        let dims: [cuuint64_t; 2] = [N as cuuint64_t, N as cuuint64_t];
        let strides: [cuuint64_t; 1] = [(N * size_of::<f32>()) as cuuint64_t];
        let boxes: [cuuint32_t; 2] = [TILE as cuuint32_t, TILE as cuuint32_t];
        let element_strides: [cuuint32_t; 2] = [1, 1];
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
unsafe fn copy_and_check(
    copy_tile: CUfunction,
    input: &mut CUtensorMap,
    output: &mut CUtensorMap,
    d_out: CUdeviceptr,
    expected: &[f32],
) {
    unsafe {
        check!(cuMemsetD32(d_out, 0, N * N));
        let mut args: [*mut c_void; 2] = [
            input as *mut CUtensorMap as *mut c_void,
            output as *mut CUtensorMap as *mut c_void,
        ];
        if !check!(cuLaunchKernel(
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
        )) {
            return;
        }
        let mut host = vec![0f32; N * N];
        check!(cuMemcpyDtoH(
            host.as_mut_ptr() as *mut c_void,
            d_out,
            N * N * size_of::<f32>(),
        ));
        let same = (0..N * N).filter(|&i| host[i] == expected[i]).count();
        expect_all("  elements equal to the input's", same, N * N);
    }
}

/// Loads the im2col columns of `image` (on the device, described by `map`) with the kernel
/// `im2col_columns`, one column of SIDE * SIDE pixels a filter tap, and checks them against the
/// columns computed here: tap (r, s), output pixel (y, x), channel c holds the image's pixel
/// (y + r - PAD, x + s - PAD), or 0 outside the image.
unsafe fn im2col_and_check(module: CUmodule, map: &mut CUtensorMap, image: &[f32]) {
    unsafe {
        let kernel = get_function(module, c"im2col_columns");
        if kernel.is_null() {
            return;
        }
        let column = SIDE * SIDE * CHANNELS;
        let count = TAPS * TAPS * column;
        let mut expected = vec![0f32; count];
        for (i, value) in expected.iter_mut().enumerate() {
            let (tap, pixel, c) = (i / column, i % column / CHANNELS, i % CHANNELS);
            let (r, s) = (tap / TAPS, tap % TAPS);
            let y = (pixel / SIDE + r) as isize - PAD as isize;
            let x = (pixel % SIDE + s) as isize - PAD as isize;
            let inside = |v: isize| (0..SIDE as isize).contains(&v);
            if inside(y) && inside(x) {
                *value = image[(y as usize * SIDE + x as usize) * CHANNELS + c];
            }
        }
        let mut d_columns: CUdeviceptr = 0;
        check!(cuMemAlloc(&mut d_columns, count * size_of::<f32>()));
        // NaN everywhere, so that a column the kernel did not write matches nothing.
        check!(cuMemsetD32(d_columns, 0xFFFF_FFFF, count));
        // The im2col offsets of tap (0, 0): the control's are one pixel further along W.
        let mut offset_w: c_int = if control("wrong_offsets") { 1 } else { 0 };
        let mut offset_h: c_int = 0;
        let mut args: [*mut c_void; 4] = [
            map as *mut CUtensorMap as *mut c_void,
            &mut d_columns as *mut CUdeviceptr as *mut c_void,
            &mut offset_w as *mut c_int as *mut c_void,
            &mut offset_h as *mut c_int as *mut c_void,
        ];
        let launched = check!(cuLaunchKernel(
            kernel,
            TAPS as _,
            TAPS as _,
            1,
            128,
            1,
            1,
            0,
            ptr::null_mut(),
            args.as_mut_ptr(),
            ptr::null_mut(),
        ));
        let mut columns = vec![0f32; count];
        if launched {
            check!(cuMemcpyDtoH(
                columns.as_mut_ptr() as *mut c_void,
                d_columns,
                count * size_of::<f32>(),
            ));
            let same = (0..count).filter(|&i| columns[i] == expected[i]).count();
            println!("  elements equal to the host's im2col: {same} of {count}");
            expect(
                same == count,
                "the im2col map's columns are the host's im2col",
            );
        }
        check!(cuMemFree(d_columns));
    }
}

fn main() {
    unsafe {
        if !check!(cuInit(0)) {
            exit(1);
        }
        let Some((device, _)) = primary_context() else {
            finish();
        };
        let mut major: c_int = 0;
        check!(cuDeviceGetAttribute(
            &mut major,
            CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
            device,
        ));
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
        let (mut d_first, mut d_second, mut d_out): (CUdeviceptr, CUdeviceptr, CUdeviceptr) =
            (0, 0, 0);
        check!(cuMemAlloc(&mut d_first, bytes));
        check!(cuMemAlloc(&mut d_second, bytes));
        check!(cuMemAlloc(&mut d_out, bytes));
        check!(cuMemcpyHtoD(
            d_first,
            first.as_ptr() as *const c_void,
            bytes
        ));
        check!(cuMemcpyHtoD(
            d_second,
            second.as_ptr() as *const c_void,
            bytes
        ));

        let mut input: CUtensorMap = zeroed();
        let mut output: CUtensorMap = zeroed();
        println!(
            "sizeof(CUtensorMap) = {}, alignment {}",
            size_of::<CUtensorMap>(),
            align_of::<CUtensorMap>()
        );
        check!(encode_tiled(&mut input, d_first as *mut c_void));
        check!(encode_tiled(&mut output, d_out as *mut c_void));
        println!("tiles of the first matrix:");
        copy_and_check(copy_tile, &mut input, &mut output, d_out, &first);
        check!(cuTensorMapReplaceAddress(
            &mut input,
            d_second as *mut c_void
        ));
        println!("tiles of the second matrix, its address replaced in the input's map:");
        copy_and_check(copy_tile, &mut input, &mut output, d_out, &second);

        // A global address must be 16-byte aligned.
        let mut refused: CUtensorMap = zeroed();
        let misaligned = encode_tiled(&mut refused, (d_first + 4) as *mut c_void);
        expect(
            !show("cuTensorMapEncodeTiled(misaligned)", misaligned),
            "a misaligned address refused",
        );

        // An im2col map of the image: 64 pixels (all 8 x 8 output pixels) of 16 channels a column.
        println!("im2col columns of an 8 x 8 image of 16 channels, 3 x 3 taps, padding 1:");
        let image: Vec<f32> = (1..=SIDE * SIDE * CHANNELS).map(|v| v as f32).collect();
        let image_bytes = image.len() * size_of::<f32>();
        let mut d_image: CUdeviceptr = 0;
        check!(cuMemAlloc(&mut d_image, image_bytes));
        check!(cuMemcpyHtoD(
            d_image,
            image.as_ptr() as *const c_void,
            image_bytes
        ));
        let f = size_of::<f32>() as cuuint64_t;
        let (side, channels) = (SIDE as cuuint64_t, CHANNELS as cuuint64_t);
        let dims: [cuuint64_t; 4] = [channels, side, side, 1];
        let strides: [cuuint64_t; 3] = [
            channels * f,
            side * channels * f,
            side * side * channels * f,
        ];
        let corner = -(PAD as c_int);
        let lower: [c_int; 2] = [corner, corner];
        let upper: [c_int; 2] = [corner, corner];
        let element_strides: [cuuint32_t; 4] = [1, 1, 1, 1];
        let mut im2col: CUtensorMap = zeroed();
        let encoded = check!(cuTensorMapEncodeIm2col(
            &mut im2col,
            CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
            4,
            d_image as *mut c_void,
            dims.as_ptr(),
            strides.as_ptr(),
            lower.as_ptr(),
            upper.as_ptr(),
            CHANNELS as cuuint32_t,
            (SIDE * SIDE) as cuuint32_t,
            element_strides.as_ptr(),
            CU_TENSOR_MAP_INTERLEAVE_NONE,
            CU_TENSOR_MAP_SWIZZLE_NONE,
            CU_TENSOR_MAP_L2_PROMOTION_NONE,
            CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
        ));
        if encoded {
            im2col_and_check(module, &mut im2col, &image);
        }
        #[cfg(feature = "cuda-12080")]
        {
            let mut wide: CUtensorMap = zeroed();
            show(
                "cuTensorMapEncodeIm2colWide",
                cuTensorMapEncodeIm2colWide(
                    &mut wide,
                    CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
                    4,
                    d_image as *mut c_void,
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
                ),
            );
        }
        #[cfg(feature = "cuda-13050")]
        match entry::cuTensorMapSetAllocationClass_v13050.get() {
            Ok(set_allocation_class) => {
                let mut effective = CU_TENSOR_MAP_ALLOC_CLASS_AUTO;
                let code = set_allocation_class(
                    &mut input,
                    CU_TENSOR_MAP_ALLOC_CLASS_SMALL,
                    &mut effective,
                );
                if show("cuTensorMapSetAllocationClass", code) {
                    println!("  effective class {}", effective.0 as c_int);
                }
            }
            Err(e) => common::show_missing("cuTensorMapSetAllocationClass", e),
        }

        check!(cuMemFree(d_image));
        check!(cuMemFree(d_out));
        check!(cuMemFree(d_second));
        check!(cuMemFree(d_first));
        check!(cuModuleUnload(module));
        check!(cuDevicePrimaryCtxRelease(device));
        finish()
    }
}
