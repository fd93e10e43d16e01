//! One parity test (the parent module's documentation says what it requires): prepared from the
//! program and its variant, both sides run, and judged: the parity line, or a panic with every
//! difference found.

use crate::binaries::{examples_dir, kernels_dir, twin_dir};
use crate::group::GROUP_PROGRAMS;
use crate::output::{diff, normalise};
use crate::{compare, drop, output, run, verdict, EXAMPLES};
use std::env::consts::EXE_SUFFIX;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// What a parity test runs: a program, or one of its controls.
pub enum Variant<'a> {
    /// The program itself (with the dropper where the environment asks for the drop mode).
    Program,
    /// A control of `CONTROLS`: both sides as the variant `name`; on a GPU both must print
    /// `FAILED: <fails_with>`.
    Control { name: &'a str, fails_with: &'a str },
    /// An argument control of `ARGUMENT_CONTROLS`: the Rust side alone as the variant `name`;
    /// where traces are recorded, their comparison must fail at a call of `entry` naming the
    /// argument `path`.
    Arguments {
        name: &'a str,
        entry: &'a str,
        path: &'a str,
    },
}

/// Runs the twin and the example `name` as `variant` says and compares them; panics with every
/// difference found.
pub fn check(name: &str, variant: Variant) {
    let Some(test) = Test::prepare(name, variant) else {
        return;
    };
    let (c, rust) = test.run_sides();
    // (The C library's `%p`: mingw-w64's is not glibc's, which the examples print everywhere.)
    let c_stdout = if cfg!(windows) {
        output::msvcrt_pointers(&c.stdout)
    } else {
        c.stdout.clone()
    };
    let c_lines = normalise(&c_stdout);
    let rust_lines = normalise(&rust.stdout);
    let sides = [(&c, &c_lines[..]), (&rust, &rust_lines[..])];
    let line = match &test.drop_mode {
        Some(mode) if test.dropping_one() => test.judge_drop(mode, sides),
        _ => test.judge(sides),
    };
    println!("{line}");
}

/// One parity test, ready to run: what it runs, how its line names it, where its sides write.
struct Test<'a> {
    name: &'a str,
    variant: Variant<'a>,
    /// Whether the program prints `Result = PASS|FAIL`.
    checks_results: bool,
    /// The control it runs as (`CUDA_GROUP_CONTROL`), where it does.
    control: Option<&'a str>,
    /// How its line names it: `launch` or `launch, control plain_launch`.
    label: String,
    twin: PathBuf,
    /// The Rust example, or its captured stdout.
    example: PathBuf,
    /// `CUDA_EXAMPLES_OUTPUT_DIR`, where the Rust side's output was captured before.
    captured: Option<PathBuf>,
    drop_mode: Option<drop::Mode>,
    /// The sides' trace folders (C, Rust), where the recorder records.
    traces: Option<[PathBuf; 2]>,
    /// The sides' `.drops` folders (C, Rust), in the drop mode.
    drops: Option<[PathBuf; 2]>,
}

