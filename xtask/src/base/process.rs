//! Running the commands a task is made of: from the workspace root, each failure one line that
//! names the command; and another task, as `cargo xtask <name>` would ([`run_task`]).

use crate::base::Result;
use std::os::fd::AsFd;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};

/// The workspace root (the folder above `xtask/`).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask/ has a parent folder")
        .to_path_buf()
}

/// `program`, to be run from the workspace root.
pub fn command(program: impl AsRef<std::ffi::OsStr>) -> Command {
    let mut command = Command::new(program);
    command.current_dir(root());
    command
}

/// The loader path (`LD_LIBRARY_PATH`) of this process with the folder `dir` first.
pub fn loader_path_with(dir: &Path) -> String {
    match std::env::var("LD_LIBRARY_PATH")
        .unwrap_or_default()
        .as_str()
    {
        "" => dir.display().to_string(),
        rest => format!("{}:{rest}", dir.display()),
    }
}

/// The program `name` on PATH, as `command -v` finds it.
pub fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| crate::base::files::executable(p))
}

/// How `command` ended, run with the task's standard streams; an error (naming it) only if it
/// cannot start. For a command whose failure is an answer, not an error.
pub fn status(command: &mut Command) -> Result<ExitStatus> {
    command.status().map_err(|e| error(command, e).into())
}

/// Runs `command` with the task's standard streams; an error if it cannot start or fails.
pub fn run(command: &mut Command) -> Result {
    let status = command.status().map_err(|e| error(command, e))?;
    check(command, status)
}

/// `Ok` if `status`, how `command` ended, is a success; else the error that it failed.
pub fn check(command: &Command, status: ExitStatus) -> Result {
    if status.success() {
        Ok(())
    } else {
        Err(format!("{} failed ({status})", describe(command)).into())
    }
}

/// What went wrong running `command`, as one line that names it.
pub fn error(command: &Command, e: impl std::fmt::Display) -> String {
    format!("{}: {e}", describe(command))
}

/// Runs `command` from the workspace root with its stdout sent to stderr.
pub fn run_to_stderr(command: &mut Command) -> Result {
    let stderr = std::io::stderr()
        .as_fd()
        .try_clone_to_owned()
        .map_err(|e| format!("stderr: {e}"))?;
    run(command.stdout(Stdio::from(stderr)))
}

/// Runs `commands`, at most `at_once` at a time (as many as there are CPUs if `None`); each
/// failure is waited out, the first named in the error.
pub fn run_parallel(commands: Vec<Command>, at_once: Option<usize>) -> Result {
    let at_once = at_once
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1);
    let mut running = std::collections::VecDeque::new();
    let mut failed: Vec<String> = Vec::new();
    let wait = |(mut child, command): (std::process::Child, Command), failed: &mut Vec<_>| {
        let ended = child.wait().map_err(|e| error(&command, e));
        if let Err(e) = ended
            .map_err(Into::into)
            .and_then(|status| check(&command, status))
        {
            failed.push(e.to_string());
        }
    };
    for mut command in commands {
        if running.len() >= at_once {
            wait(running.pop_front().expect("one runs"), &mut failed);
        }
        match command.spawn() {
            Ok(child) => running.push_back((child, command)),
            Err(e) => {
                failed.push(error(&command, e));
                break;
            }
        }
    }
    for started in running {
        wait(started, &mut failed);
    }
    failed.first().map_or(Ok(()), |f| Err(f.clone().into()))
}

/// Runs `command` and returns its standard output (its standard error goes to the task's).
pub fn output(command: &mut Command) -> Result<String> {
    let out = command
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| error(command, e))?;
    check(command, out.status)?;
    String::from_utf8(out.stdout)
        .map_err(|_| format!("{}: its output is not UTF-8", describe(command)).into())
}

/// The command line of `command`, as a user would type it.
pub fn describe(command: &Command) -> String {
    std::iter::once(command.get_program())
        .chain(command.get_args())
        .map(|a| a.to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Runs the task `name` with `args` as `cargo xtask <name> <args>` would: in a process of its own
/// (this program again), so that the environment a task sets for its builds (a target folder,
/// RUSTFLAGS, the fetched dependencies) ends with it, as a script's did.
pub fn run_task(name: &str, args: &[&str]) -> Result {
    run(task(name)?.args(args))
}

/// `cargo xtask <name>` as a command (this program again), to run in a process of its own.
pub fn task(name: &str) -> Result<Command> {
    let xtask = std::env::current_exe().map_err(|e| format!("the path of xtask: {e}"))?;
    let mut command = command(xtask);
    command.arg(name);
    Ok(command)
}

#[cfg(test)]
mod tests {
    use crate::base::{files, process};
    use std::path::Path;

    /// A missing file's error names the path; a missing program's, the command line.
    #[test]
    fn errors_name_what_failed() {
        let missing = Path::new("/nonexistent/xtask-missing.txt");
        let e = files::read(missing).unwrap_err().to_string();
        assert!(e.contains("/nonexistent/xtask-missing.txt"), "{e}");
        let e = process::run(process::command("xtask-no-such-program").arg("--flag"))
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("xtask-no-such-program --flag: "), "{e}");
        let e = process::run(process::command("false").arg("x"))
            .unwrap_err()
            .to_string();
        assert_eq!(e, "false x failed (exit status: 1)");
    }
}
