//! `xtask gpu-run [OUT]`: runs the bundle that gpu-bundle built, on a machine with NVIDIA GPUs and
//! no Rust toolchain (the bundle's `run.sh` calls the bundle's own xtask binary). Prints one line
//! per check and a summary; fails on any failure. Logs of every step go to OUT (default: the
//! bundle's `out/`). GPU_RUN_PARTS picks the parts to run, to fit a time limit per command
//! (default: "tests sanitizer bench rustacuda cust cudarc drop").

pub mod checks;
mod cudarc;
pub mod drop;
mod log;
mod sanitizer;
mod schedule;
mod tests;

use crate::base::args::Args;
use crate::base::{files, Result};
use checks::Checks;
use log::Logs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The parts GPU_RUN_PARTS picks from, all of them by default.
const PARTS: &str = "tests sanitizer bench rustacuda cust cudarc drop";

/// Runs the task.
pub fn run(args: &Args) -> Result {
    let parts = std::env::var("GPU_RUN_PARTS").unwrap_or_else(|_| PARTS.into());
    let want = |part: &str| parts.split_whitespace().any(|p| p == part);
    let exe = std::env::current_exe().map_err(|e| format!("the path of xtask: {e}"))?;
    let here = PathBuf::from(exe.parent().ok_or("the xtask binary has no folder")?);
    let out = args.value("OUT").map_or(here.join("out"), PathBuf::from);
    files::create_dir(&out)?;
    let checks_file = here.join("checks.json");
    let checks = files::read(&checks_file)
        .map_err(|e| format!("{e}: run the folder `cargo xtask gpu-bundle` built"))
        .and_then(|text| {
            Checks::parse(&text).map_err(|e| format!("{}: {e}", checks_file.display()))
        })?;
    std::env::set_var("CUDA_KERNELS_DIR", here.join("kernels"));
    // The CUDA runtime that runtime_interop (dlopen) and its C twin (linked) use: the bundle's own.
    let ld_path = crate::base::process::loader_path_with(&here.join("lib"));
    std::env::set_var("LD_LIBRARY_PATH", ld_path);
    std::env::set_var("CUDA_EXPECT_GPU", "1");
    std::env::set_var("CUDA_CACHE_DISABLE", "1");
    let mut logs = Logs {
        out,
        ..Logs::default()
    };

    let gpus = machine(&logs)?;
    if want("tests") {
        tests::run(&here, &checks, &mut logs, gpus)?;
    }
    if want("sanitizer") {
        sanitizer::run(&here, &checks, &mut logs, gpus)?;
    }
    if want("rustacuda") {
        // test_enums_align may fail: it pins the attribute count of the header rustacuda was
        // written for.
        dependent(&here, &exe, &mut logs, "rustacuda", "rustacuda 0.1.3")?;
    }
    if want("cust") {
        dependent(&here, &exe, &mut logs, "cust", "cust 0.3.2")?;
    }
    if want("cudarc") {
        cudarc::run(&here, &exe, &mut logs)?;
    }
    if want("bench") {
        bench(&here, &mut logs)?;
    }
    if want("drop") {
        drop::run(&here, &checks.drop, &mut logs)?;
    }
    println!();
    let (waived, failures, n) = (&logs.waived, &logs.failures, logs.waived.len());
    if n > 0 {
        println!("gpu-run: {n} waived, not passed (they cannot test their point on this machine):");
        println!("  {}", waived.join("\n  "));
    }
    if failures.is_empty() {
        let but = (n > 0).then(|| format!(" but the {n} waived"));
        println!("gpu-run: all passed{}", but.unwrap_or_default());
        return Ok(());
    }
    println!("gpu-run: {} failed: {}", failures.len(), failures.join(" "));
    Err(format!("the logs are in {}", logs.out.display()).into())
}

/// Records the driver calls of `command` and every process it starts into the folder `dir`
/// (`OUT/calls/<run>/`, which `cargo xtask coverage` reads), where the bundle has the recorder
/// (`lib/libcuda-calls.so`, loaded by the driver from `CUDA_INJECTION64_PATH`).
pub fn record_calls(here: &Path, dir: &Path, command: &mut Command) -> Result {
    let recorder = here.join("lib/libcuda-calls.so");
    if !recorder.is_file() {
        return Ok(());
    }
    files::create_dir(dir)?;
    command
        .env("CUDA_INJECTION64_PATH", recorder)
        .env("CUDA_CALLS_DIR", dir);
    Ok(())
}

/// The GPUs (`gpus.csv`), the driver's own summary (`nvidia-smi.txt`, with its CUDA version) and
/// the date (`date`), printed and kept; how many GPUs the machine has (`gpus.csv`'s rows).
fn machine(logs: &Logs) -> Result<usize> {
    println!("== machine");
    let query = "--query-gpu=index,name,driver_version,pcie.link.gen.max,pcie.link.width.max";
    let nvidia_smi = || Command::new("nvidia-smi");
    logs.tee("gpus.csv", nvidia_smi().args([query, "--format=csv"]))?;
    logs.tee("nvidia-smi.txt", &mut nvidia_smi())?;
    let utc = ["-u", "+%Y-%m-%dT%H:%M:%SZ"];
    logs.tee("date", Command::new("date").args(utc))?;
    let csv = files::read(&logs.out.join("gpus.csv"))?;
    let gpus = gpu_rows(&csv);
    println!("{gpus} GPU(s)");
    Ok(gpus)
}

