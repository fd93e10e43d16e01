//! The typed `cuGetProcAddress` helper.

use core::ffi::{c_char, c_int, c_void, CStr};
use core::fmt;
use core::marker::PhantomData;
use core::ptr::{self, NonNull};
use core::sync::atomic::{AtomicI32, Ordering};

#[cfg(cuda_ge_12000)]
use crate::CUdriverProcAddressQueryResult;
use crate::{
    cuDriverGetVersion, cuGetProcAddress, cuuint64_t, CUdriverProcAddress_flags, CUresult,
    CU_GET_PROC_ADDRESS_DEFAULT, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM,
};

/// What `cuGetProcAddress` says besides its result: the symbol status of CUDA 12's `_v2`; CUDA
/// 11's function has none, and a found symbol reads as success.
#[cfg(cuda_ge_12000)]
type Status = CUdriverProcAddressQueryResult;
#[cfg(cuda_ge_12000)]
const FOUND: Status = CUdriverProcAddressQueryResult::CU_GET_PROC_ADDRESS_SUCCESS;
#[cfg(not(cuda_ge_12000))]
type Status = ();
#[cfg(not(cuda_ge_12000))]
const FOUND: Status = ();

/// What identifies a driver entry point for `cuGetProcAddress`: the base symbol name (`"cuMemAlloc"`,
/// never `"cuMemAlloc_v2"`), the CUDA version whose ABI is wanted, and whether it is the
/// per-thread default-stream variant (`PFN_*_ptds` / `_ptsz`).
///
/// ```
/// let info = cuda_driver_sys::entry::cuMemcpyHtoD_v7000_ptds.info();
/// assert_eq!((info.symbol.to_str(), info.version, info.per_thread), (Ok("cuMemcpyHtoD"), 7000, true));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct EntryPointInfo {
    /// The name `cuGetProcAddress` takes.
    pub symbol: &'static CStr,
    /// The CUDA version (`1000 * major + 10 * minor`) whose ABI of `symbol` is wanted.
    pub version: c_int,
    /// The per-thread default-stream variant: [`EntryPoint::get`] asks for it with
    /// `CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM`.
    pub per_thread: bool,
}

impl EntryPointInfo {
    /// Looks the entry point up with `flags`, untyped: a non-null pointer, or why there is none.
    ///
    /// ```no_run
    /// use cuda_driver_sys::{entry, CU_GET_PROC_ADDRESS_DEFAULT};
    /// let p = entry::cuInit_v2000.info().lookup(CU_GET_PROC_ADDRESS_DEFAULT);
    /// println!("{p:?}");
    /// ```
    #[inline]
    pub fn lookup(
        self,
        flags: CUdriverProcAddress_flags,
    ) -> Result<NonNull<c_void>, ProcAddressError> {
        // The fast path: the driver's version known and not below this entry's, the symbol found.
        // Everything else (and every error's classification) is in the cold path, which takes
        // and returns registers only (no copy of `self`, no result through memory on this path).
        let symbol = self.symbol.as_ptr();
        let driver = DRIVER_VERSION.load(Ordering::Relaxed);
        // `0 < version <= driver` in one compare: with `driver` 0 (not read yet) or a `version`
        // of 0 or below, `version - 1` (unsigned) is never below it. The fast path is a few
        // instructions beside the driver's few hundred: each one shows in a lookup loop.
        if (self.version as u32).wrapping_sub(1) < driver as u32 {
            let (code, status, pfn) = raw(symbol, flags, self.version);
            #[allow(clippy::unit_cmp)] // `Status` is `()` with an 11.x header
            if code == CUresult::CUDA_SUCCESS && status == FOUND {
                if let Some(p) = NonNull::new(pfn) {
                    return Ok(p);
                }
            }
        }
        lookup_cold(symbol, self.version, flags).map_err(|kind| ProcAddressError {
            entry: self,
            flags,
            kind,
        })
    }

