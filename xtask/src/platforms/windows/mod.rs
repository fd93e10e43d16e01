//! x86-64 Windows (GNU): cuda-driver-sys, cuda-check and the tests that need no GPU, compiled for
//! x86_64-pc-windows-gnu (Debian's rustc-web with -Zbuild-std, fetched with `--cross-rust`;
//! mingw-w64 links) and run under wine64 (Debian's wine 8.0), in a prefix under target/windows:
//! 1. with the test stub nvcuda.dll (`ci/platforms/windows/nvcuda_stub.c`: the 535 library's
//!    answers without a GPU), linked through its import library cuda.lib, found by the build
//!    script's Windows search (CUDA_LIBRARY_PATH holding cuda.lib), and with dynamic-loading: the
//!    crate's unit tests, cuda-check's tests, the tests package's driver, table, dynamic and
//!    load_from;
//! 2. with no nvcuda.dll: dynamic-loading binaries start and say in one line that the library
//!    could not be loaded; a linked binary does not start (the Windows loader's error);
//! 3. the examples on the no-device path: stdout and exit status equal to the Linux build's with
//!    Debian's 535 library ([`examples`]);
//! 4. the cfg(windows) items (the gl module's cuWGLGetDevice) compiled for the target, linked and
//!    with dynamic-loading;
//! 5. x86_64-pc-windows-msvc: the crate, cuda-check's tests and the examples type-checked (cargo
//!    check, build-std), neither linked nor run: lld-link with mingw-w64's import libraries lacks
//!    the MSVC C runtime's startup objects (mainCRTStartup, _tls_used, __chkstk,
//!    __CxxFrameHandler3, _fltused), which only Microsoft's toolchain ships.
//!
//! The tests package is built without the interop modules: its build script parses the headers
//! the GL/EGL headers include, which for Windows are mingw-w64's windows.h and its intrinsics
//! (lang-c cannot parse those). Wine's own DLLs lack bcryptprimitives.dll, which Rust's standard
//! library imports: `bcryptprimitives.c` is a test DLL giving it (its randomness checked here).
//! Every cargo command runs as a child with the Windows environment ([`Windows::cargo`]); a
//! warning fails it.

mod environment;
mod equipment;
mod examples;
mod nvcuda_table;
mod real_driver;
mod wine;

use super::{found, Sections};
use crate::process::root;
use crate::{deps, versions, Result};
use environment::Windows;
use std::process::{Command, Stdio};

const GNU: &str = "x86_64-pc-windows-gnu";
const MSVC: &str = "x86_64-pc-windows-msvc";
const WINE: &str = "/usr/lib/wine/wine64";
const WINESERVER: &str = "/usr/lib/wine/wineserver";
/// The C sources of the test equipment.
const SOURCES: &str = "ci/platforms/windows";

