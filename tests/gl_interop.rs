//! OpenGL interop through `cuda_driver_sys::gl` on a GPU, with no display: an OpenGL context through
//! headless EGL (libEGL and libOpenGL opened at run time, as the crate itself needs neither), a GL
//! buffer registered with `cuGraphicsGLRegisterBuffer`, mapped, its device pointer written with
//! `cuMemsetD32`, unmapped, and read back with `glGetBufferSubData`: every value checked. Twice:
//! through the C spellings, then through the driver-entry table (`table()`), each its own value.
//! Then the deprecated OpenGL calls (`cuGLInit`, `cuGLRegisterBufferObject`,
//! `cuGLSetBufferObjectMapFlags`, `cuGLMapBufferObject(Async)`, `cuGLUnmapBufferObject(Async)`,
//! `cuGLUnregisterBufferObject`, `cuGLCtxCreate`): each answer printed by name, and where the
//! driver maps the buffer, what CUDA writes through it read back in GL and checked.
//!
//! OpenGL images: a texture of one level and a mipmapped one, registered with
//! `cuGraphicsGLRegisterImage`, their map flags set (`cuGraphicsResourceSetMapFlags`) and mapped;
//! CUDA writes every texel of every level through the arrays
//! (`cuGraphicsSubResourceGetMappedArray`, `cuGraphicsResourceGetMappedMipmappedArray` with
//! `cuMipmappedArrayGetLevel`; `cuMemcpy2D`, `cuMemcpy3D`) and GL reads them (`glGetTexImage`); GL
//! writes every texel (`glTexSubImage2D`) and CUDA reads them through the arrays. Each check
//! prints `<what>: <same> of <texels>`, a failed one `FAILED: <what>`. `CUDA_GL_CONTROL=<name>`
//! runs a wrong variant of one step ([`CONTROLS`]) that one check must catch:
//! `texture-no-cuda-write` (CUDA does not copy: GL reads zeros), `texture-no-gl-write` (GL does
//! not write: CUDA reads CUDA's texels), `mipmap-write-level-0` and `mipmap-read-level-0` (CUDA
//! copies every level to, or from, level 0's array).
//!
//! Ignored in `cargo test` (it needs a GPU and the EGL/OpenGL loaders); the GPU bundle's run.sh
//! runs it with `--ignored` after unpacking the carried loaders (`cargo xtask gpu-bundle`). When
//! EGL or OpenGL cannot come up, it fails and says at which call, with EGL's error code.

use std::ffi::c_void;
use std::ptr;

use cuda_driver_sys::*;

#[macro_use]
mod headless_gl;
use headless_gl::{
    control, copy_3d, level_size, pattern, result_name, Checks, Headless, Surface, GL_TEXTURE_2D,
};

const GL_ARRAY_BUFFER: u32 = 0x8892;
const GL_DYNAMIC_DRAW: u32 = 0x88E8;

/// This test's controls (`CUDA_GL_CONTROL=<name>`), each a wrong variant of one step of
/// `textures` that one check must catch.
const CONTROLS: &[&str] = &[
    "texture-no-cuda-write",
    "texture-no-gl-write",
    "mipmap-write-level-0",
    "mipmap-read-level-0",
];

/// Prints `what: <result name>` for a deprecated call whose answer depends on the driver; whether
/// it succeeded.
fn answer(what: &str, code: CUresult) -> bool {
    println!("{what}: {}", result_name(code));
    code == CUDA_SUCCESS
}

#[test]
#[ignore = "needs a GPU and libEGL/libOpenGL: cargo xtask gpu-run runs it"]
fn gl_buffer_written_by_cuda_reads_back_in_gl() {
    headless_gl::check_control(CONTROLS);
    if let Err(e) = run() {
        panic!("OpenGL interop through headless EGL: {e}");
    }
}

