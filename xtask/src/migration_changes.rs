//! `cargo xtask migration-changes [--check]`: the change list from cuda-driver-sys 0.3
//! (`docs/MIGRATING-CHANGES.md`) and the generator's list of the enumerators whose value changed
//! (`cuda-driver-sys-items/generator/src/renumbered_since_0_3.txt`), from 0.3.0's bindings (`src/cuda.rs`
//! of its .crate, pinned by checksum: [`crate::pinned_crate`]) and the committed ones, by the
//! generator's `migration_changes` bin. `--check`: fail if either file differs from what it would
//! write, instead of rewriting them.

use crate::process::{self, root};
use crate::{pinned_crate, Result};

/// `cargo xtask migration-changes [--check]`.
pub fn run(args: &[String]) -> Result {
    let crate_file = pinned_crate::path("cuda-driver-sys", "0.3.0")?;
    // Relative to the workspace root, the generator's working folder.
    let work_name = "target/migration-changes";
    let work = root().join(work_name);
    if work.exists() {
        std::fs::remove_dir_all(&work).map_err(|e| format!("{}: {e}", work.display()))?;
    }
    std::fs::create_dir_all(&work).map_err(|e| format!("{}: {e}", work.display()))?;
    let member = "cuda-driver-sys-0.3.0/src/cuda.rs";
    process::run(
        process::command("tar")
            .arg("xzf")
            .arg(&crate_file)
            .arg("-C")
            .arg(&work)
            .arg(member),
    )?;
    process::run(
        process::command("cargo")
            .args([
                "run",
                "--quiet",
                "--release",
                "-p",
                "cuda-driver-sys-generator",
            ])
            .args(["--bin", "migration_changes", "--", "--bindings-0-3"])
            .arg(format!("{work_name}/{member}"))
            .args(args),
    )
}
