//! `cargo xtask stub-libcuda DIR`: a stub `libcuda.so.1` (and `libcuda.so`) in DIR that exports
//! every function of every committed header version (the interop modules' too), as the toolkit's
//! `stubs/libcuda.so` does: for linking builds of a header newer than the machine's driver
//! (Debian's 535 library has no `cuCtxCreate_v4`, which the CUDA 13.0 header's `cuCtxCreate`
//! binds). Nothing runs against it: the loader finds the real driver at run time. Keep DIR outside
//! cargo's target folder (cargo puts link-search folders inside it on the loader path of
//! `cargo run` and `cargo test`). `CC` names the target's C compiler (`cc` by default).

use crate::base::args::Args;
use crate::base::process::{self, root};
use crate::base::{files, Result};
use std::collections::BTreeSet;

/// `cargo xtask stub-libcuda DIR`.
pub fn run(args: &Args) -> Result {
    let dir = args.value("DIR").expect("declared");
    let shown = dir;
    let dir = std::path::absolute(dir).map_err(|e| format!("{dir}: {e}"))?;
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let names = committed_functions()?;
    let source: String = names
        .iter()
        .map(|n| format!("void {n}(void) {{}}\n"))
        .collect();
    let stub_c = dir.join("stub.c");
    crate::base::files::write(&stub_c, source)?;
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    process::run(
        process::command(cc)
            .args(["-shared", "-fPIC", "-Wl,-soname,libcuda.so.1", "-o"])
            .arg(dir.join("libcuda.so.1"))
            .arg(&stub_c),
    )?;
    files::link("libcuda.so.1", &dir.join("libcuda.so"))?;
    eprintln!("stub libcuda.so.1 in {shown}: {} symbols", names.len());
    Ok(())
}

/// The functions the committed `*functions.rs` files declare, each once, sorted.
fn committed_functions() -> Result<BTreeSet<String>> {
    let generated = root().join("cuda-driver-sys-items/src/generated");
    let mut names = BTreeSet::new();
    let entries =
        std::fs::read_dir(&generated).map_err(|e| format!("{}: {e}", generated.display()))?;
    for entry in entries {
        let path = entry?.path();
        let is_functions = path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.ends_with("functions.rs"));
        if is_functions {
            let text = crate::base::files::read(&path)?;
            names.extend(text.lines().filter_map(declared_function).map(String::from));
        }
    }
    Ok(names)
}

/// The name of the driver function a line `pub fn cuX(...` declares.
fn declared_function(line: &str) -> Option<&str> {
    let rest = line.trim_start_matches(' ').strip_prefix("pub fn ")?;
    let end = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))?;
    let (name, after) = rest.split_at(end);
    (name.starts_with("cu") && after.starts_with('(')).then_some(name)
}

#[cfg(test)]
mod tests {
    use super::declared_function;

    #[test]
    fn declarations_are_found_and_other_lines_rejected() {
        assert_eq!(
            declared_function("    pub fn cuMemAlloc_v2(dptr: *mut u64) -> CUresult;"),
            Some("cuMemAlloc_v2")
        );
        assert_eq!(
            declared_function("pub fn cuInit(Flags: u32)"),
            Some("cuInit")
        );
        for other in [
            "pub fn cuInit",
            "pub fn foo(x)",
            "    // pub fn cuInit(",
            "\tpub fn cuInit(",
        ] {
            assert_eq!(declared_function(other), None, "{other:?}");
        }
    }
}
