//! Debian packages: `apt-get download` as the invoking user, from a suite of the mirror this
//! machine's apt configuration names (`apt-get indextargets`: no host in the repository;
//! [`download`]) or from the system's own sources ([`download_from_system`]), unpacked with
//! `dpkg -x` into a folder of `target/ci-deps` ([`fetch`]).

use super::log;
use crate::base::{files, process, Result};
use std::path::Path;
use std::process::{Command, Stdio};

/// The Debian archive's key.
const KEYRING: &str = "/usr/share/keyrings/debian-archive-keyring.gpg";

/// `apt-get download` of `packages` from `suite component` into `dest`, with apt's state under
/// `apt/<suite>-<component>[-<arch>]`; with `arch` (`arm64`), that architecture's packages.
pub fn download(
    deps: &Path,
    (suite, component): (&str, &str),
    arch: Option<&str>,
    dest: &Path,
    packages: &[&str],
) -> Result {
    let mut apt_get = process::command("apt-get");
    apt_get.args(["indextargets", "--no-release-info", "--format"]);
    let targets = process::output(apt_get.arg("$(TARGET_OF) $(REPO_URI) $(RELEASE)"))?;
    let deb = source_line(&targets, suite, component)?;
    log(&format!("{suite} {component} from: {deb}"));
    let state_name: Vec<&str> = [suite, component].into_iter().chain(arch).collect();
    let state = deps.join("apt").join(state_name.join("-"));
    for dir in ["lists/partial", "cache/archives/partial"] {
        files::create_dir(&state.join(dir))?;
    }
    let list = deps.join("apt").join(format!("{suite}-{component}.list"));
    let from = "# From this machine's apt configuration, written by cargo xtask fetch-deps.";
    files::write(&list, format!("{from}\n{deb}\n"))?;
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
        apt_get.args(options.iter().flat_map(|o| ["-o", o.as_str()]));
        apt_get.arg(command).current_dir(dest);
        apt_get
    };
    process::run_to_stderr(&mut apt_get("update"))?;
    process::run_to_stderr(apt_get("download").args(packages))
}

/// `apt-get download` of `packages` into `dest` from the system's own sources (Debian bookworm
/// main), after an `apt-get update` when the first try fails.
pub fn download_from_system(dest: &Path, packages: &[&str]) -> Result {
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
    wanted: &[impl AsRef<Path>],
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
        let file = file.as_ref().display();
        return Err(format!("no {file} from {what}; see apt's messages above").into());
    }
    Ok(())
}

/// The `deb` line of `suite component` from `targets`, apt's index targets (`deb URI SUITE`
/// lines); an error saying what to add when no source serves it.
fn source_line(targets: &str, suite: &str, component: &str) -> std::result::Result<String, String> {
    let mut sources = Vec::new();
    for line in targets.lines() {
        if let ["deb", uri, of] = line.split_whitespace().collect::<Vec<_>>()[..] {
            sources.push((uri.trim_end_matches('/'), of));
        }
    }
    // The source of the suite itself, else (for a release) the first of a release.
    let release = |s: &str| !s.contains('-');
    let named = sources.iter().find(|(_, s)| *s == suite);
    let archive = sources.iter().find(|(_, s)| release(s));
    let archive = archive.filter(|_| release(suite));
    let Some((uri, _)) = named.or(archive) else {
        return Err(format!(
            "no Debian archive (a `deb` source of a release suite) in this machine's apt \
             configuration: add one to /etc/apt/sources.list.d/ to fetch from {suite} {component}"
        ));
    };
    Ok(format!(
        "deb [signed-by={KEYRING}] {uri} {suite} {component}"
    ))
}

#[cfg(test)]
mod tests {
    use super::source_line;

    const TARGETS: &str = "deb http://m.example/debian/ bookworm\n\
        deb-src http://m.example/src/ bullseye\n\
        deb http://m.example/debian/ bookworm-updates\n\
        deb http://m.example/debian-security/ bookworm-security\n";

    #[test]
    fn a_release_takes_the_archive_a_named_suite_its_source() {
        let list = |suite| source_line(TARGETS, suite, "non-free").unwrap();
        assert_eq!(
            list("bullseye"),
            "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] \
             http://m.example/debian bullseye non-free"
        );
        let security = list("bookworm-security");
        assert!(security.contains(" http://m.example/debian-security bookworm-security "));
    }

    #[test]
    fn no_source_of_the_suite_or_a_release_is_an_error() {
        let only_updates = "deb http://m.example/d/ bookworm-updates\n";
        let only_src = "deb-src http://m.example/d/ bookworm\n";
        for targets in [only_updates, only_src] {
            assert!(source_line(targets, "bookworm", "non-free").is_err());
        }
        let err = source_line(only_updates, "bookworm-security", "non-free").unwrap_err();
        assert!(err.contains("add one to /etc/apt/sources.list.d/ to fetch from bookworm-security"));
    }
}
