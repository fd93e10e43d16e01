//! The sources list of one Debian suite and component (`bookworm non-free`) on the mirror this
//! machine's own apt configuration names (deb822 `/etc/apt/sources.list.d/*.sources`, or one-line
//! `/etc/apt/sources.list` and `*.list`), so that no host is written in the repository: the
//! enabled `deb` source that names the suite (`bookworm-security`), else the first whose suites
//! include a release itself (no `-updates`, `-security`, `-backports`): the Debian archive.

use crate::base::{files, Result};
use std::path::{Path, PathBuf};

/// The key of a source that names none, or embeds its key in the stanza.
const KEYRING: &str = "/usr/share/keyrings/debian-archive-keyring.gpg";

/// Writes `apt/<suite>-<component>.list` under `deps` from this machine's apt configuration; its
/// path.
pub fn write(deps: &Path, suite: &str, component: &str) -> Result<PathBuf> {
    let mut configuration = Vec::new();
    for path in configuration_files()? {
        let text = String::from_utf8_lossy(&fs_err::read(&path)?).into_owned();
        configuration.push((path.to_string_lossy().into_owned(), text));
    }
    let list = sources_list(&configuration, suite, component)?;
    let path = deps.join("apt").join(format!("{suite}-{component}.list"));
    files::create_dir(&deps.join("apt"))?;
    files::write(&path, list)?;
    Ok(path)
}

/// The files of this machine's apt configuration, in the order they are read.
fn configuration_files() -> Result<Vec<PathBuf>> {
    let parts = files::sorted(Path::new("/etc/apt/sources.list.d"), "")?;
    let ending = |suffix| {
        let parts = parts.iter();
        parts
            .filter(move |p| p.to_string_lossy().ends_with(suffix))
            .cloned()
    };
    let mut found: Vec<PathBuf> = ending(".sources").collect();
    found.push(PathBuf::from("/etc/apt/sources.list"));
    found.extend(ending(".list"));
    found.retain(|p| p.is_file());
    Ok(found)
}

/// A source: its URI, its `signed-by` key (if it names a file) and its suites.
type Source = (String, String, Vec<String>);

/// The sources list for `suite component` from `configuration` (each file's path and text); an
/// error saying what to add when no source serves it.
fn sources_list(
    configuration: &[(String, String)],
    suite: &str,
    component: &str,
) -> std::result::Result<String, String> {
    let mut sources = Vec::new();
    for (path, text) in configuration {
        match path.ends_with(".sources") {
            true => sources.extend(deb822_sources(text)),
            false => sources.extend(one_line_sources(text)?),
        }
    }
    // The source that names the suite, else (for a release) the first that serves a release.
    let names = |(_, _, suites): &&Source| suites.iter().any(|s| s == suite);
    let archive = |(_, _, suites): &&Source| suites.iter().any(|s| !s.contains('-'));
    let release = !suite.contains('-');
    let chosen = sources.iter().find(names);
    let chosen = chosen.or_else(|| sources.iter().find(archive).filter(|_| release));
    let paths: Vec<&str> = configuration.iter().map(|(p, _)| p.as_str()).collect();
    let Some((uri, signed_by, _)) = chosen else {
        return Err(format!(
            "no Debian archive (a `deb` source of a release suite) in {}: add one to \
             /etc/apt/sources.list.d/ to fetch from {suite} {component}",
            paths.join(", ")
        ));
    };
    let signed_by = match signed_by.starts_with('/') {
        true => signed_by,
        false => KEYRING,
    };
    Ok(format!(
        "# From this machine's apt configuration ({}), written by cargo xtask fetch-deps.\n\
         deb [signed-by={signed_by}] {uri} {suite} {component}\n",
        paths.join(", ")
    ))
}

/// Each URI of each enabled `deb` stanza of a deb822 file, with its key and suites.
fn deb822_sources(text: &str) -> Vec<Source> {
    let mut sources = Vec::new();
    for stanza in text.split("\n\n") {
        let mut fields: Vec<(String, String)> = Vec::new();
        for line in stanza.lines() {
            if line.starts_with('#') || line.trim().is_empty() {
                continue;
            }
            match (fields.last_mut(), line.starts_with([' ', '\t'])) {
                (Some((_, value)), true) => *value = format!("{value} {}", line.trim()),
                _ => {
                    if let Some((key, value)) = line.split_once(':') {
                        fields.push((key.trim().to_lowercase(), value.trim().to_string()));
                    }
                }
            }
        }
        let field = |name: &str| {
            let found = fields.iter().rev().find(|(key, _)| key == name);
            found.map_or("", |(_, value)| value.as_str())
        };
        let words = |name| field(name).split_whitespace().map(str::to_string);
        if !words("types").any(|t| t == "deb") || field("enabled") == "no" {
            continue;
        }
        for uri in words("uris") {
            let signed_by = field("signed-by").to_string();
            sources.push((uri, signed_by, words("suites").collect()));
        }
    }
    sources
}

