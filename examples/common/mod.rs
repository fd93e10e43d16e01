//! What the examples share: printing values the way C's `printf` prints them, so that an example
//! and its C twin (`examples/<name>.cpp`) print the same text. Not an example itself (cargo takes
//! `examples/<name>.rs` and `examples/<name>/main.rs`, not `mod.rs`); each example includes it with
//! `#[path = "common/mod.rs"] mod common;`.
#![allow(dead_code)] // every example uses only some of these

use std::borrow::Cow;
use std::ffi::{c_char, c_void, CStr};
use std::fmt;

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

/// C's `(void*)pfn` of a `PFN_*` function pointer (an `Option<unsafe extern "C" fn(..)>`): the
/// function's address, null for `None`.
pub fn pfn_ptr<F: Copy>(pfn: Option<F>) -> *mut c_void {
    const { assert!(size_of::<Option<F>>() == size_of::<*mut c_void>()) };
    // SAFETY: `Option` of a function pointer has the layout of a nullable pointer (checked above:
    // only function pointers and the like, which have a null niche, pass); `None` is null.
    unsafe { std::mem::transmute_copy::<Option<F>, *mut c_void>(&pfn) }
}
