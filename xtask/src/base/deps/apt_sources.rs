//! The sources list of one Debian suite and component (`bookworm non-free`) on the mirror this
//! machine's own apt configuration names (deb822 `/etc/apt/sources.list.d/*.sources`, or one-line
//! `/etc/apt/sources.list` and `*.list`), so that no host is written in the repository: the
//! enabled `deb` source that names the suite (`bookworm-security`), else the first whose suites
//! include a release itself (no `-updates`, `-security`, `-backports`): the Debian archive.

use crate::base::{files, Result};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The key of a source that names none, or embeds its key in the stanza.
const KEYRING: &str = "/usr/share/keyrings/debian-archive-keyring.gpg";

/// Writes `apt/<suite>-<component>.list` under `deps` from this machine's apt configuration; its
/// path.
pub fn write(deps: &Path, suite: &str, component: &str) -> Result<PathBuf> {
    let mut configuration = Vec::new();
    for path in configuration_files()? {
        let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let text = String::from_utf8_lossy(&bytes).into_owned();
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
    let parts = Path::new("/etc/apt/sources.list.d");
    let in_parts = |suffix| -> Result<Vec<PathBuf>> {
        Ok(if parts.is_dir() {
            files::named(parts, "", suffix)?
        } else {
            Vec::new()
        })
    };
    let mut found = in_parts(".sources")?;
    found.push(PathBuf::from("/etc/apt/sources.list"));
    found.extend(in_parts(".list")?);
    found.retain(|p| p.is_file());
    Ok(found)
}

/// A source: its URI and its `signed-by` key.
type Source = (String, String);

/// The sources list for `suite component` from `configuration` (each file's path and text); an
/// error saying what to add when no source serves it.
fn sources_list(
    configuration: &[(String, String)],
    suite: &str,
    component: &str,
) -> std::result::Result<String, String> {
    let (mut named, mut archives) = (Vec::new(), Vec::new());
    for (path, text) in configuration {
        let sources = if path.ends_with(".sources") {
            deb822_sources(text)
        } else {
            one_line_sources(text)?
        };
        for ((uri, signed_by), suites) in sources {
            let source = (uri, signed_by);
            if suites.iter().any(|s| s == suite) {
                named.push(source.clone());
            }
            if suites.iter().any(|s| !s.contains('-')) {
                archives.push(source);
            }
        }
    }
    if !suite.contains('-') {
        named.extend(archives);
    }
    let paths: Vec<&str> = configuration.iter().map(|(p, _)| p.as_str()).collect();
    let Some((uri, signed_by)) = named.into_iter().next() else {
        return Err(format!(
            "no Debian archive (a `deb` source of a release suite) in {}: add one to \
             /etc/apt/sources.list.d/ to fetch from {suite} {component}",
            paths.join(", ")
        ));
    };
    let signed_by = if signed_by.starts_with('/') {
        signed_by
    } else {
        KEYRING.to_string()
    };
    Ok(format!(
        "# From this machine's apt configuration ({}), written by cargo xtask fetch-deps.\n\
         deb [signed-by={signed_by}] {uri} {suite} {component}\n",
        paths.join(", ")
    ))
}

/// Each URI of each enabled `deb` stanza of a deb822 file, with its suites.
fn deb822_sources(text: &str) -> Vec<(Source, Vec<String>)> {
    let mut sources = Vec::new();
    for stanza in text.split("\n\n") {
        let mut fields: HashMap<String, String> = HashMap::new();
        let mut key: Option<String> = None;
        for line in stanza.lines() {
            if line.starts_with('#') || line.trim().is_empty() {
                continue;
            }
            match (&key, line.starts_with([' ', '\t'])) {
                (Some(k), true) => {
                    let value = fields.entry(k.clone()).or_default();
                    value.push(' ');
                    value.push_str(line.trim());
                }
                _ => {
                    if let Some((k, value)) = line.split_once(':') {
                        let k = k.trim().to_lowercase();
                        fields.insert(k.clone(), value.trim().to_string());
                        key = Some(k);
                    }
                }
            }
        }
        let field = |name: &str| fields.get(name).map(String::as_str);
        let is_deb = field("types")
            .unwrap_or("")
            .split_whitespace()
            .any(|t| t == "deb");
        if !is_deb || field("enabled") == Some("no") {
            continue;
        }
        let suites: Vec<String> = field("suites")
            .unwrap_or("")
            .split_whitespace()
            .map(str::to_string)
            .collect();
        let signed_by = field("signed-by").unwrap_or(KEYRING);
        for uri in field("uris").unwrap_or("").split_whitespace() {
            sources.push(((uri.to_string(), signed_by.to_string()), suites.clone()));
        }
    }
    sources
}

/// Each `deb [option=value ...] uri suite components...` line of a one-line file, with its suite.
fn one_line_sources(text: &str) -> std::result::Result<Vec<(Source, Vec<String>)>, String> {
    let mut sources = Vec::new();
    for line in text.lines() {
        let line = line.split('#').next().unwrap_or("").trim();
        let Some(rest) = line.strip_prefix("deb ") else {
            continue;
        };
        let mut rest = rest.trim();
        let mut signed_by = KEYRING;
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
                (uri.to_string(), signed_by.to_string()),
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

    fn list(files: &[(&str, &str)], suite: &str) -> Result<String, String> {
        let files: Vec<(String, String)> = files
            .iter()
            .map(|(p, t)| (p.to_string(), t.to_string()))
            .collect();
        sources_list(&files, suite, "non-free")
    }

    #[test]
    fn a_release_takes_the_archive_a_named_suite_its_source() {
        let files = [("/etc/apt/sources.list.d/debian.sources", DEB822)];
        let release = list(&files, "bullseye").unwrap();
        assert!(release.ends_with(
            "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] \
             http://mirror.example/debian bullseye non-free\n"
        ));
        assert!(release.starts_with(
            "# From this machine's apt configuration (/etc/apt/sources.list.d/debian.sources)"
        ));
        let security = list(&files, "bookworm-security").unwrap();
        assert!(security.contains(" http://mirror.example/debian-security bookworm-security "));
    }

    #[test]
    fn one_line_sources_with_options_and_embedded_keys() {
        let one_line =
            "# comment\ndeb [arch=amd64 signed-by=/k.gpg] http://m.example/d bookworm main\n";
        let files = [("/etc/apt/sources.list", one_line)];
        assert!(list(&files, "bookworm")
            .unwrap()
            .contains("deb [signed-by=/k.gpg] http://m.example/d bookworm non-free"));
        let embedded =
            "Types: deb\nURIs: http://m.example/d\nSuites: bookworm\nSigned-By:\n -----BEGIN PGP\n";
        let files = [("/etc/apt/sources.list.d/d.sources", embedded)];
        assert!(list(&files, "bookworm")
            .unwrap()
            .contains("[signed-by=/usr/share/keyrings/"));
    }

    #[test]
    fn disabled_sources_other_suites_and_broken_lines_are_rejected() {
        let disabled = "Types: deb\nEnabled: no\nURIs: http://m.example/d\nSuites: bookworm\n";
        let only_updates = "deb http://m.example/d bookworm-updates main\n";
        for files in [
            vec![("/etc/apt/sources.list.d/d.sources", disabled)],
            vec![("/etc/apt/sources.list", only_updates)],
            vec![(
                "/etc/apt/sources.list",
                "deb-src http://m.example/d bookworm main\n",
            )],
            vec![(
                "/etc/apt/sources.list",
                "deb [signed-by=/k http://m.example/d bookworm main\n",
            )],
        ] {
            assert!(list(&files, "bookworm").is_err(), "{files:?} accepted");
        }
        let err = list(
            &[("/etc/apt/sources.list", only_updates)],
            "bookworm-security",
        )
        .unwrap_err();
        assert!(err.contains("add one to /etc/apt/sources.list.d/ to fetch from bookworm-security"));
    }
}
