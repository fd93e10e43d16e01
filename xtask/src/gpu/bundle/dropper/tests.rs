//! The dropper's own tests, without a GPU: the dropper built for a few entries, a fake driver
//! (`ci/drop/tests/fake_driver.c`, which logs every call with its arguments) and a test program
//! (`calls.c`, linked against the fake `libcuda.so.1`, and built again linking no driver) that
//! reaches the driver in every way a program does. Each check ([`CHECKS`]) compares runs through
//! the dropper with runs on the fake driver alone; each deliberate fault of the dropper
//! ([`MUTANTS`], its `DROP_MUTANT_*` macros) must fail the checks named beside it.

use super::{build, compile, LIBRARY};
use crate::base::scratch::Scratch;
use crate::base::{elf, process, prototypes};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The entries the test dropper exports: those of `ci/drop/tests/driver.h`, and `cuMemsetD8_v2`,
/// which the fake driver lacks.
const ENTRIES: &[&str] = &[
    "cuDriverGetVersion",
    "cuEGLStreamProducerPresentFrame",
    "cuGetProcAddress",
    "cuGetProcAddress_v2",
    "cuInit",
    "cuLaunchKernel",
    "cuMemPrefetchAsync_v2",
    "cuMemcpyHtoD_v2",
    "cuMemsetD8_v2",
    "cuParamSetf",
];

/// The droppable entries one round of `calls.c` calls, in the order of their first calls.
const DROPPABLE: &[&str] = &[
    "cuMemcpyHtoD_v2",
    "cuLaunchKernel",
    "cuParamSetf",
    "cuMemPrefetchAsync_v2",
];

/// What the fake driver answers (`FAKE_RESULT` in `driver.h`).
const FAKE_RESULT: &str = "999";

