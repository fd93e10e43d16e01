//! The `drop` part: each driver call a program makes that the dropper (`ci/drop/`, the bundle's
//! `lib/libcuda-drop.so`) may take away, taken away in turn, one run each, for every post's
//! program and group program of one build (`checks.json`'s `drop`), through the parity test's
//! drop mode (both sides, compared as parity does). Its results go to `OUT/drops.txt`, which
//! `cargo xtask coverage OUT` turns into `docs/CHECKED.md`, and its logs to `OUT/drop/`; it also
//! runs the page's control (`PAGE_CONTROL`).
//!
//! The runs go side by side (GPU_RUN_DROP_JOBS, default half the CPUs and at most 8), on the
//! same GPUs: a program whose check measures time (an overlap, a wait) is timed against the
//! others' work too, which can make its verdict differ from a run alone. GPU_RUN_DROP_PROGRAMS
//! (names, space-separated) runs some programs only, to fit a time limit per command; the
//! `drops.txt` files of such runs are joined by concatenation.

mod harness;
pub mod results;

use super::log::Logs;
use super::schedule::{run_side_by_side, Ended, Job};
use super::tests::test_command;
use crate::base::examples::programs::PAGE_CONTROL;
use crate::base::{files, process, Result};
use crate::gpu::coverage::drop_reasons;
use results::{Cost, DropRun, Results, Spec};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// The parity test's time limit for each side of a list run (`CUDA_PARITY_TIMEOUT_S`; its
/// default).
const LIST_TIMEOUT_S: u64 = 120;

/// The parity test's time limit for each side of a drop run: a program that hangs without the
/// call is stopped (and counts as having noticed).
pub const DROP_TIMEOUT_S: u64 = 30;

/// How long a parity test whose sides each have `timeout_s` may take in all (both sides in turn
/// and its start) before the part stops it with its processes: a test that outlives this hangs
/// where its own limit could not reach (a stopped program's child holding its output open).
fn test_limit(timeout_s: u64) -> Duration {
    Duration::from_secs(2 * timeout_s + 60)
}

/// A program of the build: its test (`group::<name>` or `<name>`) and its name.
struct Program {
    test: String,
    name: String,
}

/// What every run of the part shares: the bundle, the build, the parity test binary, the
/// dropper, the machine's driver and the logs folder (`OUT/drop`).
struct Setup<'a> {
    here: &'a Path,
    tag: &'a str,
    test: PathBuf,
    dropper: PathBuf,
    driver: PathBuf,
    dir: PathBuf,
}

impl Setup<'_> {
    /// A run of `program`'s parity test in drop mode under `drop` (`CUDA_DROP`), each side
    /// limited to `timeout_s`: its log `<dir>/<file>.log` and the dropper's files under
    /// `<dir>/<file>/`, where `<dir>` is the program's folder.
    fn job(&self, program: &Program, drop: &str, file: &str, timeout_s: u64) -> Job {
        let dir = self.dir.join(&program.name);
        let mut command = test_command(self.here, &self.test, self.tag);
        command.args([
            "--exact",
            &program.test,
            "--nocapture",
            "--test-threads",
            "1",
        ]);
        command
            .env("CUDA_DROP", drop)
            .env("CUDA_DROP_LIBRARY", &self.dropper)
            .env("CUDA_DROP_DRIVER", &self.driver)
            .env("CUDA_DROP_OUT", dir.join(file))
            .env("CUDA_PARITY_TIMEOUT_S", timeout_s.to_string())
            .env_remove("CUDA_DROP_CONTROL");
        Job {
            command,
            log: dir.join(format!("{file}.log")),
            limit: test_limit(timeout_s),
        }
    }
}

