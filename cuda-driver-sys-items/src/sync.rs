//! The atomics and the cell through which the loader and the table publish the driver's pointers,
//! and how a thread waits for another thread's loading: the seam of the model check. The files
//! that use them, `loading.rs` (the loader's state machine) and `slot.rs` (the slots), name them
//! only as `crate::sync::*`; `tests/loom.rs` includes those two files unchanged into a crate
//! whose `sync` module gives loom's types instead, and runs them under every interleaving loom
//! explores (docs/DESIGN.md, "Memory ordering"). Nothing here changes what the crate compiles to.

#[cfg(any(feature = "table", feature = "dynamic-loading"))]
pub(crate) use core::sync::atomic::AtomicPtr;
#[cfg(feature = "dynamic-loading")]
pub(crate) use core::sync::atomic::{AtomicBool, AtomicU32};
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
/// a few spins, for the case where the loading is about to end, then asleep on the state word
/// itself until the loading thread's [`wake_all`] (a futex on Linux, `WaitOnAddress` on
/// Windows; elsewhere `sched_yield` at each look). Spinning alone made 64 threads starting at
/// once on one CPU take ten times as long on average as threads parked on `std::sync::Once`
/// (the loading thread had 1/64th of the CPU); yielding matched it on one CPU but not on two
/// (docs/BENCHMARKS.md, "The first call from 64 threads").
#[cfg(feature = "dynamic-loading")]
pub(crate) struct Backoff {
    spins: u32,
}

#[cfg(feature = "dynamic-loading")]
impl Backoff {
    /// Spins before the first sleep: about a microsecond.
    const SPINS: u32 = 32;

    pub(crate) const fn new() -> Self {
        Backoff { spins: 0 }
    }

    /// One wait while `state` holds `busy`; returns when it may have changed (or spuriously:
    /// the caller looks again).
    pub(crate) fn wait(&mut self, state: &AtomicU32, busy: u32) {
        if self.spins < Self::SPINS {
            self.spins += 1;
            core::hint::spin_loop();
        } else {
            sleep_while(state, busy);
        }
    }
}

/// Sleeps until `state` is woken, unless it no longer holds `busy` (checked by the kernel
/// atomically with going to sleep: a [`wake_all`] after the store cannot be missed).
#[cfg(all(feature = "dynamic-loading", any(target_os = "linux", target_os = "android")))]
fn sleep_while(state: &AtomicU32, busy: u32) {
    // SAFETY: a valid, aligned 32-bit word for the whole call; no timeout. An error (`EAGAIN`:
    // the state changed; `EINTR`) only means an earlier return.
    unsafe {
        libc::syscall(
            libc::SYS_futex,
            state.as_ptr(),
            libc::FUTEX_WAIT | libc::FUTEX_PRIVATE_FLAG,
            busy,
            core::ptr::null::<libc::timespec>(),
        );
    }
}

/// Wakes every thread asleep on `state`: called once, after the store that ends `busy`.
#[cfg(all(feature = "dynamic-loading", any(target_os = "linux", target_os = "android")))]
pub(crate) fn wake_all(state: &AtomicU32) {
    // SAFETY: a valid, aligned 32-bit word; `i32::MAX` wakes all.
    unsafe {
        libc::syscall(
            libc::SYS_futex,
            state.as_ptr(),
            libc::FUTEX_WAKE | libc::FUTEX_PRIVATE_FLAG,
            i32::MAX,
        );
    }
}

#[cfg(all(feature = "dynamic-loading", windows))]
fn sleep_while(state: &AtomicU32, busy: u32) {
    // SAFETY: both addresses valid for 4 bytes during the call; `INFINITE`. A failure only means
    // an earlier return.
    unsafe {
        WaitOnAddress(state.as_ptr().cast(), (&busy as *const u32).cast(), 4, u32::MAX);
    }
}

#[cfg(all(feature = "dynamic-loading", windows))]
pub(crate) fn wake_all(state: &AtomicU32) {
    // SAFETY: a valid address; waking with no sleeper does nothing.
    unsafe { WakeByAddressAll(state.as_ptr().cast()) }
}

// The import library std itself uses for these (no `synchronization.lib` needed at link time).
#[cfg(all(feature = "dynamic-loading", windows))]
#[link(name = "api-ms-win-core-synch-l1-2-0", kind = "raw-dylib")]
extern "system" {
    fn WaitOnAddress(
        address: *const core::ffi::c_void,
        compare: *const core::ffi::c_void,
        size: usize,
        milliseconds: u32,
    ) -> i32;
    fn WakeByAddressAll(address: *const core::ffi::c_void);
}

/// Elsewhere, no sleeping on an address: give the CPU away at each look.
#[cfg(all(
    feature = "dynamic-loading",
    not(any(target_os = "linux", target_os = "android", windows))
))]
fn sleep_while(_state: &AtomicU32, _busy: u32) {
    #[cfg(unix)]
    // SAFETY: no arguments; a failure only means no yield.
    unsafe {
        libc::sched_yield();
    }
    #[cfg(not(unix))]
    core::hint::spin_loop();
}

#[cfg(all(
    feature = "dynamic-loading",
    not(any(target_os = "linux", target_os = "android", windows))
))]
pub(crate) fn wake_all(_state: &AtomicU32) {}
