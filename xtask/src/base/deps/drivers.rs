//! Debian's NVIDIA driver libraries (`libcuda1`, `non-free` of this machine's mirror), each in its
//! folder under `target/ci-deps`, `lib/` holding its `libcuda.so.1`: the 535 library for x86-64,
//! the 470 one (CUDA 11.4, no `cuGetProcAddress_v2`), and with `--arm64-driver` the arm64 535 one.

use super::apt;
use crate::base::Result;
use std::path::Path;

/// The 535 library's folder under `target/ci-deps`: the tests' driver.
pub const DRIVER_535: &str = "driver";
/// The 470 library's folder (CUDA 11.4): an 11.x driver.
pub const DRIVER_470: &str = "driver-470";
/// The arm64 535 library's folder.
pub const DRIVER_535_ARM64: &str = "driver-arm64";

/// Fetches the x86-64 libraries, and with `arm64` the arm64 one, that are not there.
pub fn fetch(deps: &Path, arm64: bool) -> Result {
    let with_jit = ["libcuda1", "libnvidia-ptxjitcompiler1"];
    fetch_one(deps, DRIVER_535, ("bookworm", "535.x"), None, &with_jit)?;
    fetch_one(deps, DRIVER_470, ("bullseye", "470.x"), None, &["libcuda1"])?;
    if arm64 {
        let what = ("bookworm", "535.x for arm64");
        fetch_one(deps, DRIVER_535_ARM64, what, Some("arm64"), &["libcuda1"])?;
    }
    Ok(())
}

/// The library in the folder `dir` from `packages` of the Debian `suite` (`what`: the log's words
/// for it), of the architecture `arch` if not this machine's.
fn fetch_one(
    deps: &Path,
    dir: &str,
    (suite, what): (&str, &str),
    arch: Option<&str>,
    packages: &[&str],
) -> Result {
    let what = format!("{} {what} ({suite} non-free)", packages.join(" "));
    let machine = if arch.is_some() { "aarch64" } else { "x86_64" };
    let lib = format!("root/usr/lib/{machine}-linux-gnu/nvidia/current");
    let (dir, link) = (deps.join(dir), ("lib", lib.as_str()));
    apt::fetch(&dir, &what, &["lib/libcuda.so.1"], link, |debs| {
        apt::download(deps, (suite, "non-free"), arch, debs, packages)
    })
}
