//! The report's text: a summary per group, the groups excluded and why, a table per group with a
//! row per function, and the calls one side of a program made that the other did not.

use super::calls::{Call, Calls};
use super::headers::{Function, Headers};
use crate::base::versions::dotted;
use crate::base::Result;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;

/// Why the groups of an NVLink fabric are not called.
const FABRIC: &str = "needs an NVLink fabric (multi-node NVLink, IMEX) that the GPU machines lack";

/// The groups no program calls, and why (each function still proven by the C compiler).
const EXCLUDED: &[(&str, &str)] = &[
    (
        "CUDA_MULTICAST",
        "never called on the GPU machines: cuMulticastCreate can put a shared host's GPUs out \
         of service for a day or more",
    ),
    ("CUDA_CLIQUE", FABRIC),
    ("CUDA_LOGICAL_ENDPOINT", FABRIC),
    ("CUDA_FABRIC_COPY", FABRIC),
    (
        "CUDA_VDPAU",
        "needs a VDPAU device, which needs an X display the GPU machines lack",
    ),
];

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
        let read = |name: &str| crate::base::files::read(&out.join(name));
        let csv = read("gpus.csv")?;
        // index, name, driver_version, ...
        let rows: Vec<Vec<String>> = (csv.lines().skip(1))
            .map(|l| l.split(',').map(|f| f.trim().to_string()).collect())
            .filter(|f: &Vec<String>| f.len() >= 3)
            .collect();
        let smi = read("nvidia-smi.txt")?;
        let cuda = smi
            .split("CUDA Version:")
            .nth(1)
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|v| {
                let (major, minor) = v.split_once('.')?;
                Some(major.parse::<u32>().ok()? * 1000 + minor.parse::<u32>().ok()? * 10)
            })
            .ok_or("nvidia-smi.txt names no `CUDA Version:`")?;
        let mut without_tools = Vec::new();
        for log in crate::base::files::named(out, "", "-without-tools.log")? {
            let name = crate::base::files::name(&log);
            let run = name.trim_end_matches("-without-tools.log");
            let text = crate::base::files::read(&log)?;
            let verdict = text.lines().find(|l| l.contains(": parity "));
            let verdict = verdict.unwrap_or("no parity verdict in its log");
            without_tools.push(format!("`{run}`: {verdict}"));
        }
        Ok(Machine {
            without_tools,
            date: read("date")?.trim().to_string(),
            gpus: rows.iter().map(|r| r[1].clone()).collect(),
            driver: rows
                .first()
                .map(|r| r[2].clone())
                .ok_or("gpus.csv lists no GPU")?,
            cuda,
        })
    }
}

/// What one function got.
#[derive(Default)]
struct Row {
    /// Own program to the results both its sides got.
    own: BTreeMap<String, BTreeSet<String>>,
    /// Suite to its results.
    dependents: BTreeMap<String, BTreeSet<String>>,
}

