//! The file operations the fetch steps share: folders made and removed, links, the `.deb` and
//! `.whl` files of a folder, and commands whose output goes to stderr (stdout is for the
//! environment).

pub use crate::base::files::create_dir;
use crate::base::{process, Result};
use std::fs;
use std::io::ErrorKind;
use std::os::fd::AsFd;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// `rm -rf dir`.
pub fn remove_dir(dir: &Path) -> Result {
    match fs::remove_dir_all(dir) {
        Err(e) if e.kind() != ErrorKind::NotFound => Err(format!("{}: {e}", dir.display()).into()),
        _ => Ok(()),
    }
}

/// `rm -rf dir && mkdir -p dir/sub`: an empty folder for a fetch to fill.
pub fn recreate_dir(dir: &Path, sub: &str) -> Result {
    remove_dir(dir)?;
    create_dir(&dir.join(sub))
}

/// `ln -sfn target link`.
pub fn link(target: &str, link: &Path) -> Result {
    if link.symlink_metadata().is_ok() {
        fs::remove_file(link).map_err(|e| format!("{}: {e}", link.display()))?;
    }
    std::os::unix::fs::symlink(target, link).map_err(|e| format!("{}: {e}", link.display()).into())
}

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
