//! The build script of cuda-driver-sys in bad environments, alone in its own target folder (the
//! environment changes rerun it): a pkg-config package whose -L path is not UTF-8, a pkg-config
//! that fails, and a cuda.h whose CUDA_VERSION is no version. No panic, a clear line; the
//! warning names no folder cargo added to LD_LIBRARY_PATH.

use crate::base::capture::{exit_code, merged};
use crate::base::scratch::Scratch;
use crate::base::steps::Headings;
use crate::base::{files, process, Result};

/// What the user's LD_LIBRARY_PATH is in these builds: the warning must list it first.
const USER_DIR: &str = "/nonexistent-user-dir";

/// Whether `cargo check` must pass or fail.
#[derive(PartialEq)]
enum Want {
    Ok,
    Error,
}

/// The three bad environments, each a step under `headings`.
pub fn check(headings: &Headings) -> Result {
    let scratch = Scratch::new("bad-input")?;
    let pc = scratch.path().join("pc");
    let include = scratch.path().join("include");
    files::create_dir(&pc)?;
    files::create_dir(&include)?;

    headings.step("build script: a pkg-config package whose -L path is not UTF-8");
    let mut package = b"Name: cuda\nDescription: x\nVersion: 12.4\nLibs: -L/opt/cuda-".to_vec();
    package.extend_from_slice(b"\xff/lib64 -lcuda\n");
    files::write(&pc.join("cuda-12.4.pc"), package)?;
    let pkg_config_path = ("PKG_CONFIG_PATH", pc.to_string_lossy().into_owned());
    let log = cargo_check(Want::Ok, std::slice::from_ref(&pkg_config_path), &[])?;
    let not_found = grep(&log, "libcuda not found");
    if not_found.is_empty() {
        return Err("the build script printed no `libcuda not found` line".into());
    }
    show(&not_found);
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
    cargo_check(
        Want::Ok,
        &[pkg_config_path],
        &["--features", "dynamic-loading"],
    )?;

    headings.step("build script: a pkg-config that fails");
    let log = cargo_check(Want::Ok, &[("PKG_CONFIG", "false".into())], &[])?;
    let skipped = matches_up_to_comma(&log, "pkg-config (skipped: ");
    if skipped.is_empty() {
        return Err("no line for the failing pkg-config".into());
    }
    show(&skipped);

    headings.step("build script: #define CUDA_VERSION 99999999999999");
    files::write(
        &include.join("cuda.h"),
        "#define CUDA_VERSION 99999999999999\n",
    )?;
    let log = cargo_check(
        Want::Error,
        &[("CUDA_INCLUDE_PATH", include.to_string_lossy().into_owned())],
        &["--features", "cuda-version-from-header"],
    )?;
    let said = grep(
        &log,
        "defines CUDA_VERSION as \"99999999999999\", which is not a CUDA version",
    );
    if said.is_empty() {
        print!("{log}");
        return Err("the CUDA_VERSION error does not say what is wrong".into());
    }
    show(&said);
    Ok(())
}

/// `cargo check -p cuda-driver-sys` in target/bad-input with `vars` and the cargo `args`, no
/// CUDA_LIBRARY_PATH and LD_LIBRARY_PATH the user's folder; its output. An error (the output
/// shown) if the build script panicked or the check did not end as `want`.
fn cargo_check(want: Want, vars: &[(&str, String)], args: &[&str]) -> Result<String> {
    let mut cargo = process::command("cargo");
    cargo
        .env_remove("CUDA_LIBRARY_PATH")
        .env("LD_LIBRARY_PATH", USER_DIR)
        .envs(vars.iter().map(|(k, v)| (k, v)))
        .args([
            "check",
            "-p",
            "cuda-driver-sys",
            "--target-dir",
            "target/bad-input",
        ])
        .args(args);
    let (status, log) = merged(&mut cargo)?;
    if log.contains("panicked") {
        print!("{log}");
        return Err("the build script panicked".into());
    }
    if status.success() != (want == Want::Ok) {
        print!("{log}");
        let want = if want == Want::Ok { "ok" } else { "error" };
        return Err(format!("cargo check: exit {}, expected {want}", exit_code(status)).into());
    }
    Ok(log)
}

/// The lines of `log` that contain `what` (`grep`).
fn grep<'a>(log: &'a str, what: &str) -> Vec<&'a str> {
    log.lines().filter(|l| l.contains(what)).collect()
}

/// Each match of `start` followed by what comes up to a comma or the line's end (`grep -o
/// 'START[^,]*'`).
fn matches_up_to_comma<'a>(log: &'a str, start: &str) -> Vec<&'a str> {
    let mut found = Vec::new();
    for line in log.lines() {
        let mut rest = line;
        while let Some(at) = rest.find(start) {
            let tail = &rest[at..];
            let end = tail[start.len()..]
                .find(',')
                .map_or(tail.len(), |i| i + start.len());
            found.push(&tail[..end]);
            rest = &tail[end..];
        }
    }
    found
}

fn show(lines: &[&str]) {
    for line in lines {
        println!("{line}");
    }
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
        assert!(
            super::matches_up_to_comma("pkg-config (skipped:", "pkg-config (skipped: ").is_empty()
        );
    }
}