impl<'a> Test<'a> {
    /// The test of the program `name` as `variant`; `None` where it is not run (said why).
    fn prepare(name: &'a str, variant: Variant<'a>) -> Option<Test<'a>> {
        let checks_results = EXAMPLES
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, checks)| *checks)
            .or(GROUP_PROGRAMS.contains(&name).then_some(true))
            .expect("the example is in EXAMPLES or GROUP_PROGRAMS");
        let drop_mode = match variant {
            Variant::Program => drop::mode().unwrap_or_else(|e| panic!("{name}: {e}")),
            _ => None,
        };
        let control = match variant {
            Variant::Program => None,
            Variant::Control { name, .. } | Variant::Arguments { name, .. } => Some(name),
        };
        let kind = match variant {
            Variant::Arguments { .. } => "argument control",
            _ => "control",
        };
        let dropped_as = drop_mode.as_ref().and_then(|d| d.control.as_deref());
        // The output folders are named as the line: `launch` or `launch-plain_launch`.
        let (label, run_name) = match control.or(dropped_as) {
            Some(c) => (format!("{name}, {kind} {c}"), format!("{name}-{c}")),
            None => (name.to_string(), name.to_string()),
        };
        let captured = std::env::var_os("CUDA_EXAMPLES_OUTPUT_DIR").map(PathBuf::from);
        if captured.is_some() && control.is_some() {
            println!(
                "{label}: not run (CUDA_EXAMPLES_OUTPUT_DIR holds the programs' own runs only)"
            );
            return None;
        }
        assert!(
            captured.is_none() || drop_mode.is_none(),
            "{label}: the drop mode runs the programs, which CUDA_EXAMPLES_OUTPUT_DIR says not to"
        );
        let (twin, example) = programs(name, &label, captured.as_deref());
        let mut test = Test {
            name,
            variant,
            checks_results,
            control,
            label,
            twin,
            example,
            captured,
            drop_mode,
            traces: None,
            drops: None,
        };
        // With a call dropped, the runs are judged by their verdicts, and not traced.
        if test.captured.is_none() && !test.dropping_one() {
            test.traces = test.or_fail(compare::trace_dirs(&run_name));
        }
        if let Some(mode) = &test.drop_mode {
            test.drops = Some(test.or_fail(mode.dirs(&run_name)));
        }
        Some(test)
    }

    /// What `result` holds, else a panic with its error, labelled.
    fn or_fail<T>(&self, result: Result<T, String>) -> T {
        result.unwrap_or_else(|e| panic!("{}: {e}", self.label))
    }

    /// Whether it runs with one call dropped (not the drop mode's list run).
    fn dropping_one(&self) -> bool {
        (self.drop_mode.as_ref()).is_some_and(|d| matches!(d.spec, drop::Spec::Call { .. }))
    }

    /// The environment of the side `side` (0: C, 1: Rust) beyond the runner's own.
    fn env(&self, side: usize) -> Vec<(&str, &OsStr)> {
        let mut env = Vec::new();
        let as_control = match self.variant {
            Variant::Program => false,
            Variant::Control { .. } => true,
            Variant::Arguments { .. } => side == 1,
        };
        if let Some(c) = self.control.filter(|_| as_control) {
            env.push(("CUDA_GROUP_CONTROL", OsStr::new(c)));
        }
        if let Some(dirs) = &self.traces {
            env.push(("CUDA_CALLS_DIR", dirs[side].as_os_str()));
        }
        if let (Some(mode), Some(dirs)) = (&self.drop_mode, &self.drops) {
            env.extend(mode.env(&dirs[side]));
        }
        env
    }

    /// Runs both sides (the Rust side's captured output read instead, where it was): the C twin,
    /// then the Rust example. A run stopped at the time limit fails the test but with a call
    /// dropped, where it is a verdict.
    fn run_sides(&self) -> (run::Run, run::Run) {
        let kernels = kernels_dir();
        let args = [kernels.as_os_str()];
        type Start = fn(&str, &Path, &[&OsStr], &[(&str, &OsStr)]) -> Result<run::Run, String>;
        let start: Start = match self.dropping_one() {
            true => run::run_bounded,
            false => run::run_with,
        };
        let c = self.or_fail(start("C twin", &self.twin, &args, &self.env(0)));
        let rust = match &self.captured {
            Some(dir) => run::read_captured(dir, self.name),
            None => start("Rust example", &self.example, &args, &self.env(1)),
        };
        (c, self.or_fail(rust))
    }

    /// The line of a run with a call dropped (module `drop`), or a panic saying why it fails.
    fn judge_drop(&self, mode: &drop::Mode, sides: [(&run::Run, &[String]); 2]) -> String {
        let dirs = self.drops.as_ref().expect("the drop mode has its folders");
        let drops = dirs.each_ref().map(|dir| self.read_drops(dir));
        let [c, rust] = [0, 1].map(|k| drop::Side {
            run: sides[k].0,
            lines: sides[k].1,
            drops: &drops[k],
        });
        let group = GROUP_PROGRAMS.contains(&self.name);
        drop::judge_call(&self.label, &mode.spec, group, self.checks_results, c, rust)
            .unwrap_or_else(|e| panic!("{e}"))
    }

    /// The `.drops` files of the folder `dir`.
    fn read_drops(&self, dir: &Path) -> Vec<drop::Drops> {
        self.or_fail(drop::read(dir))
    }

    /// The parity line (and in the drop mode's list run, the drops line after it) of the two
    /// sides' runs and normalised outputs, or a panic with every difference found.
    fn judge(&self, [(c, c_lines), (rust, rust_lines)]: [(&run::Run, &[String]); 2]) -> String {
        let mut problems = Vec::new();
        if c_lines != rust_lines {
            problems.push(format!(
                "stdout differs after normalisation (- C twin, + Rust example):\n{}",
                diff(c_lines, rust_lines, 40)
            ));
        }
        if c.status.code() != rust.status.code() || c.status.code().is_none() {
            problems.push(format!(
                "exit status: C twin {}, Rust example {}",
                c.describe_status(),
                rust.describe_status()
            ));
        }
        let required = verdict::required(self.name);
        let sides = [("C twin", c, c_lines), ("Rust example", rust, rust_lines)];
        required.check(
            self.name,
            &self.variant,
            self.checks_results,
            sides,
            &mut problems,
        );
        let stopped = [c, rust].iter().any(|r| r.status.code() == Some(127));
        let must_load = verdict::gpu_expected() && !stopped;
        let trace =
            trace_line(&self.variant, self.traces.as_ref(), must_load).unwrap_or_else(|e| {
                problems.push(e);
                String::new()
            });
        let drops = self.drops.as_ref().and_then(|dirs| {
            let [c_drops, rust_drops] = dirs.each_ref().map(|dir| self.read_drops(dir));
            (drop::compare_listings(&self.label, &c_drops, &rust_drops))
                .map_err(|e| problems.push(e))
                .ok()
        });
        if !problems.is_empty() {
            let stderr = |who: &str, r: &run::Run| {
                if r.stderr.is_empty() {
                    String::new()
                } else {
                    format!("\n{who} stderr:\n{}", r.stderr)
                }
            };
            panic!(
                "{}: parity FAILED (C twin {}, Rust example {})\n{}{}{}",
                self.label,
                self.twin.display(),
                self.example.display(),
                problems.join("\n"),
                stderr("C twin", c),
                stderr("Rust example", rust)
            );
        }
        let label = &self.label;
        let line = match verdict::missing_symbol(c, rust) {
            Some(symbol) => format!(
                "{label}: parity ok (both stop at start: the driver library lacks {symbol}, which \
                 this header's C spelling binds; exit code 127){trace}"
            ),
            None => format!(
                "{label}: parity ok ({} lines, {}){}{trace}",
                rust_lines.len(),
                run::describe_status(rust.status),
                required.results(&self.variant, self.checks_results, rust_lines)
            ),
        };
        match drops {
            Some(drops) => format!("{line}\n{drops}"),
            None => line,
        }
    }
}

