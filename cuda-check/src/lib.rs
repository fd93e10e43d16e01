//! Error checks for the CUDA Driver API that report the failing call's file, line and source text,
//! the way C programs do with their `checkDriver` macro:
//!
//! ```c
//! #define checkDriver(op)  __check_cuda_driver((op), #op, __FILE__, __LINE__)
//! bool __check_cuda_driver(CUresult code, const char* op, const char* file, int line){
//!     if(code != CUresult::CUDA_SUCCESS){
//!         const char* err_name = nullptr;
//!         const char* err_message = nullptr;
//!         cuGetErrorName(code, &err_name);
//!         cuGetErrorString(code, &err_message);
//!         printf("%s:%d  %s failed. \n  code = %s, message = %s\n", file, line, op, err_name, err_message);
//!         return false;
//!     }
//!     return true;
//! }
//! ```
//!
//! - [`check_driver!`]`(expr)` is that helper: `true` on success; on failure it prints the same
//!   report to standard output, byte for byte, and gives `false`.
//! - [`try_driver!`]`(expr)` gives `Result<(), `[`DriverError`]`>` and prints nothing, for `?`.
//! - [`expect_driver!`]`(expr)` panics with the report as the panic message.
//! - Each takes optional extra context in `format!` syntax, formatted only when the call failed:
//!   `check_driver!(unsafe { cuMemAlloc(&mut p, n) }, "allocating {n} bytes")`.
//!
//! ```
//! use cuda_check::check_driver;
//! use cuda_driver_sys::*;
//!
//! // The machine the docs are tested on has the driver library and no GPU.
//! assert!(!check_driver!(unsafe { cuInit(0) }));
//! // printed: <file>:<line>  cuInit(0) failed.
//! //            code = CUDA_ERROR_NO_DEVICE, message = no CUDA-capable device is detected
//!
//! let mut version = 0;
//! if !check_driver!(unsafe { cuDriverGetVersion(&mut version) }) {
//!     std::process::exit(1);
//! }
//! println!("Driver version is {version}");
//! ```
//!
//! # The report
//! ```text
//! <file>:<line>  <expression> failed. \n  code = <name>, message = <message>
//! ```
//! (two spaces after the line number, a space before the first newline, as in C), where
//! - `<file>` and `<line>` are [`file!`] and [`line!`] of the macro call (the line of the macro's
//!   name when the call spans several);
//! - `<expression>` is the expression's source text from [`stringify!`]: the tokens as written,
//!   with their source spacing in normal Rust style (`cuCtxCreate(&mut ctx, CU_CTX_SCHED_AUTO.0,
//!   device)`; an unusual `f (x)` reads `f(x)`). When the whole expression is an `unsafe { EXPR }`
//!   block, it is `EXPR`, so both `check_driver!(unsafe { cuInit(0) })` and
//!   `unsafe { check_driver!(cuInit(0)) }` report `cuInit(0)`, like C's `#op`. Like C's `#op`,
//!   the text is on one line, and has no trailing comma: where `stringify!` wraps a long
//!   expression over several lines, the line breaks become spaces, and the trailing comma rustfmt
//!   writes in a call laid out one argument a line is dropped (`f(a, b)`, never `f(a, b,)`; a
//!   one-element tuple keeps its comma). Literals are left as they are. All at compile time;
//! - `<name>` and `<message>` are what `cuGetErrorName` and `cuGetErrorString` return. For a code
//!   the driver does not know (they return `CUDA_ERROR_INVALID_VALUE` and no string, where C would
//!   print `(null)`), they read `<unknown CUresult N>` and `<no message for CUresult N>`, `N` the
//!   code in decimal:
//!   ```text
//!   src/main.rs:9  CUresult(12345) failed. \n  code = <unknown CUresult 12345>, message = <no message for CUresult 12345>
//!   ```
//! - where the driver library could not be loaded (`cuda-driver-sys`'s `dynamic-loading` feature
//!   on a machine without the driver), there is no driver to name or describe the code, and the
//!   report says so and why, from [`cuda_driver_sys::loader::status`]:
//!   ```text
//!   src/main.rs:9  cuInit(0) failed. \n  code = <CUresult 303, not named: no driver library>, message = <the CUDA driver library could not be loaded: tried libcuda.so.1 (libcuda.so.1: cannot open shared object file: No such file or directory), libcuda.so (libcuda.so: cannot open shared object file: No such file or directory)>
//!   ```
//! - with extra context, a third line follows: `\n  context = <context>`.
//!
//! [`check_driver!`] prints the report and a newline; [`DriverError`]'s `Display` and
//! [`expect_driver!`]'s panic message are the report without the final newline.
//!
//! The name and message are looked up once, when the error is made, and kept as the driver's own
//! static strings: formatting a [`DriverError`] never calls the driver, never panics and never
//! reads through a null pointer.
//!
//! # Safety of the macros
//! The macros never wrap the expression in an `unsafe` block of their own: calling an `unsafe`
//! driver function needs the caller's `unsafe`, written either inside the macro
//! (`check_driver!(unsafe { cuInit(0) })`) or around it (`unsafe { check_driver!(cuInit(0)) }`).
//! The expression is evaluated exactly once, and must be a [`CUresult`]. A driver call without
//! `unsafe` does not compile:
//!
//! ```compile_fail,E0133
//! use cuda_check::check_driver;
//! use cuda_driver_sys::*;
//!
//! check_driver!(cuInit(0)); // error[E0133]: call to unsafe function requires unsafe block
//! ```
//!
//! and `#![forbid(unsafe_code)]` sees the caller's `unsafe` in `check_driver!(unsafe { ... })`.
//!
//! # Features
//! - `std` (default): [`check_driver!`] and [`DriverError::print`], which print to standard
//!   output. Implies `alloc`.
//! - `alloc`: extra context, kept as a `String` in the error.
//!
//! Without them the crate is `no_std`: [`try_driver!`], [`expect_driver!`], [`DriverError`] (with
//! `Display`, `Debug` and `core::error::Error`), [`error_name`] and [`error_string`] need neither,
//! and context needs `alloc`.
//!
// Without `std` there is no `print`: the link leads to the feature's line.
#![cfg_attr(feature = "std", doc = "[`DriverError::print`]: DriverError::print")]
#![cfg_attr(not(feature = "std"), doc = "[`DriverError::print`]: crate#features")]
#![no_std]
#![warn(missing_docs)]

