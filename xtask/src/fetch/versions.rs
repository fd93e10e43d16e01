//! `cargo xtask versions [--tag NAME]`: the CUDA header versions of the version list
//! ([`crate::base::versions`]), or those tagged NAME, one per line, for scripts and people.

use crate::base::args::Args;
use crate::base::versions::{all, tagged};
use crate::base::Result;

/// `cargo xtask versions [--tag NAME]`: the versions (or those tagged NAME), one per line.
pub fn print(args: &Args) -> Result {
    let numbers = match args.value("NAME") {
        None => all()?.into_iter().map(|v| v.number).collect(),
        Some(tag) => tagged(tag)?,
    };
    for n in numbers {
        println!("{n}");
    }
    Ok(())
}
