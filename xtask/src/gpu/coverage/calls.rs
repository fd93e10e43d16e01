//! The recorder's logs of a GPU run (`OUT/calls/<run>/<pid>.calls`, `ci/coverage/recorder.c`):
//! which driver functions each process called and what each returned, sorted by who called.

use crate::base::{files, Result};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// One call: the driver entry's name as the recorder saw it (`cuMemAlloc_v2`) and its result.
pub type Call = (String, u32);

/// The calls of one run of the parity test: per program, the Rust side's and the C twin's.
#[derive(Default)]
pub struct Sides {
    pub rust: BTreeSet<Call>,
    pub c: BTreeSet<Call>,
}

/// Everything the logs hold.
#[derive(Default)]
pub struct Calls {
    /// The workspace's own programs: (program, build tag) to its two sides.
    pub own: BTreeMap<(String, String), Sides>,
    /// The suites without twins: the workspace's OpenGL interop test (`gl_interop`) and the
    /// dependents' suites on this crate (`rustacuda`, `cust`, `cudarc`), each to its calls.
    pub dependents: BTreeMap<String, BTreeSet<Call>>,
    /// Processes whose driver did not load the recorder's CUPTI subscription, with its error.
    pub errors: Vec<String>,
    /// How many process logs were read.
    pub processes: usize,
}

/// Reads `logs/calls/`.
pub fn read(logs: &Path) -> Result<Calls> {
    let dir = logs.join("calls");
    let runs = files::sorted(&dir, "")?;
    if runs.is_empty() {
        return Err(format!(
            "{} holds no recorded runs: run a bundle that has lib/libcuda-calls.so",
            dir.display()
        )
        .into());
    }
    let mut calls = Calls::default();
    for run in runs {
        let run_name = files::name(&run);
        for log in files::sorted(&run, "")? {
            let text = files::read(&log)?;
            calls.processes += 1;
            let mut exe = "";
            let mut seen = BTreeSet::new();
            for line in text.lines() {
                if let Some(path) = line.strip_prefix("# exe ") {
                    exe = path;
                } else if let Some(error) = line.strip_prefix("# cupti-error ") {
                    calls.errors.push(format!("{exe}: {error}"));
                } else if let Some((name, result)) = line.split_once(' ') {
                    if let (false, Ok(result)) = (name.starts_with('#'), result.parse()) {
                        seen.insert((name.to_string(), result));
                    }
                }
            }
            file(&mut calls, &run_name, exe, seen);
        }
    }
    Ok(calls)
}

/// Files the calls `seen` of the process `exe` of the run `run` under who made them.
fn file(calls: &mut Calls, run: &str, exe: &str, seen: BTreeSet<Call>) {
    if let Some(tag) = run.strip_prefix("examples_parity-") {
        // examples-<tag>/<program> or c-twins-<tag>/<program>; the test binary itself is neither.
        let path = Path::new(exe);
        let folder = path
            .parent()
            .and_then(|p| p.file_name())
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let program = files::name(path);
        let sides = calls.own.entry((program, tag.to_string())).or_default();
        if folder.starts_with("examples-") {
            sides.rust.extend(seen);
        } else if folder.starts_with("c-twins-") {
            sides.c.extend(seen);
        }
    } else {
        let suite = run.split('-').next().unwrap_or(run).to_string();
        calls.dependents.entry(suite).or_default().extend(seen);
    }
}
