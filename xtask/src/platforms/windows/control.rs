//! The control of the Windows section: a layout difference only Windows has fails it. In a copy
//! of a version's headers, `CUDA_ARRAY_SPARSE_PROPERTIES`' `miptailSize` is `unsigned long`
//! instead of `unsigned long long`: 8 bytes on Linux (the bindings' `c_ulonglong` still fits; the
//! Linux layout test passes with it), 4 on Windows, where the layout test must fail naming it.

use super::GNU;
use crate::base::{files, Result};
use crate::platforms::cross::Suite;
use std::path::Path;

/// The line changed, and what it becomes.
const FIELD: (&str, &str) = (
    "unsigned long long miptailSize;",
    "unsigned long miptailSize;",
);

/// Runs the layout test of `version` for Windows against the changed copy (in `scratch`); it
/// must fail on that field.
pub fn check(suite: &Suite, scratch: &Path, version: u32) -> Result {
    let copy = scratch.join(format!("headers-{version}"));
    files::copy_files(&crate::platforms::headers(version)?, &copy)?;
    let cuda_h = copy.join("cuda.h");
    let text = files::read(&cuda_h)?;
    if text.matches(FIELD.0).count() != 1 {
        return Err(format!("{}: no one line `{}` to change", cuda_h.display(), FIELD.0).into());
    }
    files::write(&cuda_h, text.replace(FIELD.0, FIELD.1))?;
    let features = format!("cuda-{version}");
    let mut command = (suite.cargo)(version);
    command
        .env(format!("CUDA_HEADERS_{version}"), &copy)
        .args(["test", "--target", GNU, "--no-default-features"])
        .args(["--features", &features, "--test", "layout"]);
    let (status, output) = crate::base::capture::merged(&mut command)?;
    let seen: Vec<&str> = output
        .lines()
        .filter(|l| l.contains("field miptailSize") && l.contains("C offset 16 size 4 align 4"))
        .collect();
    if status.success() || seen.is_empty() {
        print!("{output}");
        return Err("control: the layout test did not fail on miptailSize as unsigned long".into());
    }
    println!(
        "control: with `{}` in cuda.h {version}, layout fails on Windows:{}",
        FIELD.1,
        seen.iter()
            .map(|l| format!("\n  {}", l.trim()))
            .collect::<String>()
    );
    Ok(())
}
