//! The driver-call traces the coverage recorder (`ci/coverage/recorder.c`) writes of each side of
//! a parity run, and their comparison (the rules are in the parent module's documentation, rule
//! "The driver-call trace").
//!
//! A trace file, `<pid>.calls`, is one process's:
//!
//! ```text
//! # exe <path of the program>
//! # pid <pid> parent <parent pid>
//! # injected
//! <thread> <entry> <result> <count>
//! ```
//!
//! `<thread>` is the thread's ordinal in its process (by first driver call), `<count>` how many
//! calls in a row that thread made of `<entry>` with `<result>`; consecutive lines of one thread
//! with the same entry and result are one run. `# cupti-error <code> <message>` says the recorder
//! could not subscribe.

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

/// CUDA_ERROR_NOT_READY: the answer of a poll (`cuEventQuery`, `cuStreamQuery`) to work still
/// running, which the two sides may get a different number of times.
pub const NOT_READY: u32 = 600;

/// Calls in a row of one entry, by one thread, with one result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Run {
    pub entry: String,
    pub result: u32,
    pub count: u64,
}

impl fmt::Display for Run {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} -> {} x{}", self.entry, self.result, self.count)
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
            let words: Vec<&str> = line.split(' ').collect();
            let [thread, entry, result, count] = words[..] else {
                return Err(bad("not `<thread> <entry> <result> <count>`"));
            };
            let (Ok(thread), Ok(result), Ok(count)) =
                (thread.parse(), result.parse(), count.parse::<u64>())
            else {
                return Err(bad("not `<thread> <entry> <result> <count>` with numbers"));
            };
            if entry.is_empty() || count == 0 {
                return Err(bad("an empty entry or a count of 0"));
            }
            let run = Run {
                entry: entry.to_string(),
                result,
                count,
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
/// the same entry and result merged.
fn thread(ordinal: u32, lines: Vec<Run>, set_apart: &[&str]) -> Thread {
    let mut runs: Vec<Run> = Vec::new();
    let mut taken = vec![0; set_apart.len()];
    for run in lines {
        if let Some(k) = set_apart.iter().position(|e| run.entry.starts_with(e)) {
            taken[k] += run.count;
            continue;
        }
        match runs.last_mut() {
            Some(last) if last.entry == run.entry && last.result == run.result => {
                last.count += run.count
            }
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

/// The runs of a thread as the comparison sees them: a poll run ([`NOT_READY`]) followed by the
/// same entry's other result taken out (one side polled, the other found the work done, or polled
/// more often), and the runs that then meet merged.
pub fn settled(runs: &[Run]) -> Vec<Run> {
    let mut out: Vec<Run> = Vec::new();
    for (k, run) in runs.iter().enumerate() {
        let ended_poll = run.result == NOT_READY
            && runs
                .get(k + 1)
                .is_some_and(|next| next.entry == run.entry && next.result != NOT_READY);
        if ended_poll {
            continue;
        }
        match out.last_mut() {
            Some(last) if last.entry == run.entry && last.result == run.result => {
                last.count += run.count
            }
            _ => out.push(run.clone()),
        }
    }
    out
}

/// Where the settled runs `c` and `rust` ([`settled`]) first differ (the index of each), or
/// `None` where they are the same: the same entries and results in the same order, and the same
/// counts but for a poll run that never ended ([`NOT_READY`] last), whose count may differ.
pub fn first_difference(c: &[Run], rust: &[Run]) -> Option<(usize, usize)> {
    let n = c.len().max(rust.len());
    (0..n)
        .find(|&k| match (c.get(k), rust.get(k)) {
            (Some(a), Some(b)) => {
                a.entry != b.entry
                    || a.result != b.result
                    || (a.count != b.count && a.result != NOT_READY)
            }
            _ => true,
        })
        .map(|k| (k, k))
}

/// The threads of `c` and `rust` paired: first each C thread with a Rust thread whose runs are the
/// same ([`first_difference`]), the one of the same ordinal before the others (so that threads
/// that made their first calls in a different order on each side still pair); then the rest in
/// ordinal order, and a thread left over on one side with none.
pub fn pair_threads(c: &[Thread], rust: &[Thread]) -> Vec<(Option<usize>, Option<usize>)> {
    let mut pairs = Vec::new();
    let mut c_paired = vec![false; c.len()];
    let mut rust_paired = vec![false; rust.len()];
    for (i, thread) in c.iter().enumerate() {
        let same = |j: &usize| {
            !rust_paired[*j]
                && first_difference(&settled(&thread.runs), &settled(&rust[*j].runs)).is_none()
        };
        let same_ordinal = rust.iter().position(|r| r.ordinal == thread.ordinal);
        let found = same_ordinal
            .filter(same)
            .or_else(|| (0..rust.len()).find(same));
        if let Some(j) = found {
            pairs.push((Some(i), Some(j)));
            c_paired[i] = true;
            rust_paired[j] = true;
        }
    }
    let c_left = (0..c.len()).filter(|&i| !c_paired[i]);
    let mut rust_left = (0..rust.len()).filter(|&j| !rust_paired[j]);
    for i in c_left {
        pairs.push((Some(i), rust_left.next()));
    }
    pairs.extend(rust_left.map(|j| (None, Some(j))));
    pairs
}

/// What two sides' traces have, where they are the same.
#[derive(Debug, PartialEq, Eq)]
pub struct Same {
    /// The C side's calls and runs (after the set-apart entries are taken out).
    pub calls: u64,
    pub runs: usize,
    pub processes: usize,
    pub threads: usize,
    /// Per entry set apart, its calls: C and Rust.
    pub set_apart: Vec<(String, u64, u64)>,
    /// The calls that returned [`NOT_READY`], C and Rust.
    pub polls: (u64, u64),
}

impl fmt::Display for Same {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let count =
            |n: u64, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        write!(
            f,
            "{} in {}, {}, {}, the same (",
            count(self.calls, "call", "calls"),
            count(self.runs as u64, "run", "runs"),
            count(self.processes as u64, "process", "processes"),
            count(self.threads as u64, "thread", "threads"),
        )?;
        let apart = self.set_apart.iter();
        let apart: Vec<String> =
            (apart.map(|(e, c, r)| format!("{e} set apart: C {c}, Rust {r}"))).collect();
        f.write_str(&apart.join("; "))?;
        if self.polls != (0, 0) {
            write!(
                f,
                "; polls answered CUDA_ERROR_NOT_READY: C {}, Rust {}",
                self.polls.0, self.polls.1
            )?;
        }
        f.write_str(")")
    }
}

/// Compares the two sides' traces, whose entries `set_apart` were taken out: [`Same`], or the
/// first difference, shown.
pub fn compare(c: &Side, rust: &Side, set_apart: &[&str]) -> Result<Same, String> {
    let places = |s: &Side| -> Vec<String> { s.processes.iter().map(|(p, _)| p.clone()).collect() };
    if places(c) != places(rust) {
        return Err(format!(
            "the processes differ: C twin {:?}, Rust example {:?} (places in the process tree)",
            places(c),
            places(rust)
        ));
    }
    let mut same = Same {
        calls: 0,
        runs: 0,
        processes: c.processes.len(),
        threads: 0,
        set_apart: (set_apart.iter().map(|e| (e.to_string(), 0, 0))).collect(),
        polls: (0, 0),
    };
    let polls = |t: &Thread| -> u64 {
        (t.runs.iter().filter(|r| r.result == NOT_READY))
            .map(|r| r.count)
            .sum()
    };
    for ((place, cp), (_, rp)) in c.processes.iter().zip(&rust.processes) {
        for (i, j) in pair_threads(&cp.threads, &rp.threads) {
            let where_ = format!(
                "process {place} (pid: C twin {}, Rust example {}), thread {} (C twin) and {} \
                 (Rust example)",
                cp.pid,
                rp.pid,
                i.map_or("none".into(), |i| cp.threads[i].ordinal.to_string()),
                j.map_or("none".into(), |j| rp.threads[j].ordinal.to_string()),
            );
            let empty = Thread {
                ordinal: 0,
                runs: Vec::new(),
                set_apart: vec![0; set_apart.len()],
            };
            let ct = i.map_or(&empty, |i| &cp.threads[i]);
            let rt = j.map_or(&empty, |j| &rp.threads[j]);
            let (cs, rs) = (settled(&ct.runs), settled(&rt.runs));
            if let Some((a, b)) = first_difference(&cs, &rs) {
                return Err(format!(
                    "{where_}: they differ at run {} (C twin) and {} (Rust example) of their \
                     polls settled, counted from 0:\n{}",
                    a,
                    b,
                    show(&cs, a, &rs, b)
                ));
            }
            same.threads += 1;
            same.runs += ct.runs.len();
            same.calls += ct.runs.iter().map(|r| r.count).sum::<u64>();
            for (k, (_, c, r)) in same.set_apart.iter_mut().enumerate() {
                *c += ct.set_apart.get(k).copied().unwrap_or(0);
                *r += rt.set_apart.get(k).copied().unwrap_or(0);
            }
            same.polls.0 += polls(ct);
            same.polls.1 += polls(rt);
        }
    }
    Ok(same)
}

/// The runs around the first difference, `-` the C twin's and `+` the Rust example's: two before
/// and the differing one of each.
fn show(c: &[Run], a: usize, rust: &[Run], b: usize) -> String {
    let mut out = String::new();
    for (sign, runs, at) in [('-', c, a), ('+', rust, b)] {
        for k in at.saturating_sub(2)..=at {
            match runs.get(k) {
                Some(run) => out.push_str(&format!("{sign} {k:>5} | {run}\n")),
                None => out.push_str(&format!("{sign} {k:>5} | (no more calls)\n")),
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(pid: u32, parent: u32, lines: &str) -> String {
        format!("# exe /bin/p\n# pid {pid} parent {parent}\n# injected\n{lines}")
    }

    const APART: &[&str] = &["cuGetProcAddress"];

    fn side(files: &[String]) -> Side {
        tree(files.iter().map(|f| parse(f, APART).unwrap()).collect())
    }

    fn compare(c: &Side, rust: &Side) -> Result<Same, String> {
        super::compare(c, rust, APART)
    }

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

    #[test]
    fn a_swapped_pair_of_calls_differs() {
        let c = side(&[file(1, 0, "0 cuMemAlloc_v2 0 1\n0 cuMemFree_v2 0 1\n")]);
        let rust = side(&[file(2, 0, "0 cuMemFree_v2 0 1\n0 cuMemAlloc_v2 0 1\n")]);
        let e = compare(&c, &rust).unwrap_err();
        assert!(
            e.contains("process 1 (pid: C twin 1, Rust example 2), thread 0"),
            "{e}"
        );
        assert!(e.contains("-     0 | cuMemAlloc_v2 -> 0 x1"), "{e}");
        assert!(e.contains("+     0 | cuMemFree_v2 -> 0 x1"), "{e}");
        // A count that differs, a result that differs, a call missing.
        for other in [
            "0 cuMemAlloc_v2 0 2\n0 cuMemFree_v2 0 1\n",
            "0 cuMemAlloc_v2 2 1\n0 cuMemFree_v2 0 1\n",
            "0 cuMemAlloc_v2 0 1\n",
        ] {
            assert!(compare(&c, &side(&[file(2, 0, other)])).is_err(), "{other}");
        }
    }

    #[test]
    fn polls_may_differ_in_count_and_lookups_are_set_apart() {
        let c = side(&[file(
            1,
            0,
            "0 cuLaunchKernel 0 1\n0 cuEventQuery 600 3\n0 cuEventQuery 0 1\n\
             0 cuGetProcAddress 0 2\n0 cuStreamQuery 0 1\n",
        )]);
        let rust = side(&[file(
            2,
            0,
            "0 cuGetProcAddress_v2 0 1\n0 cuLaunchKernel 0 1\n0 cuEventQuery 600 40\n\
             0 cuEventQuery 0 1\n0 cuGetProcAddress_v2 0 8\n0 cuStreamQuery 600 2\n\
             0 cuStreamQuery 0 1\n",
        )]);
        let same = compare(&c, &rust).unwrap();
        assert_eq!(
            same,
            Same {
                calls: 6,
                runs: 4,
                processes: 1,
                threads: 1,
                set_apart: vec![("cuGetProcAddress".into(), 2, 9)],
                polls: (3, 42),
            }
        );
        assert_eq!(
            same.to_string(),
            "6 calls in 4 runs, 1 process, 1 thread, the same (cuGetProcAddress set apart: C 2, \
             Rust 9; polls answered CUDA_ERROR_NOT_READY: C 3, Rust 42)"
        );
        // A poll is not a stand-in for another entry, nor for a call the other side did not make.
        let other_poll = side(&[file(
            2,
            0,
            "0 cuLaunchKernel 0 1\n0 cuStreamQuery 600 3\n0 cuEventQuery 0 1\n\
             0 cuStreamQuery 0 1\n",
        )]);
        assert!(compare(&c, &other_poll).is_err());
        let last_poll = side(&[file(2, 0, "0 cuLaunchKernel 0 1\n0 cuEventQuery 600 3\n")]);
        assert!(compare(&c, &last_poll).is_err());
        // Two streams polled in turn: the second found done at once on one side, polled on the
        // other; its success then meets the first's on one side only.
        let at_once = side(&[file(1, 0, "0 cuStreamQuery 600 1\n0 cuStreamQuery 0 2\n")]);
        let polled = side(&[file(
            2,
            0,
            "0 cuStreamQuery 600 1\n0 cuStreamQuery 0 1\n0 cuStreamQuery 600 3\n\
             0 cuStreamQuery 0 1\n",
        )]);
        assert!(compare(&at_once, &polled).is_ok());
        let once = side(&[file(2, 0, "0 cuStreamQuery 600 1\n0 cuStreamQuery 0 1\n")]);
        assert!(compare(&at_once, &once).is_err());
    }

    #[test]
    fn threads_pair_by_their_calls_and_processes_by_their_place() {
        let parent = "0 cuInit 0 1\n";
        let worker = |n| format!("{n} cuCtxSetCurrent 0 1\n{n} cuLaunchKernel 0 2\n");
        let other = |n| format!("{n} cuMemcpyHtoD_v2 0 1\n");
        // The two workers started their calls in the other order on the Rust side.
        let c = side(&[
            file(10, 1, &format!("{parent}{}{}", worker(1), other(2))),
            file(12, 10, "0 cuMemAlloc_v2 0 1\n"),
            file(11, 10, "0 cuMemFree_v2 0 1\n"),
        ]);
        let rust = side(&[
            file(20, 1, &format!("{parent}{}{}", other(1), worker(2))),
            file(21, 20, "0 cuMemFree_v2 0 1\n"),
            file(22, 20, "0 cuMemAlloc_v2 0 1\n"),
        ]);
        let places: Vec<&str> = c.processes.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(places, ["1", "1.1", "1.2"]);
        assert_eq!(c.processes[1].1.pid, 11);
        let same = compare(&c, &rust).unwrap();
        assert_eq!((same.processes, same.threads, same.calls), (3, 5, 7));
        // A child the other side did not start.
        let one_child = side(&[
            file(20, 1, &format!("{parent}{}{}", other(1), worker(2))),
            file(21, 20, "0 cuMemFree_v2 0 1\n"),
        ]);
        let e = compare(&c, &one_child).unwrap_err();
        assert!(e.contains("the processes differ"), "{e}");
        // A thread whose calls differ is reported by its ordinal on each side.
        let changed = side(&[
            file(
                20,
                1,
                &format!("{parent}{}2 cuCtxSetCurrent 0 1\n", other(1)),
            ),
            file(21, 20, "0 cuMemFree_v2 0 1\n"),
            file(22, 20, "0 cuMemAlloc_v2 0 1\n"),
        ]);
        let e = compare(&c, &changed).unwrap_err();
        assert!(e.contains("thread 1 (C twin) and 2 (Rust example)"), "{e}");
        assert!(e.contains("+     1 | (no more calls)"), "{e}");
    }
}
