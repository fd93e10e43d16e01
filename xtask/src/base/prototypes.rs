//! The driver functions the generated bindings declare: the `pub fn cuX(` lines of their
//! `*functions.rs` files (every header version), for the stub libraries and the driver probes.

use crate::base::process::root;
use crate::base::{files, Result};
use std::collections::BTreeSet;
use std::path::PathBuf;

/// The folder of the generated bindings.
pub fn generated() -> PathBuf {
    root().join("cuda-driver-sys-items/src/generated")
}

/// The driver function `text` starts with: a `cu…` name followed by `(`.
pub fn function_at(text: &str) -> Option<&str> {
    let end = text.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))?;
    let (name, after) = text.split_at(end);
    (name.starts_with("cu") && after.starts_with('(')).then_some(name)
}

/// The name of the driver function a line `pub fn cuX(...` (indented by spaces) declares.
pub fn declared(line: &str) -> Option<&str> {
    function_at(line.trim_start_matches(' ').strip_prefix("pub fn ")?)
}

/// The functions the generated bindings declare, each once, sorted.
pub fn functions() -> Result<BTreeSet<String>> {
    let mut names = BTreeSet::new();
    for file in files::named(&generated(), "", "functions.rs")? {
        let text = files::read(&file)?;
        names.extend(text.lines().filter_map(declared).map(String::from));
    }
    Ok(names)
}

#[cfg(test)]
mod tests {
    use super::declared;

    #[test]
    fn declarations_are_found_and_other_lines_rejected() {
        assert_eq!(
            declared("    pub fn cuMemAlloc_v2(dptr: *mut u64) -> CUresult;"),
            Some("cuMemAlloc_v2")
        );
        assert_eq!(declared("pub fn cuInit(Flags: u32)"), Some("cuInit"));
        for other in [
            "pub fn cuInit",
            "pub fn foo(x)",
            "    // pub fn cuInit(",
            "\tpub fn cuInit(",
        ] {
            assert_eq!(declared(other), None, "{other:?}");
        }
    }
}
