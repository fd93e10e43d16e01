//! The model check of the loader's state machine and of the slots: `src/loading.rs` and
//! `src/slot.rs`, included unchanged, their atomics and cell loom's (this crate's `sync`
//! module), run by loom under every interleaving of 3 threads it explores (a preemption bound of
//! 3, `LOOM_MAX_PREEMPTIONS` to change it) and, for each atomic load, every value the C++11
//! memory model lets it read. Only with
//! `--cfg loom` (`cargo xtask concurrency`, which also runs it on copies whose orderings are
//! weakened: each must fail here).
//!
//! The driver library is modelled by one cell, `Driver::memory`: `open` (the `dlopen`) writes it,
//! and a call into the driver reads it. loom reports a read not ordered after that write (a
//! "causality violation"): a thread that got a function pointer, or the loader's outcome, before
//! the library it points into was published to it.
#![cfg(loom)]

use loom::sync::atomic::AtomicUsize;
use loom::sync::Arc;
use loom::thread;
use std::ffi::c_void;
use std::ptr::NonNull;
use std::sync::atomic::Ordering::SeqCst;

/// The seam: loom's atomics and cell, and a wait that lets loom run another thread. The real
/// wait's sleep on the state word and the wake after its final store are the kernel's (a futex:
/// it sleeps only while the word still holds `BUSY`, checked atomically), not modelled here:
/// a waiter here looks again after each yield, as a woken or never-sleeping one does.
mod sync {
    pub(crate) use loom::cell::UnsafeCell;
    pub(crate) use loom::sync::atomic::{AtomicBool, AtomicPtr, AtomicU32, Ordering};

    pub(crate) struct Backoff;

    impl Backoff {
        pub(crate) const fn new() -> Self {
            Backoff
        }

        pub(crate) fn wait(&mut self, _state: &AtomicU32, _busy: u32) {
            loom::thread::yield_now();
        }
    }

    pub(crate) fn wake_all(_state: &AtomicU32) {}
}

#[allow(dead_code)]
#[path = "../src/loading.rs"]
mod loading;
#[allow(dead_code)]
#[path = "../src/slot.rs"]
mod slot;

use loading::{Decided, FromPath, FAILED, LOADED, UNTRIED};
use slot::{resolve_function, Slot, MISSING};
use sync::{AtomicBool, AtomicPtr, AtomicU32, UnsafeCell};

/// A driver function's address (never called: a call is [`Driver::call`]).
const FUNCTION: *mut c_void = 0x1000 as *mut c_void;
/// What a trampoline's slot holds before its first call: its resolver.
const RESOLVER: *mut c_void = 0x2000 as *mut c_void;
/// The value `open` writes into the driver's memory.
const INITIALISED: u32 = 42;

/// What a library slot records: which opening loaded it.
#[derive(Debug, PartialEq, Eq)]
struct Library(u32);
/// Why not: which opening failed.
#[derive(Debug, PartialEq, Eq)]
struct Error(u32);

/// The process: the loader's state, the driver library's memory, a bootstrap slot.
struct Driver {
    decided: Decided<Library, Error>,
    /// What `dlopen` initialises, and every driver function reads.
    memory: UnsafeCell<u32>,
    /// `cuDriverGetVersion`'s slot: stored by the opening, as `loader.rs`'s `open_first` does.
    bootstrap: AtomicPtr<c_void>,
    /// How many openings ran.
    opened: AtomicUsize,
}

impl Driver {
    fn new() -> Arc<Driver> {
        Arc::new(Driver {
            decided: Decided {
                state: AtomicU32::new(UNTRIED),
                library: UnsafeCell::new(Library(0)),
                error: UnsafeCell::new(Error(0)),
            },
            memory: UnsafeCell::new(0),
            bootstrap: AtomicPtr::new(RESOLVER),
            opened: AtomicUsize::new(0),
        })
    }

