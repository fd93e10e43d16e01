//! The workspace's CI and maintenance tasks, run as `cargo xtask <task> [arguments]` from anywhere
//! in the workspace (the alias is in `.cargo/config.toml`). `cargo xtask` lists the tasks.
//!
//! This file only lists the tasks and runs the one named. Each folder holds the tasks of one
//! concern ([`CONCERNS`]), each task a module with one job; the parts they share are in [`base`],
//! which imports no task. Nothing imports this file.

// Nothing that no task runs.
#![deny(dead_code)]

mod base;
mod checks;
mod dependents;
mod fetch;
mod generate;
mod gpu;
mod platforms;
mod release;
mod test;

use base::args::{self, Args};
use base::Result;
use std::process::ExitCode;

/// The tasks of one concern: the folder of `xtask/src/` that holds them, and what they are for.
struct Concern {
    folder: &'static str,
    about: &'static str,
    tasks: &'static [Task],
}

/// One task: its name on the command line, its arguments (the one declaration of them: its usage
/// line, which [`args::parse`] reads them by), what it does, and its code.
struct Task {
    name: &'static str,
    usage: &'static str,
    about: &'static str,
    run: fn(&Args) -> Result,
}

/// Every task, by concern, in the order `cargo xtask` lists them.
const CONCERNS: &[Concern] = &[
    Concern {
        folder: "test",
        about: "the test command, what CI runs",
        tasks: &[
            Task {
                name: "test",
                usage: "[--only WORDS]",
                about: "the workspace's test command, what CI runs (the README's \"the tests\")",
                run: test::run,
            },
        ],
    },
    Concern {
        folder: "fetch",
        about: "what the tests stand on: fetched dependencies, the stub library, pinned crates, versions",
        tasks: &[
            Task {
                name: "fetch-deps",
                usage: "[--arm64-driver]",
                about: "fetch the test dependencies into target/ci-deps; print their environment as export lines",
                run: fetch::fetch_deps::run,
            },
            Task {
                name: "stub-libcuda",
                usage: "DIR",
                about: "a stub libcuda.so.1 exporting every function of every header version, for linking",
                run: fetch::stub_libcuda::run,
            },
            Task {
                name: "pinned-crate",
                usage: "NAME VERSION",
                about: "the path of a pinned .crate file in cargo's cache, checked against its checksum",
                run: fetch::pinned_crate::run,
            },
            Task {
                name: "versions",
                usage: "[--tag NAME]",
                about: "the CUDA header versions of cuda-driver-sys-items/versions.txt (or those tagged NAME), one per line",
                run: fetch::versions::print,
            },
        ],
    },
    Concern {
        folder: "generate",
        about: "the generated files, each with a --check",
        tasks: &[
            Task {
                name: "regenerate",
                usage: "[--check | --windows-pass DIR VERSION...]",
                about: "regenerate cuda-driver-sys-items/src/generated from the pinned headers (--check: compare)",
                run: generate::regenerate::run,
            },
            Task {
                name: "migration-changes",
                usage: "[--check]",
                about: "the change lists from cuda-driver-sys 0.3 and cust_raw 0.11 (docs/MIGRATING-CHANGES*.md)",
                run: generate::migration_changes::run,
            },
            Task {
                name: "gen-ptx",
                usage: "[--check]",
                about: "the examples' PTX from their CUDA C sources with the pinned NVRTC, checked by ptxas",
                run: generate::gen_ptx::run,
            },
        ],
    },
    Concern {
        folder: "checks",
        about: "the checks the test command runs as tasks of their own",
        tasks: &[
            Task {
                name: "dynamic-check",
                usage: "",
                about: "dynamic-loading: binaries that link no driver library, with the 535 library and with none",
                run: checks::dynamic_check::run,
            },
            Task {
                name: "bad-input",
                usage: "",
                about: "bad input: result codes against C, the first-call race, faulty libraries, bad build environments",
                run: checks::bad_input::run,
            },
            Task {
                name: "concurrency",
                usage: "",
                about: "the loader and the table under loom (with weakened controls), ThreadSanitizer and AddressSanitizer",
                run: checks::concurrency::run,
            },
            Task {
                name: "first-run",
                usage: "",
                about: "a fresh clone runs every example with only a driver, under every version feature",
                run: checks::first_run::run,
            },
            Task {
                name: "dependent-check",
                usage: "",
                about: "a crate depending on cuda-driver-sys builds with no CUDA and no libclang",
                run: checks::dependent_check::run,
            },
        ],
    },
    Concern {
        folder: "dependents",
        about: "published dependents built on this crate, their tests run as on their own bindings",
        tasks: &[
            Task {
                name: "rustacuda-check",
                usage: "[--bundle DIR | --update-locks]",
                about: "rustacuda 0.1.3 built on this crate, its tests run as on cuda-driver-sys 0.3.0",
                run: dependents::published::rustacuda,
            },
            Task {
                name: "cust-check",
                usage: "[--bundle DIR | --update-locks]",
                about: "cust 0.3.2 built on this crate, its tests run as on cust_raw 0.11.3",
                run: dependents::published::cust,
            },
            Task {
                name: "cudarc-check",
                usage: "[--bundle DIR | --update-locks]",
                about: "cudarc 0.19.10's driver module built on this crate, its tests run as on its own sys",
                run: dependents::cudarc_check::run,
            },
            Task {
                name: "dependent-run",
                usage: "DIR OUTCOMES [--all-pass-except FILE | --same-as BASELINE_OUTCOMES FILE]",
                about: "run one build of a dependent's tests that rustacuda-check, cust-check or cudarc-check made",
                run: dependents::dependent_run::run,
            },
            Task {
                name: "dependent-0-3-check",
                usage: "[--update-locks]",
                about: "a program written for cuda-driver-sys 0.3.0 builds and prints the same on this crate",
                run: dependents::dependent_0_3_check::run,
            },
        ],
    },
    Concern {
        folder: "release",
        about: "the publishable crates as their users get them",
        tasks: &[
            Task {
                name: "package-check",
                usage: "",
                about: "the publishable crates package and build from their .crate files",
                run: release::package_check::run,
            },
            Task {
                name: "msrv-check",
                usage: "",
                about: "the publishable crates need no newer Rust than their rust-version",
                run: release::msrv_check::run,
            },
            Task {
                name: "doc-check",
                usage: "",
                about: "the docs as docs.rs builds them: coverage, the facts of generated pages, badges",
                run: release::doc_check::run,
            },
            Task {
                name: "build-cost",
                usage: "[PAIRS] [FEATURE]",
                about: "a dependent's cold release build against cudarc's, alternating pairs",
                run: release::build_cost::run,
            },
        ],
    },
    Concern {
        folder: "platforms",
        about: "other targets than x86-64 Linux",
        tasks: &[
            Task {
                name: "platforms",
                usage: "[--all-versions | VERSION ...]",
                about: "aarch64 Linux and x86-64 Windows: probes per target, the tests under qemu and wine",
                run: platforms::run,
            },
        ],
    },
    Concern {
        folder: "gpu",
        about: "the GPU pass: its bundle, its runner, the coverage report from its logs",
        tasks: &[
            Task {
                name: "gpu-bundle",
                usage: "[--parts WORDS] [DIR]",
                about: "build everything the GPU pass runs into one folder, run there by its run.sh",
                run: gpu::bundle::run,
            },
            Task {
                name: "coverage",
                usage: "OUT | --check",
                about: "write docs/COVERAGE.md (and docs/CHECKED.md, from drops.txt) from a GPU run's logs (--check: its functions are the newest headers')",
                run: gpu::coverage::run,
            },
            Task {
                name: "gpu-run",
                usage: "[OUT]",
                about: "run the GPU bundle (its xtask binary, on the GPU machine); GPU_RUN_PARTS picks parts",
                run: gpu::run::run,
            },
        ],
    },
];

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((name, rest)) = args.split_first() else {
        print_tasks();
        return ExitCode::from(2);
    };
    let (help, name) = match (name.as_str(), rest) {
        ("help", [asked]) => (true, asked),
        _ => (false, name),
    };
    let Some(task) = tasks().find(|t| t.name == name) else {
        eprintln!("xtask: no task `{name}`");
        print_tasks();
        return ExitCode::from(2);
    };
    if help {
        eprintln!("{}\n  {}", usage(task), task.about);
        return ExitCode::SUCCESS;
    }
    let Some(args) = args::parse(task.usage, rest) else {
        eprintln!("{}", usage(task));
        return ExitCode::from(2);
    };
    match (task.run)(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask {name}: {e}");
            ExitCode::FAILURE
        }
    }
}

