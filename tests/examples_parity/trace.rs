//! The driver-call traces the coverage recorder (`ci/coverage/recorder.c`) writes of each side of
//! a parity run, read (module `compare` compares them; the rules are in the parent module's
//! documentation, "The driver-call trace").
//!
//! A trace file, `<pid>.calls`, is one process's:
//!
//! ```text
//! # exe <path of the program>
//! # pid <pid> parent <parent pid>
//! # injected
//! <thread> <entry> <result> <count> <arguments>
//! ```
//!
//! `<thread>` is the thread's ordinal in its process (by first driver call), `<count>` how many
//! calls in a row that thread made of `<entry>` with `<result>` and `<arguments>` (module
//! `arguments`; a line without them, the recorder's older format, reads as `-`, none); consecutive
//! lines of one thread with the same entry, result and arguments are one run.
//! `# cupti-error <code> <message>` says the recorder could not subscribe.

use crate::arguments;
use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

/// CUDA_ERROR_NOT_READY: the answer of a poll (`cuEventQuery`, `cuStreamQuery`) to work still
/// running, which the two sides may get a different number of times.
pub const NOT_READY: u32 = 600;

/// Calls in a row of one entry, by one thread, with one result and the same arguments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Run {
    pub entry: String,
    pub result: u32,
    pub count: u64,
    /// As the trace writes them ([`arguments::NONE`] where there are none).
    pub arguments: String,
}

impl Run {
    /// Whether `other` continues this run: the same entry, result and arguments.
    pub fn continued_by(&self, other: &Run) -> bool {
        self.entry == other.entry
            && self.result == other.result
            && self.arguments == other.arguments
    }
}

impl fmt::Display for Run {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.entry)?;
        if self.arguments != arguments::NONE {
            write!(f, "({})", self.arguments)?;
        }
        write!(f, " -> {} x{}", self.result, self.count)
    }
}

/// One thread's calls: its ordinal and its runs, consecutive runs merged, those of the entries set
/// apart taken out (and counted).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Thread {
    pub ordinal: u32,
    pub runs: Vec<Run>,
    /// The calls taken out, per entry set apart (in the order given to [`parse`]).
    pub set_apart: Vec<u64>,
}

/// One process's trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Process {
    pub exe: String,
    pub pid: u32,
    pub parent: u32,
    /// By ordinal.
    pub threads: Vec<Thread>,
}

/// The processes of one side, in tree order: a process whose parent is not among them first
/// (by pid), each followed by its children (by pid: start order), depth first; with each
/// process's place (`1`, `1.1`, ...).
#[derive(Debug, Default)]
pub struct Side {
    pub processes: Vec<(String, Process)>,
}

impl Side {
    /// Whether any run of the side has arguments: the recorder wrote them.
    pub fn has_arguments(&self) -> bool {
        let threads = self.processes.iter().flat_map(|(_, p)| &p.threads);
        let mut runs = threads.flat_map(|t| &t.runs);
        runs.any(|r| r.arguments != arguments::NONE)
    }
}

