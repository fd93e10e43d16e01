//! What the tasks install with rustup, the one toolchain manager they use: the prebuilt standard
//! library of a target for the toolchain that runs cargo (`rustup target add`), a component of it
//! (`rustup component add`), a toolchain of its own version (`rustup toolchain install`), here or
//! into homes of its own; and a program of such a toolchain (`rustup run`). What is there already
//! is not asked for again (no download, no network); a machine without rustup, or one that cannot
//! reach its downloads, gets one line saying what to run.

use crate::base::{process, Result};
use std::path::Path;
use std::process::Command;

/// The standard library of each of `targets`, for the toolchain cargo runs with here.
pub fn targets(targets: &[&str]) -> Result {
    let installed = rustup(
        &mut command(&["target", "list", "--installed"]),
        "the installed targets",
    )?;
    let missing: Vec<&str> = (targets.iter().copied())
        .filter(|t| !installed.lines().any(|l| l.trim() == *t))
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    let what = format!("the standard library for {}", missing.join(" "));
    rustup(
        &mut command(&[&["target", "add"], &missing[..]].concat()),
        &what,
    )
    .map(drop)
}

/// The component `name` (`rust-src`) of the toolchain cargo runs with here.
pub fn component(name: &str) -> Result {
    rustup(&mut command(&["component", "add", name]), name).map(drop)
}

/// The toolchain `version` (`1.84`: its newest patch release), minimal profile; its name for
/// `rustup run`.
pub fn toolchain(version: &str) -> Result<String> {
    let installed = rustup(
        &mut command(&["toolchain", "list"]),
        "the installed toolchains",
    )?;
    let prefix = format!("{version}-");
    if !installed.lines().any(|l| l.starts_with(&prefix)) {
        rustup(&mut install(version, &[]), &format!("Rust {version}"))?;
    }
    Ok(version.to_string())
}

/// Installs the toolchain `release` with the `components` into the empty homes `rustup_home`
/// and `cargo_home` (rustup's and cargo's).
pub fn install_into(
    release: &str,
    components: &[&str],
    rustup_home: &Path,
    cargo_home: &Path,
) -> Result {
    let mut install = install(release, components);
    install
        .env("RUSTUP_HOME", rustup_home)
        .env("CARGO_HOME", cargo_home);
    let what = format!(
        "Rust {release} in the rustup home {}",
        rustup_home.display()
    );
    rustup(&mut install, &what).map(drop)
}

/// `program` (cargo, rustc) of rustup's `toolchain`, whatever toolchain runs this task (its
/// RUSTUP_TOOLCHAIN, RUSTC and RUSTDOC are not passed on).
pub fn run(toolchain: &str, program: &str) -> Command {
    let mut command = command(&["run", toolchain, program]);
    (command.env_remove("RUSTUP_TOOLCHAIN"))
        .env_remove("RUSTC")
        .env_remove("RUSTDOC");
    command
}

/// `rustup toolchain install` of `version`, minimal profile with `components`. No self-update: in
/// the test command's own homes rustup itself is not installed.
fn install(version: &str, components: &[&str]) -> Command {
    let mut command = command(&["toolchain", "install", version, "--profile", "minimal"]);
    command.arg("--no-self-update");
    if !components.is_empty() {
        command.args(["--component", &components.join(",")]);
    }
    command
}

fn command(args: &[&str]) -> Command {
    let mut command = process::command("rustup");
    command.args(args);
    command
}

/// Runs `command` (rustup), for `what`: its standard output; on failure one line with what it
/// said last.
fn rustup(command: &mut Command, what: &str) -> Result<String> {
    let line = process::describe(command);
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
