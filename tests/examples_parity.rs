//! Output parity of every example (`examples/<name>.rs`) with its C twin (`examples/<name>.cpp`),
//! and of every group program (`examples/groups/<name>.rs` and `.cpp`) built for this header.
//!
//! Each test runs the C twin (built by the tests' build script, `support/build.rs`, into
//! `env!("C_TWIN_DIR")`) and the Rust example (built by the test itself, once, with
//! `cargo build --examples` and the test's own features and profile, into
//! `target/<profile>/examples/`) with the same argument, the kernels folder, and `CUDA_CACHE_DISABLE=1` (so that `ptx_link` compiles its PTX on
//! each run and prints the same info log), and requires the same exit code and the same stdout,
//! compared in full, line by line, after normalising only:
//!
//! 1. non-null pointer values: every `0x[0-9a-f]+` becomes `0xPTR` (C's `%p` of null, `(nil)`, is
//!    left as it is);
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
//! `Result = PASS`.
//!
//! One test per example; run with `--nocapture` to see a line per example
//! (`<name>: parity ok (<N> lines)[, Result = PASS]`). On a mismatch the test prints a diff of the
//! normalised outputs (`-` C twin, `+` Rust example) and fails.
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

use std::env::consts::EXE_SUFFIX;
use std::ffi::OsStr;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// Every example: (name, whether it checks its results and prints `Result = PASS|FAIL`). The C
/// twins `examples/*.cpp` are the list `cargo xtask first-run` and `cargo xtask twins-smoke` use;
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
use group::{GROUP_PROGRAMS, WITHOUT_TOOLS};

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
        let out = run("Rust example", &dir.join(name), &kernels_dir())
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

/// Runs `exe kernels` with `CUDA_CACHE_DISABLE=1`, under the time limit.
fn run(what: &str, exe: &Path, kernels: &Path) -> Result<Run, String> {
    run_with_args(what, exe, &[kernels.as_os_str()])
}

/// Runs `exe args...` with `CUDA_CACHE_DISABLE=1`, under the time limit.
fn run_with_args(what: &str, exe: &Path, args: &[&OsStr]) -> Result<Run, String> {
    let mut command = common::runner::target_command(exe);
    command.args(args).env("CUDA_CACHE_DISABLE", "1");
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

/// Rule 1: `0x[0-9a-f]+` as `0xPTR`.
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
            out.push_str("0xPTR");
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

/// Runs the twin and the example `name` and compares them; panics with every difference found.
fn parity(name: &str) {
    let checks_results = EXAMPLES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, checks)| *checks)
        .or(GROUP_PROGRAMS.contains(&name).then_some(true))
        .expect("the example is in EXAMPLES or GROUP_PROGRAMS");
    let twin = twin_dir().join(format!("{name}{EXE_SUFFIX}"));
    let captured = std::env::var_os("CUDA_EXAMPLES_OUTPUT_DIR").map(PathBuf::from);
    let example = match &captured {
        Some(dir) => dir.join(format!("{name}.stdout")),
        None => examples_dir()
            .unwrap_or_else(|e| panic!("{name}: {e}"))
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
    assert!(missing.is_empty(), "{name}: missing {}", missing.join("; "));

    let c = run("C twin", &twin, &kernels).unwrap_or_else(|e| panic!("{name}: {e}"));
    let rust = match &captured {
        Some(dir) => read_captured(dir, name),
        None => run("Rust example", &example, &kernels),
    }
    .unwrap_or_else(|e| panic!("{name}: {e}"));
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
    if gpu {
        for (who, run, lines) in [
            ("C twin", &c, &c_lines),
            ("Rust example", &rust, &rust_lines),
        ] {
            if run.status.code() != Some(0) {
                problems.push(format!(
                    "on a GPU the {who} must exit with 0, not {}",
                    run.describe_status()
                ));
            }
            if checks_results && !result_pass(lines) {
                problems.push(format!("on a GPU the {who} must print `Result = PASS`"));
            }
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
    if !problems.is_empty() {
        let stderr = |who: &str, r: &Run| {
            if r.stderr.is_empty() {
                String::new()
            } else {
                format!("\n{who} stderr:\n{}", r.stderr)
            }
        };
        panic!(
            "{name}: parity FAILED (C twin {}, Rust example {})\n{}{}{}",
            twin.display(),
            example.display(),
            problems.join("\n"),
            stderr("C twin", &c),
            stderr("Rust example", &rust)
        );
    }

    if let Some(symbol) = missing_symbol(&c, &rust) {
        println!(
            "{name}: parity ok (both stop at start: the driver library lacks {symbol}, which \
             this header's C spelling binds; exit code 127)"
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
        "; success not required: a tool is attached (CUDA_INJECTION64_PATH), and the driver \
         serves this program's calls only without one"
            .to_string()
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
        "{name}: parity ok ({} lines, {}){results}",
        rust_lines.len(),
        describe_status(rust.status)
    );
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
            normalise("ctxA = 0x55d0c0ffee00, ctxB = (nil)\npfn = 0x7f53a52d5660"),
            owned(&["ctxA = 0xPTR, ctxB = (nil)", "pfn = 0xPTR"])
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

    #[test]
    fn diff_shows_the_differing_lines() {
        let d = diff(&owned(&["a", "b", "c"]), &owned(&["a", "x", "c"]), 10);
        assert!(d.contains("-    2 | b") && d.contains("+    2 | x"), "{d}");
    }
}
