//! `cargo xtask pinned-crate NAME VERSION`: the path of a pinned crate file in cargo's cache,
//! checked against its checksum ([`crate::base::pinned_crate`]).

use crate::base::Result;

/// `cargo xtask pinned-crate NAME VERSION`: prints the path.
pub fn run(args: &[String]) -> Result {
    let [name, version] = args else {
        return Err("usage: cargo xtask pinned-crate NAME VERSION".into());
    };
    println!(
        "{}",
        crate::base::pinned_crate::path(name, version)?.display()
    );
    Ok(())
}
