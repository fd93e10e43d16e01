//! Output parity of every example (`examples/<name>.rs`) with its C twin (`examples/<name>.cpp`),
//! and of every group program (`examples/groups/<name>.rs` and `.cpp`) built for this header.
//!
//! Each test runs the C twin (built by the tests' build script, `support/build.rs`, into
//! `env!("C_TWIN_DIR")`) and the Rust example (built by the test itself, once, with
//! `cargo build --examples` and the test's own features and profile, into
//! `target/<profile>/examples/`) with the same argument, the kernels folder, and
//! `CUDA_CACHE_DISABLE=1` (so that `ptx_link` compiles its PTX on each run and prints the same
//! info log), and requires the same exit code and the same stdout, compared in full, line by line,
//! after normalising only:
//!
//! 1. addresses: a hexadecimal number `0x<digits>` (lower case, as glibc's `%p` and Rust's `{:#x}`
//!    print) whose value is at least 2^32 and below 2^48 (9 to 12 significant digits) becomes
//!    `0xPTR#<n>`, `<n>` the number of that value among the distinct addresses of the side's
//!    output, by first appearance. Such a number is an address: a pointer or a handle
//!    (`CUcontext`, `CUmemoryPool`, a device or host address, a function's), whose value differs
//!    from run to run, but which object it is does not: a port printing `ctxB` where its twin
//!    prints `ctxA` differs (the numbering can be switched off in one place, `NUMBER_ADDRESSES` in
//!    module `output`, which makes every address `0xPTR`). On x86-64 Linux every address a
//!    program prints is in that range: user space ends at 2^47; the twins (linked with `-pie`,
//!    see `support/build.rs`) and the Rust examples are position-independent executables, whose
//!    heap and mappings lie above 4 GiB, and the driver puts device memory in the same address
//!    space (unified addressing). Every other hex number is compared as it is: flags and attribute
//!    values (`0x%x` of 32-bit values: at most 8 digits; `contexts`, `coredump_logs`,
//!    `graph_nodes`), the 64-bit word `stream_memops` checks (`0x1122334455667788`: 16 digits).
//!    C's `%p` of null, `(nil)`, is left as it is;
//! 2. `check_driver` reports: a report begins with `<file>.cpp:<line>  ` or `<file>.h:<line>  `
//!    (C's `__FILE__` and `__LINE__`: a twin's, or `common.h`'s, whose helpers check their calls
//!    too) or `<file>.rs:<line>  ` (Rust's `file!()`, `line!()`) and ends with ` failed. `,
//!    possibly several lines further on (a long Rust expression may be printed over several lines).
//!    The whole is one line `<file>:<line>  <callee>(…) failed. `, where `<callee>` is the
//!    expression text before its first `(`. The file and line necessarily differ; so does the
//!    expression text, which is C on one side (`cuCtxCreate(&ctxA, CU_CTX_SCHED_AUTO, device)`) and
//!    Rust on the other (`cuCtxCreate(&mut ctxA, CU_CTX_SCHED_AUTO.0, device)`). What is kept is
//!    which function failed, in which order, and the `code = ..., message = ...` line after it;
//! 3. `ptx_link`'s wall time: the number in `Link completed in <t>ms. Linker Output:` becomes `<T>`;
//! 4. the JIT's `Compile time = <t> ms`: the number becomes `<T>`.
//!
//! Without a GPU every example takes its error path and the outputs must still be identical. On a
//! GPU (`cuInit(0)` succeeds here, or `CUDA_EXPECT_GPU=1` says one must be there) each example and
//! its twin must also exit with 0, and those that check their results must print `Result = PASS`;
//! but for the posts' programs of a build whose header is newer than the driver: they ask
//! `cuGetProcAddress` for the header's `CUDA_VERSION`, which such a driver refuses, and so need a
//! driver at least as new as their header (their line says so; their outputs are still compared).
//!
//! The group programs are declared in the root `Cargo.toml` (`support/programs.rs`); the build
//! script compiles the twins of those whose oldest header is at most this one and writes their
//! tests, `group::<name>`. Every group program checks its results: on a GPU it prints
//! `Result = PASS`, with two exceptions:
//!
//! - **Waived.** A program that cannot test its point on the machine prints
//!   `Result = WAIVED: <why>` and exits with 100 (`WAIVED_EXIT_CODE`). Waived is not passed: on a
//!   GPU a program may be waived only where `TWO_GPUS` (`support/programs.rs`) lists it and the
//!   machine has fewer than two devices (`cuDeviceGetCount`), and there both sides must be; with
//!   two or more it must pass. Its line ends `Result = WAIVED: <why>`.
//! - **Under a tool.** The programs of `WITHOUT_TOOLS`, which the driver serves only without a
//!   tool attached: under `CUDA_INJECTION64_PATH` their outputs are compared, success is not
//!   required.
//!
//! **Controls.** Each entry of `CONTROLS` (`support/programs.rs`), a deliberately wrong variant of
//! a group program built for this header, has a test `control::<program>_<name>`, which runs both
//! sides with `CUDA_GROUP_CONTROL=<name>` (the normal runs have the variable removed) and compares
//! them as above. On a GPU both must exit with 1 and print `FAILED: <fails_with>` and
//! `Result = FAIL`: a control that passes fails the test, since the check it targets could not
//! fail. (A control of a `TWO_GPUS` program on fewer than two devices may be waived instead; one
//! of a `WITHOUT_TOOLS` program under a tool is only compared.)
//!
//! **Argument controls.** Each entry of `ARGUMENT_CONTROLS` (`support/programs.rs`), a wrong
//! argument in a group program's Rust side that the output does not show, has a test
//! `argument_control::<program>_<name>`, which runs the C twin plainly and the Rust example with
//! `CUDA_GROUP_CONTROL=<name>`, and requires all a program's run requires (the same output and
//! exit code; on a GPU, success). Where the trace is recorded (below), its comparison must fail
//! at a call of the control's entry (or its `_ptsz`/`_ptds` variant) naming the control's
//! argument, and the test passes only then, its line ending `the trace differs as the control
//! must: <the failing line>`; without a recorder it ends `no trace here (no recorder)`.
//!
//! **The driver-call trace.** Where `CUDA_INJECTION64_PATH` names the coverage recorder
//! (`ci/coverage/recorder.c`, which the driver loads from `cuInit`) and `CUDA_CALLS_DIR` a folder
//! (the GPU runner sets both for the whole test binary), each side runs with its own
//! `CUDA_CALLS_DIR`, `<dir>/<program>-c` and `<dir>/<program>-rust` (a control's or argument
//! control's: `<dir>/<program>-<control>-c` and `-rust`), emptied first, where the recorder writes
//! each of its processes' driver calls in order, per thread, as runs of calls in a row of one
//! entry with one result and the same arguments (module `trace`; the arguments, module
//! `arguments`: values, handles and addresses by their identity in the process, structures by
//! field, arrays by element). The two traces must be the same (module `compare`):
//!
//! - per process: the program's own, then those it starts (`ipc`'s and `checkpoint`'s children),
//!   paired by their place in the process tree (from each file's `# pid <pid> parent <pid>`:
//!   children in start order, by pid); both sides must have the same tree;
//! - per thread: threads are paired by their calls (a thread of the C twin with the thread of the
//!   Rust example whose runs compare equal, the same ordinal first), so that threads whose first
//!   calls raced pair all the same; the threads left are paired by ordinal, and compared;
//! - the sequence of (entry, result, count, arguments), exactly, but that the `cuGetProcAddress*`
//!   entries are set apart on both sides (the loader's, the table's and the typed entry points'
//!   own resolutions: `dynamic-loading` resolves each function on its first call, the C twin's
//!   linked calls resolve nothing), counted and said in the parity line, with whatever arguments
//!   they had; under `dynamic-loading` so is `cuDriverGetVersion`: the C twin's `entry()` asks the
//!   driver's version at its first lookup, as the Rust side's typed entry points do when linked,
//!   but the Rust loader asked it before `cuInit` (resolving `cuInit` itself), where the recorder
//!   does not see it, and keeps it; and a poll is settled: a run of `CUDA_ERROR_NOT_READY` (600:
//!   work still running) that the same entry's other result with the same arguments ends is taken
//!   out on both sides, and the runs that then meet merged (one side may find work done at once
//!   that the other polls for, as often as it takes); a poll that never ended stays, its count
//!   free.
//!
//! A difference fails the test, showing the first differing place (process, thread, the index of
//! the run on each side, both sides' runs); where the two runs are calls of one entry with one
//! result, it names the first argument that differs by its path (`hStream`,
//! `config.sharedMemBytes`, `config.attrs[1].value`, `kernelParams[2]`) with both sides' values
//! (a run of one side longer than the other's, whose next run is that entry's with other
//! arguments, is such a difference too). So does a side whose recorder could not subscribe
//! (`# cupti-error`), and, on a GPU, a side of which no process loaded the recorder. The calls
//! before `cuInit` (and its own) are not seen. A line of the format without arguments
//! (`<thread> <entry> <result> <count>`) reads as a call without them (`-`).
//!
//! **The drop mode** (module `drop`). Where the test binary's environment has `CUDA_DROP` and
//! `CUDA_DROP_LIBRARY` (the dropper, `ci/drop/`), each side of a program's test (the posts'
//! examples and the group programs, not the controls) runs with
//! `LD_PRELOAD=$CUDA_DROP_LIBRARY`, `CUDA_DROP`, `CUDA_DROP_DRIVER` (required: the real driver)
//! and `CUDA_DROP_DIR=$CUDA_DROP_OUT/<run>-c` and `-rust` (`CUDA_DROP_OUT` required; emptied
//! first), where each process writes its `<pid>.drops` file; `CUDA_DROP_CONTROL=<name>` runs both
//! sides as that control (`CUDA_GROUP_CONTROL`), the line's label `<program>, control <name>`.
//!
//! - `CUDA_DROP=list`: the ordinary parity run, with every check above, and the two sides' files
//!   must list the same droppable entries with the same calls per generation (the most calls a
//!   process of that generation made); a side that wrote none did not load the dropper. A second
//!   line follows the parity line: `<label>: drops: <entry>:<calls>[@<g>] ...`, in order of
//!   generation and first call, `@<g>` for the processes the program started (`drops: none`
//!   where there are none).
//! - `CUDA_DROP=<entry>:<k>[@<g>]`: both sides run (no trace) and each gets a verdict: `FAILED`
//!   (a group program's exit code 1 with `Result = FAIL`; a post program's exit code other than
//!   0), `PASS` (exit code 0 and, where the program prints one, `Result = PASS`),
//!   `crashed (<signal>)`, `stopped` (killed at the time limit: a hang counts as noticed) or
//!   `exit <n>`. Each side must have dropped that call (a file of generation `<g>` says
//!   `dropped <entry> <k>`; a side that crashed or was stopped before any process of that
//!   generation wrote its file is not held to it), else the test fails: the call never came. The
//!   sides agree where their verdicts are the same and, where neither crashed nor stopped, their
//!   normalised outputs and exit codes; else the test fails. Its one line:
//!   `<label>: drop <entry>:<k>[@<g>]: <verdict>[, first check: <line>]; both sides agree`, the
//!   first check the C twin's first `FAILED: ` line or `check_driver` report.
//!
//! One test per example; run with `--nocapture` to see a line per example
//! (`<name>: parity ok (<N> lines, exit code 0), Result = PASS; trace: 412 calls in 130 runs, 1
//! process, 1 thread, the same (cuGetProcAddress set apart: C 3, Rust 9), arguments compared`). On
//! a mismatch the test prints a diff of the normalised outputs (`-` C twin, `+` Rust example) and
//! fails.
//!
//! The compiled test binary can be carried to another machine (a GPU machine without cargo) with
//! the example binaries, the twins and the kernels; these variables say where they are there:
//! `CUDA_EXAMPLES_DIR` (the Rust examples, used as they are, no cargo needed; default: built into
//! `target/<profile>/examples` as said above), `CUDA_C_TWIN_DIR` (the twins; default: the build script's
//! `C_TWIN_DIR`), `CUDA_KERNELS_DIR` (the argument; default: `examples/kernels` of this checkout).
//! `CUDA_PARITY_TIMEOUT_S` limits each program's run (default 120 s). `CUDA_TEST_RUNNER` runs the
//! programs through an emulator (`tests/common`'s `target_command`).
//!
//! `CUDA_EXAMPLES_OUTPUT_DIR` compares outputs already captured instead of running the examples:
//! `<name>.stdout`, `<name>.stderr`, `<name>.code` (what `cargo xtask first-run` records of
//! `cargo run --example <name>` in a fresh clone).
//!
//! The modules, a concern each: `binaries` (where the programs are), `run` (running one),
//! `output` (normalising and diffing outputs), `trace` and `arguments` (reading the recorder's
//! traces), `compare` (comparing them), `verdict` (what a run requires beyond parity), `drop` (the
//! drop mode), `parity_test` (one test: its sides run and judged by those rules). This file holds
//! the test lists and the entry points.

