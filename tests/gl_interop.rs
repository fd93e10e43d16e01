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
//! Ignored in `cargo test` (it needs a GPU and the EGL/OpenGL loaders); the GPU bundle's run.sh
//! runs it with `--ignored` after unpacking the carried loaders (`cargo xtask gpu-bundle`). When
//! EGL or OpenGL cannot come up, it fails and says at which call, with EGL's error code.

use std::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::ptr;

use cuda_driver_sys::*;

// EGL/egl.h, EGL/eglext.h and GL/gl.h values (glvnd 1.6 headers, Debian bookworm).
const EGL_NONE: c_int = 0x3038;
const EGL_SURFACE_TYPE: c_int = 0x3033;
const EGL_PBUFFER_BIT: c_int = 0x0001;
const EGL_RENDERABLE_TYPE: c_int = 0x3040;
const EGL_OPENGL_BIT: c_int = 0x0008;
const EGL_WIDTH: c_int = 0x3057;
const EGL_HEIGHT: c_int = 0x3056;
const EGL_OPENGL_API: c_uint = 0x30A2;
const EGL_PLATFORM_DEVICE_EXT: c_uint = 0x313F;
const GL_ARRAY_BUFFER: c_uint = 0x8892;
const GL_DYNAMIC_DRAW: c_uint = 0x88E8;
const GL_RENDERER: c_uint = 0x1F01;
const GL_VERSION: c_uint = 0x1F02;

type Display = *mut c_void;

