//! The driver-entry table: every driver function of the selected header (`cuda.h`'s, and those
//! of the interop modules whose features are on), resolved
//! through `cuGetProcAddress` on first use, so one binary starts on every driver and uses what
//! that driver has.
//!
//! A binary that links a driver symbol directly fails to start on a driver without it
//! (`undefined symbol: cuCtxCreate_v4`), even if it never calls it. Through the table, each
//! function is looked up at the version whose ABI its C spelling has (never one global "latest"),
//! and a function the driver lacks returns `CUDA_ERROR_NOT_FOUND` when called. Where
//! `cuGetProcAddress` itself fails (under `dynamic-loading` with no driver library:
//! `CUDA_ERROR_SHARED_OBJECT_INIT_FAILED`) a call returns that code and the function is looked up
//! again on the next call. The table never calls a null pointer and never panics. With the crate's `table-only` feature nothing but
//! `cuGetProcAddress_v2`, `cuDriverGetVersion`, `cuGetErrorName` and `cuGetErrorString` is linked.
//!
//! ```
//! use cuda_driver_sys::{table, CUresult};
//!
//! let t = table();
//! let mut version = 0;
//! assert_eq!(unsafe { t.cuDriverGetVersion(&mut version) }, CUresult::CUDA_SUCCESS);
//! // What this driver provides, and why the rest is missing:
//! for (name, status) in t.entries() {
//!     if let Err(e) = status {
//!         println!("{name}: {e}");
//!     }
//! }
//! ```

use core::ffi::c_void;
use core::ptr::{self, NonNull};
use core::sync::atomic::AtomicPtr;

use crate::bindings::*;
use crate::slot::Slot;
use crate::{entry, EntryPoint, EntryPointInfo, ProcAddressError, ProcAddressErrorKind};
use crate::{CU_GET_PROC_ADDRESS_LEGACY_STREAM, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM};

generated!("table.rs");

/// Which default stream the table's functions use: the legacy `NULL` stream, or the per-thread
/// default stream (`_ptds`/`_ptsz` variants, C's `CUDA_API_PER_THREAD_DEFAULT_STREAM`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StreamMode {
    /// The legacy default stream.
    Legacy,
    /// The per-thread default stream.
    PerThread,
}

impl StreamMode {
    /// The mode this crate was built for: [`PerThread`](Self::PerThread) under the
    /// `per-thread-default-stream` feature, else [`Legacy`](Self::Legacy).
    pub const BUILD: StreamMode = if cfg!(feature = "per-thread-default-stream") {
        StreamMode::PerThread
    } else {
        StreamMode::Legacy
    };

    fn flags(self) -> CUdriverProcAddress_flags {
        match self {
            StreamMode::Legacy => CU_GET_PROC_ADDRESS_LEGACY_STREAM,
            StreamMode::PerThread => CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM,
        }
    }
}

/// One function of the table: its C spelling, and the entry point it resolves in each mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TableEntry {
    /// The C spelling (`"cuCtxCreate"`).
    pub name: &'static str,
    /// Its entry point with the legacy default stream.
    pub legacy: EntryPointInfo,
    /// Its entry point with the per-thread default stream (the same where the function has no
    /// stream semantics).
    pub per_thread: EntryPointInfo,
}

/// The slots of one header's functions, and what each resolves.
pub(crate) struct Slots<const N: usize> {
    slots: [Slot; N],
    entries: &'static [TableEntry; N],
}

/// One header's slots, whatever their number: what the cold paths and the lookups by name work
/// on, so that they exist once, not once per header.
#[derive(Clone, Copy)]
struct Part<'a> {
    slots: &'a [Slot],
    entries: &'static [TableEntry],
}

// `DriverTable`: one field of slots per header, its constructor and its parts. Written by the
// generator's merge stage from its table of header sets, the same for every header version.
include!("generated/driver_table.rs");

static DEFAULT: DriverTable = DriverTable::new(StreamMode::BUILD);

/// The process-wide table, in the stream mode the crate was built for.
///
/// ```
/// let mut v = 0;
/// let code = unsafe { cuda_driver_sys::table().cuDriverGetVersion(&mut v) };
/// assert_eq!(code, cuda_driver_sys::CUDA_SUCCESS);
/// ```
pub fn table() -> &'static DriverTable {
    &DEFAULT
}

impl<const N: usize> Slots<N> {
    const fn new(entries: &'static [TableEntry; N]) -> Self {
        Slots {
            slots: [const { Slot(AtomicPtr::new(ptr::null_mut())) }; N],
            entries,
        }
    }