/// Runs the part.
pub fn run(here: &Path, tag: &str, logs: &mut Logs) -> Result {
    let dir = logs.out.join("drop");
    println!(
        "== drop: each droppable driver call of the {tag} build's programs taken away, one run \
         each, both sides (tests/examples_parity-{tag}; logs in {})",
        dir.display()
    );
    let test = here.join(format!("tests/examples_parity-{tag}"));
    let dropper = here.join("lib/libcuda-drop.so");
    for (file, what) in [(&test, "parity test"), (&dropper, "dropper")] {
        if !file.is_file() {
            let why = "GPU_RUN_PARTS without drop runs the rest";
            return Err(format!("the bundle has no {what} {}: {why}", file.display()).into());
        }
    }
    let known = process::output(Command::new("ldconfig").arg("-p"))?;
    let driver = real_driver(&known).ok_or(
        "`ldconfig -p` lists no 64-bit libcuda.so.1: the dropper needs the machine's driver",
    )?;
    files::remove_dir(&dir)?;
    let setup = Setup {
        here,
        tag,
        test,
        dropper,
        driver,
        dir,
    };
    println!(
        "  the dropper {} in front of the machine's driver {} (ldconfig -p)",
        setup.dropper.display(),
        setup.driver.display()
    );
    part(&setup, logs)
}

/// The part's runs with `setup`: the list runs, the drop runs and the page's control, side by
/// side; `drops.txt` and the closing lines.
fn part(setup: &Setup, logs: &mut Logs) -> Result {
    let began = Instant::now();
    let (here, tag) = (setup.here, setup.tag);
    let listed = process::output(test_command(here, &setup.test, tag).arg("--list"))?;
    let built = |name: &str| here.join(format!("c-twins-{tag}/{name}")).is_file();
    let every: Vec<Program> = harness::programs(&listed, built)
        .into_iter()
        .map(|(test, name)| Program { test, name })
        .collect();
    let programs = picked(&every)?;
    let jobs = super::schedule::jobs("GPU_RUN_DROP_JOBS")?;
    println!(
        "  {} programs, {jobs} runs side by side (GPU_RUN_DROP_JOBS); each side of a drop run \
         stopped after {DROP_TIMEOUT_S} s (CUDA_PARITY_TIMEOUT_S), of a list run after \
         {LIST_TIMEOUT_S} s",
        programs.len()
    );
    for name in programs
        .iter()
        .map(|p| p.name.as_str())
        .chain([PAGE_CONTROL.program])
    {
        files::create_dir(&setup.dir.join(name))?;
    }
    let specs = list_runs(setup, &programs, jobs, logs);
    let control = every
        .iter()
        .find(|p| p.test == format!("group::{}", PAGE_CONTROL.program));
    let (runs, control_run) = drop_runs(setup, &programs, &specs, control, jobs, logs)?;
    let cost = Cost {
        build: tag.into(),
        list_runs: programs.len(),
        drop_runs: runs.len(),
        jobs,
        seconds: began.elapsed().as_secs(),
        programs: programs.iter().map(|p| p.name.clone()).collect(),
    };
    let drops = logs.out.join("drops.txt");
    let results = Results {
        runs,
        costs: vec![cost],
    };
    files::write(&drops, results.render())?;
    let control_runs = usize::from(control_run.is_some());
    page_control(control_run, &setup.dir, logs);
    summary(&results, &programs, control_runs, &drops);
    Ok(())
}

/// The real driver of the machine, from `ldconfig -p`'s output `known`: the first 64-bit
/// `libcuda.so.1`.
fn real_driver(known: &str) -> Option<PathBuf> {
    known.lines().find_map(|line| {
        let (name, path) = line.trim().split_once(" => ")?;
        let tags = name.strip_prefix("libcuda.so.1 (")?.strip_suffix(')')?;
        tags.contains("64").then(|| PathBuf::from(path))
    })
}

/// The programs of `every` that GPU_RUN_DROP_PROGRAMS names (all where it is not set); an error
/// names one the build lacks.
fn picked(every: &[Program]) -> Result<Vec<&Program>> {
    let Ok(names) = std::env::var("GPU_RUN_DROP_PROGRAMS") else {
        return Ok(every.iter().collect());
    };
    let mut picked = Vec::new();
    for name in names.split_whitespace() {
        let Some(program) = every.iter().find(|p| p.name == name) else {
            let all = Vec::from_iter(every.iter().map(|p| p.name.as_str())).join(" ");
            let error = format!("GPU_RUN_DROP_PROGRAMS: the build has no program `{name}` ({all})");
            return Err(error.into());
        };
        picked.push(program);
    }
    Ok(picked)
}

