//! `dynamic-loading` with a faulty driver library, each case in a fresh process (loading is
//! decided once per process): this program builds tiny fake libraries with `cc` (`$CC`), then
//! runs itself as a child per case, which gives the library to `loader::load_from` and calls
//! `cuInit` and `loader::function`. Every case must end in a value (a load error, a
//! `CUresult`, a `ProcAddressError`) and an exit code: no crash, no call through a null pointer.
//!
//! - no file, an empty file, a text file: `load_from` fails with the loader's message;
//! - an ELF library without `cuGetProcAddress_v2`: it fails, naming the symbol;
//! - a `cuGetProcAddress_v2` that fails (`CUDA_ERROR_NOT_INITIALIZED`): the call returns that code;
//! - one that answers success with a null pointer: `ProcAddressErrorKind::Null`, and the call
//!   `CUDA_ERROR_NOT_FOUND`;
//! - one that answers a status no CUDA version has (`42`): `UnknownStatus`, `CUDA_ERROR_NOT_FOUND`;
//! - a driver older than the function (`cuDriverGetVersion` 11040, `cuLibraryLoadData` is
//!   12.0's): `DriverTooOld`, `CUDA_ERROR_NOT_FOUND`;
//! - a working fake: `cuInit` reaches it (it returns 0).
//!
//! Built only with `dynamic-loading` and a 12.x header or newer (Cargo.toml's required-features);
//! `cargo xtask bad-input` runs it.

use cuda_driver_sys::loader::{self, FunctionError, LoadFromError};
use cuda_driver_sys::*;
use std::ffi::CString;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The fake driver: the four symbols the loader takes by name; `MODE` picks what its
/// `cuGetProcAddress_v2` does, `DRIVER` its version; `NO_PROC_ADDRESS` leaves it out.
const FAKE_DRIVER: &str = r#"
#include <stddef.h>
typedef int CUresult;
static CUresult fake_init(unsigned flags) { (void)flags; return 0; }
CUresult cuDriverGetVersion(int* v) { *v = DRIVER; return 0; }
CUresult cuGetErrorName(int e, const char** s) { (void)e; *s = "FAKE"; return 0; }
CUresult cuGetErrorString(int e, const char** s) { (void)e; *s = "fake"; return 0; }
#ifndef NO_PROC_ADDRESS
CUresult cuGetProcAddress_v2(const char* symbol, void** pfn, int version,
                             unsigned long long flags, int* status) {
    (void)symbol; (void)version; (void)flags;
    switch (MODE) {
    case 1: return 3; /* CUDA_ERROR_NOT_INITIALIZED */
    case 2: *pfn = NULL; if (status) *status = 0; return 0;
    case 3: *pfn = NULL; if (status) *status = 42; return 0;
    default: *pfn = (void*)fake_init; if (status) *status = 0; return 0;
    }
}
#endif
"#;

/// Each case and the file given to `load_from`.
const CASES: &[(&str, Library)] = &[
    ("no file", Library::Missing),
    ("empty file", Library::Text("")),
    (
        "text file",
        Library::Text("This is a text file, longer than an ELF header: not a library at all.\n"),
    ),
    (
        "no cuGetProcAddress",
        Library::Fake(&["-DMODE=0", "-DDRIVER=12020", "-DNO_PROC_ADDRESS"]),
    ),
    (
        "cuGetProcAddress fails",
        Library::Fake(&["-DMODE=1", "-DDRIVER=12020"]),
    ),
    (
        "cuGetProcAddress gives NULL",
        Library::Fake(&["-DMODE=2", "-DDRIVER=12020"]),
    ),
    (
        "unknown status",
        Library::Fake(&["-DMODE=3", "-DDRIVER=12020"]),
    ),
    (
        "older driver",
        Library::Fake(&["-DMODE=0", "-DDRIVER=11040"]),
    ),
    (
        "working fake",
        Library::Fake(&["-DMODE=0", "-DDRIVER=12020"]),
    ),
];

