//! What the tasks install with rustup, the one toolchain manager they use: the prebuilt standard
//! library of a target for the toolchain that runs cargo (`rustup target add`), and a toolchain
//! of its own version (`rustup toolchain install`). What is there already is not asked for again
//! (no download, no network); a machine without rustup, or one that cannot reach its downloads,
//! gets one line saying what to run.

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

/// The toolchain `version` (`1.84`: its newest patch release), minimal profile; its name for
/// `rustup run`.
pub fn toolchain(version: &str) -> Result<String> {
    let installed = rustup(&["toolchain", "list"], "the installed toolchains")?;
    let prefix = format!("{version}-");
    if !installed.lines().any(|l| l.starts_with(&prefix)) {
        // No self-update: in the test command's own homes rustup itself is not installed.
        let args = [
            "toolchain",
            "install",
            version,
            "--profile",
            "minimal",
            "--no-self-update",
        ];
        rustup(&args, &format!("Rust {version}"))?;
    }
    Ok(version.to_string())
}

/// `rustup <args>`: its standard output; on failure one line with what it said last.
fn rustup(args: &[&str], what: &str) -> Result<String> {
    let mut command = Command::new("rustup");
    command.args(args);
    let line = process::describe(&command);
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
