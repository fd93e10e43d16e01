//! Debian's NVIDIA driver libraries (`libcuda1`, from the `non-free` component of this machine's
//! mirror), each unpacked into its folder under `target/ci-deps`, `lib/` being the folder of its
//! `libcuda.so.1`: the 535 library for x86-64 (the tests' driver), the 470 library (CUDA 11.4,
//! with `cuGetProcAddress` (v1) and no `cuGetProcAddress_v2`), and with `--arm64-driver` the arm64
//! build of the 535 library (loaded under qemu-aarch64 by the platforms task).

use super::apt;
use crate::base::Result;
use std::path::Path;

/// One driver library: its folder under `target/ci-deps`, where it comes from, and what it is.
pub struct DriverLibrary {
    /// Its folder under `target/ci-deps`.
    pub dir: &'static str,
    suite: &'static str,
    /// The packages' architecture when not this machine's.
    apt_arch: Option<&'static str>,
    /// The folder of its `libcuda.so.1` in the packages.
    lib: &'static str,
    /// The log's words for it.
    what: &'static str,
    packages: &'static [&'static str],
}

/// The 535 library for x86-64: the tests' driver.
pub const DRIVER_535: DriverLibrary = DriverLibrary {
    dir: "driver",
    suite: "bookworm",
    apt_arch: None,
    lib: "root/usr/lib/x86_64-linux-gnu/nvidia/current",
    what: "535.x",
    packages: &["libcuda1", "libnvidia-ptxjitcompiler1"],
};

/// An 11.x driver: the 470 library (CUDA 11.4).
pub const DRIVER_470: DriverLibrary = DriverLibrary {
    dir: "driver-470",
    suite: "bullseye",
    apt_arch: None,
    lib: "root/usr/lib/x86_64-linux-gnu/nvidia/current",
    what: "470.x",
    packages: &["libcuda1"],
};

/// The arm64 build of the 535 library.
pub const DRIVER_535_ARM64: DriverLibrary = DriverLibrary {
    dir: "driver-arm64",
    suite: "bookworm",
    apt_arch: Some("arm64"),
    lib: "root/usr/lib/aarch64-linux-gnu/nvidia/current",
    what: "535.x for arm64",
    packages: &["libcuda1"],
};

/// Fetches the x86-64 libraries, and with `arm64` the arm64 one, that are not there.
pub fn fetch(deps: &Path, arm64: bool) -> Result {
    fetch_one(deps, &DRIVER_535)?;
    fetch_one(deps, &DRIVER_470)?;
    if arm64 {
        fetch_one(deps, &DRIVER_535_ARM64)?;
    }
    Ok(())
}

fn fetch_one(deps: &Path, driver: &DriverLibrary) -> Result {
    let (suite, packages) = (driver.suite, driver.packages);
    let what = format!("{} {} ({suite} non-free)", packages.join(" "), driver.what);
    let (dir, link) = (deps.join(driver.dir), ("lib", driver.lib));
    apt::fetch(&dir, &what, &["lib/libcuda.so.1"], link, |debs| {
        apt::download(deps, (suite, "non-free"), driver.apt_arch, debs, packages)
    })
}
