//! What the tasks install with rustup, the one toolchain manager they use: a toolchain of its own
//! version (`rustup toolchain install`). What is there already is not asked for again
//! (no download, no network); a machine without rustup, or one that cannot reach its downloads,
//! gets one line saying what to run.

use crate::process;
use crate::Result;
use std::process::Command;

/// The toolchain `version` (`1.84`: its newest patch release), minimal profile; its name for
/// `rustup run`.
pub fn toolchain(version: &str) -> Result<String> {
    let installed = rustup(&["toolchain", "list"], "the installed toolchains")?;
    let prefix = format!("{version}-");
    if !installed.lines().any(|l| l.starts_with(&prefix)) {
        let args = ["toolchain", "install", version, "--profile", "minimal"];
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
