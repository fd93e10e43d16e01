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
//!    `0xPTR`. Such a number is an address: a pointer or a handle (`CUcontext`, `CUmemoryPool`,
//!    a device or host address, a function's), which differs from run to run. On x86-64 Linux
//!    every address a program prints is in that range: user space ends at 2^47; the twins (linked
//!    with `-pie`, see `support/build.rs`) and the Rust examples are position-independent
//!    executables, whose heap and mappings lie above 4 GiB, and the driver puts device memory in
//!    the same address space (unified addressing). Every other hex number is compared as it is:
//!    flags and attribute values (`0x%x` of 32-bit values: at most 8 digits; `contexts`,
//!    `coredump_logs`, `graph_nodes`), the 64-bit word `stream_memops` checks
//!    (`0x1122334455667788`: 16 digits). C's `%p` of null, `(nil)`, is left as it is;
//! 2. `check_driver` reports: a report begins with `<file>.cpp:<line>  ` (C's `__FILE__` and
//!    `__LINE__`) or `<file>.rs:<line>  ` (Rust's `file!()`, `line!()`) and ends with ` failed. `,
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
//! **The driver-call trace.** Where `CUDA_INJECTION64_PATH` names the coverage recorder
//! (`ci/coverage/recorder.c`, which the driver loads from `cuInit`) and `CUDA_CALLS_DIR` a folder
//! (the GPU runner sets both for the whole test binary), each side runs with its own
//! `CUDA_CALLS_DIR`, `<dir>/<program>-c` and `<dir>/<program>-rust` (a control's:
//! `<dir>/<program>-<control>-c` and `-rust`), emptied first, where the recorder writes each of its
//! processes' driver calls in order, per thread, as runs of calls in a row of one entry with one
//! result (module `trace`). The two traces must be the same:
//!
//! - per process: the program's own, then those it starts (`ipc`'s and `checkpoint`'s children),
//!   paired by their place in the process tree (from each file's `# pid <pid> parent <pid>`:
//!   children in start order, by pid); both sides must have the same tree;
//! - per thread: threads are paired by their calls (a thread of the C twin with the thread of the
//!   Rust example whose runs compare equal, the same ordinal first), so that threads whose first
//!   calls raced pair all the same; the threads left are paired by ordinal, and compared;
//! - the sequence of (entry, result, count), exactly, but that the `cuGetProcAddress*` entries are
//!   set apart on both sides (the loader's, the table's and the typed entry points' own
//!   resolutions: `dynamic-loading` resolves each function on its first call, the C twin's linked
//!   calls resolve nothing), counted and said in the parity line; under `dynamic-loading` so is
//!   `cuDriverGetVersion`: the C twin's `entry()` asks the driver's version at its first lookup,
//!   as the Rust side's typed entry points do when linked, but the Rust loader asked it before
//!   `cuInit` (resolving `cuInit` itself), where the recorder does not see it, and keeps it; and
//!   a poll is settled: a run of `CUDA_ERROR_NOT_READY` (600: work still running) that the same
//!   entry's other result ends is taken out on both sides, and the runs that then meet merged
//!   (one side may find work done at once that the other polls for, as often as it takes); a
//!   poll that never ended stays, its count free.
//!
//! A difference fails the test, showing the first differing place (process, thread, index, both
//! sides' runs); so does a side whose recorder could not subscribe (`# cupti-error`), and, on a
//! GPU, a side of which no process loaded the recorder. The calls before `cuInit` (and its own)
//! are not seen.
//!
//! One test per example; run with `--nocapture` to see a line per example
//! (`<name>: parity ok (<N> lines, exit code 0), Result = PASS; trace: 412 calls in 130 runs, 1
//! process, 1 thread, the same (cuGetProcAddress set apart: C 3, Rust 9)`). On a mismatch the
//! test prints a diff of the normalised outputs (`-` C twin, `+` Rust example) and fails.
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

mod common;
#[path = "examples_parity/trace.rs"]
mod trace;

use std::env::consts::EXE_SUFFIX;
use std::ffi::OsStr;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

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
use group::{GROUP_PROGRAMS, TWO_GPUS, WAIVED_EXIT_CODE, WITHOUT_TOOLS};

