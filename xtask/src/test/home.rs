//! The test command's own homes, empty at each start under `target/ci-home/` (cargo's, rustup's,
//! pip's cache; docs/DESIGN.md, "What CI runs", "Caches"): the running toolchain is installed
//! into the new rustup home first, and the steps run with it.

use crate::base::process::{self, root};
use crate::base::{files, rustup, Result};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The homes' folder, relative to the workspace root.
pub const HOMES: &str = "target/ci-home";

/// Empties the homes, installs the running toolchain into the new rustup home, and sets this
/// process's environment to them (the steps' process inherits it).
pub fn fresh() -> Result {
    let started = Instant::now();
    let homes = root().join(HOMES);
    files::remove_dir(&homes)?;
    let [cargo, rustup, pip] = ["cargo", "rustup", "pip"].map(|name| homes.join(name));
    for dir in [&cargo, &rustup, &pip] {
        files::create_dir(dir)?;
    }
    // The release of the toolchain that runs cargo here (`1.95.0`), as rustup names it: only a
    // stable release can be installed again by that name.
    let said = process::output(process::command("rustc").arg("-vV"))?;
    let release = said.lines().find_map(|l| l.strip_prefix("release: "));
    let toolchain = release.ok_or("rustc -vV: no release")?;
    if toolchain.contains('-') {
        return Err(format!(
            "the test command installs the toolchain that runs it into a rustup home of its own, \
             by its release; rustc {toolchain} is not a stable release: run it with a stable \
             toolchain (`cargo +stable xtask test`)"
        )
        .into());
    }
    // LD_LIBRARY_PATH without the folders `cargo run` added for this program: its target
    // folder's and its toolchain's (under the rustup home RUSTUP_HOME still names).
    if let Some(paths) = std::env::var_os("LD_LIBRARY_PATH") {
        let (target, outer) = (root().join("target"), std::env::var_os("RUSTUP_HOME"));
        let added = |p: &PathBuf| {
            p.starts_with(&target) || outer.as_ref().is_some_and(|o| p.starts_with(o))
        };
        let kept = std::env::join_paths(std::env::split_paths(&paths).filter(|p| !added(p)));
        std::env::set_var("LD_LIBRARY_PATH", kept.unwrap_or_default());
    }
    std::env::set_var("CARGO_HOME", &cargo);
    std::env::set_var("RUSTUP_HOME", &rustup);
    let installed = rustup::install(toolchain, &["clippy", "rustfmt"]);
    let home = rustup.display();
    installed.map_err(|e| format!("the test command's own rustup home {home}: {e}"))?;
    std::env::set_var("RUSTUP_TOOLCHAIN", toolchain);
    std::env::set_var("PIP_CACHE_DIR", &pip);
    // What `cargo run` set for this program, pointing into the toolchain that built it.
    std::env::remove_var("CARGO");
    std::env::remove_var("RUSTUP_TOOLCHAIN_SOURCE");
    let took = started.elapsed().as_secs();
    println!(
        "the test command's own homes, empty: {HOMES}/{{cargo,rustup,pip}}; Rust {toolchain} \
         installed into its rustup home in {took} s"
    );
    Ok(())
}

/// What the run downloaded into the homes, in MB: the crates (`.crate` files) and the installed
/// toolchains, as one line.
pub fn downloads() -> String {
    let mb = |dir: &str| size(&root().join(HOMES).join(dir)) / 1_000_000;
    let (crates, toolchains) = (mb("cargo/registry/cache"), mb("rustup/toolchains"));
    format!("downloaded into {HOMES}: crates {crates} MB (.crate files), toolchains {toolchains} MB (installed)")
}

/// The bytes of the files under `dir` (links not followed); 0 if it is missing.
fn size(dir: &Path) -> u64 {
    let entries = fs_err::read_dir(dir).into_iter().flatten().flatten();
    entries
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => size(&e.path()),
            Ok(t) if t.is_file() => e.metadata().map_or(0, |m| m.len()),
            _ => 0,
        })
        .sum()
}
