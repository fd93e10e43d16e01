//! `cargo xtask bad-input`: bad input (docs/DESIGN.md, "What CI runs", step 7): every result
//! code against C on the 535 and 470 libraries, the first-call race, faulty libraries, the build
//! script in bad environments ([`build_script`]), bad kernels folders against the C twins. The
//! versions and feature sets are those the test task and dynamic-check build: little is rebuilt.

use crate::base::args::Args;
use crate::base::capture::{exit_code, merged};
use crate::base::deps::{self, env_path};
use crate::base::driver::{expect_535_driver, DRIVER_470};
use crate::base::scratch::Scratch;
use crate::base::steps::Headings;
use crate::base::versions::{dotted, the_one};
use crate::base::{cargo_json, files, process, Result};
use std::process::Command;
use std::time::Instant;

const HEADINGS: Headings = Headings("bad input");

/// `cargo xtask bad-input`: the checks above, in that order.
pub fn run(_: &Args) -> Result {
    deps::use_fetched(false)?;
    expect_535_driver()?;
    let started = Instant::now();
    let default = the_one("default")?;
    let old = the_one("old-driver")?;
    let dynamic = format!("cuda-{default},interop,dynamic-loading");

    HEADINGS
        .step("clippy of the two test programs cargo's --all-targets leaves out (test = false)");
    let mut clippy = process::command("cargo");
    clippy.args("clippy -p cuda-driver-tests --no-default-features --features".split(' '));
    let tests = "--test faulty_library --test first_call_race -- -D warnings";
    process::run(clippy.arg(&dynamic).args(tests.split(' ')))?;

    HEADINGS
        .step("every result code through cuda-check against C: dynamic-loading, the 535 library");
    process::run(cargo_test(&dynamic, "check_error_strings").args(["--", "--nocapture"]))?;
    let driver_470 = env_path("CUDA_DRIVER_470", "the 470 driver's folder")?;
    for extra in ["interop", "dynamic-loading"] {
        let features = format!("cuda-{old},{extra}");
        HEADINGS.step(&format!(
            "every result code through cuda-check against C: {features}, the 470 library (CUDA {})",
            dotted(DRIVER_470)
        ));
        // The test binary, built with cargo's messages unshown.
        let mut build = cargo_test(&features, "check_error_strings");
        let built = cargo_json::built(build.args(["--no-run", "--message-format=json"]))?;
        let mut executables = built.executables.into_iter();
        let binary = executables.find(|e| e.kind == "test" && e.name == "check_error_strings");
        let none = format!("check_error_strings ({features}) was not built");
        let mut test = process::command(binary.ok_or(none)?.path);
        test.env("LD_LIBRARY_PATH", &driver_470);
        test.env("CUDA_DRIVER_EXPECT_VERSION", DRIVER_470.to_string());
        process::run(test.arg("--nocapture"))?;
    }

    for extra in ["", ",table-only", ",dynamic-loading"] {
        let features = format!("cuda-{default},interop{extra}");
        HEADINGS.step(&format!("64 threads racing the first calls: {features}"));
        process::run(&mut cargo_test(&features, "first_call_race"))?;
    }

    HEADINGS.step(&format!("faulty driver libraries: {dynamic}"));
    process::run(&mut cargo_test(&dynamic, "faulty_library"))?;

    HEADINGS.step("the examples given bad kernels folders, against their C twins");
    let mut parity = cargo_test(&format!("cuda-{default},interop"), "examples_parity");
    let exact = "-- --ignored --exact bad_kernels_folders_behave_as_in_c --nocapture";
    process::run(parity.args(exact.split(' ')))?;

    build_script()?;

    let took = started.elapsed().as_secs();
    println!("\nbad-input: all passed in {took} s");
    Ok(())
}

/// `cargo test --no-default-features --features <features> --test <test>`.
fn cargo_test(features: &str, test: &str) -> Command {
    let mut cargo = process::command("cargo");
    cargo.args(["test", "--no-default-features", "--features", features]);
    cargo.args(["--test", test]);
    cargo
}

/// What the user's LD_LIBRARY_PATH is in these builds: the warning must list it first.
const USER_DIR: &str = "/nonexistent-user-dir";

