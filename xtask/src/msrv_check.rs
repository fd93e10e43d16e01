//! `cargo xtask msrv-check`: the publishable crates (cuda-driver-sys, cuda-driver-sys-items,
//! cuda-check, cuda-driver-sys-generator) still build with the Rust of `rust-version` in the root Cargo.toml
//! (docs/DESIGN.md, "Minimum Rust version"):
//!   1. each declares `rust-version.workspace = true`;
//!   2. clippy's `incompatible_msrv` finds no standard-library item newer than it, under two
//!      feature sets that between them compile every hand-written line (the newest version with
//!      dynamic loading and the interop modules, the oldest with the table and per-thread streams;
//!      forced on: cuda-driver-sys-items allows `clippy::all` for its generated code);
//!   3. they compile with the oldest Rust a package registry here offers at or above it: Debian
//!      bookworm's rustc-web 1.85.0 (rustup cannot fetch toolchains here), unpacked into
//!      target/ci-deps/rust-1.85, never installed; dependencies resolved for that Rust;
//!   4. with an MSRV of 1.84, no syntax that 1.85 added: async closures,
//!      `#[diagnostic::do_not_recommend]`, edition 2024 (what step 3 cannot see).
//!
//! About 1-2 minutes, most of it step 3's first build.

use crate::files::read;
use crate::process::{self, root};
use crate::scratch::Scratch;
use crate::{deps, versions, Result};
use std::path::Path;

const CRATES: [&str; 4] = [
    "cuda-driver-sys",
    "cuda-driver-sys-items",
    "cuda-check",
    "cuda-driver-sys-generator",
];
const MANIFESTS: [&str; 4] = [
    "cuda-driver-sys/Cargo.toml",
    "cuda-driver-sys-items/Cargo.toml",
    "cuda-check/Cargo.toml",
    "cuda-driver-sys-items/generator/Cargo.toml",
];
const SOURCES: [&str; 6] = [
    "cuda-driver-sys/src",
    "cuda-driver-sys/build",
    "cuda-driver-sys-items/src",
    "cuda-driver-sys-items/build",
    "cuda-driver-sys-items/generator/src",
    "cuda-check/src",
];
/// What clippy says of an item newer than the MSRV.
const NEWER: &str = "current MSRV (Minimum Supported Rust Version) is";
/// Debian bookworm's oldest rustc-web at or above the MSRV, and its package version.
const OLD_RUST: &str = "1.85.0";
const DEB_VERSION: &str = "1.85.0+dfsg3-1~deb12u3";

/// `cargo xtask msrv-check`.
pub fn run(args: &[String]) -> Result {
    if !args.is_empty() {
        return Err("usage: cargo xtask msrv-check".into());
    }
    let manifest = read(&root().join("Cargo.toml"))?;
    let msrv = manifest
        .lines()
        .find_map(|l| l.strip_prefix("rust-version = \"")?.strip_suffix('"'))
        .ok_or("no rust-version in the root Cargo.toml's [workspace.package]")?;
    println!("msrv-check: rust-version {msrv}");

    for m in MANIFESTS {
        if !read(&root().join(m))?
            .lines()
            .any(|l| l == "rust-version.workspace = true")
        {
            return Err(format!(
                "{m} does not inherit rust-version (rust-version.workspace = true)"
            )
            .into());
        }
    }
    println!("  1. {} crates inherit it", MANIFESTS.len());

    deps::use_fetched(&[])?;
    let sets = lint_sets()?;
    for features in &sets {
        no_newer_items(msrv, features)?;
    }
    println!(
        "  2. clippy incompatible_msrv: 0 items newer than {msrv}, {} feature sets",
        sets.len()
    );

    if !["1.84", "1.85"]
        .iter()
        .any(|v| msrv == *v || msrv.starts_with(&format!("{v}.")))
    {
        return Err(format!(
            "rust-version {msrv}: this check covers 1.84 and 1.85 (Debian's rustc-web 1.85 compiles, \
             step 4 knows 1.85's additions); for another value change steps 3 and 4"
        )
        .into());
    }

    let toolchain = root().join("target/ci-deps/rust-1.85");
    unpack_toolchain(&toolchain, msrv)?;
    let mut version = old_rust(&toolchain, "usr/bin/rustc");
    let got = process::output(version.arg("--version"))?
        .trim()
        .to_string();
    if !got.starts_with(&format!("rustc {OLD_RUST} ")) {
        return Err(format!("the unpacked compiler says '{got}', not {OLD_RUST}").into());
    }
    let work = Scratch::new("msrv-check")?;
    copy_checkout(work.path())?;
    for features in &sets {
        let mut check = old_rust(&toolchain, "usr/bin/cargo");
        check.current_dir(work.path()).args(["check", "-q"]);
        check.args(CRATES.map(|c| format!("--package={c}")));
        check.args(["--features", features]);
        process::run(&mut check).map_err(|_| {
            format!(
                "the publishable crates do not build with Rust {OLD_RUST} (features {features}): \
                 see the errors above"
            )
        })?;
    }
    println!(
        "  3. {got} builds the {} crates, {} feature sets",
        CRATES.len(),
        sets.len()
    );

    if msrv.starts_with("1.84") {
        let mut hits = Vec::new();
        for dir in SOURCES {
            rust_1_85_syntax(&root().join(dir), dir, &mut hits)?;
        }
        for m in std::iter::once("Cargo.toml").chain(MANIFESTS) {
            for (n, line) in read(&root().join(m))?.lines().enumerate() {
                if is_edition_2024(line) {
                    hits.push(format!("{m}:{}:{line}", n + 1));
                }
            }
        }
        if !hits.is_empty() {
            println!("{}", hits.join("\n"));
            return Err(format!(
                "Rust 1.85 syntax in the publishable crates, above rust-version {msrv}"
            )
            .into());
        }
        println!(
            "  4. no Rust 1.85 syntax (async closures, do_not_recommend, edition 2024) in {} source folders",
            SOURCES.len()
        );
    }
    println!("msrv-check: the publishable crates build with Rust {msrv}");
    Ok(())
}