#[path = "examples_parity/arguments.rs"]
mod arguments;
#[path = "examples_parity/binaries.rs"]
mod binaries;
mod common;
#[path = "examples_parity/compare.rs"]
mod compare;
#[path = "examples_parity/drop.rs"]
mod drop;
#[path = "examples_parity/output.rs"]
mod output;
#[path = "examples_parity/parity_test.rs"]
mod parity_test;
#[path = "examples_parity/run.rs"]
mod run;
#[path = "examples_parity/trace.rs"]
mod trace;
#[path = "examples_parity/verdict.rs"]
mod verdict;

use binaries::twin_dir;
use parity_test::Variant;

/// Every example: (name, whether it checks its results and prints `Result = PASS|FAIL`). The C
/// twins `examples/*.cpp` are the list `cargo xtask first-run` uses;
/// `every_twin_has_a_parity_test` fails, naming both lists, where this one differs from them.
const EXAMPLES: &[(&str, bool)] = &[
    ("driver_init", false),
    ("check_driver", false),
    ("context_stack", false),
    ("memory_alloc", false),
    ("vector_add", true),
    // cudaProfiler.h: the `interop` feature (not with dynamic-loading or table-only).
    #[cfg(feature = "interop")]
    ("profiler", true),
    ("ptx_jit", true),
    ("ptx_link", true),
    ("param_buffer", true),
    // CUDA 12.0 programs (cuGetProcAddress with its status; cuLibraryLoad* and CUkernel; the CUDA
    // 12 runtime): the examples need feature cuda-12000 or newer (../Cargo.toml).
    #[cfg(cuda_ge_12000)]
    ("proc_address", true),
    #[cfg(cuda_ge_12000)]
    ("context_independent_loading", true),
    // It also loads the CUDA runtime, libcudart.so.12 (Linux only): its twin is not built for
    // Windows.
    #[cfg(all(cuda_ge_12000, not(windows)))]
    ("runtime_interop", true),
];

