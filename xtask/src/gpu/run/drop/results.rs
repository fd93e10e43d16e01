//! `OUT/drops.txt`, what the drop part found, which `cargo xtask coverage` turns into
//! `docs/CHECKED.md`: a line per drop run,
//!
//! ```text
//! <program> <entry>:<k>[@<g>] <verdict> <agree|disagree>[ <detail>]
//! ```
//!
//! (the detail: where the sides agree, the first check the program reported; where they do not,
//! what went wrong), and a line per run of the part, which a file joined from several runs (each
//! over some of the programs) holds once for each:
//!
//! ```text
//! # drop part: build <tag>; <n> list runs, <m> drop runs, <j> side by side, <s> s; programs: <name> ...
//! ```

use crate::base::Result;
use std::fmt;

/// One droppable call: the k-th call (from 1) of the driver entry `entry` in the processes of
/// `generation` (0: the program; 1: the processes it started; ...), as `CUDA_DROP` names it:
/// `<entry>:<k>`, `@<generation>` after where it is not 0.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Spec {
    pub entry: String,
    pub k: u32,
    pub generation: u32,
}

impl Spec {
    /// The spec `text` (`<entry>:<k>[@<g>]`).
    pub fn parse(text: &str) -> Result<Spec> {
        let bad = || format!("`{text}` is not a drop, `<entry>:<k>[@<generation>]`");
        let (entry, rest) = text.split_once(':').ok_or_else(bad)?;
        let (k, generation) = rest.split_once('@').unwrap_or((rest, "0"));
        let number = |n: &str| n.parse::<u32>().map_err(|_| bad());
        let spec = Spec {
            entry: entry.into(),
            k: number(k)?,
            generation: number(generation)?,
        };
        let entry_ok = !entry.is_empty()
            && entry
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_');
        if !entry_ok || spec.k == 0 {
            return Err(bad().into());
        }
        Ok(spec)
    }

    /// A file name for it: `<entry>-<k>`, `-g<generation>` after where it is not 0.
    pub fn file_stem(&self) -> String {
        match self.generation {
            0 => format!("{}-{}", self.entry, self.k),
            g => format!("{}-{}-g{g}", self.entry, self.k),
        }
    }
}

impl fmt::Display for Spec {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{}:{}", self.entry, self.k)?;
        match self.generation {
            0 => Ok(()),
            g => write!(f, "@{g}"),
        }
    }
}

/// How a program ended under a drop, as the parity test says of each side.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// It failed a check: `FAILED` (a group program: exit code 1 and `Result = FAIL`; a post's
    /// program: any exit code but 0).
    Failed,
    /// Exit code 0 and, where the program prints one, `Result = PASS`: the drop went unnoticed.
    Pass,
    /// `crashed (<signal>)`.
    Crashed(String),
    /// `stopped`: killed at the parity test's time limit (a hang counts as noticed).
    Stopped,
    /// `exit <n>`: any other ending.
    Exit(i32),
    /// `unknown`: no verdict could be read (the run failed before the parity test gave one; its
    /// line says why).
    Unknown,
}

impl Verdict {
    /// The verdict at the start of `text`, and the rest of `text` after it.
    pub fn parse_prefix(text: &str) -> Option<(Verdict, &str)> {
        let words = [
            ("FAILED", Verdict::Failed),
            ("PASS", Verdict::Pass),
            ("stopped", Verdict::Stopped),
            ("unknown", Verdict::Unknown),
        ];
        let word_end = |rest: &str| rest.is_empty() || rest.starts_with([' ', ',', ';']);
        for (word, verdict) in words {
            if let Some(rest) = text.strip_prefix(word).filter(|r| word_end(r)) {
                return Some((verdict, rest));
            }
        }
        if let Some(rest) = text.strip_prefix("crashed (") {
            let (signal, rest) = rest.split_once(')')?;
            return Some((Verdict::Crashed(signal.into()), rest));
        }
        let rest = text.strip_prefix("exit ")?;
        let end = rest.find([' ', ',', ';']).unwrap_or(rest.len());
        Some((Verdict::Exit(rest[..end].parse().ok()?), &rest[end..]))
    }

    /// Whether the drop went unnoticed: `PASS`, or exit code 0 without a result line.
    pub fn passed(&self) -> bool {
        matches!(self, Verdict::Pass | Verdict::Exit(0))
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Verdict::Failed => f.write_str("FAILED"),
            Verdict::Pass => f.write_str("PASS"),
            Verdict::Crashed(signal) => write!(f, "crashed ({signal})"),
            Verdict::Stopped => f.write_str("stopped"),
            Verdict::Exit(code) => write!(f, "exit {code}"),
            Verdict::Unknown => f.write_str("unknown"),
        }
    }
}

/// The verdicts' columns, as the runner's lines and the page count them: the run failed a check;
/// exited otherwise, but not with 0; crashed or was stopped; passed all the same.
pub const COLUMNS: [&str; 4] = ["FAILED", "another exit", "crashed or stopped", "still PASS"];

