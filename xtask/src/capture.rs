//! Running a command while keeping what it prints: shown as it comes and kept ([`tee`]), or its
//! two streams as one ([`merged`]), and its exit code as a shell gives it ([`exit_code`]).

use crate::process::describe;
use crate::Result;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, ExitStatus, Stdio};

/// Runs `command`, its standard output shown line by line as it comes and returned; its standard
/// error goes to the task's. An error if it fails.
pub fn tee(command: &mut Command) -> Result<String> {
    let mut child = command
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("{}: {e}", describe(command)))?;
    let mut kept = String::new();
    let stdout = child.stdout.take().expect("stdout is piped");
    for line in BufReader::new(stdout).lines() {
        let line = line.map_err(|e| format!("{}: {e}", describe(command)))?;
        println!("{line}");
        kept.push_str(&line);
        kept.push('\n');
    }
    let status = child
        .wait()
        .map_err(|e| format!("{}: {e}", describe(command)))?;
    if !status.success() {
        return Err(format!("{} failed ({status})", describe(command)).into());
    }
    Ok(kept)
}

/// Runs `command` with its standard output and error as one stream (`2>&1`); that stream (lossy
/// UTF-8) and the exit status, whether it passed or not.
pub fn merged(command: &mut Command) -> Result<(ExitStatus, String)> {
    let (mut reader, writer) =
        std::io::pipe().map_err(|e| format!("{}: no pipe: {e}", describe(command)))?;
    let writer_too = writer
        .try_clone()
        .map_err(|e| format!("{}: no pipe: {e}", describe(command)))?;
    let mut child = command
        .stdout(writer)
        .stderr(writer_too)
        .spawn()
        .map_err(|e| format!("{}: {e}", describe(command)))?;
    // The command holds the only write ends now: the read below ends when it exits.
    command.stdout(Stdio::null()).stderr(Stdio::null());
    let mut bytes = Vec::new();
    reader
        .read_to_end(&mut bytes)
        .map_err(|e| format!("{}: {e}", describe(command)))?;
    let status = child
        .wait()
        .map_err(|e| format!("{}: {e}", describe(command)))?;
    Ok((status, String::from_utf8_lossy(&bytes).into_owned()))
}

/// Runs `command` with both streams as one, shows that stream's non-empty lines (`2>&1 | grep -v
/// '^$'`); an error if it fails.
pub fn show_non_empty(command: &mut Command) -> Result {
    let (status, text) = merged(command)?;
    let mut out = std::io::stdout().lock();
    for line in text.lines().filter(|l| !l.is_empty()) {
        writeln!(out, "{line}")?;
    }
    if status.success() {
        Ok(())
    } else {
        Err(format!("{} failed ({status})", describe(command)).into())
    }
}

/// `status` as a shell's `$?`: the exit code, or 128 plus the signal that ended the process.
pub fn exit_code(status: ExitStatus) -> i32 {
    use std::os::unix::process::ExitStatusExt;
    status
        .code()
        .unwrap_or_else(|| 128 + status.signal().unwrap_or(0))
}
