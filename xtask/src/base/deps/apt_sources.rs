//! The sources list of one Debian suite and component (`bookworm non-free`) on the mirror this
//! machine's own apt configuration names, as apt itself reads that configuration (`apt-get
//! indextargets`), so that no host is written in the repository: the `deb` source of the suite
//! itself (`bookworm-security`), else the first of a release (no `-updates`, `-security`,
//! `-backports`): the Debian archive, signed with the Debian archive's key.

use crate::base::{files, process, Result};
use std::path::{Path, PathBuf};

/// The Debian archive's key.
const KEYRING: &str = "/usr/share/keyrings/debian-archive-keyring.gpg";

/// Writes `apt/<suite>-<component>.list` under `deps` from this machine's apt configuration; its
/// path.
pub fn write(deps: &Path, suite: &str, component: &str) -> Result<PathBuf> {
    let mut apt_get = process::command("apt-get");
    apt_get.args(["indextargets", "--no-release-info", "--format"]);
    let targets = process::output(apt_get.arg("$(TARGET_OF) $(REPO_URI) $(RELEASE)"))?;
    let list = sources_list(&targets, suite, component)?;
    let path = deps.join("apt").join(format!("{suite}-{component}.list"));
    files::create_dir(&deps.join("apt"))?;
    files::write(&path, list)?;
    Ok(path)
}

/// The sources list for `suite component` from `targets`, apt's index targets (`deb URI SUITE`
/// lines); an error saying what to add when no source serves it.
fn sources_list(
    targets: &str,
    suite: &str,
    component: &str,
) -> std::result::Result<String, String> {
    let sources: Vec<(&str, &str)> = (targets.lines())
        .filter_map(
            |line| match line.split_whitespace().collect::<Vec<_>>()[..] {
                ["deb", uri, suite] => Some((uri.trim_end_matches('/'), suite)),
                _ => None,
            },
        )
        .collect();
    let release = |s: &str| !s.contains('-');
    let named = sources.iter().find(|(_, s)| *s == suite);
    let archive = sources
        .iter()
        .find(|(_, s)| release(s))
        .filter(|_| release(suite));
    let Some((uri, _)) = named.or(archive) else {
        return Err(format!(
            "no Debian archive (a `deb` source of a release suite) in this machine's apt \
             configuration: add one to /etc/apt/sources.list.d/ to fetch from {suite} {component}"
        ));
    };
    Ok(format!(
        "# From this machine's apt configuration, written by cargo xtask fetch-deps.\n\
         deb [signed-by={KEYRING}] {uri} {suite} {component}\n"
    ))
}

#[cfg(test)]
mod tests {
    use super::sources_list;

    const TARGETS: &str = "deb http://m.example/debian/ bookworm\n\
        deb-src http://m.example/src/ bullseye\n\
        deb http://m.example/debian/ bookworm-updates\n\
        deb http://m.example/debian-security/ bookworm-security\n";

    #[test]
    fn a_release_takes_the_archive_a_named_suite_its_source() {
        let list = |suite| sources_list(TARGETS, suite, "non-free").unwrap();
        assert_eq!(
            list("bullseye"),
            "# From this machine's apt configuration, written by cargo xtask fetch-deps.\n\
             deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] \
             http://m.example/debian bullseye non-free\n"
        );
        let security = list("bookworm-security");
        assert!(security.contains(" http://m.example/debian-security bookworm-security "));
    }

    #[test]
    fn no_source_of_the_suite_or_a_release_is_an_error() {
        let only_updates = "deb http://m.example/d/ bookworm-updates\n";
        let only_src = "deb-src http://m.example/d/ bookworm\n";
        for targets in [only_updates, only_src] {
            assert!(sources_list(targets, "bookworm", "non-free").is_err());
        }
        let err = sources_list(only_updates, "bookworm-security", "non-free").unwrap_err();
        assert!(err.contains("add one to /etc/apt/sources.list.d/ to fetch from bookworm-security"));
    }
}
