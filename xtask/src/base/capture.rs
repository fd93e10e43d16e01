//! Running a command while keeping what it prints: shown as it comes and kept ([`tee`]), or its
//! two streams as one ([`spawn_merged`], [`merged`], [`merged_shown`]), and its exit code as a
//! shell gives it ([`exit_code`]).

use crate::base::process::{check, error};
use crate::base::Result;
use std::io::{BufRead, BufReader, PipeReader, Read, Write};
use std::process::{Child, Command, ExitStatus, Stdio};

/// Runs `command`, its standard output shown line by line as it comes and returned; its standard
/// error goes to the task's. An error if it fails.
pub fn tee(command: &mut Command) -> Result<String> {
    let mut child = command
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| error(command, e))?;
    let mut kept = String::new();
    let stdout = child.stdout.take().expect("stdout is piped");
    for line in BufReader::new(stdout).lines() {
        let line = line.map_err(|e| error(command, e))?;
        println!("{line}");
        kept.push_str(&line);
        kept.push('\n');
    }
    let status = child.wait().map_err(|e| error(command, e))?;
    check(command, status)?;
    Ok(kept)
}

/// Starts `command` with its standard output and error as one stream (`2>&1`), and returns it
/// with the reading end of that stream, which ends when the command exits.
pub fn spawn_merged(command: &mut Command) -> Result<(Child, PipeReader)> {
    let (reader, writer) = std::io::pipe().map_err(|e| error(command, format!("no pipe: {e}")))?;
    let writer_too = writer
        .try_clone()
        .map_err(|e| error(command, format!("no pipe: {e}")))?;
    let child = command
        .stdout(writer)
        .stderr(writer_too)
        .spawn()
        .map_err(|e| error(command, e))?;
    // Drops the command's copies of the write ends: the child holds the only ones.
    command.stdout(Stdio::null()).stderr(Stdio::null());
    Ok((child, reader))
}

/// Runs `command` with its standard output and error as one stream (`2>&1`); that stream (lossy
/// UTF-8) and the exit status, whether it passed or not.
pub fn merged(command: &mut Command) -> Result<(ExitStatus, String)> {
    merged_as(command, false)
}

/// [`merged`], the stream also shown as it comes (`2>&1 | tee`).
pub fn merged_shown(command: &mut Command) -> Result<(ExitStatus, String)> {
    merged_as(command, true)
}

fn merged_as(command: &mut Command, show: bool) -> Result<(ExitStatus, String)> {
    let (mut child, mut reader) = spawn_merged(command)?;
    let (mut bytes, mut chunk) = (Vec::new(), [0; 8192]);
    loop {
        let n = reader.read(&mut chunk).map_err(|e| error(command, e))?;
        if n == 0 {
            break;
        }
        if show {
            let mut out = std::io::stdout().lock();
            out.write_all(&chunk[..n])?;
            out.flush()?;
        }
        bytes.extend_from_slice(&chunk[..n]);
    }
    let status = child.wait().map_err(|e| error(command, e))?;
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
    check(command, status)
}

/// `status` as a shell's `$?`: the exit code, or 128 plus the signal that ended the process.
pub fn exit_code(status: ExitStatus) -> i32 {
    use std::os::unix::process::ExitStatusExt;
    status
        .code()
        .unwrap_or_else(|| 128 + status.signal().unwrap_or(0))
}
