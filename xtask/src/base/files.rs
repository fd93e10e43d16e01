//! Files and folders, each failure one line that names the path.

use crate::base::Result;
use fs_err as fs;
use std::io::ErrorKind;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// Creates the folder `dir` and those above it.
pub fn create_dir(dir: &Path) -> Result {
    Ok(fs::create_dir_all(dir)?)
}

/// `rm -rf dir`.
pub fn remove_dir(dir: &Path) -> Result {
    match fs::remove_dir_all(dir) {
        Err(e) if e.kind() != ErrorKind::NotFound => Err(e.into()),
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
        fs::remove_file(link)?;
    }
    Ok(fs::os::unix::fs::symlink(target, link)?)
}

/// Copies the file `from` to `to`, with its permissions.
pub fn copy(from: &Path, to: &Path) -> Result {
    fs::copy(from, to)?;
    Ok(())
}

/// Copies the files of the folder `from` (no subfolders) into the folder `to`.
pub fn copy_files(from: &Path, to: &Path) -> Result {
    create_dir(to)?;
    for path in sorted(from, "")? {
        copy(&path, &to.join(name(&path)))?;
    }
    Ok(())
}

/// Writes `text` to the file `path`.
pub fn write(path: &Path, text: impl AsRef<[u8]>) -> Result {
    Ok(fs::write(path, text)?)
}

/// The text of the file `path`.
pub fn read(path: &Path) -> Result<String> {
    Ok(fs::read_to_string(path)?)
}

/// The entries of the folder `dir` whose names start with `prefix`, sorted; none if it is missing.
pub fn sorted(dir: &Path, prefix: &str) -> Result<Vec<PathBuf>> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e.into()),
    };
    let mut paths = Vec::new();
    for entry in entries {
        let entry = entry?;
        if entry.file_name().to_string_lossy().starts_with(prefix) {
            paths.push(entry.path());
        }
    }
    paths.sort();
    Ok(paths)
}

/// The files of the folder `dir` named `<prefix>*<suffix>`, sorted.
pub fn named(dir: &Path, prefix: &str, suffix: &str) -> Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    for entry in fs::read_dir(dir)? {
        let path = entry?.path();
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        if name.starts_with(prefix) && name.ends_with(suffix) && path.is_file() {
            found.push(path);
        }
    }
    found.sort();
    Ok(found)
}

/// Every file under the folder `dir`, at any depth (for the tests that read the sources).
#[cfg(test)]
pub fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        match path.is_dir() {
            true => files.extend(walk(&path)),
            false => files.push(path),
        }
    }
    files
}

/// Whether `path` is a file and executable.
pub fn executable(path: &Path) -> bool {
    path.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The file name of `path`, as text.
pub fn name(path: &Path) -> String {
    path.file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned()
}