/// The GPUs of `nvidia-smi --query-gpu=index,... --format=csv`'s output: its rows after the
/// header that begin with an index.
fn gpu_rows(csv: &str) -> usize {
    let index = |l: &&str| {
        l.split(',')
            .next()
            .is_some_and(|i| i.trim().parse::<u32>().is_ok())
    };
    csv.lines().skip(1).filter(index).count()
}

/// A published dependent on this crate (`<name>-check --bundle`, in the bundle's folder `name`):
/// where the bundle holds the old bindings' build (`<name>/baseline`), each build's outcomes must
/// be its outcomes but for the tests `<name>/expected-differences` lists; else every unit,
/// integration and doctest and example of each build must pass, but those listed.
fn dependent(here: &Path, exe: &Path, logs: &mut Logs, name: &str, label: &str) -> Result {
    let builds = files::sorted(&here.join(name), "ours-")?;
    if builds.is_empty() {
        let why = format!("GPU_RUN_PARTS without {name} runs the rest");
        return Err(format!("the bundle has no {name}/ours-* builds: {why}").into());
    }
    let versions: Vec<String> = builds
        .iter()
        .filter_map(|b| b.file_name()?.to_str()?.strip_prefix("ours-")?.parse().ok())
        .map(crate::base::versions::dotted)
        .collect();
    println!(
        "== {label} on this crate: unit, integration and doctests, examples ({} builds)",
        versions.join(" and ")
    );
    let expected = here.join(name).join("expected-differences");
    let baseline = here.join(name).join("baseline");
    let baseline_outcomes = logs.out.join(format!("{name}-baseline.outcomes"));
    if baseline.is_dir() {
        let log = format!("{name}-baseline");
        logs.run(&log, &mut dependent_run(exe, &baseline, &baseline_outcomes));
        logs.print_matching(&log, "", "  ")?;
    }
    for build in builds {
        let log = format!("{name}-{}", files::name(&build));
        let outcomes = logs.out.join(format!("{log}.outcomes"));
        let mut command = dependent_run(exe, &build, &outcomes);
        record_calls(here, &logs.out.join("calls").join(&log), &mut command)?;
        if baseline.is_dir() {
            command.arg("--same-as").arg(&baseline_outcomes);
        } else {
            command.arg("--all-pass-except");
        }
        logs.run(&log, command.arg(&expected));
        logs.print_matching(&log, "", "  ")?;
    }
    Ok(())
}

/// `xtask dependent-run BUILD OUTCOMES` by this program, `exe`: a dependent's build run, its
/// outcomes into the file `outcomes`.
pub fn dependent_run(exe: &Path, build: &Path, outcomes: &Path) -> Command {
    let mut command = Command::new(exe);
    command.arg("dependent-run").arg(build).arg(outcomes);
    command
}

/// The benchmark, linked and dynamically loaded: paired rounds, a verdict per row; it fails only
/// on a row that missed its target.
fn bench(here: &Path, logs: &mut Logs) -> Result {
    println!("== benchmark");
    let linked = here.join("bin/bench-driver");
    if files::executable(&linked) {
        logs.run("bench", &mut Command::new(linked));
        logs.print_matching("bench", "", "")?;
    }
    println!("== benchmark built with dynamic-loading (and cudarc 0.19)");
    let dynamic = here.join("bin/bench-driver-dynamic");
    if files::executable(&dynamic) {
        let mut command = Command::new(dynamic);
        command
            .arg("--first-init-linked")
            .arg(here.join("bin/first-init-linked"));
        command
            .arg("--first-init-dynamic")
            .arg(here.join("bin/first-init-dynamic"));
        logs.run("bench-dynamic", &mut command);
        logs.print_matching("bench-dynamic", "", "")?;
    }
    Ok(())
}

#[cfg(test)]
mod gpus {
    #[test]
    fn gpus_are_the_rows_of_the_query() {
        let csv = "index, name, driver_version, pcie.link.gen.max, pcie.link.width.max\n\
                   0, NVIDIA H100 80GB HBM3, 580.159.04, 5, 16\n\
                   1, NVIDIA H100 80GB HBM3, 580.159.04, 5, 16\n";
        assert_eq!(super::gpu_rows(csv), 2);
        assert_eq!(super::gpu_rows(""), 0);
        assert_eq!(super::gpu_rows("NVIDIA-SMI has failed\n"), 0);
    }
}

#[cfg(test)]
mod runs_anywhere {
    /// The runner runs where the build machine's checkout does not exist: no file of it (nor of
    /// dependent-run, which it starts, and what both use) names the workspace root or starts a
    /// command there (`process::command` runs from it).
    #[test]
    fn the_runner_reaches_for_no_path_of_the_build_machine() {
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = crate::base::files::walk(&src.join("gpu/run"));
        let used = "dependents/dependent_run.rs base/outcomes.rs base/capture.rs base/files.rs";
        files.extend(used.split(' ').map(|f| src.join(f)));
        let banned = [concat!("root", "("), concat!("process::", "command(")];
        for file in files {
            let text = fs_err::read_to_string(&file).unwrap();
            for word in banned {
                assert!(!text.contains(word), "{} uses `{word}`", file.display());
            }
        }
    }
}
