//! The workspace's tests that need no GPU, built for another target and run there through cargo's
//! runner (qemu-aarch64, wine), the same on every target ([`Suite::run`]): for each version the
//! crate's unit tests, cuda-check's tests, the examples (`CUDA_EXAMPLES_DIR`, set by the caller)
//! and the tests package's tests: layout and constants (C probes built by the target's C compiler,
//! linked into its test binaries), prototypes where the target's tests can start its C++ compiler
//! (a host program), examples_parity (each example against its C twin, built by the target's C++
//! compiler); for the newest version, again under `dynamic-loading`, with the first-call race
//! (the loader's waiting on the target's own system). A warning fails a run; the tests passed are
//! counted per test binary ([`test_counts`]).
//!
//! Not run here: prototypes' mutations_are_rejected (the probe's control: mutated copies of the
//! bindings' text, the same on every target; 90 s a version under qemu), compile_fail and
//! versions (the bindings' and manifests' text, with cargo), gl_interop and egl_interop (need a
//! GL context), the benchmarks: they run on x86-64 Linux.

use super::test_counts;
use crate::base::{process, Result};
use std::process::Command;

/// The tests package's tests each version runs, where the target allows (see [`Suite::tests`]).
pub const TESTS: [&str; 10] = [
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

/// The first-call race's fresh processes per target: each under qemu or wine starts slowly.
const FIRST_CALL_RACE_RUNS: &str = "10";

/// What one target runs.
pub struct Suite<'a> {
    pub target: &'static str,
    /// Whether the builds have the interop modules (the tests' build script parses the headers
    /// the GL and EGL headers include, which it can for Linux only).
    pub interop: bool,
    /// The tests package's tests each version runs: [`TESTS`], or those of them the target can.
    pub tests: &'a [&'a str],
    /// The examples examples_parity compares (`--example` each); none: `--examples`.
    pub examples: &'a [String],
    /// `cargo` with the target's environment (linker, runner, C compilers, target folder,
    /// `CUDA_EXAMPLES_DIR`), linking the driver library a header version links.
    pub cargo: &'a dyn Fn(u32) -> Command,
}

impl Suite<'_> {
    /// Builds and runs the tests for `versions` (the last, the newest, also with
    /// `dynamic-loading`); the tests passed per test binary, printed.
    pub fn run(&self, versions: &[u32]) -> Result {
        let mut log = String::new();
        let interop = if self.interop { ",interop" } else { "" };
        for &v in versions {
            let sys = format!("cuda-{v},profiler,gl,egl,vdpau,table");
            self.test(&mut log, v, &crate_tests(&sys))?;
            let check = format!("cuda-driver-sys/cuda-{v}");
            let args = ["-p", "cuda-check", "--features", &check, "--tests"];
            self.test(&mut log, v, &args)?;
            let features = format!("cuda-{v}{interop}");
            let mut args = vec!["build", "--target", self.target];
            match self.examples {
                [] => args.push("--examples"),
                list => args.extend(list.iter().flat_map(|e| ["--example", e.as_str()])),
            }
            args.extend(["--no-default-features", "--features", &features]);
            self.cargo(v, &args)?;
            let mut args = vec!["--no-default-features", "--features", &features];
            args.extend(self.tests.iter().flat_map(|t| ["--test", t]));
            args.extend(["--", "--nocapture", "--skip", "mutations_are_rejected"]);
            self.test(&mut log, v, &args)?;
        }
        let newest = versions[versions.len() - 1];
        let dynamic = format!("cuda-{newest},dynamic-loading");
        self.test(&mut log, newest, &crate_tests(&dynamic))?;
        let features = format!("cuda-{newest}{interop},dynamic-loading");
        let mut args = vec!["--no-default-features", "--features", &features];
        for t in ["driver", "table", "dynamic", "load_from", "first_call_race"] {
            args.extend(["--test", t]);
        }
        args.extend(["--", "--nocapture"]);
        // The loader's waiting (a futex, WaitOnAddress) on the target's own system: a few fresh
        // processes of 64 threads (100 on x86-64 Linux, cargo xtask bad-input).
        std::env::set_var("FIRST_CALL_RACE_RUNS", FIRST_CALL_RACE_RUNS);
        self.test(&mut log, newest, &args)?;
        println!("tests passed on {}, per test binary:", self.target);
        let (report, empty) = test_counts::report(&log);
        print!("{report}");
        if !empty.is_empty() {
            return Err(format!("no test passed in: {}", empty.join(", ")).into());
        }
        Ok(())
    }

    /// `cargo test --target <target> <args>` for `version`: its output shown and added to `log`,
    /// after the line `cargo test <arguments>` that the counts read.
    pub fn test(&self, log: &mut String, version: u32, args: &[&str]) -> Result {
        let line = format!("cargo test --target {} {}", self.target, args.join(" "));
        println!("{line}");
        *log += &format!("{line}\n");
        *log += &self.cargo(
            version,
            &[&["test", "--target", self.target][..], args].concat(),
        )?;
        Ok(())
    }

    /// `cargo <args>` for `version`, its output shown; a failure or a warning fails. Its output.
    pub fn cargo(&self, version: u32, args: &[&str]) -> Result<String> {
        let mut command = (self.cargo)(version);
        command.env("CARGO_TERM_COLOR", "never").args(args);
        let (status, output) = crate::base::capture::merged_shown(&mut command)?;
        process::check(&command, status)?;
        if output.lines().any(|l| l.starts_with("warning")) {
            return Err(process::error(&command, "a warning (above)").into());
        }
        Ok(output)
    }
}

/// The arguments of the crate's unit tests (those of its items: cuda-driver-sys has none) with
/// `features`; not the build scripts' tests (search_order, header_version), which test host code.
fn crate_tests(features: &str) -> [&str; 6] {
    let items = "cuda-driver-sys-items";
    [
        "-p",
        items,
        "--no-default-features",
        "--features",
        features,
        "--lib",
    ]
}
