//! `cargo xtask versions [--tag NAME]`: the CUDA header versions of the version list
//! ([`crate::base::versions`]), or those tagged NAME, one per line, for scripts and people.

use crate::base::versions::{all, tagged, TAGS};
use crate::base::Result;

/// `cargo xtask versions [--tag NAME]`: the versions (or those tagged NAME), one per line.
pub fn print(args: &[String]) -> Result {
    let numbers = match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        [] => all()?.into_iter().map(|v| v.number).collect(),
        ["--tag", tag] => tagged(tag)?,
        _ => {
            let tags: Vec<&str> = TAGS.iter().map(|(t, _)| *t).collect();
            return Err(format!("usage: cargo xtask versions [--tag {}]", tags.join("|")).into());
        }
    };
    for n in numbers {
        println!("{n}");
    }
    Ok(())
}
