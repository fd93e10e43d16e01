//! `cargo xtask test`: the workspace's test command, what CI runs (docs/DESIGN.md, "What CI
//! runs"): each step under a timed heading, everything teed to target/ci-test.log ([`tee`]), in
//! homes of its own ([`home`]). The task runs itself (marked by `XTASK_TEST_TEED`) for the
//! steps; the platforms task runs beside the others ([`Beside`]).

mod home;
mod tee;

use crate::base::args::Args;
use crate::base::driver::Links;
use crate::base::process::{self, root, run_task};
use crate::base::steps::Steps;
use crate::base::{cargo_json, deps, driver, elf, versions, Result};
use fs_err as fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::SystemTime;

/// Set in the environment of the teed run of the steps (the task run again by itself).
const TEED: &str = "XTASK_TEST_TEED";

/// `cargo xtask test [--only WORDS]`.
pub fn run(args: &Args) -> Result {
    let only = args.value("WORDS");
    if std::env::var_os(TEED).is_some() {
        std::env::remove_var(TEED);
        return steps(only);
    }
    home::fresh()?;
    std::env::set_var(TEED, "1");
    match only {
        None => tee::run(&["test"], "all checks passed"),
        Some(words) => tee::run(
            &["test", "--only", words],
            &format!("the steps whose heading holds `{words}` passed"),
        ),
    }
}

/// The steps (those whose heading holds `only`, if given), after the fetch step. The task run
/// beside the others starts first, and its output is shown after theirs.
fn steps(only: Option<&str>) -> Result {
    let mut steps = Steps::new();
    let holds = |heading: &str| only.is_none_or(|words| heading.contains(words));
    let plan: Vec<Step> = plan()?.into_iter().filter(|(h, _)| holds(h)).collect();
    let (task, heading) = BESIDE;
    let beside = holds(heading);
    // Numbered in the order they are shown: the fetch step, the others, then the one beside.
    let count = plan.len() + 1 + usize::from(beside);
    let mut numbered = (1..).map(|i| format!("[{i}/{count}]"));
    let mut next = |heading: &str| format!("{} {heading}", numbered.next().expect("endless"));
    steps.step(&next(
        "fetch headers, driver library and libclang into target/ci-deps, and the locked crates",
    ));
    let links = setup(beside)?;
    let lane = beside.then(|| Beside::start(task)).transpose()?;
    for (heading, run) in &plan {
        steps.step(&next(heading));
        run(&links)?;
    }
    if let Some(lane) = lane {
        steps.step(&next(heading));
        lane.finish(heading)?;
    }
    steps.finish();
    println!();
    Ok(())
}

/// A task run beside the other steps, from their start (its own target folders, a CPU idle under
/// qemu and wine); its output goes to a file, shown when the other steps are done.
struct Beside {
    command: Command,
    child: std::process::Child,
    started: SystemTime,
    log: PathBuf,
}

impl Beside {
    fn start(task: &str) -> Result<Self> {
        let log = root().join(format!("target/ci-{task}.log"));
        let file = fs::File::create(&log)?.into_file();
        let mut command = process::task(task)?;
        command.stdout(file.try_clone()?).stderr(file);
        let started = SystemTime::now();
        let child = command.spawn().map_err(|e| process::error(&command, e))?;
        let shown = log.display();
        println!("(started beside the steps below: cargo xtask {task}, its output in {shown})");
        Ok(Beside {
            command,
            child,
            started,
            log,
        })
    }

    /// Waits for the task, shows its output and its own wall time (to its log's last write); an
    /// error naming its step's `heading` if it failed.
    fn finish(mut self, heading: &str) -> Result {
        let status = (self.child.wait()).map_err(|e| process::error(&self.command, e))?;
        print!("{}", fs::read_to_string(&self.log)?);
        let ended = fs::metadata(&self.log)?.modified()?;
        let took = ended
            .duration_since(self.started)
            .unwrap_or_default()
            .as_secs();
        println!("(ran beside the other steps, from their start: {took} s)");
        match status.success() {
            true => Ok(()),
            false => Err(format!("`{heading}` failed ({status}): its output is above").into()),
        }
    }
}

impl Drop for Beside {
    /// A step before it failed: the task is killed (once waited for, it is not signalled).
    fn drop(&mut self) {
        let _ = self.child.kill();
    }
}

