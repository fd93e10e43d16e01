//! Scratch folders: created empty under the system's temporary folder, removed with what they hold
//! when dropped (at the end of the task, or when it fails).

use crate::Result;
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