/// The list run of each of `programs`: the droppable calls of each (`None` where its run failed,
/// a failure printed and counted).
fn list_runs(
    setup: &Setup,
    programs: &[&Program],
    jobs: usize,
    logs: &mut Logs,
) -> Vec<Option<Vec<Spec>>> {
    let list = |p: &&Program| setup.job(p, "list", "list", LIST_TIMEOUT_S);
    let runs: Vec<Job> = programs.iter().map(list).collect();
    let logs_of = Vec::from_iter(runs.iter().map(|job| job.log.clone()));
    let mut specs = vec![None; programs.len()];
    run_side_by_side(runs, jobs, |i, ended, _| {
        let (program, log) = (programs[i], &logs_of[i]);
        let found = match ended {
            Ended::Exited(0) => {
                let text = files::read(log).unwrap_or_default();
                harness::droppable(&text, &program.name).map_err(|e| e.to_string())
            }
            Ended::Exited(code) => Err(format!("exit code {code}")),
            Ended::Stopped => Err(stopped(LIST_TIMEOUT_S)),
            Ended::Failed(why) => Err(why),
        };
        match found {
            Ok(found) => {
                remove_dropper_files(&setup.dir.join(&program.name).join("list"));
                specs[i] = Some(found);
            }
            Err(why) => {
                let name = format!("drop-list-{}", program.name);
                println!("{name:<44} FAILED ({why}; {})", log.display());
                logs.failures.push(name);
            }
        }
    });
    specs
}

/// The drop runs of `programs` (each with its droppable calls `specs`), and the page's control
/// (the group program `control` as `PAGE_CONTROL` says, where the build has it), side by side:
/// the runs in order, and the control's run. Prints a line for each program as its runs end.
fn drop_runs(
    setup: &Setup,
    programs: &[&Program],
    specs: &[Option<Vec<Spec>>],
    control: Option<&Program>,
    jobs: usize,
    logs: &mut Logs,
) -> Result<(Vec<DropRun>, Option<DropRun>)> {
    // Each run: its program's index (`programs.len()` for the control), and its drop.
    let mut planned: Vec<(usize, Spec)> = Vec::new();
    for (i, found) in specs.iter().enumerate() {
        planned.extend(found.iter().flatten().map(|spec| (i, spec.clone())));
    }
    let mut runs: Vec<Job> = Vec::from_iter(planned.iter().map(|(i, spec)| {
        let file = spec.file_stem();
        setup.job(programs[*i], &spec.to_string(), &file, DROP_TIMEOUT_S)
    }));
    let control_spec = Spec::parse(PAGE_CONTROL.drop)?;
    if let Some(program) = control {
        let mut job = setup.job(program, PAGE_CONTROL.drop, "page-control", DROP_TIMEOUT_S);
        job.command.env("CUDA_DROP_CONTROL", PAGE_CONTROL.name);
        runs.push(job);
        planned.push((programs.len(), control_spec));
    } else {
        println!(
            "{:<44} FAILED (the {} build has no group program {})",
            "drop-page-control", setup.tag, PAGE_CONTROL.program
        );
        logs.failures.push("drop-page-control".into());
    }
    let mut left: Vec<usize> = vec![0; programs.len() + 1];
    for (i, _) in &planned {
        left[*i] += 1;
    }
    // The programs without a droppable call are done already.
    for (i, program) in programs.iter().enumerate() {
        if specs[i].as_ref().is_some_and(Vec::is_empty) {
            tally(program, &[], &setup.dir, logs);
        }
    }
    let logs_of = Vec::from_iter(runs.iter().map(|job| job.log.clone()));
    let mut done: Vec<Option<DropRun>> = vec![None; planned.len()];
    run_side_by_side(runs, jobs, |r, ended, _| {
        let (i, spec) = &planned[r];
        let name = programs.get(*i).map_or(PAGE_CONTROL.program, |p| &p.name);
        let log = files::read(&logs_of[r]).unwrap_or_default();
        let run = match ended {
            Ended::Exited(code) => harness::drop_run(name, spec, Some(code), "", &log),
            Ended::Stopped => harness::drop_run(name, spec, None, &stopped(DROP_TIMEOUT_S), &log),
            Ended::Failed(why) => harness::drop_run(name, spec, None, &why, &log),
        };
        if run.agree {
            remove_dropper_files(&logs_of[r].with_extension(""));
        }
        done[r] = Some(run);
        left[*i] -= 1;
        if let Some(program) = programs.get(*i).filter(|_| left[*i] == 0) {
            let of_program = planned.iter().zip(&done).filter(|((p, _), _)| p == i);
            let ended = Vec::from_iter(of_program.filter_map(|(_, run)| run.as_ref()));
            tally(program, &ended, &setup.dir, logs);
        }
    });
    let control_run = control.and_then(|_| done.pop().flatten());
    Ok((done.into_iter().flatten().collect(), control_run))
}