/// The build script of cuda-driver-sys in bad environments, in its own target folder: no panic,
/// a clear line; the warning names no folder cargo added to LD_LIBRARY_PATH.
fn build_script() -> Result {
    let scratch = Scratch::new("bad-input")?;
    let pc = scratch.path().join("pc");
    let include = scratch.path().join("include");
    files::create_dir(&pc)?;
    files::create_dir(&include)?;

    HEADINGS.step("build script: a pkg-config package whose -L path is not UTF-8");
    let mut package = b"Name: cuda\nDescription: x\nVersion: 12.4\nLibs: -L/opt/cuda-".to_vec();
    package.extend_from_slice(b"\xff/lib64 -lcuda\n");
    files::write(&pc.join("cuda-12.4.pc"), package)?;
    let pkg_config_path = ("PKG_CONFIG_PATH", pc.to_string_lossy().into_owned());
    let log = cargo_check(true, std::slice::from_ref(&pkg_config_path), &[])?;
    if !shown(&log, "libcuda not found") {
        return Err("the build script printed no `libcuda not found` line".into());
    }
    if !log.contains("or turn on the feature `dynamic-loading`, which links no library") {
        return Err("the `libcuda not found` warning does not name `dynamic-loading`".into());
    }
    if !log.contains("pkg-config cuda-12.4 (skipped: its output is not UTF-8") {
        return Err("no skipped line for the pkg-config package whose output is not UTF-8".into());
    }
    if !log.contains(&format!("Searched, in order: {USER_DIR}, /usr/lib/")) {
        return Err("the searched folders do not begin with the user's LD_LIBRARY_PATH (cargo's own entries listed?)".into());
    }
    if log.contains("target/bad-input") || log.contains("rustlib") {
        return Err("the warning lists cargo's own folders".into());
    }
    cargo_check(true, &[pkg_config_path], &["--features", "dynamic-loading"])?;

    HEADINGS.step("build script: a pkg-config that fails");
    let log = cargo_check(true, &[("PKG_CONFIG", "false".into())], &[])?;
    let skipped = matches_up_to_comma(&log, "pkg-config (skipped: ");
    if skipped.is_empty() {
        return Err("no line for the failing pkg-config".into());
    }
    println!("{}", skipped.join("\n"));

    HEADINGS.step("build script: #define CUDA_VERSION 99999999999999");
    let header = "#define CUDA_VERSION 99999999999999\n";
    files::write(&include.join("cuda.h"), header)?;
    let include = ("CUDA_INCLUDE_PATH", include.to_string_lossy().into_owned());
    let features = ["--features", "cuda-version-from-header"];
    let log = cargo_check(false, &[include], &features)?;
    let said = "defines CUDA_VERSION as \"99999999999999\", which is not a CUDA version";
    if !shown(&log, said) {
        print!("{log}");
        return Err("the CUDA_VERSION error does not say what is wrong".into());
    }
    Ok(())
}

/// `cargo check -p cuda-driver-sys` in target/bad-input with `vars` and `args`, LD_LIBRARY_PATH
/// the user's folder; its output; an error if the script panicked or it did not pass (`passes`).
fn cargo_check(passes: bool, vars: &[(&str, String)], args: &[&str]) -> Result<String> {
    let mut cargo = process::command("cargo");
    let check = "check -p cuda-driver-sys --target-dir target/bad-input";
    cargo.args(check.split(' ')).args(args);
    cargo
        .env_remove("CUDA_LIBRARY_PATH")
        .env("LD_LIBRARY_PATH", USER_DIR);
    cargo.envs(vars.iter().map(|(k, v)| (k, v)));
    let (status, log) = merged(&mut cargo)?;
    if log.contains("panicked") {
        print!("{log}");
        return Err("the build script panicked".into());
    }
    if status.success() != passes {
        print!("{log}");
        let want = if passes { "ok" } else { "error" };
        return Err(format!("cargo check: exit {}, expected {want}", exit_code(status)).into());
    }
    Ok(log)
}

/// Prints the lines of `log` that contain `what` (`grep`); whether there were any.
fn shown(log: &str, what: &str) -> bool {
    let lines: Vec<&str> = log.lines().filter(|l| l.contains(what)).collect();
    lines.iter().for_each(|line| println!("{line}"));
    !lines.is_empty()
}

/// Each match of `start` followed by what comes up to a comma or the line's end (`grep -o
/// 'START[^,]*'`).
fn matches_up_to_comma(log: &str, start: &str) -> Vec<String> {
    let after = log.lines().flat_map(|line| line.split(start).skip(1));
    after
        .map(|rest| start.to_string() + rest.split(',').next().unwrap_or(""))
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn matches_end_at_a_comma_or_the_line() {
        let log = "a pkg-config (skipped: exit 1, x) b pkg-config (skipped: none\nno\n";
        let found = super::matches_up_to_comma(log, "pkg-config (skipped: ");
        assert_eq!(
            found,
            ["pkg-config (skipped: exit 1", "pkg-config (skipped: none"]
        );
        let start = "pkg-config (skipped: ";
        assert!(super::matches_up_to_comma("pkg-config (skipped:", start).is_empty());
    }
}