/// A check: its name, and a function of the built programs and the dropper's path that says
/// what went wrong, if anything did.
type Check = (&'static str, fn(&Built, &Path) -> Result<(), String>);

/// Every check.
const CHECKS: &[Check] = &[
    ("list linked", |b, d| list(b, d, Program::Linked, "linked")),
    ("list dlsym", |b, d| list(b, d, Program::Dynamic, "dlsym")),
    ("list proc", |b, d| list(b, d, Program::Dynamic, "proc")),
    ("list proc_v2", |b, d| {
        list(b, d, Program::Dynamic, "proc_v2")
    }),
    ("drop linked", |b, d| {
        drop_each(b, d, Program::Linked, "linked")
    }),
    ("drop dlsym", |b, d| {
        drop_each(b, d, Program::Dynamic, "dlsym")
    }),
    ("drop proc", |b, d| {
        drop_each(b, d, Program::Dynamic, "proc")
    }),
    ("drop proc_v2", |b, d| {
        drop_each(b, d, Program::Dynamic, "proc_v2")
    }),
    ("missing", missing),
    ("threads", threads),
    ("child", child),
    ("fork", fork),
    ("fork exec", fork_exec),
    ("exec", exec),
    ("no driver", no_driver),
    ("bad CUDA_DROP", bad_drop),
];

/// Each deliberate fault of the dropper (`-D<macro>`), and the checks that must fail on it.
const MUTANTS: &[(&str, &[&str])] = &[
    ("DROP_MUTANT_LATE", &DROPS),
    ("DROP_MUTANT_NEVER", &DROPS),
    ("DROP_MUTANT_PER_THREAD", &["threads"]),
    ("DROP_MUTANT_KEEP_RDI", &["list linked", "list dlsym"]),
    (
        "DROP_MUTANT_REAL_POINTERS",
        &["list proc", "list proc_v2", "drop proc", "drop proc_v2"],
    ),
    (
        "DROP_MUTANT_SAME_GENERATION",
        &["child", "fork", "fork exec"],
    ),
];

/// The checks of a drop, one per way of reaching the driver.
const DROPS: [&str; 4] = ["drop linked", "drop dlsym", "drop proc", "drop proc_v2"];

#[test]
fn the_dropper_forwards_counts_and_drops() {
    let built = Built::new();
    let dropper = built.dropper(None);
    let failed: Vec<String> = CHECKS
        .iter()
        .filter_map(|(name, check)| {
            check(&built, &dropper)
                .err()
                .map(|e| format!("{name}: {e}"))
        })
        .collect();
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

#[test]
fn each_mutant_fails_its_check() {
    let built = Built::new();
    for (mutant, names) in MUTANTS {
        let dropper = built.dropper(Some(mutant));
        for name in *names {
            let (_, check) = CHECKS.iter().find(|(n, _)| n == name).expect("a check");
            match check(&built, &dropper) {
                Ok(()) => panic!("{mutant}: the check `{name}` passed"),
                Err(e) => eprintln!("{mutant}: caught by `{name}`: {e}"),
            }
        }
    }
}

/// The bundle's dropper builds for every function of the bindings, and exports those and nothing
/// else.
#[test]
fn the_bundles_dropper_exports_every_function() {
    let out = Scratch::new("dropper-bundle").unwrap();
    build(out.path()).unwrap();
    let exported = elf::symbols(&out.path().join("lib").join(LIBRARY), false).unwrap();
    let functions = prototypes::functions().unwrap();
    assert_eq!(std::collections::BTreeSet::from_iter(exported), functions);
}

/// The two builds of `calls.c`.
#[derive(Clone, Copy)]
enum Program {
    /// Linked against the fake `libcuda.so.1`.
    Linked,
    /// Linking no driver: it reaches one through `dlopen("libcuda.so.1")`.
    Dynamic,
}

/// The fake driver and the test programs, built in a scratch folder.
struct Built {
    dir: Scratch,
    runs: AtomicUsize,
}

/// `cc` with the flags of every build here, and `args`.
fn cc(args: &[&str]) -> Command {
    let mut cc = process::command(std::env::var("CC").unwrap_or_else(|_| "cc".into()));
    cc.args(["-O2", "-Wall", "-Wextra", "-Werror"]);
    cc.arg(format!("-I{}", sources().display()));
    cc.args(args);
    cc
}

fn sources() -> PathBuf {
    process::root().join("ci/drop/tests")
}

impl Built {
    fn new() -> Built {
        let dir = Scratch::new("dropper-tests").unwrap();
        let fake = dir.path().join("fake");
        std::fs::create_dir(&fake).unwrap();
        let path = |p: &Path| p.to_string_lossy().into_owned();
        let library = path(&fake.join("libcuda.so.1"));
        let fake_c = path(&sources().join("fake_driver.c"));
        let calls_c = path(&sources().join("calls.c"));
        let shared = [
            "-shared",
            "-fPIC",
            "-Wl,-Bsymbolic",
            "-Wl,-soname,libcuda.so.1",
        ];
        process::run(cc(&shared).args([&fake_c, "-o", &library])).unwrap();
        let linked = path(&dir.path().join("calls-linked"));
        let link = format!("-L{}", path(&fake));
        process::run(cc(&["-DLINKED", &calls_c, "-o", &linked, &link]).args([
            "-l:libcuda.so.1",
            "-ldl",
            "-lpthread",
        ]))
        .unwrap();
        let dynamic = path(&dir.path().join("calls-dynamic"));
        process::run(&mut cc(&[&calls_c, "-o", &dynamic, "-ldl", "-lpthread"])).unwrap();
        Built {
            dir,
            runs: AtomicUsize::new(0),
        }
    }

    /// The dropper for [`ENTRIES`], with the fault `mutant` where one is given.
    fn dropper(&self, mutant: Option<&str>) -> PathBuf {
        let work = self.dir.path().join(mutant.unwrap_or("dropper"));
        std::fs::create_dir(&work).unwrap();
        let library = work.join(LIBRARY);
        compile(ENTRIES, &Vec::from_iter(mutant), &work, &library).unwrap();
        library
    }

    fn fake_driver(&self) -> PathBuf {
        self.dir.path().join("fake/libcuda.so.1")
    }

    fn program(&self, program: Program) -> PathBuf {
        self.dir.path().join(match program {
            Program::Linked => "calls-linked",
            Program::Dynamic => "calls-dynamic",
        })
    }

    /// Runs `program how` on the fake driver: through the dropper `dropper` where one is given,
    /// its driver the fake, with `CUDA_DROP=drop` and the environment `more`.
    fn run(
        &self,
        dropper: Option<&Path>,
        program: Program,
        how: &str,
        drop: &str,
        more: &[(&str, &str)],
    ) -> Run {
        let n = self.runs.fetch_add(1, Ordering::Relaxed);
        let folder = self.dir.path().join(format!("run-{n}"));
        let drops = folder.join("drops");
        std::fs::create_dir_all(&drops).unwrap();
        let log = folder.join("driver.log");
        let mut command = Command::new(self.program(program));
        command.arg(how);
        for name in [
            "LD_PRELOAD",
            "CUDA_DROP",
            "CUDA_DROP_DIR",
            "CUDA_DROP_DRIVER",
            "CUDA_DROP_GENERATION",
        ] {
            command.env_remove(name);
        }
        // The fake driver on the loader path, where the real one may be: even so, the dropper is
        // the libcuda.so.1 a program gets.
        command
            .env("LD_LIBRARY_PATH", self.dir.path().join("fake"))
            .env("FAKE_DRIVER_LOG", &log);
        if let Some(dropper) = dropper {
            command
                .env("LD_PRELOAD", dropper)
                .env("CUDA_DROP_DRIVER", self.fake_driver())
                .env("CUDA_DROP", drop)
                .env("CUDA_DROP_DIR", &drops);
        }
        command.envs(more.iter().copied());
        let out = command.output().unwrap();
        let text = |bytes: Vec<u8>| String::from_utf8(bytes).unwrap();
        let mut files: Vec<Drops> = std::fs::read_dir(&drops)
            .unwrap()
            .map(|f| Drops::parse(&std::fs::read_to_string(f.unwrap().path()).unwrap()))
            .collect();
        files.sort_by_key(|f| (f.generation, f.pid));
        Run {
            status: out.status,
            stdout: text(out.stdout),
            stderr: text(out.stderr),
            log: std::fs::read_to_string(&log).unwrap_or_default(),
            drops: files,
        }
    }
}

/// What a run did.
struct Run {
    /// How it ended.
    status: ExitStatus,
    stdout: String,
    stderr: String,
    /// The fake driver's log: a line per call it received, with the arguments.
    log: String,
    /// The `.drops` files its processes wrote, by generation, then pid.
    drops: Vec<Drops>,
}

impl Run {
    /// An error unless the run exited with 0 and wrote nothing on stderr.
    fn clean(&self) -> Result<(), String> {
        match (self.status.success(), self.stderr.as_str()) {
            (true, "") => Ok(()),
            (_, stderr) => Err(format!("{}, stderr {stderr:?}", self.status)),
        }
    }

    /// The one `.drops` file of generation 0.
    fn program_drops(&self) -> Result<&Drops, String> {
        match self.drops.as_slice() {
            [one] if one.generation == 0 => Ok(one),
            files => Err(format!(
                "{} .drops files, not one of generation 0",
                files.len()
            )),
        }
    }
}

/// A `.drops` file.
#[derive(Debug)]
struct Drops {
    exe: String,
    pid: u32,
    parent: u32,
    generation: u32,
    /// Its `<entry> <calls>` lines.
    calls: Vec<String>,
    /// Its `dropped <entry> <k>` lines, without `dropped `.
    dropped: Vec<String>,
}

impl Drops {
    fn parse(text: &str) -> Drops {
        let mut lines = text.lines();
        let exe = lines.next().and_then(|l| l.strip_prefix("# exe ")).unwrap();
        let ids: Vec<&str> = lines.next().unwrap().split(' ').collect();
        let ["#", "pid", pid, "parent", parent, "generation", generation] = ids[..] else {
            panic!("not a .drops header: {text}");
        };
        let (dropped, calls): (Vec<&str>, Vec<&str>) =
            lines.partition(|l| l.starts_with("dropped "));
        Drops {
            exe: exe.to_string(),
            pid: pid.parse().unwrap(),
            parent: parent.parse().unwrap(),
            generation: generation.parse().unwrap(),
            calls: calls.into_iter().map(String::from).collect(),
            dropped: dropped.iter().map(|l| l[8..].to_string()).collect(),
        }
    }
}

/// An error naming `what` unless `got` is `want`.
fn same<T: PartialEq + std::fmt::Debug>(what: &str, got: T, want: T) -> Result<(), String> {
    match got == want {
        true => Ok(()),
        false => Err(format!("{what}: got {got:?}, want {want:?}")),
    }
}

/// An error naming `what` and the first line where `got` differs from `want`, unless they are
/// the same text.
fn same_text(what: &str, got: &str, want: &str) -> Result<(), String> {
    let (mut got_lines, mut want_lines) = (got.lines(), want.lines());
    for line in 1.. {
        match (got_lines.next(), want_lines.next()) {
            (None, None) => break,
            (g, w) if g == w => continue,
            (g, w) => return Err(format!("{what}, line {line}: got {g:?}, want {w:?}")),
        }
    }
    same(what, got, want)
}

/// The `<entry> <calls>` lines of a process that made `calls` calls of each of `entries`.
fn counted(entries: &[&str], calls: u32) -> Vec<String> {
    entries.iter().map(|e| format!("{e} {calls}")).collect()
}

/// `CUDA_DROP=list`: the program prints what it prints on the fake driver alone, the driver
/// receives the same calls with the same arguments, and the `.drops` file counts them.
fn list(built: &Built, dropper: &Path, program: Program, how: &str) -> Result<(), String> {
    let plain = built.run(None, program, how, "", &[]);
    plain.clean()?;
    let run = built.run(Some(dropper), program, how, "list", &[]);
    run.clean()?;
    same_text("the output", &run.stdout, &plain.stdout)?;
    same_text("the driver's log", &run.log, &plain.log)?;
    let drops = run.program_drops()?;
    same("the counts", &drops.calls, &counted(DROPPABLE, 3))?;
    same("the drops", &drops.dropped, &vec![])?;
    let exe = built.program(program).to_string_lossy().into_owned();
    same("the program", &drops.exe, &exe)?;
    same("the parent", drops.parent, std::process::id())
}

/// `CUDA_DROP=<entry>:2` for each droppable entry: that call alone answers 0 and never reaches the
/// driver; the others do, and are counted; the `.drops` file says `dropped <entry> 2`.
fn drop_each(built: &Built, dropper: &Path, program: Program, how: &str) -> Result<(), String> {
    let plain = built.run(None, program, how, "", &[]);
    for entry in DROPPABLE {
        let run = built.run(Some(dropper), program, how, &format!("{entry}:2"), &[]);
        run.clean()?;
        let answered = format!("{how} {entry} 2 -> {FAKE_RESULT}\n");
        let want = plain
            .stdout
            .replace(&answered, &format!("{how} {entry} 2 -> 0\n"));
        same_text(&format!("{entry}:2: the output"), &run.stdout, &want)?;
        let second = plain
            .log
            .lines()
            .filter(|l| l.starts_with(&format!("{entry} ")));
        let second = second
            .clone()
            .nth(1)
            .ok_or("the entry has no second call")?;
        let want: String = (plain.log.lines())
            .filter(|l| *l != second)
            .map(|l| format!("{l}\n"))
            .collect();
        same_text(&format!("{entry}:2: the driver's log"), &run.log, &want)?;
        let drops = run.program_drops()?;
        same("the counts", &drops.calls, &counted(DROPPABLE, 3))?;
        same("the drops", &drops.dropped, &vec![format!("{entry} 2")])?;
    }
    Ok(())
}

/// An entry the driver lacks answers CUDA_ERROR_NOT_FOUND and is not counted; cuGetProcAddress
/// hands out nothing for it.
fn missing(built: &Built, dropper: &Path) -> Result<(), String> {
    let run = built.run(Some(dropper), Program::Dynamic, "missing", "list", &[]);
    run.clean()?;
    let want = "missing cuMemsetD8_v2 1 -> 500\nmissing proc cuMemsetD8 -> 500, none\n";
    same("the output", run.stdout.as_str(), want)?;
    same("the counts", &run.program_drops()?.calls, &vec![])
}

/// The calls of every thread count together: two threads one after the other (the second's call
/// is the entry's second), four at once (2000 calls).
fn threads(built: &Built, dropper: &Path) -> Result<(), String> {
    let plain = built.run(None, Program::Dynamic, "threads", "", &[]);
    let run = built.run(Some(dropper), Program::Dynamic, "threads", "list", &[]);
    run.clean()?;
    same_text("the output", &run.stdout, &plain.stdout)?;
    let want = vec!["cuMemcpyHtoD_v2 2".to_string(), "cuParamSetf 2000".into()];
    same("the counts", &run.program_drops()?.calls, &want)?;
    let run = built.run(
        Some(dropper),
        Program::Dynamic,
        "threads",
        "cuMemcpyHtoD_v2:2",
        &[],
    );
    let want = plain.stdout.replace("2 -> 999", "2 -> 0");
    same_text("cuMemcpyHtoD_v2:2: the output", &run.stdout, &want)?;
    let run = built.run(
        Some(dropper),
        Program::Dynamic,
        "threads",
        "cuParamSetf:1000",
        &[],
    );
    let want = plain.stdout.replace("2000 answered", "1999 answered");
    same_text("cuParamSetf:1000: the output", &run.stdout, &want)?;
    let drops = run.program_drops()?;
    same(
        "the drops",
        &drops.dropped,
        &vec!["cuParamSetf 1000".into()],
    )
}

/// A process the program starts is of generation 1: it counts its own calls, and drops only
/// under `@1`; the program's calls are of generation 0.
fn child(built: &Built, dropper: &Path) -> Result<(), String> {
    let plain = built.run(None, Program::Dynamic, "child", "", &[]);
    generations(built, dropper, "child", &plain, &counted(DROPPABLE, 3))?;
    let run = built.run(
        Some(dropper),
        Program::Dynamic,
        "child",
        "cuMemcpyHtoD_v2:2@1",
        &[],
    );
    run.clean()?;
    let without = |line: &str| plain.log.replace(&format!("{line}\n"), "");
    same_text(
        "@1: the driver's log",
        &run.log,
        &without("cuMemcpyHtoD_v2 0x2001 bytes-2 9"),
    )?;
    let drops: Vec<&Vec<String>> = run.drops.iter().map(|d| &d.dropped).collect();
    same(
        "@1: the drops",
        drops,
        vec![&vec![], &vec!["cuMemcpyHtoD_v2 2".into()]],
    )?;
    let run = built.run(
        Some(dropper),
        Program::Dynamic,
        "child",
        "cuMemcpyHtoD_v2:2",
        &[],
    );
    same_text(
        "@0: the driver's log",
        &run.log,
        &without("cuMemcpyHtoD_v2 0xc001 bytes-12 19"),
    )
}

/// A fork()ed child is of generation 1, its counts from zero.
fn fork(built: &Built, dropper: &Path) -> Result<(), String> {
    let plain = built.run(None, Program::Dynamic, "fork", "", &[]);
    generations(
        built,
        dropper,
        "fork",
        &plain,
        &counted(&["cuMemcpyHtoD_v2"], 2),
    )?;
    let run = built.run(
        Some(dropper),
        Program::Dynamic,
        "fork",
        "cuMemcpyHtoD_v2:2@1",
        &[],
    );
    let want = plain.stdout.replace(
        "forked cuMemcpyHtoD_v2 23 -> 999",
        "forked cuMemcpyHtoD_v2 23 -> 0",
    );
    same_text("@1: the output", &run.stdout, &want)
}

/// A fork()ed child that runs a program is of generation 1 (the fork()ed child's environment
/// gives the program its generation).
fn fork_exec(built: &Built, dropper: &Path) -> Result<(), String> {
    let plain = built.run(None, Program::Dynamic, "forkexec", "", &[]);
    generations(built, dropper, "forkexec", &plain, &counted(DROPPABLE, 3))
}

/// A process that runs a program in its place (exec) keeps its generation, 0; its `.drops` file
/// is that program's.
fn exec(built: &Built, dropper: &Path) -> Result<(), String> {
    let plain = built.run(None, Program::Dynamic, "exec", "", &[]);
    let run = built.run(Some(dropper), Program::Dynamic, "exec", "list", &[]);
    run.clean()?;
    same_text("the output", &run.stdout, &plain.stdout)?;
    let drops = run.program_drops()?;
    same("the counts", &drops.calls, &counted(DROPPABLE, 3))
}

/// `how` under `CUDA_DROP=list` prints what it printed on the fake driver alone (`plain`) and
/// leaves two `.drops` files: the program's (generation 0, two copies) and its child's
/// (generation 1, its parent the program, the counts `child`).
fn generations(
    built: &Built,
    dropper: &Path,
    how: &str,
    plain: &Run,
    child: &[String],
) -> Result<(), String> {
    plain.clean()?;
    let run = built.run(Some(dropper), Program::Dynamic, how, "list", &[]);
    run.clean()?;
    same_text("the output", &run.stdout, &plain.stdout)?;
    let [program, started] = run.drops.as_slice() else {
        return Err(format!("{} .drops files, not two", run.drops.len()));
    };
    let ids = |d: &Drops| (d.generation, d.parent);
    same(
        "the program's generation, parent",
        ids(program),
        (0, std::process::id()),
    )?;
    same(
        "the child's generation, parent",
        ids(started),
        (1, program.pid),
    )?;
    same(
        "the program's counts",
        &program.calls,
        &counted(&["cuMemcpyHtoD_v2"], 2),
    )?;
    same("the child's counts", &started.calls, &child.to_vec())
}

/// Without a usable `CUDA_DROP_DRIVER` every call answers CUDA_ERROR_NOT_INITIALIZED (3), after
/// one line on stderr saying what to set; nothing reaches a driver.
fn no_driver(built: &Built, dropper: &Path) -> Result<(), String> {
    let plain = built.run(None, Program::Linked, "linked", "", &[]);
    let refused = plain
        .stdout
        .replace(&format!("-> {FAKE_RESULT}"), "-> 3")
        .replace("-> 0, 12345", "-> 3, 0");
    let itself = dropper.to_string_lossy();
    for (driver, why) in [
        ("", "CUDA_DROP_DRIVER is not set"),
        ("libcuda.so.1", "CUDA_DROP_DRIVER is not an absolute path"),
        (
            "/nonexistent/libcuda.so.1",
            "/nonexistent/libcuda.so.1: cannot open",
        ),
        (&itself, "CUDA_DROP_DRIVER names the dropper itself"),
    ] {
        let more = [("CUDA_DROP_DRIVER", driver)];
        let run = built.run(Some(dropper), Program::Linked, "linked", "list", &more);
        same(
            &format!("{driver:?}: the exit code"),
            run.status.code(),
            Some(0),
        )?;
        same_text(&format!("{driver:?}: the output"), &run.stdout, &refused)?;
        same(
            &format!("{driver:?}: the driver's log"),
            run.log.as_str(),
            "",
        )?;
        let line = format!("libcuda-drop: {why}");
        let says = run.stderr.starts_with(&line) && run.stderr.lines().count() == 1;
        let sets = run
            .stderr
            .contains("set CUDA_DROP_DRIVER to the absolute path");
        if !(says && sets) {
            return Err(format!(
                "{driver:?}: stderr {:?}, not one line `{line}...`",
                run.stderr
            ));
        }
    }
    Ok(())
}

/// A `CUDA_DROP` or `CUDA_DROP_GENERATION` the dropper cannot follow ends the program at its first
/// driver call with exit code 2, after one line on stderr; nothing reaches the driver.
fn bad_drop(built: &Built, dropper: &Path) -> Result<(), String> {
    let long = format!("cuLaunchKernel:1@{}", "0".repeat(70));
    for (drop, generation, why) in [
        (
            "cuInit:1",
            None,
            "CUDA_DROP=cuInit:1: cuInit may not be dropped",
        ),
        (
            "cuNoSuchEntry:1",
            None,
            "no driver entry is named cuNoSuchEntry",
        ),
        ("cuLaunchKernel", None, "names no call"),
        (
            "cuLaunchKernel:0",
            None,
            "the call after : is not a whole number from 1",
        ),
        (
            "cuLaunchKernel:x",
            None,
            "the call after : is not a whole number from 1",
        ),
        (
            "cuLaunchKernel:-1",
            None,
            "the call after : is not a whole number from 1",
        ),
        (
            "cuLaunchKernel:1@x",
            None,
            "the generation after @ is not a whole number",
        ),
        (&long, None, "what follows : is too long"),
        (
            "list",
            Some("-1"),
            "CUDA_DROP_GENERATION=-1 is not a generation",
        ),
    ] {
        let more = Vec::from_iter(generation.map(|g| ("CUDA_DROP_GENERATION", g)));
        let run = built.run(Some(dropper), Program::Linked, "linked", drop, &more);
        same(
            &format!("{drop}: the exit code"),
            run.status.code(),
            Some(2),
        )?;
        same(&format!("{drop}: the driver's log"), run.log.as_str(), "")?;
        let says = run.stderr.contains(why) && run.stderr.lines().count() == 1;
        if !(says
            && run
                .stderr
                .contains("set CUDA_DROP=list, or CUDA_DROP=<entry>:<k>"))
        {
            return Err(format!(
                "{drop}: stderr {:?}, not one line saying `{why}`",
                run.stderr
            ));
        }
    }
    Ok(())
}
