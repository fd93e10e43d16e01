//! The real driver library's answers the stub nvcuda.dll repeats: the name and message of every
//! result code it names (Debian's 535 on Linux; no GPU needed for these).

use crate::base::Result;
use std::ffi::{c_char, c_int, c_void, CStr, CString};

extern "C" {
    fn dlopen(filename: *const c_char, flags: c_int) -> *mut c_void;
    fn dlsym(handle: *mut c_void, symbol: *const c_char) -> *mut c_void;
    fn dlerror() -> *const c_char;
}

const RTLD_NOW: c_int = 2;

/// The highest result code asked about.
const CODES: i32 = 1000;

type StringFn = unsafe extern "C" fn(c_int, *mut *const c_char) -> c_int;

/// The loaded library's functions.
pub struct Driver {
    name: StringFn,
    message: StringFn,
    path: String,
}

impl Driver {
    /// Loads the library at `path` (never unloaded: the process is short).
    pub fn load(path: &str) -> Result<Self> {
        let c_path = CString::new(path)?;
        // SAFETY: dlopen with a NUL-terminated path; a null handle is handled.
        let handle = unsafe { dlopen(c_path.as_ptr(), RTLD_NOW) };
        if handle.is_null() {
            // SAFETY: dlerror returns null or a NUL-terminated message.
            let why = unsafe { dlerror() };
            let why = if why.is_null() {
                "?".into()
            } else {
                unsafe { CStr::from_ptr(why) }.to_string_lossy()
            };
            return Err(format!("cannot load {path}: {why}").into());
        }
        let symbol = |name: &str| -> Result<*mut c_void> {
            let c_name = CString::new(name)?;
            // SAFETY: a valid handle and a NUL-terminated name.
            let f = unsafe { dlsym(handle, c_name.as_ptr()) };
            if f.is_null() {
                return Err(format!("{path} exports no {name}").into());
            }
            Ok(f)
        };
        // SAFETY: the driver API's prototypes of these two functions.
        unsafe {
            Ok(Driver {
                name: std::mem::transmute::<*mut c_void, StringFn>(symbol("cuGetErrorName")?),
                message: std::mem::transmute::<*mut c_void, StringFn>(symbol("cuGetErrorString")?),
                path: path.to_string(),
            })
        }
    }

    /// Each code below [`CODES`] the library names: code, name, message.
    pub fn errors(&self) -> Result<Vec<(i32, String, String)>> {
        let mut errors = Vec::new();
        for code in 0..CODES {
            let Some(name) = self.string(self.name, code) else {
                continue;
            };
            let message = self.string(self.message, code).ok_or_else(|| {
                format!("{} names code {code} but has no message for it", self.path)
            })?;
            errors.push((code, name, message));
        }
        Ok(errors)
    }

    fn string(&self, f: StringFn, code: i32) -> Option<String> {
        let mut text: *const c_char = std::ptr::null();
        // SAFETY: a valid pointer; on success the library gives a static NUL-terminated string.
        let status = unsafe { f(code, &mut text) };
        (status == 0 && !text.is_null()).then(|| {
            unsafe { CStr::from_ptr(text) }
                .to_string_lossy()
                .into_owned()
        })
    }
}
