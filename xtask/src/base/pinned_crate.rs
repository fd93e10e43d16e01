//! The path of NAME-VERSION.crate in cargo's cache, fetched from the package registry with the
//! crates of the first `ci/*/Cargo.lock` that pins it (`cargo fetch --locked` on the Cargo.toml
//! beside it) and checked against the checksum that lock gives it. `ci/rustacuda/` pins rustacuda
//! 0.1.3 and its cuda-driver-sys 0.3.0, `ci/cudarc/` cudarc 0.19.10, `ci/cust/` cust 0.3.2 and its
//! cust_raw 0.11.3. The dependents' checks unpack it; migration-changes reads its bindings.

use crate::base::process::{self, root};
use crate::base::Result;
use std::path::PathBuf;

/// The path of NAME-VERSION.crate in cargo's cache, fetched and checked against the lock.
pub fn path(name: &str, version: &str) -> Result<PathBuf> {
    let (folder, sum) = pinning_lock(name, version)?;
    let lock = format!("{folder}/Cargo.lock");
    process::run(process::command("cargo").args([
        "fetch",
        "--quiet",
        "--locked",
        "--manifest-path",
        &format!("{folder}/Cargo.toml"),
    ]))?;
    let cargo_home = match std::env::var_os("CARGO_HOME") {
        Some(home) => PathBuf::from(home),
        None => PathBuf::from(std::env::var_os("HOME").ok_or("HOME is not set")?).join(".cargo"),
    };
    let cache = cargo_home.join("registry/cache");
    let file = format!("{name}-{version}.crate");
    let mut registries: Vec<PathBuf> = match std::fs::read_dir(&cache) {
        Ok(entries) => entries.filter_map(|e| e.ok()).map(|e| e.path()).collect(),
        Err(_) => Vec::new(),
    };
    registries.sort();
    for candidate in registries.into_iter().map(|r| r.join(&file)) {
        if candidate.is_file() && sha256(&candidate)? == sum {
            return Ok(candidate);
        }
    }
    Err(format!("no {file} with the checksum of {lock} in cargo's cache").into())
}

/// The first folder `ci/*` (in name order) whose Cargo.lock pins `name` `version`, and the
/// checksum it gives; an error if another lock pins it with another checksum.
fn pinning_lock(name: &str, version: &str) -> Result<(String, String)> {
    let ci = root().join("ci");
    let mut folders: Vec<String> = std::fs::read_dir(&ci)
        .map_err(|e| format!("{}: {e}", ci.display()))?
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    folders.sort();
    let mut found: Option<(String, String)> = None;
    for folder in folders {
        let Ok(lock) = std::fs::read_to_string(ci.join(&folder).join("Cargo.lock")) else {
            continue;
        };
        let Some(sum) = checksum(&lock, name, version) else {
            continue;
        };
        match &found {
            None => found = Some((format!("ci/{folder}"), sum.to_string())),
            Some((first, first_sum)) if first_sum != sum => {
                return Err(format!(
                    "{first}/Cargo.lock and ci/{folder}/Cargo.lock pin {name} {version} with \
                     different checksums: make them agree"
                )
                .into())
            }
            Some(_) => {}
        }
    }
    found.ok_or_else(|| format!("no ci/*/Cargo.lock pins {name} {version}").into())
}

/// The checksum a Cargo.lock gives the package `name` `version`.
fn checksum<'a>(lock: &'a str, name: &str, version: &str) -> Option<&'a str> {
    lock.split("[[package]]").find_map(|package| {
        let field = |key: &str| {
            package.lines().find_map(|l| {
                l.strip_prefix(key)?
                    .strip_prefix(" = \"")?
                    .strip_suffix('"')
            })
        };
        (field("name")? == name && field("version")? == version)
            .then(|| field("checksum"))
            .flatten()
    })
}

/// The SHA-256 of a file, as `sha256sum` prints it.
fn sha256(path: &std::path::Path) -> Result<String> {
    let out = process::output(process::command("sha256sum").arg(path))?;
    let sum = out.split_whitespace().next().unwrap_or_default();
    Ok(sum.to_string())
}

#[cfg(test)]
mod tests {
    use super::checksum;

    const LOCK: &str = "version = 3\n\n[[package]]\nname = \"a\"\nversion = \"0.1.0\"\n\
        source = \"registry+x\"\nchecksum = \"11\"\n\n[[package]]\nname = \"b\"\n\
        version = \"0.3.0\"\nsource = \"registry+x\"\nchecksum = \"22\"\n\n\
        [[package]]\nname = \"c\"\nversion = \"1.0.0\"\n";

    #[test]
    fn the_checksum_of_the_named_version() {
        assert_eq!(checksum(LOCK, "b", "0.3.0"), Some("22"));
        assert_eq!(checksum(LOCK, "a", "0.1.0"), Some("11"));
        assert_eq!(checksum(LOCK, "b", "0.3.1"), None);
        assert_eq!(
            checksum(LOCK, "c", "1.0.0"),
            None,
            "a path package has no checksum"
        );
        assert_eq!(checksum(LOCK, "d", "0.1.0"), None);
    }
}