/// A library opened with `dlopen`, and its symbols.
struct Lib(*mut c_void, &'static str);

impl Lib {
    fn open(names: &[&'static CStr]) -> Result<Lib, String> {
        for n in names {
            let h = unsafe { libc::dlopen(n.as_ptr(), libc::RTLD_NOW | libc::RTLD_GLOBAL) };
            if !h.is_null() {
                return Ok(Lib(h, n.to_str().unwrap()));
            }
        }
        let err = unsafe { CStr::from_ptr(libc::dlerror()) };
        Err(format!(
            "cannot open any of {names:?}: {} (the GPU bundle carries the loaders in gl-debs/)",
            err.to_string_lossy()
        ))
    }

    /// The symbol `name` as a function pointer of type `F`.
    unsafe fn sym<F: Copy>(&self, name: &CStr) -> Result<F, String> {
        let p = unsafe { libc::dlsym(self.0, name.as_ptr()) };
        if p.is_null() {
            return Err(format!("{} has no {name:?}", self.1));
        }
        Ok(unsafe { std::mem::transmute_copy::<*mut c_void, F>(&p) })
    }
}

/// The name `cuGetErrorName` gives `code`.
fn result_name(code: CUresult) -> String {
    let mut name: *const c_char = ptr::null();
    if unsafe { cuGetErrorName(code, &mut name) } != CUDA_SUCCESS || name.is_null() {
        return format!("CUresult {}", code.0);
    }
    unsafe { CStr::from_ptr(name) }
        .to_string_lossy()
        .into_owned()
}

/// Prints `what: <result name>` for a deprecated call whose answer depends on the driver; whether
/// it succeeded.
fn answer(what: &str, code: CUresult) -> bool {
    println!("{what}: {}", result_name(code));
    code == CUDA_SUCCESS
}

macro_rules! check_cu {
    ($e:expr) => {{
        let code = unsafe { $e };
        assert_eq!(code, CUDA_SUCCESS, "{} failed: {:?}", stringify!($e), code);
    }};
}

#[test]
#[ignore = "needs a GPU and libEGL/libOpenGL: cargo xtask gpu-run runs it"]
fn gl_buffer_written_by_cuda_reads_back_in_gl() {
    if let Err(e) = run() {
        panic!("OpenGL interop through headless EGL: {e}");
    }
}

fn run() -> Result<(), String> {
    let egl = Lib::open(&[c"libEGL.so.1", c"libEGL.so"])?;
    let get_proc: unsafe extern "C" fn(*const c_char) -> *mut c_void =
        unsafe { egl.sym(c"eglGetProcAddress")? };
    let get_error: unsafe extern "C" fn() -> c_int = unsafe { egl.sym(c"eglGetError")? };
    let egl_err = |what: &str| {
        format!("{what} failed, eglGetError() = {:#x}", unsafe {
            get_error()
        })
    };
    let get_display: unsafe extern "C" fn(*mut c_void) -> Display =
        unsafe { egl.sym(c"eglGetDisplay")? };
    let initialize: unsafe extern "C" fn(Display, *mut c_int, *mut c_int) -> c_uint =
        unsafe { egl.sym(c"eglInitialize")? };

    // The default display; without a display server, the first EGL device.
    let (mut major, mut minor) = (0, 0);
    let mut dpy = unsafe { get_display(ptr::null_mut()) };
    let mut how = "eglGetDisplay(EGL_DEFAULT_DISPLAY)";
    if dpy.is_null() || unsafe { initialize(dpy, &mut major, &mut minor) } == 0 {
        let query = unsafe { get_proc(c"eglQueryDevicesEXT".as_ptr()) };
        let platform = unsafe { get_proc(c"eglGetPlatformDisplayEXT".as_ptr()) };
        if query.is_null() || platform.is_null() {
            return Err(egl_err(
                "eglInitialize of the default display (and no EGL_EXT_device_enumeration)",
            ));
        }
        let query: unsafe extern "C" fn(c_int, *mut *mut c_void, *mut c_int) -> c_uint =
            unsafe { std::mem::transmute(query) };
        let platform: unsafe extern "C" fn(c_uint, *mut c_void, *const c_int) -> Display =
            unsafe { std::mem::transmute(platform) };
        let mut devices = [ptr::null_mut(); 8];
        let mut n = 0;
        if unsafe { query(8, devices.as_mut_ptr(), &mut n) } == 0 || n == 0 {
            return Err(egl_err("eglQueryDevicesEXT"));
        }
        dpy = unsafe { platform(EGL_PLATFORM_DEVICE_EXT, devices[0], ptr::null()) };
        how = "eglGetPlatformDisplayEXT(EGL_PLATFORM_DEVICE_EXT, first of eglQueryDevicesEXT)";
        if dpy.is_null() || unsafe { initialize(dpy, &mut major, &mut minor) } == 0 {
            return Err(egl_err("eglInitialize of the EGL device's display"));
        }
    }
    println!("EGL {major}.{minor} through {how}");

    let choose: unsafe extern "C" fn(
        Display,
        *const c_int,
        *mut *mut c_void,
        c_int,
        *mut c_int,
    ) -> c_uint = unsafe { egl.sym(c"eglChooseConfig")? };
    let bind_api: unsafe extern "C" fn(c_uint) -> c_uint = unsafe { egl.sym(c"eglBindAPI")? };
    let create_pbuffer: unsafe extern "C" fn(Display, *mut c_void, *const c_int) -> *mut c_void =
        unsafe { egl.sym(c"eglCreatePbufferSurface")? };
    let create_context: unsafe extern "C" fn(
        Display,
        *mut c_void,
        *mut c_void,
        *const c_int,
    ) -> *mut c_void = unsafe { egl.sym(c"eglCreateContext")? };
    let make_current: unsafe extern "C" fn(
        Display,
        *mut c_void,
        *mut c_void,
        *mut c_void,
    ) -> c_uint = unsafe { egl.sym(c"eglMakeCurrent")? };
    let attribs = [
        EGL_SURFACE_TYPE,
        EGL_PBUFFER_BIT,
        EGL_RENDERABLE_TYPE,
        EGL_OPENGL_BIT,
        EGL_NONE,
    ];
    let (mut config, mut n) = (ptr::null_mut(), 0);
    if unsafe { choose(dpy, attribs.as_ptr(), &mut config, 1, &mut n) } == 0 || n == 0 {
        return Err(egl_err("eglChooseConfig (pbuffer, OpenGL)"));
    }
    if unsafe { bind_api(EGL_OPENGL_API) } == 0 {
        return Err(egl_err("eglBindAPI(EGL_OPENGL_API)"));
    }
    let pb = [EGL_WIDTH, 16, EGL_HEIGHT, 16, EGL_NONE];
    let surface = unsafe { create_pbuffer(dpy, config, pb.as_ptr()) };
    if surface.is_null() {
        return Err(egl_err("eglCreatePbufferSurface"));
    }
    let ctx = unsafe { create_context(dpy, config, ptr::null_mut(), [EGL_NONE].as_ptr()) };
    if ctx.is_null() {
        return Err(egl_err("eglCreateContext"));
    }
    if unsafe { make_current(dpy, surface, surface, ctx) } == 0 {
        return Err(egl_err("eglMakeCurrent"));
    }

    // OpenGL functions: through eglGetProcAddress, else libOpenGL's exports.
    let opengl = Lib::open(&[c"libOpenGL.so.0", c"libGL.so.1"]).ok();
    let gl = |name: &CStr| -> Result<*mut c_void, String> {
        let p = unsafe { get_proc(name.as_ptr()) };
        if !p.is_null() {
            return Ok(p);
        }
        match &opengl {
            Some(l) => unsafe { l.sym::<*mut c_void>(name) },
            None => Err(format!("no OpenGL function {name:?}")),
        }
    };
    let get_string: unsafe extern "C" fn(c_uint) -> *const c_char =
        unsafe { std::mem::transmute(gl(c"glGetString")?) };
    let gen_buffers: unsafe extern "C" fn(c_int, *mut GLuint) =
        unsafe { std::mem::transmute(gl(c"glGenBuffers")?) };
    let bind_buffer: unsafe extern "C" fn(c_uint, GLuint) =
        unsafe { std::mem::transmute(gl(c"glBindBuffer")?) };
    let buffer_data: unsafe extern "C" fn(c_uint, isize, *const c_void, c_uint) =
        unsafe { std::mem::transmute(gl(c"glBufferData")?) };
    let get_buffer_sub_data: unsafe extern "C" fn(c_uint, isize, isize, *mut c_void) =
        unsafe { std::mem::transmute(gl(c"glGetBufferSubData")?) };
    let finish: unsafe extern "C" fn() = unsafe { std::mem::transmute(gl(c"glFinish")?) };
    let s = |p: *const c_char| {
        if p.is_null() {
            "?".to_string()
        } else {
            unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
        }
    };
    println!(
        "OpenGL {} on {}",
        s(unsafe { get_string(GL_VERSION) }),
        s(unsafe { get_string(GL_RENDERER) })
    );

    // A buffer of N zeroed words.
    const N: usize = 1 << 20;
    let zeros = vec![0u32; N];
    let mut buffer: GLuint = 0;
    unsafe {
        gen_buffers(1, &mut buffer);
        bind_buffer(GL_ARRAY_BUFFER, buffer);
        buffer_data(
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
    check_cu!(cuInit(0));
    let (mut count, mut devices) = (0u32, [0 as CUdevice; 4]);
    check_cu!(cuGLGetDevices(
        &mut count,
        devices.as_mut_ptr(),
        4,
        CU_GL_DEVICE_LIST_ALL
    ));
    assert!(
        count > 0,
        "cuGLGetDevices: no CUDA device for this OpenGL context"
    );
    let mut ctx: CUcontext = ptr::null_mut();
    check_cu!(cuDevicePrimaryCtxRetain(&mut ctx, devices[0]));
    check_cu!(cuCtxSetCurrent(ctx));

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
        cuGLCtxCreate(&mut gl_ctx, 0, devices[0])
    }) {
        let mut current: CUcontext = ptr::null_mut();
        check_cu!(cuCtxGetCurrent(&mut current));
        assert_eq!(current, gl_ctx, "cuGLCtxCreate's context is current");
        check_cu!(cuCtxDestroy(gl_ctx));
        check_cu!(cuCtxSetCurrent(ctx));
    }
    check_cu!(cuDevicePrimaryCtxRelease(devices[0]));
    Ok(())
}
