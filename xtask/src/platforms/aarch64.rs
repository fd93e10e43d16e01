//! aarch64 Linux: the tests of [`super::cross`] for the versions tagged `aarch64`, run under
//! qemu-aarch64 against Debian's arm64 535 libcuda.so.1 (cuInit answers CUDA_ERROR_NO_DEVICE),
//! with the interop modules; the programs the tests start go through `CUDA_TEST_RUNNER` (qemu-user
//! without binfmt_misc cannot start an aarch64 program from an emulated one), the runtime twin
//! with the aarch64 libcudart.so.12. Under `dynamic-loading` the loader finds and loads the arm64
//! library itself.

use super::cross::{self, Suite};
use crate::base::deps::env_path;
use crate::base::process::{self, root};
use crate::base::{rustup, versions, Result};
use std::process::Command;

const TARGET: &str = "aarch64-unknown-linux-gnu";

/// Builds and runs the tests for aarch64 under qemu; the tests passed per test binary.
pub fn check() -> Result {
    rustup::targets(&[TARGET])?;
    let versions = versions::tagged("aarch64")?;
    let driver = crate::base::driver::driver()?;
    // Builds for headers newer than the driver link an aarch64 stub library; what runs is the
    // arm64 535 library, first on the loader's path (its RUNPATH entries come after). The stub's
    // folder is always the same (the build scripts rerun when CUDA_LIBRARY_PATH changes),
    // outside cargo's target folder.
    let stub = root().join("target/aarch64-stub-libcuda");
    process::run(
        process::task("stub-libcuda")?
            .arg(&stub)
            .env("CC", "aarch64-linux-gnu-gcc"),
    )?;
    let arm64 = env_path("CUDA_DRIVER_ARM64", "the arm64 driver library folder")?;
    let cudart = env_path(
        "CUDART_LIBRARY_PATH_ARM64",
        "the aarch64 CUDA runtime folder",
    )?;
    // The loader's path, the same whoever calls this (cuda-driver-sys's build script reruns when
    // it changes): the arm64 library's folder, for cargo and for the runner, which cargo gives
    // its own folders.
    let runner = format!(
        "env LD_LIBRARY_PATH={} qemu-aarch64 -L /usr/aarch64-linux-gnu",
        arm64.display()
    );
    let target_dir = root().join("target/cross");
    let cargo = |v: u32| {
        let link = if v > driver { &stub } else { &arm64 };
        let mut command = process::command("cargo");
        command
            .env("LD_LIBRARY_PATH", &arm64)
            .env("CARGO_TARGET_DIR", &target_dir)
            .env(
                "CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER",
                "aarch64-linux-gnu-gcc",
            )
            .env("CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER", &runner)
            .env("CUDA_TEST_RUNNER", &runner)
            .env("CC_aarch64_unknown_linux_gnu", "aarch64-linux-gnu-gcc")
            .env("CXX_aarch64_unknown_linux_gnu", "aarch64-linux-gnu-g++")
            .env("CUDART_LIBRARY_PATH", &cudart)
            .env("CUDA_DRIVER_EXPECT_VERSION", driver.to_string())
            .env("CUDA_DRIVER_EXPECT_NO_DEVICE", "1")
            .env(
                "CUDA_EXAMPLES_DIR",
                target_dir.join(TARGET).join("debug/examples"),
            )
            .env("CUDA_LIBRARY_PATH", link);
        command
    };
    let suite = Suite {
        target: TARGET,
        interop: true,
        tests: &cross::TESTS,
        examples: &[],
        cargo: &cargo as &dyn Fn(u32) -> Command,
    };
    println!("{TARGET}: qemu-aarch64, Debian's arm64 535 libcuda.so.1");
    suite.run(&versions)
}
