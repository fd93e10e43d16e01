//! What an ELF binary or library links dynamically, as binutils read it: the symbols it imports or
//! exports (`nm -D`), the libraries it needs and whether it has a run path (`readelf -d`).

use crate::base::{process, Result};
use std::path::Path;

/// The dynamic symbols `path` imports (`undefined`) or exports, without their versions (`@...`).
pub fn symbols(path: &Path, undefined: bool) -> Result<Vec<String>> {
    let which = match undefined {
        true => "--undefined-only",
        false => "--defined-only",
    };
    let nm = process::output(process::command("nm").args(["-D", which]).arg(path))?;
    Ok(names(&nm))
}

/// The last field of each line of `nm`'s output, its version dropped.
fn names(nm: &str) -> Vec<String> {
    let last = nm.lines().filter_map(|l| l.split_whitespace().last());
    last.map(|s| s.split('@').next().unwrap_or(s).to_string())
        .collect()
}

/// The dynamic section of a binary: what it needs at start.
pub struct Dynamic {
    /// The libraries it names (NEEDED), in order.
    pub needed: Vec<String>,
    /// Whether it has an RPATH or a RUNPATH.
    pub run_path: bool,
}

/// The dynamic section of `path`.
pub fn dynamic(path: &Path) -> Result<Dynamic> {
    let readelf = process::output(process::command("readelf").arg("-d").arg(path))?;
    Ok(parse_dynamic(&readelf))
}

fn parse_dynamic(readelf: &str) -> Dynamic {
    let needed = (readelf.lines())
        .filter(|l| l.contains("(NEEDED)"))
        .filter_map(|l| Some(l[l.rfind('[')? + 1..l.rfind(']')?].to_string()));
    Dynamic {
        needed: needed.collect(),
        run_path: readelf.contains("RPATH") || readelf.contains("RUNPATH"),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn symbols_of_nm_output() {
        let nm = "                 w __gmon_start__\n                 U cuGetProcAddress_v2\n\
                  0001 T cuInit@@libcuda\n                 U memcpy@GLIBC_2.14\n";
        let names = ["__gmon_start__", "cuGetProcAddress_v2", "cuInit", "memcpy"];
        assert_eq!(super::names(nm), names);
    }

    #[test]
    fn needed_libraries_and_run_path() {
        let readelf = " 0x1 (NEEDED)  Shared library: [libgcc_s.so.1]\n 0x1 (NEEDED)  Shared library: [libc.so.6]\n 0xc (INIT) 0x5000\n";
        let dynamic = super::parse_dynamic(readelf);
        assert_eq!(dynamic.needed, ["libgcc_s.so.1", "libc.so.6"]);
        assert!(!dynamic.run_path);
        assert!(super::parse_dynamic(" 0x1d (RUNPATH) [/x]\n").run_path);
    }
}
