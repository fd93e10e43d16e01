//! `cargo xtask msrv-check`: the publishable crates still build with the Rust of `rust-version`
//! in the root Cargo.toml, by the three steps of docs/DESIGN.md, "Minimum Rust version": each
//! inherits it; clippy's `incompatible_msrv` finds no item newer than it under two feature sets
//! ([`lint_sets`]); that Rust builds them, warnings denied, in a copy of the checkout without
//! Cargo.lock. About 1-2 minutes, most of it step 3's first build.

use crate::base::args::Args;
use crate::base::process::{self, root};
use crate::base::scratch::{copy_checkout, Scratch};
use crate::base::{capture, cargo_json, deps, rustup, versions, Result};
use crate::release::CRATES;

/// What clippy says of an item newer than the MSRV.
const NEWER: &str = "current MSRV (Minimum Supported Rust Version) is";

/// `cargo xtask msrv-check`.
pub fn run(_: &Args) -> Result {
    let packages = cargo_json::packages(CRATES)?;
    let msrv = (packages.iter().find(|p| p["name"] == "cuda-driver-sys"))
        .and_then(|p| p["rust_version"].as_str())
        .ok_or("cuda-driver-sys has no rust-version")?;
    println!("msrv-check: rust-version {msrv}");
    if let Some(other) = packages.iter().find(|p| p["rust_version"] != msrv) {
        let name = other["name"].as_str().unwrap_or_default();
        let why = "does not inherit rust-version (rust-version.workspace = true)";
        return Err(format!("{name} {why}").into());
    }
    println!("  1. {} crates inherit it", CRATES.len());

    deps::use_fetched(false)?;
    let sets = lint_sets()?;
    let packages = CRATES.map(|c| format!("--package={c}"));
    // Step 2 for each feature set.
    for features in &sets {
        let mut clippy = process::command("cargo");
        clippy.arg("clippy").args(&packages);
        clippy.args(["--features", features, "--"]);
        clippy.args(["--force-warn", "clippy::incompatible_msrv"]);
        let (status, text) = capture::merged(&mut clippy)?;
        if !status.success() {
            println!("{text}");
        }
        process::check(&clippy, status)?;
        let lines: Vec<&str> = text.lines().collect();
        let newer = (0..lines.len()).filter(|&i| lines[i].contains(NEWER));
        let newer: Vec<usize> = newer.collect();
        if newer.is_empty() {
            continue;
        }
        for &i in &newer {
            println!("{}", lines[i..lines.len().min(i + 5)].join("\n"));
        }
        return Err(format!(
            "{} uses of items newer than rust-version {msrv} (features {features}): raise rust-version or avoid them",
            newer.len()
        )
        .into());
    }
    let n = sets.len();
    println!("  2. clippy incompatible_msrv: 0 items newer than {msrv}, {n} feature sets");

    let toolchain = rustup::toolchain(msrv)?;
    let got = process::output(old_rust(&toolchain, "rustc").arg("--version"))?;
    let got = got.trim();
    if !got.starts_with(&format!("rustc {msrv}")) {
        return Err(format!("rustup's toolchain {toolchain} says '{got}', not {msrv}").into());
    }
    let work = Scratch::new("msrv-check")?;
    copy_checkout(work.path())?;
    for features in &sets {
        let mut check = old_rust(&toolchain, "cargo");
        // Warnings denied: a lint this Rust does not know yet is a warning a user of it sees.
        check.current_dir(work.path()).args(["check", "-q"]);
        check.env("RUSTFLAGS", "-D warnings");
        check.args(&packages);
        check.args(["--features", features]);
        process::run(&mut check).map_err(|_| {
            format!(
                "the publishable crates do not build with Rust {msrv} without warnings \
                 (features {features}): see the errors above"
            )
        })?;
    }
    let (crates, n) = (CRATES.len(), sets.len());
    println!("  3. {got} builds the {crates} crates, {n} feature sets");
    println!("msrv-check: the publishable crates build with Rust {msrv}");
    Ok(())
}

/// The two feature sets that between them compile every hand-written line: the newest version
/// with dynamic loading and the interop modules, the oldest with the table and per-thread streams.
fn lint_sets() -> Result<[String; 2]> {
    let all = versions::all()?;
    let (Some(oldest), Some(newest)) = (all.first(), all.last()) else {
        return Err("versions.txt lists no version".into());
    };
    let set = |features: String| {
        let features = features.split(' ').map(|f| format!("cuda-driver-sys/{f}"));
        features.collect::<Vec<_>>().join(",")
    };
    let (newest, oldest) = (newest.number, oldest.number);
    Ok([
        set(format!(
            "cuda-{newest} dynamic-loading profiler gl egl vdpau"
        )),
        set(format!(
            "cuda-{oldest} table-only per-thread-default-stream"
        )),
    ])
}

/// `program` (cargo or rustc) of rustup's `toolchain`, with its own target folder; dependencies
/// resolved for that Rust where the newest need a newer one.
fn old_rust(toolchain: &str, program: &str) -> std::process::Command {
    let mut command = rustup::run(toolchain, program);
    command
        .env("CARGO_RESOLVER_INCOMPATIBLE_RUST_VERSIONS", "fallback")
        .env("CARGO_TARGET_DIR", root().join("target/msrv"));
    command
}