/// The C twin and the Rust example (or its captured stdout) of the program `name`; panics,
/// naming what is missing, where one of them or the kernels folder is.
fn programs(name: &str, label: &str, captured: Option<&Path>) -> (PathBuf, PathBuf) {
    let twin = twin_dir().join(format!("{name}{EXE_SUFFIX}"));
    let example = match captured {
        Some(dir) => dir.join(format!("{name}.stdout")),
        None => examples_dir()
            .unwrap_or_else(|e| panic!("{label}: {e}"))
            .join(format!("{name}{EXE_SUFFIX}")),
    };
    let kernels = kernels_dir();
    let mut missing = Vec::new();
    if !twin.is_file() {
        missing.push(format!(
            "the C twin {} (built by the tests' build script from examples/{name}.cpp; \
             CUDA_C_TWIN_DIR sets the folder)",
            twin.display()
        ));
    }
    if !example.is_file() {
        missing.push(format!(
            "the example {} (`cargo build --example {name}`; CUDA_EXAMPLES_DIR sets the folder)",
            example.display()
        ));
    }
    if !kernels.is_dir() {
        missing.push(format!(
            "the kernels folder {} (CUDA_KERNELS_DIR sets it)",
            kernels.display()
        ));
    }
    assert!(
        missing.is_empty(),
        "{label}: missing {}",
        missing.join("; ")
    );
    (twin, example)
}

/// The parity line's part that says what the traces in `dirs` (C, Rust; `None` where none were
/// recorded) showed, or why the test fails: a difference, or for an argument control, a
/// comparison that did not fail at its argument. Where the recorder `must_load` (on a GPU), a side
/// without a process that loaded it fails.
fn trace_line(
    variant: &Variant,
    dirs: Option<&[PathBuf; 2]>,
    must_load: bool,
) -> Result<String, String> {
    let Some([c_dir, rust_dir]) = dirs else {
        return Ok(match variant {
            Variant::Arguments { .. } => "; no trace here (no recorder)".to_string(),
            _ => String::new(),
        });
    };
    let compared = compare::compare_traces(c_dir, rust_dir, must_load);
    match variant {
        Variant::Arguments { entry, path, .. } => match compared {
            Ok(compare::Traces::NotLoaded) => {
                Ok("; no trace here (no process loaded the recorder)".to_string())
            }
            compared => compare::failed_at(compared, entry, path)
                .map(|line| format!("; the trace differs as the control must: {line}")),
        },
        _ => (compared.map(|traces| format!("; trace: {traces}"))).map_err(|e| e.to_string()),
    }
}
