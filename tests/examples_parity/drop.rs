//! The drop mode (the parent module's documentation, "The drop mode"): each side of a program's
//! parity run under the dropper (`ci/drop/`, `LD_PRELOAD`), which lists the droppable calls
//! (`CUDA_DROP=list`) or answers one of them without calling the driver
//! (`CUDA_DROP=<entry>:<k>[@<generation>]`); the `.drops` files it writes, read; and the verdict of
//! a run with a call dropped, which both sides must share.
//!
//! A `.drops` file, `<pid>.drops`, is one process's:
//!
//! ```text
//! # exe <path of the program>
//! # pid <pid> parent <parent pid> generation <g>
//! <entry> <calls>
//! dropped <entry> <k>
//! ```
//!
//! `<entry> <calls>`: each droppable entry the process called, in order of first call;
//! `dropped <entry> <k>`: the process answered the k-th call of that entry itself.

use crate::output::{diff, is_report};
use crate::run::{signal, Run};
use std::ffi::{OsStr, OsString};
use std::fmt;
use std::path::{Path, PathBuf};

/// What `CUDA_DROP` asks of the dropper.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Spec {
    /// Every call goes through; the droppable ones are counted.
    List,
    /// The `k`-th call (from 1) of `entry` in each process of `generation` (0: the program itself,
    /// 1: the processes it started, ...) is answered CUDA_SUCCESS without the driver.
    Call {
        entry: String,
        k: u64,
        generation: u32,
    },
}

impl Spec {
    /// Reads `list` or `<entry>:<k>[@<generation>]`.
    pub fn parse(text: &str) -> Result<Spec, String> {
        if text == "list" {
            return Ok(Spec::List);
        }
        let bad = || format!("CUDA_DROP={text:?} is not `list` nor `<entry>:<k>[@<generation>]`");
        let (entry, rest) = text.split_once(':').ok_or_else(bad)?;
        let (k, generation) = rest.split_once('@').unwrap_or((rest, "0"));
        let valid_entry = entry.starts_with("cu")
            && entry
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_');
        match (valid_entry, k.parse::<u64>(), generation.parse::<u32>()) {
            (true, Ok(k), Ok(generation)) if k > 0 => Ok(Spec::Call {
                entry: entry.to_string(),
                k,
                generation,
            }),
            _ => Err(bad()),
        }
    }
}

impl fmt::Display for Spec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Spec::List => f.write_str("list"),
            Spec::Call {
                entry,
                k,
                generation,
            } => {
                write!(f, "{entry}:{k}")?;
                with_generation(f, *generation)
            }
        }
    }
}

/// `@<generation>`, for a generation other than the program's own.
fn with_generation(f: &mut fmt::Formatter<'_>, generation: u32) -> fmt::Result {
    match generation {
        0 => Ok(()),
        g => write!(f, "@{g}"),
    }
}

/// The drop mode the test binary's environment asks for.
pub struct Mode {
    pub spec: Spec,
    /// `CUDA_DROP` as given.
    text: OsString,
    /// `CUDA_DROP_LIBRARY`: the dropper.
    library: OsString,
    /// `CUDA_DROP_DRIVER`: the real driver, which the dropper opens.
    driver: OsString,
    /// `CUDA_DROP_OUT`: where each run's sides write their `.drops` files.
    out: PathBuf,
    /// `CUDA_DROP_CONTROL`: the control both sides run as (`CUDA_GROUP_CONTROL`).
    pub control: Option<String>,
}

/// The drop mode, where `CUDA_DROP` and `CUDA_DROP_LIBRARY` are set; an error where the rest of
/// what it needs is not.
pub fn mode() -> Result<Option<Mode>, String> {
    let set = |var: &str| std::env::var_os(var).filter(|v| !v.is_empty());
    let (Some(text), Some(library)) = (set("CUDA_DROP"), set("CUDA_DROP_LIBRARY")) else {
        return Ok(None);
    };
    let needs = |var: &str| set(var).ok_or_else(|| format!("the drop mode needs {var}"));
    let spec = Spec::parse(&text.to_string_lossy())?;
    let control = set("CUDA_DROP_CONTROL").map(|c| c.to_string_lossy().into_owned());
    Ok(Some(Mode {
        spec,
        library,
        driver: needs("CUDA_DROP_DRIVER")?,
        out: needs("CUDA_DROP_OUT")?.into(),
        text,
        control,
    }))
}

