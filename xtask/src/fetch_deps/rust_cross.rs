//! `rust-cross/`, with `--cross-rust`: Debian's rustc-web (bookworm-security): the compiler with
//! its LLVM, its standard library for x86-64 (build scripts, proc macros) and aarch64 Linux, and
//! its sources (Windows: `-Zbuild-std`), unpacked into `rust-cross/root`, never installed;
//! `rust-cross/rustc` runs it with that sysroot (for cargo's `RUSTC`). Pinned: security updates
//! replace a version, so a missing one fails with the versions apt has.

use super::{apt, files, log};
use crate::{process, Result};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// Its folder under `target/ci-deps`.
pub const DIR: &str = "rust-cross";

/// The version of rustc-web and its standard library.
const RUSTC_WEB: &str = "1.96.0+dfsg1-1~deb12u2";
/// The version of the LLVM it is built with.
const LLVM: &str = "1:22.1.8-1~deb12u1";
/// The LLVM library package of that version.
const LLVM_PACKAGE: &str = "libllvm22";

/// The targets whose standard library must be there.
const TARGETS: &[&str] = &["x86_64-unknown-linux-gnu", "aarch64-unknown-linux-gnu"];

/// Fetches `rust-cross/` unless its `rustc` is there.
pub fn fetch(deps: &Path) -> Result {
    let dir = deps.join(DIR);
    let rustc = dir.join("rustc");
    if crate::files::executable(&rustc) {
        return Ok(());
    }
    log(&format!(
        "downloading rustc-web {RUSTC_WEB} and its standard library for x86-64 and arm64 \
         (bookworm-security main)"
    ));
    files::recreate_dir(&dir, "debs")?;
    let debs = dir.join("debs");
    let suite = ("bookworm-security", "main");
    let [std, std_dev] = standard_library(RUSTC_WEB);
    let host = [
        format!("rustc-web={RUSTC_WEB}"),
        std.clone(),
        std_dev.clone(),
        format!("rust-web-src={RUSTC_WEB}"),
        format!("{LLVM_PACKAGE}={LLVM}"),
    ];
    if apt::download(deps, suite, None, &debs, &host).is_err() {
        return Err(format!(
            "rustc-web {RUSTC_WEB} is not in bookworm-security: set RUSTC_WEB in \
             xtask/src/fetch_deps/rust_cross.rs to one of: {}",
            versions_apt_has()?
        )
        .into());
    }
    apt::download(deps, suite, Some("arm64"), &debs, &[std, std_dev])?;
    let root = dir.join("root");
    apt::unpack(&debs, &root)?;
    let wrapper = wrapper(&dir.display().to_string());
    crate::files::write(&rustc, wrapper)?;
    std::fs::set_permissions(&rustc, std::fs::Permissions::from_mode(0o755))
        .map_err(|e| format!("{}: {e}", rustc.display()))?;
    let missing = TARGETS
        .iter()
        .find(|t| !root.join(format!("usr/lib/rustlib/{t}/lib")).is_dir());
    if let Some(target) = missing {
        files::remove_dir(&dir)?;
        return Err(format!(
            "no standard library for {target} in {}; see apt's messages above",
            root.display()
        )
        .into());
    }
    if files::run_to_stderr(process::command(&rustc).arg("-vV")).is_err() {
        files::remove_dir(&dir)?;
        return Err(format!("{} does not run", rustc.display()).into());
    }
    Ok(())
}

/// The standard library's packages of rustc-web `version`, `libstd-rust-web-<major.minor>` and
/// `libstd-rust-web-dev`, pinned to it.
fn standard_library(version: &str) -> [String; 2] {
    let major_minor: Vec<&str> = version.split('.').take(2).collect();
    [
        format!("libstd-rust-web-{}={version}", major_minor.join(".")),
        format!("libstd-rust-web-dev={version}"),
    ]
}

/// `rust-cross/rustc`: rustc-web run with its own libraries and sysroot.
fn wrapper(dir: &str) -> String {
    format!(
        "#!/bin/sh\n\
         # Debian's rustc-web {RUSTC_WEB}, unpacked by cargo xtask fetch-deps --cross-rust\n\
         LD_LIBRARY_PATH=\"{dir}/root/usr/lib/x86_64-linux-gnu${{LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}}\" \
         exec \"{dir}/root/usr/bin/rustc\" --sysroot \"{dir}/root/usr\" \"$@\"\n"
    )
}

/// The versions of rustc-web apt knows (`apt-cache madison rustc-web`), space-separated.
fn versions_apt_has() -> Result<String> {
    let madison = process::output(process::command("apt-cache").args(["madison", "rustc-web"]))?;
    let versions: Vec<&str> = madison
        .lines()
        .filter_map(|l| l.split_whitespace().nth(2))
        .collect();
    Ok(versions.join(" "))
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_standard_library_is_named_by_the_compiler_version() {
        let [std, dev] = super::standard_library("1.85.0+dfsg1-1~deb12u1");
        assert_eq!(std, "libstd-rust-web-1.85=1.85.0+dfsg1-1~deb12u1");
        assert_eq!(dev, "libstd-rust-web-dev=1.85.0+dfsg1-1~deb12u1");
    }

    #[test]
    fn the_wrapper_runs_the_unpacked_compiler() {
        let wrapper = super::wrapper("/d/rust-cross");
        assert!(wrapper.starts_with("#!/bin/sh\n"));
        assert!(wrapper.ends_with(
            "exec \"/d/rust-cross/root/usr/bin/rustc\" --sysroot \"/d/rust-cross/root/usr\" \"$@\"\n"
        ));
    }
}
