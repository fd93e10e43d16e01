//! `cuda_driver_sys::loader::load_from`, each case in a fresh process (loading is decided once per
//! process): this program runs itself as a child per case and checks the child's exit status.
//!
//! - a path given before any driver call is what is loaded (the driver library found on
//!   `LD_LIBRARY_PATH` (`PATH` on Windows), by its full path; where none is reachable, this case says so and is not
//!   counted, and `cargo xtask dynamic-check` runs the program both ways);
//! - a path that does not exist: the error names it, with the loader's message, and every call
//!   returns `CUDA_ERROR_SHARED_OBJECT_INIT_FAILED`;
//! - after a first driver call, `load_from` does not try its path: `AlreadyLoaded` or
//!   `AlreadyFailed`;
//! - a path that is not UTF-8: the error keeps its bytes, and shows each invalid sequence as
//!   U+FFFD;
//! - a path longer than the loader keeps (`NAME_CAPACITY`, 5,000 bytes): the name is cut to the
//!   capacity ending with `...`, and so is the loader's message, which repeats the path
//!   (`MESSAGE_CAPACITY`). Run under AddressSanitizer by `cargo xtask concurrency`.
//!
//! Without `dynamic-loading` the library is linked: `load_from` says it is already loaded.

use cuda_driver_sys::loader::{self, LoadFromError};
use cuda_driver_sys::*;
use std::ffi::CString;

mod common;
use common::{LIBRARY, NO_SUCH_FILE};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let [_, case, path] = &args[..] {
        child(case, path);
        return;
    }
    if !cfg!(feature = "dynamic-loading") {
        let lib = loader::load().unwrap();
        assert!(lib.is_linked());
        assert_eq!(
            loader::load_from(c"/x/libcuda.so.1"),
            Err(LoadFromError::AlreadyLoaded(lib))
        );
        println!("load_from (linked build): already loaded; 1 case passed");
        return;
    }
    // Where this process's loader would find the library: the first entry of its search path
    // (LD_LIBRARY_PATH; PATH on Windows) with it.
    let (search_path, file) = (LOADER_PATH, LIBRARY.to_str().unwrap());
    let reachable = std::env::var_os(search_path).and_then(|p| {
        std::env::split_paths(&p)
            .map(|d| d.join(file))
            .find(|f| f.is_file())
    });
    let missing = format!("/nonexistent/cuda-driver-sys-test/{file}");
    // The last two make their paths themselves (an argument must be UTF-8 here).
    let mut cases = vec![
        ("missing", missing.clone()),
        ("after-first-call", missing.clone()),
        ("not-utf8", missing.clone()),
        ("too-long", missing),
    ];
    match &reachable {
        Some(f) => cases.push(("path", f.to_string_lossy().into_owned())),
        None => println!(
            "load_from: no {file} on {search_path}: the case of a path that loads is not run here"
        ),
    }
    let exe = std::env::current_exe().unwrap();
    let mut failed = Vec::new();
    for (case, path) in &cases {
        let out = common::runner::target_command(&exe)
            .args([case, path.as_str()])
            .output()
            .unwrap();
        print!("{}", String::from_utf8_lossy(&out.stdout));
        if !out.status.success() {
            eprint!("{}", String::from_utf8_lossy(&out.stderr));
            failed.push(*case);
        }
    }
    assert!(failed.is_empty(), "load_from cases failed: {failed:?}");
    println!("load_from: {} cases passed", cases.len());
}

/// The variable naming the folders the loader searches.
const LOADER_PATH: &str = if cfg!(windows) {
    "PATH"
} else {
    "LD_LIBRARY_PATH"
};

fn child(case: &str, path: &str) {
    let path = CString::new(path).unwrap();
    match case {
        "path" => {
            let lib = loader::load_from(&path).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(lib.name(), path.as_c_str());
            let mut v = 0;
            assert_eq!(unsafe { cuDriverGetVersion(&mut v) }, CUDA_SUCCESS);
            assert_eq!(loader::status(), Some(Ok(lib)));
            println!("  path: loaded {path:?}, driver {v}");
        }
        "missing" => {
            let Err(LoadFromError::Failed(e)) = loader::load_from(&path) else {
                panic!("{path:?} loaded");
            };
            let [attempt] = e.attempts() else {
                panic!("{e:?}")
            };
            assert_eq!(attempt.name(), path.as_c_str());
            assert!(attempt.message().to_str().unwrap().contains(NO_SUCH_FILE));
            assert_eq!(unsafe { cuInit(0) }, CUDA_ERROR_SHARED_OBJECT_INIT_FAILED);
            assert_eq!(loader::status(), Some(Err(e)));
            println!("  missing: {e}");
        }
        "after-first-call" => {
            let _ = unsafe { cuInit(0) };
            match (loader::status(), loader::load_from(&path)) {
                (Some(Ok(lib)), Err(LoadFromError::AlreadyLoaded(l))) => {
                    assert_eq!(lib, l);
                    println!("  after a first call: already loaded {:?}", l.name());
                }
                (Some(Err(e)), Err(LoadFromError::AlreadyFailed(f))) => {
                    assert_eq!(e, f);
                    println!("  after a first call: already failed");
                }
                other => panic!("{other:?}"),
            }
        }
        "not-utf8" => {
            let mut bytes = b"/nonexistent/cuda-driver-sys-test/\xff\xfe/".to_vec();
            bytes.extend_from_slice(LIBRARY.to_bytes());
            let path = CString::new(bytes).unwrap();
            let Err(LoadFromError::Failed(e)) = loader::load_from(&path) else {
                panic!("{path:?} loaded");
            };
            assert_eq!(e.attempts()[0].name(), path.as_c_str());
            let shown = e.to_string();
            assert!(shown.contains("test/\u{FFFD}\u{FFFD}/"), "{shown}");
            println!("  not UTF-8: {shown}");
        }
        "too-long" => {
            let path = CString::new(format!("/nonexistent/{}", "a".repeat(4987))).unwrap();
            assert_eq!(path.as_bytes().len(), 5000);
            let Err(LoadFromError::Failed(e)) = loader::load_from(&path) else {
                panic!("{path:?} loaded");
            };
            let attempt = &e.attempts()[0];
            let (name, message) = (attempt.name().to_bytes(), attempt.message().to_bytes());
            assert_eq!(name.len(), loader::NAME_CAPACITY - 1);
            assert!(name.ends_with(b"aaa..."), "{attempt:?}");
            assert_eq!(&name[..100], &path.as_bytes()[..100]);
            if cfg!(windows) {
                // LoadLibrary's message names no path: a short one, kept whole.
                let short = !message.is_empty() && message.len() < loader::MESSAGE_CAPACITY - 1;
                assert!(short && !message.ends_with(b"..."), "{attempt:?}");
            } else {
                // dlerror's message repeats the path: cut to the capacity, and marked.
                assert_eq!(message.len(), loader::MESSAGE_CAPACITY - 1);
                assert!(message.ends_with(b"..."), "{attempt:?}");
            }
            assert_eq!(unsafe { cuInit(0) }, CUDA_ERROR_SHARED_OBJECT_INIT_FAILED);
            println!(
                "  too long: a 5000-byte path kept as {} bytes, the loader's message as {}",
                name.len(),
                message.len()
            );
        }
        other => panic!("unknown case {other}"),
    }
}