    /// The flags [`EntryPoint::get`] uses: per-thread for a `_ptds`/`_ptsz` typedef, else the
    /// default (which the `per-thread-default-stream` feature turns into per-thread, as C does).
    #[inline]
    pub fn default_flags(self) -> CUdriverProcAddress_flags {
        // Without a branch: a loop over a mix of both kinds (a table's, a list's) then has one
        // path into the driver, and no misprediction where the kinds alternate.
        let per_thread =
            CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM.0 * u32::from(self.per_thread);
        CUdriverProcAddress_flags(CU_GET_PROC_ADDRESS_DEFAULT.0 | per_thread)
    }
}

/// The whole lookup of `symbol` at `version`, with the reason for every failure.
#[cold]
#[inline(never)]
fn lookup_cold(
    symbol: *const c_char,
    version: c_int,
    flags: CUdriverProcAddress_flags,
) -> Result<NonNull<c_void>, ProcAddressErrorKind> {
    // A version above the driver's is refused here: the 535 driver answers it with its own
    // newest variant (cuCtxCreate at 12050 gives cuCtxCreate_v3, not _v4), whose signature is
    // not the typedef's.
    let driver = driver_version().map_err(ProcAddressErrorKind::Driver)?;
    if version > driver {
        return Err(ProcAddressErrorKind::DriverTooOld { driver });
    }
    let (code, status, pfn) = raw(symbol, flags, version);
    #[cfg(not(cuda_ge_12000))]
    if code == CUresult::CUDA_ERROR_NOT_FOUND {
        // CUDA 11's cuGetProcAddress answers CUDA_ERROR_NOT_FOUND both for a symbol the driver
        // lacks and for one it has only at a later version; asked again at the driver's own
        // version, a symbol it has is found.
        let (again, (), p) = raw(symbol, flags, driver);
        return Err(if again == CUresult::CUDA_SUCCESS && !p.is_null() {
            ProcAddressErrorKind::VersionNotSufficient
        } else {
            ProcAddressErrorKind::SymbolNotFound
        });
    }
    if code != CUresult::CUDA_SUCCESS {
        return Err(ProcAddressErrorKind::Driver(code));
    }
    #[cfg(not(cuda_ge_12000))]
    let () = status;
    #[cfg(not(cuda_ge_12000))]
    return NonNull::new(pfn).ok_or(ProcAddressErrorKind::Null);
    #[cfg(cuda_ge_12000)]
    match status {
        CUdriverProcAddressQueryResult::CU_GET_PROC_ADDRESS_SUCCESS => {
            NonNull::new(pfn).ok_or(ProcAddressErrorKind::Null)
        }
        CUdriverProcAddressQueryResult::CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND => {
            Err(ProcAddressErrorKind::SymbolNotFound)
        }
        CUdriverProcAddressQueryResult::CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT => {
            Err(ProcAddressErrorKind::VersionNotSufficient)
        }
        other => Err(ProcAddressErrorKind::UnknownStatus(other)),
    }
}

/// The raw call of `symbol` (NUL-terminated) at `version`: its result, the status and the
/// pointer, both initialised first (for a version above its own, a driver may write neither).
#[inline]
fn raw(
    symbol: *const c_char,
    flags: CUdriverProcAddress_flags,
    version: c_int,
) -> (CUresult, Status, *mut c_void) {
    let mut pfn: *mut c_void = ptr::null_mut();
    #[cfg_attr(not(cuda_ge_12000), allow(unused_mut))]
    let mut status = FOUND;
    // SAFETY: `symbol` is NUL-terminated (from a `CStr`) and the out-pointers are valid for writes.
    #[cfg(cuda_ge_12000)]
    let code = unsafe {
        cuGetProcAddress(
            symbol,
            &mut pfn,
            version,
            flags.0 as cuuint64_t,
            &mut status,
        )
    };
    // SAFETY: as above (CUDA 11's function has no status argument).
    #[cfg(not(cuda_ge_12000))]
    let code = unsafe { cuGetProcAddress(symbol, &mut pfn, version, flags.0 as cuuint64_t) };
    (code, status, pfn)
}

