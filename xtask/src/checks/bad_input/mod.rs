//! `cargo xtask bad-input`: bad input, run by the test task; runs alone too. Without a GPU:
//! 1. every CUresult value 0..1100 and the extremes through cuda-check against the C helper
//!    (tests/check_error_strings.rs) under dynamic-loading on the 535 library, and linked and
//!    dynamic-loading on Debian bullseye's 470 library (the linked 535 run is the test task's);
//! 2. 64 threads racing the first calls, 100 fresh processes, linked, table-only and
//!    dynamic-loading (tests/first_call_race.rs);
//! 3. faulty driver libraries under dynamic-loading (tests/faulty_library.rs);
//! 4. the build script in bad environments ([`build_script`]);
//! 5. the examples given bad kernels folders (none, empty, garbage, truncated PTX, directories
//!    named .ptx, a 5,000-byte path, a name that is not UTF-8) against their C twins
//!    (tests/examples_parity.rs, bad_kernels_folders_behave_as_in_c).
//!
//! The versions are the default one and the one tagged `old-driver`, the feature sets those
//! the test task and dynamic-check build, so that little is rebuilt.

mod build_script;

use crate::base::args::Args;
use crate::base::deps::{self, env_path};
use crate::base::driver::{expect_535_driver, DRIVER_470};
use crate::base::steps::Headings;
use crate::base::versions::{dotted, the_one};
use crate::base::{cargo_json, process, Result};
use std::path::PathBuf;
use std::time::Instant;

const HEADINGS: Headings = Headings("bad input");

/// `cargo xtask bad-input`: the checks above, in that order.
pub fn run(_: &Args) -> Result {
    deps::use_fetched(&[])?;
    expect_535_driver()?;
    let started = Instant::now();
    let default = the_one("default")?;
    let old = the_one("old-driver")?;
    let dynamic = format!("cuda-{default},interop,dynamic-loading");

    HEADINGS
        .step("clippy of the two test programs cargo's --all-targets leaves out (test = false)");
    process::run(
        process::command("cargo")
            .args(["clippy", "-p", "cuda-driver-tests", "--no-default-features"])
            .args(["--features", &dynamic])
            .args(["--test", "faulty_library", "--test", "first_call_race"])
            .args(["--", "-D", "warnings"]),
    )?;

    HEADINGS
        .step("every result code through cuda-check against C: dynamic-loading, the 535 library");
    process::run(cargo_test(&dynamic, "check_error_strings").args(["--", "--nocapture"]))?;
    let driver_470 = env_path(
        "CUDA_DRIVER_470",
        "the 470 driver library's folder (fetch-deps)",
    )?;
    for features in [
        format!("cuda-{old},interop"),
        format!("cuda-{old},dynamic-loading"),
    ] {
        HEADINGS.step(&format!(
            "every result code through cuda-check against C: {features}, the 470 library (CUDA {})",
            dotted(DRIVER_470)
        ));
        let bin = test_binary(&features, "check_error_strings")?;
        process::run(
            process::command(bin)
                .env("LD_LIBRARY_PATH", &driver_470)
                .env("CUDA_DRIVER_EXPECT_VERSION", DRIVER_470.to_string())
                .arg("--nocapture"),
        )?;
    }

    for extra in ["", ",table-only", ",dynamic-loading"] {
        let features = format!("cuda-{default},interop{extra}");
        HEADINGS.step(&format!("64 threads racing the first calls: {features}"));
        process::run(&mut cargo_test(&features, "first_call_race"))?;
    }

    HEADINGS.step(&format!("faulty driver libraries: {dynamic}"));
    process::run(&mut cargo_test(&dynamic, "faulty_library"))?;

    HEADINGS.step("the examples given bad kernels folders, against their C twins");
    process::run(
        cargo_test(&format!("cuda-{default},interop"), "examples_parity").args([
            "--",
            "--ignored",
            "--exact",
            "bad_kernels_folders_behave_as_in_c",
            "--nocapture",
        ]),
    )?;

    build_script::check(&HEADINGS)?;

    println!();
    println!("bad-input: all passed in {} s", started.elapsed().as_secs());
    Ok(())
}

/// `cargo test --no-default-features --features <features> --test <test>`.
fn cargo_test(features: &str, test: &str) -> std::process::Command {
    let mut cargo = process::command("cargo");
    cargo
        .args(["test", "--no-default-features", "--features", features])
        .args(["--test", test]);
    cargo
}

/// The path of the test binary `test` built with `features` (cargo's messages unshown).
fn test_binary(features: &str, test: &str) -> Result<PathBuf> {
    let not_built = || format!("{test} ({features}) was not built");
    let built =
        cargo_json::built(cargo_test(features, test).args(["--no-run", "--message-format=json"]))
            .map_err(|_| not_built())?;
    built
        .executables
        .into_iter()
        .find(|e| e.kind == "test" && e.name == test)
        .map(|e| e.path)
        .ok_or_else(|| not_built().into())
}