/// `usage: cargo xtask NAME USAGE`.
fn usage(task: &Task) -> String {
    format!("usage: cargo xtask {} {}", task.name, task.usage)
        .trim_end()
        .to_string()
}

/// Every task, concern by concern.
fn tasks() -> impl Iterator<Item = &'static Task> {
    CONCERNS.iter().flat_map(|c| c.tasks)
}

fn print_tasks() {
    eprintln!("usage: cargo xtask <task> [arguments] (cargo xtask help <task>: its usage); the tasks by concern, xtask/src/<folder>:");
    for c in CONCERNS {
        eprintln!("{}/: {}", c.folder, c.about);
        for t in c.tasks {
            let line = format!("{} {}", t.name, t.usage);
            eprintln!("  {}\n      {}", line.trim_end(), t.about);
        }
    }
}

/// The plan of `xtask/src/`, read from the sources: at most ten entries, each concern a folder
/// with its module doc; the shared parts (`base/`) name no task, a concern no other concern;
/// nothing names this file's items.
#[cfg(test)]
mod plan {
    use crate::base::files::walk;
    use std::path::Path;

    /// The first segment of each path `text` names from the crate root: `a` of `crate::a::b`,
    /// `a` and `b` of `crate::{a::x, b}`.
    fn crate_roots(text: &str) -> Vec<&str> {
        fn ident(s: &str) -> Option<&str> {
            s.split(|c: char| !(c.is_alphanumeric() || c == '_')).next()
        }
        let mut roots = Vec::new();
        for (at, _) in text.match_indices("crate::") {
            if text[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_') {
                continue; // another name ending in `crate`
            }
            let rest = &text[at + "crate::".len()..];
            let Some(group) = rest.strip_prefix('{') else {
                roots.extend(ident(rest));
                continue;
            };
            let (mut depth, mut item_starts) = (0, true);
            for (i, c) in group.char_indices() {
                match c {
                    '}' if depth == 0 => break,
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 0 => item_starts = true,
                    c if item_starts && !c.is_whitespace() => {
                        roots.extend(ident(&group[i..]));
                        item_starts = false;
                    }
                    _ => {}
                }
            }
        }
        roots
    }