fn run() -> Result<(), String> {
    let headless = Headless::up()?;
    let gl = &headless.gl;
    let (bind_buffer, get_buffer_sub_data, finish) =
        (gl.bind_buffer, gl.get_buffer_sub_data, gl.finish);

    // A buffer of N zeroed words.
    const N: usize = 1 << 20;
    let zeros = vec![0u32; N];
    let mut buffer: GLuint = 0;
    unsafe {
        (gl.gen_buffers)(1, &mut buffer);
        bind_buffer(GL_ARRAY_BUFFER, buffer);
        (gl.buffer_data)(
            GL_ARRAY_BUFFER,
            (N * 4) as isize,
            zeros.as_ptr() as *const c_void,
            GL_DYNAMIC_DRAW,
        );
        bind_buffer(GL_ARRAY_BUFFER, 0);
        finish();
    }

    // CUDA on the GL context's device: the same steps twice, through the C spellings and then
    // through the driver-entry table, each writing its own value.
    let (device, ctx) = headless_gl::cuda_on_gl_device();

    for (via, value) in [("C spellings", 0xC0DA_F00Du32), ("table()", 0x7AB1_E5ED)] {
        let through_table = via == "table()";
        // One driver call, through the C spelling or the table's method of the same name.
        macro_rules! cu {
            ($f:ident($($a:expr),* $(,)?)) => {{
                let code = if through_table {
                    unsafe { table().$f($($a),*) }
                } else {
                    unsafe { $f($($a),*) }
                };
                assert_eq!(code, CUDA_SUCCESS, "{} through {via} failed: {:?}", stringify!($f), code);
            }};
        }
        let mut resource: CUgraphicsResource = ptr::null_mut();
        cu!(cuGraphicsGLRegisterBuffer(
            &mut resource,
            buffer,
            CU_GRAPHICS_REGISTER_FLAGS_NONE.0
        ));
        cu!(cuGraphicsMapResources(1, &mut resource, ptr::null_mut()));
        let (mut dptr, mut size): (CUdeviceptr, usize) = (0, 0);
        cu!(cuGraphicsResourceGetMappedPointer(
            &mut dptr, &mut size, resource
        ));
        assert_eq!(size, N * 4, "the mapped buffer's size");
        cu!(cuMemsetD32(dptr, value, N));
        cu!(cuCtxSynchronize());
        cu!(cuGraphicsUnmapResources(1, &mut resource, ptr::null_mut()));

        let mut back = vec![0u32; N];
        unsafe {
            bind_buffer(GL_ARRAY_BUFFER, buffer);
            get_buffer_sub_data(
                GL_ARRAY_BUFFER,
                0,
                (N * 4) as isize,
                back.as_mut_ptr() as *mut c_void,
            );
            finish();
        }
        let wrong = back.iter().filter(|&&v| v != value).count();
        println!(
            "GL buffer {buffer} through {via}: {N} words written by cuMemsetD32 through the mapped \
             pointer {dptr:#x}, read back by glGetBufferSubData: {} correct, {wrong} wrong",
            N - wrong
        );
        cu!(cuGraphicsUnregisterResource(resource));
        assert_eq!(
            wrong,
            0,
            "values read back through {via} differ (first: {:#x})",
            back[back.iter().position(|&v| v != value).unwrap_or(0)]
        );
    }

    // The deprecated buffer-object API of CUDA 3.0, as far as this driver takes it: where the
    // buffer maps, CUDA writes through the mapped pointer and GL must read the value back.
    let read_back = |value: u32| {
        let mut back = vec![0u32; N];
        unsafe {
            bind_buffer(GL_ARRAY_BUFFER, buffer);
            get_buffer_sub_data(
                GL_ARRAY_BUFFER,
                0,
                (N * 4) as isize,
                back.as_mut_ptr() as *mut c_void,
            );
            finish();
        }
        back.iter().filter(|&&v| v == value).count()
    };
    answer("cuGLInit", unsafe { cuGLInit() });
    if answer("cuGLRegisterBufferObject", unsafe {
        cuGLRegisterBufferObject(buffer)
    }) {
        let flags = CU_GL_MAP_RESOURCE_FLAGS_NONE.0;
        answer("cuGLSetBufferObjectMapFlags(NONE)", unsafe {
            cuGLSetBufferObjectMapFlags(buffer, flags)
        });
        let mut stream: CUstream = ptr::null_mut();
        check_cu!(cuStreamCreate(&mut stream, CU_STREAM_NON_BLOCKING.0));
        for (way, value) in [
            ("cuGLMapBufferObject", 0x0B1E_C7EDu32),
            ("cuGLMapBufferObjectAsync", 0xA5_1C0B1E),
        ] {
            let on_stream = way.ends_with("Async");
            let (mut dptr, mut size): (CUdeviceptr, usize) = (0, 0);
            let mapped = if on_stream {
                unsafe { cuGLMapBufferObjectAsync(&mut dptr, &mut size, buffer, stream) }
            } else {
                unsafe { cuGLMapBufferObject(&mut dptr, &mut size, buffer) }
            };
            if !answer(way, mapped) {
                continue;
            }
            assert_eq!(size, N * 4, "{way}: the mapped buffer's size");
            check_cu!(cuMemsetD32(dptr, value, N));
            check_cu!(cuCtxSynchronize());
            let unmapped = if on_stream {
                unsafe { cuGLUnmapBufferObjectAsync(buffer, stream) }
            } else {
                unsafe { cuGLUnmapBufferObject(buffer) }
            };
            let unmap = if on_stream {
                "cuGLUnmapBufferObjectAsync"
            } else {
                "cuGLUnmapBufferObject"
            };
            assert!(answer(unmap, unmapped), "{unmap} after {way} succeeded");
            check_cu!(cuStreamSynchronize(stream));
            let correct = read_back(value);
            println!(
                "GL buffer {buffer} through {way}: {correct} of {N} words read back as written"
            );
            assert_eq!(correct, N, "values read back after {way}");
        }
        check_cu!(cuStreamDestroy(stream));
        assert!(
            answer("cuGLUnregisterBufferObject", unsafe {
                cuGLUnregisterBufferObject(buffer)
            }),
            "a registered buffer object unregisters"
        );
    }
    // cuGLCtxCreate: a context of its own on the GL context's device, current on return.
    let mut gl_ctx: CUcontext = ptr::null_mut();
    if answer("cuGLCtxCreate", unsafe {
        cuGLCtxCreate(&mut gl_ctx, 0, device)
    }) {
        let mut current: CUcontext = ptr::null_mut();
        check_cu!(cuCtxGetCurrent(&mut current));
        assert_eq!(current, gl_ctx, "cuGLCtxCreate's context is current");
        check_cu!(cuCtxDestroy(gl_ctx));
        check_cu!(cuCtxSetCurrent(ctx));
    }
    check_cu!(cuDevicePrimaryCtxRelease(device));
    Ok(())
}

