//! `cuda-driver-sys`'s loader (`cuda_driver_sys::loader`), in both modes.
//!
//! - Linked (the default): the library is there before `main`; the loader says so.
//! - `dynamic-loading`, with Debian's 535 library on `LD_LIBRARY_PATH` (`cargo test --features
//!   dynamic-loading`): the library is opened as `libcuda.so.1`, and every function of the header
//!   (and of the interop modules with the `interop` feature), under its real symbol, calls exactly the library's symbol of that name (`dlsym`), or returns
//!   `CUDA_ERROR_NOT_FOUND` where the driver lacks it.
//! - `dynamic-loading` with no driver library reachable: the `#[ignore]`d tests, which
//!   `cargo xtask dynamic-check` runs (`--ignored`) with an empty `LD_LIBRARY_PATH` on a machine
//!   whose `ldconfig` knows no `libcuda`. Every call returns
//!   `CUDA_ERROR_SHARED_OBJECT_INIT_FAILED`, the loader's error is a value naming what was tried,
//!   and `check_driver!` reports it.
//!
//! This binary references no C helper, so under `dynamic-loading` it links no driver library:
//! `cargo xtask dynamic-check` checks that with `readelf -d` and `nm -D`.

use cuda_driver_sys::loader::{self, LoadFromError};
#[cfg(feature = "dynamic-loading")]
use cuda_driver_sys::*;

mod common;
use common::LIBRARY;

#[cfg(not(feature = "dynamic-loading"))]
#[test]
fn linked_library_is_always_there() {
    let lib = loader::load().expect("a linked library");
    assert!(lib.is_linked());
    assert_eq!(lib.handle(), None);
    assert_eq!(lib.name(), LIBRARY);
    assert_eq!(loader::status(), Some(Ok(lib)));
    assert_eq!(
        loader::load_from(c"/elsewhere/libcuda.so.1"),
        Err(LoadFromError::AlreadyLoaded(lib))
    );
}

#[cfg(feature = "dynamic-loading")]
mod with_library {
    use super::common::{dlsym, driver_version, header_version, may_be_absent};
    use super::*;
    use std::ffi::c_void;

    #[test]
    fn the_library_is_opened_by_its_soname() {
        let lib = loader::load().unwrap_or_else(|e| panic!("{e}"));
        println!("loaded {:?}, handle {:?}", lib.name(), lib.handle());
        assert_eq!(lib.name(), LIBRARY);
        assert!(!lib.is_linked());
        assert!(lib.handle().is_some());
        assert_eq!(loader::status(), Some(Ok(lib)));
        // Loading is decided once: a later path is not tried.
        assert_eq!(
            loader::load_from(c"/elsewhere/libcuda.so.1"),
            Err(LoadFromError::AlreadyLoaded(lib))
        );
        if let Ok(expected) = std::env::var("CUDA_DRIVER_EXPECT_VERSION") {
            assert_eq!(driver_version().to_string(), expected);
        }
    }