/// Each `deb [option=value ...] uri suite components...` line of a one-line file, with its key
/// and suite.
fn one_line_sources(text: &str) -> std::result::Result<Vec<Source>, String> {
    let mut sources = Vec::new();
    for line in text.lines() {
        let line = line.split('#').next().unwrap_or("").trim();
        let Some(mut rest) = line.strip_prefix("deb ").map(str::trim) else {
            continue;
        };
        let mut signed_by = "";
        if let Some(bracketed) = rest.strip_prefix('[') {
            let (inside, after) = bracketed
                .split_once(']')
                .ok_or_else(|| format!("`{line}`: its options lack the closing `]`"))?;
            for (name, value) in inside.split_whitespace().filter_map(|o| o.split_once('=')) {
                if name == "signed-by" {
                    signed_by = value;
                }
            }
            rest = after;
        }
        if let [uri, suite, ..] = rest.split_whitespace().collect::<Vec<_>>()[..] {
            sources.push((
                uri.to_string(),
                signed_by.to_string(),
                vec![suite.to_string()],
            ));
        }
    }
    Ok(sources)
}

#[cfg(test)]
mod tests {
    use super::sources_list;

    const DEB822: &str = "Types: deb\nURIs: http://mirror.example/debian\nSuites: bookworm \
        bookworm-updates\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n\n\
        Types: deb\nURIs: http://mirror.example/debian-security\nSuites: bookworm-security\n\
        Components: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n";

    /// The sources list for `suite` from the one file `path` holding `text`.
    fn list(path: &str, text: &str, suite: &str) -> Result<String, String> {
        sources_list(&[(path.into(), text.into())], suite, "non-free")
    }

    const LIST: &str = "/etc/apt/sources.list";

    #[test]
    fn a_release_takes_the_archive_a_named_suite_its_source() {
        let path = "/etc/apt/sources.list.d/debian.sources";
        let release = list(path, DEB822, "bullseye").unwrap();
        assert_eq!(
            release,
            "# From this machine's apt configuration (/etc/apt/sources.list.d/debian.sources), \
             written by cargo xtask fetch-deps.\n\
             deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] \
             http://mirror.example/debian bullseye non-free\n"
        );
        let security = list(path, DEB822, "bookworm-security").unwrap();
        assert!(security.contains(" http://mirror.example/debian-security bookworm-security "));
    }

    #[test]
    fn one_line_sources_with_options_and_embedded_keys() {
        let one_line =
            "# comment\ndeb [arch=amd64 signed-by=/k.gpg] http://m.example/d bookworm main\n";
        let found = list(LIST, one_line, "bookworm").unwrap();
        assert!(found.contains("deb [signed-by=/k.gpg] http://m.example/d bookworm non-free"));
        let embedded =
            "Types: deb\nURIs: http://m.example/d\nSuites: bookworm\nSigned-By:\n -----BEGIN PGP\n";
        let found = list("/etc/apt/sources.list.d/d.sources", embedded, "bookworm").unwrap();
        assert!(found.contains("[signed-by=/usr/share/keyrings/"));
    }

    #[test]
    fn disabled_sources_other_suites_and_broken_lines_are_rejected() {
        let disabled = "Types: deb\nEnabled: no\nURIs: http://m.example/d\nSuites: bookworm\n";
        let only_updates = "deb http://m.example/d bookworm-updates main\n";
        for (path, text) in [
            ("/etc/apt/sources.list.d/d.sources", disabled),
            (LIST, only_updates),
            (LIST, "deb-src http://m.example/d bookworm main\n"),
            (LIST, "deb [signed-by=/k http://m.example/d bookworm main\n"),
        ] {
            assert!(list(path, text, "bookworm").is_err(), "{text:?} accepted");
        }
        let err = list(LIST, only_updates, "bookworm-security").unwrap_err();
        assert!(err.contains("add one to /etc/apt/sources.list.d/ to fetch from bookworm-security"));
    }
}
