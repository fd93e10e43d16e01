//! The two sides' driver-call traces (module `trace`) compared, as the parent module's
//! documentation says ("The driver-call trace"): where each side's trace is recorded, which entries
//! are set apart, how threads pair and polls settle, and the first difference, named down to the
//! argument.

use crate::arguments;
use crate::trace::{self, Run, Side, Thread, NOT_READY};
use std::fmt;
use std::path::{Path, PathBuf};

/// The entries the trace comparison sets apart on both sides (module documentation): the lookups,
/// and under `dynamic-loading` the version query.
pub const SET_APART: &[&str] = if cfg!(feature = "dynamic-loading") {
    &["cuGetProcAddress", "cuDriverGetVersion"]
} else {
    &["cuGetProcAddress"]
};

/// The two sides' trace folders of the run `run`, `<CUDA_CALLS_DIR>/<run>-c` and `-rust`, emptied,
/// where `CUDA_INJECTION64_PATH` and `CUDA_CALLS_DIR` are set (the GPU runner's recorder); `None`
/// where they are not.
pub fn trace_dirs(run: &str) -> Result<Option<[PathBuf; 2]>, String> {
    let set = |var: &str| std::env::var_os(var).filter(|v| !v.is_empty());
    let (Some(_), Some(dir)) = (set("CUDA_INJECTION64_PATH"), set("CUDA_CALLS_DIR")) else {
        return Ok(None);
    };
    let dir = PathBuf::from(dir);
    let dirs = ["c", "rust"].map(|side| dir.join(format!("{run}-{side}")));
    for d in &dirs {
        if d.exists() {
            std::fs::remove_dir_all(d).map_err(|e| format!("{}: {e}", d.display()))?;
        }
        std::fs::create_dir_all(d).map_err(|e| format!("{}: {e}", d.display()))?;
    }
    Ok(Some(dirs))
}

/// What the comparison of two trace folders found, where nothing failed.
pub enum Traces {
    /// The same (what they have, said), and whether the recorder wrote arguments.
    Same(Same, bool),
    /// Neither side had a process that loaded the recorder (no GPU).
    NotLoaded,
}

impl fmt::Display for Traces {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Traces::Same(same, true) => write!(f, "{same}, arguments compared"),
            Traces::Same(same, false) => write!(f, "{same}, no arguments recorded"),
            Traces::NotLoaded => f.write_str("no process loaded the recorder"),
        }
    }
}

/// The two sides' driver-call traces compared: [`Traces`], else why not: a trace that does not
/// read, or the first difference. Where the recorder `must_load` (on a GPU, where the programs
/// started), a side of which no process loaded it fails too.
pub fn compare_traces(c_dir: &Path, rust_dir: &Path, must_load: bool) -> Result<Traces, Failed> {
    let read = |who: &str, dir: &Path| {
        trace::read(dir, SET_APART)
            .map_err(|e| Failed::Other(format!("the {who}'s driver-call trace: {e}")))
    };
    let (c, rust) = (read("C twin", c_dir)?, read("Rust example", rust_dir)?);
    if c.processes.is_empty() && rust.processes.is_empty() {
        if must_load {
            return Err(Failed::Other(format!(
                "no process of either side loaded the recorder (CUDA_INJECTION64_PATH): {} and {} \
                 are empty",
                c_dir.display(),
                rust_dir.display()
            )));
        }
        return Ok(Traces::NotLoaded);
    }
    let arguments = c.has_arguments() || rust.has_arguments();
    match compare(&c, &rust, SET_APART) {
        Ok(same) => Ok(Traces::Same(same, arguments)),
        Err(differs) => Err(Failed::Differ {
            dirs: format!("{} and {}", c_dir.display(), rust_dir.display()),
            differs,
        }),
    }
}

/// Why two trace folders are not the same.
pub enum Failed {
    /// They differ.
    Differ { dirs: String, differs: Differs },
    /// Something else: a trace that does not read, a recorder that did not load.
    Other(String),
}

impl fmt::Display for Failed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failed::Differ { dirs, differs } => {
                write!(f, "the driver-call traces differ ({dirs}): {differs}")
            }
            Failed::Other(why) => f.write_str(why),
        }
    }
}

