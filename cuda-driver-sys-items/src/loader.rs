//! The driver library itself: whether this process has it, from where, and why not.
//!
//! By default the crate links `libcuda` (`nvcuda.dll`): the dynamic linker loads it before
//! `main`, and a machine without it cannot start the program. With the `dynamic-loading` feature
//! nothing is linked; the library is opened on first use, once per process, thread-safely:
//! `libcuda.so.1`, else `libcuda.so` (`nvcuda.dll` on Windows), or the path given to
//! [`load_from`] beforehand. From it the crate takes four symbols by name (`cuGetProcAddress_v2`,
//! `cuDriverGetVersion`, `cuGetErrorName`, `cuGetErrorString`) and every other function through
//! `cuGetProcAddress`, each at the version whose ABI its symbol has, on its first call. With an
//! 11.x header (features `cuda-11070`, `cuda-11080`), which has no `cuGetProcAddress_v2`, the
//! first of the four is CUDA 11.3's `cuGetProcAddress` (v1, the only one an 11.x driver exports),
//! and lookups go through it as the typed helper's do (see
//! [`ProcAddressErrorKind`](crate::ProcAddressErrorKind) for what v1 can tell).
//!
//! The same source builds in both modes: the functions keep their C spellings and signatures, and
//! this module's [`load`], [`load_from`] and [`status`] exist in both (in the linked mode the
//! library is always there, [`Library::is_linked`]).
//!
//! ```
//! use cuda_driver_sys::{cuInit, loader, CUresult};
//!
//! match loader::load() {
//!     Ok(lib) => println!("driver library: {:?}", lib.name()),
//!     // e.g. `the CUDA driver library could not be loaded: tried libcuda.so.1 (libcuda.so.1:
//!     // cannot open shared object file: No such file or directory), libcuda.so (...)`
//!     Err(e) => {
//!         println!("{e}; using the CPU");
//!         // Every driver call now returns CUDA_ERROR_SHARED_OBJECT_INIT_FAILED.
//!         assert_eq!(unsafe { cuInit(0) }, CUresult::CUDA_ERROR_SHARED_OBJECT_INIT_FAILED);
//!     }
//! }
//! ```
//!
//! # What a call returns without the library (`dynamic-loading`)
//! - Every driver function, the C spellings, the real symbols and [`table()`]'s
//!   alike, returns `CUDA_ERROR_SHARED_OBJECT_INIT_FAILED` (303) and writes nothing through its
//!   out-parameters. That code, NVIDIA's "initialization of a shared object failed", is what
//!   happened; a loaded driver does not answer it to `cuInit` or `cuDriverGetVersion`, so a program
//!   can tell the missing library from a machine without a GPU (`CUDA_ERROR_NO_DEVICE`) and from a
//!   call before `cuInit` (`CUDA_ERROR_NOT_INITIALIZED`). [`status`] says why.
//! - `cuGetErrorName` and `cuGetErrorString` return it too: the names and messages are the
//!   driver's, and there is no driver. `cuda_check::check_driver!` says so in its report.
//! - A function the loaded driver lacks (a symbol of a newer header than the driver) returns
//!   `CUDA_ERROR_NOT_FOUND`, as through the [`table`][table-module].
//!
//! Nothing panics, aborts, or calls a null pointer. After the first call of a function, a call
//! costs one atomic load and an indirect call, as a call through the PLT does.
//!
// The table is behind the `table` feature: without it, its links lead to the crate's features.
#![cfg_attr(feature = "table", doc = "[table-module]: mod@crate::table")]
#![cfg_attr(feature = "table", doc = "[`table()`]: crate::table()")]
#![cfg_attr(not(feature = "table"), doc = "[table-module]: crate#features")]
#![cfg_attr(not(feature = "table"), doc = "[`table()`]: crate#features")]

use core::ffi::{c_void, CStr};
use core::fmt;
use core::ptr::NonNull;

