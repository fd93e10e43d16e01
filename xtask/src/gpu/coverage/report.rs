//! The report's text: a summary per group, the groups excluded and why, a table per group with a
//! row per function, the functions that returned only an error and why, and the calls one side
//! of a program made that the other did not.

use super::answers::{self, ErrorOnly};
use super::calls::{Call, Calls};
use super::headers::{Function, Headers};
use crate::base::deps::ptx_tools::parse_isa;
use crate::base::files;
use crate::base::versions::dotted;
use crate::base::Result;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;

/// The groups no program calls, a line each: the groups, and after `: ` why (each function still
/// proven by the C compiler).
const EXCLUDED: &str = "\
    CUDA_MULTICAST: never called on the GPU machines: cuMulticastCreate can put a shared host's \
    GPUs out of service for a day or more\n\
    CUDA_CLIQUE CUDA_LOGICAL_ENDPOINT CUDA_FABRIC_COPY: needs an NVLink fabric (multi-node \
    NVLink, IMEX) that the GPU machines lack\n\
    CUDA_VDPAU: needs a VDPAU device, which needs an X display the GPU machines lack";

/// The functions the GPU machines' driver cannot serve, as [`EXCLUDED`] (each still proven by the
/// C compiler): a platform's own, or one the x86-64 driver lacks, which a test looks up and is
/// waived on.
const NOT_ON_THIS_MACHINE: &str = "\
    cuWGLGetDevice: Windows only (WGL): its declaration and spelling are proven by the C compiler \
    for the Windows target\n\
    cuEventCreateFromEGLSync: not in the x86-64 driver (Jetson's has it): egl_interop looks it \
    up, cuGetProcAddress finds no such symbol, and the test is waived";