    #[test]
    fn every_function_calls_the_librarys_symbol_of_its_name() {
        let driver = driver_version();
        let (mut equal, mut missing, mut failures, mut total) = (0, Vec::new(), Vec::new(), 0);
        for (symbol, resolved) in loader::functions() {
            total += 1;
            let in_library = dlsym(symbol);
            match resolved {
                Ok(p) if std::ptr::eq(p.as_ptr() as *const c_void, in_library) => equal += 1,
                Ok(p) => failures.push(format!("{symbol:?}: {p:?}, dlsym {in_library:?}")),
                Err(loader::FunctionError::NotFound(e)) if in_library.is_null() => {
                    missing.push((symbol, format!("{symbol:?} ({e})")))
                }
                Err(e) => failures.push(format!("{symbol:?}: {e}; dlsym {in_library:?}")),
            }
        }
        println!(
            "functions of the CUDA {} header under dynamic-loading on driver {driver}: {total}; \
             {equal} equal to dlsym of their symbol, {} not in this driver",
            header_version(),
            missing.len()
        );
        for (_, m) in &missing {
            println!("  not found: {m}");
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
        assert_eq!(equal + missing.len(), total);
        // Every header from 11.7 on has more than 440 real symbols (11.7: 444, 12.0: 456).
        assert!(equal > 440, "only {equal} compared");
        if header_version() <= driver {
            // But functions of the interop modules (the `interop` feature) a library may lack.
            let unexpected: Vec<&String> = missing
                .iter()
                .filter(|(symbol, _)| may_be_absent(symbol).is_none())
                .map(|(_, m)| m)
                .collect();
            assert!(unexpected.is_empty(), "{unexpected:?}");
        } else {
            assert!(
                !missing.is_empty(),
                "a newer header has functions the driver lacks"
            );
        }
        assert!(loader::function(c"cuNoSuchFunction").is_none());
    }

    #[test]
    fn calls_reach_the_driver() {
        let code = unsafe { cuInit(0) };
        if std::env::var_os("CUDA_DRIVER_EXPECT_NO_DEVICE").is_some() {
            assert_eq!(code, CUDA_ERROR_NO_DEVICE);
        } else {
            assert_eq!(code, CUDA_SUCCESS);
        }
        let mut name = std::ptr::null();
        assert_eq!(
            unsafe { cuGetErrorName(CUDA_ERROR_NO_DEVICE, &mut name) },
            CUDA_SUCCESS
        );
        assert_eq!(
            unsafe { std::ffi::CStr::from_ptr(name) },
            c"CUDA_ERROR_NO_DEVICE"
        );
        // The table goes through the same loader.
        let mut v = 0;
        assert_eq!(unsafe { table().cuDriverGetVersion(&mut v) }, CUDA_SUCCESS);
        assert_eq!(v, driver_version());
    }

    /// The 13.0 header's `cuCtxCreate` is `cuCtxCreate_v4` (CUDA 12.5): on an older driver the
    /// call returns `CUDA_ERROR_NOT_FOUND`, and the loader says why.
    #[test]
    fn a_function_the_driver_lacks_returns_not_found() {
        let driver = driver_version();
        #[cfg(feature = "cuda-13000")]
        if driver < 12050 {
            let mut ctx: CUcontext = std::ptr::null_mut();
            let code = unsafe { cuCtxCreate(&mut ctx, std::ptr::null_mut(), 0, 0) };
            assert_eq!(code, CUDA_ERROR_NOT_FOUND);
            assert!(ctx.is_null(), "nothing was called");
            match loader::function(c"cuCtxCreate_v4") {
                Some(Err(loader::FunctionError::NotFound(e))) => {
                    println!("cuCtxCreate_v4: {e}");
                    assert_eq!(e.kind, ProcAddressErrorKind::DriverTooOld { driver });
                }
                other => panic!("cuCtxCreate_v4: {other:?}"),
            }
            // Asked again: the same answer, remembered.
            assert_eq!(
                unsafe { cuCtxCreate(&mut ctx, std::ptr::null_mut(), 0, 0) },
                CUDA_ERROR_NOT_FOUND
            );
            return;
        }
        assert!(driver >= 12000);
        // The driver has every function of the header but those newer than itself (a 12.3-12.9
        // header on the 12.2 driver) and those of the interop modules a library may lack
        // entirely (MAY_BE_ABSENT; with the `interop` feature).
        let mut lacking = Vec::new();
        for (symbol, r) in loader::functions() {
            match r {
                Ok(_) => {}
                Err(loader::FunctionError::NotFound(e)) if e.entry.version > driver => {}
                Err(loader::FunctionError::NotFound(_)) if may_be_absent(symbol).is_some() => {
                    lacking.push(symbol)
                }
                Err(e) => panic!("{symbol:?} should be in driver {driver}: {e}"),
            }
        }
        println!("functions driver {driver} lacks entirely: {lacking:?}");
        // Called, such a function returns CUDA_ERROR_NOT_FOUND and writes nothing.
        #[cfg(feature = "interop")]
        if lacking.contains(&c"cuEventCreateFromEGLSync") {
            let mut event: CUevent = std::ptr::null_mut();
            let code = unsafe { cuEventCreateFromEGLSync(&mut event, std::ptr::null_mut(), 0) };
            assert_eq!(code, CUDA_ERROR_NOT_FOUND);
            assert!(event.is_null(), "nothing was called");
        }
    }

    #[test]
    fn resolution_is_the_same_from_many_threads() {
        let expected: Vec<_> = loader::functions()
            .map(|(s, r)| (s, r.map(|p| p.as_ptr() as usize)))
            .collect();
        let threads: Vec<_> = (0..8)
            .map(|_| {
                std::thread::spawn(|| {
                    let mut v = 0;
                    let code = unsafe { cuDriverGetVersion(&mut v) };
                    let all: Vec<_> = loader::functions()
                        .map(|(s, r)| (s, r.map(|p| p.as_ptr() as usize)))
                        .collect();
                    (code, all)
                })
            })
            .collect();
        for t in threads {
            let (code, all) = t.join().unwrap();
            assert_eq!(code, CUDA_SUCCESS);
            assert_eq!(all, expected);
        }
    }
}

/// Run by `cargo xtask dynamic-check` with `--ignored`, where no driver library is reachable.
#[cfg(feature = "dynamic-loading")]
mod without_library {
    use super::*;
    use cuda_check::{check_driver, try_driver};

