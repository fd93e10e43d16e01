//! rustup, the one toolchain manager the tasks use: targets, components, toolchains, and a
//! toolchain's programs. What is there already is not asked for again; a machine without rustup,
//! or one that cannot reach its downloads, gets one line saying what to run.

use crate::base::{process, Result};
use std::process::Command;

/// The standard library of each of `targets`, for the toolchain cargo runs with here.
pub fn targets(targets: &[&str]) -> Result {
    let installed = rustup(&["target", "list", "--installed"], "the installed targets")?;
    let missing: Vec<&str> = (targets.iter().copied())
        .filter(|t| !installed.lines().any(|l| l.trim() == *t))
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    let what = format!("the standard library for {}", missing.join(" "));
    rustup(&[&["target", "add"], &missing[..]].concat(), &what).map(drop)
}

/// The component `name` (`rust-src`) of the toolchain cargo runs with here.
pub fn component(name: &str) -> Result {
    rustup(&["component", "add", name], name).map(drop)
}

/// The toolchain `version` (`1.84`: its newest patch release), minimal profile; its name for
/// `rustup run`.
pub fn toolchain(version: &str) -> Result<String> {
    let installed = rustup(&["toolchain", "list"], "the installed toolchains")?;
    let prefix = format!("{version}-");
    if !installed.lines().any(|l| l.starts_with(&prefix)) {
        install(version, &[])?;
    }
    Ok(version.to_string())
}

/// Installs the toolchain `version`, minimal profile with `components`, into the rustup home of
/// the environment. No self-update: in the test command's own homes rustup itself is not
/// installed.
pub fn install(version: &str, components: &[&str]) -> Result {
    let mut args = vec!["toolchain", "install", version, "--profile", "minimal"];
    let components = components.join(",");
    if !components.is_empty() {
        args.extend(["--component", &components]);
    }
    args.push("--no-self-update");
    rustup(&args, &format!("Rust {version}")).map(drop)
}

/// `program` (cargo, rustc) of rustup's `toolchain`, whatever toolchain runs this task (its
/// RUSTUP_TOOLCHAIN, RUSTC and RUSTDOC are not passed on).
pub fn run(toolchain: &str, program: &str) -> Command {
    let mut command = process::command("rustup");
    command.args(["run", toolchain, program]);
    for variable in ["RUSTUP_TOOLCHAIN", "RUSTC", "RUSTDOC"] {
        command.env_remove(variable);
    }
    command
}

/// `rustup ARGS`, for `what`: its standard output; on failure one line with what it said last.
fn rustup(args: &[&str], what: &str) -> Result<String> {
    let mut command = process::command("rustup");
    let line = process::describe(command.args(args));
    let failed = |why: &str| -> Result<String> {
        Err(format!("cannot get {what} from rustup ({why}): run `{line}` where it can").into())
    };
    match command.output() {
        Err(e) => failed(&format!("no rustup: {e}")),
        Ok(out) if out.status.success() => Ok(String::from_utf8_lossy(&out.stdout).into_owned()),
        Ok(out) => {
            let errors = String::from_utf8_lossy(&out.stderr);
            let last = errors.lines().rev().find(|l| !l.trim().is_empty());
            failed(last.unwrap_or("no message").trim())
        }
    }
}
