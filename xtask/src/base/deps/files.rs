//! The file operations the fetch steps share: those of [`crate::base::files`], the `.deb` and
//! `.whl` files of a folder, and commands whose output goes to stderr (stdout is for the
//! environment).

pub use crate::base::files::{create_dir, link, recreate_dir, remove_dir};
use crate::base::{process, Result};
use std::fs;
use std::os::fd::AsFd;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The files of `dir` whose names end with `suffix`, sorted by name (as a shell glob lists them).
pub fn with_suffix(dir: &Path, suffix: &str) -> Result<Vec<PathBuf>> {
    let entries = fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut found = Vec::new();
    for entry in entries {
        let path = entry.map_err(|e| format!("{}: {e}", dir.display()))?.path();
        if path.to_string_lossy().ends_with(suffix) {
            found.push(path);
        }
    }
    found.sort();
    Ok(found)
}

/// Runs `command` from the workspace root with its stdout sent to stderr.
pub fn run_to_stderr(command: &mut Command) -> Result {
    let stderr = std::io::stderr()
        .as_fd()
        .try_clone_to_owned()
        .map_err(|e| format!("stderr: {e}"))?;
    process::run(command.stdout(Stdio::from(stderr)))
}