    /// An opening named `id` that succeeds (`loads`) or not: what `open_first` does.
    fn open(&self, id: u32, loads: bool) -> impl FnOnce(&mut Library, &mut Error) -> bool + '_ {
        move |library, error| {
            self.opened.fetch_add(1, SeqCst);
            if !loads {
                *error = Error(id);
                return false;
            }
            // SAFETY: this thread is the only one opening (the state machine's claim, which the
            // model checks: a second writer is a reported race).
            self.memory.with_mut(|m| unsafe { *m = INITIALISED });
            slot::publish(&self.bootstrap, FUNCTION);
            *library = Library(id);
            true
        }
    }

    /// A call into the driver through a pointer this thread got: reads the driver's memory.
    fn call(&self, p: *mut c_void) -> u32 {
        assert_eq!(
            p, FUNCTION,
            "a call through something that is not the function"
        );
        // SAFETY: loom checks that the write happened before.
        self.memory.with(|m| unsafe { *m })
    }

    /// `loader::load` (the default names: opening 1).
    fn load(&self, loads: bool) -> Result<u32, u32> {
        match self.decided.load(self.open(1, loads)) {
            Ok(l) => Ok(l.0),
            Err(e) => Err(e.0),
        }
    }

    /// A `dynamic-loading` trampoline (what each generated one does: an `Acquire` load of its
    /// slot, and a call through it) over `resolve` of `loader.rs` for a function the driver has
    /// (`found`) or lacks: the value the call returns, or the code it returns instead.
    fn trampoline(
        &self,
        slot: &AtomicPtr<c_void>,
        missing: &AtomicBool,
        found: bool,
    ) -> Result<u32, &'static str> {
        let p = slot.load(sync::Ordering::Acquire);
        if p != RESOLVER {
            return Ok(self.call(p));
        }
        if self.load(true).is_err() {
            return Err("CUDA_ERROR_SHARED_OBJECT_INIT_FAILED");
        }
        let lookup = || {
            // cuGetProcAddress: a call into the driver.
            self.call(FUNCTION);
            if found {
                NonNull::new(FUNCTION).ok_or("null")
            } else {
                Err("CUDA_ERROR_NOT_FOUND")
            }
        };
        match resolve_function(slot, missing, lookup, |_| true) {
            Ok(p) => Ok(self.call(p.as_ptr())),
            Err(_) => Err("CUDA_ERROR_NOT_FOUND"),
        }
    }

    /// A call through the table (`Slots::resolve` and `resolve_cold` of `table.rs`), for a
    /// function the driver has (`found`) or lacks.
    fn table_call(&self, slot: &Slot, found: bool) -> Result<u32, &'static str> {
        let p = match slot.function() {
            Some(p) => p,
            None => {
                if slot.is_missing() {
                    return Err("CUDA_ERROR_NOT_FOUND");
                }
                let lookup = || {
                    // The table's lookup: cuGetProcAddress through the loader's bootstrap slot.
                    let p = self.bootstrap.load(sync::Ordering::Acquire);
                    let p = if p == RESOLVER {
                        self.load(true).map_err(|_| "no library")?;
                        self.bootstrap.load(sync::Ordering::Acquire)
                    } else {
                        p
                    };
                    self.call(p);
                    if found {
                        NonNull::new(FUNCTION).ok_or("null")
                    } else {
                        Err("CUDA_ERROR_NOT_FOUND")
                    }
                };
                slot.resolve(lookup, |_| true)?.as_ptr()
            }
        };
        Ok(self.call(p))
    }
}

/// loom's exhaustive exploration, bounded to 3 preemptions per execution.
fn model(f: impl Fn() + Sync + Send + 'static) {
    let mut builder = loom::model::Builder::new();
    if builder.preemption_bound.is_none() {
        builder.preemption_bound = Some(3);
    }
    builder.check(f);
}

/// A thread whose first call comes while the others' are under way: one `Acquire` load of the
/// slot and, where it holds the function, a call through it (it waits for nothing: loom's
/// exploration of spin loops stays finite with at most one waiting thread, so each model has at
/// most two threads that may wait).
fn late_call(d: &Driver, slot: &AtomicPtr<c_void>) -> Option<u32> {
    let p = slot.load(sync::Ordering::Acquire);
    (p != RESOLVER).then(|| d.call(p))
}

/// Two of `load`, `load_from` and `status` racing (`first` and `second`), the opening succeeding
/// or failing, and a late call through the bootstrap slot: one opening runs; every thread gets
/// its outcome; the winner's writes are visible to the others.
fn loader(first: Op, second: Op, loads: bool) {
    model(move || {
        let d = Driver::new();
        let threads: Vec<_> = [(first, 1), (second, 2)]
            .into_iter()
            .map(|(op, id)| {
                let d = d.clone();
                thread::spawn(move || {
                    let r = op.run(&d, id, loads);
                    if let (_, Some(Ok(_))) = r {
                        // What cuDriverGetVersion's trampoline then calls.
                        let p = d.bootstrap.load(sync::Ordering::Acquire);
                        assert_eq!(d.call(p), INITIALISED);
                    }
                    r
                })
            })
            .collect();
        if let Some(v) = late_call(&d, &d.bootstrap) {
            assert_eq!(v, INITIALISED);
        }
        let results: Vec<_> = threads.into_iter().map(|t| t.join().unwrap()).collect();
        let opened = d.opened.load(SeqCst);
        let tried: Vec<u32> = results.iter().filter_map(|r| r.0).collect();
        assert!(tried.len() <= 1, "one opening per process: {results:?}");
        assert_eq!(opened, tried.len(), "{results:?}");
        let outcome = match tried.first() {
            Some(&id) if loads => Ok(id),
            Some(&id) => Err(id),
            None => {
                // Only `status` ran: nothing tried, nothing seen.
                assert!(results.iter().all(|r| r.1.is_none()), "{results:?}");
                return;
            }
        };
        for r in &results {
            if let Some(seen) = r.1 {
                assert_eq!(seen, outcome, "{results:?}");
            }
        }
        let state = d.decided.state.load(SeqCst);
        assert_eq!(state, if loads { LOADED } else { FAILED });
    });
}

