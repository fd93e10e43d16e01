//! `cargo xtask concurrency`: the loader and the table checked, not only exercised, against
//! Debian's 535 library (docs/DESIGN.md, "Memory ordering", "How it is checked"): loom on the
//! real code and on copies with each ordering of [`WEAKENED`] weakened (each must fail),
//! ThreadSanitizer with a weakened control that must report, AddressSanitizer over the loader's
//! bad input. Nothing is suppressed: no sanitizer options but the report's exit code.

use crate::base::args::Args;
use crate::base::capture::merged;
use crate::base::driver::expect_535_driver;
use crate::base::process::{self, root};
use crate::base::scratch::{copy_checkout, Scratch};
use crate::base::steps::Steps;
use crate::base::versions::the_one;
use crate::base::{deps, libtest, rustup, Result};
use fs_err as fs;
use std::path::Path;
use std::process::{Command, ExitStatus};

/// A feature the weakened copy's builds add (the model's, ThreadSanitizer's), which changes
/// nothing they check: else they would take the real builds' names in the shared target folder.
const CONTROLS: [&str; 2] = [",profiler", ",per-thread-default-stream"];
/// The target the sanitized builds name (`-Zbuild-std` needs one).
const TARGET: &str = "x86_64-unknown-linux-gnu";

/// One weakened ordering: what it breaks, the file in cuda-driver-sys-items/src/, the line.
type Weakening = (&'static str, &'static str, &'static str);

/// The controls of the model check; the first is also ThreadSanitizer's.
const WEAKENED: [Weakening; 6] = [
    (
        "the loader's outcome published Relaxed",
        "loading.rs",
        ".store(if loaded { LOADED } else { FAILED }, Ordering::Release);",
    ),
    (
        "the loader's state read Relaxed by a first call",
        "loading.rs",
        "match self.outcome(self.state.load(Ordering::Acquire)) {",
    ),
    (
        "the loader's state read Relaxed by a waiting thread",
        "loading.rs",
        "let s = self.state.load(Ordering::Acquire);",
    ),
    (
        "a trampoline's slot stored Relaxed",
        "slot.rs",
        "slot.store(p, Ordering::Release);",
    ),
    (
        "a table slot stored Relaxed",
        "slot.rs",
        "self.0.store(p, Ordering::Release);",
    ),
    (
        "a table slot read Relaxed by a call",
        "slot.rs",
        "let p = self.0.load(Ordering::Acquire);\n        (p.addr()",
    ),
];

/// `cargo xtask concurrency`: the checks above, in that order.
pub fn run(_: &Args) -> Result {
    deps::use_fetched(false)?;
    expect_535_driver()?;
    let default = the_one("default")?;
    let copy = Scratch::new("concurrency")?;
    copy_checkout(copy.path())?;

    let mut steps = Steps::new();
    let mut step = |what: &str| steps.step(&format!("concurrency: {what}"));
    step("model check: the loader's state machine and the slots under loom");
    let (status, said) = loom(&root(), "")?;
    if !status.success() {
        print!("{said}");
        return Err("the model check failed".into());
    }
    println!("{}", summary(&said));
    for weakening @ (what, _, _) in WEAKENED {
        let control = || loom(copy.path(), CONTROLS[0]);
        let (status, said) = with_weakened(copy.path(), weakening, control)?;
        let violation = said.lines().find(|l| l.contains("Causality violation"));
        let Some(line) = violation.filter(|_| !status.success()) else {
            print!("{said}");
            return Err(format!("the model check passes with {what}").into());
        };
        println!("control, {what}: fails: {line} ({})", summary(&said));
    }

    step("ThreadSanitizer: the first-call race and the threaded table and loader tests");
    // The standard library's source, which `-Zbuild-std` builds: rustup's `rust-src` component,
    // added unless its files are there.
    let sysroot = process::output(process::command("rustc").args(["--print", "sysroot"]))?;
    let library = Path::new(sysroot.trim()).join("lib/rustlib/src/rust/library/Cargo.lock");
    if !library.is_file() {
        rustup::component("rust-src")?;
    }
    let modes = [
        ("", "first_call_race table driver"),
        (",table-only", "first_call_race table"),
        (",dynamic-loading", "first_call_race table dynamic driver"),
    ];
    for (extra, tests) in modes {
        let features = format!("cuda-{default},interop{extra}");
        let tests: Vec<&str> = tests.split(' ').collect();
        println!("--- {features}: {}", tests.join(", "));
        let mut test = sanitized(&root(), "thread", &features, &tests);
        // The harness-less first_call_race ignores the filter.
        test.args(["--", "many_threads", "--nocapture"]);
        process::run(&mut test)?;
    }
    let (what, _, _) = WEAKENED[0];
    let dynamic = format!("cuda-{default},interop,dynamic-loading");
    let (status, report) = with_weakened(copy.path(), WEAKENED[0], || {
        let control = format!("{dynamic}{}", CONTROLS[1]);
        let mut race = sanitized(copy.path(), "thread", &control, &["first_call_race"]);
        merged(race.env("FIRST_CALL_RACE_RUNS", "3"))
    })?;
    let mut lines = report.lines();
    let race = lines.position(|l| l.contains("ThreadSanitizer: data race"));
    let Some(i) = race.filter(|_| !status.success()) else {
        print!("{report}");
        return Err(format!("ThreadSanitizer reports nothing with {what}").into());
    };
    // The race's two accesses, each with its first frames.
    let lines: Vec<&str> = report.lines().skip(i).collect();
    let write = lines.iter().position(|l| l.contains("Previous write"));
    let mut shown = lines[..4.min(lines.len())].to_vec();
    shown.extend(write.map_or(&[][..], |w| &lines[w..(w + 4).min(lines.len())]));
    println!("control, {what}: reported:\n{}", shown.join("\n"));

    step("AddressSanitizer: load_from, faulty libraries, result codes (dynamic-loading)");
    let tests = ["load_from", "faulty_library", "check_error_strings"];
    let mut test = sanitized(&root(), "address", &dynamic, &tests);
    process::run(test.args(["--", "--nocapture"]))?;
    steps.finish();
    Ok(())
}

/// The model check of the workspace at `dir`, with the features `extra` too: how it ended, what
/// it printed.
fn loom(dir: &Path, extra: &str) -> Result<(ExitStatus, String)> {
    let mut test = process::command("cargo");
    test.current_dir(dir).env("RUSTFLAGS", "--cfg loom");
    test.env("CARGO_TARGET_DIR", root().join("target/loom"));
    let features = format!("table,dynamic-loading{extra}");
    let args = "test --release -p cuda-driver-sys-items --test loom --features";
    merged(test.args(args.split(' ')).arg(features))
}

/// `cargo test` of the tests package's `tests` at `dir` with `features`, under the sanitizer
/// `sanitizer`, the standard library built with it.
fn sanitized(dir: &Path, sanitizer: &str, features: &str, tests: &[&str]) -> Command {
    let mut test = process::command("cargo");
    test.current_dir(dir).env("RUSTC_BOOTSTRAP", "1");
    test.env("RUSTFLAGS", format!("-Zsanitizer={sanitizer}"));
    // File and line in the reports, without the rest of the debug info (a third of the build).
    test.env("CARGO_PROFILE_DEV_DEBUG", "line-tables-only");
    let target = root().join(format!("target/{sanitizer}-sanitizer"));
    test.env("CARGO_TARGET_DIR", target);
    let args = format!("test -Zbuild-std --target {TARGET} -p cuda-driver-tests");
    test.args(args.split(' '));
    test.args(["--no-default-features", "--features", features]);
    test.args(tests.iter().flat_map(|t| ["--test", t]));
    test
}

/// `check` run with the ordering `weakening` weakened in the copy at `dir`, then put back.
fn with_weakened<T>(
    dir: &Path,
    weakening: Weakening,
    check: impl FnOnce() -> Result<T>,
) -> Result<T> {
    let (_, file, from) = weakening;
    let file = format!("cuda-driver-sys-items/src/{file}");
    let path = dir.join(&file);
    let original = fs::read_to_string(&path)?;
    if original.matches(from).count() != 1 {
        return Err(format!("{file} does not hold `{from}` once: update the controls").into());
    }
    let to = (from.replace("Ordering::Release", "Ordering::Relaxed"))
        .replace("Ordering::Acquire", "Ordering::Relaxed");
    fs::write(&path, original.replace(from, &to))?;
    let result = check();
    fs::write(&path, original)?;
    result
}

/// The test harness's result line of `said`.
fn summary(said: &str) -> &str {
    let mut lines = said.lines();
    (lines.find(|l| libtest::summary(l).is_some())).unwrap_or("no test result line")
}
