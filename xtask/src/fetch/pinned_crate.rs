//! `cargo xtask pinned-crate NAME VERSION`: the path of a pinned crate file in cargo's cache,
//! checked against its checksum ([`crate::base::pinned_crate`]).

use crate::base::args::Args;
use crate::base::Result;

/// `cargo xtask pinned-crate NAME VERSION`: prints the path.
pub fn run(args: &Args) -> Result {
    let [name, version] = ["NAME", "VERSION"].map(|n| args.value(n).expect("declared"));
    println!(
        "{}",
        crate::base::pinned_crate::path(name, version)?.display()
    );
    Ok(())
}
