//! The CUDA runtime the C twins use. `cudart/`: `lib/libcudart.so.12` and the runtime headers
//! (`cuda_runtime_api.h`, `driver_types.h`, ...) of the runtime wheel of the version tagged
//! `cudart` (the oldest 12.x runtime: it runs on every driver from 12.0 on, so it serves every
//! header), without `cuda.h` and `cudaTypedefs.h` (the driver's headers are those of
//! `headers/<V>`), with the `crt/` headers they include, which CUDA ships with nvcc.
//! `cudart-arm64/lib/`: the aarch64 `libcudart.so.12` of the version tagged `cudart-arm64` (the
//! oldest runtime wheel built for aarch64; CUDA's minor-version compatibility runs it on the 535
//! driver); the aarch64 C twins link it and run it under qemu-aarch64, with the x86-64 headers
//! above, the same on both.

use super::{log, wheel};
use crate::base::versions::Version;
use crate::base::{files, Result};
use std::path::{Path, PathBuf};

/// The x86-64 runtime's folder under `target/ci-deps`.
pub const DIR: &str = "cudart";
/// The aarch64 runtime's folder under `target/ci-deps`.
pub const DIR_ARM64: &str = "cudart-arm64";

/// The runtime library's name, in the wheels and in `lib/`.
const LIBRARY: &str = "libcudart.so.12";

/// What `cudart/` takes from the wheels: members under `folder` whose path below it is `wanted`,
/// written to that path under `to`.
struct Take {
    folder: &'static str,
    wanted: fn(&str) -> bool,
    to: &'static str,
}

const TAKES: &[Take] = &[
    Take {
        folder: "nvidia/cuda_runtime/include/",
        wanted: |rel| is_header(rel) && rel != "cuda.h" && rel != "cudaTypedefs.h",
        to: "include",
    },
    Take {
        folder: "nvidia/cuda_runtime/lib/",
        wanted: |rel| rel == LIBRARY,
        to: "lib",
    },
    Take {
        folder: "nvidia/cuda_nvcc/include/",
        wanted: |rel| rel.starts_with("crt/") && is_header(rel),
        to: "include",
    },
];

/// `cudart/` counts as fetched when these are there.
const FETCHED: &[&str] = &[
    "lib/libcudart.so.12",
    "include/cuda_runtime_api.h",
    "include/crt/host_defines.h",
];

fn is_header(rel: &str) -> bool {
    rel.ends_with(".h") || rel.ends_with(".hpp")
}

/// Fetches `cudart/` unless it is there.
pub fn fetch(deps: &Path, versions: &[Version]) -> Result {
    let dir = deps.join(DIR);
    if all_there(&dir) {
        return Ok(());
    }
    let runtime = runtime_wheel(versions, "cudart")?;
    // The nvcc wheel of the `cudart` version's release, which has the `crt/` headers: the wheel
    // gen-ptx takes ptxas from (examples/ptx-tools.txt).
    let nvcc = crate::base::deps::ptx_tools::Pins::read()?.ptxas;
    log(&format!(
        "downloading {runtime} and {nvcc} for {LIBRARY} and the runtime headers"
    ));
    let downloaded = wheel::download("x86_64", &[runtime, &nvcc])?;
    files::remove_dir(&dir)?;
    for whl in downloaded.wheels()? {
        for member in wheel::members(&whl)? {
            if let Some(rel) = destination(&member) {
                wheel::extract(&whl, &member, &dir.join(rel))?;
            }
        }
    }
    if !all_there(&dir) {
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
    let library = deps.join(DIR_ARM64).join("lib").join(LIBRARY);
    if library.exists() {
        return Ok(());
    }
    let runtime = runtime_wheel(versions, "cudart-arm64")?;
    log(&format!(
        "downloading {runtime} (aarch64) for its {LIBRARY}"
    ));
    let downloaded = wheel::download("aarch64", &[runtime])?;
    files::remove_dir(&deps.join(DIR_ARM64))?;
    let member = format!("nvidia/cuda_runtime/lib/{LIBRARY}");
    for whl in downloaded.wheels()? {
        if wheel::members(&whl)?.contains(&member) {
            wheel::extract(&whl, &member, &library)?;
        }
    }
    if !library.exists() {
        files::remove_dir(&deps.join(DIR_ARM64))?;
        return Err(format!("no {member} in {runtime}").into());
    }
    Ok(())
}

fn all_there(dir: &Path) -> bool {
    FETCHED.iter().all(|f| dir.join(f).exists())
}

/// The runtime wheel of the one version tagged `tag`.
fn runtime_wheel<'v>(versions: &'v [Version], tag: &str) -> Result<&'v str> {
    let mut tagged = versions.iter().filter(|v| v.tags.iter().any(|t| t == tag));
    match (tagged.next(), tagged.next()) {
        (Some(v), None) => Ok(&v.runtime_wheel),
        _ => Err(format!(
            "cuda-driver-sys-items/versions.txt: not exactly one version is tagged `{tag}`; tag one"
        )
        .into()),
    }
}

/// Where under `cudart/` the wheel member `member` goes, if [`TAKES`] takes it.
fn destination(member: &str) -> Option<PathBuf> {
    TAKES.iter().find_map(|take| {
        let rel = member.strip_prefix(take.folder)?;
        (take.wanted)(rel).then(|| Path::new(take.to).join(rel))
    })
}

#[cfg(test)]
mod tests {
    use super::destination;
    use std::path::Path;

    #[test]
    fn runtime_library_and_headers_are_taken_driver_headers_not() {
        let to = |m| destination(m);
        assert_eq!(
            to("nvidia/cuda_runtime/include/cuda_runtime_api.h").as_deref(),
            Some(Path::new("include/cuda_runtime_api.h"))
        );
        assert_eq!(
            to("nvidia/cuda_nvcc/include/crt/host_defines.h").as_deref(),
            Some(Path::new("include/crt/host_defines.h"))
        );
        assert_eq!(
            to("nvidia/cuda_runtime/lib/libcudart.so.12").as_deref(),
            Some(Path::new("lib/libcudart.so.12"))
        );
        for rejected in [
            "nvidia/cuda_runtime/include/cuda.h",
            "nvidia/cuda_runtime/include/cudaTypedefs.h",
            "nvidia/cuda_nvcc/include/cuda_fp16.h",
            "nvidia/cuda_runtime/lib/libcudart_static.a",
            "nvidia/cuda_runtime/include/",
        ] {
            assert_eq!(to(rejected), None, "{rejected} taken");
        }
    }
}
