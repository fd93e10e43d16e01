//! 64 threads racing the first driver call, in a fresh process each time (the first call happens
//! once per process): this program runs itself as a child `RUNS` times. In each child the
//! threads wait at a barrier, then all make their first calls at once: `cuDriverGetVersion`
//! (linked in every mode, the loader's bootstrap under `dynamic-loading`), `cuGetErrorName`, and
//! through the table (resolved by `cuGetProcAddress` on first use) `cuDriverGetVersion` and the
//! pointer of `cuInit` (not called: the driver's own initialisation takes seconds without a GPU),
//! and the loader's library (its name and handle). A third of the threads start with those calls,
//! a third with `loader::load`, a third with `loader::load_from` of the library's own name: under
//! `dynamic-loading` any of them may be the one that loads it, and the others read what it wrote.
//! Every thread must see the same results, the driver's own; the child must exit 0 (no crash, no
//! hang: each child has `TIMEOUT`). Run in every mode: linked, `table-only`, `dynamic-loading`
//! (cargo xtask bad-input), and under ThreadSanitizer (cargo xtask concurrency, which sets
//! `FIRST_CALL_RACE_RUNS`: a data race is reported from one run).

use cuda_driver_sys::loader::{self, LoadFromError};
use cuda_driver_sys::*;
use std::ffi::CStr;
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

const THREADS: usize = 64;
/// Runs, unless `FIRST_CALL_RACE_RUNS` says.
const RUNS: usize = 100;
const TIMEOUT: Duration = Duration::from_secs(30);

mod common;

fn main() {
    if std::env::args().nth(1).as_deref() == Some("child") {
        child();
        return;
    }
    let exe = std::env::current_exe().unwrap();
    let started = Instant::now();
    let runs = std::env::var("FIRST_CALL_RACE_RUNS").map_or(RUNS, |r| r.parse().unwrap());
    for run in 0..runs {
        // Through the target's runner where there is one (qemu-user, cargo xtask platforms).
        let mut child = common::runner::target_command(&exe)
            .arg("child")
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let deadline = Instant::now() + TIMEOUT;
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                panic!("run {run}: the child did not finish within {TIMEOUT:?} (a hang)");
            }
            std::thread::sleep(Duration::from_millis(5));
        };
        let out = child.wait_with_output().unwrap();
        assert!(status.success(), "run {run}: {status}");
        if run == 0 {
            print!("{}", String::from_utf8_lossy(&out.stdout));
        }
    }
    println!(
        "first_call_race: {runs} runs of {THREADS} threads racing the first calls, all equal, in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    // The form the other targets' runs count (cargo xtask platforms).
    println!("first_call_race: {runs} cases passed");
}

/// What one thread's first calls gave.
#[derive(Debug, PartialEq, Eq, Clone)]
struct Seen {
    version: (CUresult, i32),
    name: (CUresult, Option<&'static CStr>),
    table_init: Result<usize, ProcAddressErrorKind>,
    table_version: (CUresult, i32),
    /// The loader's library: its name and handle.
    library: (String, usize),
}

/// The library `loader::load` or `loader::load_from` gave (which read it from where the loading
/// thread wrote it).
fn library(lib: &loader::Library) -> (String, usize) {
    let handle = lib.handle().map_or(0, |h| h.as_ptr() as usize);
    (lib.name().to_string_lossy().into_owned(), handle)
}

/// The loader's library through `load` (`first` 1) or `load_from` (2).
fn loaded(first: usize) -> (String, usize) {
    let lib = if first == 2 {
        match loader::load_from(common::LIBRARY) {
            Ok(lib) | Err(LoadFromError::AlreadyLoaded(lib)) => lib,
            Err(e) => panic!("{e}"),
        }
    } else {
        loader::load().unwrap_or_else(|e| panic!("{e}"))
    };
    library(lib)
}

/// The first calls, starting with the driver functions (`first` 0) or the loader (1, 2).
fn first_calls(first: usize) -> Seen {
    let early = (first != 0).then(|| loaded(first));
    let mut v = 0;
    let version = (unsafe { cuDriverGetVersion(&mut v) }, v);
    let mut name = std::ptr::null();
    let code = unsafe { cuGetErrorName(CUDA_ERROR_NO_DEVICE, &mut name) };
    let name = (
        code,
        (!name.is_null()).then(|| unsafe { CStr::from_ptr(name) }),
    );
    let table_init = table()
        .pointer("cuInit")
        .expect("the table has cuInit")
        .map(|p| p.as_ptr() as usize)
        .map_err(|e| e.kind);
    let mut t = 0;
    let table_version = (unsafe { table().cuDriverGetVersion(&mut t) }, t);
    let library = early.unwrap_or_else(|| loaded(1));
    Seen {
        version,
        name,
        table_init,
        table_version,
        library,
    }
}

fn child() {
    let barrier = Arc::new(Barrier::new(THREADS));
    let threads: Vec<_> = (0..THREADS)
        .map(|i| {
            let barrier = barrier.clone();
            std::thread::spawn(move || {
                barrier.wait();
                first_calls(i % 3)
            })
        })
        .collect();
    let seen: Vec<Seen> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    let first = &seen[0];
    assert!(
        seen.iter().all(|s| s == first),
        "threads saw different results: {seen:?}"
    );
    // The same as a call made now, after the race.
    assert_eq!(&first_calls(0), first);
    assert_eq!(first.version.0, CUDA_SUCCESS, "{first:?}");
    assert_eq!(first.table_version, first.version);
    if let Ok(expected) = std::env::var("CUDA_DRIVER_EXPECT_VERSION") {
        assert_eq!(first.version.1.to_string(), expected);
    }
    assert!(first.table_init.is_ok(), "{first:?}");
    assert_eq!(first.name, (CUDA_SUCCESS, Some(c"CUDA_ERROR_NO_DEVICE")));
    assert_eq!(first.library.0, common::LIBRARY.to_str().unwrap());
    assert_eq!(first.library.1 == 0, !cfg!(feature = "dynamic-loading"));
    println!("  each of {THREADS} threads: {first:?}");
}