/// How long a library name or path (including its NUL) is kept; longer ones are cut, ending
/// with `...`.
pub const NAME_CAPACITY: usize = 4096;
/// How long a loader message (`dlerror()`, including its NUL) is kept; longer ones are cut,
/// ending with `...`.
pub const MESSAGE_CAPACITY: usize = 1024;

/// The names tried when no path is given: on Windows the driver's `nvcuda.dll`; elsewhere the
/// driver's soname `libcuda.so.1`, then the development symlink `libcuda.so`. Only with
/// `dynamic-loading`.
#[cfg(feature = "dynamic-loading")]
pub const DEFAULT_NAMES: &[&CStr] = library_names(cfg!(windows));

/// The driver library's names on a target, the one a linked program loads first.
const fn library_names(windows: bool) -> &'static [&'static CStr] {
    if windows {
        &[c"nvcuda.dll"]
    } else {
        &[c"libcuda.so.1", c"libcuda.so"]
    }
}

/// A NUL-terminated copy of a C string or a message, in a fixed buffer (no allocation).
#[derive(Clone, PartialEq, Eq)]
struct Text<const N: usize> {
    /// Always ends with a NUL at or before `N - 1`; all zeros is the empty string.
    bytes: [u8; N],
}

impl<const N: usize> Text<N> {
    const EMPTY: Self = Text { bytes: [0; N] };

    #[cfg(feature = "dynamic-loading")]
    fn set(&mut self, s: &[u8]) {
        self.bytes = [0; N];
        Writer { text: self, len: 0 }.push(s);
    }

    fn as_c_str(&self) -> &CStr {
        CStr::from_bytes_until_nul(&self.bytes).unwrap_or(c"")
    }
}

/// Appends to a [`Text`], cutting at its capacity with a final `...`.
#[cfg(feature = "dynamic-loading")]
struct Writer<'a, const N: usize> {
    text: &'a mut Text<N>,
    len: usize,
}

#[cfg(feature = "dynamic-loading")]
impl<const N: usize> Writer<'_, N> {
    fn push(&mut self, s: &[u8]) {
        for &b in s.iter().take_while(|&&b| b != 0) {
            if self.len + 1 >= N {
                let cut = N.saturating_sub(4);
                self.text.bytes[cut..N - 1].fill(b'.');
                return;
            }
            self.text.bytes[self.len] = b;
            self.len += 1;
        }
    }
}

#[cfg(feature = "dynamic-loading")]
impl<const N: usize> fmt::Write for Writer<'_, N> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.push(s.as_bytes());
        Ok(())
    }
}

impl<const N: usize> fmt::Debug for Text<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_c_str(), f)
    }
}

/// Writes a C string as text, each invalid UTF-8 sequence as U+FFFD (what `CStr::to_string_lossy`
/// gives, without allocating): how this crate's errors and `cuda-check`'s reports show the
/// library's names and the driver's strings.
///
/// ```
/// use std::fmt::Write;
///
/// let mut text = String::new();
/// cuda_driver_sys::loader::write_c_str(&mut text, c"libcuda.so.1").unwrap();
/// cuda_driver_sys::loader::write_c_str(&mut text, c"/opt/\xff").unwrap();
/// assert_eq!(text, "libcuda.so.1/opt/\u{FFFD}");
/// ```
pub fn write_c_str<W: fmt::Write + ?Sized>(f: &mut W, s: &CStr) -> fmt::Result {
    for chunk in s.to_bytes().utf8_chunks() {
        f.write_str(chunk.valid())?;
        if !chunk.invalid().is_empty() {
            f.write_str("\u{FFFD}")?;
        }
    }
    Ok(())
}

/// The driver library this process uses.
#[derive(Debug, PartialEq, Eq)]
pub struct Library {
    name: Text<NAME_CAPACITY>,
    handle: *mut c_void,
}

// SAFETY: the handle is only an identifier of the loaded library; nothing is reached through it
// but by the loader's own thread-safe functions.
unsafe impl Sync for Library {}
unsafe impl Send for Library {}