/// A driver entry point whose function pointer type is `P`, the `PFN_*` typedef (an
/// `Option<unsafe extern "C" fn(..)>`) of that symbol at that version. Only the generated
/// constants in [`entry`](crate::entry) exist, so a symbol and version cannot be paired with a
/// wrong pointer type by mistake.
///
/// ```no_run
/// use cuda_driver_sys::{entry, CUdeviceptr, CUresult};
///
/// let mem_alloc = entry::cuMemAlloc.get()?; // the ABI `cuMemAlloc` links to
/// let mut p: CUdeviceptr = 0;
/// let code = unsafe { mem_alloc(&mut p, 1 << 20) };
/// assert!(code == CUresult::CUDA_SUCCESS || code == CUresult::CUDA_ERROR_NOT_INITIALIZED);
/// # Ok::<(), cuda_driver_sys::ProcAddressError>(())
/// ```
pub struct EntryPoint<P> {
    info: EntryPointInfo,
    pfn: PhantomData<P>,
}

impl<P> Clone for EntryPoint<P> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<P> Copy for EntryPoint<P> {}
impl<P> fmt::Debug for EntryPoint<P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("EntryPoint").field(&self.info).finish()
    }
}

impl<P> EntryPoint<P> {
    /// An entry point of `symbol` at `version`.
    ///
    /// # Safety
    /// `P` must be `Option<F>`, `F` the `unsafe extern "C" fn` type that the driver's
    /// `cuGetProcAddress(symbol, version)` function has.
    pub const unsafe fn new(symbol: &'static CStr, version: c_int) -> Self {
        EntryPoint {
            info: EntryPointInfo {
                symbol,
                version,
                per_thread: false,
            },
            pfn: PhantomData,
        }
    }

    /// As [`new`](Self::new), for the per-thread default-stream variant.
    ///
    /// # Safety
    /// As for [`new`](Self::new), with the per-thread flag.
    pub const unsafe fn new_per_thread(symbol: &'static CStr, version: c_int) -> Self {
        EntryPoint {
            info: EntryPointInfo {
                symbol,
                version,
                per_thread: true,
            },
            pfn: PhantomData,
        }
    }

    /// Symbol, version and stream mode.
    pub const fn info(&self) -> EntryPointInfo {
        self.info
    }
}

impl<F: Copy> EntryPoint<Option<F>> {
    /// The function, looked up with [`EntryPointInfo::default_flags`].
    #[inline]
    pub fn get(self) -> Result<F, ProcAddressError> {
        self.get_with_flags(self.info.default_flags())
    }

    /// The function, looked up with `flags` (`CU_GET_PROC_ADDRESS_DEFAULT`,
    /// `_LEGACY_STREAM`, `_PER_THREAD_DEFAULT_STREAM`).
    #[inline]
    pub fn get_with_flags(self, flags: CUdriverProcAddress_flags) -> Result<F, ProcAddressError> {
        const { assert!(size_of::<Option<F>>() == size_of::<*mut c_void>()) };
        let p = self.info.lookup(flags)?;
        // SAFETY: by `new`'s contract `Option<F>` is the nullable function pointer type of this
        // symbol at this version, which has the layout of a pointer; `p` is non-null.
        let f: Option<F> = unsafe { core::mem::transmute_copy(&p.as_ptr()) };
        f.ok_or(ProcAddressError {
            entry: self.info,
            flags,
            kind: ProcAddressErrorKind::Null,
        })
    }
}

/// `cuDriverGetVersion`, asked once per process.
static DRIVER_VERSION: AtomicI32 = AtomicI32::new(0);

fn driver_version() -> Result<c_int, CUresult> {
    let v = DRIVER_VERSION.load(Ordering::Relaxed);
    if v != 0 {
        return Ok(v);
    }
    let mut v = 0;
    // SAFETY: a valid out-pointer.
    let code = unsafe { cuDriverGetVersion(&mut v) };
    if code != CUresult::CUDA_SUCCESS {
        return Err(code);
    }
    DRIVER_VERSION.store(v, Ordering::Relaxed);
    Ok(v)
}

