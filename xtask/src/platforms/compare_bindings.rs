//! The generator's output for one target compared with another's (one CUDA version each), in
//! one of four ways ([`Mode`]): one line of counts, and a line for anything else that differs.

use crate::base::{files, Result};
use fs_err as fs;
use std::collections::BTreeSet;
use std::ops::Range;
use std::path::Path;

/// What may differ between the two folders.
#[derive(Clone, Copy, PartialEq)]
pub enum Mode {
    /// Every file identical (aarch64-unknown-linux-gnu against x86-64 Linux).
    Same,
    /// Every file of the first folder identical to the second's file of that name (the
    /// regenerate task's Windows pass, gl_*.rs, against the x86_64-pc-windows-gnu output).
    Subset,
    /// x86_64-pc-windows-gnu against x86-64 Linux: every file identical but cudaGL.h's module
    /// (gl_*.rs), whose every differing part is about cuWGLGetDevice and its HGPUNV handle, which
    /// cudaGL.h declares only under _WIN32 (or a count that includes them): the committed
    /// gl_*.rs carry them under cfg(windows).
    Windows,
    /// x86_64-pc-windows-msvc against x86_64-pc-windows-gnu: every differing line an enum's
    /// newtype over `c_int` where GNU has `c_uint` (MSVC's enums are always `int`) or
    /// cuuint32_t/cuuint64_t spelled `c_uint`/`c_ulonglong` where GNU has `u32`/`u64` (cuda.h
    /// takes `unsigned __int32/64` under _MSC_VER): the same types and layouts.
    Msvc,
}

/// The typedefs GNU and MSVC spell differently.
const CUUINT: [(&str, &str); 2] = [
    (
        "pub type cuuint32_t = u32;",
        "pub type cuuint32_t = ::core::ffi::c_uint;",
    ),
    (
        "pub type cuuint64_t = u64;",
        "pub type cuuint64_t = ::core::ffi::c_ulonglong;",
    ),
];

/// Compares the folders `base` and `other`: whether they differ only as expected, and the line
/// of counts followed by a line per unexpected difference.
pub fn compare(mode: Mode, base: &Path, other: &Path) -> Result<(bool, String)> {
    let mut names = file_names(base)?;
    if mode != Mode::Subset {
        names.extend(file_names(other)?);
    }
    let (mut identical, mut handled, mut problems) = (0, Vec::new(), Vec::new());
    for name in &names {
        let (a_path, b_path) = (base.join(name), other.join(name));
        if !(a_path.is_file() && b_path.is_file()) {
            let only = if a_path.is_file() { base } else { other };
            problems.push(format!("{name}: only in {}", only.display()));
            continue;
        }
        let (a, b) = (files::read(&a_path)?, files::read(&b_path)?);
        let (a, b): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
        if a == b {
            identical += 1;
            continue;
        }
        let verdict = match mode {
            Mode::Windows if name.starts_with("gl_") => windows_only(&a, &b),
            Mode::Msvc if a.len() == b.len() => msvc_spellings(&a, &b),
            _ => Err(first_difference(&a, &b)),
        };
        match verdict {
            Ok(what) => handled.push(format!("{name} ({what})")),
            Err(what) => problems.push(format!("{name}: {what}")),
        }
    }
    let mut line = format!("{identical} of {} files identical", names.len());
    if !handled.is_empty() {
        line += &format!("; differing as expected: {}", handled.join(", "));
    }
    for problem in &problems {
        line += &format!("\n  UNEXPECTED: {problem}");
    }
    Ok((problems.is_empty(), line))
}

fn file_names(dir: &Path) -> Result<BTreeSet<String>> {
    let mut names = BTreeSet::new();
    for entry in fs::read_dir(dir)? {
        names.insert(entry?.file_name().to_string_lossy().into_owned());
    }
    Ok(names)
}

/// The parts where `a` and `b` differ, in order, their lines counted from `at` (a's, b's): as
/// Python's difflib finds them (without junk), the longest common block (the earliest in `a`,
/// then in `b`), then the same on each side of it. Quadratic: for files of a few hundred lines.
fn changes(a: &[&str], b: &[&str], at: (usize, usize)) -> Vec<(Range<usize>, Range<usize>)> {
    // The longest common block (start in a, start in b, length); `row[j + 1]`: the length of the
    // common block ending at a[i - 1] and b[j].
    let (mut best, mut row) = ((0, 0, 0), vec![0; b.len() + 1]);
    for (i, x) in a.iter().enumerate() {
        let mut next = vec![0; b.len() + 1];
        for (j, _) in b.iter().enumerate().filter(|(_, y)| *y == x) {
            next[j + 1] = row[j] + 1;
            if next[j + 1] > best.2 {
                best = (i + 1 - next[j + 1], j + 1 - next[j + 1], next[j + 1]);
            }
        }
        row = next;
    }
    let (i, j, k) = best;
    if k == 0 {
        let part = (at.0..at.0 + a.len(), at.1..at.1 + b.len());
        return (!(a.is_empty() && b.is_empty()))
            .then_some(part)
            .into_iter()
            .collect();
    }
    let mut parts = changes(&a[..i], &b[..j], at);
    parts.extend(changes(
        &a[i + k..],
        &b[j + k..],
        (at.0 + i + k, at.1 + j + k),
    ));
    parts
}