#[cfg(feature = "alloc")]
extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

use core::ffi::{c_char, CStr};
use core::fmt;
use core::ptr;

#[cfg(feature = "alloc")]
use alloc::string::String;
// The driver's strings are ASCII: written as text, they are byte for byte what C prints.
use cuda_driver_sys::loader::{self, write_c_str, LoadError};
use cuda_driver_sys::{cuGetErrorName, cuGetErrorString, CUresult};

mod op_text;

/// The driver's name of `code` (`"CUDA_ERROR_NO_DEVICE"`), from `cuGetErrorName`, or `None` when
/// the driver does not know the code.
///
/// Works before `cuInit`. The string is the driver's own static one.
///
/// ```
/// use cuda_check::error_name;
/// use cuda_driver_sys::CUresult;
///
/// assert_eq!(error_name(CUresult::CUDA_ERROR_NO_DEVICE), Some(c"CUDA_ERROR_NO_DEVICE"));
/// assert_eq!(error_name(CUresult(u32::MAX)), None);
/// ```
pub fn error_name(code: CUresult) -> Option<&'static CStr> {
    driver_string(cuGetErrorName, code)
}

/// The driver's description of `code` (`"no CUDA-capable device is detected"`), from
/// `cuGetErrorString`, or `None` when the driver does not know the code.
///
/// Works before `cuInit`. The string is the driver's own static one.
///
/// ```
/// use cuda_check::error_string;
/// use cuda_driver_sys::CUresult;
///
/// assert_eq!(
///     error_string(CUresult::CUDA_ERROR_NO_DEVICE),
///     Some(c"no CUDA-capable device is detected"),
/// );
/// assert_eq!(error_string(CUresult(12345)), None);
/// ```
pub fn error_string(code: CUresult) -> Option<&'static CStr> {
    driver_string(cuGetErrorString, code)
}

