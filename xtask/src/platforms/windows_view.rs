//! The crate's Windows view of the gl module, type-checked on Linux: with the host's toolchain,
//! which has no standard library for Windows (`windows` is a built-in cfg), a copy of the crate
//! whose gl_*.rs are the committed ones as Windows compiles them (the generator's projection:
//! cfg(windows) items kept, cfg(not(windows)) ones dropped) is checked for x86-64 Linux, with the
//! linked functions and with the table and dynamic loading. The control: without HGPUNV, the view
//! does not compile.

use crate::process::{self, root};
use crate::Result;
use std::path::Path;

const GENERATED: &str = "cuda-driver-sys-items/src/generated";

/// Checks the Windows view for the versions `ends` (the first and last of the task's).
pub fn check(scratch: &Path, generator: &Path, ends: &[u32]) -> Result {
    let copy = scratch.join("windows-view");
    copy_tree(&root(), &copy, true)?;
    let committed = gl_files(&root())?;
    let cfgs = count_lines(&committed, |l| {
        l.trim_start_matches(' ')
            .strip_prefix("#[cfg(")
            .is_some_and(|rest| rest.contains("windows"))
    })?;
    println!("committed gl_*.rs: {cfgs} items or elements under a cfg of the target");
    for &v in ends {
        for file in &committed {
            let name = file.file_name().unwrap_or_default();
            std::fs::copy(file, copy.join(GENERATED).join(name))?;
        }
        let projected = gl_files(&copy)?;
        process::run(
            process::command(generator)
                .args(["project", "--version", &v.to_string(), "--windows"])
                .args(&projected),
        )?;
        let mentions = count_lines(&projected, |l| {
            l.contains("cuWGLGetDevice") || l.contains("HGPUNV")
        })?;
        if mentions == 0 {
            return Err(format!("the Windows view of CUDA {v} has no cuWGLGetDevice").into());
        }
        for features in ["gl", "gl,table,dynamic-loading"] {
            if let Err(errors) = cargo_check(scratch, &copy, v, features)? {
                eprint!("{errors}");
                return Err(
                    format!("the Windows view of CUDA {v} does not compile ({features})").into(),
                );
            }
        }
        println!("CUDA {v}: the Windows view of the gl module ({mentions} lines naming cuWGLGetDevice or HGPUNV) compiles with features gl and gl,table,dynamic-loading");
    }
    // The control: without HGPUNV, the Windows view does not compile.
    let bindings = copy.join(GENERATED).join("gl_bindings.rs");
    let text = super::read(&bindings)?;
    let without: Vec<&str> = text
        .lines()
        .filter(|l| !l.starts_with("pub type HGPUNV = "))
        .collect();
    std::fs::write(&bindings, without.join("\n") + "\n")?;
    let last = ends[ends.len() - 1];
    match cargo_check(scratch, &copy, last, "gl")? {
        Ok(()) => Err("the Windows view compiled without HGPUNV: the check checks nothing".into()),
        Err(errors) => {
            let count = errors.lines().filter(|l| l.starts_with("error[")).count();
            println!("control: without HGPUNV the Windows view fails: {count} errors");
            Ok(())
        }
    }
}

/// `cargo check` of the copy with `cuda-<version>,<features>`: Ok, or the errors cargo printed.
fn cargo_check(
    scratch: &Path,
    copy: &Path,
    version: u32,
    features: &str,
) -> Result<std::result::Result<(), String>> {
    let mut command = process::command("cargo");
    command
        .current_dir(copy)
        .env("CARGO_TARGET_DIR", scratch.join("windows-target"))
        .env("RUSTFLAGS", "-Dwarnings")
        .args([
            "check",
            "--quiet",
            "-p",
            "cuda-driver-sys",
            "--no-default-features",
        ])
        .arg("--features")
        .arg(format!("cuda-{version},{features}"));
    let out = command
        .output()
        .map_err(|e| format!("{}: {e}", process::describe(&command)))?;
    let errors = String::from_utf8_lossy(&out.stderr).into_owned();
    Ok(if out.status.success() {
        Ok(())
    } else {
        Err(errors)
    })
}

/// The gl_*.rs of the generated bindings under `tree`.
fn gl_files(tree: &Path) -> Result<Vec<std::path::PathBuf>> {
    super::files(&tree.join(GENERATED), "gl_", ".rs")
}

fn count_lines(files: &[std::path::PathBuf], matches: impl Fn(&str) -> bool) -> Result<usize> {
    let mut count = 0;
    for file in files {
        count += super::read(file)?.lines().filter(|l| matches(l)).count();
    }
    Ok(count)
}

/// Copies the folder `from` into `to` (the workspace, at the top without `target` and `.git`).
fn copy_tree(from: &Path, to: &Path, top: bool) -> Result {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let name = entry.file_name();
        if top && (name == "target" || name == ".git") {
            continue;
        }
        let kind = entry.file_type()?;
        if kind.is_dir() {
            copy_tree(&entry.path(), &to.join(&name), false)?;
        } else if kind.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(entry.path())?, to.join(&name))?;
        } else {
            std::fs::copy(entry.path(), to.join(&name))?;
        }
    }
    Ok(())
}
