//! What the OpenGL and EGL interop tests (`gl_interop.rs`, `egl_interop.rs`) share: an OpenGL
//! context through headless EGL (libEGL and libOpenGL opened at run time, as the crate itself
//! needs neither), the OpenGL calls they make, CUDA on the context's device, texel patterns,
//! copies between host memory and a CUDA array, and the report of their checks with the controls
//! that make one fail (`CUDA_GL_CONTROL=<name>`).

use std::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::ptr;
use std::time::{Duration, Instant};

use cuda_driver_sys::*;

// EGL/egl.h, EGL/eglext.h and GL/gl.h values (glvnd 1.6 headers, Debian bookworm).
pub const EGL_NONE: c_int = 0x3038;
const EGL_EXTENSIONS: c_int = 0x3055;
const EGL_SURFACE_TYPE: c_int = 0x3033;
const EGL_PBUFFER_BIT: c_int = 0x0001;
const EGL_RENDERABLE_TYPE: c_int = 0x3040;
const EGL_OPENGL_BIT: c_int = 0x0008;
const EGL_WIDTH: c_int = 0x3057;
const EGL_HEIGHT: c_int = 0x3056;
const EGL_OPENGL_API: c_uint = 0x30A2;
const EGL_PLATFORM_DEVICE_EXT: c_uint = 0x313F;
pub const GL_TEXTURE_2D: c_uint = 0x0DE1;
const GL_RGBA8: c_uint = 0x8058;
const GL_RGBA: c_uint = 0x1908;
const GL_UNSIGNED_BYTE: c_uint = 0x1401;
const GL_TEXTURE_MIN_FILTER: c_uint = 0x2801;
const GL_TEXTURE_MAG_FILTER: c_uint = 0x2800;
const GL_NEAREST: c_int = 0x2600;
const GL_NEAREST_MIPMAP_NEAREST: c_int = 0x2700;
const GL_RENDERER: c_uint = 0x1F01;
const GL_VERSION: c_uint = 0x1F02;

/// The environment variable that names a control: a deliberately wrong variant of one step that
/// must make one named check fail.
pub const CONTROL_VARIABLE: &str = "CUDA_GL_CONTROL";

/// Whether `CUDA_GL_CONTROL` names the control `name`.
pub fn control(name: &str) -> bool {
    std::env::var_os(CONTROL_VARIABLE).is_some_and(|asked| asked == name)
}

/// Fails where `CUDA_GL_CONTROL` names none of `known` (this test binary's controls), so that a
/// misspelt control never passes for a run of the checks it meant to break.
pub fn check_control(known: &[&str]) {
    if let Some(asked) = std::env::var_os(CONTROL_VARIABLE) {
        assert!(
            known.iter().any(|k| asked == *k),
            "{CONTROL_VARIABLE}={asked:?} names no control of this test; its controls: {known:?}"
        );
        println!("control: {}", asked.to_string_lossy());
    }
}

/// The checks of one test: each prints its line, a failed one also `FAILED: <what>`;
/// [`Checks::finish`] fails the test when one did.
#[derive(Default)]
pub struct Checks {
    failed: Vec<String>,
}

impl Checks {
    /// `what: ok`, else `FAILED: what`.
    #[allow(dead_code)] // egl_interop's
    pub fn expect(&mut self, ok: bool, what: &str) {
        if ok {
            println!("{what}: ok");
        }
        self.record(ok, what);
    }

    /// `what: <same> of <expected.len()>`, the elements of `got` equal to `expected`'s, and a check
    /// that all were (the first difference printed where one is not), `FAILED: what` if not.
    pub fn all(&mut self, what: &str, got: &[u32], expected: &[u32]) {
        let same = got.iter().zip(expected).filter(|(g, e)| g == e).count();
        println!("{what}: {same} of {}", expected.len());
        if let Some(i) = (0..expected.len()).find(|&i| got.get(i) != Some(&expected[i])) {
            println!(
                "  first difference at element {i}: {:#010x}, expected {:#010x}",
                got.get(i).copied().unwrap_or(0),
                expected[i]
            );
        }
        self.record(same == expected.len() && got.len() == expected.len(), what);
    }