type StringGetter = unsafe extern "C" fn(CUresult, *mut *const c_char) -> CUresult;

fn driver_string(get: StringGetter, code: CUresult) -> Option<&'static CStr> {
    let mut s: *const c_char = ptr::null();
    // SAFETY: `s` is valid for writes; the function reads nothing else.
    let status = unsafe { get(code, &mut s) };
    if status != CUresult::CUDA_SUCCESS || s.is_null() {
        return None;
    }
    // SAFETY: on success the driver points `s` at one of its NUL-terminated static strings, which
    // live as long as the driver library, loaded with the program and never unloaded.
    Some(unsafe { CStr::from_ptr(s) })
}

/// A failed driver call: the [`CUresult`], the call's source text, file and line, the driver's
/// name and message for the code, and optional context.
///
/// Made by [`try_driver!`] (and by [`check_driver!`] and [`expect_driver!`] to report). Its
/// `Display` is the report [`check_driver!`] prints, without the final newline; its `Debug` lists
/// the fields.
///
/// ```
/// use cuda_check::{try_driver, DriverError};
/// use cuda_driver_sys::*;
///
/// fn init() -> Result<(), DriverError> {
///     try_driver!(unsafe { cuInit(0) })?;
///     Ok(())
/// }
///
/// let err = init().unwrap_err(); // no GPU here
/// assert_eq!(err.code(), CUDA_ERROR_NO_DEVICE);
/// assert_eq!(err.expr(), "cuInit(0)");
/// assert_eq!(
///     err.to_string(),
///     format!(
///         "{}:{}  cuInit(0) failed. \n  code = CUDA_ERROR_NO_DEVICE, message = no CUDA-capable device is detected",
///         err.file(),
///         err.line(),
///     ),
/// );
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct DriverError {
    code: CUresult,
    expr: &'static str,
    file: &'static str,
    line: u32,
    name: Option<&'static CStr>,
    message: Option<&'static CStr>,
    /// Why there is no driver to name the code, when that is why.
    no_library: Option<&'static LoadError>,
    #[cfg(feature = "alloc")]
    context: Option<String>,
}

impl DriverError {
    /// The error for `code` returned by the call whose source text is `expr`, at `file`:`line`.
    /// Looks up the driver's name and message of `code` now (see [`error_name`]).
    ///
    /// The macros make these; this is for code that has a [`CUresult`] already.
    ///
    /// ```
    /// use cuda_check::DriverError;
    /// use cuda_driver_sys::*;
    ///
    /// let code = unsafe { cuCtxSynchronize() }; // before cuInit
    /// let err = DriverError::new(code, "cuCtxSynchronize()", file!(), line!());
    /// assert_eq!(err.code(), CUDA_ERROR_NOT_INITIALIZED);
    /// assert_eq!(err.message(), Some(c"initialization error"));
    /// ```
    pub fn new(code: CUresult, expr: &'static str, file: &'static str, line: u32) -> Self {
        let (name, message) = (error_name(code), error_string(code));
        // No name and no message: a code the driver does not know, or no driver library at all
        // (`dynamic-loading`), which the loader has already tried when a call returned a code.
        let no_library = match (name, message, loader::status()) {
            (None, None, Some(Err(e))) => Some(e),
            _ => None,
        };
        DriverError {
            code,
            expr,
            file,
            line,
            name,
            message,
            no_library,
            #[cfg(feature = "alloc")]
            context: None,
        }
    }

    /// The same error with `context` appended to its report as a third line,
    /// `\n  context = <context>` (replacing any context it had).
    ///
    /// ```
    /// use cuda_check::DriverError;
    /// use cuda_driver_sys::*;
    ///
    /// let err = DriverError::new(CUDA_ERROR_OUT_OF_MEMORY, "cuMemAlloc(&mut p, n)", "main.rs", 7)
    ///     .with_context("allocating 100 bytes");
    /// assert_eq!(
    ///     err.to_string(),
    ///     "main.rs:7  cuMemAlloc(&mut p, n) failed. \n  code = CUDA_ERROR_OUT_OF_MEMORY, message = out of memory\n  context = allocating 100 bytes",
    /// );
    /// ```
    #[cfg(feature = "alloc")]
    #[must_use]
    pub fn with_context(mut self, context: impl Into<String>) -> Self {
        self.context = Some(context.into());
        self
    }

