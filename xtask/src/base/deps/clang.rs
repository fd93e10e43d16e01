//! `clang/`: libclang for bindgen (Debian bookworm `libclang1-14` and `libclang-common-14-dev`,
//! with `libllvm14` when the system lacks `libLLVM-14.so`), from the system's own sources;
//! `clang/lib` is the folder of its `libclang.so.1`.

use super::apt;
use crate::base::{process, Result};
use std::path::Path;

/// Its folder under `target/ci-deps`.
pub const DIR: &str = "clang";

/// The packages always downloaded.
const PACKAGES: &[&str] = &["libclang1-14", "libclang-common-14-dev"];
/// The LLVM library libclang links, downloaded when the system lacks it.
const LLVM: (&str, &str) = ("libllvm14", "libLLVM-14.so");

/// Fetches `clang/` unless its `libclang.so.1` is there.
pub fn fetch(deps: &Path) -> Result {
    let what = format!("{} (bookworm main)", PACKAGES.join(" and "));
    let (dir, link) = (deps.join(DIR), ("lib", "root/usr/lib/llvm-14/lib"));
    apt::fetch(&dir, &what, &["lib/libclang.so.1"], link, |debs| {
        let mut packages = PACKAGES.to_vec();
        let (llvm_package, llvm_library) = LLVM;
        if !process::output(process::command("ldconfig").arg("-p"))?.contains(llvm_library) {
            packages.push(llvm_package);
        }
        apt::download_from_system(debs, &packages)
    })
}
