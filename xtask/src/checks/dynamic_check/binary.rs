//! A binary built with `dynamic-loading` loads no driver library at start: no libcuda in
//! `readelf -d`'s NEEDED, no undefined `cu*` symbol in `nm -D --undefined-only`, no RPATH or
//! RUNPATH; and it imports `dlopen` (the loader is there: the check looked at the right thing).

use crate::base::{process, Result};
use std::path::Path;

/// Checks the binary `path`; prints one line of what it found.
pub fn check(path: &Path) -> Result {
    let shown = path.display();
    let dynamic = process::output(process::command("readelf").arg("-d").arg(path))?;
    let needed = needed(&dynamic);
    let undefined = process::output(
        process::command("nm")
            .args(["-D", "--undefined-only"])
            .arg(path),
    )?;
    let imports: Vec<&str> = undefined
        .lines()
        .map(|l| l.split_whitespace().last().unwrap_or(""))
        .collect();
    let driver: Vec<&str> = imports
        .iter()
        .copied()
        .filter(|s| s.starts_with("cu"))
        .collect();
    let file = path.file_name().unwrap_or_default().to_string_lossy();
    println!(
        "  {file}: NEEDED {needed}; undefined cu* symbols: {}",
        driver.len()
    );
    if needed.contains("libcuda") {
        return Err(format!("{shown} loads libcuda at start: NEEDED {needed}").into());
    }
    if !driver.is_empty() {
        for s in &driver {
            println!("{s}");
        }
        return Err(format!("{shown} imports the driver symbols above").into());
    }
    if !imports.iter().any(|s| s.starts_with("dlopen")) {
        return Err(format!("{shown} imports no dlopen: it does not contain the loader").into());
    }
    if dynamic.contains("RPATH") || dynamic.contains("RUNPATH") {
        return Err(format!("{shown} has an RPATH/RUNPATH").into());
    }
    Ok(())
}

/// The NEEDED libraries of `readelf -d`'s output, each followed by a space.
fn needed(dynamic: &str) -> String {
    dynamic
        .lines()
        .filter(|l| l.contains("(NEEDED)"))
        .filter_map(|l| Some(&l[l.rfind('[')? + 1..l.rfind(']')?]))
        .map(|lib| format!("{lib} "))
        .collect()
}

/// Whether `text` has `word` as a whole word (`grep -w`).
pub fn has_word(text: &str, word: &str) -> bool {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .any(|w| w == word)
}

#[cfg(test)]
mod tests {
    #[test]
    fn needed_libraries_are_read() {
        let dynamic = " 0x1 (NEEDED)  Shared library: [libgcc_s.so.1]\n 0x1 (NEEDED)  Shared library: [libc.so.6]\n 0xc (INIT) 0x5000\n";
        assert_eq!(super::needed(dynamic), "libgcc_s.so.1 libc.so.6 ");
        assert_eq!(super::needed(" 0xc (INIT) 0x5000\n"), "");
    }

    #[test]
    fn words_are_whole() {
        let symbols = "0000 T cuGetProcAddress\n0001 T cuGetProcAddress_v2@@libcuda\n";
        assert!(super::has_word(symbols, "cuGetProcAddress_v2"));
        assert!(!super::has_word(
            "0000 T cuGetProcAddress_v2x\n",
            "cuGetProcAddress_v2"
        ));
    }
}