/// Parses one trace file's `text`, the runs of the entries whose names begin with one of
/// `set_apart` taken out.
pub fn parse(text: &str, set_apart: &[&str]) -> Result<Process, String> {
    let (mut exe, mut pid, mut injected) = (None, None, false);
    let mut lines: BTreeMap<u32, Vec<Run>> = BTreeMap::new();
    for (number, line) in text.lines().enumerate() {
        let bad = |why: &str| format!("line {}: {why}: `{line}`", number + 1);
        if let Some(path) = line.strip_prefix("# exe ") {
            exe = Some(path.to_string());
        } else if let Some(ids) = line.strip_prefix("# pid ") {
            let (own, parent) = ids
                .split_once(" parent ")
                .ok_or_else(|| bad("not `# pid <pid> parent <pid>`"))?;
            let number = |s: &str| s.parse::<u32>().map_err(|_| bad("not a pid"));
            pid = Some((number(own)?, number(parent)?));
        } else if line == "# injected" {
            injected = true;
        } else if let Some(error) = line.strip_prefix("# cupti-error ") {
            return Err(format!(
                "the recorder could not subscribe to CUPTI: {error}"
            ));
        } else if line.starts_with('#') {
            return Err(bad("an unknown comment"));
        } else {
            let words: Vec<&str> = line.splitn(5, ' ').collect();
            let (thread, entry, result, count, arguments) = match words[..] {
                [thread, entry, result, count] => (thread, entry, result, count, arguments::NONE),
                [thread, entry, result, count, arguments] => {
                    (thread, entry, result, count, arguments)
                }
                _ => return Err(bad("not `<thread> <entry> <result> <count> <arguments>`")),
            };
            let (Ok(thread), Ok(result), Ok(count)) =
                (thread.parse(), result.parse(), count.parse::<u64>())
            else {
                return Err(bad("not `<thread> <entry> <result> <count>` with numbers"));
            };
            if entry.is_empty() || count == 0 {
                return Err(bad("an empty entry or a count of 0"));
            }
            arguments::parse(arguments).map_err(|e| bad(&e))?;
            let run = Run {
                entry: entry.to_string(),
                result,
                count,
                arguments: arguments.to_string(),
            };
            lines.entry(thread).or_default().push(run);
        }
    }
    let exe = exe.ok_or("no `# exe` line")?;
    let (pid, parent) = pid.ok_or("no `# pid` line")?;
    if !injected {
        return Err("no `# injected` line".into());
    }
    let threads = lines
        .into_iter()
        .map(|(ordinal, runs)| thread(ordinal, runs, set_apart))
        .collect();
    Ok(Process {
        exe,
        pid,
        parent,
        threads,
    })
}

/// A thread of the runs `lines`: those of `set_apart`'s entries taken out, then consecutive runs of
/// the same entry, result and arguments merged.
fn thread(ordinal: u32, lines: Vec<Run>, set_apart: &[&str]) -> Thread {
    let mut runs: Vec<Run> = Vec::new();
    let mut taken = vec![0; set_apart.len()];
    for run in lines {
        if let Some(k) = set_apart.iter().position(|e| run.entry.starts_with(e)) {
            taken[k] += run.count;
            continue;
        }
        match runs.last_mut() {
            Some(last) if last.continued_by(&run) => last.count += run.count,
            _ => runs.push(run),
        }
    }
    Thread {
        ordinal,
        runs,
        set_apart: taken,
    }
}

/// The processes of the trace files (`*.calls`) in `dir`, in tree order, `set_apart`'s entries
/// taken out ([`parse`]).
pub fn read(dir: &Path, set_apart: &[&str]) -> Result<Side, String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut processes = Vec::new();
    for entry in entries {
        let path = entry.map_err(|e| format!("{}: {e}", dir.display()))?.path();
        if path.extension().is_some_and(|e| e == "calls") {
            let text =
                std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            processes
                .push(parse(&text, set_apart).map_err(|e| format!("{}: {e}", path.display()))?);
        }
    }
    Ok(tree(processes))
}

/// `processes` in tree order, each with its place.
pub fn tree(mut processes: Vec<Process>) -> Side {
    processes.sort_by_key(|p| p.pid);
    let pids: Vec<u32> = processes.iter().map(|p| p.pid).collect();
    let mut side = Side::default();
    let mut taken = vec![false; processes.len()];
    // (index, place) still to visit, the next on top.
    let roots = (0..processes.len()).filter(|&i| !pids.contains(&processes[i].parent));
    let mut stack: Vec<(usize, String)> =
        (roots.enumerate().map(|(n, i)| (i, (n + 1).to_string()))).collect();
    stack.reverse();
    while let Some((i, place)) = stack.pop() {
        if std::mem::replace(&mut taken[i], true) {
            continue;
        }
        let pid = processes[i].pid;
        let children = (0..processes.len()).filter(|&c| processes[c].parent == pid && c != i);
        let children: Vec<(usize, String)> = children
            .enumerate()
            .map(|(n, c)| (c, format!("{place}.{}", n + 1)))
            .collect();
        stack.extend(children.into_iter().rev());
        side.processes.push((place, processes[i].clone()));
    }
    side
}