/// The controls of the group programs built for this header, one test each (written by the build
/// script): `control::<program>_<name>`.
mod control {
    include!(concat!(env!("OUT_DIR"), "/controls.rs"));
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
    use std::ffi::OsString;
    use std::os::unix::ffi::OsStrExt;
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

/// The folder of the Rust examples' executables: `CUDA_EXAMPLES_DIR`, taken as it is, or else
/// `target/[<triple>/]<profile>/examples` of this test's own build, where they are first built
/// (once per test run) with this test's features and target, by `cargo build --examples`:
/// `cargo test --test examples_parity` builds no example, and `cargo test --all-targets` builds
/// them as test harnesses (`examples/<name>-<hash>`), not as the programs (`examples/<name>`).
fn examples_dir() -> Result<PathBuf, String> {
    if let Some(dir) = std::env::var_os("CUDA_EXAMPLES_DIR") {
        return Ok(dir.into());
    }
    static BUILT: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    BUILT.get_or_init(build_examples).clone()
}

/// `cargo build --examples` into this test's target folder and profile, with its features (every
/// feature of the root package is listed here: a new one must be added).
fn build_examples() -> Result<PathBuf, String> {
    // target/<profile>/deps/examples_parity-<hash>
    let exe = std::env::current_exe().map_err(|e| format!("the test's own path: {e}"))?;
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .ok_or_else(|| format!("{} is not in target/<profile>/deps", exe.display()))?;
    let parent = profile_dir
        .parent()
        .ok_or_else(|| format!("{} is not in a target folder", profile_dir.display()))?;
    // Built with `--target <triple>`, the test is in target/<triple>/<profile>/deps: the examples
    // are built for the same target.
    let triple = env!("CUDA_TESTS_TARGET");
    let cross = parent.file_name().is_some_and(|n| n == triple);
    let target_dir = match parent.parent() {
        Some(dir) if cross => dir,
        _ => parent,
    };
    let profile = match profile_dir.file_name().and_then(|n| n.to_str()) {
        Some("debug") => "dev",
        Some(other) => other,
        None => return Err(format!("no profile in {}", profile_dir.display())),
    };
    // The selected version's feature turns on the older ones (see Cargo.toml).
    let version = concat!("cuda-", env!("CUDA_HEADER_VERSION"));
    let features: Vec<&str> = [
        (version, true),
        (
            "per-thread-default-stream",
            cfg!(feature = "per-thread-default-stream"),
        ),
        ("link-every-function", cfg!(feature = "link-every-function")),
        ("table-only", cfg!(feature = "table-only")),
        ("dynamic-loading", cfg!(feature = "dynamic-loading")),
        ("interop", cfg!(feature = "interop")),
    ]
    .into_iter()
    .filter_map(|(name, on)| on.then_some(name))
    .collect();
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| env!("CARGO").into());
    let mut cmd = Command::new(&cargo);
    cmd.args(["build", "--examples", "--manifest-path"])
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/../Cargo.toml"))
        .arg("--target-dir")
        .arg(target_dir)
        .args(cross.then_some(["--target", triple]).into_iter().flatten())
        .args(["--profile", profile, "--no-default-features", "--features"])
        .arg(features.join(","));
    let output = cmd.output().map_err(|e| {
        format!(
            "cannot run {} to build the examples: {e} (set CUDA_EXAMPLES_DIR to a folder holding \
             them where there is no cargo)",
            Path::new(&cargo).display()
        )
    })?;
    if !output.status.success() {
        return Err(format!(
            "building the examples failed ({}): {cmd:?}\n{}",
            describe_status(output.status),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    Ok(profile_dir.join("examples"))
}

fn twin_dir() -> PathBuf {
    std::env::var_os("CUDA_C_TWIN_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| env!("C_TWIN_DIR").into())
}

fn kernels_dir() -> PathBuf {
    std::env::var_os("CUDA_KERNELS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/kernels").into())
}

fn timeout() -> Duration {
    let secs = std::env::var("CUDA_PARITY_TIMEOUT_S")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(120);
    Duration::from_secs(secs)
}

/// Whether this machine has a GPU the examples must succeed on.
fn gpu_expected() -> bool {
    static GPU: OnceLock<bool> = OnceLock::new();
    *GPU.get_or_init(|| {
        if std::env::var("CUDA_EXPECT_GPU").is_ok_and(|v| v == "1") {
            return true;
        }
        // SAFETY: cuInit takes flags only.
        let code = unsafe { cuda_driver_sys::cuInit(0) };
        code == cuda_driver_sys::CUresult::CUDA_SUCCESS
    })
}

/// The devices the driver shows (`cuDeviceGetCount` after `cuInit`); 0 where it shows none.
fn device_count() -> i32 {
    static COUNT: OnceLock<i32> = OnceLock::new();
    *COUNT.get_or_init(|| {
        let mut count = 0;
        // SAFETY: cuInit takes flags only; cuDeviceGetCount writes one int.
        let ok = unsafe {
            cuda_driver_sys::cuInit(0) == cuda_driver_sys::CUresult::CUDA_SUCCESS
                && cuda_driver_sys::cuDeviceGetCount(&mut count)
                    == cuda_driver_sys::CUresult::CUDA_SUCCESS
        };
        if ok {
            count
        } else {
            0
        }
    })
}

/// The driver's CUDA version where it is older than this build's header (`CUDA_HEADER_VERSION`);
/// `None` where it is not, or where there is no driver to ask.
fn older_driver_than_header() -> Option<i32> {
    let mut driver = 0;
    // SAFETY: cuDriverGetVersion writes one int; it needs no cuInit.
    let code = unsafe { cuda_driver_sys::cuDriverGetVersion(&mut driver) };
    let header: i32 = env!("CUDA_HEADER_VERSION").parse().ok()?;
    (code == cuda_driver_sys::CUresult::CUDA_SUCCESS && driver < header).then_some(driver)
}

struct Run {
    status: ExitStatus,
    stdout: String,
    stderr: String,
}

impl Run {
    fn describe_status(&self) -> String {
        describe_status(self.status)
    }
}

fn describe_status(status: ExitStatus) -> String {
    #[cfg(unix)]
    let signal = std::os::unix::process::ExitStatusExt::signal(&status);
    #[cfg(not(unix))]
    let signal: Option<i32> = None;
    match (status.code(), signal) {
        (Some(code), _) => format!("exit code {code}"),
        (None, Some(signal)) => format!("killed by signal {signal}"),
        (None, None) => format!("{status}"),
    }
}

/// Runs `exe args...` with `CUDA_CACHE_DISABLE=1`, under the time limit (the bad-input and
/// no-driver tests', which exist on Unix and under `dynamic-loading`).
#[cfg(any(unix, feature = "dynamic-loading"))]
fn run_with_args(what: &str, exe: &Path, args: &[&OsStr]) -> Result<Run, String> {
    run_with(what, exe, args, &[])
}

/// Runs `exe args...` with `CUDA_CACHE_DISABLE=1` and the variables `env` (`CUDA_GROUP_CONTROL`
/// removed where `env` does not set it), under the time limit.
fn run_with(
    what: &str,
    exe: &Path,
    args: &[&OsStr],
    env: &[(&str, &OsStr)],
) -> Result<Run, String> {
    let mut command = common::runner::target_command(exe);
    command.args(args).env("CUDA_CACHE_DISABLE", "1");
    command
        .env_remove("CUDA_GROUP_CONTROL")
        .envs(env.iter().copied());
    // Bind the twin's driver symbols as the Rust examples bind theirs: at start, as they are
    // linked (`-z now`), so that a driver without a function the program calls stops both sides
    // the same way; under `dynamic-loading`, on the first call, where the Rust side gets
    // CUDA_ERROR_NOT_FOUND (a program built for a header newer than the driver runs to its
    // first call of a function the driver lacks, which on a machine without a GPU it never
    // reaches).
    if !cfg!(feature = "dynamic-loading") {
        command.env("LD_BIND_NOW", "1");
    }
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("{what}: cannot run {}: {e}", exe.display()))?;
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let out_reader = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = out.read_to_end(&mut v);
        v
    });
    let err_reader = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = err.read_to_end(&mut v);
        v
    });
    let deadline = Instant::now() + timeout();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() >= deadline => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "{what}: {} did not finish within {:?} (killed; CUDA_PARITY_TIMEOUT_S sets the limit)",
                    exe.display(),
                    timeout()
                ));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => return Err(format!("{what}: waiting for {}: {e}", exe.display())),
        }
    };
    let stdout = String::from_utf8_lossy(&out_reader.join().unwrap()).into_owned();
    let stderr = String::from_utf8_lossy(&err_reader.join().unwrap()).into_owned();
    Ok(Run {
        status,
        stdout,
        stderr,
    })
}

