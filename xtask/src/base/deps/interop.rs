//! `interop/include/`: the GL, EGL (with `KHR/`) and VDPAU headers the interop headers include,
//! from Debian bookworm main, for generating and checking the bindings only (no library used).

use super::{apt, header_set};
use crate::base::Result;
use std::path::Path;

/// Its folder under `target/ci-deps`.
pub const DIR: &str = "interop";

/// Fetches `interop/` unless its headers are all there.
pub fn fetch(deps: &Path) -> Result {
    // The header-set table's foreign headers and the Debian packages that give them.
    let (packages, headers) = (header_set::debian_packages(), header_set::foreign_headers());
    let what = format!("{} (bookworm main) for their headers", listed(&packages));
    let wanted: Vec<String> = headers.iter().map(|h| format!("include/{h}")).collect();
    let (dir, link) = (deps.join(DIR), ("include", "root/usr/include"));
    apt::fetch(&dir, &what, &wanted, link, |debs| {
        apt::download_from_system(debs, &packages)
    })
}

/// `a, b and c`.
fn listed(words: &[&str]) -> String {
    match words {
        [] => String::new(),
        [one] => one.to_string(),
        [head @ .., last] => format!("{} and {last}", head.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::listed;

    #[test]
    fn packages_are_listed_as_in_a_sentence() {
        assert_eq!(listed(&["a"]), "a");
        assert_eq!(listed(&["a", "b"]), "a and b");
        assert_eq!(listed(&["a", "b", "c"]), "a, b and c");
    }
}