/// The runs of a thread as the comparison sees them: a poll run ([`NOT_READY`]) followed by a run
/// of the same entry with the same arguments and another result taken out (one side polled, the
/// other found the work done, or polled more often), and the runs that then meet merged.
pub fn settled(runs: &[Run]) -> Vec<Run> {
    let mut out: Vec<Run> = Vec::new();
    for (k, run) in runs.iter().enumerate() {
        let ended_poll = run.result == NOT_READY
            && runs.get(k + 1).is_some_and(|next| {
                next.entry == run.entry
                    && next.arguments == run.arguments
                    && next.result != NOT_READY
            });
        if ended_poll {
            continue;
        }
        match out.last_mut() {
            Some(last) if last.continued_by(run) => last.count += run.count,
            _ => out.push(run.clone()),
        }
    }
    out
}

/// Where two sides' settled runs first differ.
#[derive(Debug, PartialEq, Eq)]
pub struct Difference {
    /// The index of the differing run on each side.
    pub c: usize,
    pub rust: usize,
    /// Where the two runs are of the same entry with the same result: the first argument that
    /// differs.
    pub argument: Option<arguments::Difference>,
}

/// Where the settled runs `c` and `rust` ([`settled`]) first differ, or `None` where they are the
/// same: the same entries, results and arguments in the same order, and the same counts but for
/// a poll run that never ended ([`NOT_READY`] last), whose count may differ. Where two runs agree
/// but in their counts, the side with fewer calls went on with the same entry and result but
/// other arguments (else they would be one run): those two runs are the difference, so that the
/// argument is named.
pub fn first_difference(c: &[Run], rust: &[Run]) -> Option<Difference> {
    let n = c.len().max(rust.len());
    let k = (0..n).find(|&k| match (c.get(k), rust.get(k)) {
        (Some(a), Some(b)) => !a.continued_by(b) || (a.count != b.count && a.result != NOT_READY),
        _ => true,
    })?;
    let at = |i: usize, j: usize| {
        let argument = match (c.get(i), rust.get(j)) {
            (Some(a), Some(b)) if a.entry == b.entry && a.result == b.result => {
                arguments::compare(&a.arguments, &b.arguments)
            }
            _ => None,
        };
        Difference {
            c: i,
            rust: j,
            argument,
        }
    };
    if let (Some(a), Some(b)) = (c.get(k), rust.get(k)) {
        if a.continued_by(b) {
            let next = if a.count < b.count {
                at(k + 1, k)
            } else {
                at(k, k + 1)
            };
            if next.argument.is_some() {
                return Some(next);
            }
        }
    }
    Some(at(k, k))
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

/// The first difference of two sides' traces.
#[derive(Debug)]
pub struct Differs {
    /// Where and what, in one line.
    pub what: String,
    /// The runs around it, `-` the C twin's and `+` the Rust example's (none where the processes
    /// differ).
    pub runs: String,
    /// Where two calls of one entry differ in an argument: the entry and the argument's path.
    pub argument: Option<(String, String)>,
}

impl fmt::Display for Differs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.what)?;
        if !self.runs.is_empty() {
            write!(f, ":\n{}", self.runs)?;
        }
        Ok(())
    }
}

