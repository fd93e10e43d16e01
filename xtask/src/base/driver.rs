//! The driver library a build links and its tests run on, by the roles the version list gives
//! versions: Debian's 535 library (tagged `driver`), bullseye's 470, and the stub library of
//! `cargo xtask stub-libcuda` that the builds for headers newer than the 535 library link.

use crate::base::deps::env_path;
use crate::base::process::run_task;
use crate::base::scratch::Scratch;
use crate::base::{versions, Result};
use std::path::{Path, PathBuf};

/// The `CUDA_VERSION` that the driver library the tests run on (Debian's 535) reports.
pub fn driver() -> Result<u32> {
    versions::the_one("driver")
}

/// The folder of the 535 library, as fetch-deps sets it (`CUDA_LIBRARY_PATH`).
pub fn library() -> Result<PathBuf> {
    env_path("CUDA_LIBRARY_PATH", "the driver library's folder")
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

/// The folders a task's builds link: the 535 library's, and the stub library's (`cargo xtask
/// stub-libcuda`) for the headers newer than that driver ([`links_stub`]).
pub struct Links {
    /// The 535 library's folder.
    pub driver: PathBuf,
    /// The stub library's folder.
    pub stub: PathBuf,
    /// The scratch folder the stub is in, if it is one: removed when dropped.
    _scratch: Option<Scratch>,
}

impl Links {
    /// The stub made in a scratch folder named for `what`, removed when dropped.
    pub fn in_scratch(what: &str) -> Result<Self> {
        let scratch = Scratch::new(what)?;
        let mut links = Links::in_folder(scratch.path())?;
        links._scratch = Some(scratch);
        Ok(links)
    }

    /// The stub made in the folder `stub` (a fixed one: a new path would rebuild what links it).
    pub fn in_folder(stub: &Path) -> Result<Self> {
        run_task("stub-libcuda", &[&stub.to_string_lossy()])?;
        Ok(Links {
            driver: library()?,
            stub: stub.to_path_buf(),
            _scratch: None,
        })
    }

    /// The folder a build for the header `version` links.
    pub fn for_header(&self, version: u32) -> Result<&Path> {
        Ok(match links_stub(version)? {
            true => &self.stub,
            false => &self.driver,
        })
    }
}
