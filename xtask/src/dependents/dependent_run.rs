//! `cargo xtask dependent-run`: runs one build of a dependent's tests that a dependents' check made
//! (in CI, and on the GPU from gpu-run), no cargo needed, each test on its own line in OUTCOMES as
//! `KIND NAME ok|FAILED|ignored`, and prints one line of counts. DIR holds tests/ (the libtest binaries: `unit`, the library's own, and the
//! integration tests), examples/ (with the data files they read as `./examples/FILE`), doctests/
//! (one binary per doctest, `<file>-<rank>`: its rank by line in its source file, stable when a
//! patch moves lines; `index` maps them to rustdoc's names; `unbuilt` names those that did not
//! compile, each an outcome `doctest-build NAME FAILED`), lib/ (the Rust standard library the
//! doctests link dynamically, NVRTC) and what else the tests read relative to DIR. With
//! --all-pass-except, it fails unless the tests that fail are exactly those FILE lists (`KIND NAME`
//! lines after `#` reasons); with --same-as, unless the outcomes that differ from those of the
//! file BASELINE (another build's) are exactly those.

use crate::base::args::Args;
use crate::base::capture::{exit_code, merged};
use crate::base::files::{self, name as file_name, sorted};
use crate::base::libtest::{test_line, Outcome};
use crate::base::{outcomes, Result};
use fs_err as fs;
use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Runs the task.
pub fn run(args: &Args) -> Result {
    let [dir, outcomes_path] = ["DIR", "OUTCOMES"].map(|n| args.value(n).expect("declared"));
    let dir = fs::canonicalize(dir)?;
    let outcomes_path = PathBuf::from(outcomes_path);
    let log_path = PathBuf::from(format!("{}.log", outcomes_path.display()));
    let mut log = fs::File::create(&log_path)?;
    let ld_path = crate::base::process::loader_path_with(&dir.join("lib"));
    // The tests read files relative to DIR: rustacuda's ./resources/add.ptx, cudarc's
    // ./examples/sin.ptx.
    let command = |program: &Path| {
        let mut command = Command::new(program);
        command
            .current_dir(&dir)
            .env("LD_LIBRARY_PATH", &ld_path)
            .stdin(Stdio::null());
        command
    };

    let mut written = Vec::new();
    // libtest binaries: one outcome per `test NAME ... ok|FAILED|ignored` line (an ignored test
    // is not run); a binary that fails with no test failed (it did not start, or crashed) is an outcome
    // of its own.
    for test in sorted(&dir.join("tests"), "")? {
        let name = file_name(&test);
        let kind = ["integration", "unit"][(name == "unit") as usize];
        let (status, output) = merged(command(&test).args(["--test-threads", "1"]))?;
        let code = exit_code(status);
        let output = output.trim_end_matches('\n');
        writeln!(log, "== tests/{name} (exit {code})\n{output}")?;
        let results: Vec<_> = output.lines().filter_map(test_line).collect();
        let any_failed = results.iter().any(|(_, o)| *o == Outcome::Failed);
        written.extend(
            (results.iter()).map(|(test, outcome)| format!("{kind} {test} {}", outcome.word())),
        );
        if !status.success() && !any_failed {
            written.push(format!("{kind} {name}-binary FAILED"));
        }
    }
    // The doctests that did not compile: the same on both builds, or a difference.
    if let Ok(unbuilt) = fs::read_to_string(dir.join("doctests/unbuilt")) {
        written.extend(unbuilt.lines().map(|t| format!("doctest-build {t} FAILED")));
    }
    for (kind, folder) in [("example", "examples"), ("doctest", "doctests")] {
        for program in sorted(&dir.join(folder), "")? {
            let name = file_name(&program);
            // Beside the programs: the doctests' index, the data files examples read.
            if name == "index" || !files::executable(&program) {
                continue;
            }
            writeln!(log, "== {kind} {name}")?;
            let (status, output) = merged(&mut command(&program))?;
            log.write_all(output.as_bytes())?;
            let verdict = if status.success() { "ok" } else { "FAILED" };
            written.push(format!("{kind} {name} {verdict}"));
        }
    }
    let lines: String = written.iter().map(|l| format!("{l}\n")).collect();
    files::write(&outcomes_path, lines)?;

    let base = file_name(&dir);
    let ignored = written.iter().filter(|l| l.ends_with(" ignored")).count();
    println!(
        "dependent-run: {base}: {} of {} passed, {ignored} ignored ({}); log: {}",
        written.iter().filter(|l| l.ends_with(" ok")).count(),
        written.len() - ignored,
        counts(&written),
        log_path.display()
    );
    if written.is_empty() {
        return Err(format!("no test ran in {}", dir.display()).into());
    }
    let Some(file) = args.value("FILE").map(Path::new) else {
        return Ok(());
    };
    let (listed, name) = (outcomes::expected(&files::read(file)?), file_name(file));
    // --same-as: the outcomes that differ from the baseline's must be exactly those listed.
    if let Some(baseline) = args.value("BASELINE_OUTCOMES").map(Path::new) {
        let (base, ours) = (files::read(baseline)?, files::read(&outcomes_path)?);
        let compared = [(baseline, base.as_str()), (&outcomes_path, &ours)];
        let Some(report) = outcomes::mismatch(&listed, compared) else {
            let n = listed.len();
            println!("dependent-run: every outcome is the baseline's but the {n} listed in {name}");
            return Ok(());
        };
        let why = format!("the outcomes that differ from the baseline's are not those of {name}");
        println!("dependent-run: FAILED: {why}");
        for line in report.iter().take(40) {
            println!("  {line}");
        }
        return Err(why.into());
    }
    // --all-pass-except: the tests that failed must be exactly those listed.
    let failed: BTreeSet<String> = (written.iter())
        .filter_map(|l| Some(l.strip_suffix(" FAILED")?.to_string()))
        .collect();
    if failed == listed {
        let n = listed.len();
        println!("dependent-run: every test passed but the {n} listed in {name}");
        return Ok(());
    }
    let why = format!("the failing tests are not exactly those of {name}");
    println!("dependent-run: FAILED: {why}");
    let lines = (listed.difference(&failed))
        .map(|l| format!("  listed, passed or absent: {l}"))
        .chain(failed.difference(&listed).map(|f| format!("  failed: {f}")));
    for line in lines.take(20) {
        println!("{line}");
    }
    println!(
        "  ({} failed that are not listed; all in {})",
        failed.difference(&listed).count(),
        outcomes_path.display()
    );
    Err(why.into())
}

/// The counts line: passed of run for each kind.
fn counts(outcomes: &[String]) -> String {
    let count = |kind: &str, result: &str| {
        let kind = format!("{kind} ");
        (outcomes.iter())
            .filter(|l| l.starts_with(&kind) && l.ends_with(result))
            .count()
    };
    let mut counts: Vec<String> = [("unit", "unit"), ("integration", "integration")]
        .into_iter()
        .chain([("doctest", "doctests"), ("example", "example")])
        .map(|(kind, label)| {
            let run = count(kind, "") - count(kind, " ignored");
            format!("{label} {}/{run}", count(kind, " ok"))
        })
        .collect();
    match count("doctest-build", "") {
        0 => {}
        n => counts.push(format!("{n} doctests did not compile")),
    }
    counts.join(", ")
}

#[cfg(test)]
mod tests {
    use super::counts;

    #[test]
    fn counts_per_kind() {
        let outcomes = "unit a ok,unit b FAILED,unit c ignored,doctest x-1 ok,example launch ok";
        let outcomes: Vec<String> = outcomes.split(',').map(String::from).collect();
        assert_eq!(
            counts(&outcomes),
            "unit 1/2, integration 0/0, doctests 1/1, example 1/1"
        );
    }
}
