//! The atomics and the cell through which the loader and the table publish the driver's pointers,
//! and how a thread waits for another thread's loading: the seam of the model check. The files
//! that use them, `loading.rs` (the loader's state machine) and `slot.rs` (the slots), name them
//! only as `crate::sync::*`; `tests/loom.rs` includes those two files unchanged into a crate
//! whose `sync` module gives loom's types instead, and runs them under every interleaving loom
//! explores (docs/DESIGN.md, "Memory ordering"). Nothing here changes what the crate compiles to.

#[cfg(any(feature = "table", feature = "dynamic-loading"))]
pub(crate) use core::sync::atomic::AtomicPtr;
#[cfg(feature = "dynamic-loading")]
pub(crate) use core::sync::atomic::{AtomicBool, AtomicU8};
#[cfg(any(feature = "table", feature = "dynamic-loading"))]
pub(crate) use core::sync::atomic::Ordering;

/// `core::cell::UnsafeCell` with loom's interface: every access goes through `with` or
/// `with_mut`, where the model check records it.
#[cfg(feature = "dynamic-loading")]
pub(crate) struct UnsafeCell<T>(core::cell::UnsafeCell<T>);

#[cfg(feature = "dynamic-loading")]
impl<T> UnsafeCell<T> {
    pub(crate) const fn new(value: T) -> Self {
        UnsafeCell(core::cell::UnsafeCell::new(value))
    }

    /// `f` given a pointer to read through.
    #[inline(always)]
    pub(crate) fn with<R>(&self, f: impl FnOnce(*const T) -> R) -> R {
        f(self.0.get())
    }

    /// `f` given a pointer to write through.
    #[inline(always)]
    pub(crate) fn with_mut<R>(&self, f: impl FnOnce(*mut T) -> R) -> R {
        f(self.0.get())
    }
}

/// How a thread waits while another loads the library (milliseconds: `dlopen` of the driver):
/// a few spins, for the case where the loading is about to end, then giving the CPU away at each
/// look (`sched_yield`, `SwitchToThread`). Spinning alone made 64 threads starting at once on one
/// CPU take 3-5 times as long as threads parked on `std::sync::Once`: the loading thread had
/// 1/64th of the CPU (docs/BENCHMARKS.md, "The first call from 64 threads").
#[cfg(feature = "dynamic-loading")]
pub(crate) struct Backoff {
    spins: u32,
}

#[cfg(feature = "dynamic-loading")]
impl Backoff {
    /// Spins before the first yield: about a microsecond.
    const SPINS: u32 = 32;

    pub(crate) const fn new() -> Self {
        Backoff { spins: 0 }
    }

    /// One wait between two looks at the state.
    pub(crate) fn pause(&mut self) {
        if self.spins < Self::SPINS {
            self.spins += 1;
            core::hint::spin_loop();
        } else {
            yield_now();
        }
    }
}

/// Gives the rest of this thread's time slice to another runnable thread.
#[cfg(feature = "dynamic-loading")]
fn yield_now() {
    #[cfg(unix)]
    // SAFETY: no arguments; it cannot fail on Linux (elsewhere a failure only means no yield).
    unsafe {
        libc::sched_yield();
    }
    #[cfg(windows)]
    // SAFETY: no arguments.
    unsafe {
        SwitchToThread();
    }
    #[cfg(not(any(unix, windows)))]
    core::hint::spin_loop();
}

#[cfg(all(feature = "dynamic-loading", windows))]
#[link(name = "kernel32")]
extern "system" {
    fn SwitchToThread() -> i32;
}
