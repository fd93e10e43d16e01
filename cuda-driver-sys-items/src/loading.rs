//! The loader's state machine (`dynamic-loading`): loading is attempted once per process, by the
//! first thread that asks; the others wait for its outcome and share it. `loader.rs` holds one
//! [`Decided`] for the library; `tests/loom.rs` includes this file unchanged and runs it under
//! loom (docs/DESIGN.md, "Memory ordering"), so its atomics and its cell are named through
//! `crate::sync`.
//!
//! ```text
//! UNTRIED --compare_exchange--> BUSY --store(Release)--> LOADED | FAILED (final)
//! ```

use crate::sync::{wake_all, AtomicU32, Backoff, Ordering, UnsafeCell};

/// No thread has tried to load yet.
pub(crate) const UNTRIED: u32 = 0;
/// One thread is loading; the others wait.
pub(crate) const BUSY: u32 = 1;
/// Loaded: `library` holds the library, for good.
pub(crate) const LOADED: u32 = 2;
/// Not loaded: `error` says why, for good.
pub(crate) const FAILED: u32 = 3;

/// An outcome decided once: a `T` (the library) or an `E` (why there is none). Its fields are
/// set by its static's initializer (`loader.rs`; loom's types are not `const`).
pub(crate) struct Decided<T, E> {
    /// `UNTRIED`, `BUSY`, `LOADED` or `FAILED`.
    ///
    /// Ordering: the one thread that wins `UNTRIED -> BUSY` writes `library` or `error` and
    /// then stores `LOADED` or `FAILED` with `Release`; every read that may lead to those
    /// cells is an `Acquire` load, so seeing `LOADED` makes the writes before it (the cells, the
    /// four bootstrap slots, everything `dlopen` did) visible. The compare-exchange itself
    /// publishes nothing (no thread wrote anything before it): `Acquire` there is more than
    /// enough, and a thread that loses it reads the cells only after `settled`'s own `Acquire`.
    pub(crate) state: AtomicU32,
    /// Written once, through `with_mut`, by the thread that moved `state` to `BUSY`, before its
    /// `Release` store; read only after an `Acquire` load has seen `LOADED`; never written again.
    pub(crate) library: UnsafeCell<T>,
    /// As `library`, for `FAILED`.
    pub(crate) error: UnsafeCell<E>,
}

// SAFETY: the cells are written by one thread, before it publishes them (`Release`), and read
// only after an `Acquire` load has seen that: shared, they are only ever read.
unsafe impl<T: Sync, E: Sync> Sync for Decided<T, E> {}

/// What [`Decided::load_from`] found.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum FromPath<'a, T, E> {
    /// This call made the attempt: its outcome.
    Tried(Result<&'a T, &'a E>),
    /// An earlier attempt had decided: its outcome; nothing was tried.
    Earlier(Result<&'a T, &'a E>),
}

impl<T, E> Decided<T, E> {
    /// The outcome a state names, `None` before one is decided.
    fn outcome(&self, state: u32) -> Option<Result<&T, &E>> {
        match state {
            LOADED => Some(self.decided(true)),
            FAILED => Some(self.decided(false)),
            _ => None,
        }
    }

    /// The library (`loaded`) or the error. Only once this thread has seen `LOADED` or `FAILED`
    /// through an `Acquire` load, or stored it itself.
    fn decided(&self, loaded: bool) -> Result<&T, &E> {
        // SAFETY: the cell was written before the `Release` store of the state this thread saw
        // (or stored), and is never written again.
        if loaded {
            Ok(self.library.with(|p| unsafe { &*p }))
        } else {
            Err(self.error.with(|p| unsafe { &*p }))
        }
    }

    /// The state once no thread is loading: `UNTRIED`, `LOADED` or `FAILED`.
    fn settled(&self) -> u32 {
        let mut backoff = Backoff::new();
        loop {
            let s = self.state.load(Ordering::Acquire);
            if s != BUSY {
                return s;
            }
            backoff.wait(&self.state, BUSY);
        }
    }

    /// What was decided, without loading: `None` before the first attempt; waits for one in
    /// progress.
    pub(crate) fn status(&self) -> Option<Result<&T, &E>> {
        self.outcome(self.settled())
    }

    /// The outcome, loading now with `open` if no thread tried before. `open` writes the library
    /// or the error and says whether it loaded; it runs at most once per process.
    #[inline]
    pub(crate) fn load<F: FnOnce(&mut T, &mut E) -> bool>(&self, open: F) -> Result<&T, &E> {
        match self.outcome(self.state.load(Ordering::Acquire)) {
            Some(r) => r,
            None => self.load_cold(open),
        }
    }

    #[cold]
    #[inline(never)]
    fn load_cold<F: FnOnce(&mut T, &mut E) -> bool>(&self, mut open: F) -> Result<&T, &E> {
        // Once another thread's attempt settles, the state is LOADED or FAILED for good; the
        // loop only guards the states in between.
        loop {
            open = match self.attempt(open) {
                Ok(r) => return r,
                Err(open) => open,
            };
            if let Some(r) = self.outcome(self.settled()) {
                return r;
            }
        }
    }

    /// Loads with `open` if no thread tried before; else the earlier outcome (waiting for an
    /// attempt in progress).
    pub(crate) fn load_from<F: FnOnce(&mut T, &mut E) -> bool>(
        &self,
        mut open: F,
    ) -> FromPath<'_, T, E> {
        loop {
            open = match self.attempt(open) {
                Ok(r) => return FromPath::Tried(r),
                Err(open) => open,
            };
            if let Some(r) = self.outcome(self.settled()) {
                return FromPath::Earlier(r);
            }
        }
    }

    /// Runs `open` if no thread tried before, and publishes its outcome; `open` back where
    /// another attempt came first.
    fn attempt<F: FnOnce(&mut T, &mut E) -> bool>(&self, open: F) -> Result<Result<&T, &E>, F> {
        if self
            .state
            .compare_exchange(UNTRIED, BUSY, Ordering::Acquire, Ordering::Acquire)
            .is_err()
        {
            return Err(open);
        }
        // SAFETY: this thread alone moved `state` to `BUSY`: it is the only writer, and no reader
        // looks before it publishes.
        let loaded = self.library.with_mut(|l| {
            self.error
                .with_mut(|e| open(unsafe { &mut *l }, unsafe { &mut *e }))
        });
        self.state
            .store(if loaded { LOADED } else { FAILED }, Ordering::Release);
        wake_all(&self.state);
        Ok(self.decided(loaded))
    }
}
