//! The workspace's example programs: the examples' and twins' file names, and the group programs
//! (`examples/groups/`) with the headers each runs at.

use crate::base::process::root;
use crate::base::{files, versions, Result};

/// The names `NAME` of the files `folder/NAME.<extension>` (the workspace's folder), sorted.
pub fn stems(folder: &str, extension: &str) -> Result<Vec<String>> {
    let paths = files::named(&root().join(folder), "", &format!(".{extension}"))?;
    let mut names: Vec<String> = (paths.iter())
        .filter_map(|p| Some(p.file_stem()?.to_str()?.to_string()))
        .collect();
    names.sort();
    Ok(names)
}

/// The group programs' declarations (`tests/support/programs.rs`, which the tests' build script
/// reads too).
#[path = "../../../tests/support/programs.rs"]
pub mod programs;

/// The group programs of the workspace (`examples/groups/`), as the root `Cargo.toml` declares them.
pub fn group_programs() -> Result<Vec<programs::Program>> {
    Ok(programs::read(&root())?)
}

/// The names of the group programs a build for the header `version` has (their oldest header at
/// most `version`).
pub fn group_programs_at(version: u32) -> Result<Vec<String>> {
    Ok(group_programs()?
        .into_iter()
        .filter(|p| p.oldest <= version)
        .map(|p| p.name)
        .collect())
}

/// The headers each group program runs at on the CPU (its parity, linked and with
/// `dynamic-loading`): every group program's oldest, and the newest header; oldest first.
pub fn group_versions() -> Result<Vec<u32>> {
    let newest = versions::all()?.last().map(|v| v.number);
    let mut list: Vec<u32> = group_programs()?.iter().map(|p| p.oldest).collect();
    list.extend(newest);
    list.sort();
    list.dedup();
    Ok(list)
}
