//! The workspace's tests that need no GPU, built for aarch64-unknown-linux-gnu with Debian's
//! rustc-web (fetched with `--cross-rust`) and run under qemu-aarch64 against Debian's arm64 535
//! libcuda.so.1 (cuInit answers CUDA_ERROR_NO_DEVICE), for the versions tagged `aarch64`:
//! cuda-driver-sys's tests, cuda-check's, and the tests package's driver, table, dynamic,
//! load_from, layout, constants, prototypes, interop, check_error_strings and examples_parity
//! (the examples against their C twins, cross-compiled by the tests' build script with
//! aarch64-linux-gnu-g++ and run under qemu too, the runtime twin with the aarch64
//! libcudart.so.12). The layout and constant probes are C compiled by aarch64-linux-gnu-gcc,
//! linked into the aarch64 test binaries: they compare that compiler's sizes, offsets and values
//! with the aarch64 Rust compiler's; the prototype probe runs aarch64-linux-gnu-g++ (a host
//! program, started from the emulated test). Under `dynamic-loading` (the newest of those
//! versions) the loader finds and loads the arm64 library itself.
//!
//! Not run here: prototypes' mutations_are_rejected (the probe's control: mutated copies of the
//! bindings' text, the same on every target; 90 s a version under qemu), compile_fail and
//! versions (the bindings' and manifests' text, with cargo), gl_interop (needs a GL context), the
//! benchmarks: they run on x86-64 Linux.

use super::test_counts;
use crate::process::{self, root};
use crate::{deps, versions, Result};
use std::process::Command;

const TARGET: &str = "aarch64-unknown-linux-gnu";

/// The tests package's tests run for each version.
const TESTS: [&str; 10] = [
    "driver",
    "table",
    "dynamic",
    "load_from",
    "layout",
    "constants",
    "prototypes",
    "interop",
    "check_error_strings",
    "examples_parity",
];

/// Builds and runs the tests for aarch64 under qemu; the tests passed per test binary.
pub fn check() -> Result {
    deps::use_fetched(&["--arm64-driver", "--cross-rust"])?;
    let versions = versions::tagged("aarch64")?;
    let driver = super::driver_version()?;
    // Builds for headers newer than the driver link an aarch64 stub library; what runs is the
    // arm64 535 library, first on the loader's path (its RUNPATH entries come after). The stub's
    // folder is always the same (the build scripts rerun when CUDA_LIBRARY_PATH changes),
    // outside cargo's target folder.
    let stub = root().join("target/aarch64-stub-libcuda");
    process::run(
        super::xtask("stub-libcuda")?
            .arg(&stub)
            .env("CC", "aarch64-linux-gnu-gcc"),
    )?;
    let arm64 = super::env("CUDA_DRIVER_ARM64")?;
    let link_dir = |v: u32| {
        if v > driver {
            stub.display().to_string()
        } else {
            arm64.clone()
        }
    };
    let cross = Cross {
        arm64: arm64.clone(),
        rustc: super::env("RUST_CROSS_RUSTC")?,
        cudart: super::env("CUDART_LIBRARY_PATH_ARM64")?,
        driver,
    };
    let mut log = String::new();
    let features = |v: u32, rest: &str| format!("cuda-{v},{rest}");
    for &v in &versions {
        let link = link_dir(v);
        let sys = features(v, "profiler,gl,egl,vdpau,table");
        cross.test(
            &mut log,
            &link,
            &[
                "-p",
                "cuda-driver-sys",
                "-p",
                "cuda-driver-sys-items",
                "--no-default-features",
                "--features",
                &sys,
                "--tests",
            ],
        )?;
        let check = format!("cuda-driver-sys/cuda-{v}");
        cross.test(
            &mut log,
            &link,
            &["-p", "cuda-check", "--features", &check, "--tests"],
        )?;
        // examples_parity runs the examples of CUDA_EXAMPLES_DIR, built here with the tests'
        // features (as it would build them itself: its cargo, started under qemu, would see
        // another LD_LIBRARY_PATH and build cuda-driver-sys again on each run).
        let interop = features(v, "interop");
        process::run(cross.cargo(&link).args([
            "build",
            "--target",
            TARGET,
            "--examples",
            "--no-default-features",
            "--features",
            &interop,
        ]))?;
        let mut args = vec!["--no-default-features", "--features", &interop];
        args.extend(TESTS.iter().flat_map(|t| ["--test", t]));
        args.extend(["--", "--nocapture", "--skip", "mutations_are_rejected"]);
        cross.test(&mut log, &link, &args)?;
    }
    let newest = versions[versions.len() - 1];
    let link = link_dir(newest);
    let dynamic = features(newest, "dynamic-loading");
    cross.test(
        &mut log,
        &link,
        &[
            "-p",
            "cuda-driver-sys",
            "-p",
            "cuda-driver-sys-items",
            "--no-default-features",
            "--features",
            &dynamic,
            "--tests",
        ],
    )?;
    let interop = features(newest, "interop,dynamic-loading");
    let mut args = vec!["--no-default-features", "--features", &interop];
    args.extend(
        ["driver", "table", "dynamic", "load_from"]
            .iter()
            .flat_map(|t| ["--test", t]),
    );
    args.extend(["--", "--nocapture"]);
    cross.test(&mut log, &link, &args)?;
    println!("tests passed on {TARGET} (qemu-aarch64, Debian's arm64 535 libcuda.so.1), per test binary:");
    let (report, empty) = test_counts::report(&log);
    print!("{report}");
    if !empty.is_empty() {
        return Err(format!("no test passed in: {}", empty.join(", ")).into());
    }
    Ok(())
}