/// The unit tests, and their trace files for module `compare`'s.
#[cfg(test)]
pub mod tests {
    use super::*;

    /// A trace file of the process `pid`, child of `parent`, with the run lines `lines`.
    pub fn file(pid: u32, parent: u32, lines: &str) -> String {
        format!("# exe /bin/p\n# pid {pid} parent {parent}\n# injected\n{lines}")
    }

    const APART: &[&str] = &["cuGetProcAddress"];

    #[test]
    fn lines_of_a_thread_merge_and_lookups_are_set_apart() {
        let p = parse(
            &file(
                7,
                1,
                "0 cuMemAlloc_v2 0 2\n1 cuCtxSetCurrent 0 1\n0 cuMemAlloc_v2 0 1\n\
             0 cuGetProcAddress_v2 0 3\n0 cuMemFree_v2 0 1\n0 cuGetProcAddress_v2 0 1\n\
             0 cuMemFree_v2 0 1\n",
            ),
            APART,
        )
        .unwrap();
        assert_eq!((p.pid, p.parent, p.exe.as_str()), (7, 1, "/bin/p"));
        let runs: Vec<String> = p.threads[0].runs.iter().map(|r| r.to_string()).collect();
        assert_eq!(runs, ["cuMemAlloc_v2 -> 0 x3", "cuMemFree_v2 -> 0 x2"]);
        assert_eq!(p.threads[0].set_apart, [4]);
        assert_eq!(p.threads[1].ordinal, 1);
        // Each entry set apart counted apart.
        let two = ["cuGetProcAddress", "cuMemFree"];
        let q = parse(
            &file(7, 1, "0 cuMemFree_v2 0 2\n0 cuGetProcAddress 0 1\n"),
            &two,
        )
        .unwrap();
        assert_eq!(
            (q.threads[0].runs.len(), &q.threads[0].set_apart[..]),
            (0, &[1, 2][..])
        );
        for bad in [
            "0 cuX 0\n",
            "0 cuX zero 1\n",
            "0 cuX 0 0\n",
            "# other\n",
            "# cupti-error 15 CUPTI_ERROR_NOT_INITIALIZED\n",
        ] {
            assert!(parse(&file(1, 0, bad), APART).is_err(), "{bad}");
        }
        assert!(parse("# exe /bin/p\n# pid 1 parent 0\n", APART).is_err());
    }

    /// Runs merge only where their arguments are the same; lines without arguments (the older
    /// format) read as `-`, as the recorder writes a call without parameters.
    #[test]
    fn runs_merge_only_with_the_same_arguments() {
        let p = parse(
            &file(
                7,
                1,
                "0 cuEventRecord 0 1 hEvent=CUevent#1 hStream=CUstream#1\n\
                 0 cuGetProcAddress_v2 0 1 symbol=\"cuEventRecord\" pfn==>addr#1\n\
                 0 cuEventRecord 0 2 hEvent=CUevent#1 hStream=CUstream#1\n\
                 0 cuEventRecord 0 1 hEvent=CUevent#1 hStream=CUstream#2\n\
                 0 cuCtxSynchronize 0 1 -\n0 cuCtxSynchronize 0 1\n",
            ),
            APART,
        )
        .unwrap();
        let runs: Vec<String> = p.threads[0].runs.iter().map(|r| r.to_string()).collect();
        assert_eq!(
            runs,
            [
                "cuEventRecord(hEvent=CUevent#1 hStream=CUstream#1) -> 0 x3",
                "cuEventRecord(hEvent=CUevent#1 hStream=CUstream#2) -> 0 x1",
                "cuCtxSynchronize -> 0 x2",
            ]
        );
        assert_eq!(p.threads[0].set_apart, [1]);
        // Arguments that do not read are an error naming the line.
        let e = parse(&file(1, 0, "0 cuX 0 1 hStream=\n"), APART).unwrap_err();
        assert!(e.starts_with("line 4: arguments `hStream=`"), "{e}");
        assert!(parse(&file(1, 0, "0 cuX 0 1 \n"), APART).is_err());
    }
}
