//! Textures and surfaces, in the manner of NVIDIA's `simpleTextureDrv` with an image made here:
//! the TEXOBJECT and SURFOBJECT groups, and the deprecated references as far as the driver
//! accepts them. A texture object over a 2D array and one over pitched linear memory, each
//! sampled by a kernel at every texel, with the descriptors read back; a surface object a kernel
//! paints, read back from its array; then a module's texture and surface references
//! (hand-written PTX): every `cuTexRefSet*`, each value read back with its `cuTexRefGet*`, the
//! array bound, a kernel reading the texture and writing the surface through them; and a texture
//! reference made and destroyed on its own. What the driver answers for a deprecated call is
//! printed; what it set must read back, and where the driver gives the module and its
//! references, the kernel through them must run and do its work. C twin: `textures.cpp`.
#![allow(deprecated)] // the texture and surface references are the point of the second half

#[path = "common/mod.rs"]
mod common;

use std::ffi::{c_int, c_uint, c_void, OsString};
use std::mem::zeroed;
use std::ptr;

use common::{c_path, check, expect, expect_all, finish, kernel_path, load_module, result_name};
use cuda_driver_sys::*;

const W: c_int = 64;
const H: c_int = 64;

/// The image: texel (x, y) is 1 + x + 100 y (exact in float).
fn texel(x: c_int, y: c_int) -> f32 {
    (1 + x + 100 * y) as f32
}

/// How many of the W x H values of `out` are `scale` times the image's.
fn image_matches(out: &[f32], scale: f32) -> usize {
    (0..H)
        .flat_map(|y| (0..W).map(move |x| (x, y)))
        .filter(|&(x, y)| out[(y * W + x) as usize] == scale * texel(x, y))
        .count()
}

/// `(*mut c_void)` of a kernel argument.
fn arg<T>(value: &mut T) -> *mut c_void {
    (value as *mut T).cast()
}