/// The environment of the builds for aarch64.
struct Cross {
    arm64: String,
    rustc: String,
    cudart: String,
    driver: u32,
}

impl Cross {
    /// `cargo`, with the cross toolchain, qemu as the runner and `link` as the library to link.
    fn cargo(&self, link: &str) -> Command {
        // The loader's path, the same whoever calls this (cuda-driver-sys's build script reruns
        // when it changes): the arm64 library's folder, for cargo and for the runner, which
        // cargo gives its own folders.
        let runner = format!(
            "env LD_LIBRARY_PATH={} qemu-aarch64 -L /usr/aarch64-linux-gnu",
            self.arm64
        );
        let target_dir = root().join("target/cross");
        let mut command = process::command("cargo");
        command
            .env("LD_LIBRARY_PATH", &self.arm64)
            .env("RUSTC", &self.rustc)
            .env("CARGO_TARGET_DIR", &target_dir)
            .env(
                "CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER",
                "aarch64-linux-gnu-gcc",
            )
            .env("CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER", &runner)
            .env("CUDA_TEST_RUNNER", &runner)
            .env("CC_aarch64_unknown_linux_gnu", "aarch64-linux-gnu-gcc")
            .env("CXX_aarch64_unknown_linux_gnu", "aarch64-linux-gnu-g++")
            .env("CUDART_LIBRARY_PATH", &self.cudart)
            .env("CUDA_DRIVER_EXPECT_VERSION", self.driver.to_string())
            .env("CUDA_DRIVER_EXPECT_NO_DEVICE", "1")
            .env("CARGO_TERM_COLOR", "never")
            .env(
                "CUDA_EXAMPLES_DIR",
                target_dir.join(TARGET).join("debug/examples"),
            )
            .env("CUDA_LIBRARY_PATH", link);
        command
    }

    /// `cargo test` for the target with `args`: its output shown and added to `log`, after the
    /// line `cargo test <arguments>` that the counts read.
    fn test(&self, log: &mut String, link: &str, args: &[&str]) -> Result {
        let line = format!("cargo test --target {TARGET} {}", args.join(" "));
        println!("{line}");
        log.push_str(&line);
        log.push('\n');
        let mut command = self.cargo(link);
        command.args(["test", "--target", TARGET]).args(args);
        let (status, output) = super::merged_output_shown(&mut command)?;
        log.push_str(&output);
        if !status.success() {
            return Err(format!("{} failed ({status})", process::describe(&command)).into());
        }
        Ok(())
    }
}
