//! What the examples share: printing values the way C's `printf` prints them, so that an example
//! and its C twin (`examples/<name>.cpp`) print the same text. Not an example itself (cargo takes
//! `examples/<name>.rs` and `examples/<name>/main.rs`, not `mod.rs`); each example includes it with
//! `#[path = "common/mod.rs"] mod common;`.
#![allow(dead_code)] // every example uses only some of these

use std::borrow::Cow;
use std::ffi::{c_char, c_void, CStr, CString, OsStr};
use std::fmt;
use std::path::PathBuf;

/// The file `file` in the kernels folder `dir` (`argv[1]`, any bytes the system passes, as C
/// takes them): C's `"%s/<file>"` of the folder, the whole path however long (the twins build it
/// the same way).
pub fn kernel_path(dir: &OsStr, file: &str) -> PathBuf {
    let mut path = dir.to_owned();
    path.push("/");
    path.push(file);
    path.into()
}

/// A path as the C string the driver takes (`cuModuleLoad`'s `fname`): its bytes as the system
/// gave them.
pub fn c_path(path: PathBuf) -> CString {
    // A path made of program arguments holds no NUL: the system passes them as C strings.
    CString::new(path.into_os_string().into_encoded_bytes()).expect("a path without NUL")
}

/// A pointer printed as C's `%p` prints it (glibc): `(nil)` for null, else `0x` and the address in
/// lowercase hexadecimal. Made by [`p`].
#[derive(Clone, Copy)]
pub struct Pointer(*const c_void);

impl fmt::Display for Pointer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_null() {
            f.write_str("(nil)")
        } else {
            write!(f, "{:#x}", self.0 as usize)
        }
    }
}

/// `printf("%p", ptr)`: `println!("{}", p(ptr))`.
pub fn p<T>(ptr: *const T) -> Pointer {
    Pointer(ptr.cast())
}

/// `printf("%s", str)` of a C string: its bytes up to the NUL (as UTF-8, invalid bytes replaced),
/// or `(null)` for a null pointer, as glibc prints it.
///
/// # Safety
/// `str` is null or points to a NUL-terminated string.
pub unsafe fn s<'a>(str: *const c_char) -> Cow<'a, str> {
    if str.is_null() {
        Cow::Borrowed("(null)")
    } else {
        // SAFETY: the caller's contract.
        unsafe { CStr::from_ptr(str) }.to_string_lossy()
    }
}

/// A C function pointer (`unsafe extern "C" fn(..) -> R`, what a `PFN_*` type holds), which C
/// code may cast to `void*`. Implemented for the function pointers of up to 16 parameters and the
/// variadic `fn(...)` only, so that [`pfn_ptr`] takes nothing else.
pub trait FunctionPointer: Copy {
    /// The function's address, as C's `(void*)pfn`.
    fn address(self) -> *mut c_void;
}

macro_rules! function_pointer {
    ($($arg:ident),*) => {
        impl<R, $($arg),*> FunctionPointer for unsafe extern "C" fn($($arg),*) -> R {
            fn address(self) -> *mut c_void {
                self as *mut c_void
            }
        }
    };
}
function_pointer!();
function_pointer!(A);
function_pointer!(A, B);
function_pointer!(A, B, C);
function_pointer!(A, B, C, D);
function_pointer!(A, B, C, D, E);
function_pointer!(A, B, C, D, E, F);
function_pointer!(A, B, C, D, E, F, G);
function_pointer!(A, B, C, D, E, F, G, H);
function_pointer!(A, B, C, D, E, F, G, H, I);
function_pointer!(A, B, C, D, E, F, G, H, I, J);
function_pointer!(A, B, C, D, E, F, G, H, I, J, K);
function_pointer!(A, B, C, D, E, F, G, H, I, J, K, L);
function_pointer!(A, B, C, D, E, F, G, H, I, J, K, L, M);
function_pointer!(A, B, C, D, E, F, G, H, I, J, K, L, M, N);
function_pointer!(A, B, C, D, E, F, G, H, I, J, K, L, M, N, O);
function_pointer!(A, B, C, D, E, F, G, H, I, J, K, L, M, N, O, P);

/// C's `CUresult cuFoo(...)`, an unprototyped (variadic) function pointer.
impl<R> FunctionPointer for unsafe extern "C" fn(...) -> R {
    fn address(self) -> *mut c_void {
        self as *mut c_void
    }
}

/// C's `(void*)pfn` of a `PFN_*` value (an `Option` of a C function pointer): the function's
/// address, null for `None`.
pub fn pfn_ptr<F: FunctionPointer>(pfn: Option<F>) -> *mut c_void {
    pfn.map_or(std::ptr::null_mut(), F::address)
}