/// Builds, runs and compares on Windows; its sections' times.
pub fn check() -> Result {
    for tool in [
        "x86_64-w64-mingw32-gcc",
        "x86_64-w64-mingw32-g++",
        "x86_64-w64-mingw32-dlltool",
        WINE,
    ] {
        if !found(tool) {
            return Err(format!("windows: no {tool}: apt-get install gcc-mingw-w64-x86-64 g++-mingw-w64-x86-64 binutils-mingw-w64-x86-64 wine64").into());
        }
    }
    deps::use_fetched(&["--cross-rust"])?;
    let linux_driver = super::env("CUDA_LIBRARY_PATH")?;
    let out = root().join("target/windows");
    let mut windows = Windows {
        equipment: out.join("equipment"),
        out,
        rustc: super::env("RUST_CROSS_RUSTC")?,
        driver: super::driver_version()?,
        wine_path: Vec::new(),
        cuda_lib: None,
    };
    let scratch = super::Scratch::new()?;
    let _server = WineServer(windows.command(WINESERVER));
    let default = versions::tagged("default")?[0];
    let newest = versions::all()?
        .last()
        .map(|v| v.number)
        .ok_or("versions.txt lists no version")?;
    let mut sections = Sections::new("windows: ");

    sections.start(
        "test equipment: bcryptprimitives.dll, the stub nvcuda.dll and its import library cuda.lib",
    );
    windows.equipment(&linux_driver)?;
    sections.start("wine: the prefix and a server kept for the step");
    windows.start_wine(&scratch.0)?;

    sections.start("build (build-std), linked against cuda.lib and with dynamic-loading");
    // The two modes, as features of the tests package and of cuda-driver-sys (cuda-check's too).
    let modes = [
        format!("cuda-{default}"),
        format!("cuda-{default},dynamic-loading"),
    ];
    let sys_features = [
        format!("cuda-driver-sys/cuda-{default}"),
        format!("cuda-driver-sys/cuda-{default},cuda-driver-sys/dynamic-loading"),
    ];
    let tests = [
        "--test",
        "driver",
        "--test",
        "table",
        "--test",
        "dynamic",
        "--test",
        "load_from",
    ];
    for (mode, sys) in modes.iter().zip(&sys_features) {
        windows.cargo(
            GNU,
            "test",
            &[
                "--no-run",
                "-p",
                "cuda-driver-sys-items",
                "--lib",
                "--features",
                sys,
            ],
        )?;
        windows.cargo(
            GNU,
            "test",
            &["--no-run", "-p", "cuda-check", "--tests", "--features", sys],
        )?;
        let mut args = vec![
            "--no-run",
            "-p",
            "cuda-driver-tests",
            "--no-default-features",
            "--features",
            mode,
        ];
        args.extend(tests);
        windows.cargo(GNU, "test", &args)?;
    }
    let examples = examples::names()?;
    let example_args: Vec<&str> = examples
        .iter()
        .flat_map(|e| ["--example", e.as_str()])
        .collect();
    let examples_dir = windows.out.join(GNU).join("debug/examples");
    // One example with dynamic-loading, kept apart (the linked build replaces it).
    let dynamic_mode = modes[1].as_str();
    windows.cargo(
        GNU,
        "build",
        &[
            "-p",
            "cuda-driver-workspace",
            "--example",
            "check_driver",
            "--features",
            dynamic_mode,
        ],
    )?;
    std::fs::create_dir_all(examples_dir.join("dynamic-loading"))?;
    std::fs::copy(
        examples_dir.join("check_driver.exe"),
        examples_dir.join("dynamic-loading/check_driver.exe"),
    )?;
    let mut args = vec!["-p", "cuda-driver-workspace"];
    args.extend(&example_args);
    args.extend(["--features", &modes[0]]);
    windows.cargo(GNU, "build", &args)?;
    // The cfg(windows) items: cuWGLGetDevice and HGPUNV of the gl module, linked and loaded.
    for v in [default, newest] {
        for features in [
            format!("cuda-{v},gl,table"),
            format!("cuda-{v},gl,table,dynamic-loading"),
        ] {
            windows.cargo(
                GNU,
                "build",
                &[
                    "-p",
                    "cuda-driver-sys",
                    "--no-default-features",
                    "--features",
                    &features,
                ],
            )?;
        }
    }

    sections.start("run under wine with the stub nvcuda.dll");
    windows.wine_path = vec![windows.equipment.clone(), windows.equipment.join("nvcuda")];
    for (mode, sys) in modes.iter().zip(&sys_features) {
        println!("features {mode}:");
        windows.cargo(
            GNU,
            "test",
            &["-p", "cuda-driver-sys-items", "--lib", "--features", sys],
        )?;
        windows.cargo(
            GNU,
            "test",
            &["-p", "cuda-check", "--tests", "--features", sys],
        )?;
        let mut args = vec![
            "-p",
            "cuda-driver-tests",
            "--no-default-features",
            "--features",
            mode,
        ];
        args.extend(tests);
        windows.cargo(GNU, "test", &args)?;
    }

    sections.start("run under wine without nvcuda.dll");
    windows.wine_path = vec![windows.equipment.clone()];
    windows.without_library(dynamic_mode, &examples_dir)?;

    sections.start(
        "the examples on the no-device path: Windows (wine, stub) against Linux (Debian's 535)",
    );
    windows.wine_path = vec![windows.equipment.clone(), windows.equipment.join("nvcuda")];
    let wine = windows.command(WINE);
    examples::compare(
        &scratch.0,
        &example_args,
        &modes[0],
        &linux_driver,
        &examples_dir,
        wine,
    )?;

    sections.start("x86_64-pc-windows-msvc: type-checked (no MSVC C runtime to link with)");
    windows.cargo(
        MSVC,
        "check",
        &[
            "-p",
            "cuda-driver-sys",
            "--features",
            &format!("cuda-{default},gl,table"),
        ],
    )?;
    windows.cargo(
        MSVC,
        "check",
        &[
            "-p",
            "cuda-driver-sys",
            "--features",
            &format!("cuda-{default},gl,table,dynamic-loading"),
        ],
    )?;
    windows.cargo(MSVC, "check", &["-p", "cuda-check", "--tests"])?;
    let mut args = vec!["-p", "cuda-driver-workspace"];
    args.extend(&example_args);
    args.extend(["--features", &modes[0]]);
    windows.cargo(MSVC, "check", &args)?;
    println!(
        "cuda-driver-sys (gl, table; linked and dynamic-loading), cuda-check's tests and {} examples compile for {MSVC}",
        examples.len()
    );
    sections.finish();
    Ok(())
}

/// Stops the wine server (and the services wineboot started) when dropped.
struct WineServer(Command);

impl Drop for WineServer {
    fn drop(&mut self) {
        let _ = self
            .0
            .arg("-k")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
}
