//! Wheels: `pip download` of pinned wheels for Linux on one architecture, and their members
//! unpacked with `unzip` (a wheel is a zip file), each into a path the caller chooses.

use crate::base::scratch::Scratch;
use crate::base::{files, process, Result};
use std::path::{Path, PathBuf};

/// A scratch folder holding downloaded wheels, removed when dropped.
pub struct Downloaded {
    dir: Scratch,
}

/// [`download_for`] of `requirements` (`name==version`), the manylinux wheels for `arch`, then
/// each member that `place` places (a path under `dir`) written there.
pub fn unpack(
    arch: &str,
    requirements: &[&str],
    dir: &Path,
    place: impl Fn(&str) -> Option<PathBuf>,
) -> Result {
    let platforms = ["manylinux2014", "manylinux_2_17", "manylinux1"];
    let downloaded = download_for(arch, &platforms, requirements)?;
    for wheel in downloaded.wheels()? {
        for member in members(&wheel)? {
            if let Some(rel) = place(&member) {
                extract(&wheel, &member, &dir.join(rel))?;
            }
        }
    }
    Ok(())
}

/// `pip download` of `requirements` (`name==version`), the wheels built for Linux on `arch`
/// (`x86_64`, `aarch64`) and tagged with one of `platforms` (`manylinux_2_25`: pip takes a
/// platform tag as it is written, not the older ones it includes), into a temporary folder; pip's
/// messages go to stderr.
pub fn download_for(arch: &str, platforms: &[&str], requirements: &[&str]) -> Result<Downloaded> {
    if process::on_path("unzip").is_none() {
        return Err("no unzip, which unpacks the wheels: apt-get install unzip".into());
    }
    let name = requirements.join(",").replace(['=', '/'], "_");
    let dir = Scratch::new(&format!("fetch-deps-{name}"))?;
    let mut pip = process::command("python3");
    let download = "-m pip download --quiet --no-deps --only-binary=:all: --python-version 3.11";
    pip.args(download.split(' '));
    for platform in platforms {
        pip.arg("--platform").arg(format!("{platform}_{arch}"));
    }
    process::run_to_stderr(pip.arg("-d").arg(dir.path()).args(requirements))?;
    Ok(Downloaded { dir })
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
    let file = fs_err::File::create(to)?;
    let mut unzip = process::command("unzip");
    unzip.arg("-p").arg(wheel).arg(name);
    process::run(unzip.stdout(file.into_file()))
}