    /// The code the call returned.
    ///
    /// ```
    /// use cuda_check::try_driver;
    /// use cuda_driver_sys::*;
    ///
    /// let err = try_driver!(unsafe { cuInit(0) }).unwrap_err(); // no GPU here
    /// assert_eq!(err.code(), CUresult::CUDA_ERROR_NO_DEVICE);
    /// ```
    pub fn code(&self) -> CUresult {
        self.code
    }

    /// The call's source text, as the report shows it (`"cuInit(0)"`).
    ///
    /// ```
    /// use cuda_check::try_driver;
    /// use cuda_driver_sys::*;
    ///
    /// let err = unsafe { try_driver!(cuInit(0)) }.unwrap_err();
    /// assert_eq!(err.expr(), "cuInit(0)");
    /// ```
    pub fn expr(&self) -> &'static str {
        self.expr
    }

    /// The file of the macro call, from [`file!`].
    ///
    /// ```
    /// use cuda_check::try_driver;
    /// use cuda_driver_sys::*;
    ///
    /// let err = try_driver!(unsafe { cuInit(0) }).unwrap_err();
    /// assert_eq!(err.file(), file!());
    /// ```
    pub fn file(&self) -> &'static str {
        self.file
    }

    /// The line of the macro call, from [`line!`].
    ///
    /// ```
    /// use cuda_check::try_driver;
    /// use cuda_driver_sys::*;
    ///
    /// let err = try_driver!(unsafe { cuInit(0) }).unwrap_err();
    /// assert_eq!(err.line(), line!() - 1);
    /// ```
    pub fn line(&self) -> u32 {
        self.line
    }

    /// The driver's name of the code (`cuGetErrorName`), `None` when the driver does not know it.
    ///
    /// ```
    /// use cuda_check::try_driver;
    /// use cuda_driver_sys::*;
    ///
    /// let err = try_driver!(unsafe { cuInit(0) }).unwrap_err();
    /// assert_eq!(err.name(), Some(c"CUDA_ERROR_NO_DEVICE"));
    /// assert_eq!(try_driver!(CUresult(100_000)).unwrap_err().name(), None);
    /// ```
    pub fn name(&self) -> Option<&'static CStr> {
        self.name
    }

    /// The driver's message for the code (`cuGetErrorString`), `None` when the driver does not
    /// know it.
    ///
    /// ```
    /// use cuda_check::try_driver;
    /// use cuda_driver_sys::*;
    ///
    /// let err = try_driver!(unsafe { cuInit(0) }).unwrap_err();
    /// assert_eq!(err.message(), Some(c"no CUDA-capable device is detected"));
    /// assert_eq!(try_driver!(CUresult(100_000)).unwrap_err().message(), None);
    /// ```
    pub fn message(&self) -> Option<&'static CStr> {
        self.message
    }

    /// Why the driver library could not be loaded, when that is why the code has no name and no
    /// message (`cuda-driver-sys`'s `dynamic-loading` feature on a machine without the driver);
    /// `None` whenever the driver is there.
    ///
    /// ```
    /// use cuda_check::try_driver;
    /// use cuda_driver_sys::*;
    ///
    /// let err = try_driver!(unsafe { cuInit(0) }).unwrap_err();
    /// if let Some(e) = err.no_library() {
    ///     println!("no driver: {e}");
    /// }
    /// ```
    pub fn no_library(&self) -> Option<&'static LoadError> {
        self.no_library
    }

    /// The extra context given to the macro (or [`with_context`]), if any.
    /// Always `None` without the `alloc` feature.
    ///
    /// ```
    /// use cuda_check::try_driver;
    /// use cuda_driver_sys::*;
    ///
    /// let n = 100;
    /// let err = try_driver!(unsafe { cuInit(0) }, "initialising for {n} buffers").unwrap_err();
    /// assert_eq!(err.context(), Some("initialising for 100 buffers"));
    /// ```
    // Without `alloc` there is no `with_context`: the link leads to the feature's line.
    #[cfg_attr(feature = "alloc", doc = "[`with_context`]: Self::with_context")]
    #[cfg_attr(not(feature = "alloc"), doc = "[`with_context`]: crate#features")]
    pub fn context(&self) -> Option<&str> {
        #[cfg(feature = "alloc")]
        return self.context.as_deref();
        #[cfg(not(feature = "alloc"))]
        None
    }

    /// Prints the report and a newline to standard output, with one `println!` (so reports from
    /// several threads do not interleave, and `cargo test` captures them). This is what
    /// [`check_driver!`] does on failure. Like `println!`, it panics if standard output cannot be
    /// written.
    ///
    /// ```
    /// use cuda_check::try_driver;
    /// use cuda_driver_sys::*;
    ///
    /// if let Err(err) = try_driver!(unsafe { cuInit(0) }) {
    ///     err.print();
    /// }
    /// ```
    #[cfg(feature = "std")]
    pub fn print(&self) {
        std::println!("{self}");
    }
}

