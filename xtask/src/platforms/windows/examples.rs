//! The examples on the no-device path: each example's stdout and exit status under wine with the
//! stub nvcuda.dll equal to the Linux build's with Debian's 535 library (pointers aside).

use crate::process::{self, root};
use crate::Result;
use std::path::Path;
use std::process::{Command, Stdio};

/// The examples but runtime_interop, which also loads the CUDA runtime (examples/common/cudart.rs:
/// libcudart.so.12 through dlopen, Linux only).
pub fn names() -> Result<Vec<String>> {
    let files = crate::platforms::files(&root().join("examples"), "", ".rs")?;
    Ok(files
        .iter()
        .filter_map(|f| f.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .filter(|name| name != "runtime_interop")
        .collect())
}

/// Builds the examples for Linux and runs each on Linux and (`wine`) on Windows; they must agree.
pub fn compare(
    scratch: &Path,
    example_args: &[&str],
    features: &str,
    linux_driver: &str,
    windows_dir: &Path,
    wine: Command,
) -> Result {
    // The Linux build: the host's cargo and rustc, the usual target folder.
    let mut build = process::command("cargo");
    build
        .env("CUDA_LIBRARY_PATH", linux_driver)
        .args(["build", "--quiet", "-p", "cuda-driver-workspace"])
        .args(example_args)
        .args(["--features", features, "--message-format=json"]);
    let mut executables = Vec::new();
    for line in process::output(&mut build)?.lines() {
        let message: serde_json::Value =
            serde_json::from_str(line).map_err(|e| format!("cargo's message `{line}`: {e}"))?;
        let kinds = message["target"]["kind"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        if message["reason"] == "compiler-artifact" && kinds.iter().any(|k| k == "example") {
            executables.extend(message["executable"].as_str().map(str::to_string));
        }
    }
    let (mut compared, mut differing) = (0, Vec::new());
    for linux in &executables {
        let name = Path::new(linux)
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let mut on_linux = process::command(linux);
        on_linux.env("LD_LIBRARY_PATH", linux_driver);
        let (linux_status, linux_out) = stdout_of(on_linux)?;
        let mut on_windows = clone(&wine);
        on_windows.arg(windows_dir.join(format!("{name}.exe")));
        let (windows_status, windows_out) = stdout_of(on_windows)?;
        let (linux_out, windows_out) = (
            pointers(&linux_out),
            pointers(&windows_out.replace('\r', "")),
        );
        let same_output = linux_out == windows_out;
        if !same_output {
            let (a, b) = (
                scratch.join(format!("{name}.linux")),
                scratch.join(format!("{name}.windows")),
            );
            std::fs::write(&a, &linux_out)?;
            std::fs::write(&b, &windows_out)?;
            let _ = Command::new("diff").arg("-u").arg(&a).arg(&b).status();
        }
        if !same_output || linux_status != windows_status {
            println!("{name}: Linux exit {linux_status}, Windows exit {windows_status} (diff above: - Linux, + Windows)");
            differing.push(name);
            continue;
        }
        compared += 1;
        println!(
            "{name}: exit {linux_status}, {} lines, the same on both",
            linux_out.matches('\n').count()
        );
    }
    if !differing.is_empty() {
        return Err(format!(
            "the examples differ between Windows and Linux: {}",
            differing.join(" ")
        )
        .into());
    }
    if compared <= 5 {
        return Err(format!("only {compared} examples compared").into());
    }
    Ok(())
}

/// `command` run with examples/kernels as its argument: its exit status and standard output.
fn stdout_of(mut command: Command) -> Result<(i32, String)> {
    command.arg("examples/kernels").stderr(Stdio::null());
    let line = process::describe(&command);
    let out = command.output().map_err(|e| format!("{line}: {e}"))?;
    Ok((
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    ))
}

/// A copy of `command`: its program, arguments and environment.
fn clone(command: &Command) -> Command {
    let mut copy = Command::new(command.get_program());
    copy.args(command.get_args());
    if let Some(dir) = command.get_current_dir() {
        copy.current_dir(dir);
    }
    for (name, value) in command.get_envs() {
        match value {
            Some(value) => copy.env(name, value),
            None => copy.env_remove(name),
        };
    }
    copy
}

/// Pointers differ between processes: each `0x<hex>` is `0xPTR` (tests/examples_parity.rs's rule).
fn pointers(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("0x") {
        out.push_str(&rest[..at]);
        let hex = rest[at + 2..]
            .chars()
            .take_while(|c| matches!(c, '0'..='9' | 'a'..='f'))
            .count();
        out.push_str(if hex > 0 { "0xPTR" } else { "0x" });
        rest = &rest[at + 2 + hex..];
    }
    out + rest
}

#[cfg(test)]
mod tests {
    #[test]
    fn pointers_are_masked() {
        assert_eq!(super::pointers("at 0x7ffe12, 0x, 0xZ"), "at 0xPTR, 0x, 0xZ");
    }
}