    fn part(&self) -> Part<'_> {
        Part {
            slots: &self.slots,
            entries: self.entries,
        }
    }

    /// The function of slot `index`, typed as `_type`'s typedef; else the code a call returns
    /// (`CUDA_ERROR_NOT_FOUND` where the driver lacks it). `mode` is taken by reference: only the
    /// cold path reads it, so a call through a resolved slot loads nothing but the slot.
    #[inline(always)]
    pub(crate) fn resolve<F: Copy>(
        &self,
        mode: &StreamMode,
        index: usize,
        _type: EntryPoint<Option<F>>,
    ) -> Result<F, CUresult> {
        const { assert!(size_of::<F>() == size_of::<*mut c_void>()) };
        // One load (Acquire: crate::slot says why), one compare.
        let p = match self.slots[index].function() {
            Some(p) => p,
            None => self.part().resolve_cold(*mode, index)?,
        };
        // SAFETY: the slot holds what `cuGetProcAddress` gave for this function's entry point,
        // whose typedef `F` is (the generated methods pass that entry point's constant).
        Ok(unsafe { core::mem::transmute_copy::<*mut c_void, F>(&p) })
    }
}

impl<'a> Part<'a> {
    #[cold]
    #[inline(never)]
    fn resolve_cold(self, mode: StreamMode, index: usize) -> Result<*mut c_void, CUresult> {
        if self.slots[index].is_missing() {
            return Err(CUresult::CUDA_ERROR_NOT_FOUND);
        }
        match self.status(mode, index) {
            Ok(p) => Ok(p.as_ptr()),
            Err(e) => Err(match e.kind {
                ProcAddressErrorKind::Driver(code) => code,
                _ => CUresult::CUDA_ERROR_NOT_FOUND,
            }),
        }
    }

    /// Slot `index`, resolved now if it was not yet: the function, or why the driver has none
    /// (for a function found missing, asked again: only here, for `pointer` and `entries`, never
    /// on a call).
    fn status(self, mode: StreamMode, index: usize) -> Result<NonNull<c_void>, ProcAddressError> {
        self.slots[index].resolve(
            || lookup(mode, &self.entries[index]),
            // `cuGetProcAddress` or `cuDriverGetVersion` failed (no driver library under
            // `dynamic-loading`): nothing learnt about the function, asked again next time.
            |e| !matches!(e.kind, ProcAddressErrorKind::Driver(_)),
        )
    }

    /// Every function of these slots with its status.
    fn all(
        self,
        mode: StreamMode,
    ) -> impl Iterator<Item = (&'static str, Result<NonNull<c_void>, ProcAddressError>)> + 'a {
        self.entries
            .iter()
            .enumerate()
            .map(move |(i, e)| (e.name, self.status(mode, i)))
    }

    /// The function `name`'s status, `None` where these slots have no such function.
    fn named(
        self,
        mode: StreamMode,
        name: &str,
    ) -> Option<Result<NonNull<c_void>, ProcAddressError>> {
        let index = self.entries.iter().position(|e| e.name == name)?;
        Some(self.status(mode, index))
    }
}

/// The entry point `e` has in `mode`, looked up.
fn lookup(mode: StreamMode, e: &TableEntry) -> Result<NonNull<c_void>, ProcAddressError> {
    mode.entry_of(e).lookup(mode.flags())
}

impl StreamMode {
    /// The entry point a function resolves in this mode.
    fn entry_of(self, e: &TableEntry) -> EntryPointInfo {
        match self {
            StreamMode::Legacy => e.legacy,
            StreamMode::PerThread => e.per_thread,
        }
    }
}

impl DriverTable {
    /// The stream mode the table resolves for.
    pub fn mode(&self) -> StreamMode {
        self.mode
    }

    /// The entry point a function resolves in this table's mode.
    pub fn entry_of(&self, e: &TableEntry) -> EntryPointInfo {
        self.mode.entry_of(e)
    }

    /// Resolves every slot now; returns how many functions the driver provides.
    pub fn resolve_all(&self) -> usize {
        self.entries().filter(|(_, r)| r.is_ok()).count()
    }

    /// The function `name` (a C spelling) as this table resolves it, or why the driver has none.
    /// `None` where the header has no such function.
    ///
    /// ```
    /// let t = cuda_driver_sys::table();
    /// assert!(t.pointer("cuInit").unwrap().is_ok());
    /// assert!(t.pointer("cuNoSuchFunction").is_none());
    /// ```
    pub fn pointer(&self, name: &str) -> Option<Result<NonNull<c_void>, ProcAddressError>> {
        self.parts().find_map(|part| part.named(self.mode, name))
    }

    /// Every function of the table with what this driver provides: the pointer, or the error
    /// with the function's name and the version asked for. Resolves every slot. `cuda.h`'s
    /// functions come first, in [`TABLE_ENTRIES`]' order, then those of each interop module
    /// whose feature is on (in the order of [`DriverTable`]'s docs, each in its
    /// `table::TABLE_ENTRIES`' order).
    pub fn entries(
        &self,
    ) -> impl Iterator<Item = (&'static str, Result<NonNull<c_void>, ProcAddressError>)> + '_ {
        let mode = self.mode;
        self.parts().flat_map(move |part| part.all(mode))
    }
}