#[test]
#[ignore = "needs a GPU and libEGL/libOpenGL: cargo xtask gpu-run runs it"]
fn gl_textures_cross_between_cuda_arrays_and_gl() {
    headless_gl::check_control(CONTROLS);
    match textures() {
        Ok(checks) => checks.finish(),
        Err(e) => panic!("OpenGL textures through headless EGL: {e}"),
    }
}

/// Sets `resource`'s map flags (`cuGraphicsResourceSetMapFlags`) and maps it.
fn map(resource: &mut CUgraphicsResource, flags: CUgraphicsMapResourceFlags) {
    check_cu!(cuGraphicsResourceSetMapFlags(*resource, flags.0));
    check_cu!(cuGraphicsMapResources(1, resource, ptr::null_mut()));
}

/// Unmaps `resource`.
fn unmap(resource: &mut CUgraphicsResource) {
    check_cu!(cuGraphicsUnmapResources(1, resource, ptr::null_mut()));
}

/// A 2D copy between host texels (`width * height` words, tightly packed) and a CUDA array
/// (`to_array`: host to array; else array to host), through `cuMemcpy2D`.
fn copy_2d(array: CUarray, texels: &mut [u32], width: usize, height: usize, to_array: bool) {
    assert_eq!(texels.len(), width * height, "the host texels' size");
    let mut copy = CUDA_MEMCPY2D {
        WidthInBytes: width * 4,
        Height: height,
        ..Default::default()
    };
    if to_array {
        copy.srcMemoryType = CU_MEMORYTYPE_HOST;
        copy.srcHost = texels.as_ptr() as *const c_void;
        copy.srcPitch = width * 4;
        copy.dstMemoryType = CU_MEMORYTYPE_ARRAY;
        copy.dstArray = array;
    } else {
        copy.srcMemoryType = CU_MEMORYTYPE_ARRAY;
        copy.srcArray = array;
        copy.dstMemoryType = CU_MEMORYTYPE_HOST;
        copy.dstHost = texels.as_mut_ptr() as *mut c_void;
        copy.dstPitch = width * 4;
    }
    check_cu!(cuMemcpy2D(&copy));
}