impl Library {
    /// The name or path it was opened by (`"libcuda.so.1"`, or what [`load_from`] was given);
    /// for a linked library, the name the program was linked against.
    pub fn name(&self) -> &CStr {
        self.name.as_c_str()
    }

    /// The loader's handle (`dlopen`'s, or the `HMODULE` on Windows); `None` where the library was
    /// linked and loaded before `main`.
    pub fn handle(&self) -> Option<NonNull<c_void>> {
        NonNull::new(self.handle)
    }

    /// Whether the library was linked (the default mode) rather than opened at run time.
    pub fn is_linked(&self) -> bool {
        self.handle.is_null()
    }
}

/// One name or path the loader tried, and what the loader said.
#[derive(Clone, PartialEq, Eq)]
pub struct Attempt {
    name: Text<NAME_CAPACITY>,
    message: Text<MESSAGE_CAPACITY>,
}

impl Attempt {
    #[cfg(feature = "dynamic-loading")]
    const EMPTY: Self = Attempt {
        name: Text::EMPTY,
        message: Text::EMPTY,
    };

    /// The name or path given to the loader (`"libcuda.so.1"`).
    pub fn name(&self) -> &CStr {
        self.name.as_c_str()
    }

    /// The loader's own message (`dlerror()`): why the file could not be opened, or which of the
    /// four symbols the crate takes by name it lacks (a driver older than CUDA 12.0).
    pub fn message(&self) -> &CStr {
        self.message.as_c_str()
    }
}

impl fmt::Debug for Attempt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Attempt")
            .field("name", &self.name)
            .field("message", &self.message)
            .finish()
    }
}

/// Why the driver library could not be loaded: every name tried, with the loader's message.
///
/// Its `Display`: `the CUDA driver library could not be loaded: tried libcuda.so.1
/// (libcuda.so.1: cannot open shared object file: No such file or directory), libcuda.so
/// (libcuda.so: cannot open shared object file: No such file or directory)`.
#[derive(Clone, PartialEq, Eq)]
pub struct LoadError {
    attempts: [Attempt; 2],
    count: usize,
}

impl LoadError {
    #[cfg(feature = "dynamic-loading")]
    const EMPTY: Self = LoadError {
        attempts: [Attempt::EMPTY, Attempt::EMPTY],
        count: 0,
    };

    /// What was tried, in order.
    pub fn attempts(&self) -> &[Attempt] {
        &self.attempts[..self.count]
    }
}

impl fmt::Debug for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LoadError")
            .field("attempts", &self.attempts())
            .finish()
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the CUDA driver library could not be loaded: tried ")?;
        for (i, a) in self.attempts().iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write_c_str(f, a.name())?;
            f.write_str(" (")?;
            write_c_str(f, a.message())?;
            f.write_str(")")?;
        }
        Ok(())
    }
}

impl core::error::Error for LoadError {}

/// Why [`load_from`] did not load the library from the path it was given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoadFromError {
    /// The library was loaded before (by a first call, [`load`], an earlier [`load_from`], or,
    /// without `dynamic-loading`, by the dynamic linker); the path was not tried.
    AlreadyLoaded(&'static Library),
    /// An earlier attempt failed, and loading is attempted once per process; the path was not
    /// tried. Call [`load_from`] before any driver function.
    AlreadyFailed(&'static LoadError),
    /// The path was tried and could not be loaded.
    Failed(&'static LoadError),
}

impl fmt::Display for LoadFromError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadFromError::AlreadyLoaded(lib) => {
                f.write_str("the CUDA driver library is already loaded (")?;
                write_c_str(f, lib.name())?;
                f.write_str(")")
            }
            LoadFromError::AlreadyFailed(e) => write!(
                f,
                "loading is attempted once per process and was already ({e}); call load_from \
                 before any driver function"
            ),
            LoadFromError::Failed(e) => fmt::Display::fmt(e, f),
        }
    }
}

impl core::error::Error for LoadFromError {}

