//! What the checks of dependents (rustacuda, cust, cudarc, ci/dependent-0-3) share: the pinned
//! crate, its unpacking, the migration patch, and the folders each build links.

use crate::checks::{env_path, links_stub};
use crate::process::{self, root};
use crate::{run_task, Result};
use std::path::{Path, PathBuf};
use std::process::Stdio;

/// The path of the pinned `name-version.crate` in cargo's cache, checked against its checksum
/// (the task pinned-crate, run by this program for its output).
pub fn pinned_crate(name: &str, version: &str) -> Result<PathBuf> {
    let xtask = std::env::current_exe()?;
    let path = process::output(process::command(xtask).args(["pinned-crate", name, version]))?;
    Ok(PathBuf::from(path.trim_end()))
}

/// Applies `patch` (a file of the workspace) to the tree `dir`, exactly (no fuzz); false if it
/// does not apply.
pub fn apply(patch: &str, dir: &Path) -> Result<bool> {
    let file = std::fs::File::open(root().join(patch)).map_err(|e| format!("{patch}: {e}"))?;
    let status = process::command("patch")
        .arg("-d")
        .arg(dir)
        .args(["-p1", "--forward", "--fuzz", "0", "--no-backup-if-mismatch"])
        .stdin(Stdio::from(file))
        .status()?;
    Ok(status.success())
}

/// The folders the builds link, made under `work`.
pub struct LinkFolders {
    /// For cuda-driver-sys 0.3.0 and cust_raw 0.11.3 (find_cuda_helper), which link
    /// `<CUDA_LIBRARY_PATH>/lib64`: `lib64` is the 535 library's folder.
    pub published: PathBuf,
    /// The 535 library's folder.
    pub driver: PathBuf,
    /// The stub library, for the headers newer than the 535 driver.
    pub stub: PathBuf,
}

impl LinkFolders {
    /// Makes them under `work` (a fixed folder outside the target folder: a new path would
    /// rebuild cuda-driver-sys each run).
    pub fn new(work: &Path) -> Result<Self> {
        let driver = env_path(
            "CUDA_LIBRARY_PATH",
            "the driver library's folder (fetch-deps)",
        )?;
        let published = work.join("cuda-0.3");
        std::fs::create_dir_all(&published)?;
        let lib64 = published.join("lib64");
        let _ = std::fs::remove_file(&lib64);
        std::os::unix::fs::symlink(&driver, &lib64)
            .map_err(|e| format!("{}: {e}", lib64.display()))?;
        let stub = work.join("stub");
        run_task("stub-libcuda", &[&stub.to_string_lossy()])?;
        Ok(LinkFolders {
            published,
            driver,
            stub,
        })
    }

    /// The folder this workspace's crate links with the header `version`.
    pub fn ours(&self, version: u32) -> Result<&Path> {
        Ok(if links_stub(version)? {
            &self.stub
        } else {
            &self.driver
        })
    }
}

/// The `--config` that builds a dependent on this workspace's cuda-driver-sys.
pub fn patch_config() -> String {
    format!(
        "patch.crates-io.cuda-driver-sys.path='{}'",
        root().join("cuda-driver-sys").display()
    )
}

/// Replaces the folder `dest` by a copy of `src`'s `entries`.
pub fn copy_fresh(src: &Path, entries: &[&str], dest: &Path) -> Result {
    let _ = std::fs::remove_dir_all(dest);
    std::fs::create_dir_all(dest)?;
    let mut cp = process::command("cp");
    cp.arg("-r");
    for e in entries {
        cp.arg(src.join(e));
    }
    process::run(cp.arg(dest))
}

/// The crate file `crate_file` unpacked into `dir` (emptied first) as a workspace of its own,
/// with the lock file `lock` as its starting point.
pub fn unpack(crate_file: &Path, dir: &Path, lock: &Path) -> Result {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir)?;
    process::run(
        process::command("tar")
            .arg("xzf")
            .arg(crate_file)
            .arg("-C")
            .arg(dir)
            .args(["--strip-components", "1"]),
    )?;
    let manifest = dir.join("Cargo.toml");
    let mut text = std::fs::read_to_string(&manifest)?;
    text.push_str("\n[workspace]\n");
    std::fs::write(&manifest, text)?;
    std::fs::copy(lock, dir.join("Cargo.lock"))?;
    Ok(())
}

/// `strip --strip-debug` of `from` into `to`.
pub fn strip(from: &Path, to: &Path) -> Result {
    let mut strip = process::command("strip");
    strip.arg("--strip-debug").arg("-o").arg(to).arg(from);
    process::run(&mut strip)
}
