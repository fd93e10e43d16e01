//! Scratch folders: created empty under the system's temporary folder, removed with what they hold
//! when dropped (at the end of the task, or when it fails); and the checkout's files copied into one
//! ([`copy_checkout`]).

use crate::base::process::{self, root};
use crate::base::Result;
use std::path::{Path, PathBuf};

/// A folder removed when dropped.
pub struct Scratch(PathBuf);

impl Scratch {
    /// A new empty folder named for `what` and this process.
    pub fn new(what: &str) -> Result<Self> {
        let base = std::env::temp_dir();
        for n in 0..1000 {
            let path = base.join(format!("xtask-{what}-{}-{n}", std::process::id()));
            match std::fs::create_dir(&path) {
                Ok(()) => return Ok(Scratch(path)),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(format!("{}: {e}", path.display()).into()),
            }
        }
        Err(format!("no free scratch folder name under {}", base.display()).into())
    }

    /// Its path.
    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        // Best effort: a folder left behind under the temporary folder harms nothing.
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The checkout's files (tracked and untracked, not ignored) into `work`, without its Cargo.lock,
/// so that cargo 1.85 picks dependencies that build with it (the workspace's lock is resolved by
/// the newest cargo, for the tests too).
pub fn copy_checkout(work: &Path) -> Result {
    let list = process::output(
        process::command("git").args("ls-files -z --cached --others --exclude-standard".split(' ')),
    )?;
    for file in list
        .split('\0')
        .filter(|f| !f.is_empty() && *f != "Cargo.lock")
    {
        let (from, to) = (root().join(file), work.join(file));
        let Ok(meta) = std::fs::symlink_metadata(&from) else {
            continue; // deleted in the work tree, still in the index
        };
        fs_err::create_dir_all(to.parent().expect("a file in a folder"))?;
        if meta.file_type().is_symlink() {
            fs_err::os::unix::fs::symlink(fs_err::read_link(&from)?, &to)?;
        } else {
            fs_err::copy(&from, &to)?;
        }
    }
    Ok(())
}
