//! x86-64 Windows (GNU): the tests of [`super::cross`] compiled for x86_64-pc-windows-gnu
//! (mingw-w64 links; the tests' C side, the probes and the C twins, built by mingw-w64's gcc and
//! g++) and run under wine64 (Debian's wine 8.0), in a prefix under target/windows:
//! 1. with the test stub nvcuda.dll (`ci/platforms/windows/nvcuda_stub.c`: a driver of the
//!    newest header version without a GPU, with the 535 library's error strings), linked through
//!    its import library cuda.lib (CUDA_LIBRARY_PATH holding it, as the build script's Windows
//!    search wants), and with dynamic-loading, for the versions tagged `aarch64`; its
//!    [`control`]: a layout difference only Windows has fails it;
//! 2. with no nvcuda.dll: dynamic-loading binaries start and say in one line that the library
//!    could not be loaded; a linked binary does not start (the Windows loader's error);
//! 3. x86_64-pc-windows-msvc: the crate, cuda-check's tests and the examples type-checked (cargo
//!    check), neither linked nor run: lld-link with mingw-w64's import libraries lacks the MSVC C
//!    runtime's startup objects (mainCRTStartup, _tls_used, __chkstk, __CxxFrameHandler3,
//!    _fltused), which only Microsoft's toolchain ships.
//!
//! The tests package is built without the interop modules: its build script cannot parse the
//! headers the GL/EGL headers include for Windows (mingw-w64's windows.h and its intrinsics).

mod control;
mod environment;
mod nvcuda_table;
mod wine;

use super::cross::{self, Suite};
use crate::base::deps::env_path;
use crate::base::process::{self, root};
use crate::base::scratch::Scratch;
use crate::base::steps::Steps;
use crate::base::{rustup, versions, Result};
use environment::Windows;
use std::process::{Command, Stdio};

const GNU: &str = "x86_64-pc-windows-gnu";
const MSVC: &str = "x86_64-pc-windows-msvc";
const WINE: &str = "/usr/lib/wine/wine64";
/// How every Windows program here starts: wine without address-space randomisation (`setarch -R`,
/// which the processes it starts inherit). Debian's wine64 is linked at 0x7d000000 and has no
/// preloader to reserve wine's fixed ranges first; the kernel places its heap (brk) at random in
/// the gigabyte above it, and now and then on the shared user data's fixed address, 0x7ffe0000:
/// that process dies at start (`failed to map the shared user data: c0000018`), and the
/// CreateProcess that started it fails with ERROR_INTERNAL_ERROR (1359). Without randomisation
/// the heap starts at 0x7d005000 in every process.
const WINE_RUNNER: [&str; 3] = ["setarch", "-R", WINE];
const WINESERVER: &str = "/usr/lib/wine/wineserver";
/// The C sources of the test equipment.
const SOURCES: &str = "ci/platforms/windows";

/// The tests the Windows builds cannot run: prototypes starts the target's C++ compiler, a Linux
/// program, which a Windows program under wine cannot start (Rust's Command gets "Invalid handle.
/// (os error 6)" from CreateProcess); interop needs the interop modules.
const NOT_RUN: [&str; 2] = ["prototypes", "interop"];

/// Builds, runs and compares on Windows; its steps' times.
pub fn check() -> Result {
    rustup::targets(&[GNU, MSVC])?;
    let linux_driver = env_path("CUDA_LIBRARY_PATH", "the driver library folder")?;
    let versions = versions::tagged("aarch64")?;
    let newest = versions::all()?
        .last()
        .map(|v| v.number)
        .ok_or("versions.txt lists no version")?;
    let out = root().join("target/windows");
    let mut windows = Windows {
        equipment: out.join("equipment"),
        out,
        driver: newest,
        wine_path: Vec::new(),
    };
    let scratch = Scratch::new("windows")?;
    let _server = WineServer(windows.command(WINESERVER));
    let examples = examples()?;
    let mut steps = Steps::new();

    steps.step("windows: test equipment: bcryptprimitives.dll, the stub nvcuda.dll and its import library cuda.lib");
    windows.equipment(&linux_driver)?;
    steps.step("windows: wine: the prefix and a server kept for the step");
    windows.start_wine(scratch.path())?;

    steps.step(&format!(
        "windows: the tests, linked against cuda.lib and with dynamic-loading, run under wine with the stub nvcuda.dll (header versions {})",
        super::join(&versions)
    ));
    windows.wine_path = vec![windows.equipment.clone(), windows.equipment.join("nvcuda")];
    let cargo = |_: u32| windows.cargo(GNU);
    let tests: Vec<&str> = (cross::TESTS.iter().copied())
        .filter(|t| !NOT_RUN.contains(t))
        .collect();
    let suite = Suite {
        target: GNU,
        interop: false,
        tests: &tests,
        examples: &examples,
        cargo: &cargo,
    };
    suite.run(&versions)?;

    steps.step("windows: control: a field 4 bytes on Windows and 8 on Linux fails the layout test");
    control::check(&suite, scratch.path(), versions[0])?;

    steps.step("windows: run under wine without nvcuda.dll");
    let mut without = windows.clone();
    without.wine_path = vec![windows.equipment.clone()];
    let cargo = |_: u32| without.cargo(GNU);
    let suite = Suite {
        cargo: &cargo,
        ..suite
    };
    without.without_library(&suite, newest)?;

    steps.step("windows: x86_64-pc-windows-msvc: type-checked (no MSVC C runtime to link with)");
    let cargo = |_: u32| windows.cargo(MSVC);
    let msvc = Suite {
        target: MSVC,
        cargo: &cargo,
        ..suite
    };
    for features in ["gl,table", "gl,table,dynamic-loading"] {
        let features = format!("cuda-{newest},{features}");
        let args = ["-p", "cuda-driver-sys", "--features", &features];
        msvc.cargo(newest, &[&["check", "--target", MSVC], &args[..]].concat())?;
    }
    msvc.cargo(
        newest,
        &["check", "--target", MSVC, "-p", "cuda-check", "--tests"],
    )?;
    let features = format!("cuda-{newest}");
    let mut args = vec!["check", "--target", MSVC, "-p", "cuda-driver-workspace"];
    args.extend(["--features", &features]);
    args.extend(examples.iter().flat_map(|e| ["--example", e.as_str()]));
    msvc.cargo(newest, &args)?;
    println!(
        "cuda-driver-sys (gl, table; linked and dynamic-loading), cuda-check's tests and {} examples compile for {MSVC}",
        examples.len()
    );
    steps.finish();
    Ok(())
}

/// The examples but runtime_interop, which also loads the CUDA runtime (examples/common/cudart.rs:
/// libcudart.so.12 through dlopen, Linux only), and profiler (the interop feature).
fn examples() -> Result<Vec<String>> {
    let mut names = crate::base::examples::stems("examples", "rs")?;
    names.retain(|name| name != "runtime_interop" && name != "profiler");
    Ok(names)
}

/// Stops the wine server (and the services wineboot started) when dropped.
struct WineServer(Command);

impl Drop for WineServer {
    fn drop(&mut self) {
        let quiet = self.0.arg("-k").stdout(Stdio::null()).stderr(Stdio::null());
        let _ = process::status(quiet);
    }
}