fn main() {
    unsafe {
        if !check!(cuInit(0)) {
            std::process::exit(1);
        }
        let mut device: CUdevice = 0;
        let mut context: CUcontext = ptr::null_mut();
        if !check!(cuDeviceGet(&mut device, 0)) {
            finish();
        }
        if !check!(cuDevicePrimaryCtxRetain(&mut context, device)) {
            finish();
        }
        check!(cuCtxSetCurrent(context));
        let module = load_module("textures.ptx");
        let (mut sample, mut paint): (CUfunction, CUfunction) = (ptr::null_mut(), ptr::null_mut());
        if !check!(cuModuleGetFunction(&mut sample, module, c"sample".as_ptr())) {
            finish();
        }
        if !check!(cuModuleGetFunction(&mut paint, module, c"paint".as_ptr())) {
            finish();
        }

        let texels = (W * H) as usize;
        let bytes = texels * size_of::<f32>();
        let row = W as usize * size_of::<f32>();
        let image: Vec<f32> = (0..H)
            .flat_map(|y| (0..W).map(move |x| texel(x, y)))
            .collect();
        let mut back: Vec<f32> = vec![0.0; texels];
        let mut desc: CUDA_ARRAY3D_DESCRIPTOR = zeroed();
        desc.Width = W as usize;
        desc.Height = H as usize;
        desc.Format = CU_AD_FORMAT_FLOAT;
        desc.NumChannels = 1;
        desc.Flags = CUDA_ARRAY3D_SURFACE_LDST;
        let (mut array, mut surface_array): (CUarray, CUarray) = (ptr::null_mut(), ptr::null_mut());
        if !check!(cuArray3DCreate(&mut array, &desc)) {
            finish();
        }
        if !check!(cuArray3DCreate(&mut surface_array, &desc)) {
            finish();
        }
        let mut copy: CUDA_MEMCPY2D = zeroed();
        copy.srcMemoryType = CU_MEMORYTYPE_HOST;
        copy.srcHost = image.as_ptr().cast();
        copy.srcPitch = row;
        copy.dstMemoryType = CU_MEMORYTYPE_ARRAY;
        copy.dstArray = array;
        copy.WidthInBytes = row;
        copy.Height = H as usize;
        check!(cuMemcpy2D(&copy));
        let (mut out, mut pitched): (CUdeviceptr, CUdeviceptr) = (0, 0);
        let mut pitch: usize = 0;
        check!(cuMemAlloc(&mut out, bytes));
        let element = size_of::<f32>() as c_uint;
        check!(cuMemAllocPitch(
            &mut pitched,
            &mut pitch,
            row,
            H as usize,
            element
        ));
        copy.dstMemoryType = CU_MEMORYTYPE_DEVICE;
        copy.dstDevice = pitched;
        copy.dstPitch = pitch;
        check!(cuMemcpy2D(&copy));
        let (mut w, mut h) = (W, H);

        // A texture object over the array: point sampling, unnormalised coordinates, clamped.
        let mut resource: CUDA_RESOURCE_DESC = zeroed();
        resource.resType = CU_RESOURCE_TYPE_ARRAY;
        resource.res.array.hArray = array;
        let mut sampling: CUDA_TEXTURE_DESC = zeroed();
        sampling.addressMode[0] = CU_TR_ADDRESS_MODE_CLAMP;
        sampling.addressMode[1] = CU_TR_ADDRESS_MODE_CLAMP;
        sampling.filterMode = CU_TR_FILTER_MODE_POINT;
        sampling.maxAnisotropy = 1;
        let mut view: CUDA_RESOURCE_VIEW_DESC = zeroed();
        view.format = CU_RES_VIEW_FORMAT_FLOAT_1X32;
        view.width = W as usize;
        view.height = H as usize;
        let mut texture: CUtexObject = 0;
        if !check!(cuTexObjectCreate(&mut texture, &resource, &sampling, &view)) {
            finish();
        }
        let mut resource_back: CUDA_RESOURCE_DESC = zeroed();
        let mut sampling_back: CUDA_TEXTURE_DESC = zeroed();
        let mut view_back: CUDA_RESOURCE_VIEW_DESC = zeroed();
        check!(cuTexObjectGetResourceDesc(&mut resource_back, texture));
        check!(cuTexObjectGetTextureDesc(&mut sampling_back, texture));
        check!(cuTexObjectGetResourceViewDesc(&mut view_back, texture));
        let same_array = resource_back.res.array.hArray == array;
        println!(
            "texture object: resource type {}, same array {}; address modes {} {}, filter {}; view format {}, {} x {}",
            resource_back.resType.0,
            if same_array { "yes" } else { "no" },
            sampling_back.addressMode[0].0,
            sampling_back.addressMode[1].0,
            sampling_back.filterMode.0,
            view_back.format.0,
            view_back.width,
            view_back.height
        );
        expect(
            same_array && view_back.width == W as usize,
            "the texture object's descriptors read back",
        );
        let mut sample_args = [arg(&mut texture), arg(&mut out), arg(&mut w), arg(&mut h)];
        let (blocks_x, blocks_y) = ((W / 16) as c_uint, (H / 16) as c_uint);
        check!(cuLaunchKernel(
            sample,
            blocks_x,
            blocks_y,
            1,
            16,
            16,
            1,
            0,
            ptr::null_mut(),
            sample_args.as_mut_ptr(),
            ptr::null_mut()
        ));
        back.fill(0.0);
        check!(cuMemcpyDtoH(back.as_mut_ptr().cast(), out, bytes));
        expect_all(
            "a kernel sampled the array's texture object at every texel",
            image_matches(&back, 1.0),
            texels,
        );
        check!(cuTexObjectDestroy(texture));

        // A texture object over pitched linear memory.
        let mut resource: CUDA_RESOURCE_DESC = zeroed();
        resource.resType = CU_RESOURCE_TYPE_PITCH2D;
        resource.res.pitch2D.devPtr = pitched;
        resource.res.pitch2D.format = CU_AD_FORMAT_FLOAT;
        resource.res.pitch2D.numChannels = 1;
        resource.res.pitch2D.width = W as usize;
        resource.res.pitch2D.height = H as usize;
        resource.res.pitch2D.pitchInBytes = pitch;
        if check!(cuTexObjectCreate(
            &mut texture,
            &resource,
            &sampling,
            ptr::null()
        )) {
            check!(cuMemsetD32(out, 0, texels));
            check!(cuLaunchKernel(
                sample,
                blocks_x,
                blocks_y,
                1,
                16,
                16,
                1,
                0,
                ptr::null_mut(),
                sample_args.as_mut_ptr(),
                ptr::null_mut()
            ));
            back.fill(0.0);
            check!(cuMemcpyDtoH(back.as_mut_ptr().cast(), out, bytes));
            expect_all(
                "a kernel sampled the pitched memory's texture object",
                image_matches(&back, 1.0),
                texels,
            );
            check!(cuTexObjectDestroy(texture));
        }

        // A surface object a kernel paints.
        let mut resource: CUDA_RESOURCE_DESC = zeroed();
        resource.resType = CU_RESOURCE_TYPE_ARRAY;
        resource.res.array.hArray = surface_array;
        let mut surface: CUsurfObject = 0;
        if !check!(cuSurfObjectCreate(&mut surface, &resource)) {
            finish();
        }
        let mut resource_back: CUDA_RESOURCE_DESC = zeroed();
        check!(cuSurfObjectGetResourceDesc(&mut resource_back, surface));
        println!(
            "surface object: resource type {}, same array {}",
            resource_back.resType.0,
            if resource_back.res.array.hArray == surface_array {
                "yes"
            } else {
                "no"
            }
        );
        let mut paint_args = [arg(&mut surface), arg(&mut w), arg(&mut h)];
        check!(cuLaunchKernel(
            paint,
            blocks_x,
            blocks_y,
            1,
            16,
            16,
            1,
            0,
            ptr::null_mut(),
            paint_args.as_mut_ptr(),
            ptr::null_mut()
        ));
        let mut copy: CUDA_MEMCPY2D = zeroed();
        copy.srcMemoryType = CU_MEMORYTYPE_ARRAY;
        copy.srcArray = surface_array;
        copy.dstMemoryType = CU_MEMORYTYPE_HOST;
        copy.dstHost = back.as_mut_ptr().cast();
        copy.dstPitch = row;
        copy.WidthInBytes = row;
        copy.Height = H as usize;
        back.fill(0.0);
        check!(cuMemcpy2D(&copy));
        expect_all(
            "a kernel painted every texel of the surface object",
            image_matches(&back, 2.0),
            texels,
        );
        check!(cuSurfObjectDestroy(surface));

        // The deprecated references of a module, as far as the driver accepts them.
        let dir = std::env::args_os()
            .nth(1)
            .unwrap_or_else(|| OsString::from("examples/kernels"));
        let path = c_path(kernel_path(&dir, "texture_references.ptx"));
        let mut references: CUmodule = ptr::null_mut();
        let code = cuModuleLoad(&mut references, path.as_ptr());
        println!("module with references: {}", result_name(code));
        if code == CUresult::CUDA_SUCCESS {
            let mut tex_ref: CUtexref = ptr::null_mut();
            let mut surf_ref: CUsurfref = ptr::null_mut();
            let code = cuModuleGetTexRef(&mut tex_ref, references, c"tex_ref".as_ptr());
            println!("cuModuleGetTexRef: {}", result_name(code));
            let code = cuModuleGetSurfRef(&mut surf_ref, references, c"surf_ref".as_ptr());
            println!("cuModuleGetSurfRef: {}", result_name(code));
            if !tex_ref.is_null() {
                references_of_texture(tex_ref, &desc, array, out, bytes, pitched, pitch);
            }
            if !surf_ref.is_null() {
                let code = cuSurfRefSetArray(surf_ref, surface_array, 0);
                println!("cuSurfRefSetArray: {}", result_name(code));
                let mut array_back: CUarray = ptr::null_mut();
                let code = cuSurfRefGetArray(&mut array_back, surf_ref);
                let same = if array_back == surface_array {
                    "yes"
                } else {
                    "no"
                };
                println!("cuSurfRefGetArray: {}, the array {same}", result_name(code));
                expect(
                    array_back == surface_array,
                    "cuSurfRefGetArray: the array bound",
                );
            }
            let mut through: CUfunction = ptr::null_mut();
            let name = c"through_references".as_ptr();
            let found = if tex_ref.is_null() || surf_ref.is_null() {
                println!("a kernel through the references: not tested (a reference is missing)");
                false
            } else {
                let code = cuModuleGetFunction(&mut through, references, name);
                println!(
                    "cuModuleGetFunction(through_references): {}",
                    result_name(code)
                );
                expect(
                    code == CUresult::CUDA_SUCCESS,
                    "the kernel of the module with references found",
                );
                code == CUresult::CUDA_SUCCESS
            };
            if found {
                check!(cuMemsetD32(out, 0, texels));
                let mut args = [arg(&mut out)];
                let mut code = cuLaunchKernel(
                    through,
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
                );
                if code == CUresult::CUDA_SUCCESS {
                    code = cuCtxSynchronize();
                }
                let mut first: f32 = 0.0;
                check!(cuMemcpyDtoH(
                    (&mut first as *mut f32).cast(),
                    out,
                    size_of::<f32>()
                ));
                back.fill(0.0);
                check!(cuMemcpy2D(&copy));
                let painted = back[0];
                println!(
                    "a kernel through the references: {}; texel (0, 0) {first:.1}, surface (0, 0) {painted:.1}",
                    result_name(code)
                );
                expect(
                    code == CUresult::CUDA_SUCCESS && first == texel(0, 0) && painted == 1.0,
                    "the kernel read and wrote through the references",
                );
            }
            check!(cuModuleUnload(references));
        }
        let mut own: CUtexref = ptr::null_mut();
        let code = cuTexRefCreate(&mut own);
        println!("cuTexRefCreate: {}", result_name(code));
        if code == CUresult::CUDA_SUCCESS {
            println!("cuTexRefDestroy: {}", result_name(cuTexRefDestroy(own)));
        }

        check!(cuMemFree(pitched));
        check!(cuMemFree(out));
        check!(cuArrayDestroy(surface_array));
        check!(cuArrayDestroy(array));
        check!(cuModuleUnload(module));
        check!(cuDevicePrimaryCtxRelease(device));
        finish()
    }
}

