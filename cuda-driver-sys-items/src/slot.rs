//! Where a driver function's pointer is published once looked up: the table's slots
//! ([`Slot`], `table.rs`) and, under `dynamic-loading`, the slots the trampolines call through
//! ([`resolve_function`], `loader.rs`). `tests/loom.rs` includes this file unchanged and runs it
//! under loom (docs/DESIGN.md, "Memory ordering"), so its atomics are named through
//! `crate::sync`.
//!
//! Ordering, for both: a pointer is stored with `Release` and loaded with `Acquire`. The thread
//! that stores it got it from `cuGetProcAddress`, after loading the library (under
//! `dynamic-loading`, after its own `dlopen` or an `Acquire` load of the loader's `LOADED`); a
//! thread that loads the pointer calls it at once, never having looked at the loader's state.
//! The `Release`/`Acquire` pair is what makes the library's initialisation (the `dlopen` of
//! another thread, and what the driver wrote then) happen before that call. Where the driver
//! lacks the function, nothing is published but the fact: [`MISSING`] (a value, no pointee) or
//! the `missing` flag, which is read and written `Relaxed`.

use core::ffi::c_void;
use core::ptr::NonNull;

#[cfg(feature = "dynamic-loading")]
use crate::sync::AtomicBool;
use crate::sync::{AtomicPtr, Ordering};

/// A table slot: null until first use, then the function or [`MISSING`]. Built by `table.rs`'s
/// `const` initializer (loom's atomics are not `const`).
#[cfg(feature = "table")]
pub(crate) struct Slot(pub(crate) AtomicPtr<c_void>);

/// What a table slot holds once the driver has said it has no such function.
#[cfg(feature = "table")]
pub(crate) const MISSING: *mut c_void = core::ptr::dangling_mut::<c_void>();

#[cfg(feature = "table")]
impl Slot {
    /// The function, where the slot holds one: a call's whole cost, one `Acquire` load and one
    /// compare for both unresolved (null) and missing (1).
    #[inline(always)]
    pub(crate) fn function(&self) -> Option<*mut c_void> {
        let p = self.0.load(Ordering::Acquire);
        (p.addr() > MISSING.addr()).then_some(p)
    }

    /// Whether the driver was found to lack the function (no lookup).
    pub(crate) fn is_missing(&self) -> bool {
        // Relaxed would do (MISSING points at nothing); this is the cold path.
        self.0.load(Ordering::Acquire) == MISSING
    }

    /// The function, looked up with `lookup` if the slot holds none yet; or why there is none.
    /// The answer is stored unless `remember` says the error is not the driver's last word
    /// (`cuGetProcAddress` failed: asked again next time). For a function already found
    /// missing, `lookup` is asked again, for the reason.
    pub(crate) fn resolve<E>(
        &self,
        lookup: impl FnOnce() -> Result<NonNull<c_void>, E>,
        remember: impl FnOnce(&E) -> bool,
    ) -> Result<NonNull<c_void>, E> {
        let p = self.0.load(Ordering::Acquire);
        if p == MISSING {
            return lookup();
        }
        if let Some(p) = NonNull::new(p) {
            return Ok(p);
        }
        let found = lookup();
        let p = match &found {
            Ok(p) => p.as_ptr(),
            Err(e) if remember(e) => MISSING,
            Err(_) => return found,
        };
        // Threads racing here store the same value.
        self.0.store(p, Ordering::Release);
        found
    }
}

/// The first call of a `dynamic-loading` function, whose trampoline calls through `slot` (with
/// an `Acquire` load): the function `lookup` finds, stored there for the next calls; `Err(None)`
/// where an earlier lookup found the driver lacks it (`missing`), `Err(Some(e))` where this one
/// failed. `remember` says whether `e` means the driver lacks the function (remembered in
/// `missing`) rather than a failure to answer (not remembered).
#[cfg(feature = "dynamic-loading")]
pub(crate) fn resolve_function<E>(
    slot: &AtomicPtr<c_void>,
    missing: &AtomicBool,
    lookup: impl FnOnce() -> Result<NonNull<c_void>, E>,
    remember: impl FnOnce(&E) -> bool,
) -> Result<NonNull<c_void>, Option<E>> {
    // Relaxed: the flag publishes no data, only that a call returns CUDA_ERROR_NOT_FOUND.
    if missing.load(Ordering::Relaxed) {
        return Err(None);
    }
    match lookup() {
        Ok(p) => {
            publish(slot, p.as_ptr());
            Ok(p)
        }
        Err(e) => {
            if remember(&e) {
                missing.store(true, Ordering::Relaxed);
            }
            Err(Some(e))
        }
    }
}

/// Stores `p` in a slot that a trampoline calls through (`Release`: see above): a resolved
/// function, or one of the four the loader takes by name when it opens the library.
#[cfg(feature = "dynamic-loading")]
pub(crate) fn publish(slot: &AtomicPtr<c_void>, p: *mut c_void) {
    slot.store(p, Ordering::Release);
}