/// Loads the driver library now if it is not loaded yet (under `dynamic-loading`, from
/// `DEFAULT_NAMES`) and says whether the process has it. The first call of any driver
/// function does the same; the outcome is decided once per process, and later calls return it.
///
/// ```
/// match cuda_driver_sys::loader::load() {
///     Ok(lib) => println!("using {:?}", lib.name()),
///     Err(e) => println!("{e}"),
/// }
/// ```
pub fn load() -> Result<&'static Library, &'static LoadError> {
    imp::load()
}

/// Loads the driver library from `path` (a file name the loader searches for, or a path), if no
/// library was loaded or tried before: call it before any driver function. The outcome is final
/// for the process, as [`load`]'s is.
///
/// ```no_run
/// use cuda_driver_sys::loader::{self, LoadFromError};
///
/// match loader::load_from(c"/opt/nvidia/lib64/libcuda.so.1") {
///     Ok(lib) => println!("using {:?}", lib.name()),
///     Err(LoadFromError::AlreadyLoaded(lib)) => println!("already using {:?}", lib.name()),
///     Err(e) => println!("{e}"),
/// }
/// ```
pub fn load_from(path: &CStr) -> Result<&'static Library, LoadFromError> {
    imp::load_from(path)
}

/// What loading gave, without loading: `None` before the first attempt (no driver function
/// called yet, no [`load`]); always `Some(Ok(_))` without `dynamic-loading`.
///
/// ```
/// use cuda_driver_sys::{cuDriverGetVersion, loader};
///
/// let mut version = 0;
/// let _ = unsafe { cuDriverGetVersion(&mut version) };
/// if let Some(Err(e)) = loader::status() {
///     println!("no driver: {e}");
/// }
/// ```
pub fn status() -> Option<Result<&'static Library, &'static LoadError>> {
    imp::status()
}

#[cfg(not(feature = "dynamic-loading"))]
mod imp {
    use super::*;

    static LINKED: Library = Library {
        name: linked_name(),
        handle: core::ptr::null_mut(),
    };

    const fn linked_name() -> Text<NAME_CAPACITY> {
        let name = library_names(cfg!(windows))[0].to_bytes();
        let mut t = Text::EMPTY;
        let mut i = 0;
        while i < name.len() {
            t.bytes[i] = name[i];
            i += 1;
        }
        t
    }

    pub(super) fn load() -> Result<&'static Library, &'static LoadError> {
        Ok(&LINKED)
    }

    pub(super) fn load_from(_path: &CStr) -> Result<&'static Library, LoadFromError> {
        Err(LoadFromError::AlreadyLoaded(&LINKED))
    }

    pub(super) fn status() -> Option<Result<&'static Library, &'static LoadError>> {
        Some(Ok(&LINKED))
    }
}

#[cfg(feature = "dynamic-loading")]
pub use imp::{function, functions, FunctionError};

#[cfg(feature = "dynamic-loading")]
pub(crate) use imp::{resolve, Function, FunctionSet};

#[cfg(feature = "dynamic-loading")]
mod imp {
    use super::*;
    use core::sync::atomic::{AtomicBool, AtomicU32, Ordering};

    use crate::functions::{BOOTSTRAP, SET as CORE};
    use crate::loading::{Decided, FromPath, UNTRIED};
    use crate::sync::UnsafeCell;
    use crate::{
        CUresult, EntryPointInfo, ProcAddressError, ProcAddressErrorKind,
        CU_GET_PROC_ADDRESS_LEGACY_STREAM, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM,
    };

    /// One generated function: its symbol, the entry point of its ABI, and whether it is one of
    /// the four taken from the library by name (the others are resolved at their entry point).
    pub(crate) struct Function {
        pub(crate) symbol: &'static CStr,
        pub(crate) entry: EntryPointInfo,
        pub(crate) by_name: bool,
    }

    /// The functions of one header (`cuda.h`, or an interop module's): each one's symbol and
    /// entry point, the slot its trampoline calls through, and whether the driver lacks it.
    pub(crate) struct FunctionSet {
        pub(crate) functions: &'static [Function],
        pub(crate) slots: &'static [core::sync::atomic::AtomicPtr<c_void>],
        pub(crate) missing: &'static [AtomicBool],
    }

