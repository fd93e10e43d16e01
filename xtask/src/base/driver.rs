//! The driver library a build links and its tests run on, by the roles the version list gives
//! versions: Debian's 535 library (tagged `driver`), bullseye's 470, and the stub library of
//! `cargo xtask stub-libcuda` that the builds for headers newer than the 535 library link.

use crate::base::deps::env_path;
use crate::base::process::run_task;
use crate::base::scratch::Scratch;
use crate::base::{versions, Result};
use std::path::PathBuf;

/// The `CUDA_VERSION` that the driver library the tests run on (Debian's 535) reports.
pub fn driver() -> Result<u32> {
    versions::the_one("driver")
}

/// The folder of the 535 library, as fetch-deps sets it (`CUDA_LIBRARY_PATH`).
pub fn library() -> Result<PathBuf> {
    env_path(
        "CUDA_LIBRARY_PATH",
        "the driver library's folder (fetch-deps)",
    )
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

/// The stub library of `cargo xtask stub-libcuda` in a scratch folder named for `what` (removed
/// when dropped), for a task's builds to link against.
pub fn stub_in_scratch(what: &str) -> Result<Scratch> {
    let dir = Scratch::new(what)?;
    run_task("stub-libcuda", &[&dir.path().to_string_lossy()])?;
    Ok(dir)
}