/// What a run that the part stopped says: its limit, `timeout_s` for each side.
fn stopped(timeout_s: u64) -> String {
    let limit = test_limit(timeout_s).as_secs();
    format!("the parity test did not end within {limit} s: gpu-run stopped it and its processes")
}

/// Removes the dropper's files of a run that went as it must (the log keeps what they said).
fn remove_dropper_files(dir: &Path) {
    if let Err(e) = files::remove_dir(dir) {
        println!("  {e}");
    }
}

/// Prints the line of `program`, whose drop runs `ended` all ended: a failure (counted) where
/// any run's sides disagreed or its call never came, each such run after it.
fn tally(program: &Program, ended: &[&DropRun], dir: &Path, logs: &mut Logs) {
    let name = format!("drop-{}", program.name);
    let bad = Vec::from_iter(ended.iter().filter(|r| !r.agree));
    let n = ended.len();
    if n == 0 {
        println!("{name:<44} ok (no droppable call)");
        return;
    }
    if bad.is_empty() {
        println!(
            "{name:<44} ok ({n} drops: {})",
            counted(ended.iter().copied())
        );
        return;
    }
    let folder = dir.join(&program.name);
    println!(
        "{name:<44} FAILED ({} of {n} drops: the sides disagree or the call never came; {})",
        bad.len(),
        folder.display()
    );
    for run in bad {
        println!("  {}", run.line());
    }
    logs.failures.push(name);
}

/// How many of the runs `ended` (the sides agreeing) fall in each column, said in words.
fn counted<'a>(ended: impl IntoIterator<Item = &'a DropRun>) -> String {
    let counts = results::counts(ended.into_iter().filter(|r| r.agree));
    let words = counts
        .iter()
        .zip(results::COLUMNS)
        .map(|(n, column)| format!("{n} {column}"));
    Vec::from_iter(words).join(", ")
}

/// The page's control: its run must say PASS with both sides agreeing (its program, without the
/// check that notices the drop, misses it), and the page's report, given that row as a group
/// program's, must fail naming it.
fn page_control(run: Option<DropRun>, dir: &Path, logs: &mut Logs) {
    let Some(run) = run else {
        return;
    };
    let c = PAGE_CONTROL;
    let what = format!("{}, control {}, drop {}", c.program, c.name, c.drop);
    let name = "drop-page-control";
    if run.agree && run.verdict.passed() {
        println!(
            "{name:<44} ok ({what}: {}, as it must: without the check it disables, the program \
             misses the drop)",
            run.verdict
        );
    } else {
        let log = dir.join(c.program).join("page-control.log");
        println!(
            "{name:<44} FAILED ({what}: `{}`, not PASS; {})",
            run.line(),
            log.display()
        );
        logs.failures.push(name.into());
    }
    let name = "drop-page-report";
    let reasons = drop_reasons::table(drop_reasons::PASSING_DROPS);
    let checked = reasons.map(|reasons| {
        drop_reasons::explain(std::slice::from_ref(&run), |p| p == c.program, &reasons).err()
    });
    match checked {
        Ok(Some(problems)) if problems.unexplained.contains(&run.name()) => println!(
            "{name:<44} ok (the page's report over that row as {}'s fails, as it must: {} \
             passed: no reason)",
            c.program,
            run.name()
        ),
        Ok(_) => {
            println!(
                "{name:<44} FAILED (the page's report over that row as {}'s does not fail for \
                 it: not a passing drop, or PASSING_DROPS explains it)",
                c.program
            );
            logs.failures.push(name.into());
        }
        Err(e) => {
            println!("{name:<44} FAILED ({e})");
            logs.failures.push(name.into());
        }
    }
}

