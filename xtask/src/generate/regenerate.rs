//! `cargo xtask regenerate [--check]`: every committed file of `cuda-driver-sys-items/src/generated/`
//! from the pinned headers. First one set of files per CUDA version (the generator, into a scratch
//! folder), then the merge stage, which writes each item once under the cfg of the versions it
//! exists in. `--check`: regenerate into a scratch folder and fail on any difference.
//!
//! The versions are those of `cuda-driver-sys-items/versions.txt`: adding a line there and running this
//! task adds a version. Also the modules of the other driver-API headers (profiler, OpenGL, EGL,
//! VDPAU; `--interop` names where the OpenGL, EGL and VDPAU headers are). The headers come from the
//! pinned wheels and Debian packages, and libclang from Debian (`cargo xtask fetch-deps`), so the
//! output is the same on every machine.
//!
//! The Windows pass: cudaGL.h declares `cuWGLGetDevice` (and its `HGPUNV`) only under `_WIN32`, so
//! the OpenGL module is generated for x86_64-pc-windows-gnu too (`--only gl`; every other file is
//! the same for Windows, which `cargo xtask platforms` checks), and the merge puts what only one
//! target has under `cfg(windows)` or `cfg(not(windows))`. It needs no Windows headers:
//! clang -ffreestanding with the few declarations GL/gl.h takes from windows.h
//! (`ci/platforms/msvc-shim/`), which the platforms task shows gives the same files as the
//! mingw-w64 headers. `--windows-pass DIR V...`: only the Windows pass of these versions, into
//! `DIR/wV`.

use crate::base::args::Args;
use crate::base::files::remove_dir;
use crate::base::process::{self, root};
use crate::base::scratch::Scratch;
use crate::base::{deps, generator, versions, Result};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};

/// `cargo xtask regenerate [--check | --windows-pass DIR VERSION...]`.
pub fn run(args: &Args) -> Result {
    if let Some(dir) = args.value("DIR") {
        let jobs: Vec<Job> = (args.values("VERSION").iter())
            .map(|v| Job::new(v, Path::new(dir).join(format!("w{v}")), Pass::Windows))
            .collect();
        return generator(&jobs);
    }
    let check = args.flag("--check");
    let numbers: Vec<String> = versions::all()?
        .iter()
        .map(|v| v.number.to_string())
        .collect();
    let scratch = Scratch::new("regenerate")?;
    let mut jobs = Vec::new();
    for pass in [Pass::Linux, Pass::Windows] {
        for v in &numbers {
            let dir = scratch.path().join(format!("{}{v}", pass.prefix()));
            jobs.push(Job::new(v, dir, pass));
        }
    }
    generator(&jobs)?;
    let committed = root().join("cuda-driver-sys-items/src/generated");
    let out = if check {
        scratch.path().join("merged")
    } else {
        committed.clone()
    };
    let new = out.with_extension("new");
    remove_dir(&new)?;
    let dirs = |pass: Pass| jobs.iter().filter(move |j| j.pass == pass).map(|j| &j.out);
    process::run(
        process::command(generator::path())
            .arg("merge")
            .arg("--out")
            .arg(&new)
            .args(dirs(Pass::Linux))
            .arg("--windows")
            .args(dirs(Pass::Windows)),
    )?;
    remove_dir(&out)?;
    std::fs::rename(&new, &out).map_err(|e| format!("{}: {e}", out.display()))?;
    if check {
        compare(&committed, &out)?;
        println!(
            "regenerate --check: committed bindings identical to a fresh generation ({})",
            numbers.join(" ")
        );
    }
    Ok(())
}

/// The target a version's files are generated for.
#[derive(Clone, Copy, PartialEq)]
enum Pass {
    Linux,
    /// The OpenGL module only, as x86_64-pc-windows-gnu compiles the headers.
    Windows,
}

impl Pass {
    /// The scratch folder's prefix of its versions' files.
    fn prefix(self) -> &'static str {
        match self {
            Pass::Linux => "v",
            Pass::Windows => "w",
        }
    }
}

/// One generator run: a version's headers, for one target, into a folder.
struct Job {
    version: String,
    out: PathBuf,
    pass: Pass,
}

impl Job {
    fn new(version: &str, out: PathBuf, pass: Pass) -> Self {
        Job {
            version: version.to_string(),
            out,
            pass,
        }
    }

    /// Starts the generator for this job.
    fn start(&self) -> Result<Child> {
        let headers_var = format!("CUDA_HEADERS_{}", self.version);
        let headers = std::env::var(&headers_var).map_err(|_| {
            format!(
                "{headers_var} is not set: is {} in versions.txt?",
                self.version
            )
        })?;
        let interop = std::env::var("CUDA_INTEROP_INCLUDE")
            .map_err(|_| "CUDA_INTEROP_INCLUDE is not set (cargo xtask fetch-deps)")?;
        let mut clang_args = std::env::var("BINDGEN_EXTRA_CLANG_ARGS").unwrap_or_default();
        let mut command = process::command(generator::path());
        command
            .arg("--include")
            .arg(headers)
            .arg("--interop")
            .arg(interop)
            .arg("--out")
            .arg(&self.out)
            .arg("--cc")
            .arg(std::env::var("CC").unwrap_or_else(|_| "cc".into()));
        if self.pass == Pass::Windows {
            let shim = root().join("ci/platforms/msvc-shim");
            clang_args += &format!(
                " --target=x86_64-pc-windows-gnu -ffreestanding -isystem {} -Wno-ignored-attributes",
                shim.display()
            );
            command.args(["--only", "gl"]);
        }
        command
            .env("BINDGEN_EXTRA_CLANG_ARGS", clang_args)
            .stdout(Stdio::null())
            .spawn()
            .map_err(|e| process::error(&command, e).into())
    }
}

/// Builds the generator, then runs `jobs`, as many at once as there are CPUs (bindgen is
/// single-threaded); the first failure stops the task.
fn generator(jobs: &[Job]) -> Result {
    deps::use_fetched(&[])?;
    generator::build()?;
    let parallel = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut running: std::collections::VecDeque<(Child, &Job)> = Default::default();
    for job in jobs {
        if running.len() >= parallel {
            let (child, done) = running.pop_front().expect("a job runs");
            wait(child, done)?;
        }
        running.push_back((job.start()?, job));
    }
    for (child, job) in running {
        wait(child, job)?;
    }
    Ok(())
}

fn wait(mut child: Child, job: &Job) -> Result {
    let status = child.wait()?;
    if status.success() {
        Ok(())
    } else {
        let what = format!(
            "the generator for {} into {}",
            job.version,
            job.out.display()
        );
        Err(format!("{what} failed ({status})").into())
    }
}

/// Fails with the first 40 lines of `diff -r` if the two folders differ.
fn compare(committed: &Path, fresh: &Path) -> Result {
    let out = process::command("diff")
        .arg("-r")
        .arg(committed)
        .arg(fresh)
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("diff: {e}"))?;
    if out.status.success() {
        return Ok(());
    }
    let diff = String::from_utf8_lossy(&out.stdout);
    eprintln!(
        "regenerate --check: the committed bindings differ from what the pinned headers give:"
    );
    for line in diff.lines().take(40) {
        eprintln!("{line}");
    }
    Err("run cargo xtask regenerate and commit the result".into())
}
