//! `cargo xtask regenerate [--check | --windows-pass DIR VERSION...]`: every committed file of
//! `cuda-driver-sys-items/src/generated/` from the pinned headers of each version of
//! `versions.txt`: the generator per version (and the Windows pass of the OpenGL module) into a
//! scratch folder, then its merge (docs/DESIGN.md, "How the bindings are generated"). `--check`:
//! into a scratch folder, failing on any difference; `--windows-pass`: only the Windows pass of
//! these versions, into `DIR/wV`.

use crate::base::args::Args;
use crate::base::capture::merged;
use crate::base::deps::{self, env_path};
use crate::base::files::remove_dir;
use crate::base::process::{self, root};
use crate::base::scratch::Scratch;
use crate::base::{generator, versions, Result};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// One generator run: a version's headers into a folder, for x86_64-pc-windows-gnu (the OpenGL
/// module only) or not.
type Job = (String, PathBuf, bool);

/// `cargo xtask regenerate [--check | --windows-pass DIR VERSION...]`.
pub fn run(args: &Args) -> Result {
    if let Some(dir) = args.value("DIR") {
        let job = |v: &&str| (v.to_string(), Path::new(dir).join(format!("w{v}")), true);
        return generator(&args.values("VERSION").iter().map(job).collect::<Vec<_>>());
    }
    let check = args.flag("--check");
    let numbers = Vec::from_iter(versions::all()?.iter().map(|v| v.number.to_string()));
    let scratch = Scratch::new("regenerate")?;
    // The folders of each target's files: `v<V>`, and `w<V>` for Windows.
    let dirs = |prefix: &str| -> Vec<PathBuf> {
        let dir = |v: &String| scratch.path().join(format!("{prefix}{v}"));
        numbers.iter().map(dir).collect()
    };
    let mut jobs: Vec<Job> = Vec::new();
    for (windows, prefix) in [(false, "v"), (true, "w")] {
        let versions = numbers.iter().cloned().zip(dirs(prefix));
        jobs.extend(versions.map(|(v, dir)| (v, dir, windows)));
    }
    generator(&jobs)?;
    let committed = root().join("cuda-driver-sys-items/src/generated");
    let merged = scratch.path().join("merged");
    let out = if check { merged } else { committed.clone() };
    let new = out.with_extension("new");
    remove_dir(&new)?;
    let mut merge = process::command(generator::path());
    merge.arg("merge").arg("--out").arg(&new).args(dirs("v"));
    process::run(merge.arg("--windows").args(dirs("w")))?;
    remove_dir(&out)?;
    fs_err::rename(&new, &out)?;
    if check {
        compare(&committed, &out)?;
        let all = numbers.join(" ");
        println!("regenerate --check: committed bindings identical to a fresh generation ({all})");
    }
    Ok(())
}

/// Builds the generator, then runs `jobs`, as many at once as there are CPUs (bindgen is
/// single-threaded); a failure fails the task.
fn generator(jobs: &[Job]) -> Result {
    deps::use_fetched(false)?;
    generator::build()?;
    let commands = jobs.iter().map(command).collect::<Result<_>>()?;
    process::run_parallel(commands, None)
}

/// The generator's command for `job`.
fn command((version, out, windows): &Job) -> Result<Command> {
    let headers = env_path(
        &format!("CUDA_HEADERS_{version}"),
        &format!("is {version} in versions.txt?"),
    )?;
    let interop = env_path("CUDA_INTEROP_INCLUDE", "run `cargo xtask fetch-deps`")?;
    let mut clang_args = std::env::var("BINDGEN_EXTRA_CLANG_ARGS").unwrap_or_default();
    let mut command = process::command(generator::path());
    command
        .arg("--include")
        .arg(headers)
        .arg("--interop")
        .arg(interop)
        .arg("--out")
        .arg(out)
        .arg("--cc")
        .arg(std::env::var("CC").unwrap_or_else(|_| "cc".into()));
    if *windows {
        let shim = root().join("ci/platforms/msvc-shim");
        clang_args += &format!(
            " --target=x86_64-pc-windows-gnu -ffreestanding -isystem {} -Wno-ignored-attributes",
            shim.display()
        );
        command.args(["--only", "gl"]);
    }
    command
        .env("BINDGEN_EXTRA_CLANG_ARGS", clang_args)
        .stdout(Stdio::null());
    Ok(command)
}

/// Fails with the first 40 lines of `diff -r` if the two folders differ.
fn compare(committed: &Path, fresh: &Path) -> Result {
    let (status, diff) = merged(process::command("diff").arg("-r").arg(committed).arg(fresh))?;
    if status.success() {
        return Ok(());
    }
    eprintln!(
        "regenerate --check: the committed bindings differ from what the pinned headers give:"
    );
    for line in diff.lines().take(40) {
        eprintln!("{line}");
    }
    Err("run cargo xtask regenerate and commit the result".into())
}
