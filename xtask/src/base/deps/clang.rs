//! `clang/`: libclang for bindgen (Debian bookworm `libclang1-14` and `libclang-common-14-dev`,
//! with `libllvm14` when the system lacks `libLLVM-14.so`), from the system's own sources;
//! `clang/lib` is the folder of its `libclang.so.1`.

use super::{apt, log};
use crate::base::{files, process, Result};
use std::path::Path;

/// Its folder under `target/ci-deps`.
pub const DIR: &str = "clang";

/// The packages always downloaded.
const PACKAGES: &[&str] = &["libclang1-14", "libclang-common-14-dev"];
/// The LLVM library libclang links, downloaded when the system lacks it.
const LLVM: (&str, &str) = ("libllvm14", "libLLVM-14.so");

/// Fetches `clang/` unless its `libclang.so.1` is there.
pub fn fetch(deps: &Path) -> Result {
    let dir = deps.join(DIR);
    if dir.join("lib/libclang.so.1").exists() {
        return Ok(());
    }
    log(&format!(
        "downloading {} (bookworm main)",
        PACKAGES.join(" and ")
    ));
    files::recreate_dir(&dir, "debs")?;
    let mut packages = PACKAGES.to_vec();
    let (llvm_package, llvm_library) = LLVM;
    if !process::output(process::command("ldconfig").arg("-p"))?.contains(llvm_library) {
        packages.push(llvm_package);
    }
    let debs = dir.join("debs");
    apt::download_from_system(&debs, &packages)?;
    apt::unpack(&debs, &dir.join("root"))?;
    files::link("root/usr/lib/llvm-14/lib", &dir.join("lib"))?;
    if !dir.join("lib/libclang.so.1").exists() {
        files::remove_dir(&dir)?;
        return Err(format!(
            "no libclang.so.1 from {} (bookworm main); see apt's messages above",
            PACKAGES[0]
        )
        .into());
    }
    Ok(())
}
