//! `cupti-<version>/`: the pinned CUPTI wheel's `include/` and `lib/libcupti.so.13`, which the
//! coverage recorder is built against (docs/DESIGN.md, "Coverage"): by `cargo xtask gpu-bundle`,
//! and by `cargo xtask coverage --check` for the recorder's test.

use super::{log, ptx_tools::parse_isa, wheel};
use crate::base::{files, Result};
use std::path::{Path, PathBuf};

/// The CUPTI wheel's version: of the GPU machine's driver's CUDA version (13.0; a CUPTI newer
/// than the driver refuses it).
pub const VERSION: &str = "13.0.85";

/// The `CUDA_VERSION` of the `cuda.h` of CUPTI's release (of 13.0.85: 13.0), whose parameter
/// structs CUPTI declares.
pub fn cuda_version() -> u32 {
    let release = VERSION.rsplit_once('.').unwrap_or_default().0;
    let (major, minor) = parse_isa(release).unwrap_or_default();
    major * 1000 + minor * 10
}

/// Its folder under `deps`.
pub fn folder(deps: &Path) -> PathBuf {
    deps.join(format!("cupti-{VERSION}"))
}

/// Fetches `cupti-<version>/` unless it is there.
pub fn fetch(deps: &Path) -> Result {
    let dir = folder(deps);
    let all_there = || {
        dir.join("lib/libcupti.so.13").is_file() && dir.join("include/cupti_callbacks.h").is_file()
    };
    if all_there() {
        return Ok(());
    }
    let requirement = format!("nvidia-cuda-cupti=={VERSION}");
    log(&format!(
        "downloading {requirement} for the coverage recorder"
    ));
    let downloaded = wheel::download_for("x86_64", &["manylinux_2_25"], &[&requirement])?;
    files::recreate_dir(&dir, "")?;
    for wheel in downloaded.wheels()? {
        for member in wheel::members(&wheel)? {
            // nvidia/cu13/include/..., nvidia/cu13/lib/libcupti.so.13
            let Some((_, rest)) = member.split_once("/cu13/") else {
                continue;
            };
            if rest.starts_with("include/") || rest == "lib/libcupti.so.13" {
                wheel::extract(&wheel, &member, &dir.join(rest))?;
            }
        }
    }
    if !all_there() {
        files::remove_dir(&dir)?;
        return Err(
            format!("no include/cupti_callbacks.h or lib/libcupti.so.13 in {requirement}").into(),
        );
    }
    Ok(())
}
