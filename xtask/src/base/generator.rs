//! The bindings' generator (`cuda-driver-sys-generator`), built in release: regenerate runs it
//! for the committed files, platforms for each target.

use crate::base::process::{self, root};
use crate::base::Result;
use std::path::PathBuf;

/// Builds the generator and returns its path.
pub fn build() -> Result<PathBuf> {
    process::run(process::command("cargo").args([
        "build",
        "--quiet",
        "--release",
        "-p",
        "cuda-driver-sys-generator",
    ]))?;
    Ok(path())
}

/// The path of the generator's binary.
pub fn path() -> PathBuf {
    root().join("target/release/cuda-driver-sys-generator")
}