impl fmt::Display for DriverError {
    /// The report: `<file>:<line>  <expr> failed. \n  code = <name>, message = <message>`, then
    /// `\n  context = <context>` when there is context. No final newline.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}  {} failed. \n  code = ",
            self.file, self.line, self.expr
        )?;
        match (self.name, self.no_library) {
            (Some(name), _) => write_c_str(f, name)?,
            (None, Some(_)) => write!(f, "{}", NoName(self.code))?,
            (None, None) => write!(f, "<unknown CUresult {}>", self.code.0)?,
        }
        f.write_str(", message = ")?;
        match (self.message, self.no_library) {
            (Some(message), _) => write_c_str(f, message)?,
            (None, Some(e)) => write!(f, "<{e}>")?,
            (None, None) => write!(f, "<no message for CUresult {}>", self.code.0)?,
        }
        if let Some(context) = self.context() {
            write!(f, "\n  context = {context}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for DriverError {
    /// `DriverError { code: CUDA_ERROR_NO_DEVICE (100), message: "no CUDA-capable device is
    /// detected", expr: "cuInit(0)", at: "src/main.rs:7", context: None }`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        struct Code<'a>(&'a DriverError);
        impl fmt::Debug for Code<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                match (self.0.name, self.0.no_library) {
                    (Some(name), _) => {
                        write_c_str(f, name)?;
                        write!(f, " ({})", self.0.code.0)
                    }
                    (None, Some(_)) => write!(f, "{}", NoName(self.0.code)),
                    (None, None) => write!(f, "<unknown CUresult {}>", self.0.code.0),
                }
            }
        }
        struct Message<'a>(&'a DriverError);
        impl fmt::Debug for Message<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                match (self.0.message, self.0.no_library) {
                    (Some(message), _) => fmt::Debug::fmt(message, f),
                    (None, Some(e)) => write!(f, "<{e}>"),
                    (None, None) => write!(f, "<no message for CUresult {}>", self.0.code.0),
                }
            }
        }
        struct At<'a>(&'a DriverError);
        impl fmt::Debug for At<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "\"{}:{}\"", self.0.file.escape_debug(), self.0.line)
            }
        }
        f.debug_struct("DriverError")
            .field("code", &Code(self))
            .field("message", &Message(self))
            .field("expr", &self.expr)
            .field("at", &At(self))
            .field("context", &self.context())
            .finish()
    }
}

impl core::error::Error for DriverError {}

/// The code's text where no driver library is there to name it.
struct NoName(CUresult);

impl fmt::Display for NoName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "<CUresult {}, not named: no driver library>", self.0 .0)
    }
}