    /// Every header's functions this build has: `cuda.h`'s, then each interop module's.
    static SETS: &[&FunctionSet] = &[
        &crate::functions::SET,
        #[cfg(feature = "profiler")]
        &crate::profiler::functions::SET,
        #[cfg(feature = "gl")]
        &crate::gl::functions::SET,
        #[cfg(feature = "egl")]
        &crate::egl::functions::SET,
        #[cfg(feature = "vdpau")]
        &crate::vdpau::functions::SET,
    ];

    /// The library, or why not: decided once per process (`crate::loading`, whose atomics and
    /// cells are ordered as docs/DESIGN.md's "Memory ordering" says).
    static LIBRARY: Decided<Library, LoadError> = Decided {
        state: AtomicU32::new(UNTRIED),
        library: UnsafeCell::new(Library {
            name: Text::EMPTY,
            handle: core::ptr::null_mut(),
        }),
        error: UnsafeCell::new(LoadError::EMPTY),
    };

    pub(super) fn status() -> Option<Result<&'static Library, &'static LoadError>> {
        LIBRARY.status()
    }

    #[inline]
    pub(super) fn load() -> Result<&'static Library, &'static LoadError> {
        LIBRARY.load(|library, error| open_first(DEFAULT_NAMES, library, error))
    }

