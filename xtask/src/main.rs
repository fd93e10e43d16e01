//! The workspace's CI and maintenance tasks, run as `cargo xtask <task> [arguments]` from anywhere
//! in the workspace (the alias is in `.cargo/config.toml`). `cargo xtask` lists the tasks.
//!
//! Each task is a module with one job; the shared parts are [`process`] (running commands),
//! [`steps`] (progress headings with per-step times), [`versions`] (the version list) and
//! [`deps`] (the fetched test dependencies). A task not yet written in Rust runs its script under
//! `ci/`.

// deps and steps: shared by the tasks being ported from ci/ (used once they land).
#[allow(dead_code)]
mod deps;
mod fetch_deps;
mod platforms;
mod process;
#[allow(dead_code)]
mod steps;
mod versions;

use std::process::ExitCode;

/// A task's result; its error is one line for the user.
pub type Result<T = ()> = std::result::Result<T, Box<dyn std::error::Error>>;

/// One task: its name on the command line, its arguments, what it does, and how it runs.
struct Task {
    name: &'static str,
    usage: &'static str,
    about: &'static str,
    run: Run,
}

/// How a task runs: Rust code, or a script under `ci/` with the task's arguments.
enum Run {
    Rust(fn(&[String]) -> Result),
    Script(&'static str),
}

const TASKS: &[Task] = &[
    Task {
        name: "test",
        usage: "",
        about: "the workspace's test command, what CI runs (the README's \"the tests\")",
        run: Run::Script("ci/test.sh"),
    },
    Task {
        name: "fetch-deps",
        usage: "[--arm64-driver] [--cross-rust]",
        about: "fetch the test dependencies into target/ci-deps; print their environment as export lines",
        run: Run::Rust(fetch_deps::run),
    },
    Task {
        name: "regenerate",
        usage: "[--check]",
        about: "regenerate cuda-driver-sys/src/generated from the pinned headers (--check: compare)",
        run: Run::Script("ci/regenerate.sh"),
    },
    Task {
        name: "stub-libcuda",
        usage: "DIR",
        about: "a stub libcuda.so.1 exporting every function of every header version, for linking",
        run: Run::Script("ci/stub-libcuda.sh"),
    },
    Task {
        name: "dynamic-check",
        usage: "",
        about: "dynamic-loading: binaries that link no driver library, with the 535 library and with none",
        run: Run::Script("ci/dynamic-check.sh"),
    },
    Task {
        name: "bad-input",
        usage: "",
        about: "bad input: result codes against C, the first-call race, faulty libraries, bad build environments",
        run: Run::Script("ci/bad-input.sh"),
    },
    Task {
        name: "first-run",
        usage: "",
        about: "a fresh clone runs every example with only a driver, under every version feature",
        run: Run::Script("ci/first-run.sh"),
    },
    Task {
        name: "twins-smoke",
        usage: "",
        about: "the examples' C twins built with g++ and run on the driver library",
        run: Run::Script("ci/twins-smoke.sh"),
    },
    Task {
        name: "dependent-check",
        usage: "",
        about: "a crate depending on cuda-driver-sys builds with no CUDA and no libclang",
        run: Run::Script("ci/dependent-check.sh"),
    },
    Task {
        name: "rustacuda-check",
        usage: "[--bundle DIR]",
        about: "rustacuda 0.1.3 built on this crate, its tests run as on cuda-driver-sys 0.3.0",
        run: Run::Script("ci/rustacuda-check.sh"),
    },
    Task {
        name: "rustacuda-run",
        usage: "DIR",
        about: "run one build of rustacuda's tests that rustacuda-check made",
        run: Run::Script("ci/rustacuda-run.sh"),
    },
    Task {
        name: "dependent-0-3-check",
        usage: "",
        about: "a program written for cuda-driver-sys 0.3.0 builds and prints the same on this crate",
        run: Run::Script("ci/dependent-0-3-check.sh"),
    },
    Task {
        name: "pinned-crate",
        usage: "NAME VERSION",
        about: "the path of a pinned .crate file in cargo's cache, checked against its checksum",
        run: Run::Script("ci/pinned-crate.sh"),
    },
    Task {
        name: "migration-changes",
        usage: "[--check]",
        about: "the change list from cuda-driver-sys 0.3 (docs/MIGRATING-CHANGES.md)",
        run: Run::Script("ci/migration-changes.sh"),
    },
    Task {
        name: "package-check",
        usage: "",
        about: "the publishable crates package and build from their .crate files",
        run: Run::Script("ci/package-check.sh"),
    },
    Task {
        name: "msrv-check",
        usage: "",
        about: "the publishable crates need no newer Rust than their rust-version",
        run: Run::Script("ci/msrv-check.sh"),
    },
    Task {
        name: "doc-check",
        usage: "",
        about: "the docs as docs.rs builds them: coverage, the facts of generated pages, badges",
        run: Run::Script("ci/doc-check.sh"),
    },
    Task {
        name: "gen-ptx",
        usage: "[--check]",
        about: "the examples' PTX from their CUDA C sources with NVRTC 12.0, checked by ptxas",
        run: Run::Script("ci/gen-ptx.sh"),
    },
    Task {
        name: "platforms",
        usage: "[--all-versions | VERSION ...]",
        about: "aarch64 Linux and x86-64 Windows: probes per target, the tests under qemu and wine",
        run: Run::Rust(platforms::run),
    },
    Task {
        name: "gpu-bundle",
        usage: "DIR",
        about: "build everything the GPU pass runs into one folder, run there by its run.sh",
        run: Run::Script("ci/gpu-bundle.sh"),
    },
    Task {
        name: "build-cost",
        usage: "[PAIRS] [FEATURE]",
        about: "a dependent's cold release build against cudarc's, alternating pairs",
        run: Run::Script("ci/build-cost.sh"),
    },
    Task {
        name: "versions",
        usage: "[--tag NAME]",
        about: "the CUDA header versions of cuda-driver-sys/versions.txt (or those tagged NAME), one per line",
        run: Run::Rust(versions::print),
    },
];

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((name, rest)) = args.split_first() else {
        print_tasks();
        return ExitCode::from(2);
    };
    let Some(task) = TASKS.iter().find(|t| t.name == name) else {
        eprintln!("xtask: no task `{name}`");
        print_tasks();
        return ExitCode::from(2);
    };
    match run(task, rest) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask {name}: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Runs the task `name` with `args`, as `cargo xtask <name> <args>` would (a task calling another).
#[allow(dead_code)] // for the tasks that call others (test) once they are written in Rust
pub fn run_task(name: &str, args: &[&str]) -> Result {
    let task = TASKS
        .iter()
        .find(|t| t.name == name)
        .ok_or_else(|| format!("no task `{name}`"))?;
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    run(task, &args)
}

fn run(task: &Task, args: &[String]) -> Result {
    match task.run {
        Run::Rust(run) => run(args),
        Run::Script(script) => process::run(process::command(script).args(args)),
    }
}

fn print_tasks() {
    eprintln!("usage: cargo xtask <task> [arguments]; the tasks:");
    for t in TASKS {
        eprintln!("  {} {}\n      {}", t.name, t.usage, t.about);
    }
}