impl Mode {
    /// The two sides' folders of the run `run`, `<CUDA_DROP_OUT>/<run>-c` and `-rust`, emptied.
    pub fn dirs(&self, run: &str) -> Result<[PathBuf; 2], String> {
        let dirs = ["c", "rust"].map(|side| self.out.join(format!("{run}-{side}")));
        for d in &dirs {
            if d.exists() {
                std::fs::remove_dir_all(d).map_err(|e| format!("{}: {e}", d.display()))?;
            }
            std::fs::create_dir_all(d).map_err(|e| format!("{}: {e}", d.display()))?;
        }
        Ok(dirs)
    }

    /// The environment of a side whose `.drops` files go to `dir`.
    pub fn env<'a>(&'a self, dir: &'a Path) -> Vec<(&'static str, &'a OsStr)> {
        let mut env = vec![
            ("LD_PRELOAD", self.library.as_os_str()),
            ("CUDA_DROP", self.text.as_os_str()),
            ("CUDA_DROP_DRIVER", self.driver.as_os_str()),
            ("CUDA_DROP_DIR", dir.as_os_str()),
        ];
        if let Some(control) = &self.control {
            env.push(("CUDA_GROUP_CONTROL", OsStr::new(control.as_str())));
        }
        env
    }
}

/// One process's `.drops` file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Drops {
    pub pid: u32,
    pub generation: u32,
    /// Each droppable entry it called, and how often, in order of first call.
    pub calls: Vec<(String, u64)>,
    /// The calls it dropped: entry and k.
    pub dropped: Vec<(String, u64)>,
}

/// Reads one `.drops` file's `text`.
pub fn parse(text: &str) -> Result<Drops, String> {
    let (mut exe, mut ids) = (false, None);
    let (mut calls, mut dropped) = (Vec::new(), Vec::new());
    for (number, line) in text.lines().enumerate() {
        let bad = |why: &str| format!("line {}: {why}: `{line}`", number + 1);
        let words: Vec<&str> = line.split(' ').collect();
        let count = |s: &str| s.parse::<u64>().ok().filter(|n| *n > 0);
        match words[..] {
            ["#", "exe", _, ..] => exe = true,
            ["#", "pid", pid, "parent", parent, "generation", generation] => {
                let (Ok(pid), Ok(_), Ok(generation)) =
                    (pid.parse(), parent.parse::<u32>(), generation.parse())
                else {
                    return Err(bad("not numbers"));
                };
                ids = Some((pid, generation));
            }
            ["dropped", entry, k] => match count(k) {
                Some(k) if !entry.is_empty() => dropped.push((entry.to_string(), k)),
                _ => return Err(bad("not `dropped <entry> <k>`, k from 1")),
            },
            [entry, calls_of] if !entry.starts_with('#') => match count(calls_of) {
                Some(n) if !entry.is_empty() => calls.push((entry.to_string(), n)),
                _ => return Err(bad("not `<entry> <calls>`, calls from 1")),
            },
            _ => return Err(bad("not a line of a .drops file")),
        }
    }
    if !exe {
        return Err("no `# exe` line".into());
    }
    let (pid, generation) =
        ids.ok_or("no `# pid <pid> parent <pid> generation <g>` line".to_string())?;
    Ok(Drops {
        pid,
        generation,
        calls,
        dropped,
    })
}

/// The `.drops` files in `dir`, by generation, then pid (start order).
pub fn read(dir: &Path) -> Result<Vec<Drops>, String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut files = Vec::new();
    for entry in entries {
        let path = entry.map_err(|e| format!("{}: {e}", dir.display()))?.path();
        if path.extension().is_some_and(|e| e == "drops") {
            let text =
                std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            files.push(parse(&text).map_err(|e| format!("{}: {e}", path.display()))?);
        }
    }
    files.sort_by_key(|f| (f.generation, f.pid));
    Ok(files)
}

/// A side's droppable calls: per generation, each entry with the most calls a process of that
/// generation made of it (the `k`s a drop run can name), in order of generation, then of first
/// call.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Listing(Vec<(u32, String, u64)>);

