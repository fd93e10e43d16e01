//! Wheels: `pip download` of pinned wheels for Linux on one architecture, and their members
//! unpacked with `unzip` (a wheel is a zip file), each into a path the caller chooses.

use crate::base::scratch::Scratch;
use crate::base::{files, process, Result};
use std::fs::File;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A scratch folder holding downloaded wheels, removed when dropped.
pub struct Downloaded {
    dir: Scratch,
}

/// `pip download` of `requirements` (`name==version`), the wheels built for Linux on `arch`
/// (`x86_64`, `aarch64`), into a temporary folder; pip's messages go to stderr.
pub fn download(arch: &str, requirements: &[&str]) -> Result<Downloaded> {
    download_for(
        arch,
        &["manylinux2014", "manylinux_2_17", "manylinux1"],
        requirements,
    )
}

/// [`download`] of the wheels tagged with one of `platforms` (`manylinux_2_25`: pip takes a
/// platform tag as it is written, not the older ones it includes).
pub fn download_for(arch: &str, platforms: &[&str], requirements: &[&str]) -> Result<Downloaded> {
    require_unzip()?;
    let dir = Scratch::new(&format!(
        "fetch-deps-{}",
        requirements.join(",").replace(['=', '/'], "_")
    ))?;
    let downloaded = Downloaded { dir };
    let mut pip = process::command("python3");
    pip.args([
        "-m",
        "pip",
        "download",
        "--quiet",
        "--no-deps",
        "--only-binary=:all:",
    ]);
    pip.args(["--python-version", "3.11"]);
    for platform in platforms {
        pip.arg("--platform").arg(format!("{platform}_{arch}"));
    }
    process::run_to_stderr(pip.arg("-d").arg(downloaded.dir.path()).args(requirements))?;
    Ok(downloaded)
}

impl Downloaded {
    /// The wheels downloaded, sorted by name.
    pub fn wheels(&self) -> Result<Vec<PathBuf>> {
        files::named(self.dir.path(), "", ".whl")
    }
}

/// The names of the members of `wheel` (`unzip -Z1`).
pub fn members(wheel: &Path) -> Result<Vec<String>> {
    let listing = process::output(process::command("unzip").arg("-Z1").arg(wheel))?;
    Ok(listing.lines().map(str::to_string).collect())
}

/// Writes the member `name` of `wheel` to `to`, making its folder.
pub fn extract(wheel: &Path, name: &str, to: &Path) -> Result {
    if let Some(folder) = to.parent() {
        files::create_dir(folder)?;
    }
    let file = File::create(to).map_err(|e| format!("{}: {e}", to.display()))?;
    process::run(
        process::command("unzip")
            .arg("-p")
            .arg(wheel)
            .arg(name)
            .stdout(Stdio::from(file)),
    )
}

/// An error saying how to install unzip when it is missing.
fn require_unzip() -> Result {
    match Command::new("unzip")
        .arg("-v")
        .stdout(Stdio::null())
        .status()
    {
        Err(e) if e.kind() == ErrorKind::NotFound => {
            Err("no unzip, which unpacks the wheels: apt-get install unzip".into())
        }
        _ => Ok(()),
    }
}
