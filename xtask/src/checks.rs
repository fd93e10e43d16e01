//! What the test tasks share: their `=== what: step` headings and the roles
//! the version list gives versions in them (the driver library the tests run on, the stub rule).

use crate::process::root;
use crate::versions;
use crate::Result;
use std::path::PathBuf;

/// A task's step headings, `\n=== <prefix>: <what>` (untimed: the task's caller times the task).
pub struct Headings(pub &'static str);

impl Headings {
    /// Prints the heading of step `what`.
    pub fn step(&self, what: &str) {
        println!("\n=== {}: {what}", self.0);
    }
}

/// The `CUDA_VERSION` that the driver library the tests run on (Debian's 535) reports.
pub fn driver() -> Result<u32> {
    versions::the_one("driver")
}

/// The `CUDA_VERSION` that Debian bullseye's 470 driver library reports (CUDA 11.4): the tests
/// expect it from `cuDriverGetVersion`. No header of the version list is that old, so the list
/// cannot name it.
pub const DRIVER_470: u32 = 11040;

/// Whether a build for the header `version` links the stub library of `stub-libcuda` rather than
/// the 535 library: the headers newer than that driver bind functions it lacks.
pub fn links_stub(version: u32) -> Result<bool> {
    Ok(version > driver()?)
}

/// Whether the header `version` binds cuCtxCreate as cuCtxCreate_v4, which the 535 driver lacks:
/// a program that creates a context stops at start there.
pub fn binds_ctx_create_v4(version: u32) -> Result<bool> {
    Ok(version >= versions::the_one("ctx-create-v4")?)
}

/// Sets, for every command run after, what the tests expect of the driver library without a GPU:
/// the 535 library's version, and `CUDA_ERROR_NO_DEVICE` from `cuInit`.
pub fn expect_535_driver() -> Result {
    std::env::set_var("CUDA_DRIVER_EXPECT_VERSION", driver()?.to_string());
    std::env::set_var("CUDA_DRIVER_EXPECT_NO_DEVICE", "1");
    Ok(())
}

/// The names `NAME` of the files `folder/NAME.<extension>` (the workspace's folder), sorted.
pub fn stems(folder: &str, extension: &str) -> Result<Vec<String>> {
    let dir = root().join(folder);
    let entries = std::fs::read_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut names = Vec::new();
    for entry in entries {
        let path = entry?.path();
        if path.extension().is_some_and(|e| e == extension) {
            if let Some(stem) = path.file_stem().and_then(|s| s.to_str()) {
                names.push(stem.to_string());
            }
        }
    }
    names.sort();
    Ok(names)
}

/// The group programs' declarations (`tests/support/programs.rs`, which the tests' build script
/// reads too).
#[path = "../../tests/support/programs.rs"]
pub mod programs;

/// The group programs of the workspace (`examples/groups/`), as the root `Cargo.toml` declares them.
pub fn group_programs() -> Result<Vec<programs::Program>> {
    Ok(programs::read(&root())?)
}

/// The names of the group programs a build for the header `version` has (their oldest header at
/// most `version`).
pub fn group_programs_at(version: u32) -> Result<Vec<String>> {
    Ok(group_programs()?
        .into_iter()
        .filter(|p| p.oldest <= version)
        .map(|p| p.name)
        .collect())
}

/// The headers each group program runs at on the CPU (its parity, linked and with
/// `dynamic-loading`): every group program's oldest, and the newest header; oldest first.
pub fn group_versions() -> Result<Vec<u32>> {
    let newest = versions::all()?.last().map(|v| v.number);
    let mut list: Vec<u32> = group_programs()?.iter().map(|p| p.oldest).collect();
    list.extend(newest);
    list.sort();
    list.dedup();
    Ok(list)
}

/// The value of the environment variable `name`; an error naming `what` it should hold if it is
/// unset or empty.
pub fn env_path(name: &str, what: &str) -> Result<PathBuf> {
    match std::env::var_os(name) {
        Some(v) if !v.is_empty() => Ok(PathBuf::from(v)),
        _ => Err(format!("{name} is not set: {what}").into()),
    }
}