impl Listing {
    /// The listing of a side's files (by generation and pid, as [`read`] gives them).
    pub fn of(files: &[Drops]) -> Listing {
        let mut list: Vec<(u32, String, u64)> = Vec::new();
        for file in files {
            for (entry, calls) in &file.calls {
                let known = list
                    .iter_mut()
                    .find(|(g, e, _)| *g == file.generation && e == entry);
                match known {
                    Some((_, _, most)) => *most = (*most).max(*calls),
                    None => list.push((file.generation, entry.clone(), *calls)),
                }
            }
        }
        Listing(list)
    }

    /// Whether both list the same entries with the same calls per generation (in whatever order).
    fn same_as(&self, other: &Listing) -> bool {
        let sorted = |l: &Listing| {
            let mut v = l.0.clone();
            v.sort();
            v
        };
        sorted(self) == sorted(other)
    }
}

impl fmt::Display for Listing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str("none");
        }
        for (k, (generation, entry, calls)) in self.0.iter().enumerate() {
            let space = if k == 0 { "" } else { " " };
            write!(f, "{space}{entry}:{calls}")?;
            with_generation(f, *generation)?;
        }
        Ok(())
    }
}

/// A list run's `.drops` files of both sides compared: the line `<label>: drops: ...` where they
/// list the same calls, else the difference. A side that wrote none did not load the dropper.
pub fn compare_listings(label: &str, c: &[Drops], rust: &[Drops]) -> Result<String, String> {
    for (who, files) in [("C twin", c), ("Rust example", rust)] {
        if files.is_empty() {
            return Err(format!(
                "the {who} wrote no .drops file: the dropper was not loaded (LD_PRELOAD)"
            ));
        }
    }
    let (c, rust) = (Listing::of(c), Listing::of(rust));
    if !c.same_as(&rust) {
        return Err(format!(
            "the droppable calls differ:\n  C twin:       {c}\n  Rust example: {rust}"
        ));
    }
    Ok(format!("{label}: drops: {c}"))
}

/// How a run with a call dropped ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// It noticed: a group program's exit code 1 with `Result = FAIL`, a post program's exit code
    /// other than 0.
    Failed,
    /// Exit code 0 and, where the program prints one, `Result = PASS`: it did not notice.
    Pass,
    /// Killed by this signal.
    Crashed(i32),
    /// Killed at the time limit: a hang, which counts as noticed.
    Stopped,
    /// Any other exit code.
    Exit(i32),
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Verdict::Failed => f.write_str("FAILED"),
            Verdict::Pass => f.write_str("PASS"),
            Verdict::Crashed(signal) => write!(f, "crashed ({})", signal_name(*signal)),
            Verdict::Stopped => f.write_str("stopped"),
            Verdict::Exit(code) => write!(f, "exit {code}"),
        }
    }
}

/// A signal's name, for the signals a crash sends.
fn signal_name(signal: i32) -> String {
    #[cfg(not(unix))]
    let names: [(i32, &str); 0] = [];
    #[cfg(unix)]
    let names = [
        (libc::SIGSEGV, "SIGSEGV"),
        (libc::SIGABRT, "SIGABRT"),
        (libc::SIGBUS, "SIGBUS"),
        (libc::SIGFPE, "SIGFPE"),
        (libc::SIGILL, "SIGILL"),
        (libc::SIGKILL, "SIGKILL"),
        (libc::SIGTRAP, "SIGTRAP"),
    ];
    match names.iter().find(|(number, _)| *number == signal) {
        Some((_, name)) => name.to_string(),
        None => format!("signal {signal}"),
    }
}

/// The verdict of one side: `run` and its normalised `lines`, of a group program (`group`) or a
/// post program that prints `Result = PASS` where it `checks_results`.
pub fn verdict(run: &Run, lines: &[String], group: bool, checks_results: bool) -> Verdict {
    let says = |line: &str| lines.iter().any(|l| l == line);
    if run.stopped {
        return Verdict::Stopped;
    }
    match (run.status.code(), signal(run.status)) {
        (None, Some(signal)) => Verdict::Crashed(signal),
        (Some(0), _) if (!group && !checks_results) || says("Result = PASS") => Verdict::Pass,
        (Some(1), _) if group && says("Result = FAIL") => Verdict::Failed,
        (Some(code), _) if !group && code != 0 => Verdict::Failed,
        (Some(code), _) => Verdict::Exit(code),
        (None, None) => Verdict::Exit(-1),
    }
}

