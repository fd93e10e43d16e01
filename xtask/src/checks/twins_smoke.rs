//! `cargo xtask twins-smoke [OUTPUT_DIR]`: smoke check of the examples' C twins
//! (`examples/<name>.cpp`) and the group programs' (`examples/groups/<name>.cpp`, each from its
//! oldest header on), with g++ and no Rust:
//!   - builds each twin (a group program's only where its oldest header is at most the default)
//!     against the pinned headers of the default version and links it with the driver library
//!     that fetch-deps fetched (Debian's libcuda.so.1), into `target/twins/<name>`;
//!   - compiles each against the headers of the other `dependents` versions too (the twins port
//!     the posts to CUDA 13 under an `#if CUDA_VERSION` test), and fails if one does not compile;
//!   - runs each from the repository root (so that the default PTX folder examples/kernels is
//!     found), under a time limit, and fails if one is killed by a signal or hangs. Without a GPU
//!     every twin takes its error path; with one, each prints "Result = PASS" where it checks
//!     results.
//!
//! Outputs go to `target/twins/out/<name>.txt` (stdout only; the exit code in `<name>.rc`), or to the
//! folder given as OUTPUT_DIR.

use crate::base::args::Args;
use crate::base::capture::exit_code;
use crate::base::deps::{self, env_path};
use crate::base::examples::{group_programs, programs, stems};
use crate::base::process::{self, root};
use crate::base::versions::{self, dotted, the_one};
use crate::base::{driver, Result};
use std::ffi::OsString;
use std::io::Write;
use std::path::Path;
use std::process::Stdio;

/// The twin that uses the CUDA 12 runtime besides the driver.
const USES_RUNTIME: &str = "runtime_interop";

/// How long a twin may run, in seconds.
const TIME_LIMIT: &str = "120";

/// `cargo xtask twins-smoke [OUTPUT_DIR]`: builds every twin, then runs those built.
pub fn run(args: &Args) -> Result {
    let root = root();
    let bin = root.join("target/twins");
    let out = args
        .value("OUTPUT_DIR")
        .map_or(bin.join("out"), |dir| root.join(dir));
    deps::use_fetched(&[])?;
    // (name, source, oldest header): the posts' twins build with every header.
    let mut twins: Vec<(String, String, u32)> = stems("examples", "cpp")?
        .into_iter()
        .map(|n| (format!("examples/{n}.cpp"), n, 0))
        .map(|(source, n, oldest)| (n, source, oldest))
        .collect();
    if twins.is_empty() {
        return Err("no examples/*.cpp".into());
    }
    for p in group_programs()? {
        let source = format!("{}/{}.cpp", programs::FOLDER, p.name);
        twins.push((p.name, source, p.oldest));
    }
    std::fs::create_dir_all(&bin)?;
    std::fs::create_dir_all(&out)?;
    let built = the_one("default")?;
    let compiled: Vec<u32> = versions::tagged("dependents")?
        .into_iter()
        .filter(|v| *v != built)
        .collect();
    let cxx = std::env::var_os("CXX").unwrap_or_else(|| "g++".into());
    let driver = driver::library()?;
    let mut failed = false;
    for (n, source, oldest) in &twins {
        let (runtime_include, runtime_link) = runtime_flags(n)?;
        // A group program newer than the default header: compiled against the newer ones only.
        let builds = *oldest <= built;
        let mut build = process::command(&cxx);
        build
            .args(CXXFLAGS)
            .arg(include(built)?)
            .args(&runtime_include)
            .arg(source)
            .arg("-o")
            .arg(bin.join(n))
            .arg(join("-L", &driver))
            .arg("-l:libcuda.so.1")
            .args(&runtime_link);
        if builds && !build.status()?.success() {
            eprintln!(
                "twins-smoke: {n}: does not build against the {} headers",
                dotted(built)
            );
            failed = true;
            continue;
        }
        for &v in compiled.iter().filter(|v| **v >= *oldest) {
            let mut compile = process::command(&cxx);
            compile
                .args(CXXFLAGS)
                .arg("-w")
                .arg(include(v)?)
                .args(&runtime_include)
                .args(["-c", source, "-o", "/dev/null"]);
            if !compile.status()?.success() {
                eprintln!(
                    "twins-smoke: {n}: does not compile against the {} headers",
                    dotted(v)
                );
                failed = true;
            }
        }
    }
    for (n, _, _) in &twins {
        let binary = bin.join(n);
        if !binary.is_file() {
            continue;
        }
        failed |= !run_twin(n, &binary, &out)?;
    }
    if failed {
        return Err("a twin failed (the lines above say which and how)".into());
    }
    Ok(())
}

const CXXFLAGS: &[&str] = &["-std=c++17", "-O2", "-Wall", "-Wextra"];

/// `-I` of the pinned headers of `version`.
fn include(version: u32) -> Result<OsString> {
    let headers = env_path(
        &format!("CUDA_HEADERS_{version}"),
        "the pinned headers' folder (fetch-deps)",
    )?;
    Ok(join("-I", &headers))
}

/// The compile and link flags of the CUDA 12 runtime for the twin `name` that uses it (its headers
/// after the driver's; libcudart.so.12); none for the others.
fn runtime_flags(name: &str) -> Result<(Vec<OsString>, Vec<OsString>)> {
    if name != USES_RUNTIME {
        return Ok((Vec::new(), Vec::new()));
    }
    let include = env_path(
        "CUDART_INCLUDE_PATH",
        "the CUDA runtime's headers (fetch-deps)",
    )?;
    let lib = env_path(
        "CUDART_LIBRARY_PATH",
        "the CUDA runtime's folder (fetch-deps)",
    )?;
    let link = vec![
        join("-L", &lib),
        join("-Wl,-rpath,", &lib),
        "-l:libcudart.so.12".into(),
    ];
    Ok((vec![join("-I", &include)], link))
}

fn join(flag: &str, path: &Path) -> OsString {
    let mut s = OsString::from(flag);
    s.push(path);
    s
}

/// Runs the twin `name` under the time limit, its output into `out`; prints it. False if it was
/// killed or hung.
fn run_twin(name: &str, binary: &Path, out: &Path) -> Result<bool> {
    let stdout = out.join(format!("{name}.txt"));
    let stderr = out.join(format!("{name}.stderr"));
    let status = process::command("timeout")
        .arg(TIME_LIMIT)
        .arg(binary)
        .stdout(Stdio::from(std::fs::File::create(&stdout)?))
        .stderr(Stdio::from(std::fs::File::create(&stderr)?))
        .status()?;
    let rc = exit_code(status);
    std::fs::write(out.join(format!("{name}.rc")), format!("{rc}\n"))?;
    let hung = rc == 124 || (129..160).contains(&rc);
    if hung {
        eprintln!("twins-smoke: {name}: killed or hung (exit {rc})");
    }
    let errors = std::fs::read(&stderr)?;
    if errors.is_empty() {
        std::fs::remove_file(&stderr)?;
    } else {
        eprintln!("twins-smoke: {name}: wrote to stderr:");
        std::io::stderr().write_all(&errors)?;
    }
    println!("===== {name} (exit {rc})");
    let mut stdout_handle = std::io::stdout().lock();
    stdout_handle.write_all(&std::fs::read(&stdout)?)?;
    stdout_handle.flush()?;
    Ok(!hung)
}