/// The report's text.
pub fn render(headers: &Headers, calls: &Calls, machine: &Machine) -> String {
    let mut rows: BTreeMap<&str, Row> = BTreeMap::new();
    let mut one_side: Vec<(String, String, &str, Call)> = Vec::new();
    let mut undeclared: BTreeSet<String> = BTreeSet::new();
    let mut note = |entry: &str| -> Option<&str> {
        let found = headers.function_of(entry).map(|f| f.name.as_str());
        if found.is_none() {
            undeclared.insert(entry.to_string());
        }
        found
    };
    for ((program, tag), sides) in &calls.own {
        for call in sides.rust.intersection(&sides.c) {
            if let Some(f) = note(&call.0) {
                let row = rows.entry(f).or_default();
                let results = row.own.entry(program.clone()).or_default();
                results.insert(headers.result(call.1));
            }
        }
        for (side, mine, other) in [
            ("Rust", &sides.rust, &sides.c),
            ("C", &sides.c, &sides.rust),
        ] {
            for call in mine.difference(other) {
                one_side.push((program.clone(), tag.clone(), side, call.clone()));
            }
        }
    }
    for (suite, seen) in &calls.dependents {
        for call in seen {
            if let Some(f) = note(&call.0) {
                let row = rows.entry(f).or_default();
                let results = row.dependents.entry(suite.clone()).or_default();
                results.insert(headers.result(call.1));
            }
        }
    }

    let mut groups: Vec<(&str, &str)> = Vec::new();
    for f in &headers.functions {
        if !groups.iter().any(|(g, _)| *g == f.group) {
            groups.push((&f.group, &f.title));
        }
    }
    let excluded = |group: &str| {
        EXCLUDED
            .iter()
            .find(|(g, _)| *g == group)
            .map(|(_, why)| *why)
    };
    let count = |group: &str, pick: &dyn Fn(&Row) -> bool| {
        (headers.functions.iter().filter(|f| f.group == group))
            .filter(|f| rows.get(f.name.as_str()).is_some_and(pick))
            .count()
    };

    let suites: Vec<String> = calls.dependents.keys().map(|s| format!("`{s}`")).collect();
    let mut out = String::new();
    let gpus = machine.gpus.join(", ");
    let _ = writeln!(out, "# Driver API coverage on a GPU\n");
    let _ = writeln!(
        out,
        "Generated by `cargo xtask coverage` from the GPU bundle's run of {} on {} (driver {}, \
         CUDA {}); do not edit. `cargo xtask coverage --check` (a CI step) holds its rows to the \
         functions the CUDA {} headers declare.\n",
        machine.date,
        gpus,
        machine.driver,
        dotted(machine.cuda),
        dotted(headers.newest)
    );
    let _ = writeln!(
        out,
        "Each row is a function of the CUDA {newest} headers (`cuda.h`, `cudaGL.h`, `cudaEGL.h`, \
         `cudaVDPAU.h`, `cudaProfiler.h`), in the header's Doxygen group. The calls were recorded \
         on the GPU by CUPTI's driver API callbacks, whatever way the program reached the driver \
         (linked, `dynamic-loading`, the table); see docs/DESIGN.md, \"Coverage\". **Own \
         programs**: the workspace's examples and group programs, a call counted where the \
         program and its C twin, in the same build, made it with the same result (the result \
         shown). **Tests and dependents** (no twins), the suites this run recorded: {suites} \
         (`gl_interop`: the workspace's OpenGL interop test, through headless EGL; the others: \
         a dependent's tests and examples on this crate). A \
         function of a header newer than the driver (CUDA {cuda}) is not in it: a program \
         reaches it only through `cuGetProcAddress`, which finds none.\n",
        newest = dotted(headers.newest),
        cuda = dotted(machine.cuda),
        suites = suites.join(", ")
    );

    if !machine.without_tools.is_empty() {
        let _ = writeln!(
            out,
            "**Without the recorder.** The driver answers `CUDA_ERROR_NOT_SUPPORTED` to every \
             `cuCheckpointProcess*` call but `cuCheckpointProcessGetRestoreThreadId` from a \
             process a tool is attached to, the recorder included: for the checkpoint program the \
             results below are that refusal, the same on both sides. The same run ran its parity \
             again without the recorder:\n"
        );
        for verdict in &machine.without_tools {
            let _ = writeln!(out, "- {verdict}");
        }
        let _ = writeln!(out);
    }
    let _ = writeln!(out, "## Summary\n");
    let _ = writeln!(
        out,
        "| group | declared | own programs | tests and dependents | either | not called |\n|---|---|---|---|---|---|"
    );
    let mut totals = [0usize; 5];
    for (group, title) in &groups {
        let declared = headers
            .functions
            .iter()
            .filter(|f| f.group == *group)
            .count();
        let own = count(group, &|r| !r.own.is_empty());
        let dependents = count(group, &|r| !r.dependents.is_empty());
        let either = count(group, &|r| !r.own.is_empty() || !r.dependents.is_empty());
        let none = declared - either;
        for (t, n) in totals
            .iter_mut()
            .zip([declared, own, dependents, either, none])
        {
            *t += n;
        }
        let mark = if excluded(group).is_some() {
            " (excluded)"
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "| {}{mark} | {declared} | {own} | {dependents} | {either} | {none} |",
            link(group, title)
        );
    }
    let [d, o, p, e, n] = totals;
    let _ = writeln!(
        out,
        "| **all** | **{d}** | **{o}** | **{p}** | **{e}** | **{n}** |\n"
    );

    let _ = writeln!(out, "## Excluded groups\n");
    let _ = writeln!(out, "Every function of these is still proven against the C compiler (layout, prototypes, C spellings) and resolved from the driver where it has it.\n");
    let _ = writeln!(out, "| group | why |\n|---|---|");
    for (group, why) in EXCLUDED {
        if let Some((g, title)) = groups.iter().find(|(g, _)| g == group) {
            let _ = writeln!(out, "| {} | {why} |", link(g, title));
        }
    }
    let _ = writeln!(out);

    for (group, title) in &groups {
        let _ = writeln!(out, "## {}\n", link(group, title));
        let _ = writeln!(
            out,
            "| function | own programs (result) | tests and dependents (result) | not called because |\n|---|---|---|---|"
        );
        for f in headers.functions.iter().filter(|f| f.group == *group) {
            let row = rows.get(f.name.as_str());
            let show = |m: Option<&BTreeMap<String, BTreeSet<String>>>| {
                (m.into_iter().flatten())
                    .map(|(who, results)| {
                        format!(
                            "{who}: {}",
                            Vec::from_iter(results.iter().map(String::as_str)).join(", ")
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("; ")
            };
            let own = show(row.map(|r| &r.own));
            let dependents = show(row.map(|r| &r.dependents));
            let why = if !own.is_empty() || !dependents.is_empty() {
                String::new()
            } else {
                reason(f, machine, excluded(group))
            };
            let _ = writeln!(out, "| `{}` | {own} | {dependents} | {why} |", f.name);
        }
        let _ = writeln!(out);
    }

    let _ = writeln!(out, "## Calls one side made and its twin did not\n");
    let _ = writeln!(
        out,
        "Not counted above. Each is a program, the build it ran in, the side, the driver entry and its result.\n"
    );
    if one_side.is_empty() {
        let _ = writeln!(out, "None.\n");
    } else {
        let _ = writeln!(
            out,
            "| program | build | side | entry | result |\n|---|---|---|---|---|"
        );
        for (program, tag, side, (entry, result)) in &one_side {
            let result = headers.result(*result);
            let _ = writeln!(out, "| {program} | {tag} | {side} | {entry} | {result} |");
        }
        let _ = writeln!(out);
    }
    let _ = writeln!(out, "## Driver entries the headers do not declare\n");
    if undeclared.is_empty() {
        let _ = writeln!(out, "None.");
    } else {
        let list: Vec<String> = undeclared.iter().map(|e| format!("`{e}`")).collect();
        let _ = writeln!(out, "{}", list.join(", "));
    }
    if !calls.errors.is_empty() {
        let _ = writeln!(out, "\n## Processes the recorder could not subscribe in\n");
        for e in &calls.errors {
            let _ = writeln!(out, "- {e}");
        }
    }
    out
}

/// Why nobody called `f`.
fn reason(f: &Function, machine: &Machine, excluded: Option<&str>) -> String {
    if let Some(why) = excluded {
        return format!("excluded: {why}");
    }
    if f.since > machine.cuda {
        return format!(
            "newer than the driver: since CUDA {} (the driver is CUDA {})",
            dotted(f.since),
            dotted(machine.cuda)
        );
    }
    if f.group == "-" {
        return "in no documented group: the driver's private export tables".into();
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
            if let Some(name) = first
                .trim()
                .strip_prefix('`')
                .and_then(|n| n.strip_suffix('`'))
            {
                rows.insert(name.to_string());
            }
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    #[test]
    fn function_rows_are_the_group_tables_first_cells() {
        let text = "| group | declared |\n|---|---|\n| `cuX` | 1 |\n\n| function | own |\n|---|---|\n\
                    | `cuMemAlloc` | a |\n| `cuMemFree` |  |\n\n| program | entry |\n| p | `cuY` |\n";
        let rows = super::function_rows(text);
        let want: Vec<&str> = vec!["cuMemAlloc", "cuMemFree"];
        assert_eq!(rows.iter().map(String::as_str).collect::<Vec<_>>(), want);
    }
}
