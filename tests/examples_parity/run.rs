//! Running one program: spawned with the parity run's environment, its stdout and stderr captured,
//! stopped at the time limit (`CUDA_PARITY_TIMEOUT_S`, default 120 s); or a run captured before
//! (`CUDA_EXAMPLES_OUTPUT_DIR`) read back.

use crate::common;
use std::ffi::OsStr;
use std::io::Read;
use std::path::Path;
use std::process::{ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// What a program did.
pub struct Run {
    pub status: ExitStatus,
    pub stdout: String,
    pub stderr: String,
    /// Whether it was killed at the time limit (its status is then the kill's).
    pub stopped: bool,
}

impl Run {
    /// The exit code or signal, in words.
    pub fn describe_status(&self) -> String {
        describe_status(self.status)
    }
}

/// `exit code <n>` or `killed by signal <n>`.
pub fn describe_status(status: ExitStatus) -> String {
    match (status.code(), signal(status)) {
        (Some(code), _) => format!("exit code {code}"),
        (None, Some(signal)) => format!("killed by signal {signal}"),
        (None, None) => format!("{status}"),
    }
}

/// The signal that ended the process, where one did.
pub fn signal(status: ExitStatus) -> Option<i32> {
    #[cfg(unix)]
    return std::os::unix::process::ExitStatusExt::signal(&status);
    #[cfg(not(unix))]
    {
        let _ = status;
        None
    }
}

/// Each program's time limit: `CUDA_PARITY_TIMEOUT_S` seconds, default 120.
pub fn timeout() -> Duration {
    let secs = std::env::var("CUDA_PARITY_TIMEOUT_S")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(120);
    Duration::from_secs(secs)
}

/// Runs `exe args...` with `CUDA_CACHE_DISABLE=1`, under the time limit (the bad-input and
/// no-driver tests', which exist on Unix and under `dynamic-loading`).
#[cfg(any(unix, feature = "dynamic-loading"))]
pub fn run_with_args(what: &str, exe: &Path, args: &[&OsStr]) -> Result<Run, String> {
    run_with(what, exe, args, &[])
}

/// Runs `exe args...` as [`run_bounded`] does; a run stopped at the time limit is an error.
pub fn run_with(
    what: &str,
    exe: &Path,
    args: &[&OsStr],
    env: &[(&str, &OsStr)],
) -> Result<Run, String> {
    let run = run_bounded(what, exe, args, env)?;
    if run.stopped {
        return Err(format!(
            "{what}: {} did not finish within {:?} (killed; CUDA_PARITY_TIMEOUT_S sets the limit)",
            exe.display(),
            timeout()
        ));
    }
    Ok(run)
}

/// Runs `exe args...` with `CUDA_CACHE_DISABLE=1` and the variables `env` (`CUDA_GROUP_CONTROL`
/// removed where `env` does not set it); killed at the time limit, which the run says
/// ([`Run::stopped`]). An error where it cannot be started or waited for.
pub fn run_bounded(
    what: &str,
    exe: &Path,
    args: &[&OsStr],
    env: &[(&str, &OsStr)],
) -> Result<Run, String> {
    let mut command = common::runner::target_command(exe);
    command.args(args).env("CUDA_CACHE_DISABLE", "1");
    command
        .env_remove("CUDA_GROUP_CONTROL")
        .envs(env.iter().copied());
    // Bind the twin's driver symbols as the Rust examples bind theirs: at start, as they are
    // linked (`-z now`), so that a driver without a function the program calls stops both sides
    // the same way; under `dynamic-loading`, on the first call, where the Rust side gets
    // CUDA_ERROR_NOT_FOUND (a program built for a header newer than the driver runs to its
    // first call of a function the driver lacks, which on a machine without a GPU it never
    // reaches).
    if !cfg!(feature = "dynamic-loading") {
        command.env("LD_BIND_NOW", "1");
    }
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("{what}: cannot run {}: {e}", exe.display()))?;
    let stdout = collect(child.stdout.take().unwrap());
    let stderr = collect(child.stderr.take().unwrap());
    let deadline = Instant::now() + timeout();
    let (status, stopped) = loop {
        match child.try_wait() {
            Ok(Some(status)) => break (status, false),
            Ok(None) if Instant::now() >= deadline => {
                let _ = child.kill();
                let status = child
                    .wait()
                    .map_err(|e| format!("{what}: waiting for {}: {e}", exe.display()))?;
                break (status, true);
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => return Err(format!("{what}: waiting for {}: {e}", exe.display())),
        }
    };
    // A process the program started may hold its pipes after it was stopped: what came by then.
    let text = |output: mpsc::Receiver<Vec<u8>>| {
        let bytes = match stopped {
            true => output.recv_timeout(Duration::from_secs(1)).ok(),
            false => output.recv().ok(),
        };
        String::from_utf8_lossy(&bytes.unwrap_or_default()).into_owned()
    };
    Ok(Run {
        status,
        stdout: text(stdout),
        stderr: text(stderr),
        stopped,
    })
}

/// Everything `pipe` gives, read on a thread of its own, sent when it ends.
fn collect(mut pipe: impl Read + Send + 'static) -> mpsc::Receiver<Vec<u8>> {
    let (send, receive) = mpsc::channel();
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = pipe.read_to_end(&mut bytes);
        let _ = send.send(bytes);
    });
    receive
}

/// What `cargo run --example <name>` printed, captured by `cargo xtask first-run` into `dir`:
/// `<name>.stdout`, `<name>.stderr` and `<name>.code` (the exit code).
pub fn read_captured(dir: &Path, name: &str) -> Result<Run, String> {
    let read = |ext: &str| {
        let path = dir.join(format!("{name}.{ext}"));
        std::fs::read(&path)
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .map_err(|e| format!("captured output {}: {e}", path.display()))
    };
    let code: i32 = read("code")?
        .trim()
        .parse()
        .map_err(|e| format!("{name}.code: {e}"))?;
    Ok(Run {
        status: exit_status(code),
        stdout: read("stdout")?,
        stderr: read("stderr")?,
        stopped: false,
    })
}

/// The status of a process that exited with `code`.
#[cfg(unix)]
fn exit_status(code: i32) -> ExitStatus {
    // A wait status: the exit code in the second byte.
    std::os::unix::process::ExitStatusExt::from_raw((code & 0xff) << 8)
}

/// The status of a process that exited with `code`.
#[cfg(windows)]
fn exit_status(code: i32) -> ExitStatus {
    std::os::windows::process::ExitStatusExt::from_raw(code as u32)
}