/// The reason of `name` in `table`, as [`answers::named`] reads it.
fn reason_of(table: &'static str, name: &str) -> Option<&'static str> {
    answers::named(table)
        .find(|(n, _)| *n == name)
        .map(|(_, why)| why)
}

/// Where NVIDIA documents a group (Doxygen doubles its underscores).
const REFERENCE: &str = "https://docs.nvidia.com/cuda/cuda-driver-api";

/// The machine of the run, from its logs.
pub struct Machine {
    pub date: String,
    pub gpus: Vec<String>,
    pub driver: String,
    /// The driver's CUDA version, as `CUDA_VERSION` spells one (major × 1000 + minor × 10).
    pub cuda: u32,
    /// The parity verdicts of the runs without the recorder (`<run>-without-tools.log`) of the
    /// programs the driver serves only without a tool, each `` `<run>`: <verdict> ``.
    pub without_tools: Vec<String>,
}

impl Machine {
    /// From `gpus.csv`, `nvidia-smi.txt` and `date` of the run's logs `out`.
    pub fn read(out: &Path) -> Result<Machine> {
        let read = |name: &str| files::read(&out.join(name));
        let csv = read("gpus.csv")?;
        // index, name, driver_version, ...
        let rows: Vec<Vec<String>> = (csv.lines().skip(1))
            .map(|l| l.split(',').map(|f| f.trim().to_string()).collect())
            .filter(|f: &Vec<String>| f.len() >= 3)
            .collect();
        let smi = read("nvidia-smi.txt")?;
        let cuda = (smi.split("CUDA Version:").nth(1))
            .and_then(|rest| parse_isa(rest.split_whitespace().next()?))
            .map(|(major, minor)| major * 1000 + minor * 10)
            .ok_or("nvidia-smi.txt names no `CUDA Version:`")?;
        let mut without_tools = Vec::new();
        for log in files::named(out, "", "-without-tools.log")? {
            let (name, text) = (files::name(&log), files::read(&log)?);
            let run = name.trim_end_matches("-without-tools.log");
            let verdict = text.lines().find(|l| l.contains(": parity "));
            let verdict = verdict.unwrap_or("no parity verdict in its log");
            without_tools.push(format!("`{run}`: {verdict}"));
        }
        let driver = rows.first().map(|r| r[2].clone());
        Ok(Machine {
            without_tools,
            date: read("date")?.trim().to_string(),
            gpus: rows.iter().map(|r| r[1].clone()).collect(),
            driver: driver.ok_or("gpus.csv lists no GPU")?,
            cuda,
        })
    }
}

/// The index in a [`Row`] of the own programs' calls.
const OWN: usize = 0;
/// The index in a [`Row`] of the suites' calls.
const SUITES: usize = 1;

/// What one function got: at [`OWN`], own program to the results both its sides got; at
/// [`SUITES`], suite to its results.
#[derive(Default)]
struct Row {
    by: [BTreeMap<String, BTreeSet<String>>; 2],
    /// Whether one of `by[OWN]`, of `by[SUITES]` is a success.
    succeeded: [bool; 2],
}

/// What a function's calls count as.
#[derive(Clone, Copy, PartialEq)]
enum Verdict {
    /// A call succeeded: on both sides of an own program, or in a suite.
    Succeeded,
    /// Called, and every call returned an error.
    ErrorOnly,
    /// No call counts: none was made, or only by one side of a program.
    NotCounted,
}

impl Row {
    /// What the calls of a function that got `row` (`None`: no row) count as.
    fn verdict(row: Option<&Row>) -> Verdict {
        match row {
            Some(r) if r.succeeded.contains(&true) => Verdict::Succeeded,
            Some(r) if r.by.iter().any(|by| !by.is_empty()) => Verdict::ErrorOnly,
            _ => Verdict::NotCounted,
        }
    }

    /// Every result it got.
    fn results(&self) -> impl Iterator<Item = &String> {
        self.by.iter().flat_map(|by| by.values()).flatten()
    }
}

/// The report's text; fails where a function that returned only an error has no reason in
/// `reasons` that names its answer, or a reason names a function that did not.
pub fn render(
    headers: &Headers,
    calls: &Calls,
    machine: &Machine,
    reasons: &[ErrorOnly],
) -> Result<String> {
    let function = |entry: &str| headers.function_of(entry).map(|f| f.name.as_str());
    let every_call = (calls.own.values())
        .flat_map(|sides| sides.rust.iter().chain(&sides.c))
        .chain(calls.dependents.values().flatten());
    let undeclared: BTreeSet<&str> = (every_call.map(|(entry, _)| entry.as_str()))
        .filter(|entry| function(entry).is_none())
        .collect();
    let mut rows: BTreeMap<&str, Row> = BTreeMap::new();
    // Files `call` by `who` (at `side`: OWN or SUITES) in its function's row.
    let mut add = |side: usize, who: &str, (entry, code): &Call| {
        if let Some(f) = function(entry) {
            let row = rows.entry(f).or_default();
            let result = headers.result(*code);
            row.succeeded[side] |= answers::succeeded(f, &result);
            row.by[side]
                .entry(who.to_string())
                .or_default()
                .insert(result);
        }
    };
    let mut one_side: Vec<(String, &str, &str, &Call)> = Vec::new();
    for (program, sides) in &calls.own {
        for call in sides.rust.intersection(&sides.c) {
            add(OWN, &program.name, call);
        }
        let label = match &program.control {
            Some(control) => format!("{} (control {control})", program.name),
            None => program.name.clone(),
        };
        for (side, mine, other) in [
            ("Rust", &sides.rust, &sides.c),
            ("C", &sides.c, &sides.rust),
        ] {
            for call in mine.difference(other) {
                one_side.push((label.clone(), &program.build, side, call));
            }
        }
    }
    for (suite, seen) in &calls.dependents {
        for call in seen {
            add(SUITES, suite, call);
        }
    }
    // The functions of `one_side`'s calls.
    let one_sided: BTreeSet<&str> = one_side.iter().filter_map(|c| function(&c.3 .0)).collect();
    let verdict = |f: &Function| Row::verdict(rows.get(f.name.as_str()));
    let error_only: BTreeMap<&str, BTreeSet<String>> = (rows.iter())
        .filter(|(_, row)| Row::verdict(Some(row)) == Verdict::ErrorOnly)
        .map(|(f, row)| (*f, row.results().cloned().collect()))
        .collect();
    let reasons = answers::reasons(&error_only, reasons)?;

    let mut groups: Vec<(&str, &str)> = Vec::new();
    for f in &headers.functions {
        if !groups.iter().any(|(g, _)| *g == f.group) {
            groups.push((&f.group, &f.title));
        }
    }
    let excluded = |group: &str| reason_of(EXCLUDED, group);
    // Of a group (`None`: of all): declared, succeeded in own programs, in suites, in either,
    // only an error, not counted.
    let figures = |group: Option<&str>| {
        let functions: Vec<&Function> = (headers.functions.iter())
            .filter(|f| group.is_none_or(|g| f.group == g))
            .collect();
        let row = |f: &&Function| rows.get(f.name.as_str());
        let count =
            |pick: &dyn Fn(&&Function) -> bool| functions.iter().filter(|f| pick(f)).count();
        [
            functions.len(),
            count(&|f| row(f).is_some_and(|r| r.succeeded[OWN])),
            count(&|f| row(f).is_some_and(|r| r.succeeded[SUITES])),
            count(&|f| verdict(f) == Verdict::Succeeded),
            count(&|f| verdict(f) == Verdict::ErrorOnly),
            count(&|f| verdict(f) == Verdict::NotCounted),
        ]
    };

    let suites = Vec::from_iter(calls.dependents.keys().map(|s| format!("`{s}`")));
    let statuses = (answers::STATUSES.iter()).map(|(f, status)| format!("`{status}` from `{f}`"));
    let (newest, cuda) = (dotted(headers.newest), dotted(machine.cuda));
    let [declared, own, dependents, either, errors, none] = figures(None);
    // The section of the functions that returned only an error, and its link.
    let section = "Functions that returned only an error";
    let anchor = "#functions-that-returned-only-an-error";
    let mut out = format!(
        "# Driver API coverage on a GPU\n\n\
         Generated by `cargo xtask coverage` from the GPU bundle's run of {} on {} (driver {}, \
         CUDA {cuda}), which recorded {} calls in {} processes; do not edit. `cargo xtask coverage \
         --check` (a CI step) holds its rows to the functions the CUDA {newest} headers declare.\n\n\
         Each row is a function of the CUDA {newest} headers (`cuda.h`, `cudaGL.h`, `cudaEGL.h`, \
         `cudaVDPAU.h`, `cudaProfiler.h`), in the header's Doxygen group. The calls were recorded \
         on the GPU by CUPTI's driver API callbacks, whatever way the program reached the driver \
         (linked, `dynamic-loading`, the table); see docs/DESIGN.md, \"Coverage\". **Own \
         programs**: the workspace's examples and group programs, each shown with the results \
         it and its C twin, in the same build, both got (a control of the program, a \
         deliberately wrong variant of it, is compared with its own twin and shown under the \
         program's name). **Tests and dependents** (no twins), the suites this run recorded: \
         {suites} (`gl_interop`, `egl_interop`: the workspace's OpenGL and EGL interop tests, \
         through headless EGL; the others: a dependent's tests and examples on this crate). A \
         function of a header newer than the driver (CUDA {cuda}) is not in it: a program \
         reaches it only through `cuGetProcAddress`, which finds none.\n\n\
         **What counts.** A function counts as called where a call of it succeeded: returned \
         `CUDA_SUCCESS`, or the status the function exists to return ({statuses}), on both \
         sides of an own program or in a suite. A function whose every call returned an error \
         is not counted: it is listed under [{section}]({anchor}) with the driver's answer and \
         why that answer is the one expected on this machine.\n\n\
         **{either} of the {declared} functions were called and succeeded** ({own} in the own \
         programs, {dependents} in the tests and dependents); {errors} more returned only an \
         error, the one expected here; the other {none} were not counted (each row says why).\n\n",
        machine.date,
        machine.gpus.join(", "),
        machine.driver,
        calls.calls,
        calls.processes,
        suites = suites.join(", "),
        statuses = Vec::from_iter(statuses).join(", "),
    );
    if !machine.without_tools.is_empty() {
        out.push_str(
            "**Without the recorder.** The driver answers `CUDA_ERROR_NOT_SUPPORTED` to every \
             `cuCheckpointProcess*` call but `cuCheckpointProcessGetRestoreThreadId` from a \
             process a tool is attached to, the recorder included: for the checkpoint program the \
             results below are that refusal, the same on both sides. The same run ran its parity \
             again without the recorder:\n\n",
        );
        for verdict in &machine.without_tools {
            let _ = writeln!(out, "- {verdict}");
        }
        out.push('\n');
    }
    out.push_str(
        "## Summary\n\n| group | declared | succeeded: own programs | succeeded: tests and \
         dependents | succeeded: either | only an error | not counted |\n\
         |---|---|---|---|---|---|---|\n",
    );
    for (group, title) in &groups {
        let [declared, own, dependents, either, errors, none] = figures(Some(group));
        let mark = if excluded(group).is_some() {
            " (excluded)"
        } else {
            ""
        };
        let group = link(group, title);
        let _ = writeln!(
            out,
            "| {group}{mark} | {declared} | {own} | {dependents} | {either} | {errors} | {none} |"
        );
    }
    let _ = write!(
        out,
        "| **all** | **{declared}** | **{own}** | **{dependents}** | **{either}** | **{errors}** \
         | **{none}** |\n\n## Excluded groups\n\nEvery function of these is still proven against \
         the C compiler (layout, prototypes, C spellings) and resolved from the driver where it \
         has it.\n\n| group | why |\n|---|---|\n"
    );
    for (group, why) in answers::named(EXCLUDED) {
        if let Some((g, title)) = groups.iter().find(|(g, _)| *g == group) {
            let _ = writeln!(out, "| {} | {why} |", link(g, title));
        }
    }
    out.push('\n');

    let show = |m: Option<&BTreeMap<String, BTreeSet<String>>>| {
        (m.into_iter().flatten())
            .map(|(who, results)| {
                let results = Vec::from_iter(results.iter().map(String::as_str));
                format!("{who}: {}", results.join(", "))
            })
            .collect::<Vec<_>>()
            .join("; ")
    };
    for (group, title) in &groups {
        let _ = write!(
            out,
            "## {}\n\n| function | own programs (result) | tests and dependents (result) | not \
             counted because |\n|---|---|---|---|\n",
            link(group, title)
        );
        for f in headers.functions.iter().filter(|f| f.group == *group) {
            let row = rows.get(f.name.as_str());
            let own = show(row.map(|r| &r.by[OWN]));
            let dependents = show(row.map(|r| &r.by[SUITES]));
            let why = match verdict(f) {
                Verdict::Succeeded => String::new(),
                Verdict::ErrorOnly => {
                    format!("returned only an error: {}", reasons[f.name.as_str()].why)
                }
                Verdict::NotCounted => {
                    let one_sided = one_sided.contains(f.name.as_str());
                    reason(f, machine, excluded(group), one_sided)
                }
            };
            let _ = writeln!(out, "| `{}` | {own} | {dependents} | {why} |", f.name);
        }
        out.push('\n');
    }

    let _ = write!(
        out,
        "## {section}\n\nCalled, and every call returned an error: on both sides of the own \
         programs that called them, in the suites that did. Not counted as called. Why each \
         answer is the expected one is written by hand (`ERROR_ONLY` in \
         `xtask/src/gpu/coverage/answers.rs`): the report is not written while a function lacks \
         its reason.\n\n"
    );
    if reasons.is_empty() {
        out.push_str("None.\n\n");
    } else {
        out.push_str("| function (only an error) | answer | called by | why it is the answer here |\n|---|---|---|---|\n");
        for f in &headers.functions {
            if let (Some(r), Some(row)) = (reasons.get(f.name.as_str()), rows.get(f.name.as_str()))
            {
                let by = Vec::from_iter(row.by.iter().flat_map(|by| by.keys().map(String::as_str)));
                let (by, answer, why) = (by.join(", "), r.answer, r.why);
                let _ = writeln!(out, "| `{}` | {answer} | {by} | {why} |", f.name);
            }
        }
        out.push('\n');
    }

    out.push_str("## Calls one side made and its twin did not\n\nNot counted above. Each is a program, the build it ran in, the side, the driver entry and its result.\n\n");
    if one_side.is_empty() {
        out.push_str("None.\n\n");
    } else {
        out.push_str("| program | build | side | entry | result |\n|---|---|---|---|---|\n");
        for (program, build, side, (entry, result)) in &one_side {
            let result = headers.result(*result);
            let _ = writeln!(out, "| {program} | {build} | {side} | {entry} | {result} |");
        }
        out.push('\n');
    }
    out.push_str("## Driver entries the headers do not declare\n\n");
    if undeclared.is_empty() {
        out.push_str("None.\n");
    } else {
        let list = Vec::from_iter(undeclared.iter().map(|e| format!("`{e}`")));
        let _ = writeln!(out, "{}", list.join(", "));
    }
    if !calls.errors.is_empty() {
        out.push_str("\n## Processes the recorder could not subscribe in\n\n");
        for e in &calls.errors {
            let _ = writeln!(out, "- {e}");
        }
    }
    Ok(out)
}

/// Why no call of `f` counts: `excluded`, its group's exclusion; `one_sided`, whether one side
/// of a program made a call of it that its twin did not.
fn reason(f: &Function, machine: &Machine, excluded: Option<&str>, one_sided: bool) -> String {
    if let Some(why) = excluded {
        return format!("excluded: {why}");
    }
    if one_sided {
        return "a program's calls of it and its twin's differ (see below)".into();
    }
    if f.since > machine.cuda {
        let (since, cuda) = (dotted(f.since), dotted(machine.cuda));
        return format!("newer than the driver: since CUDA {since} (the driver is CUDA {cuda})");
    }
    if f.group == "-" {
        return "in no documented group: the driver's private export tables".into();
    }
    if let Some(why) = reason_of(NOT_ON_THIS_MACHINE, &f.name) {
        return format!("not on this machine: {why}");
    }
    "no program calls it".into()
}

/// `[Title](page)` of a group (its name where the header gives no title).
fn link(group: &str, title: &str) -> String {
    if group == "-" {
        return "(no group)".into();
    }
    let text = if title == "-" { group } else { title };
    let text = text.replace('[', "\\[").replace(']', "\\]");
    format!(
        "[{text}]({REFERENCE}/group__{}.html)",
        group.replace('_', "__")
    )
}

/// The functions the report's group tables have a row for: the first cell of each row that is
/// a function's name in backticks.
pub fn function_rows(text: &str) -> BTreeSet<String> {
    let mut rows = BTreeSet::new();
    let mut in_function_table = false;
    for line in text.lines() {
        if line.starts_with("| function |") {
            in_function_table = true;
        } else if !line.starts_with('|') {
            in_function_table = false;
        } else if in_function_table {
            let first = line.trim_start_matches('|').split('|').next().unwrap_or("");
            let first = first.trim();
            if let Some(name) = first.strip_prefix('`').and_then(|n| n.strip_suffix('`')) {
                rows.insert(name.to_string());
            }
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::super::answers::table;
    use super::super::calls::{Calls, Program, Sides};
    use super::super::headers::Headers;
    use super::{function_rows, render, Machine};

    /// The calls of `text` (`<entry>:<result>` each).
    fn set(text: &str) -> std::collections::BTreeSet<(String, u32)> {
        let call = |(entry, result): (&str, &str)| (entry.into(), result.parse().unwrap());
        let pairs = text.split_whitespace().flat_map(|c| c.split_once(':'));
        pairs.map(call).collect()
    }

    /// A program `name` of the build 99000, as the control `control` if one.
    fn program(name: &str, control: Option<&str>) -> Program {
        Program {
            name: name.into(),
            build: "99000".into(),
            control: control.map(String::from),
        }
    }

    #[test]
    fn a_function_counts_where_it_succeeded_on_both_sides() {
        let headers = Headers::of(
            "cuMemAlloc:CUDA_MEM cuMemFree:CUDA_MEM cuStreamQuery:CUDA_STREAM \
             cuDeviceGetLuid:CUDA_DEVICE cuLaunchKernel:CUDA_EXEC cuInit:CUDA_INITIALIZE \
             cuNoReason:CUDA_EXEC cuNever:CUDA_EXEC",
            "0:CUDA_SUCCESS 1:CUDA_ERROR_INVALID_VALUE 600:CUDA_ERROR_NOT_READY \
             801:CUDA_ERROR_NOT_SUPPORTED",
        );
        let machine = Machine {
            date: "today".into(),
            gpus: vec!["GPU".into()],
            driver: "580".into(),
            cuda: 99000,
            without_tools: Vec::new(),
        };
        let both = "cuMemAlloc_v2:0 cuStreamQuery:600 cuDeviceGetLuid:801 cuNoReason:1";
        let mut calls = Calls::default();
        let rust = set(&format!("{both} cuMemFree_v2:0"));
        let c = set(&format!("{both} cuMemFree_v2:1"));
        calls.own.insert(program("mem", None), Sides { rust, c });
        let launch = program("launch", Some("plain"));
        let (rust, c) = (set("cuLaunchKernel:0"), set("cuLaunchKernel:0"));
        calls.own.insert(launch, Sides { rust, c });
        calls.dependents.insert("cust".into(), set("cuInit:0"));
        let reasons = table(
            "cuDeviceGetLuid: CUDA_ERROR_NOT_SUPPORTED: Windows only\n\
             cuNoReason: CUDA_ERROR_INVALID_VALUE: invalid",
        );
        // A reason missing: answers' tests show the error.
        assert!(render(&headers, &calls, &machine, &reasons[..1]).is_err());
        let text = render(&headers, &calls, &machine, &reasons).unwrap();
        let headline =
            "**4 of the 8 functions were called and succeeded** (3 in the own programs, \
                        1 in the tests and dependents); 2 more returned only an error";
        assert!(text.contains(headline), "{text}");
        assert!(text.contains("| **all** | **8** | **3** | **1** | **4** | **2** | **2** |"));
        assert!(text.contains("| `cuMemAlloc` | mem: CUDA_SUCCESS |  |  |"));
        assert!(text.contains("| `cuStreamQuery` | mem: CUDA_ERROR_NOT_READY |  |  |"));
        assert!(text.contains("| `cuLaunchKernel` | launch: CUDA_SUCCESS |  |  |"));
        assert!(text.contains("| `cuInit` |  | cust: CUDA_SUCCESS |  |"));
        let luid = "| `cuDeviceGetLuid` | mem: CUDA_ERROR_NOT_SUPPORTED |  | returned only an \
                    error: Windows only |";
        assert!(text.contains(luid), "{text}");
        let listed = "| `cuDeviceGetLuid` | CUDA_ERROR_NOT_SUPPORTED | mem | Windows only |";
        assert!(text.contains(listed), "{text}");
        assert!(text.contains("| `cuMemFree` |  |  | a program's calls of it and its twin's"));
        assert!(text.contains("| mem | 99000 | C | cuMemFree_v2 | CUDA_ERROR_INVALID_VALUE |"));
        assert!(text.contains("| `cuNever` |  |  | no program calls it |"));
        // --check reads the page's rows: each function once, the error-only list not among them.
        let rows = function_rows(&text);
        assert_eq!(rows.len(), 8);
        assert!(headers.functions.iter().all(|f| rows.contains(&f.name)));
    }
}