/// The first check an output reports failed: its first `FAILED: ` line or `check_driver` report.
fn first_check(lines: &[String]) -> Option<&str> {
    (lines.iter())
        .find(|l| l.starts_with("FAILED: ") || is_report(l))
        .map(|l| l.trim_end())
}

/// One side of a drop run: what it did, its normalised output, its `.drops` files.
pub struct Side<'a> {
    pub run: &'a Run,
    pub lines: &'a [String],
    pub drops: &'a [Drops],
}

/// A run of the call `spec` dropped, judged: the line
/// `<label>: drop <spec>: <verdict>[, first check: <line>]; both sides agree`, or why the test
/// fails: a side on which the call never came, or sides that disagree (their verdicts, or where
/// neither crashed nor stopped, their outputs or exit codes).
pub fn judge_call(
    label: &str,
    spec: &Spec,
    group: bool,
    checks_results: bool,
    c: Side,
    rust: Side,
) -> Result<String, String> {
    let Spec::Call {
        entry,
        k,
        generation,
    } = spec
    else {
        unreachable!("a list run is an ordinary parity run")
    };
    let at = format!("{label}: drop {spec}");
    let verdicts = [&c, &rust].map(|s| verdict(s.run, s.lines, group, checks_results));
    for ((who, side), verdict) in [("C twin", &c), ("Rust example", &rust)]
        .iter()
        .zip(verdicts)
    {
        let files: Vec<&Drops> = (side.drops.iter())
            .filter(|f| f.generation == *generation)
            .collect();
        let came = files
            .iter()
            .any(|f| f.dropped.iter().any(|(e, n)| e == entry && n == k));
        // A process killed before it wrote its file cannot say: a crash or a hang is noticed.
        let unknown = files.is_empty() && matches!(verdict, Verdict::Crashed(_) | Verdict::Stopped);
        if !came && !unknown {
            return Err(format!(
                "{at}: the call never came: no .drops file of generation {generation} of the \
                 {who} says `dropped {entry} {k}` ({verdict})"
            ));
        }
    }
    let [cv, rv] = verdicts;
    let mut differences = Vec::new();
    if cv != rv {
        differences.push(format!("C twin {cv}, Rust example {rv}"));
    }
    let ended = |v: Verdict| !matches!(v, Verdict::Crashed(_) | Verdict::Stopped);
    if ended(cv) && ended(rv) {
        if c.lines != rust.lines {
            differences.push(format!(
                "stdout differs after normalisation (- C twin, + Rust example):\n{}",
                diff(c.lines, rust.lines, 40)
            ));
        }
        if c.run.status.code() != rust.run.status.code() {
            differences.push(format!(
                "exit status: C twin {}, Rust example {}",
                c.run.describe_status(),
                rust.run.describe_status()
            ));
        }
    }
    if !differences.is_empty() {
        return Err(format!(
            "{at}: the sides disagree: {}\nC twin stderr:\n{}\nRust example stderr:\n{}",
            differences.join("\n"),
            c.run.stderr,
            rust.run.stderr
        ));
    }
    let check = first_check(c.lines).map_or(String::new(), |l| format!(", first check: {l}"));
    Ok(format!("{at}: {cv}{check}; both sides agree"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(pid: u32, generation: u32, lines: &str) -> String {
        format!("# exe /bin/p\n# pid {pid} parent 1 generation {generation}\n{lines}")
    }

    #[test]
    fn specs_read_and_write_back() {
        for text in ["list", "cuMemcpyHtoD_v2:3", "cuLaunchKernel:1@1"] {
            assert_eq!(Spec::parse(text).unwrap().to_string(), text);
        }
        assert_eq!(
            Spec::parse("cuMemcpyAsync_ptsz:2@0"),
            Ok(Spec::Call {
                entry: "cuMemcpyAsync_ptsz".into(),
                k: 2,
                generation: 0
            })
        );
        for bad in [
            "", "lists", "cuX", "cuX:0", "cuX:-1", "cuX:1@", "cuX:1@x", ":1", "x y:1",
        ] {
            assert!(Spec::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn drops_files_read_and_bad_ones_named() {
        let text = file(
            7,
            1,
            "cuMemcpyHtoD_v2 3\ncuLaunchKernel 1\ndropped cuMemcpyHtoD_v2 2\n",
        );
        assert_eq!(
            parse(&text),
            Ok(Drops {
                pid: 7,
                generation: 1,
                calls: vec![("cuMemcpyHtoD_v2".into(), 3), ("cuLaunchKernel".into(), 1)],
                dropped: vec![("cuMemcpyHtoD_v2".into(), 2)],
            })
        );
        for (bad, why) in [
            ("cuX 0\n", "line 3: not `<entry> <calls>`"),
            ("cuX\n", "line 3: not a line of a .drops file"),
            ("dropped cuX 0\n", "line 3: not `dropped <entry> <k>`"),
            ("cuX 1 2\n", "line 3: not a line of a .drops file"),
            ("# other\n", "line 3: not a line"),
        ] {
            let e = parse(&file(1, 0, bad)).unwrap_err();
            assert!(e.starts_with(why), "{bad:?}: {e}");
        }
        assert!(parse("# exe /bin/p\ncuX 1\n")
            .unwrap_err()
            .contains("no `# pid"));
        assert!(parse("# pid 1 parent 0 generation 0\n")
            .unwrap_err()
            .contains("no `# exe`"));
        assert!(parse(&file(1, 0, "").replace("generation 0", "generation x")).is_err());
    }

    #[test]
    fn listings_are_per_generation_and_compared() {
        let read = |texts: &[String]| -> Vec<Drops> {
            let mut files: Vec<Drops> = texts.iter().map(|t| parse(t).unwrap()).collect();
            files.sort_by_key(|f| (f.generation, f.pid));
            files
        };
        let c = read(&[
            file(20, 1, "cuMemcpyHtoD_v2 2\n"),
            file(10, 0, "cuMemcpyHtoD_v2 3\ncuLaunchKernel 1\n"),
            file(21, 1, "cuMemcpyHtoD_v2 4\ncuEventRecord 1\n"),
        ]);
        assert_eq!(
            Listing::of(&c).to_string(),
            "cuMemcpyHtoD_v2:3 cuLaunchKernel:1 cuMemcpyHtoD_v2:4@1 cuEventRecord:1@1"
        );
        // The same calls in another order of first call: the same; another count: not.
        let rust = read(&[
            file(30, 0, "cuLaunchKernel 1\ncuMemcpyHtoD_v2 3\n"),
            file(31, 1, "cuEventRecord 1\ncuMemcpyHtoD_v2 4\n"),
        ]);
        assert_eq!(
            compare_listings("p", &c, &rust).unwrap(),
            "p: drops: cuMemcpyHtoD_v2:3 cuLaunchKernel:1 cuMemcpyHtoD_v2:4@1 cuEventRecord:1@1"
        );
        let other = read(&[
            file(30, 0, "cuLaunchKernel 1\ncuMemcpyHtoD_v2 3\n"),
            file(31, 1, "cuEventRecord 2\ncuMemcpyHtoD_v2 4\n"),
        ]);
        let e = compare_listings("p", &c, &other).unwrap_err();
        assert!(e.contains("cuEventRecord:2@1"), "{e}");
        let none = read(&[file(30, 0, "")]);
        assert_eq!(
            compare_listings("p", &none, &none).unwrap(),
            "p: drops: none"
        );
        let e = compare_listings("p", &c, &[]).unwrap_err();
        assert!(e.contains("the Rust example wrote no .drops file"), "{e}");
    }

    #[cfg(unix)]
    fn run(code: Option<i32>, stopped: bool) -> Run {
        use std::os::unix::process::ExitStatusExt;
        let status = match code {
            Some(code) => ExitStatusExt::from_raw(code << 8),
            None => ExitStatusExt::from_raw(libc::SIGSEGV),
        };
        Run {
            status,
            stdout: String::new(),
            stderr: String::new(),
            stopped,
        }
    }

    #[cfg(unix)]
    fn lines(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[cfg(unix)]
    #[test]
    fn verdicts_of_group_and_post_programs() {
        let failed = lines(&["FAILED: the words", "Result = FAIL"]);
        let passed = lines(&["Result = PASS"]);
        let group = |code, l: &[String]| verdict(&run(Some(code), false), l, true, true);
        assert_eq!(group(1, &failed), Verdict::Failed);
        assert_eq!(group(0, &passed), Verdict::Pass);
        assert_eq!(group(1, &passed), Verdict::Exit(1));
        assert_eq!(group(0, &failed), Verdict::Exit(0));
        assert_eq!(
            group(100, &lines(&["Result = WAIVED: one GPU"])),
            Verdict::Exit(100)
        );
        // A post program: any exit code but 0 is noticed.
        let post = |code, l: &[String], checks| verdict(&run(Some(code), false), l, false, checks);
        assert_eq!(post(255, &[], false), Verdict::Failed);
        assert_eq!(post(1, &failed, true), Verdict::Failed);
        assert_eq!(post(0, &[], false), Verdict::Pass);
        assert_eq!(post(0, &passed, true), Verdict::Pass);
        assert_eq!(post(0, &[], true), Verdict::Exit(0));
        assert_eq!(
            verdict(&run(None, false), &passed, true, true).to_string(),
            "crashed (SIGSEGV)"
        );
        assert_eq!(verdict(&run(None, true), &[], true, true), Verdict::Stopped);
    }

    #[cfg(unix)]
    #[test]
    fn a_drop_run_is_judged_by_both_sides() {
        let spec = Spec::parse("cuMemcpyHtoD_v2:2").unwrap();
        let dropped = [parse(&file(
            7,
            0,
            "cuMemcpyHtoD_v2 3\ndropped cuMemcpyHtoD_v2 2\n",
        ))
        .unwrap()];
        let not_dropped = [parse(&file(8, 0, "cuMemcpyHtoD_v2 1\n")).unwrap()];
        let failed = lines(&[
            "<file>:<line>  cuCtxSynchronize(…) failed. ",
            "FAILED: the words",
            "Result = FAIL",
        ]);
        let exit1 = run(Some(1), false);
        let side = |run, lines, drops| Side { run, lines, drops };
        let judge = |c: Side, rust: Side| judge_call("mem", &spec, true, true, c, rust);
        assert_eq!(
            judge(
                side(&exit1, &failed, &dropped),
                side(&exit1, &failed, &dropped)
            )
            .unwrap(),
            "mem: drop cuMemcpyHtoD_v2:2: FAILED, first check: <file>:<line>  \
             cuCtxSynchronize(…) failed.; both sides agree"
        );
        // The call never came on one side.
        let e = judge(
            side(&exit1, &failed, &dropped),
            side(&exit1, &failed, &not_dropped),
        );
        assert!(e.unwrap_err().contains("the call never came"));
        // One side noticed, the other not.
        let exit0 = run(Some(0), false);
        let passed = lines(&["Result = PASS"]);
        let e = judge(
            side(&exit1, &failed, &dropped),
            side(&exit0, &passed, &dropped),
        );
        assert!(e
            .unwrap_err()
            .contains("the sides disagree: C twin FAILED, Rust example PASS"));
        // The same verdict, other outputs.
        let other = lines(&["FAILED: other words", "Result = FAIL"]);
        let e = judge(
            side(&exit1, &failed, &dropped),
            side(&exit1, &other, &dropped),
        );
        assert!(e.unwrap_err().contains("+    1 | FAILED: other words"));
        // Both hung: outputs are not compared, and a process killed before writing its file
        // is not held to it.
        let stopped = run(None, true);
        assert_eq!(
            judge(
                side(&stopped, &failed, &[]),
                side(&stopped, &passed, &dropped)
            )
            .unwrap(),
            "mem: drop cuMemcpyHtoD_v2:2: stopped, first check: <file>:<line>  \
             cuCtxSynchronize(…) failed.; both sides agree"
        );
        // A drop in a child process.
        let child = Spec::parse("cuMemcpyHtoD_v2:2@1").unwrap();
        let e = judge_call(
            "ipc",
            &child,
            true,
            true,
            side(&exit1, &failed, &dropped),
            side(&exit1, &failed, &dropped),
        );
        assert!(e.unwrap_err().contains("no .drops file of generation 1"));
    }
}
