//! The workspace's files as text, for the tests that check what the files say of each other
//! (`versions.rs`, `header_sets.rs`).

use std::path::{Path, PathBuf};

/// The workspace's root folder.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ is in the workspace")
        .to_path_buf()
}

/// The text of the file at `rel` (relative to the workspace's root); a panic naming it where it
/// cannot be read.
pub fn read(rel: &str) -> String {
    let path = workspace().join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}
