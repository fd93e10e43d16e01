//! The CUDA runtime the C twins use. `cudart/`: `lib/libcudart.so.12` and the runtime headers of
//! the version tagged `cudart` (the oldest 12.x runtime, run by every 12.x driver), without the
//! driver's `cuda.h` and `cudaTypedefs.h`, with nvcc's `crt/` headers. `cudart-arm64/lib/`: the
//! aarch64 library of the version tagged `cudart-arm64`, which the aarch64 C twins run under qemu.

use super::{log, wheel};
use crate::base::versions::{self, Version};
use crate::base::{files, Result};
use std::path::{Path, PathBuf};

/// The x86-64 runtime's folder under `target/ci-deps`.
pub const DIR: &str = "cudart";
/// The aarch64 runtime's folder under `target/ci-deps`.
pub const DIR_ARM64: &str = "cudart-arm64";

/// The runtime library's name, in the wheels and in `lib/`.
const LIBRARY: &str = "libcudart.so.12";

/// `cudart/` counts as fetched when these are there.
const FETCHED: &[&str] = &[
    "lib/libcudart.so.12",
    "include/cuda_runtime_api.h",
    "include/crt/host_defines.h",
];

/// Fetches `cudart/` unless it is there.
pub fn fetch(deps: &Path, versions: &[Version]) -> Result {
    let dir = deps.join(DIR);
    let all_there = || FETCHED.iter().all(|f| dir.join(f).exists());
    if all_there() {
        return Ok(());
    }
    let runtime = runtime_wheel(versions, "cudart")?;
    // The nvcc wheel of the `cudart` version's release, which has the `crt/` headers: the wheel
    // gen-ptx takes ptxas from (examples/ptx-tools.txt).
    let nvcc = super::ptx_tools::Pins::read()?.ptxas;
    log(&format!(
        "downloading {runtime} and {nvcc} for {LIBRARY} and the runtime headers"
    ));
    files::remove_dir(&dir)?;
    wheel::unpack("x86_64", &[runtime, &nvcc], &dir, destination)?;
    if !all_there() {
        files::remove_dir(&dir)?;
        return Err(format!(
            "no {LIBRARY}, cuda_runtime_api.h or crt/host_defines.h from those wheels"
        )
        .into());
    }
    Ok(())
}

/// Fetches `cudart-arm64/lib/libcudart.so.12` unless it is there.
pub fn fetch_arm64(deps: &Path, versions: &[Version]) -> Result {
    let dir = deps.join(DIR_ARM64);
    let library = dir.join("lib").join(LIBRARY);
    if library.exists() {
        return Ok(());
    }
    let runtime = runtime_wheel(versions, "cudart-arm64")?;
    log(&format!(
        "downloading {runtime} (aarch64) for its {LIBRARY}"
    ));
    files::remove_dir(&dir)?;
    let library_only = |member: &str| destination(member).filter(|to| to.starts_with("lib"));
    wheel::unpack("aarch64", &[runtime], &dir, library_only)?;
    if !library.exists() {
        files::remove_dir(&dir)?;
        return Err(format!("no {LIBRARY} in {runtime}").into());
    }
    Ok(())
}

/// The runtime wheel of the one version tagged `tag`.
fn runtime_wheel<'v>(versions: &'v [Version], tag: &str) -> Result<&'v str> {
    let number = versions::the_one(tag)?;
    let version = versions.iter().find(|v| v.number == number);
    Ok(&version.expect("the_one reads the same list").runtime_wheel)
}

/// Where under `cudart/` the wheel member `member` goes, if it is taken: the runtime's headers but
/// the driver's `cuda.h` and `cudaTypedefs.h`, the runtime library, and nvcc's `crt/` headers.
fn destination(member: &str) -> Option<PathBuf> {
    let header = |rel: &str| rel.ends_with(".h") || rel.ends_with(".hpp");
    let (to, rel, taken) = if let Some(rel) = member.strip_prefix("nvidia/cuda_runtime/include/") {
        let driver_header = rel == "cuda.h" || rel == "cudaTypedefs.h";
        ("include", rel, header(rel) && !driver_header)
    } else if let Some(rel) = member.strip_prefix("nvidia/cuda_runtime/lib/") {
        ("lib", rel, rel == LIBRARY)
    } else {
        let rel = member.strip_prefix("nvidia/cuda_nvcc/include/")?;
        ("include", rel, rel.starts_with("crt/") && header(rel))
    };
    taken.then(|| Path::new(to).join(rel))
}

#[cfg(test)]
mod tests {
    use super::destination;

    #[test]
    fn runtime_library_and_headers_are_taken_driver_headers_not() {
        for (member, to) in [
            (
                "cuda_runtime/include/cuda_runtime_api.h",
                "include/cuda_runtime_api.h",
            ),
            (
                "cuda_nvcc/include/crt/host_defines.h",
                "include/crt/host_defines.h",
            ),
            ("cuda_runtime/lib/libcudart.so.12", "lib/libcudart.so.12"),
            ("cuda_runtime/include/cuda.h", ""),
            ("cuda_runtime/include/cudaTypedefs.h", ""),
            ("cuda_nvcc/include/cuda_fp16.h", ""),
            ("cuda_runtime/lib/libcudart_static.a", ""),
            ("cuda_runtime/include/", ""),
        ] {
            let taken = destination(&format!("nvidia/{member}"));
            assert_eq!(taken.unwrap_or_default().to_str(), Some(to), "{member}");
        }
    }
}