/// A texture of one level and a mipmapped one, each registered with `cuGraphicsGLRegisterImage`:
/// CUDA writes every texel of every level through the mapped arrays and GL reads them
/// (`glGetTexImage`); GL writes every texel (`glTexSubImage2D`) and CUDA reads them through the
/// mapped arrays. Each direction's copy is one check over all texels.
fn textures() -> Result<Checks, String> {
    let headless = Headless::up()?;
    // What EGL offers here, for the record (this test relies on no extension).
    headless.require(&[])?;
    let finish = headless.gl.finish;
    let (device, _) = headless_gl::cuda_on_gl_device();
    let mut checks = Checks::default();

    // One level: cuGraphicsSubResourceGetMappedArray, cuMemcpy2D.
    const W: usize = 256;
    const H: usize = 192;
    let tex = headless.texture(W, H, 1)?;
    unsafe { finish() };
    let mut resource: CUgraphicsResource = ptr::null_mut();
    check_cu!(cuGraphicsGLRegisterImage(
        &mut resource,
        tex,
        GL_TEXTURE_2D,
        CU_GRAPHICS_REGISTER_FLAGS_NONE.0
    ));
    map(&mut resource, CU_GRAPHICS_MAP_RESOURCE_FLAGS_WRITE_DISCARD);
    let mut array: CUarray = ptr::null_mut();
    check_cu!(cuGraphicsSubResourceGetMappedArray(
        &mut array, resource, 0, 0
    ));
    let mut desc = CUDA_ARRAY3D_DESCRIPTOR::default();
    check_cu!(cuArray3DGetDescriptor(&mut desc, array));
    println!(
        "GL texture {W} x {H} (GL_RGBA8) mapped: a CUDA array of {} x {} x {}, {} channel(s) of \
         CUarray_format {}",
        desc.Width, desc.Height, desc.Depth, desc.NumChannels, desc.Format.0
    );
    let mut written = pattern(1, 0, W, H);
    if !control("texture-no-cuda-write") {
        copy_2d(array, &mut written, W, H, true);
    }
    unmap(&mut resource);
    let back = headless.read_texture(tex, 0, W, H)?;
    checks.all(
        "GL texture: texels CUDA wrote (cuMemcpy2D to the mapped array) as glGetTexImage reads \
         them",
        &back,
        &written,
    );
    let written = pattern(2, 0, W, H);
    if !control("texture-no-gl-write") {
        headless.write_texture(tex, 0, W, H, &written)?;
    }
    unsafe { finish() };
    map(&mut resource, CU_GRAPHICS_MAP_RESOURCE_FLAGS_READ_ONLY);
    check_cu!(cuGraphicsSubResourceGetMappedArray(
        &mut array, resource, 0, 0
    ));
    let mut read = vec![0u32; W * H];
    copy_2d(array, &mut read, W, H, false);
    unmap(&mut resource);
    checks.all(
        "GL texture: texels GL wrote (glTexSubImage2D) as CUDA reads them (cuMemcpy2D from the \
         mapped array)",
        &read,
        &written,
    );
    check_cu!(cuGraphicsUnregisterResource(resource));

    // Every level of a mipmapped texture: cuGraphicsResourceGetMappedMipmappedArray and
    // cuMipmappedArrayGetLevel one way, cuGraphicsSubResourceGetMappedArray per level the other;
    // cuMemcpy3D.
    const MW: usize = 128;
    const MH: usize = 64;
    const LEVELS: u32 = 8; // 128 x 64 down to 1 x 1
    let mip_tex = headless.texture(MW, MH, LEVELS)?;
    unsafe { finish() };
    check_cu!(cuGraphicsGLRegisterImage(
        &mut resource,
        mip_tex,
        GL_TEXTURE_2D,
        CU_GRAPHICS_REGISTER_FLAGS_NONE.0
    ));
    map(&mut resource, CU_GRAPHICS_MAP_RESOURCE_FLAGS_WRITE_DISCARD);
    let mut mipmap: CUmipmappedArray = ptr::null_mut();
    check_cu!(cuGraphicsResourceGetMappedMipmappedArray(
        &mut mipmap,
        resource
    ));
    let mut written = Vec::new();
    for level in 0..LEVELS {
        let (w, h) = level_size(MW, MH, level);
        let mut texels = pattern(3, level, w, h);
        let target = if control("mipmap-write-level-0") {
            0
        } else {
            level
        };
        check_cu!(cuMipmappedArrayGetLevel(&mut array, mipmap, target));
        copy_3d(Surface::Array(array), &mut texels, w, h, true, None);
        written.extend(texels);
    }
    unmap(&mut resource);
    let mut back = Vec::new();
    for level in 0..LEVELS {
        let (w, h) = level_size(MW, MH, level);
        back.extend(headless.read_texture(mip_tex, level, w, h)?);
    }
    checks.all(
        "mipmapped GL texture, every level: texels CUDA wrote (cuMemcpy3D to \
         cuMipmappedArrayGetLevel's arrays) as glGetTexImage reads them",
        &back,
        &written,
    );
    let mut written = Vec::new();
    for level in 0..LEVELS {
        let (w, h) = level_size(MW, MH, level);
        let texels = pattern(4, level, w, h);
        headless.write_texture(mip_tex, level, w, h, &texels)?;
        written.extend(texels);
    }
    unsafe { finish() };
    map(&mut resource, CU_GRAPHICS_MAP_RESOURCE_FLAGS_READ_ONLY);
    let mut read = Vec::new();
    for level in 0..LEVELS {
        let (w, h) = level_size(MW, MH, level);
        let source = if control("mipmap-read-level-0") {
            0
        } else {
            level
        };
        check_cu!(cuGraphicsSubResourceGetMappedArray(
            &mut array, resource, 0, source
        ));
        let mut texels = vec![0u32; w * h];
        copy_3d(Surface::Array(array), &mut texels, w, h, false, None);
        read.extend(texels);
    }
    unmap(&mut resource);
    checks.all(
        "mipmapped GL texture, every level: texels GL wrote (glTexSubImage2D) as CUDA reads them \
         (cuMemcpy3D from cuGraphicsSubResourceGetMappedArray's arrays)",
        &read,
        &written,
    );
    check_cu!(cuGraphicsUnregisterResource(resource));
    unsafe { (headless.gl.delete_textures)(2, [tex, mip_tex].as_ptr()) };
    check_cu!(cuDevicePrimaryCtxRelease(device));
    Ok(checks)
}