/// What the file of a case is.
enum Library {
    /// None at all.
    Missing,
    /// A text file with this content.
    Text(&'static str),
    /// A fake library, compiled with these `-D` options.
    Fake(&'static [&'static str]),
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let [_, case, path] = &args[..] {
        child(case, path);
        return;
    }
    let dir = std::env::temp_dir().join(format!("cuda-faulty-library-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let source = dir.join("fake.c");
    std::fs::write(&source, FAKE_DRIVER).unwrap();
    let exe = std::env::current_exe().unwrap();
    let mut failed = Vec::new();
    for (i, (case, library)) in CASES.iter().enumerate() {
        let path = dir.join(format!("libcuda-{i}.so"));
        make(library, &source, &path);
        let out = Command::new(&exe)
            .args([case, path.to_str().unwrap()])
            .output()
            .unwrap();
        print!("{}", String::from_utf8_lossy(&out.stdout));
        if !out.status.success() {
            eprintln!(
                "{case}: {}\n{}",
                out.status,
                String::from_utf8_lossy(&out.stderr)
            );
            failed.push(*case);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(failed.is_empty(), "faulty-library cases failed: {failed:?}");
    println!("faulty_library: {} cases passed", CASES.len());
}

fn make(library: &Library, source: &Path, path: &PathBuf) {
    match library {
        Library::Missing => {}
        Library::Text(text) => std::fs::write(path, text).unwrap(),
        Library::Fake(defines) => {
            let cc = std::env::var_os("CC").unwrap_or_else(|| "cc".into());
            let status = Command::new(&cc)
                .args(["-shared", "-fPIC", "-o"])
                .arg(path)
                .arg(source)
                .args(*defines)
                .status()
                .unwrap_or_else(|e| panic!("cannot run the C compiler {cc:?} (set CC): {e}"));
            assert!(status.success(), "{cc:?} failed on {}", source.display());
        }
    }
}

/// The load error's single attempt's message.
fn load_failure(path: &CString) -> String {
    match loader::load_from(path) {
        Err(LoadFromError::Failed(e)) => {
            assert_eq!(unsafe { cuInit(0) }, CUDA_ERROR_SHARED_OBJECT_INIT_FAILED);
            e.attempts()[0].message().to_string_lossy().into_owned()
        }
        other => panic!("{path:?} loaded: {other:?}"),
    }
}

/// `cuLibraryLoadData`'s or `cuInit`'s lookup error after a successful load, and what the call gives.
fn lookup_failure(path: &CString, symbol: &std::ffi::CStr) -> (ProcAddressErrorKind, CUresult) {
    loader::load_from(path).unwrap_or_else(|e| panic!("{e}"));
    let code = unsafe { cuInit(0) };
    match loader::function(symbol) {
        Some(Err(FunctionError::NotFound(e))) => (e.kind, code),
        other => panic!("{symbol:?}: {other:?}"),
    }
}

fn child(case: &str, path: &str) {
    let path = CString::new(path).unwrap();
    let expect = |message: String, needle: &str| {
        assert!(
            message.contains(needle),
            "{case}: {message:?} lacks {needle:?}"
        );
        println!("  {case}: not loaded: {message}");
    };
    match case {
        "no file" => expect(load_failure(&path), "No such file"),
        "empty file" => expect(load_failure(&path), "file too short"),
        "text file" => expect(load_failure(&path), "invalid ELF header"),
        "no cuGetProcAddress" => expect(load_failure(&path), "cuGetProcAddress"),
        "cuGetProcAddress fails" => {
            let (kind, code) = lookup_failure(&path, c"cuInit");
            assert_eq!(
                kind,
                ProcAddressErrorKind::Driver(CUDA_ERROR_NOT_INITIALIZED)
            );
            assert_eq!(code, CUDA_ERROR_NOT_INITIALIZED);
            println!("  {case}: cuInit returns {code:?}");
        }
        "cuGetProcAddress gives NULL" => {
            let (kind, code) = lookup_failure(&path, c"cuInit");
            assert_eq!(
                (kind, code),
                (ProcAddressErrorKind::Null, CUDA_ERROR_NOT_FOUND)
            );
            println!("  {case}: {kind:?}, cuInit returns {code:?}");
        }
        "unknown status" => {
            let (kind, code) = lookup_failure(&path, c"cuInit");
            assert_eq!(
                (kind, code),
                (
                    ProcAddressErrorKind::UnknownStatus(CUdriverProcAddressQueryResult(42)),
                    CUDA_ERROR_NOT_FOUND
                )
            );
            println!("  {case}: {kind:?}, cuInit returns {code:?}");
        }
        "older driver" => {
            let (kind, code) = lookup_failure(&path, c"cuLibraryLoadData");
            assert_eq!(kind, ProcAddressErrorKind::DriverTooOld { driver: 11040 });
            assert_eq!(
                code, CUDA_SUCCESS,
                "cuInit (CUDA 2.0) is in the older driver"
            );
            println!("  {case}: cuLibraryLoadData {kind:?}; cuInit reaches the fake");
        }
        "working fake" => {
            loader::load_from(&path).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(unsafe { cuInit(0) }, CUDA_SUCCESS);
            println!("  {case}: cuInit reaches the fake");
        }
        other => panic!("unknown case {other}"),
    }
}