/// What every step uses: the fetched dependencies' environment (`arm64`: with the platforms
/// task's arm64 driver, fetched before it starts beside the steps), and the folders a build links.
fn setup(arm64: bool) -> Result<Links> {
    deps::use_fetched(arm64)?;
    // The workspace's crates, as its committed lock pins them: nothing resolved anew.
    let mut fetch = process::command("cargo");
    fetch.args(["fetch", "--locked"]);
    let (status, said) = crate::base::capture::merged(&mut fetch)?;
    if !status.success() {
        let error = said.lines().rfind(|l| l.starts_with("error")).unwrap_or("");
        let what = "Cargo.lock does not pin every crate the workspace needs";
        let fix = "run `cargo fetch` and commit Cargo.lock";
        return Err(format!("{what} (cargo: {}): {fix}", error.trim()).into());
    }
    // What the tests require of Debian's driver library without a GPU (tests/driver.rs).
    driver::expect_535_driver()?;
    std::env::set_var("CARGO_TERM_COLOR", "never");
    std::env::set_var("RUST_BACKTRACE", "1");
    // Every build here starts from an empty target folder and runs once: incremental
    // compilation's caches would only cost time and several gigabytes of disk.
    std::env::set_var("CARGO_INCREMENTAL", "0");
    let links = driver::Links::in_scratch("stub-libcuda")?;
    // The first run's and the platforms' builds link against it too.
    std::env::set_var("CUDA_STUB_LIBRARY_PATH", &links.stub);
    Ok(links)
}

/// One step: its heading and what it runs.
type Step = (String, Box<dyn Fn(&Links) -> Result>);

fn step(heading: impl Into<String>, run: impl Fn(&Links) -> Result + 'static) -> Step {
    (heading.into(), Box::new(run))
}

/// The task run beside the other steps ([`Beside`]), and its step's heading.
const BESIDE: (&str, &str) = ("platforms", "aarch64 Linux and x86-64 Windows: bindings per target; Debian's arm64 driver under qemu; the tests built for aarch64 under qemu and for Windows under wine (cargo xtask platforms, run beside the other steps)");

