//! The recorder's logs of a GPU run (`ci/coverage/recorder.c`): which driver functions each
//! process called and what each returned, sorted by who called; the calls' arguments are not
//! read (coverage counts functions). `OUT/calls/<run>/` holds a log per process, `<pid>.calls`,
//! in a side's folder for the parity runs (`<program>-rust/`, `<program>-<control>-c/`, ...);
//! their format: docs/DESIGN.md, "Coverage", and `# cupti-error <status> <text>` where the
//! recorder's CUPTI subscription failed.

use crate::base::{files, Result};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// One call: the driver entry's name as the recorder saw it (`cuMemAlloc_v2`) and its result.
pub type Call = (String, u32);

/// A program of one parity run: the program, the build it ran in (the run folder's name after
/// `examples_parity-`), and the control it ran as, if any.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub struct Program {
    pub name: String,
    pub build: String,
    pub control: Option<String>,
}

/// The calls of one program of a parity run: the Rust side's and the C twin's.
#[derive(Default)]
pub struct Sides {
    pub rust: BTreeSet<Call>,
    pub c: BTreeSet<Call>,
}

/// Everything the logs hold.
#[derive(Default)]
pub struct Calls {
    /// The workspace's own programs, each to its two sides.
    pub own: BTreeMap<Program, Sides>,
    /// The suites without twins: the workspace's OpenGL and EGL interop tests (`gl_interop`,
    /// `egl_interop`) and the dependents' suites on this crate (`rustacuda`, `cust`, `cudarc`),
    /// each to its calls.
    pub dependents: BTreeMap<String, BTreeSet<Call>>,
    /// Processes whose driver did not load the recorder's CUPTI subscription, with its error.
    pub errors: Vec<String>,
    /// How many process logs were read.
    pub processes: usize,
    /// How many calls they recorded.
    pub calls: u64,
}

/// What one process's log says: the path of its program, each (entry, result) it recorded, how
/// many calls, and the `# cupti-error` lines' text.
#[derive(Default)]
struct Process {
    exe: String,
    calls: BTreeSet<Call>,
    count: u64,
    errors: Vec<String>,
}

/// Reads `logs/calls/`.
pub fn read(logs: &Path) -> Result<Calls> {
    let dir = logs.join("calls");
    let runs = files::sorted(&dir, "")?;
    if runs.is_empty() {
        let why = "run a bundle that has lib/libcuda-calls.so";
        return Err(format!("{} holds no recorded runs: {why}", dir.display()).into());
    }
    let mut calls = Calls::default();
    for run in runs {
        let run_name = files::name(&run);
        for log in logs_under(&run)? {
            let process =
                parse(&files::read(&log)?).map_err(|e| format!("{}: {e}", log.display()))?;
            calls.processes += 1;
            calls.calls += process.count;
            for error in &process.errors {
                calls.errors.push(format!("{}: {error}", process.exe));
            }
            // The side's folder, where the log is not in the run's own.
            let side_folder = (log.parent().filter(|p| *p != run)).map(files::name);
            file(&mut calls, &run_name, side_folder.as_deref(), process)
                .map_err(|e| format!("{}: {e}", log.display()))?;
        }
    }
    Ok(calls)
}

/// The process logs (`*.calls`) under the folder `dir`, at any depth, sorted.
fn logs_under(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut logs = Vec::new();
    for path in files::sorted(dir, "")? {
        if path.is_dir() {
            logs.extend(logs_under(&path)?);
        } else if path.extension().is_some_and(|e| e == "calls") {
            logs.push(path);
        }
    }
    Ok(logs)
}

/// One log's text.
fn parse(text: &str) -> std::result::Result<Process, String> {
    let mut process = Process::default();
    for (n, line) in text.lines().enumerate() {
        if let Some(path) = line.strip_prefix("# exe ") {
            process.exe = path.to_string();
        } else if let Some(error) = line.strip_prefix("# cupti-error ") {
            process.errors.push(error.to_string());
        } else if !line.starts_with('#') {
            // `<thread> <entry> <result> <count> <arguments>`, the arguments being the rest of
            // the line (a log of a recorder that did not record them ends at the count).
            let fields: Vec<&str> = line.splitn(5, ' ').collect();
            let call = match fields[..] {
                [thread, entry, result, count, ..] if thread.parse::<u32>().is_ok() => {
                    let count = count.parse::<u64>().ok().filter(|c| *c > 0);
                    let entry = Some(entry).filter(|e| !e.is_empty());
                    entry.zip(result.parse::<u32>().ok()).zip(count)
                }
                _ => None,
            };
            let Some(((entry, result), count)) = call else {
                let n = n + 1;
                return Err(format!(
                    "line {n}: `{line}` is not `<thread> <entry> <result> <count> <arguments>`"
                ));
            };
            process.calls.insert((entry.to_string(), result));
            process.count += count;
        }
    }
    if process.exe.is_empty() {
        return Err("no `# exe` line: not a log of the recorder".into());
    }
    Ok(process)
}