macro_rules! parity_tests {
    ($($name:ident),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                crate::parity(stringify!($name));
            }
        )*
    };
}

parity_tests!(
    driver_init,
    check_driver,
    context_stack,
    memory_alloc,
    vector_add,
    ptx_jit,
    ptx_link,
    param_buffer,
);
#[cfg(feature = "interop")]
parity_tests!(profiler);
#[cfg(cuda_ge_12000)]
parity_tests!(proc_address, context_independent_loading);
#[cfg(all(cuda_ge_12000, not(windows)))]
parity_tests!(runtime_interop);

/// The group programs built for this header, one test each (written by the build script).
mod group {
    include!(concat!(env!("OUT_DIR"), "/group_programs.rs"));
}
use group::GROUP_PROGRAMS;

/// The controls of the group programs built for this header, one test each (written by the build
/// script): `control::<program>_<name>`.
mod control {
    include!(concat!(env!("OUT_DIR"), "/controls.rs"));
}

/// The argument controls of the group programs built for this header, one test each (written by
/// the build script): `argument_control::<program>_<name>`.
mod argument_control {
    include!(concat!(env!("OUT_DIR"), "/argument_controls.rs"));
}

/// What each example prints when the driver library cannot be loaded (`dynamic-loading`): the
/// `check_driver!` report of its first call, or, for the two that do not use it, their own error
/// path as the post wrote it (`driver_init` prints the code, and `cuGetErrorString`, which has no
/// driver either, gives no message; `vector_add` ignores `cuInit`'s result and finds no device).
#[cfg(feature = "dynamic-loading")]
const WITHOUT_DRIVER: &[(&str, &str)] = &[
    (
        "driver_init",
        "Initialize failed. code = 303, message = (null)",
    ),
    ("check_driver", NO_LIBRARY_REPORT),
    ("context_stack", NO_LIBRARY_REPORT),
    ("memory_alloc", NO_LIBRARY_REPORT),
    ("vector_add", "There is no device supporting CUDA."),
    ("profiler", "There is no device supporting CUDA."),
    ("ptx_jit", NO_LIBRARY_REPORT),
    ("ptx_link", NO_LIBRARY_REPORT),
    ("param_buffer", NO_LIBRARY_REPORT),
    ("proc_address", NO_LIBRARY_REPORT),
    ("context_independent_loading", NO_LIBRARY_REPORT),
    ("runtime_interop", NO_LIBRARY_REPORT),
];