/// The two feature sets that between them compile every hand-written line: the newest version
/// with dynamic loading and the interop modules, the oldest with the table and per-thread streams.
fn lint_sets() -> Result<[String; 2]> {
    let all = versions::all()?;
    let (oldest, newest) = match (all.first(), all.last()) {
        (Some(o), Some(n)) => (o.number, n.number),
        _ => return Err("versions.txt lists no version".into()),
    };
    let set = |features: &[&str]| {
        features
            .iter()
            .map(|f| format!("cuda-driver-sys/{f}"))
            .collect::<Vec<_>>()
            .join(",")
    };
    Ok([
        set(&[
            &format!("cuda-{newest}"),
            "dynamic-loading",
            "profiler",
            "gl",
            "egl",
            "vdpau",
        ]),
        set(&[
            &format!("cuda-{oldest}"),
            "table-only",
            "per-thread-default-stream",
        ]),
    ])
}

/// Step 2 for one feature set.
fn no_newer_items(msrv: &str, features: &str) -> Result {
    let mut clippy = process::command("cargo");
    clippy.arg("clippy");
    clippy.args(CRATES.map(|c| format!("--package={c}")));
    clippy.args([
        "--features",
        features,
        "--",
        "--force-warn",
        "clippy::incompatible_msrv",
    ]);
    let out = clippy.output().map_err(|e| process::error(&clippy, e))?;
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        println!("{text}");
        return Err("clippy failed".into());
    }
    let lines: Vec<&str> = text.lines().collect();
    let newer: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].contains(NEWER))
        .collect();
    if newer.is_empty() {
        return Ok(());
    }
    for &i in &newer {
        println!("{}", lines[i..lines.len().min(i + 5)].join("\n"));
    }
    Err(format!(
        "{} uses of items newer than rust-version {msrv} (features {features}): raise rust-version or avoid them",
        newer.len()
    )
    .into())
}

