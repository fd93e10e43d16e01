//! The generator's output for one target compared with another's (one CUDA version each), in
//! one of four ways ([`Mode`]); one line of counts, or an error naming what else differs.

use super::sequence;
use crate::base::Result;
use std::collections::BTreeSet;
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

/// Compares the folders `base` and `other`: the line of counts, or an error holding it and a
/// line per unexpected difference.
pub fn compare(mode: Mode, base: &Path, other: &Path) -> Result<String> {
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
        let (a, b) = (
            crate::base::files::read(&a_path)?,
            crate::base::files::read(&b_path)?,
        );
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
    if problems.is_empty() {
        return Ok(line);
    }
    let problems: Vec<String> = problems
        .iter()
        .map(|p| format!("  UNEXPECTED: {p}"))
        .collect();
    Err(format!("{line}\n{}", problems.join("\n")).into())
}

fn file_names(dir: &Path) -> Result<BTreeSet<String>> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut names = BTreeSet::new();
    for entry in entries {
        names.insert(entry?.file_name().to_string_lossy().into_owned());
    }
    Ok(names)
}

/// Every differing part names cuWGLGetDevice, HGPUNV, the header notes or a length constant.
fn windows_only(a: &[&str], b: &[&str]) -> std::result::Result<String, String> {
    let parts = sequence::changes(a, b);
    for part in &parts {
        let (old, new) = (&a[part.a_start..part.a_end], &b[part.b_start..part.b_end]);
        if !old.iter().chain(new).any(|l| is_windows_only(l)) {
            return Err(format!("{old:?} -> {new:?}"));
        }
    }
    Ok(format!("{} parts, all cuWGLGetDevice", parts.len()))
}

fn is_windows_only(line: &str) -> bool {
    let length = line.split("_LEN: usize = ").skip(1);
    ["cuWGLGetDevice", "HGPUNV", "HEADER_NOTES"]
        .iter()
        .any(|word| line.contains(word))
        || length
            .into_iter()
            .any(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
}

/// Every differing line an enum's newtype (`c_uint` -> `c_int`) or a cuuint typedef.
fn msvc_spellings(a: &[&str], b: &[&str]) -> std::result::Result<String, String> {
    let (mut enums, mut typedefs) = (0, 0);
    for (x, y) in a.iter().zip(b).filter(|(x, y)| x != y) {
        match (enum_newtype(x), enum_newtype(y)) {
            (Some((nx, "c_uint")), Some((ny, "c_int"))) if nx == ny => enums += 1,
            _ if CUUINT.contains(&(x, y)) => typedefs += 1,
            _ => return Err(format!("{x:?} -> {y:?}")),
        }
    }
    Ok(format!("{enums} enums c_int, {typedefs} cuuint typedefs"))
}

/// `pub struct NAME(pub ::core::ffi::c_int);` (or `c_uint`): NAME and the type.
fn enum_newtype(line: &str) -> Option<(&str, &str)> {
    let (name, rest) = line.strip_prefix("pub struct ")?.split_once('(')?;
    let ty = rest.strip_prefix("pub ::core::ffi::")?.strip_suffix(");")?;
    let word = !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_');
    (word && (ty == "c_int" || ty == "c_uint")).then_some((name, ty))
}

fn first_difference(a: &[&str], b: &[&str]) -> String {
    let first = (0..=a.len().max(b.len()))
        .find(|&i| a.get(i) != b.get(i))
        .unwrap_or(0);
    let (x, y) = (&a[first.min(a.len())..], &b[first.min(b.len())..]);
    format!(
        "line {}: {:?} -> {:?}",
        first + 1,
        &x[..x.len().min(1)],
        &y[..y.len().min(1)]
    )
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