/// A loader operation of the model.
#[derive(Clone, Copy, Debug)]
enum Op {
    /// `loader::load`.
    Load,
    /// `loader::load_from`.
    LoadFrom,
    /// `loader::status`.
    Status,
}

impl Op {
    /// The opening this call made, if it made one, and the outcome it returned.
    /// `id` names the opening it would make.
    fn run(self, d: &Driver, id: u32, loads: bool) -> (Option<u32>, Option<Result<u32, u32>>) {
        let tried = |r: Result<&Library, &Error>| match r {
            Ok(l) => Ok(l.0),
            Err(e) => Err(e.0),
        };
        match self {
            Op::Load => {
                let r = tried(d.decided.load(d.open(id, loads)));
                // The outcome names the opening that made it.
                (
                    matches!(r, Ok(x) | Err(x) if x == id).then_some(id),
                    Some(r),
                )
            }
            Op::LoadFrom => match d.decided.load_from(d.open(id, loads)) {
                FromPath::Tried(r) => (Some(id), Some(tried(r))),
                FromPath::Earlier(r) => (None, Some(tried(r))),
            },
            Op::Status => (None, d.decided.status().map(tried)),
        }
    }
}

#[test]
fn loader_load_and_load_from_race_to_a_loaded_library() {
    loader(Op::Load, Op::LoadFrom, true);
}

#[test]
fn loader_load_and_load_from_race_to_a_failure() {
    loader(Op::Load, Op::LoadFrom, false);
}

#[test]
fn loader_load_and_status_race_to_a_loaded_library() {
    loader(Op::Load, Op::Status, true);
}

#[test]
fn loader_load_from_and_status_race_to_a_failure() {
    loader(Op::LoadFrom, Op::Status, false);
}

#[test]
fn loader_two_loads_race_to_a_loaded_library() {
    loader(Op::Load, Op::Load, true);
}

/// Two threads' first call of one `dynamic-loading` function (which the driver has, or lacks),
/// and a late call: each gets the driver's answer, through a slot stored once, or `NOT_FOUND`.
fn trampolines(found: bool) {
    model(move || {
        let d = Driver::new();
        let slot = Arc::new(AtomicPtr::new(RESOLVER));
        let missing = Arc::new(AtomicBool::new(false));
        let threads: Vec<_> = (0..2)
            .map(|_| {
                let (d, slot, missing) = (d.clone(), slot.clone(), missing.clone());
                thread::spawn(move || d.trampoline(&slot, &missing, found))
            })
            .collect();
        if let Some(v) = late_call(&d, &slot) {
            assert_eq!(v, INITIALISED);
        }
        let expected = if found {
            Ok(INITIALISED)
        } else {
            Err("CUDA_ERROR_NOT_FOUND")
        };
        for t in threads {
            assert_eq!(t.join().unwrap(), expected);
        }
        assert_eq!(d.opened.load(SeqCst), 1);
        let p = slot.load(SeqCst);
        assert_eq!(p, if found { FUNCTION } else { RESOLVER });
        assert_eq!(missing.load(SeqCst), !found);
    });
}

#[test]
fn trampolines_first_calls_race_for_a_function_the_driver_has() {
    trampolines(true);
}

#[test]
fn trampolines_first_calls_race_for_a_function_the_driver_lacks() {
    trampolines(false);
}

/// Two threads' first call of one function through the table (which the driver has, or lacks),
/// under `dynamic-loading` (the lookup loads the library first), and a late call.
fn table(found: bool) {
    model(move || {
        let d = Driver::new();
        let slot = Arc::new(Slot(AtomicPtr::new(std::ptr::null_mut())));
        let threads: Vec<_> = (0..2)
            .map(|_| {
                let (d, slot) = (d.clone(), slot.clone());
                thread::spawn(move || d.table_call(&slot, found))
            })
            .collect();
        if let Some(p) = slot.function() {
            assert_eq!(d.call(p), INITIALISED);
        }
        let expected = if found {
            Ok(INITIALISED)
        } else {
            Err("CUDA_ERROR_NOT_FOUND")
        };
        for t in threads {
            assert_eq!(t.join().unwrap(), expected);
        }
        let p = slot.0.load(SeqCst);
        assert_eq!(p, if found { FUNCTION } else { MISSING });
    });
}

#[test]
fn table_first_calls_race_for_a_function_the_driver_has() {
    table(true);
}

#[test]
fn table_first_calls_race_for_a_function_the_driver_lacks() {
    table(false);
}
