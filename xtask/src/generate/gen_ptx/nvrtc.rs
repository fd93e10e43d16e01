//! NVRTC, the library of the pinned wheel loaded with dlopen: one CUDA C source to PTX. The output
//! depends only on the source text, the options and the NVRTC build: the program is given the
//! source's base name, and nothing else (paths, time) reaches NVRTC.

use crate::base::Result;
use fs_err as fs;
use libloading::Library;
use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::path::Path;

type Program = *mut c_void;

/// The NVRTC functions used, resolved from the library, which stays loaded while they are. Load
/// it once for all the sources: NVRTC numbers some labels (`callseq`) across the programs of a
/// loaded library, which the committed PTX shows.
pub struct Nvrtc {
    get_error_string: unsafe extern "C" fn(c_int) -> *const c_char,
    create_program: unsafe extern "C" fn(
        *mut Program,
        *const c_char,
        *const c_char,
        c_int,
        *const *const c_char,
        *const *const c_char,
    ) -> c_int,
    compile_program: unsafe extern "C" fn(Program, c_int, *const *const c_char) -> c_int,
    get_program_log_size: unsafe extern "C" fn(Program, *mut usize) -> c_int,
    get_program_log: unsafe extern "C" fn(Program, *mut c_char) -> c_int,
    get_ptx_size: unsafe extern "C" fn(Program, *mut usize) -> c_int,
    get_ptx: unsafe extern "C" fn(Program, *mut c_char) -> c_int,
    destroy_program: unsafe extern "C" fn(*mut Program) -> c_int,
    _library: Library,
}

impl Nvrtc {
    /// NVRTC from the library `path`.
    pub fn load(path: &Path) -> Result<Self> {
        // SAFETY: NVRTC's library, whose initializers are sound to run; kept in the struct.
        let library = unsafe { Library::new(path) }.map_err(|e| format!("{e}"))?;
        // SAFETY: each symbol is NVRTC's function of that name, whose C signature (nvrtc.h) the
        // field's type spells; the library stays loaded while `Nvrtc` lives.
        unsafe fn symbol<F: Copy>(library: &Library, path: &Path, name: &str) -> Result<F> {
            let symbol = unsafe { library.get::<F>(name.as_bytes()) };
            Ok(*symbol.map_err(|e| format!("{}: no {name}: {e}", path.display()))?)
        }
        unsafe {
            Ok(Self {
                get_error_string: symbol(&library, path, "nvrtcGetErrorString")?,
                create_program: symbol(&library, path, "nvrtcCreateProgram")?,
                compile_program: symbol(&library, path, "nvrtcCompileProgram")?,
                get_program_log_size: symbol(&library, path, "nvrtcGetProgramLogSize")?,
                get_program_log: symbol(&library, path, "nvrtcGetProgramLog")?,
                get_ptx_size: symbol(&library, path, "nvrtcGetPTXSize")?,
                get_ptx: symbol(&library, path, "nvrtcGetPTX")?,
                destroy_program: symbol(&library, path, "nvrtcDestroyProgram")?,
                _library: library,
            })
        }
    }
}

/// Compiles the CUDA C file `source` with `nvrtc` and `options`: its PTX (without the
/// terminating NUL). NVRTC's log goes to stderr.
pub fn compile(nvrtc: &Nvrtc, source: &Path, options: &[&str]) -> Result<Vec<u8>> {
    let text = fs::read(source)?;
    let text = CString::new(text).map_err(|_| format!("{} has a NUL byte", source.display()))?;
    let base = source.file_name().unwrap_or_default().as_encoded_bytes();
    let base = CString::new(base)?;
    let options: Vec<CString> = options
        .iter()
        .map(|o| CString::new(*o))
        .collect::<std::result::Result<_, _>>()?;
    let option_ptrs: Vec<*const c_char> = options.iter().map(|o| o.as_ptr()).collect();
    let mut program: Program = std::ptr::null_mut();
    // SAFETY: the calls follow nvrtc.h: a program created from NUL-terminated strings, buffers
    // of the sizes NVRTC reports, the program destroyed once.
    unsafe {
        // An error for the NVRTC result `result` of the call `what`, unless it is success.
        let check = |result: c_int, what: &str| -> Result {
            if result == 0 {
                return Ok(());
            }
            // NVRTC returns a static string for every result code.
            let message = CStr::from_ptr((nvrtc.get_error_string)(result)).to_string_lossy();
            Err(format!("{what} failed for {}: {message}", source.display()).into())
        };
        let null = std::ptr::null();
        let created =
            (nvrtc.create_program)(&mut program, text.as_ptr(), base.as_ptr(), 0, null, null);
        check(created, "nvrtcCreateProgram")?;
        let compiled =
            (nvrtc.compile_program)(program, option_ptrs.len() as c_int, option_ptrs.as_ptr());
        let mut size = 0;
        check(
            (nvrtc.get_program_log_size)(program, &mut size),
            "nvrtcGetProgramLogSize",
        )?;
        let mut log = vec![0u8; size];
        check(
            (nvrtc.get_program_log)(program, log.as_mut_ptr().cast()),
            "nvrtcGetProgramLog",
        )?;
        let log = String::from_utf8_lossy(until_nul(&log));
        if !log.trim().is_empty() {
            eprint!("{log}");
        }
        check(compiled, "nvrtcCompileProgram")?;
        check((nvrtc.get_ptx_size)(program, &mut size), "nvrtcGetPTXSize")?;
        let mut ptx = vec![0u8; size];
        check(
            (nvrtc.get_ptx)(program, ptx.as_mut_ptr().cast()),
            "nvrtcGetPTX",
        )?;
        (nvrtc.destroy_program)(&mut program);
        Ok(until_nul(&ptx).to_vec())
    }
}

/// `bytes` up to its first NUL.
fn until_nul(bytes: &[u8]) -> &[u8] {
    bytes.split(|b| *b == 0).next().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_missing_library_is_named() {
        let missing = std::path::Path::new("/nonexistent/libnvrtc.so.12");
        let error = super::Nvrtc::load(missing).err().unwrap().to_string();
        assert!(error.contains("/nonexistent/libnvrtc.so.12"), "{error}");
    }
}
