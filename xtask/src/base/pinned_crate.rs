//! The path of NAME-VERSION.crate in cargo's cache, fetched with the crates of the first
//! `ci/*/Cargo.lock` that pins it and checked against that lock's checksum (the dependents' checks
//! unpack it; migration-changes reads its bindings). Also the one reader of a Cargo.lock
//! ([`ENTRY`], [`lock_field`]): `cargo metadata` gives no checksum.

use crate::base::files::{self, name as file_name};
use crate::base::process::{self, root};
use crate::base::{deps, Result};
use std::path::PathBuf;

/// The line that starts each package's entry in a Cargo.lock.
pub const ENTRY: &str = "[[package]]\n";

/// The path of NAME-VERSION.crate in cargo's cache, fetched (`cargo fetch --locked` on the
/// Cargo.toml beside the pinning lock) and checked against the lock.
pub fn path(name: &str, version: &str) -> Result<PathBuf> {
    let (folder, sum) = pinning_lock(name, version)?;
    let manifest = format!("{folder}/Cargo.toml");
    let fetch = ["fetch", "--quiet", "--locked", "--manifest-path", &manifest];
    process::run(process::command("cargo").args(fetch))?;
    let cargo_home = match std::env::var_os("CARGO_HOME") {
        Some(home) => PathBuf::from(home),
        None => deps::env_path("HOME", "cargo's cache is under $HOME/.cargo")?.join(".cargo"),
    };
    let file = format!("{name}-{version}.crate");
    for registry in files::sorted(&cargo_home.join("registry/cache"), "")? {
        let candidate = registry.join(&file);
        if candidate.is_file() {
            let said = process::output(process::command("sha256sum").arg(&candidate))?;
            if said.split_whitespace().next() == Some(sum.as_str()) {
                return Ok(candidate);
            }
        }
    }
    Err(format!("no {file} with the checksum of {folder}/Cargo.lock in cargo's cache").into())
}

/// The first folder `ci/*` (in name order) whose Cargo.lock pins `name` `version`, and the
/// checksum it gives; an error if another lock pins it with another checksum.
fn pinning_lock(name: &str, version: &str) -> Result<(String, String)> {
    let mut found: Option<(String, String)> = None;
    for dir in files::sorted(&root().join("ci"), "")? {
        let lock = dir.join("Cargo.lock");
        let text = if lock.is_file() {
            files::read(&lock)?
        } else {
            continue;
        };
        let Some(sum) = checksum(&text, name, version) else {
            continue;
        };
        let folder = format!("ci/{}", file_name(&dir));
        match &found {
            None => found = Some((folder, sum.to_string())),
            Some((first, first_sum)) if first_sum != sum => {
                return Err(format!(
                    "{first}/Cargo.lock and {folder}/Cargo.lock pin {name} {version} with \
                     different checksums: make them agree"
                )
                .into())
            }
            Some(_) => {}
        }
    }
    found.ok_or_else(|| format!("no ci/*/Cargo.lock pins {name} {version}").into())
}

/// The value of the `key = "value"` line of a Cargo.lock package entry (the text after an
/// [`ENTRY`] line).
pub fn lock_field<'a>(entry: &'a str, key: &str) -> Option<&'a str> {
    entry.lines().find_map(|l| {
        l.strip_prefix(key)?
            .strip_prefix(" = \"")?
            .strip_suffix('"')
    })
}

/// The checksum a Cargo.lock gives the package `name` `version`.
fn checksum<'a>(lock: &'a str, name: &str, version: &str) -> Option<&'a str> {
    lock.split(ENTRY).skip(1).find_map(|entry| {
        let named = lock_field(entry, "name")? == name && lock_field(entry, "version")? == version;
        named.then(|| lock_field(entry, "checksum")).flatten()
    })
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
        assert_eq!(checksum(LOCK, "b", "0.3.1"), None);
        assert_eq!(checksum(LOCK, "c", "1.0.0"), None, "a path package");
        assert_eq!(checksum(LOCK, "d", "0.1.0"), None);
    }
}