/// Compares the two sides' traces, whose entries `set_apart` were taken out: [`Same`], or the
/// first difference.
pub fn compare(c: &Side, rust: &Side, set_apart: &[&str]) -> Result<Same, Differs> {
    let places = |s: &Side| -> Vec<String> { s.processes.iter().map(|(p, _)| p.clone()).collect() };
    if places(c) != places(rust) {
        return Err(Differs {
            what: format!(
                "the processes differ: C twin {:?}, Rust example {:?} (places in the process tree)",
                places(c),
                places(rust)
            ),
            runs: String::new(),
            argument: None,
        });
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
            if let Some(d) = first_difference(&cs, &rs) {
                let (a, b) = (d.c, d.rust);
                let runs = show(&cs, a, &rs, b);
                let at = format!(
                    "{where_}: they differ at run {a} (C twin) and {b} (Rust example) of their \
                     polls settled, counted from 0"
                );
                return Err(match d.argument {
                    Some(argument) => {
                        let entry = cs[a].entry.clone();
                        Differs {
                            what: format!("{at}, a call of {entry}, {argument}"),
                            runs,
                            argument: Some((entry, argument.path)),
                        }
                    }
                    None => Differs {
                        what: at,
                        runs,
                        argument: None,
                    },
                });
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

/// What an argument control requires of the trace comparison (the parent module's documentation,
/// "Argument controls"): that it failed at a call of `entry` naming the argument `path`. The
/// failing line where it did, else what it found instead.
pub fn failed_at(
    compared: Result<Traces, Failed>,
    entry: &str,
    path: &str,
) -> Result<String, String> {
    let want =
        format!("the trace comparison must fail at a call of {entry} naming its argument {path}");
    match compared {
        Err(Failed::Differ { differs, dirs }) => match &differs.argument {
            Some((e, p)) if same_entry(e, entry) && p == path => Ok(differs.what),
            _ => Err(format!("{want}; it failed elsewhere ({dirs}): {differs}")),
        },
        Err(other) => Err(other.to_string()),
        Ok(traces) => Err(format!("{want}; the traces are the same: {traces}")),
    }
}

/// Whether the trace's entry `symbol` is the driver symbol `entry` or its per-thread-stream
/// variant (`cuLaunchKernelEx_ptsz`).
fn same_entry(symbol: &str, entry: &str) -> bool {
    let base = (symbol.strip_suffix("_ptsz"))
        .or_else(|| symbol.strip_suffix("_ptds"))
        .unwrap_or(symbol);
    symbol == entry || base == entry
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::tests::file;
    use crate::trace::{parse, tree};

    const APART: &[&str] = &["cuGetProcAddress"];

    fn side(files: &[String]) -> Side {
        tree(files.iter().map(|f| parse(f, APART).unwrap()).collect())
    }

    fn compare(c: &Side, rust: &Side) -> Result<Same, String> {
        super::compare(c, rust, APART).map_err(|d| d.to_string())
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

    /// A side of the runs `lines`, in process `pid`.
    fn one(pid: u32, lines: &str) -> Side {
        side(&[file(pid, 0, lines)])
    }

    fn differs(c: &Side, rust: &Side) -> Differs {
        super::compare(c, rust, APART).unwrap_err()
    }

    /// A port that passes a wrong handle, a wrong flag, a wrong offset into the right allocation
    /// or a wrong field of a structure fails naming the call, its place and the argument, with
    /// both sides' values.
    #[test]
    fn a_wrong_argument_fails_naming_it() {
        let before = "0 cuCtxSynchronize 0 1 -\n";
        let cases = [
            (
                "cuEventRecord 0 1 hEvent=CUevent#1 hStream=CUstream#1",
                "cuEventRecord 0 1 hEvent=CUevent#1 hStream=CUstream#2",
                "cuEventRecord",
                "hStream",
                "C twin CUstream#1, Rust example CUstream#2",
            ),
            (
                "cuStreamCreate 0 1 phStream==>CUstream#1 Flags=1",
                "cuStreamCreate 0 1 phStream==>CUstream#1 Flags=0",
                "cuStreamCreate",
                "Flags",
                "C twin 1, Rust example 0",
            ),
            (
                "cuPointerGetAttribute 0 1 data==>out attribute=1 ptr=mem#1+0",
                "cuPointerGetAttribute 0 1 data==>out attribute=1 ptr=mem#1+256",
                "cuPointerGetAttribute",
                "ptr",
                "C twin mem#1+0, Rust example mem#1+256",
            ),
            (
                "cuLaunchKernelEx 0 1 config={gridDimX=1,sharedMemBytes=0,numAttrs=0} \
                 f=CUfunction#1 kernelParams=[mem#1+0] extra=null",
                "cuLaunchKernelEx 0 1 config={gridDimX=1,sharedMemBytes=1024,numAttrs=0} \
                 f=CUfunction#1 kernelParams=[mem#1+0] extra=null",
                "cuLaunchKernelEx",
                "config.sharedMemBytes",
                "C twin 0, Rust example 1024",
            ),
        ];
        for (c, rust, entry, path, values) in cases {
            let c = one(1, &format!("{before}0 {c}\n"));
            let rust = one(2, &format!("{before}0 {rust}\n"));
            let d = differs(&c, &rust);
            assert_eq!(d.argument, Some((entry.to_string(), path.to_string())));
            assert_eq!(
                d.what,
                format!(
                    "process 1 (pid: C twin 1, Rust example 2), thread 0 (C twin) and 0 (Rust \
                     example): they differ at run 1 (C twin) and 1 (Rust example) of their polls \
                     settled, counted from 0, a call of {entry}, in its argument {path}: {values}"
                )
            );
            assert!(d.runs.contains("+     1 | "), "{d}");
            // The same calls compare the same.
            assert!(compare(&c, &c).is_ok());
        }
    }

    /// One call of several in a row with another argument: the run of the side with fewer calls
    /// ends there, and that call is named, not the count.
    #[test]
    fn one_wrong_call_in_a_row_is_named() {
        let c = one(1, "0 cuMemsetD8_v2 0 3 dstDevice=mem#1+0 uc=0 N=256\n");
        let rust = one(
            2,
            "0 cuMemsetD8_v2 0 1 dstDevice=mem#1+0 uc=0 N=256\n\
             0 cuMemsetD8_v2 0 1 dstDevice=mem#1+0 uc=1 N=256\n\
             0 cuMemsetD8_v2 0 1 dstDevice=mem#1+0 uc=0 N=256\n",
        );
        let d = differs(&c, &rust);
        assert_eq!(d.argument, Some(("cuMemsetD8_v2".into(), "uc".into())));
        assert!(
            d.what.contains("at run 0 (C twin) and 1 (Rust example)"),
            "{d}"
        );
        // A count that differs and nothing else stays a difference of runs.
        let fewer = one(2, "0 cuMemsetD8_v2 0 2 dstDevice=mem#1+0 uc=0 N=256\n");
        assert_eq!(differs(&c, &fewer).argument, None);
    }

    /// A poll settles only where the call that ends it has its arguments: another event's success
    /// does not end it.
    #[test]
    fn a_poll_settles_only_with_its_own_arguments() {
        let c = one(1, "0 cuEventQuery 0 1 hEvent=CUevent#1\n");
        let polled = one(
            2,
            "0 cuEventQuery 600 5 hEvent=CUevent#1\n0 cuEventQuery 0 1 hEvent=CUevent#1\n",
        );
        assert!(compare(&c, &polled).is_ok());
        let other = one(
            2,
            "0 cuEventQuery 600 5 hEvent=CUevent#2\n0 cuEventQuery 0 1 hEvent=CUevent#1\n",
        );
        assert!(compare(&c, &other).is_err());
    }

    /// An argument control passes only where the comparison failed at its entry and argument.
    #[test]
    fn an_argument_control_needs_its_own_argument() {
        let c = one(
            1,
            "0 cuEventRecord_ptsz 0 1 hEvent=CUevent#1 hStream=CUstream#1\n",
        );
        let wrong_stream = one(
            2,
            "0 cuEventRecord_ptsz 0 1 hEvent=CUevent#1 hStream=CUstream#2\n",
        );
        let wrong_event = one(
            2,
            "0 cuEventRecord_ptsz 0 1 hEvent=CUevent#2 hStream=CUstream#1\n",
        );
        let compared = |rust: &Side| match super::compare(&c, rust, APART) {
            Ok(same) => Ok(Traces::Same(same, true)),
            Err(differs) => Err(Failed::Differ {
                dirs: "c and rust".into(),
                differs,
            }),
        };
        let line = failed_at(compared(&wrong_stream), "cuEventRecord", "hStream").unwrap();
        assert!(
            line.ends_with(
                "a call of cuEventRecord_ptsz, in its argument hStream: C twin \
                                CUstream#1, Rust example CUstream#2"
            ),
            "{line}"
        );
        let e = failed_at(compared(&wrong_event), "cuEventRecord", "hStream").unwrap_err();
        assert!(e.contains("it failed elsewhere (c and rust)"), "{e}");
        let e = failed_at(compared(&c), "cuEventRecord", "hStream").unwrap_err();
        assert!(
            e.contains("the traces are the same: 1 call in 1 run"),
            "{e}"
        );
        assert!(failed_at(compared(&wrong_stream), "cuEventRecordWithFlags", "hStream").is_err());
        assert!(failed_at(compared(&wrong_stream), "cuEventRecord", "hEvent").is_err());
    }
}
