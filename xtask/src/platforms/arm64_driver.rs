//! Debian's arm64 libcuda.so.1 (535, as the amd64 one) loaded under qemu-aarch64 by a
//! cross-compiled C program (driver_probe.c): cuInit, cuDriverGetVersion, cuGetErrorName,
//! cuGetProcAddress and the symbol of every function of the bindings answer as the amd64 library
//! does here.

use crate::base::deps::env_path;
use crate::base::process::{self, root};
use crate::base::{files, prototypes, Result};
use fs_err as fs;
use std::path::Path;

/// The one difference: the arm64 build exports cuEventCreateFromEGLSync (cudaEGL.h), which the
/// amd64 535 library lacks (tests/common's may_be_absent).
const ARM64_ONLY: &str = "absent: cuEventCreateFromEGLSync";

/// Runs the probe on both libraries and compares their answers.
pub fn check(scratch: &Path) -> Result {
    // The functions of the bindings, one a line, the probes' input.
    let symbols: String = prototypes::functions()?
        .into_iter()
        .map(|n| n + "\n")
        .collect();
    let input = scratch.join("symbols.txt");
    files::write(&input, &symbols)?;
    let driver = crate::base::driver::driver()?;
    let source = root().join(super::DATA).join("driver_probe.c");
    let headers = format!("-I{}", super::headers(driver)?.display());
    let version = format!("-DDRIVER_VERSION={driver}");
    for (compiler, name) in [
        ("gcc", "probe-x86_64"),
        ("aarch64-linux-gnu-gcc", "probe-aarch64"),
    ] {
        process::run(
            process::command(compiler)
                .args(["-O1", &headers, &version, "-o"])
                .arg(scratch.join(name))
                .arg(&source)
                .arg("-ldl"),
        )?;
    }
    let library =
        |dir: &str| env_path(dir, "a driver library folder").map(|d| d.join("libcuda.so.1"));
    let amd64 = process::output(
        process::command(scratch.join("probe-x86_64"))
            .arg(library("CUDA_LIBRARY_PATH")?)
            .stdin(fs::File::open(&input)?.into_file()),
    )?;
    let arm64 = process::output(
        process::command("qemu-aarch64")
            .args(["-L", "/usr/aarch64-linux-gnu"])
            .arg(scratch.join("probe-aarch64"))
            .arg(library("CUDA_DRIVER_ARM64")?)
            .stdin(fs::File::open(&input)?.into_file()),
    )?;
    for line in arm64.lines().filter(|l| !l.starts_with("absent: ")) {
        println!("{line}");
    }
    if !arm64
        .lines()
        .any(|l| l.starts_with("cuInit(0) = 100 (CUDA_ERROR_NO_DEVICE"))
    {
        return Err("cuInit did not answer CUDA_ERROR_NO_DEVICE".into());
    }
    if !arm64
        .lines()
        .any(|l| l == format!("cuDriverGetVersion = 0, version {driver}"))
    {
        return Err(format!("cuDriverGetVersion did not answer {driver}").into());
    }
    let not_counts = |l: &&str| !l.starts_with("symbols: ");
    let expected: Vec<&str> = amd64
        .lines()
        .filter(|l| *l != ARM64_ONLY)
        .filter(not_counts)
        .collect();
    let answered: Vec<&str> = arm64.lines().filter(not_counts).collect();
    if expected != answered {
        for line in expected.iter().filter(|l| !answered.contains(l)) {
            println!("< {line}");
        }
        for line in answered.iter().filter(|l| !expected.contains(l)) {
            println!("> {line}");
        }
        return Err(
            "the arm64 library answers otherwise than the amd64 one (above: < amd64, > arm64)"
                .into(),
        );
    }
    if amd64.lines().any(|l| l == ARM64_ONLY) {
        let counts = amd64
            .lines()
            .find(|l| l.starts_with("symbols: "))
            .unwrap_or("");
        println!("amd64 {counts}: the arm64 library has cuEventCreateFromEGLSync too");
    }
    println!(
        "the arm64 library answers as the amd64 one, over {} function symbols of the bindings",
        symbols.lines().count()
    );
    Ok(())
}
