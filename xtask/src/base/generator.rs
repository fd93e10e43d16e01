//! The bindings' generator (`cuda-driver-sys-generator`), built in release: regenerate runs it
//! for the committed files, platforms for each target; its other programs list what the headers
//! hold (migration-changes, coverage).

use crate::base::process::{self, root};
use crate::base::Result;
use std::path::PathBuf;
use std::process::Command;

/// The generator's package.
const PACKAGE: &str = "cuda-driver-sys-generator";

/// Builds the generator and returns its path.
pub fn build() -> Result<PathBuf> {
    process::run(process::command("cargo").args(["build", "--quiet", "--release", "-p", PACKAGE]))?;
    Ok(path())
}

/// The path of the generator's binary.
pub fn path() -> PathBuf {
    root().join("target/release").join(PACKAGE)
}

/// `cargo run` of the generator package's program `bin` (release), its arguments to follow.
pub fn program(bin: &str) -> Command {
    let mut cargo = process::command("cargo");
    cargo.args(["run", "--quiet", "--release", "-p", PACKAGE]);
    cargo.args(["--bin", bin, "--"]);
    cargo
}