    const NO_LIBRARY: CUresult = CUDA_ERROR_SHARED_OBJECT_INIT_FAILED;

    fn load_error() -> &'static loader::LoadError {
        loader::load().expect_err("no driver library should be reachable in this run")
    }

    #[test]
    #[ignore = "needs no driver library reachable: cargo xtask dynamic-check runs it"]
    fn the_load_failure_is_a_value_naming_what_was_tried() {
        let e = load_error();
        println!("{e}");
        let names: Vec<_> = e.attempts().iter().map(|a| a.name()).collect();
        assert_eq!(names, loader::DEFAULT_NAMES);
        for a in e.attempts() {
            let message = a.message().to_str().unwrap();
            // dlerror() names the file; Windows' text does not.
            let named = cfg!(windows) || message.contains(a.name().to_str().unwrap());
            assert!(
                named && message.contains(common::NO_SUCH_FILE),
                "the loader's own message: {message}"
            );
        }
        assert_eq!(loader::status(), Some(Err(e)));
        let first = LIBRARY.to_str().unwrap();
        assert!(e.to_string().starts_with(&format!(
            "the CUDA driver library could not be loaded: tried {first} ("
        )));
        // Loading was decided: an explicit path is no longer tried.
        assert_eq!(
            loader::load_from(c"/opt/libcuda.so.1"),
            Err(LoadFromError::AlreadyFailed(e))
        );
        // No library in this process at all.
        assert!(!common::is_loaded());
    }

    #[test]
    #[ignore = "needs no driver library reachable: cargo xtask dynamic-check runs it"]
    fn every_call_returns_the_documented_code_and_writes_nothing() {
        assert_eq!(unsafe { cuInit(0) }, NO_LIBRARY);
        let mut v = -7;
        assert_eq!(unsafe { cuDriverGetVersion(&mut v) }, NO_LIBRARY);
        assert_eq!(v, -7);
        let mut name: *const std::ffi::c_char = std::ptr::null();
        assert_eq!(unsafe { cuGetErrorName(NO_LIBRARY, &mut name) }, NO_LIBRARY);
        assert_eq!(
            unsafe { cuGetErrorString(NO_LIBRARY, &mut name) },
            NO_LIBRARY
        );
        assert!(name.is_null());
        let mut ctx: CUcontext = std::ptr::null_mut();
        assert_eq!(unsafe { cuCtxGetCurrent(&mut ctx) }, NO_LIBRARY);
        // Real symbols and C spellings alike, the per-thread ones too.
        assert_eq!(
            unsafe { cuMemcpyHtoD_v2_ptds(0, std::ptr::null(), 0) },
            NO_LIBRARY
        );
        assert_eq!(unsafe { cuMemcpyHtoD(0, std::ptr::null(), 0) }, NO_LIBRARY);
        // Twice: nothing is remembered as missing.
        assert_eq!(unsafe { cuInit(0) }, NO_LIBRARY);
        // The table and the typed cuGetProcAddress go through the same loader.
        assert_eq!(unsafe { table().cuInit(0) }, NO_LIBRARY);
        let e = table().pointer("cuInit").unwrap().unwrap_err();
        assert_eq!(e.kind, ProcAddressErrorKind::Driver(NO_LIBRARY));
        let e = entry::cuInit.get().unwrap_err();
        assert_eq!(e.kind, ProcAddressErrorKind::Driver(NO_LIBRARY));
        // Every function says why.
        let mut count = 0;
        for (symbol, r) in loader::functions() {
            count += 1;
            assert_eq!(
                r,
                Err(loader::FunctionError::NoLibrary(load_error())),
                "{symbol:?}"
            );
        }
        println!("{count} functions, each returning CUresult 303 without a library");
        assert!(count > 440, "only {count} functions");
    }

    #[test]
    #[ignore = "needs no driver library reachable: cargo xtask dynamic-check runs it"]
    fn check_driver_says_the_library_could_not_be_loaded() {
        let err = try_driver!(unsafe { cuInit(0) }).unwrap_err();
        assert_eq!(err.code(), NO_LIBRARY);
        assert_eq!((err.name(), err.message()), (None, None));
        assert_eq!(err.no_library(), Some(load_error()));
        let report = err.to_string();
        let expected = format!(
            "{}:{}  cuInit(0) failed. \n  code = <CUresult 303, not named: no driver library>, \
             message = <{}>",
            err.file(),
            err.line(),
            load_error()
        );
        assert_eq!(report, expected);
        // What check_driver! prints (DriverError::print, the same text): shown with --nocapture.
        assert!(!check_driver!(unsafe { cuInit(0) }));
    }
}