/// The second line of `check_driver!`'s report where the library could not be loaded, up to the
/// loader's own message.
#[cfg(feature = "dynamic-loading")]
const NO_LIBRARY_REPORT: &str = "  code = <CUresult 303, not named: no driver library>, message = \
                                 <the CUDA driver library could not be loaded: tried libcuda.so.1 (";

/// Under `dynamic-loading` with no driver library reachable, every example starts (no loader
/// error before `main`), reports that the library could not be loaded (see [`WITHOUT_DRIVER`])
/// and ends with an exit code, not a signal. `cargo xtask dynamic-check` runs it (`--ignored`) with
/// an empty `LD_LIBRARY_PATH` on a machine where `ldconfig` knows no `libcuda`.
#[cfg(feature = "dynamic-loading")]
#[test]
#[ignore = "needs no driver library reachable: cargo xtask dynamic-check runs it"]
fn examples_start_without_the_driver_library() {
    use binaries::{examples_dir, kernels_dir};
    use run::run_with_args;
    let dir = examples_dir().unwrap_or_else(|e| panic!("{e}"));
    let mut problems = Vec::new();
    let examples = EXAMPLES.iter().map(|(name, _)| {
        let line = WITHOUT_DRIVER.iter().find(|(n, _)| n == name);
        (*name, line.expect("every example has its expected line").1)
    });
    // A group program's first call is check_driver!(cuInit(0)).
    let groups = GROUP_PROGRAMS.iter().map(|name| (*name, NO_LIBRARY_REPORT));
    for (name, expected) in examples.chain(groups) {
        let kernels = kernels_dir();
        let out = run_with_args("Rust example", &dir.join(name), &[kernels.as_os_str()])
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let first_line = out.stdout.lines().next().unwrap_or("");
        println!(
            "{name}: {}, {} lines; {first_line}",
            out.describe_status(),
            out.stdout.lines().count()
        );
        if out.status.code().is_none() || out.stderr.contains("error while loading shared") {
            problems.push(format!("{name}: {}: {}", out.describe_status(), out.stderr));
        } else if !out.stdout.lines().any(|l| l.starts_with(expected)) {
            problems.push(format!(
                "{name}: no line starting {expected:?} in:\n{}",
                out.stdout
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The examples that take a kernels folder (`argv[1]`).
#[cfg(unix)]
const TAKE_A_KERNELS_FOLDER: &[&str] = &[
    "vector_add",
    "profiler",
    "ptx_jit",
    "ptx_link",
    "param_buffer",
    "context_independent_loading",
    "runtime_interop",
];

/// Bad kernels folders, each example against its twin: the same stdout (normalised) and exit
/// code, and an exit code, never a signal: no argument, an empty one, a folder that does not
/// exist, one whose PTX files are cut in half, one where each PTX name is a directory, a 5,000-byte
/// path (longer than the system takes: both print it whole) and a folder whose name is not UTF-8.
/// The same code under every version: run once, by `cargo xtask bad-input` (`--ignored`).
#[cfg(unix)]
#[test]
#[ignore = "98 runs of the examples and twins: cargo xtask bad-input runs it once"]
fn bad_kernels_folders_behave_as_in_c() {
    use binaries::{examples_dir, kernels_dir};
    use output::{diff, normalise};
    use run::run_with_args;
    use std::ffi::{OsStr, OsString};
    use std::os::unix::ffi::OsStrExt;
    use std::path::Path;
    let kernels = kernels_dir();
    let scratch = std::env::temp_dir().join(format!("cuda-bad-kernels-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    let folder = |name: &OsStr, make: &dyn Fn(&Path, &[u8])| -> OsString {
        let dir = scratch.join(name);
        std::fs::create_dir_all(&dir).unwrap();
        for entry in std::fs::read_dir(&kernels).unwrap() {
            let path = entry.unwrap().path();
            if path.extension() == Some(OsStr::new("ptx")) {
                make(
                    &dir.join(path.file_name().unwrap()),
                    &std::fs::read(&path).unwrap(),
                );
            }
        }
        dir.into_os_string()
    };
    let truncated = folder(OsStr::new("truncated"), &|to, ptx| {
        std::fs::write(to, &ptx[..ptx.len() / 2]).unwrap()
    });
    let directories = folder(OsStr::new("directories"), &|to, _| {
        std::fs::create_dir(to).unwrap()
    });
    let not_utf8 = folder(OsStr::from_bytes(b"kernels-\xff\xfe"), &|to, ptx| {
        std::fs::write(to, ptx).unwrap()
    });
    let long: OsString = format!("/tmp/{}", "d/".repeat(2_500)).into();
    let cases: [(&str, Vec<&OsStr>); 7] = [
        ("missing", vec![]),
        ("empty", vec![OsStr::new("")]),
        ("garbage", vec![OsStr::new("/nonexistent/\u{1}garbage")]),
        ("truncated", vec![&truncated]),
        ("directory-named .ptx", vec![&directories]),
        ("very long", vec![&long]),
        ("non-UTF-8", vec![&not_utf8]),
    ];
    let examples = examples_dir().unwrap_or_else(|e| panic!("{e}"));
    let mut problems = Vec::new();
    let mut compared = 0;
    for (name, _) in EXAMPLES
        .iter()
        .filter(|(n, _)| TAKE_A_KERNELS_FOLDER.contains(n))
    {
        for (case, args) in &cases {
            let c = run_with_args("C twin", &twin_dir().join(name), args);
            let rust = run_with_args("Rust example", &examples.join(name), args);
            let (c, rust) = match (c, rust) {
                (Ok(c), Ok(rust)) => (c, rust),
                (c, rust) => {
                    problems.push(format!("{name}, {case}: {:?} / {:?}", c.err(), rust.err()));
                    continue;
                }
            };
            compared += 1;
            let (c_lines, rust_lines) = (normalise(&c.stdout), normalise(&rust.stdout));
            if c_lines != rust_lines {
                problems.push(format!(
                    "{name}, {case}: stdout differs (- C twin, + Rust example):\n{}",
                    diff(&c_lines, &rust_lines, 10)
                ));
            }
            if c.status.code().is_none() || c.status.code() != rust.status.code() {
                problems.push(format!(
                    "{name}, {case}: C twin {}, Rust example {}\n{}{}",
                    c.describe_status(),
                    rust.describe_status(),
                    c.stderr,
                    rust.stderr
                ));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    println!(
        "bad kernels folders: {compared} runs compared with the C twins ({} cases, {} examples)",
        cases.len(),
        compared / cases.len()
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(compared >= 5 * cases.len(), "only {compared} runs compared");
}

/// The twins built are exactly the examples and group programs tested here (a new twin of
/// `examples/` needs its test; the group programs' tests are written from their declarations).
#[test]
fn every_twin_has_a_parity_test() {
    let dir = twin_dir();
    let mut twins: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot list the C twins in {}: {e}", dir.display()))
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .map(|n| {
            n.strip_suffix(std::env::consts::EXE_SUFFIX)
                .unwrap_or(&n)
                .to_string()
        })
        // The profiler example needs the `interop` feature (not with dynamic-loading or
        // table-only); its twin is built regardless.
        .filter(|n| cfg!(feature = "interop") || n != "profiler")
        .collect();
    twins.sort();
    let mut names: Vec<String> = EXAMPLES.iter().map(|(n, _)| n.to_string()).collect();
    names.extend(GROUP_PROGRAMS.iter().map(|n| n.to_string()));
    names.sort();
    assert_eq!(
        twins,
        names,
        "the C twins in {} are not the examples this test compares",
        dir.display()
    );
}

/// Runs the twin and the example `name` and compares them; panics with every difference found.
fn parity(name: &str) {
    parity_test::check(name, Variant::Program)
}

/// Runs the control `name` of the group program `program` (`control::` tests).
// Windows builds no group program, so none of these tests.
#[cfg_attr(windows, allow(dead_code))]
fn control(program: &str, name: &str, fails_with: &str) {
    parity_test::check(program, Variant::Control { name, fails_with })
}

/// Runs the argument control `name` of the group program `program` (`argument_control::` tests).
// The headers older than every argument control's program, and Windows, build none of these tests.
#[allow(dead_code)]
fn argument_control(program: &str, name: &str, entry: &str, path: &str) {
    parity_test::check(program, Variant::Arguments { name, entry, path })
}