/// Debian's rustc-web and cargo-web, with the libraries they load (libstd, LLVM 19, cargo's
/// libpcre3 and libhttp-parser), unpacked into `toolchain` unless there.
fn unpack_toolchain(toolchain: &Path, msrv: &str) -> Result {
    if toolchain.join("usr/bin/cargo").is_file() {
        return Ok(());
    }
    eprintln!(
        "msrv-check: unpacking Debian bookworm's rustc-web {DEB_VERSION} into {}",
        toolchain.display()
    );
    let debs = std::path::PathBuf::from(format!("{}.debs", toolchain.display()));
    for dir in [debs.as_path(), toolchain] {
        if dir.exists() {
            std::fs::remove_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
    }
    std::fs::create_dir_all(&debs)?;
    let packages = [
        format!("rustc-web={DEB_VERSION}"),
        format!("cargo-web={DEB_VERSION}"),
        format!("libstd-rust-web-dev={DEB_VERSION}"),
        format!("libstd-rust-web-1.85={DEB_VERSION}"),
        "libllvm19".into(),
        "libpcre3".into(),
        "libhttp-parser2.9".into(),
    ];
    let download = || {
        let mut apt = process::command("apt-get");
        apt.current_dir(&debs).arg("download").args(&packages);
        apt.stdout(std::io::stderr())
            .stderr(std::process::Stdio::null());
        process::run(&mut apt)
    };
    let fetched = download().or_else(|_| {
        let mut update = process::command("apt-get");
        update.arg("update").stdout(std::io::stderr());
        process::run(&mut update)?;
        download()
    });
    if fetched.is_err() {
        return Err(format!(
            "no rustc-web {DEB_VERSION} from Debian bookworm main (apt-cache madison rustc-web lists \
             what there is; change OLD_RUST/DEB_VERSION in xtask/src/msrv_check.rs to the oldest one \
             at or above rust-version {msrv})"
        )
        .into());
    }
    for entry in std::fs::read_dir(&debs)? {
        let deb = entry?.path();
        if deb.extension().is_some_and(|e| e == "deb") {
            process::run(
                process::command("dpkg-deb")
                    .arg("-x")
                    .arg(&deb)
                    .arg(toolchain),
            )?;
        }
    }
    std::fs::remove_dir_all(&debs)?;
    Ok(())
}

/// A command of the unpacked toolchain (`relative` under it), with the libraries it loads and
/// its own target folder.
fn old_rust(toolchain: &Path, relative: &str) -> std::process::Command {
    let libraries = [
        "usr/lib/x86_64-linux-gnu",
        "lib/x86_64-linux-gnu",
        "usr/lib/llvm-19/lib",
    ]
    .map(|l| toolchain.join(l).display().to_string())
    .join(":");
    let mut command = process::command(toolchain.join(relative));
    command
        .env_remove("RUSTUP_TOOLCHAIN")
        .env("LD_LIBRARY_PATH", libraries)
        .env("RUSTC", toolchain.join("usr/bin/rustc"))
        .env("RUSTDOC", toolchain.join("usr/bin/rustdoc"))
        .env("CARGO_RESOLVER_INCOMPATIBLE_RUST_VERSIONS", "fallback")
        .env("CARGO_TARGET_DIR", root().join("target/msrv"));
    command
}

/// The checkout's files (tracked and untracked, not ignored) into `work`, without its Cargo.lock,
/// so that cargo 1.85 picks dependencies that build with it (the workspace's lock is resolved by
/// the newest cargo, for the tests too).
pub fn copy_checkout(work: &Path) -> Result {
    let mut list = process::command("git");
    list.args([
        "ls-files",
        "-z",
        "--cached",
        "--others",
        "--exclude-standard",
    ]);
    for file in process::output(&mut list)?
        .split('\0')
        .filter(|f| !f.is_empty())
    {
        if file == "Cargo.lock" {
            continue;
        }
        let from = root().join(file);
        let to = work.join(file);
        let Ok(meta) = std::fs::symlink_metadata(&from) else {
            continue; // deleted in the work tree, still in the index
        };
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent)?;
        }
        if meta.file_type().is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(&from)?, &to)?;
        } else {
            std::fs::copy(&from, &to).map_err(|e| format!("{}: {e}", from.display()))?;
        }
    }
    Ok(())
}

/// Step 4's finds under `dir` (shown as `shown`), as `grep -rn` prints them.
fn rust_1_85_syntax(dir: &Path, shown: &str, hits: &mut Vec<String>) -> Result {
    let mut entries: Vec<_> = std::fs::read_dir(dir)?.collect::<std::io::Result<_>>()?;
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let path = entry.path();
        let name = format!("{shown}/{}", entry.file_name().to_string_lossy());
        if path.is_dir() {
            rust_1_85_syntax(&path, &name, hits)?;
        } else if let Ok(text) = std::fs::read_to_string(&path) {
            for (n, line) in text.lines().enumerate() {
                if is_async_closure(line) || line.contains("diagnostic::do_not_recommend") {
                    hits.push(format!("{name}:{}:{line}", n + 1));
                }
            }
        }
    }
    Ok(())
}

/// `async |` or `async move |` (spaces before the bar optional): an async closure.
fn is_async_closure(line: &str) -> bool {
    line.match_indices("async").any(|(i, _)| {
        let rest = &line[i + "async".len()..];
        let rest = rest.strip_prefix(" move").unwrap_or(rest);
        rest.trim_start_matches(' ').starts_with('|')
    })
}

/// `edition = "2024"` at the start of a manifest line.
fn is_edition_2024(line: &str) -> bool {
    line.strip_prefix("edition")
        .map(|r| r.trim_start_matches(' '))
        .and_then(|r| r.strip_prefix('='))
        .is_some_and(|r| r.trim_start_matches(' ').starts_with("\"2024\""))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn async_closures_are_found_and_async_blocks_not() {
        for hit in ["let f = async |x| x;", "async move |x| x", "f(async|| 1)"] {
            assert!(is_async_closure(hit), "{hit:?}");
        }
        for miss in [
            "async fn f() {}",
            "async move { x }",
            "let asyncx = 1;",
            "a || b",
        ] {
            assert!(!is_async_closure(miss), "{miss:?}");
        }
    }

    #[test]
    fn edition_2024_is_found_and_others_not() {
        assert!(is_edition_2024("edition = \"2024\""));
        assert!(is_edition_2024("edition=\"2024\""));
        assert!(!is_edition_2024("edition = \"2021\""));
        assert!(!is_edition_2024("edition.workspace = true"));
        assert!(!is_edition_2024("# edition = \"2024\""));
    }
}