/// Checks a [`CUresult`] like C's `checkDriver(op)`: `true` on `CUDA_SUCCESS`; otherwise prints
/// the report to standard output and gives `false`.
///
/// - `check_driver!(expr)`: prints `<file>:<line>  <expr> failed. \n  code = <name>, message =
///   <message>\n`, byte for byte what C's `__check_cuda_driver` prints (see the
///   [crate docs](crate#the-report) for the text of unknown codes).
/// - `check_driver!(expr, "format {args}", ...)`: the same, then `  context = <formatted>\n`. The
///   context is formatted only when the call failed.
///
/// `expr` is evaluated exactly once. The macro adds no `unsafe`: write
/// `check_driver!(unsafe { cuInit(0) })` or `unsafe { check_driver!(cuInit(0)) }`; both report
/// `cuInit(0)`. The report is printed with one `println!` ([`DriverError::print`]). Needs the `std`
/// feature; without it, use [`try_driver!`].
///
/// ```
/// use cuda_check::check_driver;
/// use cuda_driver_sys::*;
///
/// // No GPU on the machine the docs are tested on: cuInit fails and the report is printed:
/// // <file>:<line>  cuInit(0) failed.
/// //   code = CUDA_ERROR_NO_DEVICE, message = no CUDA-capable device is detected
/// let ok = check_driver!(unsafe { cuInit(0) });
/// assert!(!ok);
///
/// let mut version = 0;
/// unsafe {
///     assert!(check_driver!(cuDriverGetVersion(&mut version)));
/// }
/// assert!(version >= 12000);
///
/// let mut ptr: CUdeviceptr = 0;
/// let n = 100;
/// // ...  code = CUDA_ERROR_NOT_INITIALIZED, message = initialization error
/// //   context = allocating 100 bytes
/// if !check_driver!(unsafe { cuMemAlloc(&mut ptr, n) }, "allocating {n} bytes") {
///     return;
/// }
/// # unreachable!();
/// ```
#[cfg(feature = "std")]
#[macro_export]
macro_rules! check_driver {
    ($($args:tt)+) => {
        $crate::__cuda_check_call!(@check $($args)+)
    };
}

/// Checks a [`CUresult`] like C's `checkDriver(op)`, printing the report on failure. This build
/// of `cuda-check` has no `std` feature, so it cannot print: use [`try_driver!`].
#[cfg(not(feature = "std"))]
#[macro_export]
macro_rules! check_driver {
    ($($t:tt)*) => {
        ::core::compile_error!(
            "cuda_check::check_driver! prints to standard output and needs the `std` feature of cuda-check; use try_driver! or expect_driver!"
        )
    };
}

/// Checks a [`CUresult`] without printing: `Ok(())` on `CUDA_SUCCESS`, otherwise
/// `Err(`[`DriverError`]`)` with the code, the expression's text, file and line. Use it with `?`.
///
/// - `try_driver!(expr)`
/// - `try_driver!(expr, "format {args}", ...)`: the error carries the formatted context
///   (formatted only when the call failed; needs the `alloc` feature).
///
/// `expr` is evaluated exactly once; the macro adds no `unsafe` (see [`check_driver!`]).
///
/// ```
/// use cuda_check::{try_driver, DriverError};
/// use cuda_driver_sys::*;
///
/// fn driver_version() -> Result<i32, DriverError> {
///     let mut version = 0;
///     try_driver!(unsafe { cuDriverGetVersion(&mut version) })?;
///     Ok(version)
/// }
///
/// fn first_device(ordinal: i32) -> Result<CUdevice, DriverError> {
///     let mut device = 0;
///     unsafe {
///         try_driver!(cuInit(0))?;
///         try_driver!(cuDeviceGet(&mut device, ordinal), "device {ordinal}")?;
///     }
///     Ok(device)
/// }
///
/// assert!(driver_version().unwrap() >= 12000);
/// let err = first_device(0).unwrap_err(); // no GPU here
/// assert_eq!(err.code(), CUDA_ERROR_NO_DEVICE);
/// assert_eq!(err.expr(), "cuInit(0)");
/// ```
#[macro_export]
macro_rules! try_driver {
    ($($args:tt)+) => {
        $crate::__cuda_check_call!(@try $($args)+)
    };
}