/// What `cargo run --example <name>` printed, captured by `cargo xtask first-run` into `dir`:
/// `<name>.stdout`, `<name>.stderr` and `<name>.code` (the exit code).
fn read_captured(dir: &Path, name: &str) -> Result<Run, String> {
    let read = |ext: &str| {
        let path = dir.join(format!("{name}.{ext}"));
        std::fs::read(&path)
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .map_err(|e| format!("captured output {}: {e}", path.display()))
    };
    let code: i32 = read("code")?
        .trim()
        .parse()
        .map_err(|e| format!("{name}.code: {e}"))?;
    Ok(Run {
        status: exit_status(code),
        stdout: read("stdout")?,
        stderr: read("stderr")?,
    })
}

/// The status of a process that exited with `code`.
#[cfg(unix)]
fn exit_status(code: i32) -> ExitStatus {
    // A wait status: the exit code in the second byte.
    std::os::unix::process::ExitStatusExt::from_raw((code & 0xff) << 8)
}

/// The status of a process that exited with `code`.
#[cfg(windows)]
fn exit_status(code: i32) -> ExitStatus {
    std::os::windows::process::ExitStatusExt::from_raw(code as u32)
}

/// The normalised lines of an output (see the module documentation for the rules).
fn normalise(stdout: &str) -> Vec<String> {
    let lines: Vec<&str> = stdout.lines().collect();
    let mut out = Vec::with_capacity(lines.len());
    let mut i = 0;
    while i < lines.len() {
        if let Some((consumed, line)) = check_driver_report(&lines[i..]) {
            out.push(line);
            i += consumed;
            continue;
        }
        let line = normalise_pointers(lines[i]);
        let line = normalise_wall_time(&line);
        out.push(normalise_compile_time(&line));
        i += 1;
    }
    out
}