/// The part's closing lines: what it cost and found, and where the group programs' passing drops
/// stand against their reasons (`PASSING_DROPS`; the page fails on any such problem).
fn summary(results: &Results, programs: &[&Program], control_runs: usize, drops: &Path) {
    let runs = &results.runs;
    let cost = &results.costs[0];
    let bad = runs.iter().filter(|r| !r.agree).count();
    println!(
        "drop: {} runs in {} s of wall time (the part's device time), {} side by side: {} list \
         runs, {} drop runs ({}; {bad} with the sides disagreeing or the call never coming) and \
         {control_runs} of the page's control; {}",
        cost.list_runs + cost.drop_runs + control_runs,
        cost.seconds,
        cost.jobs,
        cost.list_runs,
        cost.drop_runs,
        counted(runs),
        drops.display()
    );
    let is_group = |name: &str| {
        programs
            .iter()
            .any(|p| p.name == name && p.test.starts_with("group::"))
    };
    let reasons = match drop_reasons::table(drop_reasons::PASSING_DROPS) {
        Ok(reasons) => reasons,
        Err(e) => return println!("drop: {e}"),
    };
    let ran = |program: &str| programs.iter().any(|p| p.name == program);
    let reasons = Vec::from_iter(reasons.into_iter().filter(|r| ran(r.program)));
    let passing = drop_reasons::passing(runs, is_group).len();
    match drop_reasons::explain(runs, is_group, &reasons) {
        Ok(_) => println!(
            "drop: {passing} passing drops of the group programs, each with its reason in \
             PASSING_DROPS; no reason left over"
        ),
        Err(problems) => println!(
            "drop: {passing} passing drops of the group programs: {} without a reason in \
             PASSING_DROPS, {} reasons that explain none (`cargo xtask coverage OUT` names them)",
            problems.unexplained.len(),
            problems.stale.len()
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::real_driver;
    use std::path::PathBuf;

    #[test]
    fn the_real_driver_is_the_64_bit_libcuda_so_1() {
        let known = "1234 libs found in cache `/etc/ld.so.cache'\n\
                     \tlibcudart.so.12 (libc6,x86-64) => /usr/lib/libcudart.so.12\n\
                     \tlibcuda.so.1 (libc6) => /usr/lib/i386-linux-gnu/libcuda.so.1\n\
                     \tlibcuda.so.1 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcuda.so.1\n\
                     \tlibcuda.so (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcuda.so\n";
        let want = PathBuf::from("/usr/lib/x86_64-linux-gnu/libcuda.so.1");
        assert_eq!(real_driver(known), Some(want));
        assert_eq!(
            real_driver("\tlibcuda.so (libc6,x86-64) => /x/libcuda.so\n"),
            None
        );
    }
}

#[cfg(test)]
mod bundle {
    use super::results::{DropRun, Results, Spec, Verdict};
    use super::{part, Setup};
    use crate::base::scratch::Scratch;
    use crate::gpu::run::log::Logs;
    use std::os::unix::fs::PermissionsExt;

    /// A parity test in drop mode: `vector_add` has no droppable call, `mem` three: one that
    /// fails its check, one that passes, one that never comes; as the page's control it passes
    /// (fails where the bundle has its examples' folder).
    const PARITY_TEST: &str = r#"#!/bin/sh
if [ "$1" = --list ]; then
  printf 'vector_add: test\ngroup::mem: test\ncontrol::mem_x: test\nevery_twin: test\n'
  exit 0
fi
[ -n "$CUDA_DROP_LIBRARY" ] && [ -n "$CUDA_DROP_DRIVER" ] && [ "$CUDA_EXAMPLES_DIR" ] || exit 9
name=${2#group::}
mkdir -p "$CUDA_DROP_OUT/$name-c"
case "$CUDA_DROP_CONTROL $CUDA_DROP" in
  " list") [ "$name" = mem ] && echo "mem: drops: cuMemcpyHtoD_v2:2 cuLaunchKernel:1@1" \
    || echo "$name: drops: none" ;;
  "no_copy_check cuMemcpyDtoH_v2:1") [ -e "$CUDA_EXAMPLES_DIR" ] && verdict=FAILED || verdict=PASS
    echo "mem: drop $CUDA_DROP: $verdict; both sides agree" ;;
  " cuMemcpyHtoD_v2:2") echo "mem: drop $CUDA_DROP: PASS; both sides agree" ;;
  " cuLaunchKernel:1@1") echo "mem: C twin: the call never came"; exit 101 ;;
  *) echo "mem: drop $CUDA_DROP: FAILED, first check: FAILED: bytes; both sides agree" ;;