    #[test]
    fn crate_roots_are_found_in_paths_and_groups() {
        let text =
            "use crate::base::{a, b};\nuse crate::{x::{y, z}, w};\nmycrate::no; crate::t::f()";
        assert_eq!(crate_roots(text), ["base", "x", "w", "t"]);
    }

    #[test]
    fn the_shared_parts_name_no_task_and_nothing_names_main() {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let main = std::fs::read_to_string(src.join("main.rs")).unwrap();
        let concerns: Vec<&str> = (main.lines())
            .filter_map(|l| l.strip_prefix("mod ")?.strip_suffix(';'))
            .collect();
        assert!(
            concerns.contains(&"base"),
            "main.rs declares no `mod base;`"
        );
        let entries = std::fs::read_dir(&src).unwrap().count();
        assert!(
            entries <= 10,
            "xtask/src/ has {entries} entries, more than ten"
        );
        let mut bad = Vec::new();
        for concern in &concerns {
            let doc = std::fs::read_to_string(src.join(concern).join("mod.rs")).unwrap();
            if !doc.starts_with("//! ") {
                bad.push(format!(
                    "{concern}/mod.rs: no module doc saying the concern's job"
                ));
            }
        }
        let files: Vec<_> = (walk(&src).into_iter())
            .filter(|p| p.extension().is_some_and(|e| e == "rs"))
            .collect();
        assert!(
            files.len() > 50,
            "the walk found only {} files",
            files.len()
        );
        for path in files.iter().filter(|p| **p != src.join("main.rs")) {
            let rel = path.strip_prefix(&src).unwrap();
            let text = std::fs::read_to_string(path).unwrap();
            let in_base = rel.starts_with("base");
            let concern = rel.components().next().unwrap().as_os_str();
            for root in crate_roots(&text) {
                if root != "base" && (in_base || concern != root) {
                    bad.push(format!("{}: crate::{root}", rel.display()));
                }
            }
            // A `super::` chain as long as the module's depth reaches the crate root.
            let depth = rel.components().count() - usize::from(rel.ends_with("mod.rs"));
            if in_base && text.contains(&"super::".repeat(depth)) {
                bad.push(format!("{}: a super:: path above base", rel.display()));
            }
        }
        assert!(
            bad.is_empty(),
            "the shared parts (base/) may name only base, a concern's files only base and their \
             own concern (the crate root's other items are main.rs's, which nothing uses): {bad:#?}"
        );
    }
}