    /// `FAILED: what` and the failure kept, where `ok` is false.
    fn record(&mut self, ok: bool, what: &str) {
        if !ok {
            println!("FAILED: {what}");
            self.failed.push(what.to_string());
        }
    }

    /// Fails the test where a check failed.
    pub fn finish(self) {
        assert!(
            self.failed.is_empty(),
            "{} check(s) failed: {:?}",
            self.failed.len(),
            self.failed
        );
    }
}

/// The name `cuGetErrorName` gives `code`.
pub fn result_name(code: CUresult) -> String {
    let mut name: *const c_char = ptr::null();
    if unsafe { cuGetErrorName(code, &mut name) } != CUDA_SUCCESS || name.is_null() {
        return format!("CUresult {}", code.0);
    }
    unsafe { CStr::from_ptr(name) }
        .to_string_lossy()
        .into_owned()
}

/// A driver call that must succeed: else the test fails, naming the call and the driver's answer.
macro_rules! check_cu {
    ($e:expr) => {{
        let code = unsafe { $e };
        assert!(
            code == CUDA_SUCCESS,
            "{} failed: {}",
            stringify!($e),
            $crate::headless_gl::result_name(code)
        );
    }};
}

/// Polls `poll` until it gives `Some`, for at most `limit`: every wait of these tests is bounded.
#[allow(dead_code)] // egl_interop's
pub fn wait_for<T>(limit: Duration, mut poll: impl FnMut() -> Option<T>) -> Option<T> {
    let start = Instant::now();
    loop {
        if let Some(v) = poll() {
            return Some(v);
        }
        if start.elapsed() > limit {
            return None;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// A texel pattern: `width * height` RGBA8 texels as 32-bit words, distinct per `seed`, `level`
/// and position, none zero (textures start zeroed).
pub fn pattern(seed: u32, level: u32, width: usize, height: usize) -> Vec<u32> {
    let mut texels = Vec::with_capacity(width * height);
    for y in 0..height as u32 {
        for x in 0..width as u32 {
            let mut v = seed.wrapping_mul(0x2545_F491)
                ^ level.wrapping_mul(0x9E37_79B9)
                ^ y.wrapping_mul(0x85EB_CA6B)
                ^ x.wrapping_mul(0xC2B2_AE35);
            v ^= v >> 16;
            v = v.wrapping_mul(0x7FEB_352D);
            v ^= v >> 15;
            texels.push(v | 1);
        }
    }
    texels
}

/// One side of a copy on the device: a CUDA array, or pitched device memory (its pitch in bytes).
#[derive(Clone, Copy)]
pub enum Surface {
    Array(CUarray),
    #[allow(dead_code)] // egl_interop's
    Pitched(CUdeviceptr, usize),
}

/// A copy between host texels (`width * height` words, tightly packed) and `surface`
/// (`to_surface`: host to surface; else surface to host), through `cuMemcpy3D`, or on `stream`
/// through `cuMemcpy3DAsync` (then `texels` must be page-locked, so that the call does not wait
/// for the copy).
pub fn copy_3d(
    surface: Surface,
    texels: &mut [u32],
    width: usize,
    height: usize,
    to_surface: bool,
    stream: Option<CUstream>,
) {
    assert_eq!(texels.len(), width * height, "the host texels' size");
    let mut copy = CUDA_MEMCPY3D {
        WidthInBytes: width * 4,
        Height: height,
        Depth: 1,
        ..Default::default()
    };
    let (memory_type, array, device, pitch) = match surface {
        Surface::Array(a) => (CU_MEMORYTYPE_ARRAY, a, 0, 0),
        Surface::Pitched(d, pitch) => (CU_MEMORYTYPE_DEVICE, ptr::null_mut(), d, pitch),
    };
    if to_surface {
        copy.srcMemoryType = CU_MEMORYTYPE_HOST;
        copy.srcHost = texels.as_ptr() as *const c_void;
        copy.srcPitch = width * 4;
        copy.srcHeight = height;
        copy.dstMemoryType = memory_type;
        copy.dstArray = array;
        copy.dstDevice = device;
        copy.dstPitch = pitch;
        copy.dstHeight = height;
    } else {
        copy.srcMemoryType = memory_type;
        copy.srcArray = array;
        copy.srcDevice = device;
        copy.srcPitch = pitch;
        copy.srcHeight = height;
        copy.dstMemoryType = CU_MEMORYTYPE_HOST;
        copy.dstHost = texels.as_mut_ptr() as *mut c_void;
        copy.dstPitch = width * 4;
        copy.dstHeight = height;
    }
    match stream {
        Some(stream) => check_cu!(cuMemcpy3DAsync(&copy, stream)),
        None => check_cu!(cuMemcpy3D(&copy)),
    }
}

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

    /// The symbol `name`, non-null.
    fn sym(&self, name: &CStr) -> Result<*mut c_void, String> {
        let p = unsafe { libc::dlsym(self.0, name.as_ptr()) };
        if p.is_null() {
            return Err(format!("{} has no {name:?}", self.1));
        }
        Ok(p)
    }
}

/// A table of C functions found by name: each field is typed, its C name given with it.
macro_rules! functions {
    (
        $(#[$m:meta])* $table:ident {
            $($(#[$fm:meta])* $field:ident = $name:literal: fn($($arg:ty),*) $(-> $ret:ty)?;)*
        }
    ) => {
        $(#[$m])*
        pub struct $table {
            $($(#[$fm])* pub $field: unsafe extern "C" fn($($arg),*) $(-> $ret)?,)*
        }
        impl $table {
            /// Each function, from `find`, or the first one it cannot find.
            fn load(find: impl Fn(&CStr) -> Result<*mut c_void, String>) -> Result<Self, String> {
                Ok($table {
                    $($field: {
                        let p = find($name)?;
                        // SAFETY: `p` is the non-null address of the C function `$name`, whose
                        // prototype (the EGL and OpenGL headers') is the field's type.
                        unsafe {
                            std::mem::transmute::<
                                *mut c_void,
                                unsafe extern "C" fn($($arg),*) $(-> $ret)?,
                            >(p)
                        }
                    },)*
                })
            }
        }
    };
}

functions! {
    /// The EGL 1.4 functions of libEGL the tests call (extension functions come through
    /// [`Headless::proc`]).
    Egl {
        get_proc_address = c"eglGetProcAddress": fn(*const c_char) -> *mut c_void;
        get_error = c"eglGetError": fn() -> c_int;
        get_display = c"eglGetDisplay": fn(*mut c_void) -> *mut c_void;
        initialize = c"eglInitialize": fn(*mut c_void, *mut c_int, *mut c_int) -> c_uint;
        query_string = c"eglQueryString": fn(*mut c_void, c_int) -> *const c_char;
        choose_config = c"eglChooseConfig":
            fn(*mut c_void, *const c_int, *mut *mut c_void, c_int, *mut c_int) -> c_uint;
        bind_api = c"eglBindAPI": fn(c_uint) -> c_uint;
        create_pbuffer_surface = c"eglCreatePbufferSurface":
            fn(*mut c_void, *mut c_void, *const c_int) -> *mut c_void;
        create_context = c"eglCreateContext":
            fn(*mut c_void, *mut c_void, *mut c_void, *const c_int) -> *mut c_void;
        make_current = c"eglMakeCurrent":
            fn(*mut c_void, *mut c_void, *mut c_void, *mut c_void) -> c_uint;
    }
}

functions! {
    /// The OpenGL functions the tests call (each test its share of them).
    #[allow(dead_code)]
    Gl {
        get_string = c"glGetString": fn(c_uint) -> *const c_char;
        get_error = c"glGetError": fn() -> c_uint;
        finish = c"glFinish": fn();
        flush = c"glFlush": fn();
        gen_buffers = c"glGenBuffers": fn(c_int, *mut GLuint);
        bind_buffer = c"glBindBuffer": fn(c_uint, GLuint);
        buffer_data = c"glBufferData": fn(c_uint, isize, *const c_void, c_uint);
        get_buffer_sub_data = c"glGetBufferSubData": fn(c_uint, isize, isize, *mut c_void);
        gen_textures = c"glGenTextures": fn(c_int, *mut GLuint);
        delete_textures = c"glDeleteTextures": fn(c_int, *const GLuint);
        bind_texture = c"glBindTexture": fn(c_uint, GLuint);
        tex_parameter_i = c"glTexParameteri": fn(c_uint, c_uint, c_int);
        tex_storage_2d = c"glTexStorage2D": fn(c_uint, c_int, c_uint, c_int, c_int);
        tex_sub_image_2d = c"glTexSubImage2D":
            fn(c_uint, c_int, c_int, c_int, c_int, c_int, c_uint, c_uint, *const c_void);
        get_tex_image = c"glGetTexImage": fn(c_uint, c_int, c_uint, c_uint, *mut c_void);
        copy_image_sub_data = c"glCopyImageSubData": fn(
            GLuint, c_uint, c_int, c_int, c_int, c_int, // the source: name, target, level, x, y, z
            GLuint, c_uint, c_int, c_int, c_int, c_int, // the destination
            c_int, c_int, c_int // width, height, depth
        );
    }
}

impl Egl {
    /// `what failed, eglGetError() = <code>`.
    fn error(&self, what: &str) -> String {
        format!("{what} failed, eglGetError() = {:#x}", unsafe {
            (self.get_error)()
        })
    }

    /// The EGL extension function `name` from `eglGetProcAddress`, as `F`.
    ///
    /// # Safety
    /// `F` must be the `unsafe extern "C" fn` type of `name` (EGL/eglext.h).
    unsafe fn proc<F: Copy>(&self, name: &CStr) -> Result<F, String> {
        const { assert!(size_of::<F>() == size_of::<*mut c_void>()) };
        let p = unsafe { (self.get_proc_address)(name.as_ptr()) };
        if p.is_null() {
            return Err(format!("eglGetProcAddress({name:?}) found none"));
        }
        Ok(unsafe { std::mem::transmute_copy::<*mut c_void, F>(&p) })
    }

    /// EGL's default display, else (without a display server) the first EGL device's,
    /// initialized; prints `EGL <version> through <how>`.
    fn display(&self) -> Result<*mut c_void, String> {
        let (mut major, mut minor) = (0, 0);
        let mut dpy = unsafe { (self.get_display)(ptr::null_mut()) };
        let mut how = "eglGetDisplay(EGL_DEFAULT_DISPLAY)";
        if dpy.is_null() || unsafe { (self.initialize)(dpy, &mut major, &mut minor) } == 0 {
            let query: unsafe extern "C" fn(c_int, *mut *mut c_void, *mut c_int) -> c_uint =
                unsafe { self.proc(c"eglQueryDevicesEXT") }
                    .map_err(|e| format!("eglInitialize of the default display failed, and {e}"))?;
            let platform: unsafe extern "C" fn(c_uint, *mut c_void, *const c_int) -> *mut c_void =
                unsafe { self.proc(c"eglGetPlatformDisplayEXT") }?;
            let mut devices = [ptr::null_mut(); 8];
            let mut n = 0;
            if unsafe { query(8, devices.as_mut_ptr(), &mut n) } == 0 || n == 0 {
                return Err(self.error("eglQueryDevicesEXT"));
            }
            dpy = unsafe { platform(EGL_PLATFORM_DEVICE_EXT, devices[0], ptr::null()) };
            how = "eglGetPlatformDisplayEXT(EGL_PLATFORM_DEVICE_EXT, first of eglQueryDevicesEXT)";
            if dpy.is_null() || unsafe { (self.initialize)(dpy, &mut major, &mut minor) } == 0 {
                return Err(self.error("eglInitialize of the EGL device's display"));
            }
        }
        println!("EGL {major}.{minor} through {how}");
        Ok(dpy)
    }

    /// An OpenGL context of `dpy` with a small pbuffer, made current on this thread.
    fn context(&self, dpy: *mut c_void) -> Result<*mut c_void, String> {
        let attribs = [
            EGL_SURFACE_TYPE,
            EGL_PBUFFER_BIT,
            EGL_RENDERABLE_TYPE,
            EGL_OPENGL_BIT,
            EGL_NONE,
        ];
        let (mut config, mut n) = (ptr::null_mut(), 0);
        if unsafe { (self.choose_config)(dpy, attribs.as_ptr(), &mut config, 1, &mut n) } == 0
            || n == 0
        {
            return Err(self.error("eglChooseConfig (pbuffer, OpenGL)"));
        }
        if unsafe { (self.bind_api)(EGL_OPENGL_API) } == 0 {
            return Err(self.error("eglBindAPI(EGL_OPENGL_API)"));
        }
        let pb = [EGL_WIDTH, 16, EGL_HEIGHT, 16, EGL_NONE];
        let surface = unsafe { (self.create_pbuffer_surface)(dpy, config, pb.as_ptr()) };
        if surface.is_null() {
            return Err(self.error("eglCreatePbufferSurface"));
        }
        let none = [EGL_NONE];
        let ctx = unsafe { (self.create_context)(dpy, config, ptr::null_mut(), none.as_ptr()) };
        if ctx.is_null() {
            return Err(self.error("eglCreateContext"));
        }
        if unsafe { (self.make_current)(dpy, surface, surface, ctx) } == 0 {
            return Err(self.error("eglMakeCurrent"));
        }
        Ok(ctx)
    }
}

/// An OpenGL context current on this thread, through EGL with no display server.
#[allow(dead_code)] // the display and context: egl_interop's
pub struct Headless {
    egl: Egl,
    /// The EGL display.
    pub display: *mut c_void,
    /// The EGL context, current on this thread.
    pub context: *mut c_void,
    /// The OpenGL functions.
    pub gl: Gl,
}

impl Headless {
    /// EGL's default display, else (without a display server) the first EGL device's; an OpenGL
    /// context with a small pbuffer, made current. Prints `EGL <version> through <how>` and
    /// `OpenGL <version> on <renderer>`. When EGL or OpenGL cannot come up, says at which call,
    /// with EGL's error code.
    pub fn up() -> Result<Headless, String> {
        // The libraries stay loaded for the process: their functions are kept.
        let lib = Lib::open(&[c"libEGL.so.1", c"libEGL.so"])?;
        let egl = Egl::load(|name| lib.sym(name))?;
        let display = egl.display()?;
        let context = egl.context(display)?;
        // OpenGL functions: through eglGetProcAddress, else libOpenGL's exports.
        let opengl = Lib::open(&[c"libOpenGL.so.0", c"libGL.so.1"]).ok();
        let gl = Gl::load(|name| {
            let p = unsafe { (egl.get_proc_address)(name.as_ptr()) };
            if !p.is_null() {
                return Ok(p);
            }
            match &opengl {
                Some(l) => l.sym(name),
                None => Err(format!("no OpenGL function {name:?}")),
            }
        })?;
        let s = |p: *const c_char| {
            if p.is_null() {
                "?".to_string()
            } else {
                unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
            }
        };
        println!(
            "OpenGL {} on {}",
            s(unsafe { (gl.get_string)(GL_VERSION) }),
            s(unsafe { (gl.get_string)(GL_RENDERER) })
        );
        Ok(Headless {
            egl,
            display,
            context,
            gl,
        })
    }

    /// `what failed, eglGetError() = <code>`.
    #[allow(dead_code)] // egl_interop's
    pub fn error(&self, what: &str) -> String {
        self.egl.error(what)
    }

    /// The EGL extension function `name` from `eglGetProcAddress`, as `F`.
    ///
    /// # Safety
    /// `F` must be the `unsafe extern "C" fn` type of `name` (EGL/eglext.h).
    #[allow(dead_code)] // egl_interop's
    pub unsafe fn proc<F: Copy>(&self, name: &CStr) -> Result<F, String> {
        unsafe { self.egl.proc(name) }
    }

    /// EGL's extensions: the client's (`display` false: `eglQueryString(EGL_NO_DISPLAY, ...)`)
    /// or the display's.
    pub fn extensions(&self, display: bool) -> String {
        let dpy = if display {
            self.display
        } else {
            ptr::null_mut()
        };
        let p = unsafe { (self.egl.query_string)(dpy, EGL_EXTENSIONS) };
        if p.is_null() {
            return String::new();
        }
        unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
    }

    /// Prints EGL's client and display extensions, then each of `relied_on` (display extensions)
    /// as present or absent; fails naming those absent.
    pub fn require(&self, relied_on: &[&str]) -> Result<(), String> {
        println!("EGL client extensions: {}", self.extensions(false));
        let display = self.extensions(true);
        println!("EGL display extensions: {display}");
        let absent: Vec<&str> = relied_on
            .iter()
            .copied()
            .filter(|e| !display.split_whitespace().any(|d| d == *e))
            .collect();
        for e in relied_on {
            let there = if absent.contains(e) {
                "absent"
            } else {
                "present"
            };
            println!("EGL extension {e}: {there}");
        }
        if absent.is_empty() {
            Ok(())
        } else {
            Err(format!("the EGL display lacks {absent:?}"))
        }
    }

    /// Fails naming `what` where OpenGL recorded an error.
    pub fn gl_ok(&self, what: &str) -> Result<(), String> {
        match unsafe { (self.gl.get_error)() } {
            0 => Ok(()),
            e => Err(format!("{what}: glGetError() = {e:#x}")),
        }
    }

    /// A 2D RGBA8 texture of `levels` levels (`glTexStorage2D`), nearest filtering, every level
    /// zeroed.
    pub fn texture(&self, width: usize, height: usize, levels: u32) -> Result<GLuint, String> {
        let gl = &self.gl;
        let mut tex: GLuint = 0;
        let min = if levels > 1 {
            GL_NEAREST_MIPMAP_NEAREST
        } else {
            GL_NEAREST
        };
        unsafe {
            (gl.gen_textures)(1, &mut tex);
            (gl.bind_texture)(GL_TEXTURE_2D, tex);
            (gl.tex_parameter_i)(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, min);
            (gl.tex_parameter_i)(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
            (gl.tex_storage_2d)(
                GL_TEXTURE_2D,
                levels as c_int,
                GL_RGBA8,
                width as c_int,
                height as c_int,
            );
        }
        self.gl_ok("glTexStorage2D")?;
        for level in 0..levels {
            let (w, h) = level_size(width, height, level);
            self.write_texture(tex, level, w, h, &vec![0; w * h])?;
        }
        Ok(tex)
    }

    /// `texels` into level `level` (`width` x `height`) of `tex` (`glTexSubImage2D`).
    pub fn write_texture(
        &self,
        tex: GLuint,
        level: u32,
        width: usize,
        height: usize,
        texels: &[u32],
    ) -> Result<(), String> {
        assert_eq!(texels.len(), width * height, "the texels' size");
        let gl = &self.gl;
        unsafe {
            (gl.bind_texture)(GL_TEXTURE_2D, tex);
            (gl.tex_sub_image_2d)(
                GL_TEXTURE_2D,
                level as c_int,
                0,
                0,
                width as c_int,
                height as c_int,
                GL_RGBA,
                GL_UNSIGNED_BYTE,
                texels.as_ptr() as *const c_void,
            );
        }
        self.gl_ok("glTexSubImage2D")
    }

    /// Level `level` (`width` x `height`) of `tex`, as GL reads it (`glGetTexImage`).
    #[allow(dead_code)] // gl_interop's; egl_interop reads through CUDA only
    pub fn read_texture(
        &self,
        tex: GLuint,
        level: u32,
        width: usize,
        height: usize,
    ) -> Result<Vec<u32>, String> {
        let gl = &self.gl;
        let mut texels = vec![0u32; width * height];
        unsafe {
            (gl.bind_texture)(GL_TEXTURE_2D, tex);
            (gl.get_tex_image)(
                GL_TEXTURE_2D,
                level as c_int,
                GL_RGBA,
                GL_UNSIGNED_BYTE,
                texels.as_mut_ptr() as *mut c_void,
            );
            (gl.finish)();
        }
        self.gl_ok("glGetTexImage")?;
        Ok(texels)
    }
}

/// The size of mipmap level `level` of a `width` x `height` texture.
pub fn level_size(width: usize, height: usize, level: u32) -> (usize, usize) {
    ((width >> level).max(1), (height >> level).max(1))
}

/// CUDA on the current OpenGL context's device (the first `cuGLGetDevices` gives): `cuInit`, its
/// primary context retained and made current.
pub fn cuda_on_gl_device() -> (CUdevice, CUcontext) {
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
    (devices[0], ctx)
}