/// Rule 2: a report `<file>.{cpp,rs}:<line>  <expression> failed. ` (the expression perhaps over
/// several lines) as `<file>:<line>  <callee>(…) failed. `, and how many lines it took.
fn check_driver_report(lines: &[&str]) -> Option<(usize, String)> {
    const FAILED: &str = " failed. ";
    let first = lines[0];
    let (location, rest) = first.split_once("  ")?;
    let (file, line) = location.rsplit_once(':')?;
    let file_ok = !file.is_empty()
        && !file.contains(char::is_whitespace)
        && (file.ends_with(".cpp") || file.ends_with(".rs"));
    if !file_ok || line.is_empty() || !line.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    // The expression ends on the first line that ends with " failed. " (at most a few lines on).
    let mut expression = String::from(rest);
    let mut consumed = 1;
    while !expression.ends_with(FAILED) {
        if consumed == lines.len() || consumed > 8 {
            return None;
        }
        expression.push(' ');
        expression.push_str(lines[consumed]);
        consumed += 1;
    }
    let expression = &expression[..expression.len() - FAILED.len()];
    let callee = expression.split('(').next().unwrap_or("").trim();
    Some((consumed, format!("<file>:<line>  {callee}(…){FAILED}")))
}

/// Before the rules, on Windows, the C twin's `%p` as glibc prints it: mingw-w64's C libraries
/// print a pointer as 16 hex digits without `0x` (msvcrt's upper-case, mingw-w64's own stdio
/// lower-case), null as zeros; glibc, `0x` and the digits, null as `(nil)`, which the Rust
/// examples print on every target.
fn msvcrt_pointers(stdout: &str) -> String {
    let is_digit = |b: u8| b.is_ascii_hexdigit();
    let mut out = String::with_capacity(stdout.len());
    let mut rest = stdout;
    while let Some(start) = rest.find(|c: char| c.is_ascii_alphanumeric()) {
        let end = rest[start..]
            .find(|c: char| !c.is_ascii_alphanumeric())
            .map_or(rest.len(), |e| start + e);
        let word = &rest[start..end];
        out.push_str(&rest[..start]);
        if word.len() == 16 && word.bytes().all(is_digit) {
            if word.bytes().all(|b| b == b'0') {
                out.push_str("(nil)");
            } else {
                out.push_str("0x");
                out.push_str(&word.to_ascii_lowercase());
            }
        } else {
            out.push_str(word);
        }
        rest = &rest[end..];
    }
    out + rest
}