/// Every `cuTexRefSet*` of `tex_ref`, its answer printed and the value it set read back with its
/// `cuTexRefGet*` and checked. The format, the filter mode and the flags are set twice, first to
/// a value the kernel does not read with, so that each call changes what is read back; it ends
/// bound to `array`, its texels read as point-sampled floats at unnormalised coordinates.
unsafe fn references_of_texture(
    tex_ref: CUtexref,
    desc: &CUDA_ARRAY3D_DESCRIPTOR,
    array: CUarray,
    out: CUdeviceptr,
    bytes: usize,
    pitched: CUdeviceptr,
    pitch: usize,
) {
    unsafe {
        let mut offset: usize = 0;
        let mut flat: CUDA_ARRAY_DESCRIPTOR = zeroed();
        flat.Width = W as usize;
        flat.Height = H as usize;
        flat.Format = CU_AD_FORMAT_FLOAT;
        flat.NumChannels = 1;
        let mut border: [f32; 4] = [0.25, 0.5, 0.75, 1.0];
        let mut mipmapped: CUmipmappedArray = ptr::null_mut();
        let mut mip_desc = *desc;
        mip_desc.Flags = 0;
        check!(cuMipmappedArrayCreate(&mut mipmapped, &mip_desc, 2));
        let show = |what: &str, code: CUresult| println!("{what}: {}", result_name(code));
        for (format, channels) in [(CU_AD_FORMAT_UNSIGNED_INT16, 2), (CU_AD_FORMAT_FLOAT, 1)] {
            show(
                "cuTexRefSetFormat",
                cuTexRefSetFormat(tex_ref, format, channels),
            );
            let mut format_back = CU_AD_FORMAT_UNSIGNED_INT8;
            let mut channels_back: c_int = 0;
            let code = cuTexRefGetFormat(&mut format_back, &mut channels_back, tex_ref);
            println!(
                "cuTexRefGetFormat: {}, format {}, {channels_back} channel(s)",
                result_name(code),
                format_back.0
            );
            expect(
                format_back == format && channels_back == channels,
                "cuTexRefGetFormat: the format set",
            );
        }
        // WRAP, then CLAMP, each read back: the default may be either.
        for set in [CU_TR_ADDRESS_MODE_WRAP, CU_TR_ADDRESS_MODE_CLAMP] {
            show(
                "cuTexRefSetAddressMode",
                cuTexRefSetAddressMode(tex_ref, 0, set),
            );
            let mut mode = CU_TR_ADDRESS_MODE_MIRROR;
            let code = cuTexRefGetAddressMode(&mut mode, tex_ref, 0);
            println!("cuTexRefGetAddressMode: {}, {}", result_name(code), mode.0);
            expect(mode == set, "cuTexRefGetAddressMode: the mode set");
        }
        for filter in [CU_TR_FILTER_MODE_LINEAR, CU_TR_FILTER_MODE_POINT] {
            show(
                "cuTexRefSetFilterMode",
                cuTexRefSetFilterMode(tex_ref, filter),
            );
            let mut filter_back = CU_TR_FILTER_MODE_LINEAR;
            let code = cuTexRefGetFilterMode(&mut filter_back, tex_ref);
            println!(
                "cuTexRefGetFilterMode: {}, {}",
                result_name(code),
                filter_back.0
            );
            expect(filter_back == filter, "cuTexRefGetFilterMode: the mode set");
        }
        for flags in [CU_TRSF_NORMALIZED_COORDINATES, 0] {
            show("cuTexRefSetFlags", cuTexRefSetFlags(tex_ref, flags));
            let mut flags_back: c_uint = 99;
            let code = cuTexRefGetFlags(&mut flags_back, tex_ref);
            println!("cuTexRefGetFlags: {}, {flags_back}", result_name(code));
            expect(flags_back == flags, "cuTexRefGetFlags: the flags set");
        }
        show(
            "cuTexRefSetBorderColor",
            cuTexRefSetBorderColor(tex_ref, border.as_mut_ptr()),
        );
        let mut color: [f32; 4] = [0.0; 4];
        let code = cuTexRefGetBorderColor(color.as_mut_ptr(), tex_ref);
        println!(
            "cuTexRefGetBorderColor: {}, {:.2} {:.2} {:.2} {:.2}",
            result_name(code),
            color[0],
            color[1],
            color[2],
            color[3]
        );
        expect(color == border, "cuTexRefGetBorderColor: the color set");
        show(
            "cuTexRefSetMaxAnisotropy",
            cuTexRefSetMaxAnisotropy(tex_ref, 4),
        );
        let mut anisotropy: c_int = 0;
        let code = cuTexRefGetMaxAnisotropy(&mut anisotropy, tex_ref);
        println!(
            "cuTexRefGetMaxAnisotropy: {}, {anisotropy}",
            result_name(code)
        );
        expect(anisotropy == 4, "cuTexRefGetMaxAnisotropy: the value set");
        show(
            "cuTexRefSetMipmapFilterMode",
            cuTexRefSetMipmapFilterMode(tex_ref, CU_TR_FILTER_MODE_LINEAR),
        );
        let mut filter = CU_TR_FILTER_MODE_POINT;
        let code = cuTexRefGetMipmapFilterMode(&mut filter, tex_ref);
        println!(
            "cuTexRefGetMipmapFilterMode: {}, {}",
            result_name(code),
            filter.0
        );
        expect(
            filter == CU_TR_FILTER_MODE_LINEAR,
            "cuTexRefGetMipmapFilterMode: the mode set",
        );
        show(
            "cuTexRefSetMipmapLevelBias",
            cuTexRefSetMipmapLevelBias(tex_ref, 0.5),
        );
        let mut bias: f32 = -1.0;
        let code = cuTexRefGetMipmapLevelBias(&mut bias, tex_ref);
        println!(
            "cuTexRefGetMipmapLevelBias: {}, {bias:.2}",
            result_name(code)
        );
        expect(bias == 0.5, "cuTexRefGetMipmapLevelBias: the bias set");
        show(
            "cuTexRefSetMipmapLevelClamp",
            cuTexRefSetMipmapLevelClamp(tex_ref, 0.25, 1.5),
        );
        let (mut low, mut high): (f32, f32) = (-1.0, -1.0);
        let code = cuTexRefGetMipmapLevelClamp(&mut low, &mut high, tex_ref);
        println!(
            "cuTexRefGetMipmapLevelClamp: {}, {low:.2} {high:.2}",
            result_name(code)
        );
        expect(
            low == 0.25 && high == 1.5,
            "cuTexRefGetMipmapLevelClamp: the levels set",
        );
        show(
            "cuTexRefSetAddress",
            cuTexRefSetAddress(&mut offset, tex_ref, out, bytes),
        );
        let mut address: CUdeviceptr = 0;
        let code = cuTexRefGetAddress(&mut address, tex_ref);
        let same = if address == out { "yes" } else { "no" };
        println!(
            "cuTexRefGetAddress: {}, the buffer {same}",
            result_name(code)
        );
        expect(address == out, "cuTexRefGetAddress: the buffer bound");
        show(
            "cuTexRefSetAddress2D",
            cuTexRefSetAddress2D(tex_ref, &flat, pitched, pitch),
        );
        address = 0;
        let code = cuTexRefGetAddress(&mut address, tex_ref);
        let same = if address == pitched { "yes" } else { "no" };
        println!(
            "cuTexRefGetAddress: {}, the pitched memory {same}",
            result_name(code)
        );
        expect(
            address == pitched,
            "cuTexRefGetAddress: the pitched memory bound",
        );
        let override_format = CU_TRSA_OVERRIDE_FORMAT;
        show(
            "cuTexRefSetMipmappedArray",
            cuTexRefSetMipmappedArray(tex_ref, mipmapped, override_format),
        );
        let mut mip_back: CUmipmappedArray = ptr::null_mut();
        let code = cuTexRefGetMipmappedArray(&mut mip_back, tex_ref);
        let same = if mip_back == mipmapped { "yes" } else { "no" };
        println!(
            "cuTexRefGetMipmappedArray: {}, the mipmapped array {same}",
            result_name(code)
        );
        expect(
            mip_back == mipmapped,
            "cuTexRefGetMipmappedArray: the mipmapped array bound",
        );
        show(
            "cuTexRefSetArray",
            cuTexRefSetArray(tex_ref, array, override_format),
        );
        let mut array_back: CUarray = ptr::null_mut();
        let code = cuTexRefGetArray(&mut array_back, tex_ref);
        let same = if array_back == array { "yes" } else { "no" };
        println!("cuTexRefGetArray: {}, the array {same}", result_name(code));
        expect(array_back == array, "cuTexRefGetArray: the array bound");
        check!(cuMipmappedArrayDestroy(mipmapped));
    }
}
