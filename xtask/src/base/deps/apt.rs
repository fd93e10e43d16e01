//! Debian packages: `apt-get download` as the invoking user (the files are ours, under
//! `target/`), from a suite of this machine's mirror ([`download`]) or from the system's own
//! sources ([`download_from_system`]), unpacked with `dpkg -x` into a folder of `target/ci-deps`
//! ([`fetch`]).

use super::{apt_sources, log};
use crate::base::{files, process, Result};
use std::path::Path;
use std::process::{Command, Stdio};

/// `apt-get download` of `packages` from `suite component` into `dest`, with apt's state under
/// `apt/<suite>-<component>[-<arch>]`; with `arch` (`arm64`), that architecture's packages.
pub fn download(
    deps: &Path,
    (suite, component): (&str, &str),
    arch: Option<&str>,
    dest: &Path,
    packages: &[&str],
) -> Result {
    let list = apt_sources::write(deps, suite, component)?;
    let text = files::read(&list)?;
    let deb_lines: Vec<&str> = text.lines().filter(|l| l.starts_with("deb")).collect();
    log(&format!(
        "{suite} {component} from: {}",
        deb_lines.join("\n")
    ));
    let state_name = match arch {
        Some(arch) => format!("{suite}-{component}-{arch}"),
        None => format!("{suite}-{component}"),
    };
    let state = deps.join("apt").join(state_name);
    for dir in ["lists/partial", "cache/archives/partial"] {
        files::create_dir(&state.join(dir))?;
    }
    files::create_dir(dest)?;
    let user = process::output(process::command("id").arg("-un"))?;
    let mut options = vec![
        format!("Dir::Etc::SourceList={}", list.display()),
        "Dir::Etc::SourceParts=/dev/null".to_string(),
        format!("Dir::State::Lists={}", state.join("lists").display()),
        format!("Dir::Cache={}", state.join("cache").display()),
        "Debug::NoLocking=1".to_string(),
        format!("APT::Sandbox::User={}", user.trim()),
    ];
    if let Some(arch) = arch {
        options.push(format!("APT::Architecture={arch}"));
        options.push(format!("APT::Architectures={arch}"));
    }
    let apt_get = |command: &str| {
        let mut apt_get = Command::new("apt-get");
        for option in &options {
            apt_get.arg("-o").arg(option);
        }
        apt_get.arg(command).current_dir(dest);
        apt_get
    };
    process::run_to_stderr(&mut apt_get("update"))?;
    process::run_to_stderr(apt_get("download").args(packages))
}

/// `apt-get download` of `packages` into `dest` from the system's own sources (Debian bookworm
/// main), after an `apt-get update` when the first try fails.
pub fn download_from_system(dest: &Path, packages: &[&str]) -> Result {
    files::create_dir(dest)?;
    let download = || {
        let mut apt_get = Command::new("apt-get");
        apt_get.arg("download").args(packages).current_dir(dest);
        apt_get
    };
    if process::run_to_stderr(download().stderr(Stdio::null())).is_ok() {
        return Ok(());
    }
    process::run_to_stderr(Command::new("apt-get").arg("update"))?;
    process::run_to_stderr(&mut download())
}

/// Fetches Debian packages into the folder `dir` unless the files `wanted` (paths under it) are
/// all there: `download` puts them in the folder it is given (`dir/debs`), they are unpacked into
/// `dir/root`, and `dir/<link>` links to `root/<target>`. `what` names them in the log and in the
/// error if a file wanted is missing after (its folder removed).
pub fn fetch(
    dir: &Path,
    what: &str,
    wanted: &[String],
    (link, target): (&str, &str),
    download: impl FnOnce(&Path) -> Result,
) -> Result {
    let missing = || wanted.iter().find(|w| !dir.join(w).exists());
    if missing().is_none() {
        return Ok(());
    }
    log(&format!("downloading {what}"));
    files::recreate_dir(dir, "debs")?;
    download(&dir.join("debs"))?;
    for deb in files::named(&dir.join("debs"), "", ".deb")? {
        let mut dpkg = process::command("dpkg");
        process::run_to_stderr(dpkg.arg("-x").arg(&deb).arg(dir.join("root")))?;
    }
    files::link(target, &dir.join(link))?;
    if let Some(file) = missing() {
        files::remove_dir(dir)?;
        return Err(format!("no {file} from {what}; see apt's messages above").into());
    }
    Ok(())
}