/// Rule 1: an address, `0x` and lower-case hex digits whose value is in [2^32, 2^48) (9 to 12
/// significant digits), as `0xPTR`; every other hex number as it is.
fn normalise_pointers(line: &str) -> String {
    let bytes = line.as_bytes();
    let mut out = String::with_capacity(line.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i..].starts_with(b"0x") && bytes.get(i + 2).is_some_and(|b| is_lower_hex(*b)) {
            let mut j = i + 2;
            while j < bytes.len() && is_lower_hex(bytes[j]) {
                j += 1;
            }
            let significant = line[i + 2..j].trim_start_matches('0').len();
            if (9..=12).contains(&significant) {
                out.push_str("0xPTR");
            } else {
                out.push_str(&line[i..j]);
            }
            i = j;
        } else {
            let c = line[i..].chars().next().unwrap();
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

fn is_lower_hex(b: u8) -> bool {
    b.is_ascii_digit() || (b'a'..=b'f').contains(&b)
}

/// Rule 3: `Link completed in <t>ms. Linker Output:` as `Link completed in <T>ms. Linker Output:`.
fn normalise_wall_time(line: &str) -> String {
    const HEAD: &str = "Link completed in ";
    const TAIL: &str = "ms. Linker Output:";
    if let Some(number) = line.strip_prefix(HEAD).and_then(|r| r.strip_suffix(TAIL)) {
        if number.parse::<f64>().is_ok() {
            return format!("{HEAD}<T>{TAIL}");
        }
    }
    line.to_string()
}

/// Rule 4: `Compile time = <t> ms` as `Compile time = <T> ms`.
fn normalise_compile_time(line: &str) -> String {
    const HEAD: &str = "Compile time = ";
    const TAIL: &str = " ms";
    let mut out = String::new();
    let mut rest = line;
    while let Some(at) = rest.find(HEAD) {
        let after = &rest[at + HEAD.len()..];
        match after.find(TAIL) {
            Some(end) if after[..end].parse::<f64>().is_ok() => {
                out.push_str(&rest[..at]);
                out.push_str(HEAD);
                out.push_str("<T>");
                rest = &after[end..];
            }
            _ => {
                out.push_str(&rest[..at + HEAD.len()]);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// A line diff of `c` (`-`) and `rust` (`+`) by longest common subsequence, the differing lines
/// with two lines of context, at most `limit` lines.
fn diff(c: &[String], rust: &[String], limit: usize) -> String {
    let (n, m) = (c.len(), rust.len());
    // lcs[i][j]: the LCS length of c[i..] and rust[j..].
    let mut lcs = vec![vec![0usize; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if c[i] == rust[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    // The edit script: (' ' | '-' | '+', line number in its file, text).
    let mut script: Vec<(char, usize, &str)> = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < n || j < m {
        if i < n && j < m && c[i] == rust[j] {
            script.push((' ', i + 1, &c[i]));
            i += 1;
            j += 1;
        } else if i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1]) {
            script.push(('-', i + 1, &c[i]));
            i += 1;
        } else {
            script.push(('+', j + 1, &rust[j]));
            j += 1;
        }
    }
    let changed: Vec<bool> = script.iter().map(|(k, _, _)| *k != ' ').collect();
    let near_change = |k: usize| {
        let lo = k.saturating_sub(2);
        let hi = (k + 2).min(script.len() - 1);
        changed[lo..=hi].iter().any(|&c| c)
    };
    let mut out = String::new();
    let mut printed = 0;
    let mut skipped = false;
    for (k, (kind, line, text)) in script.iter().enumerate() {
        if !near_change(k) {
            skipped = true;
            continue;
        }
        if skipped {
            out.push_str("  ...\n");
            skipped = false;
        }
        if printed == limit {
            out.push_str("  ... (more differences)\n");
            break;
        }
        out.push_str(&format!("{kind} {line:>4} | {text}\n"));
        printed += 1;
    }
    out
}

fn result_pass(lines: &[String]) -> bool {
    lines.iter().any(|l| l == "Result = PASS")
}

/// The reason of the output's `Result = WAIVED: <why>` line, where it has one.
fn waived(lines: &[String]) -> Option<&str> {
    lines
        .iter()
        .find_map(|l| l.strip_prefix("Result = WAIVED: "))
}

/// Runs the twin and the example `name` and compares them; panics with every difference found.
fn parity(name: &str) {
    parity_of(name, None)
}

/// Runs the twin and the example `name` (with `control`, `(name, fails_with)`: as that control of
/// the group program, `CUDA_GROUP_CONTROL=<name>`) and compares them; panics with every difference
/// found.
fn parity_of(name: &str, control: Option<(&str, &str)>) {
    let checks_results = EXAMPLES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, checks)| *checks)
        .or(GROUP_PROGRAMS.contains(&name).then_some(true))
        .expect("the example is in EXAMPLES or GROUP_PROGRAMS");
    // How the line and the trace folders name the run: `launch` or `launch, control plain`.
    let (label, run_name) = match control {
        Some((c, _)) => (format!("{name}, control {c}"), format!("{name}-{c}")),
        None => (name.to_string(), name.to_string()),
    };
    let twin = twin_dir().join(format!("{name}{EXE_SUFFIX}"));
    let captured = std::env::var_os("CUDA_EXAMPLES_OUTPUT_DIR").map(PathBuf::from);
    if captured.is_some() && control.is_some() {
        println!("{label}: not run (CUDA_EXAMPLES_OUTPUT_DIR holds the programs' own runs only)");
        return;
    }
    let example = match &captured {
        Some(dir) => dir.join(format!("{name}.stdout")),
        None => examples_dir()
            .unwrap_or_else(|e| panic!("{label}: {e}"))
            .join(format!("{name}{EXE_SUFFIX}")),
    };
    let kernels = kernels_dir();
    let mut missing = Vec::new();
    if !twin.is_file() {
        missing.push(format!(
            "the C twin {} (built by the tests' build script from examples/{name}.cpp; \
             CUDA_C_TWIN_DIR sets the folder)",
            twin.display()
        ));
    }
    if !example.is_file() {
        missing.push(format!(
            "the example {} (`cargo build --example {name}`; CUDA_EXAMPLES_DIR sets the folder)",
            example.display()
        ));
    }
    if !kernels.is_dir() {
        missing.push(format!(
            "the kernels folder {} (CUDA_KERNELS_DIR sets it)",
            kernels.display()
        ));
    }
    assert!(
        missing.is_empty(),
        "{label}: missing {}",
        missing.join("; ")
    );
    // (No trace of a captured run.)
    let traces = match captured {
        None => trace_dirs(&run_name).unwrap_or_else(|e| panic!("{label}: {e}")),
        Some(_) => None,
    };

    let env = |side: usize| -> Vec<(&str, &OsStr)> {
        let control = control.map(|(c, _)| ("CUDA_GROUP_CONTROL", OsStr::new(c)));
        let calls = (traces.as_ref()).map(|dirs| ("CUDA_CALLS_DIR", dirs[side].as_os_str()));
        control.into_iter().chain(calls).collect()
    };
    let args = [kernels.as_os_str()];
    let c = run_with("C twin", &twin, &args, &env(0)).unwrap_or_else(|e| panic!("{label}: {e}"));
    let rust = match &captured {
        Some(dir) => read_captured(dir, name),
        None => run_with("Rust example", &example, &args, &env(1)),
    }
    .unwrap_or_else(|e| panic!("{label}: {e}"));
    // (The C library's `%p`: mingw-w64's is not glibc's, which the examples print everywhere.)
    let c_stdout = if cfg!(windows) {
        msvcrt_pointers(&c.stdout)
    } else {
        c.stdout.clone()
    };
    let c_lines = normalise(&c_stdout);
    let rust_lines = normalise(&rust.stdout);

    let mut problems = Vec::new();
    if c_lines != rust_lines {
        problems.push(format!(
            "stdout differs after normalisation (- C twin, + Rust example):\n{}",
            diff(&c_lines, &rust_lines, 40)
        ));
    }
    if c.status.code() != rust.status.code() || c.status.code().is_none() {
        problems.push(format!(
            "exit status: C twin {}, Rust example {}",
            c.describe_status(),
            rust.describe_status()
        ));
    }
    // The posts' programs ask the driver for this header's version of a function
    // (`cuGetProcAddress` with `CUDA_VERSION`), which a driver older than the header refuses
    // (CUDA_ERROR_INVALID_VALUE): they run on drivers at least as new as their header. The group
    // programs reach a function newer than the driver only through lookups that answer
    // CUDA_ERROR_NOT_FOUND, and must succeed on any driver.
    let older_driver = older_driver_than_header().filter(|_| !GROUP_PROGRAMS.contains(&name));
    // A tool the programs inherit (CUDA_INJECTION64_PATH: the GPU run's coverage recorder), under
    // which the driver refuses some programs' calls: both sides must refuse alike.
    let tool = std::env::var_os("CUDA_INJECTION64_PATH").is_some_and(|p| !p.is_empty());
    let refused_to_tools = tool && WITHOUT_TOOLS.contains(&name);
    let gpu = gpu_expected() && older_driver.is_none() && !refused_to_tools;
    // Where it may be waived, it must be: it cannot test its point on this machine.
    let to_waive = TWO_GPUS.contains(&name) && device_count() < 2;
    if gpu {
        let sides = [
            ("C twin", &c, &c_lines),
            ("Rust example", &rust, &rust_lines),
        ];
        for (who, run, lines) in sides {
            problems.extend(match control {
                None => on_a_gpu(name, who, run, lines, checks_results, to_waive),
                Some((_, fails_with)) => control_on_a_gpu(who, run, lines, fails_with, to_waive),
            });
        }
        // What the program said failed: its check reports and its own `FAILED:` lines.
        let said: Vec<&String> = (rust_lines.iter())
            .filter(|l| {
                l.starts_with("FAILED: ") || l.ends_with(" failed. ") || l.starts_with("  code = ")
            })
            .take(20)
            .collect();
        if !problems.is_empty() && !said.is_empty() {
            let said: Vec<&str> = said.iter().map(|l| l.as_str()).collect();
            problems.push(format!("the Rust example reported:\n{}", said.join("\n")));
        }
    }
    let stopped = [&c, &rust].iter().any(|r| r.status.code() == Some(127));
    let trace = traces
        .as_ref()
        .map(|[c_dir, rust_dir]| compare_traces(c_dir, rust_dir, gpu_expected() && !stopped));
    if let Some(Err(e)) = &trace {
        problems.push(e.clone());
    }
    if !problems.is_empty() {
        let stderr = |who: &str, r: &Run| {
            if r.stderr.is_empty() {
                String::new()
            } else {
                format!("\n{who} stderr:\n{}", r.stderr)
            }
        };
        panic!(
            "{label}: parity FAILED (C twin {}, Rust example {})\n{}{}{}",
            twin.display(),
            example.display(),
            problems.join("\n"),
            stderr("C twin", &c),
            stderr("Rust example", &rust)
        );
    }
    let trace = match trace {
        Some(Ok(same)) => format!("; trace: {same}"),
        _ => String::new(),
    };

    if let Some(symbol) = missing_symbol(&c, &rust) {
        println!(
            "{label}: parity ok (both stop at start: the driver library lacks {symbol}, which \
             this header's C spelling binds; exit code 127){trace}"
        );
        return;
    }
    let results = if let Some(driver) = older_driver.filter(|_| gpu_expected()) {
        format!(
            "; success not required: the driver (CUDA {driver}) is older than this build's \
             header (CUDA {}), which the posts' programs need",
            env!("CUDA_HEADER_VERSION")
        )
    } else if refused_to_tools && gpu_expected() {
        format!(
            "; {} not required: a tool is attached (CUDA_INJECTION64_PATH), and the driver \
             serves this program's calls only without one",
            if control.is_some() {
                "failure"
            } else {
                "success"
            }
        )
    } else if let Some(why) = waived(&rust_lines) {
        format!(", Result = WAIVED: {why}")
    } else if let Some((_, fails_with)) = control.filter(|_| gpu) {
        format!(", FAILED: {fails_with}, Result = FAIL, as the control must")
    } else if control.is_some() {
        ", no `Result = FAIL` required (no GPU: error path)".to_string()
    } else if !checks_results {
        String::new()
    } else if result_pass(&rust_lines) {
        ", Result = PASS".to_string()
    } else if gpu {
        unreachable!("checked above")
    } else {
        ", no `Result = PASS` (no GPU: error path)".to_string()
    };
    println!(
        "{label}: parity ok ({} lines, {}){results}{trace}",
        rust_lines.len(),
        describe_status(rust.status)
    );
}

/// What one side of the program `name` (not a control) did wrong on a GPU: it must exit with 0
/// and, where it checks its results, print `Result = PASS`; but where it is to be waived
/// (`to_waive`: a `TWO_GPUS` program on fewer than two devices), it must print
/// `Result = WAIVED: <why>` and exit with [`WAIVED_EXIT_CODE`].
fn on_a_gpu(
    name: &str,
    who: &str,
    run: &Run,
    lines: &[String],
    checks_results: bool,
    to_waive: bool,
) -> Vec<String> {
    let mut problems = Vec::new();
    let devices = device_count();
    if to_waive {
        if run.status.code() != Some(WAIVED_EXIT_CODE) || waived(lines).is_none() {
            problems.push(format!(
                "on a GPU with {devices} device(s) the {who} must print `Result = WAIVED: <why>` \
                 and exit with {WAIVED_EXIT_CODE} ({name} needs two devices to test its point), \
                 not {}",
                run.describe_status()
            ));
        }
        return problems;
    }
    if run.status.code() != Some(0) {
        let waiver = match waived(lines) {
            Some(why) if TWO_GPUS.contains(&name) => format!(
                " (it printed `Result = WAIVED: {why}`, but the machine has {devices} devices: \
                 it must pass)"
            ),
            Some(why) => format!(
                " (it printed `Result = WAIVED: {why}`: only the programs of TWO_GPUS may be \
                 waived, on fewer than two devices)"
            ),
            None => String::new(),
        };
        problems.push(format!(
            "on a GPU the {who} must exit with 0, not {}{waiver}",
            run.describe_status()
        ));
    }
    if checks_results && !result_pass(lines) {
        problems.push(format!("on a GPU the {who} must print `Result = PASS`"));
    }
    problems
}

/// What one side of a control did wrong on a GPU: it must print `FAILED: <fails_with>` and
/// `Result = FAIL` and exit with 1 (a control that passes shows that its check cannot fail); or,
/// where the program is to be waived (`to_waive`), be waived.
fn control_on_a_gpu(
    who: &str,
    run: &Run,
    lines: &[String],
    fails_with: &str,
    to_waive: bool,
) -> Vec<String> {
    if to_waive && run.status.code() == Some(WAIVED_EXIT_CODE) && waived(lines).is_some() {
        return Vec::new();
    }
    let mut problems = Vec::new();
    let failed = format!("FAILED: {fails_with}");
    if !lines.contains(&failed) {
        problems.push(format!(
            "on a GPU the {who} of the control must print `{failed}`: the check it targets did \
             not fail"
        ));
    }
    if !lines.iter().any(|l| l == "Result = FAIL") {
        problems.push(format!(
            "on a GPU the {who} of the control must print `Result = FAIL`"
        ));
    }
    if run.status.code() != Some(1) {
        problems.push(format!(
            "on a GPU the {who} of the control must exit with 1, not {}",
            run.describe_status()
        ));
    }
    problems
}

/// The two sides' trace folders of the run `run`, `<CUDA_CALLS_DIR>/<run>-c` and `-rust`, emptied,
/// where `CUDA_INJECTION64_PATH` and `CUDA_CALLS_DIR` are set (the GPU runner's recorder); `None`
/// where they are not.
fn trace_dirs(run: &str) -> Result<Option<[PathBuf; 2]>, String> {
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

/// The entries the trace comparison sets apart on both sides (module documentation): the lookups,
/// and under `dynamic-loading` the version query.
const SET_APART: &[&str] = if cfg!(feature = "dynamic-loading") {
    &["cuGetProcAddress", "cuDriverGetVersion"]
} else {
    &["cuGetProcAddress"]
};

/// The two sides' driver-call traces (module [`trace`]) compared: what they have where they are
/// the same, else the first difference. Where the recorder `must_load` (on a GPU, where the
/// programs started), a side of which no process loaded it fails too.
fn compare_traces(c_dir: &Path, rust_dir: &Path, must_load: bool) -> Result<String, String> {
    let read = |who: &str, dir: &Path| {
        trace::read(dir, SET_APART).map_err(|e| format!("the {who}'s driver-call trace: {e}"))
    };
    let (c, rust) = (read("C twin", c_dir)?, read("Rust example", rust_dir)?);
    if c.processes.is_empty() && rust.processes.is_empty() {
        if must_load {
            return Err(format!(
                "no process of either side loaded the recorder (CUDA_INJECTION64_PATH): {} and {} \
                 are empty",
                c_dir.display(),
                rust_dir.display()
            ));
        }
        return Ok("no process loaded the recorder".into());
    }
    let same = trace::compare(&c, &rust, SET_APART).map_err(|e| {
        format!(
            "the driver-call traces differ ({} and {}): {e}",
            c_dir.display(),
            rust_dir.display()
        )
    })?;
    Ok(same.to_string())
}

/// The symbol(s) the two sides stopped on, when the dynamic loader refused to start both (exit
/// code 127, `undefined symbol: X` from each) because the loaded driver library really lacks
/// them: a build for a header newer than the driver (the CUDA 13.0 `cuCtxCreate_v4` on a 12.2
/// driver). A program binding several functions the driver lacks may stop on a different one on
/// each side (the loader names the first it meets, in the order each linker laid the relocations
/// out): each must be one the library lacks. Outputs and exit codes were compared before; on a
/// GPU such a stop is a failure there.
fn missing_symbol(c: &Run, rust: &Run) -> Option<String> {
    let symbol = |r: &Run| -> Option<String> {
        (r.status.code() == Some(127)).then_some(())?;
        let at = r.stderr.find("undefined symbol: ")? + "undefined symbol: ".len();
        let name: String = r.stderr[at..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        (!name.is_empty()).then_some(name)
    };
    let (c_symbol, rust_symbol) = (symbol(c)?, symbol(rust)?);
    for (who, symbol) in [
        ("the C twin", &c_symbol),
        ("the Rust example", &rust_symbol),
    ] {
        let name = std::ffi::CString::new(symbol.as_str()).unwrap();
        assert!(
            common::dlsym(&name).is_null(),
            "{who} stopped on {symbol}, which the driver library has"
        );
    }
    Some(if c_symbol == rust_symbol {
        c_symbol
    } else {
        format!("{c_symbol} (C twin) and {rust_symbol} (Rust example)")
    })
}

/// The normalisation rules themselves.
mod normalisation {
    use super::*;

    fn owned(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn msvcrt_pointers_read_as_glibc_prints_them() {
        let c = "ctx = 0000000000000000, ptr = 00000000DEADBEEF, 0000000233831cf9; id \
                 0000000000000001X, 1234\r\n";
        assert_eq!(
            msvcrt_pointers(c),
            "ctx = (nil), ptr = 0x00000000deadbeef, 0x0000000233831cf9; id 0000000000000001X, \
             1234\r\n"
        );
    }

    #[test]
    fn check_driver_reports() {
        let c = "/w/examples/context_stack.cpp:32  cuCtxCreate(&ctxA, CU_CTX_SCHED_AUTO, device) failed. \n  code = CUDA_ERROR_NOT_INITIALIZED, message = initialization error\n";
        let rust = "examples/context_stack.rs:28  cuCtxCreate(&mut ctxA,\nCU_CTX_SCHED_AUTO.0, device) failed. \n  code = CUDA_ERROR_NOT_INITIALIZED, message = initialization error\n";
        let want = owned(&[
            "<file>:<line>  cuCtxCreate(…) failed. ",
            "  code = CUDA_ERROR_NOT_INITIALIZED, message = initialization error",
        ]);
        assert_eq!(normalise(c), want);
        assert_eq!(normalise(rust), want);
        // Not a report: no .cpp/.rs location, or no " failed. " end.
        assert_eq!(normalise("a:1  b failed. "), owned(&["a:1  b failed. "]));
        assert_eq!(normalise("x.rs:1  f(a)\n"), owned(&["x.rs:1  f(a)"]));
    }

    #[test]
    fn pointers_and_times() {
        assert_eq!(
            normalise(
                "ctxA = 0x55d0c0ffee00, ctxB = (nil)\npfn = 0x7f53a52d5660\nat 0x302000000; \
                 0x00000000deadbeef"
            ),
            owned(&[
                "ctxA = 0xPTR, ctxB = (nil)",
                "pfn = 0xPTR",
                "at 0xPTR; 0x00000000deadbeef"
            ])
        );
        assert_eq!(
            normalise(
                "Link completed in 12.345678ms. Linker Output:\ninfo    : Compile time = 0.042 ms"
            ),
            owned(&[
                "Link completed in <T>ms. Linker Output:",
                "info    : Compile time = <T> ms"
            ])
        );
    }

    /// Flags and values printed in hex are compared; addresses are not.
    #[test]
    fn hex_values_are_compared_and_addresses_are_not() {
        let same = |c: &str, rust: &str| normalise(c) == normalise(rust);
        // contexts, coredump_logs, graph_nodes: 32-bit flags with `0x%x`.
        assert!(!same("context flags: 0x1", "context flags: 0x9"));
        assert!(!same(
            "primary context: flags 0x0, active 1",
            "primary context: flags 0x4, active 1"
        ));
        assert!(!same(
            "  generation flags: 0xffffffff",
            "  generation flags: 0xfffffffe"
        ));
        // stream_memops: a 64-bit word.
        assert!(!same(
            "the kernel saw 0x1122334455667788",
            "the kernel saw 0x1122334455667789"
        ));
        // Host heap, libraries' mappings, device memory: different on every run.
        assert!(same("ctx = 0x55d0c0ffee00", "ctx = 0x5612aa0b3c40"));
        assert!(same("pfn = 0x7f53a52d5660", "pfn = 0x7fd0011f2a10"));
        assert!(same(
            "reserved 2097152 bytes at 0x302000000",
            "reserved 2097152 bytes at 0x7f2c4e000000"
        ));
        // Null is `(nil)`, not an address.
        assert!(!same("ctx = (nil)", "ctx = 0x55d0c0ffee00"));
    }

    #[test]
    fn diff_shows_the_differing_lines() {
        let d = diff(&owned(&["a", "b", "c"]), &owned(&["a", "x", "c"]), 10);
        assert!(d.contains("-    2 | b") && d.contains("+    2 | x"), "{d}");
    }
}