/// How many of `runs` fall in each of [`COLUMNS`].
pub fn counts<'a>(runs: impl IntoIterator<Item = &'a DropRun>) -> [usize; 4] {
    let mut counts = [0; 4];
    for run in runs {
        let column = match &run.verdict {
            v if v.passed() => 3,
            Verdict::Failed => 0,
            Verdict::Crashed(_) | Verdict::Stopped => 2,
            _ => 1,
        };
        counts[column] += 1;
    }
    counts
}

/// One drop run: a program under one dropped call, its verdict, whether its two sides agreed, and
/// the detail (the first check it reported, or what went wrong).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DropRun {
    pub program: String,
    pub spec: Spec,
    pub verdict: Verdict,
    pub agree: bool,
    pub detail: Option<String>,
}

impl DropRun {
    /// Its name: `<program> <spec>`.
    pub fn name(&self) -> String {
        format!("{} {}", self.program, self.spec)
    }

    /// Its line in `drops.txt`.
    pub fn line(&self) -> String {
        let agree = if self.agree { "agree" } else { "disagree" };
        let detail = self.detail.as_deref().map(|d| format!(" {d}"));
        let (program, spec, verdict) = (&self.program, &self.spec, &self.verdict);
        format!(
            "{program} {spec} {verdict} {agree}{}",
            detail.unwrap_or_default()
        )
    }

    /// The run of the line `line`.
    fn parse(line: &str) -> Result<DropRun> {
        let bad = || {
            format!(
                "`{line}` is not `<program> <entry>:<k>[@<g>] <verdict> <agree|disagree>[ \
                 <detail>]`"
            )
        };
        let (program, rest) = line.split_once(' ').ok_or_else(bad)?;
        let (spec, rest) = rest.split_once(' ').ok_or_else(bad)?;
        let (verdict, rest) = Verdict::parse_prefix(rest).ok_or_else(bad)?;
        let rest = rest.strip_prefix(' ').ok_or_else(bad)?;
        let (agree, detail) = rest
            .split_once(' ')
            .map_or((rest, None), |(a, d)| (a, Some(d)));
        let agree = match agree {
            "agree" => true,
            "disagree" => false,
            _ => return Err(bad().into()),
        };
        Ok(DropRun {
            program: program.into(),
            spec: Spec::parse(spec)?,
            verdict,
            agree,
            detail: detail.map(String::from),
        })
    }
}

/// What one run of the part cost, and over which programs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cost {
    /// The build it ran (`checks.json`'s `drop`).
    pub build: String,
    pub list_runs: usize,
    pub drop_runs: usize,
    /// How many ran side by side.
    pub jobs: usize,
    /// Its wall time, the device time it took.
    pub seconds: u64,
    /// The programs it ran, those without a droppable call too.
    pub programs: Vec<String>,
}

/// The prefix of a [`Cost`]'s line.
const COST: &str = "# drop part: build ";

impl Cost {
    /// Its line in `drops.txt`.
    pub fn line(&self) -> String {
        format!(
            "{COST}{}; {} list runs, {} drop runs, {} side by side, {} s; programs: {}",
            self.build,
            self.list_runs,
            self.drop_runs,
            self.jobs,
            self.seconds,
            self.programs.join(" ")
        )
    }

    /// The cost of the line `line` (without its prefix, `rest`).
    fn parse(line: &str, rest: &str) -> Result<Cost> {
        let bad = || {
            format!(
                "`{line}` is not `{COST}<tag>; <n> list runs, <m> drop runs, <j> side by side, \
                 <s> s; programs: <name> ...`"
            )
        };
        let (build, rest) = rest.split_once("; ").ok_or_else(bad)?;
        let (figures, programs) = rest.split_once("; programs: ").ok_or_else(bad)?;
        let ends = [" list runs", " drop runs", " side by side", " s"];
        let mut numbers = Vec::new();
        for (part, end) in figures.split(", ").zip(ends) {
            let n = part.strip_suffix(end).and_then(|n| n.parse::<u64>().ok());
            numbers.push(n.ok_or_else(bad)?);
        }
        let [list_runs, drop_runs, jobs, seconds] = numbers[..] else {
            return Err(bad().into());
        };
        Ok(Cost {
            build: build.into(),
            list_runs: list_runs as usize,
            drop_runs: drop_runs as usize,
            jobs: jobs as usize,
            seconds,
            programs: programs.split_whitespace().map(String::from).collect(),
        })
    }
}

/// What `drops.txt` holds: its runs in order, and the cost of each run of the part.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Results {
    pub runs: Vec<DropRun>,
    pub costs: Vec<Cost>,
}

impl Results {
    /// The file's text.
    pub fn render(&self) -> String {
        let costs = self.costs.iter().map(Cost::line);
        let runs = self.runs.iter().map(DropRun::line);
        costs.chain(runs).map(|l| l + "\n").collect()
    }