    pub(super) fn load_from(path: &CStr) -> Result<&'static Library, LoadFromError> {
        match LIBRARY.load_from(|library, error| open_first(&[path], library, error)) {
            FromPath::Tried(r) => r.map_err(LoadFromError::Failed),
            FromPath::Earlier(Ok(lib)) => Err(LoadFromError::AlreadyLoaded(lib)),
            FromPath::Earlier(Err(e)) => Err(LoadFromError::AlreadyFailed(e)),
        }
    }

    fn open_first(names: &[&CStr], library: &mut Library, error: &mut LoadError) -> bool {
        for name in names.iter().take(error.attempts.len()) {
            let attempt = &mut error.attempts[error.count];
            error.count += 1;
            attempt.name.set(name.to_bytes());
            // SAFETY: `name` is NUL-terminated.
            let handle = match unsafe { sys::open(name) } {
                Ok(h) => h,
                Err(()) => {
                    // SAFETY: right after the failing call, on this thread.
                    unsafe { sys::last_error(&mut attempt.message) };
                    continue;
                }
            };
            // The four functions taken by name (`cuGetProcAddress_v2`, or `cuGetProcAddress`
            // with an 11.x header; `cuDriverGetVersion`,
            // `cuGetErrorName`, `cuGetErrorString`).
            let mut pointers = [core::ptr::null_mut(); BOOTSTRAP.len()];
            let mut complete = true;
            for (p, index) in pointers.iter_mut().zip(BOOTSTRAP) {
                // SAFETY: a handle `open` gave, a NUL-terminated name.
                *p = unsafe { sys::symbol(handle, CORE.functions[index as usize].symbol) };
                if p.is_null() {
                    // SAFETY: right after the failing call, on this thread.
                    unsafe { sys::last_error(&mut attempt.message) };
                    complete = false;
                    break;
                }
            }
            if !complete {
                // SAFETY: the handle `open` gave, used no more.
                unsafe { sys::close(handle) };
                continue;
            }
            // Release: a trampoline that loads one of these (Acquire) calls it without looking
            // at the loader's state; the pair orders this thread's `dlopen` before that call.
            for (index, p) in BOOTSTRAP.into_iter().zip(pointers) {
                crate::slot::publish(&CORE.slots[index as usize], p);
            }
            library.name.set(name.to_bytes());
            library.handle = handle;
            return true;
        }
        false
    }

    /// The flags a function's entry point is looked up with: the stream mode of its own symbol
    /// (a legacy symbol stays legacy under `per-thread-default-stream`).
    fn flags(entry: EntryPointInfo) -> crate::CUdriverProcAddress_flags {
        if entry.per_thread {
            CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM
        } else {
            CU_GET_PROC_ADDRESS_LEGACY_STREAM
        }
    }

    /// The first call of generated function `index`: its driver function, stored for the next
    /// calls, or the code the call returns instead.
    #[cold]
    #[inline(never)]
    pub(crate) fn resolve(set: &FunctionSet, index: usize) -> Result<NonNull<c_void>, CUresult> {
        let no_library = CUresult::CUDA_ERROR_SHARED_OBJECT_INIT_FAILED;
        if load().is_err() {
            return Err(no_library);
        }
        let Function { entry, by_name, .. } = set.functions[index];
        if by_name {
            // Stored, non-null, before the library was published as loaded (which `load` saw,
            // Acquire).
            return NonNull::new(set.slots[index].load(Ordering::Acquire)).ok_or(no_library);
        }
        let found = crate::slot::resolve_function(
            &set.slots[index],
            &set.missing[index],
            || entry.lookup(flags(entry)),
            // The driver failed to answer (not "no such function"): not remembered.
            |e| !matches!(e.kind, ProcAddressErrorKind::Driver(_)),
        );
        found.map_err(|e| match e {
            Some(ProcAddressError {
                kind: ProcAddressErrorKind::Driver(code),
                ..
            }) => code,
            _ => CUresult::CUDA_ERROR_NOT_FOUND,
        })
    }

    /// Why a function has no driver function behind it. Only with `dynamic-loading`.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum FunctionError {
        /// The driver library could not be loaded.
        NoLibrary(&'static LoadError),
        /// The driver has no such function, or failed to say (`cuGetProcAddress`'s answer).
        NotFound(ProcAddressError),
    }

    impl fmt::Display for FunctionError {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            match self {
                FunctionError::NoLibrary(e) => fmt::Display::fmt(e, f),
                FunctionError::NotFound(e) => fmt::Display::fmt(e, f),
            }
        }
    }

    impl core::error::Error for FunctionError {}

    fn pointer(set: &FunctionSet, index: usize) -> Result<NonNull<c_void>, FunctionError> {
        if let Ok(p) = resolve(set, index) {
            return Ok(p);
        }
        load().map_err(FunctionError::NoLibrary)?;
        // The reason, asked again (a driver error is not remembered, and may be gone).
        let entry = set.functions[index].entry;
        entry.lookup(flags(entry)).map_err(FunctionError::NotFound)
    }

    /// The driver function behind the real symbol `symbol` (`"cuCtxCreate_v2"`,
    /// `"cuMemcpyHtoD_v2_ptds"`, or an interop module's, `"cuGLCtxCreate_v2"`), resolved now if
    /// it was not yet; `None` where no header of this build has such a function. The four bootstrap symbols are the library's own (`dlsym`), the others
    /// `cuGetProcAddress`'s answer at the version of the symbol's ABI. Only with
    /// `dynamic-loading`.
    ///
    /// ```
    /// use cuda_driver_sys::loader;
    ///
    /// match loader::function(c"cuCtxCreate_v2") {
    ///     Some(Ok(p)) => println!("cuCtxCreate_v2 is at {p:?}"),
    ///     Some(Err(e)) => println!("{e}"),
    ///     None => unreachable!("every header has cuCtxCreate_v2"),
    /// }
    /// assert!(loader::function(c"cuNoSuchFunction").is_none());
    /// ```
    pub fn function(symbol: &CStr) -> Option<Result<NonNull<c_void>, FunctionError>> {
        SETS.iter().find_map(|set| {
            let index = set.functions.iter().position(|f| f.symbol == symbol)?;
            Some(pointer(set, index))
        })
    }

    /// Every function of the selected header under its real symbol (`cuda.h`'s, then those of
    /// each interop module whose feature is on), with its driver function or why there is none.
    /// Resolves every one. Only with `dynamic-loading`.
    ///
    /// ```
    /// let missing = cuda_driver_sys::loader::functions().filter(|(_, r)| r.is_err()).count();
    /// println!("{missing} functions this process cannot call");
    /// ```
    pub fn functions(
    ) -> impl Iterator<Item = (&'static CStr, Result<NonNull<c_void>, FunctionError>)> {
        SETS.iter().flat_map(|set| {
            set.functions
                .iter()
                .enumerate()
                .map(move |(i, f)| (f.symbol, pointer(set, i)))
        })
    }

    #[cfg(unix)]
    mod sys {
        use super::*;

        pub(super) unsafe fn open(name: &CStr) -> Result<*mut c_void, ()> {
            let h = libc::dlopen(name.as_ptr(), libc::RTLD_LAZY | libc::RTLD_LOCAL);
            if h.is_null() {
                Err(())
            } else {
                Ok(h)
            }
        }

        pub(super) unsafe fn symbol(handle: *mut c_void, name: &CStr) -> *mut c_void {
            libc::dlerror(); // clear any earlier message
            libc::dlsym(handle, name.as_ptr())
        }

        pub(super) unsafe fn close(handle: *mut c_void) {
            libc::dlclose(handle);
        }

        pub(super) unsafe fn last_error(message: &mut Text<MESSAGE_CAPACITY>) {
            let e = libc::dlerror();
            if e.is_null() {
                message.set(b"the loader gave no message");
            } else {
                message.set(CStr::from_ptr(e).to_bytes());
            }
        }
    }

    #[cfg(windows)]
    mod sys {
        use super::*;
        use core::ffi::c_char;

        #[link(name = "kernel32")]
        extern "system" {
            fn LoadLibraryA(name: *const c_char) -> *mut c_void;
            fn GetProcAddress(module: *mut c_void, name: *const c_char) -> *mut c_void;
            fn FreeLibrary(module: *mut c_void) -> i32;
            fn GetLastError() -> u32;
            fn FormatMessageA(
                flags: u32,
                source: *const c_void,
                message: u32,
                language: u32,
                buffer: *mut u8,
                size: u32,
                arguments: *const c_void,
            ) -> u32;
        }

        const FORMAT_MESSAGE_IGNORE_INSERTS: u32 = 0x200;
        const FORMAT_MESSAGE_FROM_SYSTEM: u32 = 0x1000;

        pub(super) unsafe fn open(name: &CStr) -> Result<*mut c_void, ()> {
            let h = LoadLibraryA(name.as_ptr());
            if h.is_null() {
                Err(())
            } else {
                Ok(h)
            }
        }

        pub(super) unsafe fn symbol(handle: *mut c_void, name: &CStr) -> *mut c_void {
            GetProcAddress(handle, name.as_ptr())
        }

        pub(super) unsafe fn close(handle: *mut c_void) {
            FreeLibrary(handle);
        }

        /// The system's text of the last error with its number: `The specified module could
        /// not be found. (Windows error 126)`.
        pub(super) unsafe fn last_error(message: &mut Text<MESSAGE_CAPACITY>) {
            let code = GetLastError();
            let mut text = [0u8; MESSAGE_CAPACITY];
            let len = FormatMessageA(
                FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS,
                core::ptr::null(),
                code,
                0,
                text.as_mut_ptr(),
                (MESSAGE_CAPACITY - 1) as u32,
                core::ptr::null(),
            ) as usize;
            // The system's text ends with a line break.
            let text = text[..len.min(MESSAGE_CAPACITY)].trim_ascii_end();
            message.bytes = [0; MESSAGE_CAPACITY];
            let mut writer = Writer {
                text: message,
                len: 0,
            };
            if !text.is_empty() {
                writer.push(text);
                writer.push(b" ");
            }
            let _ = fmt::write(&mut writer, format_args!("(Windows error {code})"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::library_names;

    #[test]
    fn library_names_per_target() {
        assert_eq!(library_names(true), [c"nvcuda.dll"]);
        assert_eq!(library_names(false), [c"libcuda.so.1", c"libcuda.so"]);
    }
}