/// A step that runs another task.
fn task(heading: impl Into<String>, name: &'static str, args: &'static [&'static str]) -> Step {
    step(heading, move |_| run_task(name, args))
}

/// Every step after the fetch step, in order.
fn plan() -> Result<Vec<Step>> {
    let default = versions::the_one("default")?;
    let table_only_version = versions::the_one("table-only")?;
    let old_driver = versions::the_one("old-driver")?;
    let dependents: Vec<String> = (versions::tagged("dependents")?.iter())
        .map(u32::to_string)
        .collect();
    // The first in full, the others as a suffix: `cuda-A, -B`.
    let dependents = format!("cuda-{}", dependents.join(", -"));

    let mut plan = vec![
        step("cargo fmt --check", |_| cargo("fmt --all -- --check", None)),
        step(
            "xtask's own tests: its parsers, the GPU runner's rules, the plan of its folders (cargo test -p xtask)",
            |_| cargo("test -p xtask", None),
        ),
    ];
    plan.extend(per_version()?);
    plan.extend([
        step(
            format!("clippy and tests, cuda-{default} with per-thread-default-stream"),
            |_| {
                let pt = "per-thread-default-stream";
                cargo(&format!("clippy --workspace --all-targets --features {pt} -- -D warnings"), None)?;
                cargo(&format!("test --features {pt} --all-targets -- --nocapture"), None)?;
                cargo(&format!("test -p cuda-driver-sys -p cuda-driver-sys-items --features {pt} --tests"), None)
            },
        ),
        step(
            format!("table-only: a cuda-{table_only_version} binary imports no driver symbol but the table's, and runs on the 535 driver"),
            move |links| table_only(links, table_only_version, false),
        ),
        step(
            format!("an 11.x driver: a cuda-{old_driver} table-only binary imports cuGetProcAddress (v1), starts on Debian bullseye's 470 driver (CUDA 11.4) and resolves what it has"),
            move |links| table_only(links, old_driver, true),
        ),
        task("dynamic-loading: binaries that link no driver library, with the 535 library and with none (cargo xtask dynamic-check)", "dynamic-check", &[]),
        task("bad input: every result code against C on the 535 and 470 libraries, the first-call race, faulty libraries, bad build environments (cargo xtask bad-input)", "bad-input", &[]),
        task("concurrency: the loader's state machine and the slots under loom, each weakened ordering a failing control; ThreadSanitizer over the first-call race and the threaded tests in every mode, with a control; AddressSanitizer over the loader's bad input (cargo xtask concurrency)", "concurrency", &[]),
        task("first run: a fresh clone runs every example with only a driver, under every version feature", "first-run", &[]),
        task("a crate depending on cuda-driver-sys builds with no CUDA and no libclang", "dependent-check", &[]),
        task(format!("rustacuda 0.1.3 on this crate: builds with {dependents}; its tests on the 535 library as on cuda-driver-sys 0.3.0 (cargo xtask rustacuda-check)"), "rustacuda-check", &[]),
        task(format!("cust 0.3.2 on this crate: builds with {dependents} (those that bind cuCtxCreate_v4 with dynamic-loading); its tests on the 535 library as on cust_raw 0.11.3 (cargo xtask cust-check)"), "cust-check", &[]),
        task(format!("cudarc 0.19.10's driver module on this crate: builds with {dependents}, linked and dynamic; its tests and examples on the 535 library as on its own sys (cargo xtask cudarc-check)"), "cudarc-check", &[]),
        task(format!("a program written for cuda-driver-sys 0.3.0, patched: builds with {dependents} (compat-0-3, -D deprecated); prints on the 535 library what it prints on 0.3.0 (cargo xtask dependent-0-3-check)"), "dependent-0-3-check", &[]),
        task("the publishable crates package and build from their .crate files (cargo xtask package-check)", "package-check", &[]),
        task("the publishable crates need no newer Rust than their rust-version (cargo xtask msrv-check)", "msrv-check", &[]),
        step("doc tests and cargo doc (warnings denied)", |_| {
            cargo("test --workspace --doc", None)?;
            process::run(
                process::command("cargo")
                    .args(["doc", "--workspace", "--no-deps"])
                    .env("RUSTDOCFLAGS", "-D warnings"),
            )
        }),
        task("docs as docs.rs builds them (no CUDA): 100% of public items documented, the facts of 9 generated items' pages (each line once, enumerator values), no negated-feature badge; cuda-check's docs without std (cargo xtask doc-check, about 40 s)", "doc-check", &[]),
        task("the committed bindings are what the pinned headers give", "regenerate", &["--check"]),
        task("the change lists from cuda-driver-sys 0.3 and cust_raw 0.11 are what their bindings and the committed ones give (cargo xtask migration-changes --check)", "migration-changes", &["--check"]),
        task("the committed PTX is what NVRTC 12.0 gives, and ptxas 12.0 accepts it", "gen-ptx", &["--check"]),
        task("docs/COVERAGE.md has a row for each function of the newest headers, and no other; the coverage recorder, fed made-up calls, writes the trace its format gives (cargo xtask coverage --check)", "coverage", &["--check"]),
    ]);
    Ok(plan)
}

/// The full suite for the anchor versions; clippy, the probes and the C spellings for every other
/// version; both with the interop modules (cuda-driver-sys names their features itself).
fn per_version() -> Result<Vec<Step>> {
    let mut steps = Vec::new();
    // The headers the group programs run at (each one's oldest, and the newest): their parity,
    // which an anchor's tests run anyway.
    let groups = crate::base::examples::group_versions()?;
    for v in versions::all()? {
        let number = v.number;
        let interop = format!("--no-default-features --features cuda-{number},interop");
        let modules = format!("cuda-{number},profiler,gl,egl,vdpau");
        // The bindings' crates, with the interop modules.
        let items = "-p cuda-driver-sys -p cuda-driver-sys-items --no-default-features --features";
        let items = format!("{items} {modules}");
        if v.tags.iter().any(|t| t == "anchor") {
            let args = format!("--workspace --all-targets {interop}");
            steps.push(step(format!("clippy, cuda-{number}"), move |links| {
                clippy(&args, links.for_header(number)?)
            }));
            steps.push(step(format!("tests, cuda-{number}"), move |links| {
                let link = Some(links.for_header(number)?);
                cargo(&format!("test {items} --tests"), link)?;
                // --nocapture: the ABI tests print what they compared (counts per version) into
                // the log.
                let all = format!("test {interop} --all-targets -- --nocapture");
                cargo(&all, link)
            }));
        } else {
            let tests = "--test layout --test constants --test prototypes --test driver \
                         --test table --test interop";
            let (also, parity) = match groups.contains(&number) {
                true => (
                    ", the examples' and group programs' parity",
                    " --test examples_parity",
                ),
                false => ("", ""),
            };
            let heading = format!("clippy (cuda-driver-sys), layout, constants, prototypes, C spellings and table{also}, cuda-{number} with the interop modules");
            let test =
                format!("test -p cuda-driver-tests {interop} {tests}{parity} -- --nocapture");
            steps.push(step(heading, move |links| {
                let link = links.for_header(number)?;
                clippy(&items, link)?;
                cargo(&test, Some(link))
            }));
        }
    }
    Ok(steps)
}

/// `cargo ARGS` (`args` split at spaces), linking against `link` if given (else the driver library
/// of the environment).
fn cargo(args: &str, link: Option<&Path>) -> Result {
    let mut cargo = process::command("cargo");
    cargo.args(args.split_whitespace());
    if let Some(dir) = link {
        cargo.env("CUDA_LIBRARY_PATH", dir);
    }
    process::run(&mut cargo)
}

/// `cargo clippy ARGS -- -D warnings`, linking against `link`.
fn clippy(args: &str, link: &Path) -> Result {
    cargo(&format!("clippy {args} -- -D warnings"), Some(link))
}

/// The table-only build of `version` imports no driver symbol but the table's (cuGetProcAddress,
/// v1 if `old`), the version and the error strings. Not `old`: with the interop modules, it loads
/// libcuda.so.1 and its tests run; `old`: it starts on the 470 driver and resolves what it has.
fn table_only(links: &Links, version: u32, old: bool) -> Result {
    let (interop, tests, proc_address) = match old {
        true => ("", "", "cuGetProcAddress"),
        false => (",interop", " --test interop", "cuGetProcAddress_v2"),
    };
    let features = format!("cuda-{version},table-only{interop}");
    let args = format!("--no-default-features --features {features} --test table{tests}");
    // (The C twins, which the tests' build script also builds, link the header's symbols: the
    // stub for a header newer than the driver.)
    let link = links.for_header(version)?;
    clippy(&args, link)?;
    if !old {
        cargo(&format!("test {args}"), Some(link))?;
    }
    // The table test built (`cargo test --no-run`, its output kept out of the log), and the
    // driver symbols it imports.
    let mut build = process::command("cargo");
    build.arg("test").args(args.split_whitespace());
    build.args(["--no-run", "--message-format=json"]);
    let built = cargo_json::built(build.env("CUDA_LIBRARY_PATH", link))?;
    let none = format!("no table test binary from {}", process::describe(&build));
    let mut executables = built.executables.into_iter();
    let binary = executables.find(|e| e.kind == "test" && e.name == "table");
    let binary = binary.ok_or(none)?.path;
    let mut symbols = elf::symbols(&binary, true)?;
    symbols.retain(|s| s.starts_with("cu"));
    symbols.sort();
    let shown: String = symbols.iter().map(|s| format!("{s} ")).collect();
    let relative = binary.strip_prefix(root()).unwrap_or(&binary);
    println!("driver symbols imported by {}: {shown}", relative.display());
    let allowed = ["cuDriverGetVersion", "cuGetErrorName", "cuGetErrorString"];
    let other = |s: &&String| *s != proc_address && !allowed.contains(&s.as_str());
    if let Some(s) = symbols.iter().find(other) {
        return Err(format!("table-only binary imports {s}").into());
    }
    if !symbols.iter().any(|s| s == proc_address) {
        return Err(format!("no {proc_address} import: the check saw nothing").into());
    }
    if !old {
        let needed = elf::dynamic(&binary)?.needed;
        if !needed.iter().any(|l| l == "libcuda.so.1") {
            return Err("the binary does not load libcuda.so.1".into());
        }
        return Ok(());
    }
    let driver_470 = deps::env_path("CUDA_DRIVER_470", "the 470 driver's folder")?;
    let test = "table_resolves_what_the_driver_has_and_names_the_rest";
    let mut table = process::command(&binary);
    table.env("LD_LIBRARY_PATH", driver_470);
    process::run(table.args(["--exact", test, "--nocapture"]))
}