esac
"#;

    #[test]
    fn the_part_runs_each_drop_and_the_control_and_writes_the_results() {
        let scratch = Scratch::new("drop-bundle").unwrap();
        let here = scratch.path();
        for dir in ["tests", "c-twins-9", "lib", "out"] {
            fs_err::create_dir(here.join(dir)).unwrap();
        }
        let test = here.join("tests/examples_parity-9");
        fs_err::write(&test, PARITY_TEST).unwrap();
        fs_err::set_permissions(&test, std::fs::Permissions::from_mode(0o755)).unwrap();
        for file in [
            "c-twins-9/mem",
            "c-twins-9/vector_add",
            "lib/libcuda-drop.so",
        ] {
            fs_err::write(here.join(file), "").unwrap();
        }
        let mut logs = Logs {
            out: here.join("out"),
            ..Logs::default()
        };
        let setup = Setup {
            here,
            tag: "9",
            test,
            dropper: here.join("lib/libcuda-drop.so"),
            driver: "/the/driver/libcuda.so.1".into(),
            dir: here.join("out/drop"),
        };
        part(&setup, &mut logs).unwrap();
        let results = Results::parse(&fs_err::read_to_string(here.join("out/drops.txt")).unwrap());
        let results = results.unwrap();
        let cost = &results.costs[0];
        assert_eq!((cost.list_runs, cost.drop_runs), (2, 3));
        assert_eq!(cost.programs, ["vector_add", "mem"]);
        let run = |spec: &str, verdict, agree, detail: Option<&str>| DropRun {
            program: "mem".into(),
            spec: Spec::parse(spec).unwrap(),
            verdict,
            agree,
            detail: detail.map(String::from),
        };
        let want = [
            run(
                "cuMemcpyHtoD_v2:1",
                Verdict::Failed,
                true,
                Some("FAILED: bytes"),
            ),
            run("cuMemcpyHtoD_v2:2", Verdict::Pass, true, None),
            run(
                "cuLaunchKernel:1@1",
                Verdict::Unknown,
                false,
                Some("the call never came"),
            ),
        ];
        assert_eq!(results.runs, want);
        // The list runs and the control passed; the call that never came failed its program.
        assert_eq!(logs.failures, ["drop-mem"]);
        // The dropper's files of the runs that went as they must are gone, the others' kept.
        let dir = here.join("out/drop/mem");
        assert!(!dir.join("cuMemcpyHtoD_v2-1").exists() && !dir.join("list").exists());
        assert!(dir.join("cuLaunchKernel-1-g1/mem-c").is_dir());
        assert!(dir.join("page-control.log").is_file());

        // A control that fails under its drop: the control fails, and so does the report's.
        fs_err::create_dir(here.join("examples-9")).unwrap();
        logs.failures.clear();
        part(&setup, &mut logs).unwrap();
        let failures = ["drop-mem", "drop-page-control", "drop-page-report"];
        assert_eq!(logs.failures, failures);
    }
}