/// Every differing part names cuWGLGetDevice, HGPUNV, the header notes or a length constant.
fn windows_only(a: &[&str], b: &[&str]) -> std::result::Result<String, String> {
    let parts = changes(a, b, (0, 0));
    for (old, new) in &parts {
        let (old, new) = (&a[old.clone()], &b[new.clone()]);
        if !old.iter().chain(new).any(|l| is_windows_only(l)) {
            return Err(format!("{old:?} -> {new:?}"));
        }
    }
    Ok(format!("{} parts, all cuWGLGetDevice", parts.len()))
}

fn is_windows_only(line: &str) -> bool {
    let mut lengths = line.split("_LEN: usize = ").skip(1);
    ["cuWGLGetDevice", "HGPUNV", "HEADER_NOTES"]
        .iter()
        .any(|word| line.contains(word))
        || lengths.any(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
}

/// Every differing line an enum's newtype (`c_uint` -> `c_int`) or a cuuint typedef.
fn msvc_spellings(a: &[&str], b: &[&str]) -> std::result::Result<String, String> {
    let (mut enums, mut typedefs) = (0, 0);
    for (x, y) in a.iter().zip(b).filter(|(x, y)| x != y) {
        let newtype = (x.strip_prefix("pub struct "))
            .and_then(|x| x.strip_suffix("(pub ::core::ffi::c_uint);"));
        match newtype {
            Some(name) if *y == format!("pub struct {name}(pub ::core::ffi::c_int);") => enums += 1,
            _ if CUUINT.contains(&(x, y)) => typedefs += 1,
            _ => return Err(format!("{x:?} -> {y:?}")),
        }
    }
    Ok(format!("{enums} enums c_int, {typedefs} cuuint typedefs"))
}

fn first_difference(a: &[&str], b: &[&str]) -> String {
    let first = (0..).find(|&i| a.get(i) != b.get(i)).unwrap_or(0);
    let (x, y) = (a.get(first..=first), b.get(first..=first));
    let (x, y) = (x.unwrap_or_default(), y.unwrap_or_default());
    format!("line {}: {x:?} -> {y:?}", first + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn msvc_spellings_and_others() {
        let gnu = [
            "pub struct CUx(pub ::core::ffi::c_uint);",
            "pub type cuuint32_t = u32;",
        ];
        let msvc = [
            "pub struct CUx(pub ::core::ffi::c_int);",
            "pub type cuuint32_t = ::core::ffi::c_uint;",
        ];
        assert_eq!(
            msvc_spellings(&gnu, &msvc).unwrap(),
            "1 enums c_int, 1 cuuint typedefs"
        );
        let renamed = ["pub struct CUy(pub ::core::ffi::c_int);", msvc[1]];
        assert!(msvc_spellings(&gnu, &renamed).is_err());
    }

    #[test]
    fn parts_as_difflib_finds_them() {
        // difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes(), the non-equal ones:
        // [('replace', 1, 2, 1, 2), ('replace', 4, 5, 4, 6)]
        let a = ["x", "a", "y", "z", "w"];
        let b = ["x", "b", "y", "z", "p", "q"];
        assert_eq!(changes(&a, &b, (0, 0)), [(1..2, 1..2), (4..5, 4..6)]);
        assert!(changes(&a, &a, (0, 0)).is_empty());
        assert_eq!(changes(&a, &b[..0], (0, 0)), [(0..5, 0..0)]);
    }

    #[test]
    fn windows_parts_name_cuwglgetdevice() {
        let linux = ["a", "pub const FUNCTIONS_LEN: usize = 3;", "b"];
        let windows = [
            "a",
            "pub const FUNCTIONS_LEN: usize = 4;",
            "b",
            "pub fn cuWGLGetDevice();",
        ];
        assert_eq!(
            windows_only(&linux, &windows).unwrap(),
            "2 parts, all cuWGLGetDevice"
        );
        let other = ["a", linux[1], "b", "pub fn cuOther();"];
        assert!(windows_only(&linux, &other).is_err());
    }
}