/// Checks a [`CUresult`] and panics on failure, the panic message being the report (the
/// [`DriverError`]'s `Display`), located at the macro call. For tests and quick programs.
///
/// - `expect_driver!(expr)`
/// - `expect_driver!(expr, "format {args}", ...)`: the report gets the formatted context (needs
///   the `alloc` feature).
///
/// `expr` is evaluated exactly once; the macro adds no `unsafe` (see [`check_driver!`]).
///
/// ```
/// use cuda_check::expect_driver;
/// use cuda_driver_sys::*;
///
/// let mut version = 0;
/// expect_driver!(unsafe { cuDriverGetVersion(&mut version) });
/// assert!(version >= 12000);
///
/// // No GPU here: panics with
/// // "<file>:<line>  cuInit(0) failed. \n  code = CUDA_ERROR_NO_DEVICE, message = no CUDA-capable device is detected\n  context = starting"
/// let panic = std::panic::catch_unwind(|| expect_driver!(unsafe { cuInit(0) }, "starting"));
/// let message = panic.unwrap_err().downcast::<String>().unwrap();
/// assert!(message.ends_with("cuInit(0) failed. \n  code = CUDA_ERROR_NO_DEVICE, message = no CUDA-capable device is detected\n  context = starting"));
/// ```
#[macro_export]
macro_rules! expect_driver {
    ($($args:tt)+) => {
        $crate::__cuda_check_call!(@expect $($args)+)
    };
}

/// The three macros' arguments: `(mode) expr` or `(mode) expr, "format {args}", ...`.
#[doc(hidden)]
#[macro_export]
macro_rules! __cuda_check_call {
    // Two token trees: `unsafe { ... }`, `cuInit(0)`, ... Kept as the caller's own tokens.
    (@$mode:ident $head:tt $body:tt $(,)?) => {
        $crate::__cuda_check!(@$mode [$crate::__cuda_check_op!($head $body)] ($head $body))
    };
    (@$mode:ident $head:tt $body:tt, $($context:tt)+) => {
        $crate::__cuda_check!(@$mode [$crate::__cuda_check_op!($head $body)] ($head $body) $($context)+)
    };
    (@$mode:ident $expr:expr $(,)?) => {
        $crate::__cuda_check!(@$mode [$crate::__cuda_check_op!($expr)] ($expr))
    };
    (@$mode:ident $expr:expr, $($context:tt)+) => {
        $crate::__cuda_check!(@$mode [$crate::__cuda_check_op!($expr)] ($expr) $($context)+)
    };
}

/// The three macros' common expansion: evaluate once, compare with `CUDA_SUCCESS` inline, and
/// leave the failure to a cold function (which formats the context, if any, only then).
#[doc(hidden)]
#[macro_export]
macro_rules! __cuda_check {
    (@check [$op:expr] ($($e:tt)*)) => {{
        let code: $crate::__private::CUresult = $($e)*;
        if code == $crate::__private::CUDA_SUCCESS {
            true
        } else {
            $crate::__private::report(code, $op, ::core::file!(), ::core::line!())
        }
    }};
    (@check [$op:expr] ($($e:tt)*) $($context:tt)+) => {{
        let code: $crate::__private::CUresult = $($e)*;
        if code == $crate::__private::CUDA_SUCCESS {
            true
        } else {
            $crate::__private::report_with(
                $crate::__private::error(code, $op, ::core::file!(), ::core::line!()),
                $crate::__cuda_check_context!($($context)+),
            )
        }
    }};
    (@try [$op:expr] ($($e:tt)*)) => {{
        let code: $crate::__private::CUresult = $($e)*;
        if code == $crate::__private::CUDA_SUCCESS {
            $crate::__private::Ok(())
        } else {
            $crate::__private::Err($crate::__private::error(code, $op, ::core::file!(), ::core::line!()))
        }
    }};
    (@try [$op:expr] ($($e:tt)*) $($context:tt)+) => {{
        let code: $crate::__private::CUresult = $($e)*;
        if code == $crate::__private::CUDA_SUCCESS {
            $crate::__private::Ok(())
        } else {
            $crate::__private::Err($crate::__private::with_context(
                $crate::__private::error(code, $op, ::core::file!(), ::core::line!()),
                $crate::__cuda_check_context!($($context)+),
            ))
        }
    }};
    (@expect [$op:expr] ($($e:tt)*)) => {{
        let code: $crate::__private::CUresult = $($e)*;
        if code != $crate::__private::CUDA_SUCCESS {
            $crate::__private::fail($crate::__private::error(code, $op, ::core::file!(), ::core::line!()))
        }
    }};
    (@expect [$op:expr] ($($e:tt)*) $($context:tt)+) => {{
        let code: $crate::__private::CUresult = $($e)*;
        if code != $crate::__private::CUDA_SUCCESS {
            $crate::__private::fail($crate::__private::with_context(
                $crate::__private::error(code, $op, ::core::file!(), ::core::line!()),
                $crate::__cuda_check_context!($($context)+),
            ))
        }
    }};
}