    /// The results of the file's text `text`; an error names the first line that is neither.
    /// Where the files of several runs of the part are joined (each its cost line, then its
    /// runs), a program that a later run ran again has that run's drops only.
    pub fn parse(text: &str) -> Result<Results> {
        let mut results = Results::default();
        for (n, line) in text.lines().enumerate() {
            let parsed = match line.strip_prefix(COST) {
                Some(rest) => Cost::parse(line, rest).map(|cost| {
                    results.runs.retain(|r| !cost.programs.contains(&r.program));
                    results.costs.push(cost)
                }),
                None => DropRun::parse(line).map(|r| results.runs.push(r)),
            };
            parsed.map_err(|e| format!("line {}: {e}", n + 1))?;
        }
        Ok(results)
    }
}

#[cfg(test)]
mod tests {
    use super::{Cost, DropRun, Results, Spec, Verdict};

    #[test]
    fn specs_read_and_print_alike() {
        let spec = Spec::parse("cuMemcpyHtoD_v2:3").unwrap();
        assert_eq!(
            (spec.entry.as_str(), spec.k, spec.generation),
            ("cuMemcpyHtoD_v2", 3, 0)
        );
        assert_eq!(spec.to_string(), "cuMemcpyHtoD_v2:3");
        let child = Spec::parse("cuLaunchKernel:12@1").unwrap();
        assert_eq!(child.to_string(), "cuLaunchKernel:12@1");
        assert_eq!(child.file_stem(), "cuLaunchKernel-12-g1");
        for bad in [
            "cuLaunchKernel",
            "cuLaunchKernel:0",
            ":1",
            "cuX:1@",
            "cu X:1",
            "cuX:a",
        ] {
            assert!(Spec::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn each_verdict_reads_back() {
        let verdicts = [
            Verdict::Failed,
            Verdict::Pass,
            Verdict::Crashed("SIGSEGV".into()),
            Verdict::Stopped,
            Verdict::Exit(2),
            Verdict::Unknown,
        ];
        for verdict in verdicts {
            let text = format!("{verdict}, first check: x");
            assert_eq!(
                Verdict::parse_prefix(&text),
                Some((verdict, ", first check: x"))
            );
        }
        assert_eq!(Verdict::parse_prefix("PASSED"), None);
        assert_eq!(Verdict::parse_prefix("exit x"), None);
        assert!(Verdict::Exit(0).passed() && !Verdict::Exit(1).passed());
    }

    #[test]
    fn the_file_reads_back_and_a_bad_line_is_named() {
        let text = "\
# drop part: build 99000; 2 list runs, 3 drop runs, 8 side by side, 41 s; programs: mem vector_add
mem cuMemcpyHtoD_v2:1 FAILED agree FAILED: bytes back after the copy
mem cuLaunchKernel:2@1 crashed (signal 11) agree
vector_add cuCtxSynchronize:1 unknown disagree the call never came
";
        let results = Results::parse(text).unwrap();
        assert_eq!(results.render(), text);
        let cost = Cost {
            build: "99000".into(),
            list_runs: 2,
            drop_runs: 3,
            jobs: 8,
            seconds: 41,
            programs: vec!["mem".into(), "vector_add".into()],
        };
        assert_eq!(results.costs, [cost]);
        let crashed = DropRun {
            program: "mem".into(),
            spec: Spec::parse("cuLaunchKernel:2@1").unwrap(),
            verdict: Verdict::Crashed("signal 11".into()),
            agree: true,
            detail: None,
        };
        assert_eq!(results.runs[1], crashed);
        assert_eq!(
            results.runs[2].detail.as_deref(),
            Some("the call never came")
        );
        for bad in [
            "mem cuMemcpyHtoD_v2:1 FAILED",
            "mem cuMemcpyHtoD_v2:1 FAILED agreed",
            "mem cuMemcpyHtoD_v2 PASS agree",
            "# drop part: build 99000; 2 list runs, 8 side by side, 41 s; programs: mem",
        ] {
            let error = Results::parse(&format!("{text}{bad}\n"))
                .err()
                .unwrap()
                .to_string();
            assert!(error.starts_with("line 5: "), "{error}");
        }
    }

    #[test]
    fn a_later_run_of_a_program_replaces_the_earlier() {
        let first = "\
# drop part: build 99000; 2 list runs, 2 drop runs, 8 side by side, 41 s; programs: mem vector_add
mem cuMemcpyHtoD_v2:1 PASS agree
vector_add cuCtxSynchronize:1 FAILED agree
";
        let again = "\
# drop part: build 99000; 1 list runs, 1 drop runs, 8 side by side, 9 s; programs: mem
mem cuMemcpyHtoD_v2:1 FAILED agree
";
        let joined = Results::parse(&format!("{first}{again}")).unwrap();
        let runs = Vec::from_iter(joined.runs.iter().map(DropRun::line));
        let want = [
            "vector_add cuCtxSynchronize:1 FAILED agree",
            "mem cuMemcpyHtoD_v2:1 FAILED agree",
        ];
        assert_eq!(runs, want);
        // What each run cost stays: the device time was spent.
        assert_eq!(joined.costs.len(), 2);
    }
}