/// Files the calls of `process`, whose log is in the run `run`, in its side's folder
/// `side_folder` if it has one, under who made them.
fn file(calls: &mut Calls, run: &str, side_folder: Option<&str>, process: Process) -> Result {
    let Some(build) = run.strip_prefix("examples_parity-") else {
        let suite = run.split('-').next().unwrap_or(run).to_string();
        calls
            .dependents
            .entry(suite)
            .or_default()
            .extend(process.calls);
        return Ok(());
    };
    // examples-<build>/<program> or c-twins-<build>/<program>; the test binary itself is neither.
    let path = Path::new(&process.exe);
    let bin_folder = path.parent().map(files::name).unwrap_or_default();
    let name = files::name(path);
    let rust = match bin_folder {
        f if f.starts_with("examples-") => true,
        f if f.starts_with("c-twins-") => false,
        _ => return Ok(()),
    };
    let control = side_folder.map(|f| control(f, &name, rust));
    let program = Program {
        name: name.clone(),
        build: build.to_string(),
        control: control.transpose()?.flatten(),
    };
    let sides = calls.own.entry(program).or_default();
    match rust {
        true => sides.rust.extend(process.calls),
        false => sides.c.extend(process.calls),
    }
    Ok(())
}

/// The control that the side's folder `folder` names for the program `name` (`<name>-rust`:
/// none, `<name>-<control>-rust`: `<control>`); fails where the folder is another program's or
/// the other side's.
fn control(folder: &str, name: &str, rust: bool) -> Result<Option<String>> {
    let side = if rust { "-rust" } else { "-c" };
    let mismatch = || {
        format!(
            "its program `{name}` ({} side) is not the folder `{folder}`'s (`{name}{side}` or \
             `{name}-<control>{side}`)",
            if rust { "Rust" } else { "C" }
        )
    };
    let stem = folder.strip_suffix(side).ok_or_else(mismatch)?;
    if stem == name {
        return Ok(None);
    }
    match stem.strip_prefix(name).and_then(|s| s.strip_prefix('-')) {
        Some(control) if !control.is_empty() => Ok(Some(control.to_string())),
        _ => Err(mismatch().into()),
    }
}

#[cfg(test)]
mod tests {
    use super::{read, Program};
    use crate::base::scratch::Scratch;
    use std::path::Path;

    /// Writes under `out/calls/` each log (its path, its program, its lines).
    fn logs(out: &Path, logs: &[(&str, &str, &str)]) {
        for (path, exe, calls) in logs {
            let path = out.join("calls").join(path);
            fs_err::create_dir_all(path.parent().unwrap()).unwrap();
            let text = format!("# exe {exe}\n# pid 7 parent 1\n# injected\n{calls}");
            fs_err::write(path, text).unwrap();
        }
    }

    #[test]
    fn nested_side_folders_are_read() {
        let out = Scratch::new("coverage-calls").unwrap();
        let out = out.path();
        let (rust, c) = (
            "/b/examples-99000-dyn/launch",
            "/b/c-twins-99000-dyn/launch",
        );
        logs(
            out,
            &[
                (
                    "examples_parity-99000-dyn/launch-rust/10.calls",
                    rust,
                    "0 cuMemAlloc_v2 0 3 dptr==>mem#1+0 bytesize=4\n1 cuMemAlloc_v2 0 1 -\n\
                     0 cuMemFree_v2 0 3 dptr=mem#1+0\n",
                ),
                (
                    "examples_parity-99000-dyn/launch-c/11.calls",
                    c,
                    "0 cuMemAlloc_v2 0 4 dptr==>mem#1+0 bytesize=4\n0 cuMemFree_v2 1 1 dptr=null\n",
                ),
                (
                    "examples_parity-99000-dyn/launch-plain-c/12.calls",
                    c,
                    "0 cuLaunchKernel 0 2 ?undescribed\n# cupti-error 1 no\n",
                ),
                ("cust-ours-99000/20.calls", "/d/cust-test", "0 cuInit 0 1\n"),
            ],
        );
        let calls = read(out).unwrap();
        assert_eq!(calls.processes, 4);
        assert_eq!(calls.calls, 3 + 1 + 3 + 4 + 1 + 2 + 1);
        let program = |control: Option<&str>| Program {
            name: "launch".into(),
            build: "99000-dyn".into(),
            control: control.map(String::from),
        };
        let keys: Vec<&Program> = calls.own.keys().collect();
        assert_eq!(keys, [&program(None), &program(Some("plain"))]);
        let sides = &calls.own[&program(None)];
        let rust_calls: Vec<(&str, u32)> =
            sides.rust.iter().map(|(e, r)| (e.as_str(), *r)).collect();
        assert_eq!(rust_calls, [("cuMemAlloc_v2", 0), ("cuMemFree_v2", 0)]);
        assert_eq!(sides.c.len(), 2);
        assert!(calls.own[&program(Some("plain"))].rust.is_empty());
        assert_eq!(calls.dependents["cust"].len(), 1);
        assert_eq!(calls.errors, ["/b/c-twins-99000-dyn/launch: 1 no"]);
    }

    #[test]
    fn a_bad_line_or_folder_is_an_error_naming_the_log() {
        let out = Scratch::new("coverage-bad").unwrap();
        let out = out.path();
        let launch = "/b/examples-99000/launch";
        let bad_line = (
            "examples_parity-99000/launch-rust/1.calls",
            launch,
            "cuMemAlloc_v2 0\n",
        );
        logs(out, &[bad_line]);
        let error = read(out).err().unwrap().to_string();
        assert!(
            error.contains("1.calls: line 4: `cuMemAlloc_v2 0`"),
            "{error}"
        );

        let out = Scratch::new("coverage-folder").unwrap();
        let out = out.path();
        logs(out, &[("examples_parity-99000/mem-c/1.calls", launch, "")]);
        let error = read(out).err().unwrap().to_string();
        assert!(
            error.contains("its program `launch` (Rust side) is not the folder `mem-c`'s"),
            "{error}"
        );
    }
}