/// The report's text of the expression: the inside of a whole-expression `unsafe { ... }` block,
/// else the expression; on one line, without rustfmt's trailing commas, at compile time
/// (`op_text::one_line`).
#[doc(hidden)]
#[macro_export]
macro_rules! __cuda_check_op {
    (unsafe { $($inner:tt)* }) => {
        $crate::__cuda_check_one_line!(::core::stringify!($($inner)*))
    };
    ($($expr:tt)*) => {
        $crate::__cuda_check_one_line!(::core::stringify!($($expr)*))
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __cuda_check_one_line {
    ($text:expr) => {{
        const TEXT: &::core::primitive::str = $text;
        const ONE: (
            [::core::primitive::u8; TEXT.len()],
            ::core::primitive::usize,
        ) = $crate::__private::one_line(TEXT);
        const BYTES: [::core::primitive::u8; ONE.1] = $crate::__private::prefix(ONE.0);
        const ONE_LINE: &::core::primitive::str = match ::core::str::from_utf8(&BYTES) {
            ::core::result::Result::Ok(s) => s,
            ::core::result::Result::Err(_) => TEXT,
        };
        ONE_LINE
    }};
}

#[cfg(feature = "alloc")]
#[doc(hidden)]
#[macro_export]
macro_rules! __cuda_check_context {
    ($($context:tt)+) => {
        $crate::__private::format!($($context)+)
    };
}

#[cfg(not(feature = "alloc"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __cuda_check_context {
    ($($context:tt)+) => {
        ::core::compile_error!(
            "extra context in cuda-check's macros is kept in a String and needs the `alloc` (or `std`) feature of cuda-check"
        )
    };
}

/// What the macros' expansions use. Not public API.
#[doc(hidden)]
pub mod __private {
    use super::DriverError;
    #[cfg(feature = "alloc")]
    pub use alloc::format;
    #[cfg(feature = "alloc")]
    use alloc::string::String;
    pub use core::result::Result::{Err, Ok};
    pub use cuda_driver_sys::CUresult;

    pub const CUDA_SUCCESS: CUresult = CUresult::CUDA_SUCCESS;

    pub use crate::op_text::one_line;

    /// The first `N` bytes of `bytes`.
    pub const fn prefix<const M: usize, const N: usize>(bytes: [u8; M]) -> [u8; N] {
        let mut out = [0u8; N];
        let mut i = 0;
        while i < N {
            out[i] = bytes[i];
            i += 1;
        }
        out
    }

    #[cold]
    #[inline(never)]
    pub fn error(code: CUresult, op: &'static str, file: &'static str, line: u32) -> DriverError {
        DriverError::new(code, op, file, line)
    }

    #[cfg(feature = "alloc")]
    #[cold]
    #[inline(never)]
    pub fn with_context(error: DriverError, context: String) -> DriverError {
        error.with_context(context)
    }

    /// Without `alloc` the context is a `compile_error!`; this keeps that the only error.
    #[cfg(not(feature = "alloc"))]
    pub fn with_context<C>(error: DriverError, _context: C) -> DriverError {
        error
    }

    #[cfg(feature = "std")]
    #[cold]
    #[inline(never)]
    pub fn report(code: CUresult, op: &'static str, file: &'static str, line: u32) -> bool {
        DriverError::new(code, op, file, line).print();
        false
    }

    #[cfg(feature = "std")]
    #[cold]
    #[inline(never)]
    pub fn report_with(error: DriverError, context: String) -> bool {
        error.with_context(context).print();
        false
    }

    #[cold]
    #[inline(never)]
    #[track_caller]
    pub fn fail(error: DriverError) -> ! {
        panic!("{error}")
    }
}

/// The README's example, compiled and run with the doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