/// Why `cuGetProcAddress` gave no function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProcAddressError {
    /// What was asked for.
    pub entry: EntryPointInfo,
    /// The flags it was asked with.
    pub flags: CUdriverProcAddress_flags,
    /// What the driver answered.
    pub kind: ProcAddressErrorKind,
}

/// The outcomes of `cuGetProcAddress` other than a function.
///
/// With a CUDA 12+ header the lookup uses `cuGetProcAddress_v2`, whose status argument tells
/// [`SymbolNotFound`](Self::SymbolNotFound) from [`VersionNotSufficient`](Self::VersionNotSufficient).
/// With an 11.x header (features `cuda-11070`, `cuda-11080`) it uses CUDA 11.3's
/// `cuGetProcAddress`, which every driver from 11.3 on has and which has no status: it answers
/// `CUDA_ERROR_NOT_FOUND` for both. The helper then asks once more at the driver's own version
/// (never above it): found there, the symbol exists but not at the version asked for
/// ([`VersionNotSufficient`](Self::VersionNotSufficient)); not found there either, the driver has
/// no such symbol ([`SymbolNotFound`](Self::SymbolNotFound)). What v1 cannot tell: a symbol the
/// driver hides at every version it knows reads as not found, and a status newer than the
/// driver's (an `UnknownStatus`) never occurs. The 470 driver (CUDA 11.4) answers
/// `cuMemAllocAsync` at 11000 with `CUDA_ERROR_NOT_FOUND` and at 11040 with the function:
/// version not sufficient.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProcAddressErrorKind {
    /// The driver has no such symbol (`CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND`; with CUDA 11's
    /// `cuGetProcAddress`: not found at the driver's own version either).
    SymbolNotFound,
    /// The symbol exists, not at this version (`CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT`;
    /// with CUDA 11's `cuGetProcAddress`: not found at this version, found at the driver's).
    VersionNotSufficient,
    /// The version asked for is above the running driver's (`cuDriverGetVersion`): refused
    /// without asking, since drivers answer it differently (the 535 driver with its newest
    /// variant, whose type may not be the typedef's; the 580 one with `CUDA_ERROR_INVALID_VALUE`).
    DriverTooOld {
        /// The driver's version.
        driver: c_int,
    },
    /// `cuGetProcAddress` or `cuDriverGetVersion` failed.
    Driver(CUresult),
    /// A status this crate does not know, from a newer driver (CUDA 12+ headers only: CUDA 11's
    /// `cuGetProcAddress` has no status).
    #[cfg(cuda_ge_12000)]
    UnknownStatus(CUdriverProcAddressQueryResult),
    /// Success reported with a null pointer.
    Null,
}

impl fmt::Display for ProcAddressError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let EntryPointInfo {
            symbol, version, ..
        } = self.entry;
        write!(
            f,
            "cuGetProcAddress({symbol:?}, {version}, flags {}): ",
            self.flags.0
        )?;
        match self.kind {
            ProcAddressErrorKind::SymbolNotFound => f.write_str("symbol not found in this driver"),
            ProcAddressErrorKind::VersionNotSufficient => {
                f.write_str("the driver has the symbol, but not at this version")
            }
            ProcAddressErrorKind::DriverTooOld { driver } => {
                write!(
                    f,
                    "the driver's version is {driver}, below the version asked for"
                )
            }
            ProcAddressErrorKind::Driver(code) => write!(f, "failed with CUresult {}", code.0),
            #[cfg(cuda_ge_12000)]
            ProcAddressErrorKind::UnknownStatus(s) => write!(f, "unknown status {}", s.0),
            ProcAddressErrorKind::Null => f.write_str("success with a null pointer"),
        }
    }
}

impl core::error::Error for ProcAddressError {}
